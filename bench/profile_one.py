#!/usr/bin/env python3
"""Runs one attention forward a few times, for a profiler to attach to.

Nsight Compute reads the hardware counters of one launch; this script gives
it exactly the launches to look at, with no timing loop around them:

  ncu --clock-control none -k regex:'fa_d|flash_fwd' --launch-skip 1 \
      --launch-count 1 --section WarpStateStats \
      python3 profile_one.py --impl ours --d 128 --seqlen 4096

--impl is `ours` (the compiled kernel from --kernels) or a torch SDPA
backend (`sdpa_flash`, `sdpa_cudnn`, `sdpa_efficient`). Shapes follow
bench.py: batch x seqlen = 16384, hidden 2048.
"""
import argparse

import torch

from bench import DTYPES, SDPA_BACKENDS, our_impl, sdpa


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--impl", default="ours")
    p.add_argument("--kernels", default="build/kernels")
    p.add_argument("--d", type=int, default=128)
    p.add_argument("--seqlen", type=int, default=4096)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f16")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    b, h = 16384 // a.seqlen, 2048 // a.d
    torch.manual_seed(0)
    q, k, v = (torch.randn(b, h, a.seqlen, a.d, device="cuda", dtype=DTYPES[a.dtype]) for _ in range(3))
    if a.impl == "ours":
        fn = our_impl(a.kernels, a.d, a.dtype, a.causal, h)
    else:
        backend = SDPA_BACKENDS[a.impl]
        fn = lambda q, k, v, causal: sdpa(backend, q, k, v, causal)  # noqa: E731
    for _ in range(a.repeat):
        fn(q, k, v, a.causal)
    torch.cuda.synchronize()
    print("ran %s d=%d %s causal=%s B=%d H=%d N=%d x%d" % (
        a.impl, a.d, a.dtype, a.causal, b, h, a.seqlen, a.repeat))


if __name__ == "__main__":
    main()
