#!/usr/bin/env python3
"""Compiles the forward kernels of fa.attention's feature matrix with the
default tiles and reports every kernel that ptxas -v spills.

The head-dim table promises 0 spills for sm_80 and sm_90 (what the driver
JIT compiles for on H100/H200) with the defaults; the lit tests check a
sample of the matrix, this script checks all of it (a few minutes on 8
cores, too long for CI):

  scripts/spill-sweep.py --fa-opt build/bin/fa-opt
  scripts/spill-sweep.py --chips sm_90 --options "swizzle-shared=on"
  scripts/spill-sweep.py --head-dims 96 --forms varlen --softcap yes -v
  scripts/spill-sweep.py --forms backward backward-deterministic \
      backward-atomic --head-dims 64 128


Axes: head dim, element type, mask (none, causal, windows with and without
causal), soft cap, and the form of the op: dense prefill (dynamic Nq),
dense prefill split over 3 chunks of the keys (split-KV), packed sequences (varlen), a dense K/V cache with per-sequence lengths and
paged caches (prefill over the cache and one-query decode steps, unsplit
and split-KV with a run-time split count); on request (--forms), the three
kernels of fa.attention_backward with dq=auto (`backward`), dq=deterministic
and dq=atomic (spill-free up to head dim 128; above, the dK/dV kernel spills
with either dQ: docs/backward.md). Each PTX is assembled for the
chip it was compiled for and, for chip sm_80, for sm_90 too. Exit status 1
if any kernel spills.
"""

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HEAD_DIMS = [32, 64, 96, 128, 160, 192, 256]
MASKS = ["", "causal", "window(128, 32)", "causal window(1024, 0)",
         "causal window(64, 0)", "window(512, -1)"]
FORMS = ["dense", "split", "varlen", "kvlens", "paged16", "paged64", "paged256",
         "decode", "decode-kvlens", "decode-paged16", "decode-paged64",
         "decode-split"]
BACKWARD_FORMS = ["backward", "backward-deterministic", "backward-atomic"]


def backward_op_text(d, dtype, mask, cap):
    """A func holding one fa.attention_backward (32 query heads over 8 K/V
    heads)."""
    attrs = " ".join(a for a in (mask, "softcap(30.0)" if cap else "") if a)
    q = "tensor<?x32x?x%dx%s>" % (d, dtype)
    kv = "tensor<?x8x?x%dx%s>" % (d, dtype)
    lse = "tensor<?x32x?xf32>"
    return (
        "func.func @sweep(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s, %%o: %(q)s, "
        "%%do: %(q)s, %%l: %(lse)s, %%dq: %(q)s, %%dk: %(kv)s, %%dv: %(kv)s)"
        " -> (%(q)s, %(kv)s, %(kv)s) {\n"
        "  %%r:3 = fa.attention_backward ins(%%q, %%k, %%v, %%o, %%do, %%l : "
        "%(q)s, %(kv)s, %(kv)s, %(q)s, %(q)s, %(lse)s) outs(%%dq, %%dk, %%dv : "
        "%(q)s, %(kv)s, %(kv)s) %(attrs)s -> %(q)s, %(kv)s, %(kv)s\n"
        "  return %%r#0, %%r#1, %%r#2 : %(q)s, %(kv)s, %(kv)s\n}\n"
        % dict(q=q, kv=kv, lse=lse, attrs=attrs))


def op_text(form, d, dtype, mask, cap):
    """A func holding one fa.attention of `form` (32 query heads over 8
    K/V heads)."""
    attrs = " ".join(a for a in (mask, "softcap(30.0)" if cap else "") if a)
    nq = "1" if form.startswith("decode") else "?"
    q = "tensor<?x32x%sx%dx%s>" % (nq, d, dtype)
    lse = "tensor<?x32x%sxf32>" % nq
    kv = "tensor<?x8x?x%dx%s>" % (d, dtype)
    extra_args, extra_ins = "", ""
    if form == "varlen":
        q = "tensor<1x32x?x%dx%s>" % (d, dtype)
        lse = "tensor<1x32x?xf32>"
        kv = "tensor<1x8x?x%dx%s>" % (d, dtype)
        extra_args = ", %cq: tensor<?xi32>, %ck: tensor<?xi32>"
        extra_ins = " cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)"
    elif "paged" in form:
        page = int(form.rsplit("paged", 1)[1])
        kv = "tensor<?x%dx8x%dx%s>" % (page, d, dtype)
        extra_args = ", %n: tensor<?xi32>, %t: tensor<?x?xi32>"
        extra_ins = (" key_lengths(%n : tensor<?xi32>)"
                     " block_table(%t : tensor<?x?xi32>)")
    elif "kvlens" in form:
        extra_args = ", %n: tensor<?xi32>"
        extra_ins = " key_lengths(%n : tensor<?xi32>)"
    return (
        "func.func @sweep(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s%(args)s, "
        "%%o: %(q)s, %%l: %(lse)s) -> (%(q)s, %(lse)s) {\n"
        "  %%r:2 = fa.attention ins(%%q, %%k, %%v : %(q)s, %(kv)s, %(kv)s)"
        "%(ins)s outs(%%o, %%l : %(q)s, %(lse)s) %(attrs)s -> %(q)s, %(lse)s\n"
        "  return %%r#0, %%r#1 : %(q)s, %(lse)s\n}\n"
        % dict(q=q, kv=kv, lse=lse, args=extra_args, ins=extra_ins,
               attrs=attrs))


