#!/usr/bin/env python3
"""Runs one backward plan a few times on one shape, for ncu or nsys:

  ncu --kernel-name regex:bwd_kernel --launch-skip 3 --launch-count 3 \\
      python3 profile_backward.py --kernels ../build/bwk --config d64_bf16_4x4 --n 4096

Shapes as check_backward.py's bench: B * N = 16k tokens, hidden 2048 (the
4-head plan runs on [B * H / 4, 4, N, D] views)."""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.runtime import Plan  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--calls", type=int, default=6)
    a = p.parse_args()
    d = 64 if a.config.startswith("d64") else 128
    h = 2048 // d
    b = 16384 // a.n
    plan = Plan(os.path.join(a.kernels, a.config), "bwd_kernel")
    mk = lambda: torch.randn(b * h // 4, 4, a.n, d, device="cuda", dtype=torch.bfloat16)  # noqa
    q, k, v, o, do = mk(), mk(), mk(), mk(), mk()
    lse = torch.full((b * h // 4, 4, a.n), math.log(a.n), device="cuda")
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    for _ in range(a.calls):
        plan(q=q, k=k, v=v, o=o, do=do, lse=lse, dq=dq, dk=dk, dv=dv)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
