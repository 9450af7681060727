#!/usr/bin/env python3
"""Randomized check of --fa-raise-attention on unfused attention programs.

A seeded generator writes attention the way frontends do, drawing each
ingredient independently:

  * layout: [B*H, N, D] with linalg.batch_matmul (K^T by linalg.transpose or
    by transposed indexing maps), or [B, H, N, D] / [B, N, H, D] (Flax's
    einsum layout) with linalg.generic contractions; O in the same layout;
    GQA in [B, H, N, D]: K and V broadcast from H / 2 heads (torch's
    repeat_kv, or tiled by torch's `repeat`), or JAX's einsums with a group loop K and V do not have
    (Q, O [B, N, Hkv, G, D]; the scores [B, Hkv, G, ..] or [B, G, Hkv, ..]);
    K and V must stay at H / 2 heads in fa.attention;
  * scale: a multiply or a divide, on the scores, on Q or on K;
  * soft cap c * tanh(x / c) (Gemma 2), before the mask;
  * mask (when Nq == Nk): causal, a sliding window, a window on both sides
    the upper triangle or a right edge past the diagonal (j <= i + r),
    written as a select on index comparisons (the visible edges and-ed, or
    the masked ones or-ed), as an additive constant tensor of 0 / -inf, or
    as a select on an i1 constant tensor (either constant possibly a slice
    of a larger one, as GPT-2 slices its `bias` buffer);
  * softmax: linalg.softmax, or max / exp(x - max) / sum / divide (or times
    the reciprocal of the sum) in separate or fused generics, the
    exponential exp(x - max), exp((x - max) * 2) or exp2((x - max) * log2(e));
  * optionally --linalg-generalize-named-ops before the raise.

Every program must raise to one fa.attention whose attributes (scale,
causal, window, softcap) are the ones the generator meant, and must compute
the same O on the CPU as written (--fa-lower-to-cpu, linalg.softmax
decomposed first) and raised (--fa-linalg-to-cpu): in f32 within
2e-5 + 2e-5 |x|; f16 programs (f16 Q, K, V, O; scores, softmax and sums in
f32, the einsum layouts only) within 2e-3 + 2e-3 |x|, and fa.attention must
take f16.

  random_raise.py --seed 1 --count 40 --runner-libs LIBS [--keep DIR]

With --mutate it checks soundness instead: each program gets one or two
semantic mutations (a comparison predicate, an index or float constant, a
reduction's combiner, operand order of subf/divf/select, exp/exp2/tanh, a
mask element, a fill value, ...). A mutant that does not verify is
skipped; one the raise leaves alone passes; one it raises must compute the
same O as written (NaN and infinities exactly).

Prints one line per program and exits non-zero if any fails; a failing
program is written to --keep (or printed) with its seed and index.
"""
import argparse
import math
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_memrefs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DECOMPOSE = os.path.join(HERE, "..", "Integration", "Raise", "Inputs", "decompose-softmax.mlir")
NINF = "0xFF800000"


def fmt(x):
    return NINF if x == float("-inf") else "%.9e" % x


def dense(values, shape, elem="f32"):
    """A dense literal of `values` (flat) with `shape`."""
    def nest(vals, dims):
        if not dims:
            return fmt(vals[0])
        step = len(vals) // dims[0]
        return "[" + ", ".join(nest(vals[k * step:(k + 1) * step], dims[1:]) for k in range(dims[0])) + "]"
    return "dense<%s> : tensor<%sx%s>" % (nest(values, shape), "x".join(map(str, shape)), elem)


