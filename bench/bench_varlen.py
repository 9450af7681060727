#!/usr/bin/env python3
"""Packed variable-length prefill (fa_mlir.attention_varlen) against our
dense kernel (fa_mlir.attention, layout bnhd) in one run: with equal
lengths on the same tokens (the packing's own cost), and with mixed
lengths against the dense kernel on the batch padded to the longest
sequence (what packing saves). d = 64 and 128, bf16, causal, GQA 32:8.
Timing as bench_kvcache.py: each call in a CUDA graph of 20 calls,
interleaved, `--repeats` rounds, medians.

  # compiler machine
  cd python_bindings && FA_MLIR_NATIVE_DIR=../build/python_packages \\
    python3 -m fa_mlir.aot --out ../build/varlen-kernels --head-dims 64,128 \\
      --dtypes bf16 --heads 32:8 --causal yes --varlen both
  # GPU machine
  FA_MLIR_KERNEL_DIR=$PWD/build/varlen-kernels PYTHONPATH=python_bindings \\
    python3 bench/bench_varlen.py --repeats 3 --json OUT.json

`--variant NAME=DIR[@CHIP]` (repeatable, bench/kernel_variants.py) also
times the packed kernels of another kernel directory (e.g. other tiles,
another compiler build, or `@sm_90a` for `--chip sm_90a` kernels) in the
same rounds, as "varlen:NAME"; each variant's output must match the
default packed kernel's (its largest difference is printed and kept).
`--dense-variants` times each variant's dense kernel too, and reports the
variant's packing cost against its own dense kernel.
"""
import argparse
import json
import math
import statistics
import sys

import torch

import fa_mlir
import fa_mlir.ops  # noqa: F401 (its plan memo is swapped per variant)
from kernel_variants import parse_variants, with_cache
from timing import interleaved_times

HQ, HKV = 32, 8


def cases(d):
    gen = torch.Generator().manual_seed(d)
    mixed = torch.randint(128, 4097, (16,), generator=gen).tolist()
    return [("equal", [2048] * 8, d), ("equal", [512] * 32, d), ("equal", [8192] * 2, d),
            ("mixed", mixed, d), ("mixed", [4096] + [256] * 15, d)]


def calls_for(kind, lengths, d, variants=(), dense_variants=False):
    dt = torch.bfloat16
    total, b, longest = sum(lengths), len(lengths), max(lengths)
    q = torch.randn(total, HQ, d, device="cuda", dtype=dt)
    k = torch.randn(total, HKV, d, device="cuda", dtype=dt)
    v = torch.randn(total, HKV, d, device="cuda", dtype=dt)
    cu = torch.tensor([0] + torch.tensor(lengths).cumsum(0).tolist(), dtype=torch.int32,
                      device="cuda")
    # FlashAttention's calling convention: max_seqlen_q and _k given.
    packed = lambda: fa_mlir.attention_varlen(q, k, v, cu, cu, longest, longest, causal=True)
    calls = {"varlen": packed}
    for name, cache, chip in variants:
        calls["varlen:" + name] = with_cache(cache, packed, chip)
    if kind == "equal":
        qd, kd, vd = (t.view(b, lengths[0], t.shape[1], d) for t in (q, k, v))
    else:  # Padded to the longest sequence.
        qd = torch.randn(b, longest, HQ, d, device="cuda", dtype=dt)
        kd = torch.randn(b, longest, HKV, d, device="cuda", dtype=dt)
        vd = torch.randn_like(kd)
    calls["dense"] = lambda: fa_mlir.attention(qd, kd, vd, causal=True, layout="bnhd")
    for name, cache, chip in variants:
        if dense_variants:
            calls["dense:" + name] = with_cache(
                cache, lambda: fa_mlir.attention(qd, kd, vd, causal=True, layout="bnhd"), chip)
    return calls


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=DIR[@CHIP]",
                   help="also time the packed kernels of kernel directory DIR "
                        "(looked up as CHIP's kernels; kernel_variants.py)")
    p.add_argument("--dense-variants", action="store_true",
                   help="time each variant's dense kernel too (dense:NAME), and report "
                        "its packed kernel against it")
    a = p.parse_args()
    variants = parse_variants(p, a.variant)
    rows = []
    for d in a.head_dims:
        for kind, lengths, _ in cases(d):
            calls = calls_for(kind, lengths, d, variants, a.dense_variants)
            errors = {}
            if variants:
                base = calls["varlen"]()
                for name, _, _ in variants:
                    diff = (calls["varlen:" + name]() - base).abs().max().item()
                    errors[name] = diff
                    if not diff <= 1e-2:
                        raise RuntimeError("variant %s differs from the default packed kernel "
                                           "by %g (d=%d, %s)" % (name, diff, d, lengths))
            times = interleaved_times(calls, a.repeats)
            ms = {n: statistics.median(t) for n, t in times.items()}
            # Causal FLOPs of the real sequences: 4 * n^2 / 2 * H * d each.
            flops = sum(2.0 * n * n * HQ * d for n in lengths)
            row = {"d": d, "kind": kind, "lengths": lengths, "ms": ms,
                   "varlen_tflops": flops / (ms["varlen"] * 1e-3) / 1e12,
                   "dense_over_varlen": ms["dense"] / ms["varlen"],
                   "spread": {n: (max(t) - min(t)) / statistics.median(t)
                              for n, t in times.items()},
                   "variant_max_diff": errors}
            for name, _, _ in variants:
                dense = ms["dense:" + name] if a.dense_variants else ms["dense"]
                row["dense_over_" + name] = dense / ms["varlen:" + name]
            rows.append(row)
            print("d=%-3d %-5s S=%-2d total=%-6d varlen %.3f ms (%.0f TFLOP/s)  dense %.3f ms  "
                  "dense/varlen %.3f" % (d, kind, len(lengths), sum(lengths), ms["varlen"],
                                         row["varlen_tflops"], ms["dense"],
                                         row["dense_over_varlen"]), flush=True)
            for name, _, _ in variants:
                print("      variant %-10s %.3f ms  dense/varlen %.3f  max diff %.2g%s" % (
                    name, ms["varlen:" + name], row["dense_over_" + name], errors[name],
                    "  (its dense %.3f ms)" % ms["dense:" + name] if a.dense_variants else ""),
                    flush=True)
    for kind in ("equal", "mixed"):
        for col in ["varlen"] + [name for name, _, _ in variants]:
            sel = [r["dense_over_" + col] for r in rows if r["kind"] == kind]
            print("%s: geomean dense/%s %.3f" % (kind, col, math.exp(sum(map(math.log, sel)) /
                                                                     len(sel))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
