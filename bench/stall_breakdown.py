#!/usr/bin/env python3
"""Summarises Nsight Compute's per-SASS-instruction warp-stall samples.

Collect one CSV per kernel on the GPU machine (one launch, source page):

  ncu --clock-control none -k regex:'fa_d|flash_fwd' --launch-skip 1 \\
      --launch-count 1 --section SourceCounters --section WarpStateStats \\
      --page source --print-source sass --csv \\
      python3 profile_one.py --impl ours --d 128 --seqlen 4096 > ours.csv

then, here or there:

  stall_breakdown.py ours.csv flash.csv

prints, per kernel, the share of stall samples by reason and by opcode, and
a one-letter map of the hot loop in program order (instructions executed at
least 90 % as often as the hottest one): H = HMMA, L = LDSM, E = MUFU (ex2),
x = FMNMX, f = FFMA, * = FMUL, s = SHFL, g = LDGSTS, | = BAR, V = VOTE,
B = BRA, . = anything else. The map shows which instructions a kernel's
schedule interleaves (e.g. P V's HMMA among the softmax's MUFU).
"""
import argparse
import collections
import csv

LETTERS = {"HMMA": "H", "LDSM": "L", "MUFU": "E", "FMNMX": "x", "FFMA": "f", "FMUL": "*",
           "SHFL": "s", "LDGSTS": "g", "BAR": "|", "VOTE": "V", "BRA": "B"}


def read_rows(path):
    lines = open(path).read().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    return list(csv.DictReader(lines[header:]))


def number(row, key):
    value = row.get(key)
    return float(value) if value not in (None, "") else 0.0


def opcode(source):
    words = source.split()
    if not words:
        return ""
    word = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return word.split(".")[0]


def summarise(path, top):
    rows = read_rows(path)
    reasons = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    total = collections.Counter()
    by_op = collections.defaultdict(collections.Counter)
    for row in rows:
        op = opcode(row["Source"])
        for k in reasons:
            total[k] += number(row, k)
            by_op[op][k] += number(row, k)
        by_op[op]["executed"] += number(row, "Instructions Executed")
        by_op[op]["samples"] += number(row, "Warp Stall Sampling (All Samples)")
    samples = sum(total.values()) or 1.0
    print("%s: %d stall samples" % (path, samples))
    print("  by reason: " + ", ".join("%s %.1f%%" % (k[6:], 100 * v / samples)
                                      for k, v in total.most_common(top)))
    print("  by opcode (share of samples, instructions executed, top reasons):")
    for op, c in sorted(by_op.items(), key=lambda item: -item[1]["samples"])[:top]:
        worst = [(k, v) for k, v in c.most_common() if k.startswith("stall_")][:3]
        print("    %-7s %5.1f%% %11.0f  %s" % (
            op, 100 * c["samples"] / samples, c["executed"],
            ", ".join("%s %.1f%%" % (k[6:], 100 * v / samples) for k, v in worst)))
    executed = [number(row, "Instructions Executed") for row in rows]
    hottest = max(executed) if executed else 0
    loop = "".join(LETTERS.get(opcode(row["Source"]), ".")
                   for row, n in zip(rows, executed) if hottest and n >= 0.9 * hottest)
    print("  hot loop (%d instructions):" % len(loop))
    for i in range(0, len(loop), 100):
        print("    " + loop[i:i + 100])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+", help="ncu --page source --csv output, one kernel each")
    p.add_argument("--top", type=int, default=10, help="reasons and opcodes to list")
    a = p.parse_args()
    for path in a.csv:
        summarise(path, a.top)


if __name__ == "__main__":
    main()
