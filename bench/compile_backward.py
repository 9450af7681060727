#!/usr/bin/env python3
"""Compiles the backward kernels that check_backward.py runs on the GPU.

One kernel set (the D, dK/dV and dQ kernels of one launch plan) per
configuration of CONFIGS: head dim, dtype, query and key/value heads,
causal, window, soft cap; batch and sequence lengths stay dynamic.

  compile_backward.py --fa-opt build/bin/fa-opt --out build/bwk
Writes OUT/<name>/bwd_kernel.json and its PTX, and OUT/configs.json.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys

# (d, dtype, hq, hkv, causal, window, softcap)
CONFIGS = (
    [(d, dt, hq, hkv, causal, None, None)
     for d, dt, (hq, hkv), causal in itertools.product(
         (64, 128), ("f16", "bf16"), ((4, 4), (8, 2), (8, 1)), (False, True))]
    + [(64, "bf16", 4, 4, True, (256, 0), None), (128, "f16", 8, 2, False, (128, 64), None),
       (64, "f16", 4, 4, True, None, 30.0), (128, "bf16", 8, 2, False, None, 20.0)])


def name_of(c):
    d, dt, hq, hkv, causal, window, softcap = c
    n = "d%d_%s_%dx%d%s" % (d, dt, hq, hkv, "_causal" if causal else "")
    if window:
        n += "_w%d_%d" % window
    if softcap:
        n += "_cap%g" % softcap
    return n


def module(c):
    d, dt, hq, hkv, causal, window, softcap = c
    qt = "tensor<?x%dx?x%dx%s>" % (hq, d, dt)
    kt = "tensor<?x%dx?x%dx%s>" % (hkv, d, dt)
    lt = "tensor<?x%dx?xf32>" % hq
    attrs = ""
    if causal:
        attrs += " causal"
    if window:
        attrs += " window(%d, %d)" % window
    if softcap:
        attrs += " softcap(%s)" % repr(float(softcap))
    return f"""func.func @bwd(%q: {qt}, %k: {kt}, %v: {kt}, %o: {qt}, %do: {qt}, %lse: {lt},
                %dq0: {qt}, %dk0: {kt}, %dv0: {kt}) -> ({qt}, {kt}, {kt}) {{
  %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : {qt}, {kt}, {kt}, {qt}, {qt}, {lt})
      outs(%dq0, %dk0, %dv0 : {qt}, {kt}, {kt}){attrs} -> {qt}, {kt}, {kt}
  return %dq, %dk, %dv : {qt}, {kt}, {kt}
}}
"""


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fa-opt", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--pipeline-options", default="", help="extra --fa-to-ptx options")
    p.add_argument("--tile-options", default="",
                   help="--fa-tile-backward options (run before --fa-to-ptx), e.g. "
                        "'dkdv-block-m=32'")
    p.add_argument("--only", default="", help="only the configurations whose name has this")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    index = []
    for c in CONFIGS:
        name = name_of(c)
        if a.only not in name:
            continue
        out = os.path.join(a.out, name)
        os.makedirs(out, exist_ok=True)
        src = os.path.join(out, "bwd.mlir")
        with open(src, "w") as f:
            f.write(module(c))
        opts = ("output-dir=%s %s" % (out, a.pipeline_options)).strip()
        tile = ["--fa-tile-backward=" + a.tile_options] if a.tile_options else []
        subprocess.run([a.fa_opt, src] + tile + ["--fa-to-ptx=" + opts, "-o", os.devnull],
                       check=True)
        d, dt, hq, hkv, causal, window, softcap = c
        index.append(dict(name=name, d=d, dtype=dt, hq=hq, hkv=hkv, causal=causal,
                          window=window, softcap=softcap))
        print(name, file=sys.stderr)
    with open(os.path.join(a.out, "configs.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
