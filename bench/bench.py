#!/usr/bin/env python3
"""Forward attention speed on the GPU: our compiled kernels side by side with
PyTorch SDPA (FLASH = the FlashAttention-2 CUDA kernels, CUDNN, EFFICIENT) and
a plain Triton FlashAttention-2 kernel (triton_fa2.py), in one run.

Shapes follow the FlashAttention-2 paper: batch * seqlen = 16384, hidden
2048 (32 heads of 64, or 16 heads of 128), seqlen 512 .. 16k, causal or not,
fp16 and bf16. FLOPs = 4 * B * H * N^2 * D, halved when causal. Each
implementation's output is checked against SDPA-FLASH before it is timed
(max |diff| <= 2e-2 for fp16, 6e-2 for bf16), so a fast wrong kernel cannot
win. Timing: triton.testing.do_bench, median, warm-up excluded.

  bench.py --kernels build/kernels --json out.json            (the table)
  bench.py --kernels build/kernels --sweep --json sweep.json  (tile configs)
"""
import argparse
import glob
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

import triton_fa2
# The runtime lives in python_bindings/fa_mlir (pure Python, torch and
# cuda-python only); the GPU machine uses it from the source tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.runtime import Plan  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {"f16": 2e-2, "bf16": 6e-2}
SDPA_BACKENDS = {"sdpa_flash": SDPBackend.FLASH_ATTENTION,
                 "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION,
                 "sdpa_efficient": SDPBackend.EFFICIENT_ATTENTION}


def sdpa(backend, q, k, v, causal):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def flops(b, h, n, d, causal):
    return 4 * b * h * n * n * d / (2 if causal else 1)


def time_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def shape_list(seqlens, head_dims=(64, 128)):
    for d in head_dims:
        for n in seqlens:
            yield d, 16384 // n, 2048 // d, n


def bench_shape(impls, d, b, h, n, dtype, causal, ref_backend="sdpa_flash"):
    torch.manual_seed(0)
    dt = DTYPES[dtype]
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dt) for _ in range(3))
    ref = sdpa(SDPA_BACKENDS[ref_backend], q, k, v, causal)
    row = dict(d=d, batch=b, heads=h, seqlen=n, dtype=dtype, causal=causal)
    for name, fn in impls.items():
        try:
            out = fn(q, k, v, causal)
            torch.cuda.synchronize()
            err = (out.float() - ref.float()).abs().max().item()
            if not err <= TOLERANCE[dtype]:
                row[name] = dict(error="wrong result: max |diff| %.3g" % err)
                continue
            ms = time_ms(lambda: fn(q, k, v, causal))
            row[name] = dict(ms=ms, tflops=flops(b, h, n, d, causal) / ms / 1e9, max_diff=err)
        except Exception as e:  # A backend that does not support the shape.
            row[name] = dict(error=str(e).splitlines()[0][:120])
    return row


def our_impl(kernels_dir, d, dtype, causal, heads, suffix=""):
    name = "fa_d%d_%s_%s_h%dx%d%s_kernel" % (d, dtype, "causal" if causal else "full",
                                               heads, heads, suffix)
    plan = Plan(kernels_dir, name)

    def run(q, k, v, causal_flag):
        return plan.attention(q, k, v)[0]
    return run


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default="build/kernels")
    p.add_argument("--json")
    p.add_argument("--sweep", action="store_true",
                   help="compare every compiled tile config of ours (and Triton's) at a few shapes")
    p.add_argument("--seqlens", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    a = p.parse_args()
    start = time.time()
    rows = []
    if a.sweep:
        for d, b, h, n in shape_list(a.seqlens, a.head_dims):
            for causal in (False, True):
                impls = {}
                prefix = "fa_d%d_f16_%s_h%dx%d" % (d, "causal" if causal else "full", h, h)
                for path in sorted(glob.glob(os.path.join(a.kernels, prefix + "_m*.json"))):
                    name = os.path.basename(path)[:-len(".json")]
                    suffix = name[len(prefix):-len("_kernel")]
                    impls["ours" + suffix] = our_impl(a.kernels, d, "f16", causal, h, suffix)
                # The Triton kernel's tiles, where it has them (power-of-two d).
                for cfg in ((128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 4)):
                    if d not in (64, 128):
                        break
                    impls["triton_m%dn%dw%ds%d" % cfg] = (
                        lambda q, k, v, c, cfg=cfg: triton_fa2.attention(q, k, v, c, cfg)[0])
                impls["sdpa_flash"] = lambda q, k, v, c: sdpa(SDPBackend.FLASH_ATTENTION, q, k, v, c)
                row = bench_shape(impls, d, b, h, n, "f16", causal)
                rows.append(row)
                best = sorted(((v["tflops"], k) for k, v in row.items()
                               if isinstance(v, dict) and "tflops" in v), reverse=True)
                print("d=%d N=%5d causal=%d: %s" % (d, n, causal,
                      "  ".join("%s %.0f" % (k, t) for t, k in best)), flush=True)
    else:
        for d, b, h, n in shape_list(a.seqlens, a.head_dims):
            for dtype in a.dtypes:
                for causal in (False, True):
                    impls = {"ours": our_impl(a.kernels, d, dtype, causal, h),
                             "triton_fa2": lambda q, k, v, c: triton_fa2.attention(q, k, v, c)[0]}
                    for name, backend in SDPA_BACKENDS.items():
                        impls[name] = lambda q, k, v, c, backend=backend: sdpa(backend, q, k, v, c)
                    row = bench_shape(impls, d, b, h, n, dtype, causal)
                    rows.append(row)
                    flash = row["sdpa_flash"].get("tflops")
                    cells = []
                    for name in ("ours", "sdpa_flash", "sdpa_cudnn", "sdpa_efficient", "triton_fa2"):
                        r = row[name]
                        cells.append("%6.1f" % r["tflops"] if "tflops" in r else "   err")
                    ratio = row["ours"].get("tflops", 0) / flash if flash else float("nan")
                    print("d=%3d B=%2d H=%2d N=%5d %-4s causal=%d | %s | ours/flash %.2f" % (
                        d, b, h, n, dtype, causal, " ".join(cells), ratio), flush=True)
    print("columns: ours sdpa_flash sdpa_cudnn sdpa_efficient triton_fa2 (TFLOP/s); %.0f s" % (
        time.time() - start))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(rows=rows, device=torch.cuda.get_device_name(),
                           torch=torch.__version__, triton=triton.__version__,
                           date=time.strftime("%Y-%m-%d")), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