class Program:
    def __init__(self, rng):
        self.rng = rng
        self.nonzero_inputs = False
        r = rng
        self.layout = r.choice(["bmm", "bhnd", "bnhd"])
        self.b, self.h = r.choice([1, 2]), r.choice([1, 3])
        # GQA (the [B, H, N, D] layout): K and V have H / group heads,
        # broadcast to H by torch's repeat_kv (expand, then reshape).
        self.group = r.choice([1, 2]) if self.layout == "bhnd" else 1
        self.h *= self.group
        self.masked = r.random() < 0.6
        self.nq = r.choice([1, 2, 5, 8])
        self.nk = self.nq if self.masked else r.choice([1, 3, 8])
        self.d, self.dv = r.choice([4, 8]), r.choice([4, 8])
        self.scale = r.choice([0.125, 0.5, 0.35355339, 2.0])
        self.scale_as_div = r.random() < 0.4
        self.scale_on_q = r.random() < 0.25
        self.cap = r.choice([None, None, 0.75, 3.0])
        self.softmax = r.choice(["named", "decomposed", "reciprocal", "fused"])
        self.generalize = r.random() < 0.3
        if self.masked:
            n = self.nq
            self.band = r.choice([
                (None, 0),                        # causal
                (r.randrange(0, max(1, n)), 0),   # sliding window (causal)
                (r.randrange(0, 3), r.randrange(0, 3)),  # both sides
                (0, None),                        # upper triangle
                (None, r.randrange(1, 3)),        # j <= i + r: past the diagonal
            ])
            self.mask_form = r.choice(["and", "or", "additive"])
        else:
            self.band = (None, None)
        # Mixed precision (the einsum layouts): f16 Q, K, V and O, scores,
        # softmax and the P V sum in f32 (extf in the contraction bodies),
        # O rounded at the end.
        self.elem = "f16" if self.layout != "bmm" and not self.scale_on_q and r.random() < 0.35 else "f32"
        # JAX's GQA einsums instead of repeat_kv: Q and O [B, N, Hkv, G, D],
        # K and V [B, N, Hkv, D], scores [B, Hkv, G, Nq, Nk].
        if self.layout == "bhnd" and self.group > 1 and r.random() < 0.5:
            self.layout = "jax"
        # ... with the scores' group loop inside (b, k, g) or outside (b, g, k).
        self.group_outer = self.layout == "jax" and r.random() < 0.5
        # The scale on K rather than on Q; a mask as an i1 constant tensor.
        self.scale_on_k = self.scale_on_q and r.random() < 0.5
        if self.masked and self.mask_form == "additive" and r.random() < 0.5:
            self.mask_form = "bool"
        # The exponential: exp(x - max); exp((x - max) * 2), a factor of the
        # scale inside it; or exp2((x - max) * log2(e)), FlashAttention's form.
        self.exp_form = "exp" if self.softmax == "named" else r.choice(["exp", "exp", "scaled", "exp2"])
        self.exp_factor = 2.0 if self.exp_form == "scaled" else 1.0
        # A constant mask as a slice of a larger one (GPT-2's `bias` buffer
        # sliced to the scores): the band is the same at every offset.
        self.mask_offset = r.choice([0, 0, 1, 3])
        # GQA by torch's `repeat` (query head h reads K/V head h mod Hkv).
        self.tiled_heads = self.group > 1 and self.layout == "bhnd" and r.random() < 0.4

    # -- what the raise must produce ------------------------------------
    def expected_attrs(self):
        left, right = self.band
        n = self.nq
        if left is not None and left >= n - 1:
            left = None
        if right is not None and right >= n - 1:
            right = None
        attrs = []
        if right == 0:
            attrs.append("causal")
        if left is not None or (right is not None and right > 0):
            attrs.append("window(%d, %d)" % (-1 if left is None else left, -1 if right is None else right))
        if self.cap is not None:
            attrs.append("softcap(%s)" % self.cap)
        return left, right, attrs

    # -- shapes --------------------------------------------------------
    def tensor_shape(self, n, d, kv=False):
        """Q, O (and, before repeat_kv, K and V: `kv`)."""
        if self.layout == "bmm":
            return [self.b * self.h, n, d]
        if self.layout == "bhnd":
            return [self.b, self.h, n, d]
        if self.layout == "jax":
            hkv = self.h // self.group
            return [self.b, n, hkv, d] if kv else [self.b, n, hkv, self.group, d]
        return [self.b, n, self.h, d]

    def score_shape(self):
        if self.layout == "bmm":
            return [self.b * self.h, self.nq, self.nk]
        if self.layout == "jax":
            heads = [self.h // self.group, self.group]
            return [self.b] + heads[::-1 if self.group_outer else 1] + [self.nq, self.nk]
        return [self.b, self.h, self.nq, self.nk]

    def ty(self, shape, elem="f32"):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)

    def tin(self, shape):
        """The type of Q, K, V or O."""
        return self.ty(shape, self.elem)

    # -- the program ---------------------------------------------------
    def text(self):
        lines = []
        emit = lines.append
        jax = self.layout == "jax"
        q_shape = self.tensor_shape(self.nq, self.d)
        k_shape = self.tensor_shape(self.nk, self.d, kv=jax)
        v_shape = self.tensor_shape(self.nk, self.dv, kv=jax)
        o_shape = self.tensor_shape(self.nq, self.dv)
        kin_shape, vin_shape = self.input_shapes()[1:]
        s_shape = self.score_shape()
        rank = len(s_shape)
        row_shape = s_shape[:-1]
        T = self.ty
        loops = {3: ["b", "i", "j"], 4: ["b", "h", "i", "j"], 5: ["b", "k", "g", "i", "j"]}[rank]
        kg = "g, k" if getattr(self, "group_outer", False) else "k, g"   # the scores' head loops
        idmap = "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(loops))
        rowmap = "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(loops[:-1]))
        par = ", ".join(['"parallel"'] * rank)
        Tin = self.tin
        repeat_kv = self.group > 1 and not jax
        k_scaled = getattr(self, "scale_on_k", False)
        k_final = "%k0" if k_scaled else "%k"   # the K the scale generic reads
        kname, vname = ("%kin", "%vin") if repeat_kv else (k_final, "%v")
        emit("func.func @attention(%%q: %s, %s: %s, %s: %s) -> %s {"
             % (Tin(q_shape), kname, Tin(kin_shape), vname, Tin(vin_shape), Tin(o_shape)))
        if repeat_kv:
            for src, dst, shape in (("%kin", k_final, k_shape), ("%vin", "%v", v_shape)):
                hkv, g = self.h // self.group, self.group
                # repeat_kv: each head repeated (group inner); torch's
                # repeat: the heads tiled (group outer).
                b5 = [self.b, g, hkv, shape[2], shape[3]] if self.tiled_heads else \
                    [self.b, hkv, g, shape[2], shape[3]]
                emit("  %se = tensor.empty() : %s" % (dst, Tin(b5)))
                emit("  %sb = linalg.broadcast ins(%s : %s) outs(%se : %s) dimensions = [%d]"
                     % (dst, src, Tin([self.b, hkv, shape[2], shape[3]]), dst, Tin(b5),
                        1 if self.tiled_heads else 2))
                emit("  %s = tensor.collapse_shape %sb [[0], [1, 2], [3], [4]] : %s into %s"
                     % (dst, dst, Tin(b5), Tin(shape)))
        emit("  %zero = arith.constant 0.0 : f32")
        emit("  %ninf = arith.constant " + NINF + " : f32")
        emit("  %one = arith.constant 1.0 : f32")
        emit("  %es = tensor.empty() : " + T(s_shape))
        emit("  %zs = linalg.fill ins(%zero : f32) outs(%es : " + T(s_shape) + ") -> " + T(s_shape))
        q = "%q"
        factor_outside = self.scale
        if self.scale_on_q:
            # Q (or K) scaled by a generic of its own.
            src, dst, shape = ("%k0", "%k", k_shape) if k_scaled else ("%q", "%qs", q_shape)
            srank = len(shape)
            smaps = ", ".join(["affine_map<(%s) -> (%s)>" % (", ".join("abcde"[:srank]), ", ".join("abcde"[:srank]))] * 2)
            op = "arith.divf" if self.scale_as_div else "arith.mulf"
            c = 1.0 / self.scale if self.scale_as_div else self.scale
            emit("  %es_in = tensor.empty() : " + T(shape))
            emit("  %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s : %s) outs(%%es_in : %s) {"
                 % (dst, smaps, ", ".join(['"parallel"'] * srank), src, T(shape), T(shape)))
            emit("  ^bb0(%in: f32, %out: f32):")
            emit("    %c = arith.constant " + fmt(c) + " : f32")
            emit("    %r = " + op + " %in, %c : f32")
            emit("    linalg.yield %r : f32")
            emit("  } -> " + T(shape))
            if not k_scaled:
                q = "%qs"
            factor_outside = None
        # S = Q K^T
        if self.layout == "bmm":
            if self.rng.random() < 0.5:
                kt_shape = [k_shape[0], self.d, self.nk]
                emit("  %ekt = tensor.empty() : " + T(kt_shape))
                emit("  %%kt = linalg.transpose ins(%%k : %s) outs(%%ekt : %s) permutation = [0, 2, 1]" % (T(k_shape), T(kt_shape)))
                emit("  %%s = linalg.batch_matmul ins(%s, %%kt : %s, %s) outs(%%zs : %s) -> %s"
                     % (q, T(q_shape), T(kt_shape), T(s_shape), T(s_shape)))
            else:
                emit("  %%s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, "
                     "affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] "
                     "ins(%s, %%k : %s, %s) outs(%%zs : %s) -> %s" % (q, T(q_shape), T(k_shape), T(s_shape), T(s_shape)))
        elif jax:
            emit_contraction(emit, "%s", "b, k, g, i, j, d",
                             ["(b, i, k, g, d)", "(b, j, k, d)", "(b, %s, i, j)" % kg],
                             [q, "%k", "%zs"], [Tin(q_shape), Tin(k_shape), T(s_shape)],
                             self.elem, self.elem)
        else:
            if self.layout == "bhnd":
                qm, km = "(b, h, i, d)", "(b, h, j, d)"
            else:
                qm, km = "(b, i, h, d)", "(b, j, h, d)"
            emit_contraction(emit, "%s", "b, h, i, j, d", [qm, km, "(b, h, i, j)"],
                             [q, "%k", "%zs"], [Tin(q_shape), Tin(k_shape), T(s_shape)],
                             self.elem, self.elem)
        # Scores: scale, cap, mask, in one generic (plus an additive constant).
        additive = self.masked and self.mask_form == "additive"
        boolean = self.masked and self.mask_form == "bool"
        ins = "%s" + (", %mask" if additive or boolean else "")
        if additive or boolean:
            left, right = self.band
            off = self.mask_offset
            rows_n, cols_n = self.nq + off, self.nk + off
            vals = []
            for i in range(rows_n):
                for j in range(cols_n):
                    vis = (left is None or i - j <= left) and (right is None or j - i <= right)
                    vals.append(vis if boolean else 0.0 if vis else float("-inf"))
            name = "%mask_all" if off else "%mask"
            if boolean:
                rows = [", ".join("true" if vals[i * cols_n + j] else "false" for j in range(cols_n))
                        for i in range(rows_n)]
                emit("  %s = arith.constant dense<[%s]> : tensor<%dx%dxi1>"
                     % (name, ", ".join("[%s]" % r for r in rows), rows_n, cols_n))
            else:
                emit("  %s = arith.constant %s" % (name, dense(vals, [rows_n, cols_n])))
            if off:
                emit("  %%mask = tensor.extract_slice %%mask_all[%d, %d] [%d, %d] [1, 1] : tensor<%dx%dx%s> to tensor<%dx%dx%s>"
                     % (off, off, self.nq, self.nk, rows_n, cols_n, "i1" if boolean else "f32",
                        self.nq, self.nk, "i1" if boolean else "f32"))
            maskmap = "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(loops[-2:]))
            maps = "%s, %s, %s" % (idmap, maskmap, idmap)
            types = "%s, tensor<%dx%dx%s>" % (T(s_shape), self.nq, self.nk, "i1" if boolean else "f32")
        else:
            maps = "%s, %s" % (idmap, idmap)
            types = T(s_shape)
        emit("  %%x = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s : %s) outs(%%es : %s) {"
             % (maps, par, ins, types, T(s_shape)))
        emit("  ^bb0(%in: f32, " + ("%mk: f32, " if additive else "%mk: i1, " if boolean else "")
             + "%out: f32):")
        v = "%in"
        if factor_outside is not None:
            op = "arith.divf" if self.scale_as_div else "arith.mulf"
            c = 1.0 / factor_outside if self.scale_as_div else factor_outside
            emit("    %sc = arith.constant " + fmt(c) + " : f32")
            emit("    %scaled = " + op + " %in, %sc : f32")
            v = "%scaled"
        if self.cap is not None:
            emit("    %cap = arith.constant " + fmt(self.cap) + " : f32")
            emit("    %t0 = arith.divf " + v + ", %cap : f32")
            emit("    %t1 = math.tanh %t0 : f32")
            emit("    %capped = arith.mulf %t1, %cap : f32")
            v = "%capped"
        if self.masked and not additive and not boolean:
            emit("    %%i = linalg.index %d : index" % (rank - 2))
            emit("    %%j = linalg.index %d : index" % (rank - 1))
            conds = self.edge_conditions(emit, visible=self.mask_form == "and")
            if len(conds) == 1:
                cond = conds[0]
            else:
                emit("    %%cond = arith.%s %s, %s : i1" % ("andi" if self.mask_form == "and" else "ori", conds[0], conds[1]))
                cond = "%cond"
            if self.mask_form == "and":
                emit("    %%masked = arith.select %s, %s, %%ninf : f32" % (cond, v))
            else:
                emit("    %%masked = arith.select %s, %%ninf, %s : f32" % (cond, v))
            v = "%masked"
        if additive:
            emit("    %%masked = arith.addf %s, %%mk : f32" % v)
            v = "%masked"
        if boolean:
            emit("    %%masked = arith.select %%mk, %s, %%ninf : f32" % v)
            v = "%masked"
        emit("    linalg.yield " + v + " : f32")
        emit("  } -> " + T(s_shape))
        self.emit_softmax(emit, T, s_shape, row_shape, idmap, rowmap, par, rank)
        # O = P V
        if self.layout == "bmm":
            emit("  %eo = tensor.empty() : " + T(o_shape))
            emit("  %zo = linalg.fill ins(%zero : f32) outs(%eo : " + T(o_shape) + ") -> " + T(o_shape))
            emit("  %%o = linalg.batch_matmul ins(%%p, %%v : %s, %s) outs(%%zo : %s) -> %s"
                 % (T(s_shape), T(v_shape), T(o_shape), T(o_shape)))
        elif jax:
            emit("  %eo = tensor.empty() : " + T(o_shape))
            emit("  %zo = linalg.fill ins(%zero : f32) outs(%eo : " + T(o_shape) + ") -> " + T(o_shape))
            emit_contraction(emit, "%o", "b, i, k, g, e, j",
                             ["(b, %s, i, j)" % kg, "(b, j, k, e)", "(b, i, k, g, e)"],
                             ["%p", "%v", "%zo"], [T(s_shape), Tin(v_shape), T(o_shape)],
                             "f32", self.elem)
        else:
            if self.layout == "bhnd":
                vm, om = "(b, h, j, e)", "(b, h, i, e)"
            else:
                vm, om = "(b, j, h, e)", "(b, i, h, e)"
            emit("  %eo = tensor.empty() : " + T(o_shape))
            emit("  %zo = linalg.fill ins(%zero : f32) outs(%eo : " + T(o_shape) + ") -> " + T(o_shape))
            emit_contraction(emit, "%o", "b, h, i, e, j", ["(b, h, i, j)", vm, om],
                             ["%p", "%v", "%zo"], [T(s_shape), Tin(v_shape), T(o_shape)],
                             "f32", self.elem)
        if self.elem != "f32":
            # O rounded to the inputs' type.
            dims = ", ".join("abcde"[:len(o_shape)])
            maps = ", ".join(["affine_map<(%s) -> (%s)>" % (dims, dims)] * 2)
            emit("  %eh = tensor.empty() : " + Tin(o_shape))
            emit("  %%oh = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%%o : %s) outs(%%eh : %s) {"
                 % (maps, ", ".join(['"parallel"'] * len(o_shape)), T(o_shape), Tin(o_shape)))
            emit("  ^bb0(%in: f32, %out: " + self.elem + "):")
            emit("    %r = arith.truncf %in : f32 to " + self.elem)
            emit("    linalg.yield %r : " + self.elem)
            emit("  } -> " + Tin(o_shape))
            emit("  return %oh : " + Tin(o_shape))
        else:
            emit("  return %o : " + T(o_shape))
        emit("}")
        return "\n".join(lines)

    def edge_conditions(self, emit, visible):
        """The i1 values of the band's edges: visible when true (`visible`)
        or masked when true. Each edge in one of several spellings."""
        left, right = self.band
        conds = []
        r = self.rng
        for name, bound, sign in (("r", right, +1), ("l", left, -1)):
            if bound is None:
                continue
            emit("    %%c%s = arith.constant %d : index" % (name, bound))
            # visible: sign * (j - i) <= bound
            a, b = ("%j", "%i") if sign > 0 else ("%i", "%j")   # a - b <= bound
            form = r.randrange(3)
            c = "%%e%s" % name
            if form == 0:   # a <= b + bound
                emit("    %%s%s = arith.addi %s, %%c%s : index" % (name, b, name))
                pred = "sle" if visible else "sgt"
                emit("    %s = arith.cmpi %s, %s, %%s%s : index" % (c, pred, a, name))
            elif form == 1:  # b + bound >= a
                emit("    %%s%s = arith.addi %s, %%c%s : index" % (name, b, name))
                pred = "sge" if visible else "slt"
                emit("    %s = arith.cmpi %s, %%s%s, %s : index" % (c, pred, name, a))
            else:           # a - b <= bound
                emit("    %%d%s = arith.subi %s, %s : index" % (name, a, b))
                pred = "sle" if visible else "sgt"
                emit("    %s = arith.cmpi %s, %%d%s, %%c%s : index" % (c, pred, name, name))
            conds.append(c)
        return conds

    def emit_softmax(self, emit, T, s_shape, row_shape, idmap, rowmap, par, rank):
        if self.softmax == "named":
            emit("  %%p = linalg.softmax dimension(%d) ins(%%x : %s) outs(%%es : %s) -> %s"
                 % (rank - 1, T(s_shape), T(s_shape), T(s_shape)))
            return
        red = ", ".join(['"parallel"'] * (rank - 1) + ['"reduction"'])
        emit("  %er = tensor.empty() : " + T(row_shape))

        def reduce_rows(result, source, init, combine):
            emit("  %%%s_init = linalg.fill ins(%s : f32) outs(%%er : %s) -> %s"
                 % (result, init, T(row_shape), T(row_shape)))
            emit("  %%%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} ins(%s : %s) outs(%%%s_init : %s) {"
                 % (result, idmap, rowmap, red, source, T(s_shape), result, T(row_shape)))
            emit("  ^bb0(%in: f32, %acc: f32):")
            emit("    %%r = %s %%in, %%acc : f32" % combine)
            emit("    linalg.yield %r : f32")
            emit("  } -> " + T(row_shape))

        reduce_rows("mx", "%x", "%ninf", "arith.maximumf")
        emit("  %%ex = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]} ins(%%x, %%mx : %s, %s) outs(%%es : %s) {"
             % (idmap, rowmap, idmap, par, T(s_shape), T(row_shape), T(s_shape)))
        emit("  ^bb0(%in: f32, %m: f32, %out: f32):")
        emit("    %d = arith.subf %in, %m : f32")
        if self.exp_form == "exp":
            emit("    %r = math.exp %d : f32")
        else:
            factor = "2.0" if self.exp_form == "scaled" else "1.44269504"
            emit("    %%cx = arith.constant %s : f32" % factor)
            emit("    %dx = arith.mulf %d, %cx : f32")
            emit("    %%r = %s %%dx : f32" % ("math.exp" if self.exp_form == "scaled" else "math.exp2"))
        emit("    linalg.yield %r : f32")
        emit("  } -> " + T(s_shape))
        reduce_rows("sm", "%ex", "%zero", "arith.addf")
        row = "%sm"
        if self.softmax == "reciprocal":
            rows = ", ".join(["affine_map<(%s) -> (%s)>" % (", ".join("abcd"[:rank - 1]), ", ".join("abcd"[:rank - 1]))] * 2)
            emit("  %%rc = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%%sm : %s) outs(%%er : %s) {"
                 % (rows, ", ".join(['"parallel"'] * (rank - 1)), T(row_shape), T(row_shape)))
            emit("  ^bb0(%in: f32, %out: f32):")
            emit("    %r = arith.divf %one, %in : f32")
            emit("    linalg.yield %r : f32")
            emit("  } -> " + T(row_shape))
            row = "%rc"
        emit("  %%p = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]} ins(%%ex, %s : %s, %s) outs(%%es : %s) {"
             % (idmap, rowmap, idmap, par, row, T(s_shape), T(row_shape), T(s_shape)))
        emit("  ^bb0(%e: f32, %l: f32, %out: f32):")
        if self.softmax == "reciprocal":
            emit("    %r = arith.mulf %l, %e : f32")
        elif self.softmax == "fused":
            emit("    %rl = arith.divf %one, %l : f32")
            emit("    %r = arith.mulf %e, %rl : f32")
        else:
            emit("    %r = arith.divf %e, %l : f32")
        emit("    linalg.yield %r : f32")
        emit("  } -> " + T(s_shape))

    def input_shapes(self):
        """Q, K, V as the function takes them (K and V with fewer heads under
        GQA)."""
        if self.layout == "jax":
            return [self.tensor_shape(self.nq, self.d), self.tensor_shape(self.nk, self.d, kv=True),
                    self.tensor_shape(self.nk, self.dv, kv=True)]
        shapes = [self.tensor_shape(self.nq, self.d), self.tensor_shape(self.nk, self.d),
                  self.tensor_shape(self.nk, self.dv)]
        for s in shapes[1:]:
            s[1] //= self.group
        return shapes

    def main_text(self):
        """@main: constant inputs, the call, O printed."""
        r = self.rng
        shapes = self.input_shapes()
        o_shape = self.tensor_shape(self.nq, self.dv)
        lines = ["func.func private @printMemrefF32(memref<*xf32>)", "func.func @main() {"]
        for name, shape in zip("qkv", shapes):
            count = 1
            for s in shape:
                count *= s
            vals = [r.randrange(-16, 17) / 8.0 for _ in range(count)]   # exact in f16
            if self.nonzero_inputs:
                vals = [v or 0.0625 for v in vals]
            lines.append("  %%%s = arith.constant %s" % (name, dense(vals, shape, self.elem)))
        T, Tin = self.ty, self.tin
        lines.append("  %%o = call @attention(%%q, %%k, %%v) : (%s, %s, %s) -> %s"
                     % (Tin(shapes[0]), Tin(shapes[1]), Tin(shapes[2]), Tin(o_shape)))
        if self.elem != "f32":
            lines[-1] = lines[-1].replace("%o = call", "%oh = call")
            lines.append("  %%o = arith.extf %%oh : %s to %s" % (Tin(o_shape), T(o_shape)))
        rank = len(o_shape)
        lines.append("  %%m = bufferization.to_buffer %%o : %s to memref<%sxf32>" % (T(o_shape), "x".join(map(str, o_shape))))
        lines.append("  %%u = memref.cast %%m : memref<%sxf32> to memref<*xf32>" % "x".join(map(str, o_shape)))
        lines.append("  call @printMemrefF32(%u) : (memref<*xf32>) -> ()")
        lines.append("  return")
        lines.append("}")
        del rank
        return "\n".join(lines)

    def describe(self):
        return ("%s layout=%s%s B=%d H=%d G=%d Nq=%d Nk=%d D=%d Dv=%d scale=%s%s%s cap=%s band=%s mask=%s softmax=%s%s"
                % (self.elem, self.layout + ("(repeat)" if self.tiled_heads else ""),
                   "(group outer)" if self.group_outer else "", self.b, self.h, self.group, self.nq, self.nk, self.d, self.dv, self.scale,
                   "(div)" if self.scale_as_div else "",
                   "(on K)" if self.scale_on_k else "(on Q)" if self.scale_on_q else "",
                   self.cap, self.band,
                   getattr(self, "mask_form", "-") + ("[%d:]" % self.mask_offset
                                                      if self.mask_offset and getattr(self, "mask_form", "") in ("additive", "bool") else ""),
                   self.softmax + ("" if self.exp_form == "exp" else "/" + self.exp_form),
                   " generalized" if self.generalize else ""))


