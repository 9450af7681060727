#!/usr/bin/env python3
"""Compiles fa.attention kernels to PTX + launch plans with fa-opt --fa-to-ptx.

Each kernel is named after its configuration, e.g.
  fa_d128_f16_causal_h8x2          (head dim 128, f16, causal, 8 query heads
                                     over 2 key/value heads)
  fa_d64_bf16_full_h32x32_m128n64w4s2   (explicit block-m/block-n/warps/stages)
and reads B, Nq and Nk at run time (the head counts are part of the op).
The default set is what bench.py and check_gpu.py run.

  compile_kernels.py --fa-opt build/bin/fa-opt --out build/kernels
  compile_kernels.py --head-dims 64 --dtypes f16 --heads 32x32 --tiles 128x64x4x3
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time


# Head counts bench.py (the FlashAttention-2 paper shapes) and check_gpu.py
# use, per head dim.
DEFAULT_HEADS = {64: ["32x32", "4x4", "8x2", "8x1"], 128: ["16x16", "4x4", "8x2", "8x1"]}


def kernel_name(d, dtype, causal, hq, hkv, tiles=None):
    name = "fa_d%d_%s_%s_h%dx%d" % (d, dtype, "causal" if causal else "full", hq, hkv)
    if tiles:
        name += "_m%dn%dw%ds%d" % tiles
    return name


def attention_source(name, d, dtype, causal, hq, hkv):
    q = "tensor<?x%dx?x%dx%s>" % (hq, d, dtype)
    kv = "tensor<?x%dx?x%dx%s>" % (hkv, d, dtype)
    lse = "tensor<?x%dx?xf32>" % hq
    return """func.func @{name}(%q: {q}, %k: {kv}, %v: {kv}, %o: {q}, %l: {lse}) -> ({q}, {lse}) {{
  %0, %1 = fa.attention ins(%q, %k, %v : {q}, {kv}, {kv}) outs(%o, %l : {q}, {lse}){causal} -> {q}, {lse}
  return %0, %1 : {q}, {lse}
}}
""".format(name=name, q=q, kv=kv, lse=lse, causal=" causal" if causal else "")


def compile_one(fa_opt, out_dir, d, dtype, causal, hq, hkv, tiles=None):
    name = kernel_name(d, dtype, causal, hq, hkv, tiles)
    options = "output-dir=%s" % out_dir
    if tiles:
        options += " block-m=%d block-n=%d num-warps=%d kv-stages=%d" % tiles
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(attention_source(name, d, dtype, causal, hq, hkv))
        path = f.name
    try:
        start = time.time()
        subprocess.run([fa_opt, path, "--fa-to-ptx=" + options, "-o", os.devnull], check=True)
        seconds = time.time() - start
    finally:
        os.unlink(path)
    # The kernel is named after the function: <name>_kernel.
    return name + "_kernel", seconds


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fa-opt", default="build/bin/fa-opt")
    p.add_argument("--out", default="build/kernels")
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p.add_argument("--causal", choices=["yes", "no", "both"], default="both")
    p.add_argument("--heads", nargs="+", default=None,
                   help="HqxHkv head counts (default: those of bench.py and check_gpu.py)")
    p.add_argument("--tiles", nargs="*", default=[],
                   help="explicit MxNxWxS configs: block-m, block-n, num-warps, kv-stages "
                        "(default: the pipeline's choice)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    causal = {"yes": [True], "no": [False], "both": [False, True]}[a.causal]
    tiles = [tuple(int(x) for x in t.split("x")) for t in a.tiles] or [None]
    for d, dtype, c, t in itertools.product(a.head_dims, a.dtypes, causal, tiles):
        for heads in a.heads or DEFAULT_HEADS.get(d, ["4x4"]):
            hq, hkv = (int(x) for x in heads.split("x"))
            name, seconds = compile_one(a.fa_opt, a.out, d, dtype, c, hq, hkv, t)
            print("%-44s %.2f s" % (name, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
