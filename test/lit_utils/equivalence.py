#!/usr/bin/env python3
"""Runs one fa.attention configuration two ways on the CPU and compares them.

The reference is the naive lowering (--fa-decompose-naive, the oracle); the
candidate is the tiled loop nest (--fa-tile-q-outer, optionally followed by
--fa-causal-block-skip and, with --warps, by the GPU stages on L3:
--fa-map-warps, --fa-schedule-softmax, optionally --fa-pipeline-mma,
--fa-pipeline-kv (and, with
--split-kv and --combine-rows, --fa-tile-combine), i.e. the IR that
--fa-lower-to-gpu consumes). Both go through --fa-lower-to-cpu and mlir-runner on
the same random inputs; O and LSE are compared element by element with
|tiled - naive| <= atol + rtol * |naive| (NaN never passes, +-inf must match).

Usage (from lit): equivalence.py --Nq 100 --Nk 100 --D 64 --causal \
    --block-m 32 --block-n 16 --skip --dtype f16 --atol 2e-3 --rtol 1e-2 \
    --runner-libs %mlir_runner_libs
Prints one line, `PASS ...` or `FAIL ...`, and exits non-zero on failure.
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_memrefs  # noqa: E402


def round_to(dtype, x):
    """x rounded to the nearest value of `dtype` (so truncf is exact)."""
    if dtype == "f16":
        return struct.unpack("e", struct.pack("e", x))[0]
    if dtype == "bf16":
        bits = struct.unpack("I", struct.pack("f", x))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # nearest even
        return struct.unpack("f", struct.pack("I", bits))[0]
    return struct.unpack("f", struct.pack("f", x))[0]


def dense(values, shape):
    """Nested dense literal for `values` (row-major) of `shape`."""
    def rec(offset, dims):
        if len(dims) == 1:
            return "[" + ", ".join(repr(v) for v in values[offset:offset + dims[0]]) + "]"
        step = 1
        for d in dims[1:]:
            step *= d
        return "[" + ", ".join(rec(offset + i * step, dims[1:]) for i in range(dims[0])) + "]"
    return rec(0, shape)


def tensor_type(shape, elem, dynamic=False):
    dims = ["?" if dynamic and i in (0, 2) else str(d) for i, d in enumerate(shape)]
    return "tensor<%sx%s>" % ("x".join(dims), elem)


def build_module(a, rng):
    dv = a.Dv or a.D
    shapes = {"q": [a.B, a.Hq, a.Nq, a.D], "k": [a.B, a.Hkv, a.Nk, a.D],
              "v": [a.B, a.Hkv, a.Nk, dv]}
    o_shape, lse_shape = [a.B, a.Hq, a.Nq, dv], [a.B, a.Hq, a.Nq]
    et, dyn = a.dtype, a.dynamic
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "",
             "func.func @main() {"]
    for name, shape in shapes.items():
        count = 1
        for d in shape:
            count *= d
        vals = [round_to(et, rng.uniform(-a.range, a.range)) for _ in range(count)]
        f32_ty = tensor_type(shape, "f32")
        lines.append("  %%%s_f32 = arith.constant dense<%s> : %s" % (name, dense(vals, shape), f32_ty))
        src = "%%%s_f32" % name
        if et != "f32":
            lines.append("  %%%s_e = arith.truncf %s : %s to %s" % (name, src, f32_ty, tensor_type(shape, et)))
            src = "%%%s_e" % name
        lines.append("  %%%s = tensor.cast %s : %s to %s" % (
            name, src, tensor_type(shape, et), tensor_type(shape, et, dyn)))
    o_ty, lse_ty = tensor_type(o_shape, et, dyn), tensor_type(lse_shape, "f32", dyn)
    if dyn:
        qty = tensor_type(shapes["q"], et, dyn)
        lines += ["  %c0 = arith.constant 0 : index", "  %c2 = arith.constant 2 : index",
                  "  %%b = tensor.dim %%q, %%c0 : %s" % qty,
                  "  %%nq = tensor.dim %%q, %%c2 : %s" % qty,
                  "  %%o_init = tensor.empty(%%b, %%nq) : %s" % o_ty,
                  "  %%lse_init = tensor.empty(%%b, %%nq) : %s" % lse_ty]
    else:
        lines += ["  %%o_init = tensor.empty() : %s" % o_ty,
                  "  %%lse_init = tensor.empty() : %s" % lse_ty]
    attrs = attention_attrs(a)
    in_tys = [tensor_type(shapes[n], et, dyn) for n in ("q", "k", "v")]
    op = "%%o, %%lse = fa.attention ins(%%q, %%k, %%v : %s, %s, %s) outs(%%o_init, %%lse_init : %s, %s)%s -> %s, %s" % (
        tuple(in_tys) + (o_ty, lse_ty, attrs, o_ty, lse_ty))
    if a.num_splits is None:
        lines.append("  " + op)
    else:
        # A run-time split count (--fa-split-kv splits=0) is an argument of
        # the function that holds the op: main passes it.
        arg_tys = in_tys + [o_ty, lse_ty]
        callee = ["func.func @attention(%%q: %s, %%k: %s, %%v: %s, %%o_init: %s, %%lse_init: %s, "
                  "%%num_splits: index {fa.num_splits}) -> (%s, %s) {" % (
                      tuple(arg_tys) + (o_ty, lse_ty)),
                  "  " + op, "  return %%o, %%lse : %s, %s" % (o_ty, lse_ty), "}", ""]
        lines[2:2] = callee
        lines.append("  %%num_splits = arith.constant %d : index" % a.num_splits)
        lines.append("  %%o, %%lse = call @attention(%%q, %%k, %%v, %%o_init, %%lse_init, "
                     "%%num_splits) : (%s, %s, %s, %s, %s, index) -> (%s, %s)" % (
                         tuple(arg_tys) + (o_ty, lse_ty)))
    o_val = "%o"
    if et != "f32":
        lines.append("  %%o_f32 = arith.extf %%o : %s to %s" % (o_ty, tensor_type(o_shape, "f32", dyn)))
        o_val = "%o_f32"
    for val, ty in ((o_val, tensor_type(o_shape, "f32", dyn)), ("%lse", lse_ty)):
        mty = ty.replace("tensor", "memref")
        lines.append("  %s_buf = bufferization.to_buffer %s : %s to %s" % (val, val, ty, mty))
        lines.append("  %s_any = memref.cast %s_buf : %s to memref<*xf32>" % (val, val, mty))
        lines.append("  call @printMemrefF32(%s_any) : (memref<*xf32>) -> ()" % val)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def append_constant(lines, name, vals, shape, et):
    """%name: a constant tensor of `shape` holding `vals` (row-major) in
    element type `et` (an empty tensor when there is no value)."""
    f32_ty = tensor_type(shape, "f32")
    if vals:
        lines.append("  %%%s_f32 = arith.constant dense<%s> : %s" % (name, dense(vals, shape), f32_ty))
    else:  # A sequence without keys.
        lines.append("  %%%s_f32 = tensor.empty() : %s" % (name, f32_ty))
    if et == "f32":
        lines.append("  %%%s = tensor.cast %%%s_f32 : %s to %s" % (name, name, f32_ty, f32_ty))
    else:
        lines.append("  %%%s = arith.truncf %%%s_f32 : %s to %s" % (name, name, f32_ty, tensor_type(shape, et)))


def append_print(lines, val, ty):
    """Prints the f32 tensor `val` of type `ty` with printMemrefF32."""
    mty = ty.replace("tensor", "memref")
    lines.append("  %s_buf = bufferization.to_buffer %s : %s to %s" % (val, val, ty, mty))
    lines.append("  %s_any = memref.cast %s_buf : %s to memref<*xf32>" % (val, val, mty))
    lines.append("  call @printMemrefF32(%s_any) : (memref<*xf32>) -> ()" % val)


def attention_attrs(a):
    """The op's attribute text for the arguments."""
    attrs = (" scale(%r)" % a.scale if a.scale else "") + (" causal" if a.causal else "")
    if a.window:
        attrs += " window(%d, %d)" % tuple(a.window)
    if a.softcap:
        attrs += " softcap(%r)" % a.softcap
    return attrs