def emit_contraction(emit, result, loops, maps, operands, types, a_type, b_type):
    """`result` = the sum over the last of `loops` of a * b: a linalg.generic
    with `maps` (the results of each operand's map) over `operands` (a, b,
    the zero-filled init) of `types`."""
    count = len(loops.split(", "))
    emit("  %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s, %s : %s, %s) outs(%s : %s) {"
         % (result, ", ".join("affine_map<(%s) -> %s>" % (loops, m) for m in maps),
            ", ".join(['"parallel"'] * (count - 1) + ['"reduction"']),
            operands[0], operands[1], types[0], types[1], operands[2], types[2]))
    emit_mul_add_body(emit, a_type, b_type)
    emit("  } -> " + types[2])


def emit_mul_add_body(emit, a_type="f32", b_type="f32"):
    """The body of a contraction: acc + a * b, narrower operands extended."""
    emit("  ^bb0(%%a: %s, %%b: %s, %%acc: f32):" % (a_type, b_type))
    a, b = "%a", "%b"
    if a_type != "f32":
        emit("    %%a32 = arith.extf %%a : %s to f32" % a_type)
        a = "%a32"
    if b_type != "f32":
        emit("    %%b32 = arith.extf %%b : %s to f32" % b_type)
        b = "%b32"
    emit("    %%m = arith.mulf %s, %s : f32" % (a, b))
    emit("    %r = arith.addf %acc, %m : f32")
    emit("    linalg.yield %r : f32")


