#!/usr/bin/env python3
"""Runs one fa.attention_backward configuration on the CPU and checks it.

Builds a module with random Q, K, V, dO (uniform in [-range, range], rounded
to the element type), with O and LSE from the double-precision forward of
backward_reference.py (rounded to the element type and to f32, as a forward
kernel would hand them over), lowers it with --fa-lower-to-cpu (after
--fa-tile-kv-outer, or with --gpu-form --fa-tile-backward, with --tile M N)
and runs it with mlir-runner. dQ, dK and
dV are compared element by element, |actual - expected| <= atol + rtol *
|expected|, against

  * --against reference (default): the exact gradient of the attention at
    the (rounded) inputs, from backward_reference.py (independent of the
    compiler's formulas), or
  * --against naive: the same module lowered without --tile (the naive
    decomposition, --fa-decompose-naive), for the tiled lowering.

Usage (from lit): backward_check.py --Hq 4 --Hkv 2 --Nq 7 --Nk 9 --causal \
    --dtype f16 --atol 1e-2 --rtol 1e-2 --runner-libs %mlir_runner_libs
Prints one line, `PASS ...` or `FAIL ...`, and exits non-zero on failure.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backward_reference  # noqa: E402
from equivalence import (add_attention_arguments, dense, report, round_to,  # noqa: E402
                         run_module, tensor_type)


def nest(flat, shape):
    """Row-major flat list -> nested lists of `shape`."""
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def build(a, rng):
    """Returns (module text, expected flat dQ + dK + dV)."""
    dv = a.Dv or a.D
    shapes = {"q": [a.B, a.Hq, a.Nq, a.D], "k": [a.B, a.Hkv, a.Nk, a.D],
              "v": [a.B, a.Hkv, a.Nk, dv], "do": [a.B, a.Hq, a.Nq, dv]}
    flat = {n: [round_to(a.dtype, rng.uniform(-a.range, a.range)) for _ in range(count(s))]
            for n, s in shapes.items()}
    ref = backward_reference.forward_and_backward(
        *(nest(flat[n], shapes[n]) for n in ("q", "k", "v", "do")),
        scale=a.scale or None, causal=a.causal,
        window=tuple(a.window) if a.window else None, softcap=a.softcap or None)
    o, lse, dq, dk, dvv = (backward_reference.flatten(x) for x in ref)
    flat["o"] = [round_to(a.dtype, x) for x in o]
    flat["lse"] = [x if x == float("-inf") else round_to("f32", x) for x in lse]
    shapes["o"] = shapes["do"]
    shapes["lse"] = [a.B, a.Hq, a.Nq]

    et, dyn = a.dtype, a.dynamic
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "", "func.func @main() {"]
    for name in ("q", "k", "v", "o", "do", "lse"):
        shape = shapes[name]
        elem = "f32" if name == "lse" else et
        f32_ty = tensor_type(shape, "f32")
        values = ["0xFF800000" if x == float("-inf") else repr(x) for x in flat[name]]
        lines.append("  %%%s_f32 = arith.constant dense<%s> : %s" % (
            name, dense(values, shape).replace("'", ""), f32_ty))
        src = "%%%s_f32" % name
        if elem != "f32":
            lines.append("  %%%s_e = arith.truncf %s : %s to %s" % (name, src, f32_ty, tensor_type(shape, elem)))
            src = "%%%s_e" % name
        lines.append("  %%%s = tensor.cast %s : %s to %s" % (
            name, src, tensor_type(shape, elem), tensor_type(shape, elem, dyn)))
    ty = {n: tensor_type(shapes[n], "f32" if n == "lse" else et, dyn) for n in shapes}
    if dyn:
        lines += ["  %c0 = arith.constant 0 : index", "  %c2 = arith.constant 2 : index",
                  "  %%b = tensor.dim %%q, %%c0 : %s" % ty["q"],
                  "  %%nq = tensor.dim %%q, %%c2 : %s" % ty["q"],
                  "  %%nk = tensor.dim %%k, %%c2 : %s" % ty["k"]]
        dims = {"q": "(%b, %nq)", "k": "(%b, %nk)", "v": "(%b, %nk)"}
    else:
        dims = {"q": "()", "k": "()", "v": "()"}
    for n in ("q", "k", "v"):
        lines.append("  %%d%s_init = tensor.empty%s : %s" % (n, dims[n], ty[n]))
    attrs = (" scale(%r)" % a.scale if a.scale else "") + (" causal" if a.causal else "")
    if a.window:
        attrs += " window(%d, %d)" % tuple(a.window)
    if a.softcap:
        attrs += " softcap(%r)" % a.softcap
    lines.append(
        "  %%dq, %%dk, %%dv = fa.attention_backward ins(%%q, %%k, %%v, %%o, %%do, %%lse : %s)"
        " outs(%%dq_init, %%dk_init, %%dv_init : %s, %s, %s)%s -> %s, %s, %s" % (
            ", ".join(ty[n] for n in ("q", "k", "v", "o", "do", "lse")),
            ty["q"], ty["k"], ty["v"], attrs, ty["q"], ty["k"], ty["v"]))
    for n in ("q", "k", "v"):
        val, t = "%d" + n, ty[n]
        if et != "f32":
            t32 = tensor_type(shapes[n], "f32", dyn)
            lines.append("  %s_f32 = arith.extf %s : %s to %s" % (val, val, t, t32))
            val, t = val + "_f32", t32
        mty = t.replace("tensor", "memref")
        lines.append("  %s_buf = bufferization.to_buffer %s : %s to %s" % (val, val, t, mty))
        lines.append("  %s_any = memref.cast %s_buf : %s to memref<*xf32>" % (val, val, mty))
        lines.append("  call @printMemrefF32(%s_any) : (memref<*xf32>) -> ()" % val)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n", dq + dk + dvv


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_attention_arguments(p, 8, 8)
    p.add_argument("--tile", type=int, nargs=2, metavar=("BLOCK_M", "BLOCK_N"),
                   help="run --fa-tile-kv-outer (or --fa-tile-backward) with these blocks first")
    p.add_argument("--gpu-form", action="store_true",
                   help="tile with --fa-tile-backward (the three loop nests the GPU runs)")
    p.add_argument("--dq", choices=["auto", "atomic", "deterministic"],
                   help="--fa-tile-backward's dq option (how dQ is accumulated)")
    p.add_argument("--dkdv-block-m", type=int,
                   help="--fa-tile-backward's dkdv-block-m (query rows of the dK/dV nest's tiles)")
    p.add_argument("--rotate-query-blocks", choices=["auto", "on", "off"],
                   help="--fa-tile-backward's rotate-query-blocks (the atomic dQ's Q-block order)")
    p.add_argument("--map-warps", action="store_true",
                   help="then --fa-map-warps (stage L3; the CPU erases the layouts)")
    p.add_argument("--against", choices=["reference", "naive"], default="reference")
    p.add_argument("--range", type=float, default=1.0, help="inputs uniform in [-range, range]")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--atol", type=float, required=True)
    p.add_argument("--rtol", type=float, required=True)
    p.add_argument("--runner-libs", required=True)
    a = p.parse_args()

    module, expected = build(a, random.Random(a.seed))
    tiler = "--fa-tile-backward" if a.gpu_form else "--fa-tile-kv-outer"
    passes = ["%s=block-m=%d block-n=%d" % ((tiler,) + tuple(a.tile))] if a.tile else []
    if a.dq:
        if not (a.gpu_form and a.tile):
            p.error("--dq needs --gpu-form and --tile")
        passes[0] += " dq=" + a.dq
    if a.dkdv_block_m:
        if not (a.gpu_form and a.tile):
            p.error("--dkdv-block-m needs --gpu-form and --tile")
        passes[0] += " dkdv-block-m=%d" % a.dkdv_block_m
    if a.rotate_query_blocks:
        if not (a.gpu_form and a.tile):
            p.error("--rotate-query-blocks needs --gpu-form and --tile")
        passes[0] += " rotate-query-blocks=" + a.rotate_query_blocks
    if a.map_warps:
        passes.append("--fa-map-warps")
    runs = run_module(module, [passes] + ([[]] if a.against == "naive" else []),
                      a.runner_libs)
    actual = runs[0]
    if a.against == "naive":
        expected = runs[1]
    return report(actual, expected, a.atol, a.rtol)


if __name__ == "__main__":
    sys.exit(main())