def cache_layout(a, rng):
    """The K/V cache of a --key-lengths run: per-sequence key counts, and
    with --page-size a shuffled block table over a pool with spare pages.
    Table entries past a sequence's pages hold a page number far outside
    the pool: reading one would fault or give garbage."""
    lengths = a.key_lengths
    if len(lengths) != a.B:
        raise SystemExit("--key-lengths needs B (%d) values" % a.B)
    if not a.page_size:
        return lengths, None, None
    ps = a.page_size
    max_pages = max(1, max((max(n, 0) + ps - 1) // ps for n in lengths))
    max_pages = max(max_pages, a.Nk and (a.Nk + ps - 1) // ps)
    needed = sum(max(0, (min(max(n, 0), max_pages * ps) + ps - 1) // ps) for n in lengths)
    num_pages = needed + 3
    pages = list(range(num_pages))
    rng.shuffle(pages)
    table = []
    for n in lengths:
        used = (min(max(n, 0), max_pages * ps) + ps - 1) // ps
        row = [pages.pop() for _ in range(used)]
        table.append(row + [1 << 20] * (max_pages - used))
    return lengths, table, num_pages


def build_cache_modules(a, rng):
    """(candidate, reference) modules of a K/V cache run. The candidate is
    one fa.attention with key_lengths (and block_table); the reference is
    one dense fa.attention per sequence on its own keys (gathered here, in
    Python), printing every O, then every LSE, in the candidate's order."""
    dv = a.Dv or a.D
    et = a.dtype
    lengths, table, num_pages = cache_layout(a, rng)
    ps = a.page_size
    capacity = len(table[0]) * ps if table else a.Nk
    counts = [min(max(n, 0), capacity) for n in lengths]

    def values(shape):
        count = 1
        for d in shape:
            count *= d
        return [round_to(et, rng.uniform(-a.range, a.range)) for _ in range(count)]

    def constant(lines, name, vals, shape):
        append_constant(lines, name, vals, shape, et)

    q_shape = [a.B, a.Hq, a.Nq, a.D]
    q = values(q_shape)
    if table:
        kv_shapes = ([num_pages, ps, a.Hkv, a.D], [num_pages, ps, a.Hkv, dv])
    else:
        kv_shapes = ([a.B, a.Hkv, a.Nk, a.D], [a.B, a.Hkv, a.Nk, dv])
    k, v = values(kv_shapes[0]), values(kv_shapes[1])

    def key_row(vals, shape, b, g, j):
        """Row (b, g, j) of K or V as the op defines it."""
        cols = shape[3]
        if table:
            page, r = table[b][j // ps], j % ps
            base = ((page * ps + r) * a.Hkv + g) * cols
        else:
            base = ((b * a.Hkv + g) * a.Nk + j) * cols
        return vals[base:base + cols]

    attrs = attention_attrs(a)

    def printing(lines, vals_and_types):
        for val, ty in vals_and_types:
            append_print(lines, val, ty)

    def widened(lines, val, shape):
        if et == "f32":
            return val
        lines.append("  %s_f32 = arith.extf %s : %s to %s" % (
            val, val, tensor_type(shape, et), tensor_type(shape, "f32")))
        return val + "_f32"

    head = ["func.func private @printMemrefF32(memref<*xf32>)", "", "func.func @main() {"]
    # The candidate.
    lines = list(head)
    constant(lines, "q", q, q_shape)
    constant(lines, "k", k, kv_shapes[0])
    constant(lines, "v", v, kv_shapes[1])
    lines.append("  %%lens = arith.constant dense<%s> : tensor<%dxi32>" % (lengths, a.B))
    cache = " key_lengths(%%lens : tensor<%dxi32>)" % a.B
    if table:
        lines.append("  %%table = arith.constant dense<%s> : tensor<%dx%dxi32>" % (
            table, a.B, len(table[0])))
        cache += " block_table(%%table : tensor<%dx%dxi32>)" % (a.B, len(table[0]))
    o_shape, lse_shape = [a.B, a.Hq, a.Nq, dv], [a.B, a.Hq, a.Nq]
    o_ty, lse_ty = tensor_type(o_shape, et), tensor_type(lse_shape, "f32")
    lines += ["  %%o_init = tensor.empty() : %s" % o_ty, "  %%lse_init = tensor.empty() : %s" % lse_ty]
    lines.append("  %%o, %%lse = fa.attention ins(%%q, %%k, %%v : %s, %s, %s)%s outs(%%o_init, %%lse_init : %s, %s)%s -> %s, %s" % (
        tensor_type(q_shape, et), tensor_type(kv_shapes[0], et), tensor_type(kv_shapes[1], et),
        cache, o_ty, lse_ty, attrs, o_ty, lse_ty))
    printing(lines, [(widened(lines, "%o", o_shape), tensor_type(o_shape, "f32")), ("%lse", lse_ty)])
    candidate = "\n".join(lines + ["  return", "}"]) + "\n"

    # The reference: sequence b alone, on its n_b keys.
    lines = list(head)
    outs = []
    for b in range(a.B):
        n = counts[b]
        qb_shape = [1, a.Hq, a.Nq, a.D]
        per = a.Hq * a.Nq * a.D
        constant(lines, "q%d" % b, q[b * per:(b + 1) * per], qb_shape)
        for name, vals, shape in (("k", k, kv_shapes[0]), ("v", v, kv_shapes[1])):
            rows = [x for g in range(a.Hkv) for j in range(n) for x in key_row(vals, shape, b, g, j)]
            constant(lines, "%s%d" % (name, b), rows, [1, a.Hkv, n, shape[3]])
        ob_shape, lb_shape = [1, a.Hq, a.Nq, dv], [1, a.Hq, a.Nq]
        ob_ty, lb_ty = tensor_type(ob_shape, et), tensor_type(lb_shape, "f32")
        lines += ["  %%o_init%d = tensor.empty() : %s" % (b, ob_ty),
                  "  %%lse_init%d = tensor.empty() : %s" % (b, lb_ty)]
        lines.append("  %%o%d, %%lse%d = fa.attention ins(%%q%d, %%k%d, %%v%d : %s, %s, %s) outs(%%o_init%d, %%lse_init%d : %s, %s)%s -> %s, %s" % (
            b, b, b, b, b, tensor_type(qb_shape, et), tensor_type([1, a.Hkv, n, a.D], et),
            tensor_type([1, a.Hkv, n, dv], et), b, b, ob_ty, lb_ty, attrs, ob_ty, lb_ty))
        outs.append((widened(lines, "%%o%d" % b, ob_shape), tensor_type(ob_shape, "f32"),
                     "%%lse%d" % b, lb_ty))
    printing(lines, [(o, t) for o, t, _, _ in outs] + [(l, t) for _, _, l, t in outs])
    reference = "\n".join(lines + ["  return", "}"]) + "\n"
    return candidate, reference


def build_varlen_modules(a, rng):
    """(candidate, reference) modules of a --seqlens-q/--seqlens-k run: one
    fa.attention with cu_seqlens over sequences packed along N (B = 1; K
    and V have --extra-keys unused rows at the end), and one dense
    fa.attention per sequence on its own rows and keys, both printing each
    non-empty sequence's O, then each one's LSE."""
    dv = a.Dv or a.D
    et = a.dtype
    nqs, nks = a.seqlens_q, a.seqlens_k
    if len(nqs) != len(nks):
        raise SystemExit("--seqlens-q and --seqlens-k need one length per sequence")
    cu_q = [sum(nqs[:i]) for i in range(len(nqs) + 1)]
    cu_k = [sum(nks[:i]) for i in range(len(nks) + 1)]
    total_q, total_k = cu_q[-1], cu_k[-1] + a.extra_keys

    def values(count):
        return [round_to(et, rng.uniform(-a.range, a.range)) for _ in range(count)]

    def constant(lines, name, vals, shape):
        append_constant(lines, name, vals, shape, et)

    # Packed [1, H, total, D] (row-major: head, then row).
    q = values(a.Hq * total_q * a.D)
    k = values(a.Hkv * total_k * a.D)
    v = values(a.Hkv * total_k * dv)

    def rows(vals, heads, total, cols, start, n):
        return [x for h in range(heads)
                for x in vals[(h * total + start) * cols:(h * total + start + n) * cols]]

    attrs = attention_attrs(a)

    head = ["func.func private @printMemrefF32(memref<*xf32>)", "", "func.func @main() {"]
    seqs = [s for s in range(len(nqs)) if nqs[s] > 0]
    # The candidate.
    lines = list(head)
    qs, ks, vs = [1, a.Hq, total_q, a.D], [1, a.Hkv, total_k, a.D], [1, a.Hkv, total_k, dv]
    constant(lines, "q", q, qs)
    constant(lines, "k", k, ks)
    constant(lines, "v", v, vs)
    n = len(cu_q)
    lines.append("  %%cuq = arith.constant dense<%s> : tensor<%dxi32>" % (cu_q, n))
    lines.append("  %%cuk = arith.constant dense<%s> : tensor<%dxi32>" % (cu_k, n))
    bound = ""
    if a.max_seqlen_q is not None:
        lines.append("  %%maxq = arith.constant %d : index" % a.max_seqlen_q)
        bound = " max_seqlen_q(%maxq)"
    os_, ls_ = [1, a.Hq, total_q, dv], [1, a.Hq, total_q]
    o_ty, l_ty = tensor_type(os_, et), tensor_type(ls_, "f32")
    lines += ["  %%o_init = tensor.empty() : %s" % o_ty, "  %%lse_init = tensor.empty() : %s" % l_ty]
    lines.append("  %%o, %%lse = fa.attention ins(%%q, %%k, %%v : %s, %s, %s) cu_seqlens(%%cuq, %%cuk : tensor<%dxi32>, tensor<%dxi32>)%s outs(%%o_init, %%lse_init : %s, %s)%s -> %s, %s" % (
        tensor_type(qs, et), tensor_type(ks, et), tensor_type(vs, et), n, n, bound, o_ty, l_ty, attrs,
        o_ty, l_ty))
    o_val = "%o"
    if et != "f32":
        lines.append("  %%o_f32 = arith.extf %%o : %s to %s" % (o_ty, tensor_type(os_, "f32")))
        o_val = "%o_f32"
    for s in seqs:
        ty = tensor_type([1, a.Hq, nqs[s], dv], "f32")
        lines.append("  %%os%d = tensor.extract_slice %s[0, 0, %d, 0] [1, %d, %d, %d] [1, 1, 1, 1] : %s to %s" % (
            s, o_val, cu_q[s], a.Hq, nqs[s], dv, tensor_type(os_, "f32"), ty))
        append_print(lines, "%%os%d" % s, ty)
    for s in seqs:
        ty = tensor_type([1, a.Hq, nqs[s]], "f32")
        lines.append("  %%ls%d = tensor.extract_slice %%lse[0, 0, %d] [1, %d, %d] [1, 1, 1] : %s to %s" % (
            s, cu_q[s], a.Hq, nqs[s], l_ty, ty))
        append_print(lines, "%%ls%d" % s, ty)
    candidate = "\n".join(lines + ["  return", "}"]) + "\n"

    # The reference: each sequence alone.
    lines = list(head)
    outs = []
    for s in seqs:
        sq, sk = [1, a.Hq, nqs[s], a.D], [1, a.Hkv, nks[s], a.D]
        sv = [1, a.Hkv, nks[s], dv]
        constant(lines, "q%d" % s, rows(q, a.Hq, total_q, a.D, cu_q[s], nqs[s]), sq)
        constant(lines, "k%d" % s, rows(k, a.Hkv, total_k, a.D, cu_k[s], nks[s]), sk)
        constant(lines, "v%d" % s, rows(v, a.Hkv, total_k, dv, cu_k[s], nks[s]), sv)
        so, sl = [1, a.Hq, nqs[s], dv], [1, a.Hq, nqs[s]]
        ot, lt = tensor_type(so, et), tensor_type(sl, "f32")
        lines += ["  %%o_init%d = tensor.empty() : %s" % (s, ot),
                  "  %%lse_init%d = tensor.empty() : %s" % (s, lt)]
        lines.append("  %%o%d, %%lse%d = fa.attention ins(%%q%d, %%k%d, %%v%d : %s, %s, %s) outs(%%o_init%d, %%lse_init%d : %s, %s)%s -> %s, %s" % (
            s, s, s, s, s, tensor_type(sq, et), tensor_type(sk, et), tensor_type(sv, et),
            s, s, ot, lt, attrs, ot, lt))
        val = "%%o%d" % s
        if et != "f32":
            lines.append("  %s_f32 = arith.extf %s : %s to %s" % (val, val, ot, tensor_type(so, "f32")))
            val += "_f32"
        outs.append((val, tensor_type(so, "f32"), "%%lse%d" % s, lt))
    for val, ty, _, _ in outs:
        append_print(lines, val, ty)
    for _, _, val, ty in outs:
        append_print(lines, val, ty)
    reference = "\n".join(lines + ["  return", "}"]) + "\n"
    return candidate, reference


def run_module(module, pass_lists, runner_libs):
    """The numbers `module` prints, run once after each list of passes (a
    temporary file holds the module)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(module)
        path = f.name
    try:
        return [compare_memrefs.numbers_in_memref_dump(run(passes, path, runner_libs))
                for passes in pass_lists]
    finally:
        os.unlink(path)


def report(actual, expected, atol, rtol):
    """Prints PASS/FAIL with the comparison's summary; the exit status."""
    ok, summary = compare_memrefs.compare(actual, expected, atol, rtol)
    print(("PASS: " if ok else "FAIL: ") + summary)
    return 0 if ok else 1


def run(passes, module_path, runner_libs):
    def checked(cmd, **kw):
        done = subprocess.run(cmd, capture_output=True, text=True, **kw)
        if done.returncode:
            # The tool's own diagnostics, which the caller's traceback lacks.
            sys.stderr.write(done.stderr)
            done.check_returncode()
        return done.stdout
    lowered = checked(["fa-opt", module_path] + passes + ["--fa-lower-to-cpu"])
    return checked(["mlir-runner", "-e", "main", "-entry-point-result=void",
                    "-shared-libs=" + runner_libs], input=lowered)


def add_attention_arguments(p, n, d):
    """The op's sizes (N and D default to `n` and `d`) and attributes, as
    this script and backward_check.py take them."""
    for name, default in (("B", 1), ("Hq", 1), ("Hkv", 1), ("Nq", n), ("Nk", n), ("D", d)):
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--Dv", type=int, default=0, help="value head dim (default: D)")
    p.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--scale", type=float, default=0.0, help="default: 1/sqrt(D)")
    p.add_argument("--window", type=int, nargs=2, metavar=("LEFT", "RIGHT"),
                   help="sliding window (-1: unbounded side)")
    p.add_argument("--softcap", type=float, default=0.0, help="logit soft cap")
    p.add_argument("--dynamic", action="store_true", help="B and N dynamic in the IR")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_attention_arguments(p, 16, 16)
    p.add_argument("--block-m", type=int, required=True)
    p.add_argument("--block-n", type=int, required=True)
    p.add_argument("--skip", action="store_true", help="also run --fa-causal-block-skip")
    p.add_argument("--pack-gqa", action="store_true",
                   help="--fa-tile-q-outer pack-gqa=true (single-query GQA ops)")
    p.add_argument("--split-kv", type=int, default=1,
                   help="--fa-split-kv splits (after the block skipping; 0: the count is "
                        "the run-time --num-splits)")
    p.add_argument("--num-splits", type=int,
                   help="with --split-kv 0: the split count main passes to the function "
                        "that holds the op (its argument marked fa.num_splits)")
    p.add_argument("--combine-rows", type=int, default=-1,
                   help="with --split-kv: also tile the merge (--fa-tile-combine "
                        "block-m, 0 = its default), as --fa-to-ptx does")
    p.add_argument("--merge-groups", type=int, default=0,
                   help="with --combine-rows: --fa-tile-combine split-warps (groups of "
                        "warps per merge tile; 0 = its default)")
    p.add_argument("--warps", type=int, default=0,
                   help="also run the L3 passes with this many warps (f16/bf16 only)")
    p.add_argument("--stages", type=int, default=2, help="--fa-pipeline-kv stages (with --warps)")
    p.add_argument("--kv-release", choices=("barrier", "mbarrier"), default="barrier",
                   help="--fa-pipeline-kv release (with --warps; mbarrier: fa.release on TMA rings)")
    p.add_argument("--rescale", default="auto", help="--fa-schedule-softmax rescale (with --warps)")
    p.add_argument("--query-home", default="auto", help="--fa-map-warps query-home (with --warps)")
    p.add_argument("--key-groups", type=int, default=1,
                   help="--fa-map-warps key-groups (with --warps): groups of warps dividing "
                        "each K/V block's keys")
    p.add_argument("--warp-skip", action="store_true",
                   help="also run --fa-warp-block-skip (with --warps)")
    p.add_argument("--pipeline-mma", action="store_true",
                   help="also run --fa-pipeline-mma all-atoms=true before "
                        "--fa-pipeline-kv (with --warps): P V deferred by a block")
    p.add_argument("--pingpong", action="store_true",
                   help="also run --fa-pingpong after --fa-pipeline-kv (with --warps): "
                        "the warpgroups' matmuls in turns (fa.mma_turn, a no-op on the CPU)")
    p.add_argument("--atom", default="mma_sync",
                   help="--fa-map-warps atom (with --warps): mma_sync or wgmma")
    p.add_argument("--key-lengths", type=int, nargs="+",
                   help="a K/V cache: key_lengths (one per batch; -1 or more than "
                        "the capacity are clamped); the reference is then one dense "
                        "op per sequence on its own keys")
    p.add_argument("--page-size", type=int, default=0,
                   help="with --key-lengths: a paged cache of this page size "
                        "(a shuffled block table; at least Nk keys of capacity)")
    p.add_argument("--seqlens-q", type=int, nargs="+",
                   help="packed sequences (cu_seqlens): each sequence's query count; "
                        "the reference is one dense op per sequence")
    p.add_argument("--seqlens-k", type=int, nargs="+", help="with --seqlens-q: key counts")
    p.add_argument("--max-seqlen-q", type=int,
                   help="with --seqlens-q: fa.attention's max_seqlen_q (the Q blocks "
                        "numbered per sequence where that is fewer)")
    p.add_argument("--extra-keys", type=int, default=0,
                   help="with --seqlens-q: unused key rows after the last sequence's")
    p.add_argument("--range", type=float, default=2.0, help="inputs uniform in [-range, range]")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--atol", type=float, required=True)
    p.add_argument("--rtol", type=float, required=True)
    p.add_argument("--runner-libs", required=True)
    a = p.parse_args()

    tiled = ["--fa-tile-q-outer=block-m=%d block-n=%d%s" % (
        a.block_m, a.block_n, " pack-gqa=true" if a.pack_gqa else "")]
    if a.skip:
        tiled.append("--fa-causal-block-skip")
    if (a.split_kv == 0) != (a.num_splits is not None):
        p.error("--num-splits goes with --split-kv 0 (a run-time split count)")
    if a.num_splits is not None and (a.key_lengths or a.seqlens_q):
        p.error("--num-splits: dense ops only")
    if a.split_kv != 1:
        tiled.append("--fa-split-kv=splits=%d" % a.split_kv)
        if a.combine_rows >= 0:
            tiled.append("--fa-tile-combine=block-m=%d split-warps=%d"
                         % (a.combine_rows, a.merge_groups))
    if a.warps:
        tiled += ["--fa-map-warps=num-warps=%d query-home=%s atom=%s key-groups=%d"
                  % (a.warps, a.query_home, a.atom, a.key_groups),
                  "--fa-schedule-softmax=rescale=%s" % a.rescale]
        if a.pipeline_mma:
            tiled.append("--fa-pipeline-mma=all-atoms=true")
        tiled.append("--fa-pipeline-kv=stages=%d release=%s" % (a.stages, a.kv_release))
        if a.pingpong:
            tiled.append("--fa-pingpong")
        if a.warp_skip:
            tiled.append("--fa-warp-block-skip")
    if a.seqlens_q:
        candidate, per_sequence = build_varlen_modules(a, random.Random(a.seed))
        naive, actual = run_module(candidate, [[], tiled], a.runner_libs)
        (reference,) = run_module(per_sequence, [[]], a.runner_libs)
        status = report(naive, reference, a.atol, a.rtol)
        return report(actual, reference, a.atol, a.rtol) or status
    if a.key_lengths:
        # Three ways: the tiled op and the naive op against one dense op
        # per sequence (both decompositions of the cache checked).
        candidate, dense_ops = build_cache_modules(a, random.Random(a.seed))
        naive, actual = run_module(candidate, [[], tiled], a.runner_libs)
        (reference,) = run_module(dense_ops, [[]], a.runner_libs)
        status = report(naive, reference, a.atol, a.rtol)
        return report(actual, reference, a.atol, a.rtol) or status
    module = build_module(a, random.Random(a.seed))
    reference, actual = run_module(module, [[], tiled], a.runner_libs)
    return report(actual, reference, a.atol, a.rtol)


if __name__ == "__main__":
    sys.exit(main())