def run(cmd, text):
    p = subprocess.run(cmd, input=text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd[:2]), p.stderr[-3000:]))
    return p.stdout


# Semantic mutations for --mutate: each rewrites one random match in the
# attention function (not @main). The mutant may no longer be attention,
# may not parse or verify (then it is skipped), or may still be attention
# in another form; whatever the raise accepts must compute what the mutant
# computes.
PREDICATES = ["sle", "slt", "sge", "sgt", "ule", "ult", "uge", "ugt", "eq", "ne"]
MUTATIONS = [
    ("cmpi predicate", r"arith\.cmpi (\w+),", lambda m, r: "arith.cmpi %s," % r.choice(PREDICATES)),
    ("index constant", r"arith\.constant (-?\d+) : index",
     lambda m, r: "arith.constant %d : index" % (int(m.group(1)) + r.choice([-2, -1, 1, 2]))),
    ("float constant", r"arith\.constant ([-+0-9.e]+) : f32",
     lambda m, r: "arith.constant %s : f32" % r.choice(["-1.0", "0.0", "2.0", "-1.0e4", "1.0e-3",
                                                        repr(-float(m.group(1)))])),
    ("reduction combiner", r"arith\.(maximumf|addf) %in, %acc",
     lambda m, r: "arith.%s %%in, %%acc" % r.choice(["minimumf", "addf", "maximumf", "mulf"])),
    ("subf operands", r"arith\.subf (%\w+), (%\w+)", lambda m, r: "arith.subf %s, %s" % (m.group(2), m.group(1))),
    ("exponential", r"math\.(exp2?) ", lambda m, r: "math.%s " % r.choice(["exp", "exp2", "tanh"])),
    ("select operands", r"arith\.select (%\w+), (%\w+), (%\w+)",
     lambda m, r: "arith.select %s, %s, %s" % (m.group(1), m.group(3), m.group(2))),
    ("and/or", r"arith\.(andi|ori) ", lambda m, r: "arith.%s " % ("ori" if m.group(1) == "andi" else "andi")),
    ("divf operands", r"arith\.divf (%\w+), (%\w+)", lambda m, r: "arith.divf %s, %s" % (m.group(2), m.group(1))),
    ("bool element", r"\b(true|false)\b(?=[^\n]*xi1>)", lambda m, r: "false" if m.group(1) == "true" else "true"),
    ("mask element", r"(0\.000000000e\+00|0xFF800000)(?=[^\n]*xf32>)",
     lambda m, r: NINF if m.group(1).startswith("0.") else "0.000000000e+00"),
    ("fill value", r"linalg\.fill ins\((%\w+)", lambda m, r: "linalg.fill ins(%s" % r.choice(["%zero", "%ninf", "%one"])),
    ("linalg.index dim", r"linalg\.index (\d+)", lambda m, r: "linalg.index %d" % max(0, int(m.group(1)) + r.choice([-1, 1]))),
]


