#!/usr/bin/env python3
"""Markdown table of an ab_compare.py JSON: per shape the TFLOP/s of each
variant (median of the rounds), the ratio of the first variant to the last,
and SDPA-FLASH; then the geometric means and the noise floor.

  ab_report.py docs/results/ab-issue9-2026-11-30.json
"""
import json
import sys


def main():
    data = json.load(open(sys.argv[1]))
    names = list(data["variants"])
    new, base = names[0], names[-1]
    cols = names + ["sdpa_flash"]
    print("| d | dtype | causal | B x H | seqlen | " + " | ".join(cols) +
          " | %s / %s | %s rounds |" % (new, base, new))
    print("|" + "---|" * (len(cols) + 7))
    for r in data["rows"]:
        cells = ["%.1f" % r[c]["tflops"] for c in cols]
        ratio = r[new]["tflops"] / r[base]["tflops"]
        rounds = "/".join("%.0f" % (1e3 * x) for x in r[new]["rounds"])
        print("| %d | %s | %s | %dx%d | %d | %s | **%.3f** | %s us |" % (
            r["d"], r["dtype"], "yes" if r["causal"] else "no", r["batch"], r["heads"],
            r["seqlen"], " | ".join(cells), ratio, rounds))
    print()
    s = data["summary"]
    for key in [k for k in s if k != "noise"]:
        v = s[key]
        print("* head dim %s: geometric mean %s / %s = %.3f (min %.3f, max %.3f)" % (
            key, new, base, v["geomean_ratio"], v["min_ratio"], v["max_ratio"]))
    print("* noise floor (the same kernel timed twice per round): median %.1f %%, max %.1f %%" % (
        100 * s["noise"]["median"], 100 * s["noise"]["max"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
