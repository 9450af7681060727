#!/usr/bin/env python3
"""Prints, for every launch plan in DIR (the <plan>.json and <kernel>.ptx
files that --fa-to-ptx{output-dir=DIR} writes), its tensors and per kernel
the launch shape, shared memory, and, when ptxas is installed, registers and
spills for the plan's chip.

  summarize-kernels.py DIR
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def ptxas_report(ptx, chip):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        return "ptxas not installed"
    out = subprocess.run([ptxas, "-arch=" + chip, "-v", ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return "ptxas FAILED: " + out.stderr.strip().splitlines()[-1]
    regs = re.search(r"Used (\d+) registers", out.stderr)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out.stderr)
    return "%s registers, %s/%s bytes spilled (stores/loads)" % (
        regs.group(1) if regs else "?", *(spills.groups() if spills else ("?", "?")))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    plans = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
    if not plans:
        print("no launch plans in %s" % sys.argv[1])
        return 1
    for path in plans:
        plan = json.load(open(path))
        tensors = ", ".join("%s %s[%s]" % (t["name"], t["dtype"], ", ".join(
            "?" if d is None else str(d) for d in t["shape"])) for t in plan["tensors"])
        print("%s  (%s)" % (plan["name"], tensors))
        for k in plan["kernels"]:
            grid = ", ".join(grid_text(e) for e in k["grid"])
            print("    kernel %s: grid (%s), block (%s), dynamic shared memory %d bytes" % (
                k["name"], grid, ", ".join(str(x) for x in k["block"]), k["dynamic_shared_memory"]))
            ptx = os.path.join(os.path.dirname(path), k["ptx"])
            print("    %s: %s" % (plan["chip"], ptxas_report(ptx, plan["chip"])))
    return 0


def grid_text(expr):
    """A launch-plan grid expression as text: ceildivui(q.shape[2], 128)."""
    if isinstance(expr, int):
        return str(expr)
    if "dim" in expr:
        return "%s.shape[%d]" % tuple(expr["dim"])
    return "%s(%s)" % (expr["op"], ", ".join(grid_text(a) for a in expr["args"]))


if __name__ == "__main__":
    sys.exit(main())