def mutate(text, rng, count):
    """`count` random mutations of `text`; returns (text, their names)."""
    done = []
    for _ in range(count):
        options = [(name, pat, fn) for name, pat, fn in MUTATIONS if re.search(pat, text)]
        if not options:
            break
        name, pat, fn = rng.choice(options)
        matches = list(re.finditer(pat, text))
        m = rng.choice(matches)
        text = text[:m.start()] + fn(m, rng) + text[m.end():]
        done.append(name)
    return text, done


def run_outputs(args, source):
    """O of `source` as written and raised, on the CPU (printMemref numbers)."""
    runner = [args.mlir_runner, "-e", "main", "-entry-point-result=void", "-shared-libs=" + args.runner_libs]
    written = run([args.mlir_opt, "--transform-preload-library=transform-library-paths=" + DECOMPOSE,
                   "--transform-interpreter"], source)
    expected = run(runner, run([args.fa_opt, "--fa-lower-to-cpu"], written))
    actual = run(runner, run([args.fa_opt, "--fa-linalg-to-cpu"], source))
    return (compare_memrefs.numbers_in_memref_dump(expected),
            compare_memrefs.numbers_in_memref_dump(actual))


def same_numbers(want, have, tol):
    """Element-wise within tol + tol |want|; NaN and infinities must match."""
    if len(want) != len(have) or not want:
        return "printed %d numbers, want %d" % (len(have), len(want))
    for x, y in zip(have, want):
        if math.isnan(y) or math.isinf(y):
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return "O differs: %r vs %r" % (x, y)
        elif not abs(x - y) <= tol + tol * abs(y):
            return "O differs: %r vs %r" % (x, y)
    return None