def applicable(form, mask):
    # Decode steps are causal (a cache); their windows are left bounds.
    if form.startswith("decode"):
        return mask in ("causal", "causal window(64, 0)",
                        "causal window(1024, 0)")
    return True


def spills(fa_opt, chip, options, form, d, dtype, mask, cap, keep):
    with tempfile.TemporaryDirectory() as tmp:
        opts = "output-dir=%s chip=%s %s" % (tmp, chip, options)
        if form == "decode-split":
            opts += " splits=0"
        elif form == "split":
            opts += " splits=3"
        if form.startswith("decode"):
            opts += " pack-gqa=true"
        if form.startswith("backward-"):
            opts += " dq=" + form.split("-", 1)[1]
        src = (backward_op_text(d, dtype, mask, cap)
               if form.startswith("backward") else
               op_text(form, d, dtype, mask, cap))
        run = subprocess.run([fa_opt, "--fa-to-ptx=" + opts, "-o", os.devnull],
                             input=src, capture_output=True, text=True)
        if run.returncode != 0:
            return ["fa-opt failed: " + run.stderr.strip().splitlines()[-1]]
        found = []
        archs = [chip] + (["sm_90"] if chip == "sm_80" else [])
        for ptx in sorted(f for f in os.listdir(tmp) if f.endswith(".ptx")):
            for arch in archs:
                out = subprocess.run(
                    ["ptxas", "-arch=" + arch, "-v", os.path.join(tmp, ptx),
                     "-o", os.devnull], capture_output=True, text=True).stderr
                for line in out.splitlines():
                    if "spill stores" in line:
                        words = line.split()
                        stores = int(words[words.index("spill") - 2])
                        if stores:
                            found.append("%s %s: %s" % (ptx, arch,
                                                        line.strip()))
        if found and keep:
            with open(os.path.join(keep, "%s_d%d_%s_%s_%s%s.mlir" % (
                    form, d, dtype, chip, mask.replace(" ", "_")
                    .replace("(", "").replace(")", "").replace(", ", "x"),
                    "_cap" if cap else "")), "w") as f:
                f.write(src)
        return found


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fa-opt", default="build/bin/fa-opt")
    p.add_argument("--chips", nargs="+", default=["sm_80", "sm_90"])
    p.add_argument("--head-dims", nargs="+", type=int, default=HEAD_DIMS)
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p.add_argument("--forms", nargs="+", default=FORMS,
                   choices=FORMS + BACKWARD_FORMS)
    p.add_argument("--masks", nargs="+", default=MASKS, choices=MASKS)
    p.add_argument("--softcap", choices=["yes", "no", "both"], default="both")
    p.add_argument("--options", default="", help="more --fa-to-ptx options")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--keep", help="write the MLIR of each spilling kernel here")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args()
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    caps = {"yes": [True], "no": [False], "both": [False, True]}[a.softcap]
    cases = [c for c in itertools.product(a.chips, a.forms, a.head_dims,
                                          a.dtypes, a.masks, caps)
             if applicable(c[1], c[4])]
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(
            lambda c: spills(a.fa_opt, c[0], a.options, *c[1:], a.keep),
            cases))
    bad = 0
    for (chip, form, d, dtype, mask, cap), found in zip(cases, results):
        name = "chip=%s %s d%d %s [%s]%s" % (chip, form, d, dtype, mask,
                                             " softcap" if cap else "")
        if found:
            bad += 1
            for line in found:
                print("%s  %s" % (name, line))
        elif a.verbose:
            print("%s  0 spills" % name)
    print("%d of %d configurations spill" % (bad, len(cases)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
