#!/usr/bin/env python3
"""Compiles fa.attention kernels to PTX + launch plans with fa-opt --fa-to-ptx.

Each kernel is named after its configuration (configs.kernel_name), e.g.
  fa_d128_f16_causal_h8x2_kernel            head dim 128, f16, causal, 8 query
                                            heads over 2 key/value heads
  fa_d64_bf16_full_h32x32_w256x0_kernel     sliding window (256 left, 0 right)
  fa_d64_bf16_full_h32x32_cap50_kernel      logit soft-capping at 50
  fa_d64_f16_full_h32x32_m128n64w4s2_kernel explicit block-m/block-n/warps/stages
  fa_d128_bf16_causal_h32x4_q1_kv8_kernel   one static query, split-KV in 8 chunks
and reads B, Nq and Nk at run time (head counts are part of the op). Without
arguments it compiles every configuration check_gpu.py and bench.py use.

  compile_kernels.py --fa-opt build/bin/fa-opt --out build/kernels
  compile_kernels.py --head-dims 64 --dtypes f16 --heads 32x32 --tiles 128x64x4x3
  compile_kernels.py --head-dims 128 --dtypes bf16 --causal yes --heads 16x16 \
      --window 1024 0 --options "warp-block-skip=false" --out build/noskip
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time

import configs


def attention_source(name, c):
    d, dtype = c["d"], c["dtype"]
    nq = "?" if c.get("static_nq") is None else str(c["static_nq"])
    q = "tensor<?x%dx%sx%dx%s>" % (c["hq"], nq, d, dtype)
    kv = "tensor<?x%dx?x%dx%s>" % (c["hkv"], d, dtype)
    lse = "tensor<?x%dx%sxf32>" % (c["hq"], nq)
    attrs = ""
    if c.get("scale") is not None:
        attrs += " scale(%r)" % float(c["scale"])
    if c["causal"]:
        attrs += " causal"
    if c.get("window"):
        attrs += " window(%d, %d)" % tuple(c["window"])
    if c.get("softcap"):
        attrs += " softcap(%r)" % float(c["softcap"])
    if not c.get("lse", True):
        return """func.func @{name}(%q: {q}, %k: {kv}, %v: {kv}, %o: {q}) -> {q} {{
  %0 = fa.attention ins(%q, %k, %v : {q}, {kv}, {kv}) outs(%o : {q}){attrs} -> {q}
  return %0 : {q}
}}
""".format(name=name, q=q, kv=kv, attrs=attrs)
    return """func.func @{name}(%q: {q}, %k: {kv}, %v: {kv}, %o: {q}, %l: {lse}) -> ({q}, {lse}) {{
  %0, %1 = fa.attention ins(%q, %k, %v : {q}, {kv}, {kv}) outs(%o, %l : {q}, {lse}){attrs} -> {q}, {lse}
  return %0, %1 : {q}, {lse}
}}
""".format(name=name, q=q, kv=kv, lse=lse, attrs=attrs)


def compile_one(fa_opt, out_dir, c):
    name = configs.kernel_name(c)[:-len("_kernel")]
    options = "output-dir=%s" % out_dir
    if c.get("tiles"):
        options += " block-m=%d block-n=%d num-warps=%d kv-stages=%d" % tuple(c["tiles"])
    if c.get("splits", 1) != 1:
        options += " splits=%d" % c["splits"]
    if c.get("options"):  # More --fa-to-ptx options (variants of one kernel, one per directory).
        options += " " + c["options"]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(attention_source(name, c))
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
    p.add_argument("--head-dims", type=int, nargs="+")
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p.add_argument("--causal", choices=["yes", "no", "both"], default="both")
    p.add_argument("--heads", nargs="+", default=["4x4"], help="HqxHkv head counts")
    p.add_argument("--tiles", nargs="*", default=[],
                   help="explicit MxNxWxS configs: block-m, block-n, num-warps, kv-stages")
    p.add_argument("--window", type=int, nargs=2, metavar=("LEFT", "RIGHT"),
                   help="with --head-dims: a sliding window (-1 = unbounded)")
    p.add_argument("--softcap", type=float, help="with --head-dims: logit soft-capping")
    p.add_argument("--q-len", type=int,
                   help="with --head-dims: a static Nq (e.g. 1, a decode step)")
    p.add_argument("--options", default="",
                   help="more --fa-to-ptx options for every kernel (variants of one kernel "
                        "in their own directory), e.g. 'warp-block-skip=false'")
    p.add_argument("--decode", action="store_true",
                   help="the kernels bench_decode.py runs: GQA 32:4, d = 128, bf16, causal, "
                        "with one static query and with a dynamic Nq")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.decode:
        todo = [dict(configs.config(128, "bf16", True, 32, 4), static_nq=1),
                configs.config(128, "bf16", True, 32, 4)]
    elif a.head_dims is None:
        todo = configs.all_configs()  # What check_gpu.py and bench.py run.
    else:
        causal = {"yes": [True], "no": [False], "both": [False, True]}[a.causal]
        tiles = [tuple(int(x) for x in t.split("x")) for t in a.tiles] or [None]
        todo = []
        for d, dtype, c, heads, t in itertools.product(a.head_dims, a.dtypes, causal, a.heads, tiles):
            hq, hkv = (int(x) for x in heads.split("x"))
            todo.append(configs.config(d, dtype, c, hq, hkv, tiles=t,
                                       window=tuple(a.window) if a.window else None,
                                       softcap=a.softcap))
    if a.q_len is not None and a.head_dims is not None:
        for c in todo:
            c["static_nq"] = a.q_len
    if a.options:
        for c in todo:
            c["options"] = (c.get("options", "") + " " + a.options).strip()
    total = time.time()
    for c in todo:
        name, seconds = compile_one(a.fa_opt, a.out, c)
        print("%-56s %.2f s" % (name, seconds), flush=True)
    print("%d kernels in %.0f s" % (len(todo), time.time() - total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