def check_mutant(prog, args, rng):
    """A mutated program: skipped when it does not verify, else whatever
    the raise does must keep its results. Returns (problem, module, status)."""
    text, names = mutate(prog.text(), rng, rng.choice([1, 1, 2]))
    # No zero inputs: a mutant such as c / Q would turn them into infinite
    # scores, and a row of -inf scores is where fa.attention keeps
    # FlashAttention-2's convention (O = 0) and softmax gives NaN
    # (docs/raise-attention.md, "Precision").
    prog.nonzero_inputs = True
    module = text + "\n" + prog.main_text() + "\n"
    status = "/".join(names)
    try:
        source = module
        if prog.generalize:
            source = run([args.mlir_opt, "--linalg-generalize-named-ops"], module)
        raised = run([args.fa_opt, "--fa-raise-attention"], source)
    except RuntimeError:
        return None, module, "invalid (%s)" % status
    if "fa.attention" not in raised:
        return None, module, "left alone (%s)" % status
    try:
        want, have = run_outputs(args, source)
    except RuntimeError as e:
        return "raised, then failed to run: %s" % str(e)[-300:], module, status
    tol = 2e-5 if prog.elem == "f32" else 2e-3
    problem = same_numbers(want, have, tol)
    return problem, module, "raised (%s)" % status


