#!/usr/bin/env python3
"""Runs one backward plan a few times on one shape, for ncu or nsys:

  ncu --kernel-name regex:bwd_kernel --launch-skip 3 --launch-count 3 \\
      python3 profile_backward.py --kernels ../build/bwk --config d64_bf16_4x4 --n 4096

With --peer flash (or cudnn), SDPA's backward of that backend on the same
shape instead (its kernels: `ncu --kernel-name regex:flash_bwd` for
FlashAttention-2's), for a breakdown side by side.

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
    p.add_argument("--peer", choices=["flash", "cudnn"],
                   help="profile SDPA's backward of this backend instead")
    p.add_argument("--causal", action="store_true",
                   help="the config's mask for --peer (ours: the config's own)")
    a = p.parse_args()
    d = 64 if a.config.startswith("d64") else 128
    h = 2048 // d
    b = 16384 // a.n
    if a.peer:
        return profile_peer(a, d, 2048 // d, 16384 // a.n)
    plan = Plan(os.path.join(a.kernels, a.config), "bwd_kernel")
    mk = lambda: torch.randn(b * h // 4, 4, a.n, d, device="cuda", dtype=torch.bfloat16)  # noqa
    q, k, v, o, do = mk(), mk(), mk(), mk(), mk()
    lse = torch.full((b * h // 4, 4, a.n), math.log(a.n), device="cuda")
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    for _ in range(a.calls):
        plan(q=q, k=k, v=v, o=o, do=do, lse=lse, dq=dq, dk=dk, dv=dv)
    torch.cuda.synchronize()


def profile_peer(a, d, h, b):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = {"flash": SDPBackend.FLASH_ATTENTION,
               "cudnn": SDPBackend.CUDNN_ATTENTION}[a.peer]
    mk = lambda: torch.randn(b, h, a.n, d, device="cuda", dtype=torch.bfloat16,  # noqa
                             requires_grad=True)
    q, k, v = mk(), mk(), mk()
    do = torch.randn(b, h, a.n, d, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel(backend):
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
    for _ in range(a.calls):
        torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
