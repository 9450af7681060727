#!/usr/bin/env python3
"""Prints one line per compiled kernel in DIR (the <kernel>.json launch records
and <kernel>.ptx that --fa-to-ptx{output-dir=DIR} writes): name, tile
configuration, launch shape, shared memory, and, when ptxas is installed,
registers and spills for the record's chip.

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
    records = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
    if not records:
        print("no kernels in %s" % sys.argv[1])
        return 1
    for path in records:
        r = json.load(open(path))
        ptx = path[:-len(".json")] + ".ptx"
        print("%s  (%s, d=%d, %s%s, Hq/Hkv=%d)" % (
            r["kernel"], r["dtype"], r["head_dim"], "causal" if r["causal"] else "not causal",
            ", LSE" if "lse" in r["params"] else "", r["num_heads"] // r["num_kv_heads"]))
        print("    tiles %dx%d, %d warps, %d K/V stages; grid (%s), block (%s)" % (
            r["block_m"], r["block_n"], r["num_warps"], r.get("kv_stages", 0),
            ", ".join(r["grid"]), ", ".join(str(x) for x in r["block"])))
        print("    dynamic shared memory %d bytes; %s: %s" % (
            r["dynamic_shared_memory"], r["chip"], ptxas_report(ptx, r["chip"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
