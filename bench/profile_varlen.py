#!/usr/bin/env python3
"""Runs one packed (varlen) prefill and its dense equivalent a few times, for
a profiler to attach to (as profile_one.py does for the dense forward):

  FA_MLIR_KERNEL_DIR=$PWD/build/varlen-kernels PYTHONPATH=python_bindings \\
    ncu --clock-control none -k regex:varlen --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight python3 bench/profile_varlen.py --d 64 --lengths 32x512

--lengths is COUNTxLENGTH (equal lengths: the dense call is the same tokens
as [B, N, H, D]) or a comma-separated list (the dense call then pads to the
longest). Shapes and calls are bench_varlen.py's.
"""
import argparse

import torch

from bench_varlen import calls_for


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--lengths", default="32x512")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    if "x" in a.lengths:
        count, length = (int(x) for x in a.lengths.split("x"))
        kind, lengths = "equal", [length] * count
    else:
        kind, lengths = "mixed", [int(x) for x in a.lengths.split(",")]
    torch.manual_seed(0)
    calls = calls_for(kind, lengths, a.d)
    for _ in range(a.repeat):
        for call in calls.values():
            call()
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