def check_one(prog, args):
    module = prog.text() + "\n" + prog.main_text() + "\n"
    source = module
    if prog.generalize:
        source = run([args.mlir_opt, "--linalg-generalize-named-ops"], module)
    raised = run([args.fa_opt, "--fa-raise-attention"], source)
    ops = re.findall(r"fa\.attention [^\n]*", raised)
    if len(ops) != 1:
        return "not raised", module
    _, _, attrs = prog.expected_attrs()
    op = ops[0]
    scale = re.search(r"scale\(([^)]*)\)", op)
    want_scale = prog.scale * prog.exp_factor
    if not scale or abs(float(scale.group(1)) - want_scale) > 1e-6 * want_scale:
        return "scale %s, want %s: %s" % (scale and scale.group(1), want_scale, op), module
    for a in ("causal", "window(", "softcap("):
        have = [x for x in re.findall(r"(causal|window\([^)]*\)|softcap\([^)]*\))", op) if x.startswith(a)]
        want = [x for x in attrs if x.startswith(a)]
        if a == "softcap(":
            want_cap = prog.cap * prog.exp_factor if prog.cap else None
            ok = (not have and not want) or (have and want and
                                             abs(float(have[0][8:-1]) - want_cap) < 1e-6 * want_cap)
        else:
            ok = have == want
        if not ok:
            return "attributes %s, want %s: %s" % (have, want, op), module
    types = re.search(r" : (tensor<[^>]*>), (tensor<[^>]*>), (tensor<[^>]*>)\)", op)
    if not types or not types.group(1).endswith("x%s>" % prog.elem):
        return "not an fa.attention on %s: %s" % (prog.elem, op), module
    if prog.group > 1 and (not types or
                           types.group(2).split("<")[1].split("x")[1] != str(prog.h // prog.group)):
        return "K/V not kept at %d heads (GQA): %s" % (prog.h // prog.group, op), module
    if "linalg.softmax" in raised or "math.exp" in raised:
        return "softmax left behind", module
    want, have = run_outputs(args, source)
    tol = 2e-5 if prog.elem == "f32" else 2e-3   # f16: O rounded
    return same_numbers(want, have, tol), module


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--fa-opt", default="fa-opt")
    p.add_argument("--mlir-opt", default="mlir-opt")
    p.add_argument("--mlir-runner", default="mlir-runner")
    p.add_argument("--runner-libs", required=True)
    p.add_argument("--keep", help="directory for failing programs")
    p.add_argument("--mutate", action="store_true",
                   help="soundness: mutate each program semantically; a mutant the raise "
                        "accepts must compute what it computes as written")
    args = p.parse_args()
    failures = 0
    for index in range(args.count):
        prog = Program(random.Random("%d-%d" % (args.seed, index)))
        what = prog.describe()
        try:
            if args.mutate:
                problem, module, how = check_mutant(prog, args, random.Random("m%d-%d" % (args.seed, index)))
                what += " | " + how
            else:
                problem, module = check_one(prog, args)
        except RuntimeError as e:
            problem, module = str(e), prog.text()
        status = "FAIL" if problem else "ok"
        print("%s %d/%d %s%s" % (status, args.seed, index, what,
                                 (": " + problem) if problem else ""), flush=True)
        if problem:
            failures += 1
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                with open(os.path.join(args.keep, "raise-%d-%d.mlir" % (args.seed, index)), "w") as f:
                    f.write(module)
            else:
                print(module)
    print("%d programs, %d failed" % (args.count, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
