#!/usr/bin/env python3
"""Device time of each kernel of a split-KV decode step (the attention
kernel and the merge), by split count, from the PyTorch profiler: where a
split-KV step's time goes (docs/performance.md, "where a B = 1 decode step's
time goes").

  # compiler machine: run-time-count split kernels
  compile_kernels.py --head-dims 128 --dtypes bf16 --causal yes --heads 32x8 \\
    --q-len 1 --options "splits=0" --out build/splitbench/base
  # GPU machine
  PYTHONPATH=python_bindings python3 bench/split_breakdown.py --kernels build/splitbench/base
"""
import argparse
import json
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
from fa_mlir.runtime import Plan  # noqa: E402

CALLS = 20


def kernel_times_us(fn):
    """{kernel name: device us per call} of `fn` over CALLS calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
    times = {}
    for e in prof.key_averages():
        total = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        if total:
            times[e.key] = total / CALLS
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", required=True, help="a directory of splits=0 kernels")
    p.add_argument("--shapes", nargs="+", default=["1x32x8x8192", "1x32x8x32768",
                                                   "1x32x8x131072", "8x32x8x8192"],
                   help="BxHqxHkvxNk")
    p.add_argument("--counts", type=int, nargs="+", default=[4, 8, 16, 32, 64, 128])
    p.add_argument("--json")
    a = p.parse_args()
    rows = []
    for shape in a.shapes:
        b, hq, hkv, nk = map(int, shape.split("x"))
        c = dict(configs.config(128, "bf16", True, hq, hkv), static_nq=1)
        plan = Plan(a.kernels, configs.kernel_name(c))
        q = torch.randn(b, hq, 1, 128, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, hkv, nk, 128, device="cuda", dtype=torch.bfloat16)
                for _ in range(2))
        out = torch.empty_like(q)
        for s in a.counts:
            times = kernel_times_us(lambda s=s: plan.attention(q, k, v, out, num_splits=s))
            rows.append(dict(B=b, Hq=hq, Hkv=hkv, Nk=nk, splits=s, us=times))
            print("B=%d %d:%d Nk=%6d S=%3d  %s" % (b, hq, hkv, nk, s, "  ".join(
                "%s %.1f us" % (n, t) for n, t in sorted(times.items()))), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
