#!/usr/bin/env python3
"""Turns a bench.py JSON into the markdown table and the PNG plot of
docs/performance.md.

  report.py docs/results/bench-DATE.json --plot docs/performance.png
"""
import argparse
import json
import sys

IMPLS = ["ours", "sdpa_flash", "sdpa_cudnn", "sdpa_efficient", "triton_fa2"]


def tflops(row, name):
    cell = row.get(name, {})
    return cell.get("tflops")


def table(rows):
    lines = ["| d | dtype | causal | B x H | seqlen | " + " | ".join(IMPLS) +
             " | ours / flash |", "|" + "---|" * (6 + len(IMPLS))]
    for r in rows:
        cells = []
        for name in IMPLS:
            t = tflops(r, name)
            cells.append("%.0f" % t if t else "n/a")
        flash, ours = tflops(r, "sdpa_flash"), tflops(r, "ours")
        ratio = "%.2f" % (ours / flash) if flash and ours else "n/a"
        lines.append("| %d | %s | %s | %dx%d | %d | %s | **%s** |" % (
            r["d"], r["dtype"], "yes" if r["causal"] else "no", r["batch"], r["heads"],
            r["seqlen"], " | ".join(cells), ratio))
    return "\n".join(lines)


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharey=True)
    styles = {"ours": ("tab:red", "o"), "sdpa_flash": ("tab:blue", "s"),
              "sdpa_cudnn": ("tab:green", "^"), "sdpa_efficient": ("tab:gray", "v"),
              "triton_fa2": ("tab:purple", "D")}
    for ax, (d, causal) in zip(axes.flat, [(64, False), (64, True), (128, False), (128, True)]):
        for dtype, dash in (("f16", "-"), ("bf16", ":")):
            sel = [r for r in rows if r["d"] == d and r["causal"] == causal and r["dtype"] == dtype]
            sel.sort(key=lambda r: r["seqlen"])
            for name in IMPLS:
                xs = [r["seqlen"] for r in sel if tflops(r, name)]
                ys = [tflops(r, name) for r in sel if tflops(r, name)]
                color, marker = styles[name]
                ax.plot(xs, ys, dash, color=color, marker=marker, markersize=4,
                        label="%s (%s)" % (name, dtype))
        ax.set_xscale("log", base=2)
        ax.set_title("head dim %d, %s" % (d, "causal" if causal else "not causal"))
        ax.set_xlabel("sequence length")
        ax.set_ylabel("TFLOP/s")
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json")
    p.add_argument("--plot")
    a = p.parse_args()
    data = json.load(open(a.json))
    print(table(data["rows"]))
    if a.plot:
        plot(data["rows"], a.plot, "Forward attention, %s, %s (torch %s, triton %s)" % (
            data.get("device"), data.get("date"), data.get("torch"), data.get("triton")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
