#!/usr/bin/env python3
"""Decode steps over a K/V cache (fa_mlir.attention_with_kvcache), paged and
dense, side by side with SDPA's FLASH and cuDNN backends on the dense
equivalent (they cannot read a paged cache), in one run.

Shape: B sequences of Nk keys each (every sequence full), Hq query heads
over Hkv key/value heads, one query each, head dim 128, bf16, causal.
Figure: GB/s on the logical bytes of K and V (B * Nk * Hkv * D * 2 bytes,
twice), the traffic a decode step cannot avoid. Every implementation is
timed the same way: 20 calls captured in one CUDA graph, replayed, CUDA
events, per-call time; implementations interleaved, `--repeats` rounds,
medians. Ours picks its split count per call as fa_mlir.attention does
(runtime/splits.py, from the cache's capacity).

  # compiler machine (kernels: every split count, paged and dense):
  cd python_bindings && FA_MLIR_NATIVE_DIR=../build/python_packages \\
    python3 -m fa_mlir.aot --out ../build/kvcache-kernels --head-dims 128 \\
      --dtypes bf16 --heads 32:8,32:32 --causal yes --decode yes \\
      --splits 1,2,4,8,16,32 --kv-cache lengths,paged:16,paged:64,paged:256
  # GPU machine
  FA_MLIR_KERNEL_DIR=$PWD/build/kvcache-kernels PYTHONPATH=python_bindings \\
    python3 bench/bench_kvcache.py --repeats 3 --json OUT.json

`--variant NAME=DIR[@CHIP]` (repeatable, bench/kernel_variants.py) times
our calls with another kernel directory's kernels too, in the same rounds
(e.g. `wgmma=build/kv-wgmma@sm_90a`, kernels compiled with `--chip sm_90a
--variant-options atom=wgmma`). Each variant's output must match the
default kernels' to 1e-2 (its largest difference is kept); each call
picks its split count by the runtime's rule for its own kernels.
"""
import argparse
import itertools
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import fa_mlir
from fa_mlir.ops import decode_splits
from kernel_variants import parse_variants, with_cache
from timing import interleaved_times

def sdpa(backend, q, k, v):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def calls_for(b, hq, hkv, nk, page_sizes, variants=(), d=128):
    dt = torch.bfloat16
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=dt)
    k = torch.randn(b, nk, hkv, d, device="cuda", dtype=dt)
    v = torch.randn(b, nk, hkv, d, device="cuda", dtype=dt)
    lens = torch.full((b,), nk, dtype=torch.int32, device="cuda")
    calls = {"ours_dense": lambda: fa_mlir.attention_with_kvcache(q, k, v, lens, causal=True)}
    for ps in page_sizes:
        pages = nk // ps
        order = torch.randperm(b * pages, device="cuda")
        table = order.view(b, pages).to(torch.int32)
        kp = torch.empty(b * pages, ps, hkv, d, device="cuda", dtype=dt)
        vp = torch.empty_like(kp)
        kp[order] = k.view(b * pages, ps, hkv, d)
        vp[order] = v.view(b * pages, ps, hkv, d)
        calls["ours_paged%d" % ps] = (lambda kp=kp, vp=vp, table=table:
                                      fa_mlir.attention_with_kvcache(q, kp, vp, lens, table,
                                                                     causal=True))
    for name, cache, chip in variants:
        for impl in [n for n in calls if n.startswith("ours_")]:
            calls[impl + ":" + name] = with_cache(cache, calls[impl], chip)
    qh, kh, vh = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    calls["sdpa_flash"] = lambda: sdpa(SDPBackend.FLASH_ATTENTION, qh, kh, vh)
    calls["sdpa_cudnn"] = lambda: sdpa(SDPBackend.CUDNN_ATTENTION, qh, kh, vh)
    return calls, (q, kh, vh)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 64])
    p.add_argument("--heads", nargs="+", default=["32x8", "32x32"])
    p.add_argument("--keys", type=int, nargs="+", default=[1024, 8192, 32768, 131072])
    p.add_argument("--page-sizes", type=int, nargs="+", default=[16, 64, 256])
    p.add_argument("--max-gib", type=float, default=40.0, help="skip shapes whose K+V exceed it")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=DIR[@CHIP]",
                   help="also time our calls with the kernels of directory DIR (looked up "
                        "as CHIP's kernels) as ours_*:NAME (kernel_variants.py)")
    a = p.parse_args()
    variants = parse_variants(p, a.variant)
    rows = []
    for heads, b, nk in itertools.product(a.heads, a.batches, a.keys):
        hq, hkv = map(int, heads.split("x"))
        kv_bytes = 2 * b * nk * hkv * 128 * 2
        if kv_bytes > a.max_gib * 2**30 or b * nk * hkv * 128 >= 2**31:
            continue  # Too big, or past the kernels' 32-bit indices.
        calls, _ = calls_for(b, hq, hkv, nk, a.page_sizes, variants)
        diffs = {}
        for n in [n for n in calls if ":" in n]:
            diffs[n] = (calls[n]() - calls[n.split(":")[0]]()).abs().max().item()
            if not diffs[n] <= 1e-2:
                raise RuntimeError("%s differs from %s by %g (B=%d, %d:%d, Nk=%d)" % (
                    n, n.split(":")[0], diffs[n], b, hq, hkv, nk))
        times = interleaved_times(calls, a.repeats)
        row = {"B": b, "Hq": hq, "Hkv": hkv, "Nk": nk,
               "splits": decode_splits(torch.device("cuda"), b, hq, hkv, nk),
               "kv_bytes": kv_bytes, "ms": {}, "gbps": {}, "spread": {},
               "variant_max_diff": diffs}
        for n, t in times.items():
            ms = statistics.median(t)
            row["ms"][n] = ms
            row["gbps"][n] = kv_bytes / (ms * 1e-3) / 1e9
            row["spread"][n] = (max(t) - min(t)) / ms
        rows.append(row)
        print("B=%-3d %2d:%-2d Nk=%-6d S=%-2d " % (b, hq, hkv, nk, row["splits"]) +
              "  ".join("%s %6.0f" % (n, g) for n, g in row["gbps"].items()), flush=True)
        del calls
        torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
