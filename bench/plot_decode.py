#!/usr/bin/env python3
"""The decode plot of docs/performance.md: GB/s against the number of keys,
one panel per batch size, from a bench_kvcache.py JSON (our dense and paged
kernels, SDPA FLASH and cuDNN on the dense tensors), with HBM's peak and
the 85 % line of the inference-shapes issue.

  plot_decode.py docs/results/key-groups-kvcache-plan-rule-2026-12-05.json \\
      --out docs/decode.png [--hbm-tbps 4.8]

Needs matplotlib (not needed by anything else in the project).
"""
import argparse
import json
import sys

# Series of bench_kvcache.py's rows, in drawing order: (key, label, style).
SERIES = [
    ("ours_dense", "ours, dense", dict(color="tab:red", marker="o")),
    ("ours_paged16", "ours, pages of 16", dict(color="tab:red", marker="v", linestyle=":")),
    ("ours_paged64", "ours, pages of 64", dict(color="tab:red", marker="^", linestyle="--")),
    ("ours_paged256", "ours, pages of 256", dict(color="tab:red", marker="<", linestyle="-.")),
    ("sdpa_flash", "SDPA FLASH (dense)", dict(color="tab:blue", marker="s")),
    ("sdpa_cudnn", "SDPA cuDNN (dense)", dict(color="tab:green", marker="D")),
]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="bench_kvcache.py --json output")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--hbm-tbps", type=float, default=4.8, help="HBM peak of the GPU, TB/s")
    a = p.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_decode.py needs matplotlib (pip install matplotlib)")
    with open(a.results) as f:
        data = json.load(f)
    rows = data["rows"]
    if not rows:
        sys.exit("%s: no rows" % a.results)
    # One panel per (heads, B): a line through rows of two head layouts
    # would zig-zag between them.
    batches = sorted({r["B"] for r in rows})
    head_layouts = sorted({(r["Hq"], r["Hkv"]) for r in rows})
    fig, axes = plt.subplots(len(head_layouts), len(batches),
                             figsize=(5 * len(batches), 4.2 * len(head_layouts)), sharey=True,
                             squeeze=False)
    for panels, heads in zip(axes, head_layouts):
        for ax, b in zip(panels, batches):
            mine = sorted((r for r in rows if r["B"] == b and (r["Hq"], r["Hkv"]) == heads),
                          key=lambda r: r["Nk"])
            if not mine:
                ax.set_axis_off()
                continue
            for key, label, style in SERIES:
                points = [(r["Nk"], r["gbps"][key] / 1000) for r in mine if key in r["gbps"]]
                if points:
                    ax.plot(*zip(*points), label=label, **style)
            ax.axhline(a.hbm_tbps, color="gray", linewidth=1)
            ax.axhline(0.85 * a.hbm_tbps, color="gray", linewidth=1, linestyle="--")
            ax.text(mine[0]["Nk"], a.hbm_tbps * 0.87, "85 % of HBM", color="gray", fontsize=8)
            ax.set_xscale("log", base=2)
            ax.set_ylim(bottom=0)
            ax.set_xlabel("keys in the cache (Nk)")
            ax.set_title("B = %d, %d:%d heads" % ((b,) + heads))
            ax.grid(True, alpha=0.3)
            ax.set_ylabel("TB/s (K and V bytes read once)")
            ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("Decode steps (Nq = 1, d = 128, bf16), %s, torch %s" % (
        data.get("device", "GPU"), data.get("torch", "?")))
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
