#!/usr/bin/env python3
"""A fuzzer for fa-opt: well-formed and mutated programs through random pass
pipelines with random options; every run must end in success or in a
diagnostic, never in a crash or a hang.

Inputs come from four sources, in turn:
  * a generator of fa.attention (and fa.attention_backward) functions (random shapes, static and
    dynamic, head counts, head dims, element types, scale, causal, window,
    soft cap, tensor or memref form, with or without LSE), valid or a little
    off;
  * unfused attention programs (test/lit_utils/random_raise.py's
    generator: layouts, GQA, scales, caps, band masks, softmax forms), half
    of them mutated, for --fa-raise-attention and the --fa-linalg-to-*
    pipelines;
  * mutations of a corpus (the lit inputs and examples/): lines deleted,
    duplicated or swapped, numbers and types replaced, text truncated,
    characters inserted;
  * the corpus files themselves.
Each input runs through a random pipeline: a few of the fa passes with random
option values (valid and invalid), sometimes repeated or out of order, or
one of the named pipelines (--fa-to-ptx with random chips, tiles and
options; --fa-lower-to-cpu).

Each run is classified: ok (exit 0), diagnostic (exit 1 with an `error:` and
nothing else), crash (a signal, a stack dump, `LLVM ERROR`, an assertion,
or output on a path outside the output directory), hang (over --timeout).
A crash inside upstream MLIR that upstream's own mlir-opt shows too is
classified "upstream" and does not fail the run: one whose stack names a
KNOWN_UPSTREAM function (each with an XFAIL lit test or a note in
docs/reliability.md), or one that the same input shows with every fa pass
and pipeline taken out of the command (parsing and printing alone, or only
the upstream passes of the chain, e.g. --canonicalize). Crashes and hangs are minimized (lines removed while the class and the
first line of the report stay) and saved to --out as <class>-<hash>.mlir with
the command in a comment.

  fa_fuzz.py --fa-opt build/bin/fa-opt --seed 1 --cases 2000 --out /tmp/fuzz
Exits non-zero if any crash or hang was found.
"""
import argparse
import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "lit_utils"))
import random_raise  # noqa: E402  (its generator of unfused attention programs)

# Crashes inside upstream MLIR that upstream mlir-opt shows on the same input
# (each has an XFAIL lit test naming it): classified "upstream", saved like
# crashes, but not counted as ours (docs/reliability.md).
KNOWN_UPSTREAM = ("linalg::TransposeOp::parse",  # test/tools/fa-opt/upstream-transpose-parse.mlir
                  "tensor::PadOp::print",  # a literal kDynamic in high[...] (docs/reliability.md)
                  # The parser's allocation for a result number such as
                  # %r#2147483648: an abort, or a hang where memory is plenty.
                  "report_bad_alloc_error",
                  )

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR",
                 "Assertion", "UNREACHABLE", "AddressSanitizer", "runtime error:",
                 "terminate called", "Segmentation fault")


# -- inputs ------------------------------------------------------------------

def pick(rng, values, weights=None):
    return rng.choices(values, weights=weights)[0]


def gen_attention(rng):
    """An fa.attention function; mostly valid, sometimes a little off."""
    off = rng.random() < 0.25

    def dim(values, dyn_p=0.3):
        return "?" if rng.random() < dyn_p else str(pick(rng, values))
    dtype = pick(rng, ["f16", "bf16", "f32", "f64", "i8"], [5, 5, 3, 1, 1] if off else [5, 5, 3, 0, 0])
    d = pick(rng, [16, 32, 64, 96, 128, 160, 192, 256] + ([0, 8, 40, 1024] if off else []))
    dv = d if rng.random() < 0.8 else pick(rng, [16, 32, 64, 128])
    hkv = pick(rng, [1, 2, 4])
    hq = hkv * pick(rng, [1, 2, 4, 8]) + (pick(rng, [0, 1]) if off else 0)
    b = dim([1, 2, 3])
    nq, nk = dim([0, 1, 7, 64, 100, 128, 257]), dim([0, 1, 7, 64, 100, 128, 300])
    q = "%sx%dx%sx%d" % (b, hq, nq, d)
    k = "%sx%dx%sx%d" % (b, hkv, nk, d)
    v = "%sx%dx%sx%d" % (b, hkv, nk, dv)
    o = "%sx%dx%sx%d" % (b, hq, nq, dv)
    lse = "%sx%dx%s" % (b, hq, nq)
    memref = rng.random() < 0.15
    kind = "memref" if memref else "tensor"
    ty = lambda s, e=dtype: "%s<%sx%s>" % (kind, s, e)  # noqa: E731
    attrs = ""
    if rng.random() < 0.3:
        attrs += " scale(%s)" % pick(rng, ["0.125", "1.0", "2.5"] + (["0.0", "-1.0", "0x7FC00000"] if off else []))
    if rng.random() < 0.5:
        attrs += " causal"
    if rng.random() < 0.35:
        ws = [-1, 0, 1, 16, 100, 1024, 100000] + ([-2, -100, 2 ** 40] if off else [])
        attrs += " window(%d, %d)" % (pick(rng, ws), pick(rng, ws))
    if rng.random() < 0.3:
        attrs += " softcap(%s)" % pick(rng, ["30.0", "50.0", "0.5"] + (["0.0", "-5.0", "0x7F800000"] if off else []))
    with_lse = rng.random() < 0.6
    # A K/V cache (key_lengths, maybe a paged pool and its block table) or
    # packed sequences (cu_seqlens): extra operands between ins and outs.
    extra_args, extra = [], ""
    form = pick(rng, ["dense", "cache", "paged", "varlen"], [6, 1, 1, 1])
    ity = lambda s: "%s<%s>" % (kind, s)  # noqa: E731
    lens_ty = pick(rng, ["i32", "i64", "f32", "index"], [8, 1, 1, 1] if off else [1, 0, 0, 0])
    if form in ("cache", "paged"):
        lens = ity("%sx%s" % (b if not off or rng.random() < 0.8 else pick(rng, ["1", "5", "?"]), lens_ty))
        extra_args.append("%%n: %s" % lens)
        extra = " key_lengths(%%n : %s)" % lens
        if form == "paged":
            page = pick(rng, [16, 32, 64, 256] + ([1, 24, 0] if off else []))
            pages = dim([1, 4, 9])
            k = "%sx%dx%dx%d" % (pages, page, hkv, d)
            v = "%sx%dx%dx%d" % (pages, page, hkv, dv)
            table = ity("%sx%sx%s" % (b, dim([1, 3, 16]), lens_ty))
            if off and rng.random() < 0.3:
                table = ity("%sx%s" % (b, lens_ty))
            extra_args.append("%%t: %s" % table)
            extra += " block_table(%%t : %s)" % table
    elif form == "varlen":
        if not off:
            b = "1"
        q = "%sx%dx%sx%d" % (b, hq, nq, d)
        k = "%sx%dx%sx%d" % (b, hkv, nk, d)
        v = "%sx%dx%sx%d" % (b, hkv, nk, dv)
        o = "%sx%dx%sx%d" % (b, hq, nq, dv)
        lse = "%sx%dx%s" % (b, hq, nq)
        seqs = dim([1, 2, 3, 9])
        cq = ity("%sx%s" % (seqs, lens_ty))
        ck = ity("%sx%s" % (seqs if not off or rng.random() < 0.7 else dim([2, 4]), lens_ty))
        extra_args += ["%%cq: %s" % cq, "%%ck: %s" % ck]
        extra = " cu_seqlens(%%cq, %%ck : %s, %s)" % (cq, ck)
    outs = "%%o, %%l : %s, %s" % (ty(o), ty(lse, "f32")) if with_lse else "%%o : %s" % ty(o)
    args = "%%q: %s, %%k: %s, %%v: %s, %%o: %s" % (ty(q), ty(k), ty(v), ty(o))
    if with_lse:
        args += ", %%l: %s" % ty(lse, "f32")
    for a in extra_args:
        args += ", " + a
    ins = "%%q, %%k, %%v : %s, %s, %s" % (ty(q), ty(k), ty(v))
    name = pick(rng, ["attn", "f", "attn.layer0", "a-b", "0x", "_k$", "../up", "kernel"])
    if not memref and form == "dense" and rng.random() < 0.3:
        # fa.attention_backward on the same shapes: Q, K, V, O, dO, LSE -> dQ, dK, dV.
        grads = "%s, %s, %s" % (ty(q), ty(k), ty(v))
        return ("func.func @\"%s\"(%%q: %s, %%k: %s, %%v: %s, %%o: %s, %%do: %s, %%l: %s, "
                "%%a: %s, %%b: %s, %%c: %s) -> (%s) {\n"
                "  %%r:3 = fa.attention_backward ins(%%q, %%k, %%v, %%o, %%do, %%l : %s, %s, %s, "
                "%s, %s, %s) outs(%%a, %%b, %%c : %s)%s -> %s\n"
                "  return %%r#0, %%r#1, %%r#2 : %s\n}\n" % (
                    name, ty(q), ty(k), ty(v), ty(o), ty(o), ty(lse, "f32"), ty(q), ty(k),
                    ty(v), grads, ty(q), ty(k), ty(v), ty(o), ty(o), ty(lse, "f32"), grads,
                    attrs, grads, grads))
    if memref:
        return ("func.func @\"%s\"(%s) {\n  fa.attention ins(%s)%s outs(%s)%s\n  return\n}\n" % (
            name, args, ins, extra, outs, attrs)).replace("%%", "%")
    results = "%s, %s" % (ty(o), ty(lse, "f32")) if with_lse else ty(o)
    rets = "%0, %1" if with_lse else "%0"
    return ("func.func @\"%s\"(%s) -> (%s) {\n  %s = fa.attention ins(%s)%s outs(%s)%s -> %s\n"
            "  return %s : %s\n}\n" % (name, args, results, rets, ins, extra, outs, attrs, results, rets,
                                       results)).replace("%%", "%")


NUMBERS = ["0", "1", "-1", "2", "3", "15", "16", "17", "64", "127", "128", "2147483647",
           "2147483648", "4294967296", "9223372036854775807", "-9223372036854775808"]
TYPES = ["f16", "bf16", "f32", "f64", "i1", "i32", "i64", "index"]


def mutate(rng, text):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        if not lines:
            break
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            nums = list(re.finditer(r"(?<![%\w])-?\d+", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][:m.start()] + rng.choice(NUMBERS) + lines[i][m.end():]
        elif op == 4:
            toks = list(re.finditer(r"\b(f16|bf16|f32|f64|i1|i32|i64|index)\b", lines[i]))
            if toks:
                m = rng.choice(toks)
                lines[i] = lines[i][:m.start()] + rng.choice(TYPES) + lines[i][m.end():]
        elif op == 5:
            lines = lines[:i]
        elif op == 6:
            pos = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:pos] + rng.choice(["?", "x", ",", "%", "#", "}", "<", "0"]) + lines[i][pos:]
        else:
            names = re.findall(r"%[\w#]+", lines[i])
            if len(names) >= 2:
                a, b = rng.sample(names, 2)
                lines[i] = lines[i].replace(a, "\0").replace(b, a).replace("\0", b)
    return "\n".join(lines)


# -- pipelines ---------------------------------------------------------------

def fa_passes(rng):
    n = lambda vals: pick(rng, vals)  # noqa: E731
    return [
        "--fa-decompose-naive",
        "--fa-tile-q-outer=block-m=%s block-n=%s pack-gqa=%s" % (
            n(["16", "32", "64", "128", "0", "2000", "7"]), n(["16", "32", "64", "0", "5"]),
            n(["false", "true"])),
        "--fa-tile-q-outer=auto-blocks=true chip=%s pack-gqa=%s" % (
            n(["sm_80", "sm_86", "sm_120", "sm_7"]), n(["true", "false"])),
        "--fa-causal-block-skip",
        "--fa-map-warps=num-warps=%s" % n(["0", "1", "2", "4", "8", "3", "-1"]),
        "--fa-map-warps=num-warps=%s key-groups=%s" % (n(["0", "1", "2", "4", "8"]),
                                                       n(["0", "1", "2", "4", "8", "3", "16", "-2"])),
        "--fa-map-warps=query-home=%s" % n(["auto", "registers", "shared"]),
        "--fa-map-warps=num-warps=%s atom=%s" % (n(["0", "4", "8", "2"]),
                                                 n(["wgmma", "mma_sync", "x"])),
        "--fa-tile-q-outer=auto-blocks=true chip=sm_90a atom=%s" % n(["wgmma", "mma_sync"]),
        "--fa-schedule-softmax=rescale=%s" % n(["auto", "before-exp", "after-exp"]),
        "--fa-pipeline-mma=all-atoms=%s" % n(["false", "true"]),
        "--fa-pipeline-kv=stages=%s" % n(["0", "2", "3", "4", "1", "9"]),
        "--fa-warp-block-skip",
        "--fa-split-kv=splits=%s" % n(["2", "3", "4", "16", "1", "0", "2000"]),
        "--fa-tile-combine=block-m=%s block-dv=%s split-warps=%s" % (
            n(["0", "16", "32", "64", "128", "24", "-16"]), n(["0", "8", "16", "32", "4", "24", "-8"]),
            n(["0", "1", "2", "3", "8", "32", "-1", "4611686018427387904"])),
        "--fa-tile-q-outer=auto-blocks=true for-split-kv=true",
        "--fa-lower-to-gpu=chip=%s index-bitwidth=%s" % (n(["sm_80", "sm_86", "sm_90", "sm_90a", "sm_75", "sm_100", "sm_120", "gfx90a", ""]),
                                                         n(["32", "64", "16"])),
        "--fa-tile-kv-outer=block-m=%s block-n=%s" % (n(["16", "32", "64", "0", "7"]),
                                                      n(["16", "64", "5", "2000"])),
        "--fa-tile-backward=block-m=%s block-n=%s dkdv-block-m=%s dq=%s" % (
            n(["16", "32", "64", "0", "7", "2000"]), n(["0", "16", "64", "5"]),
            n(["0", "16", "32", "24", "-1"]),
            n(["auto", "atomic", "deterministic", "atomic", "never"])),
        "--fa-decompose-tiles",
        "--fa-raise-attention",
        "--fa-raise-attention=finfo-min-masks=%s explain=%s warn-if-none=%s" % (
            n(["true", "false"]), n(["true", "false", "1", "maybe"]), n(["true", "false"])),
        "--canonicalize",
        "--cse",
    ]


def random_pipeline(rng, out_dir):
    r = rng.random()
    if r < 0.3:
        opts = ["output-dir=%s" % out_dir]
        for key, vals in (("chip", ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_103a",
                                    "sm_120", "sm_121a", "sm_100f", "sm_52", "x"]),
                          ("block-m", ["0", "64", "128", "256", "48"]), ("block-n", ["0", "32", "64", "24"]),
                          ("num-warps", ["0", "4", "8", "2"]), ("kv-stages", ["0", "2", "3", "4", "5"]),
                          ("query-home", ["auto", "shared", "registers", "x"]),
                          ("rescale", ["auto", "before-exp", "after-exp"]),
                          ("mma-pipeline", ["auto", "on", "off", "x"]),
                          ("pack-gqa", ["true", "false"]), ("warp-block-skip", ["true", "false"]),
                          ("splits", ["1", "2", "4", "7", "0", "4096"]),
                          ("merge-dv", ["0", "8", "16", "32", "12", "-1"]),
                          ("merge-split-warps", ["0", "1", "4", "16", "-3"]),
                          ("key-groups", ["0", "1", "2", "4", "8", "3", "-1"]),
                          ("short-shared-pointers", ["true", "false"]),
                          ("atom", ["auto", "mma_sync", "wgmma", "wgmma", "x"]),
                          ("dq", ["auto", "atomic", "deterministic", "x"]),
                          ("features", ["+ptx80", "+ptx60", "+ptx86", "+ptx90", "+ptx99", "garbage", ""]),
                          ("index-bitwidth", ["32", "64", "8"]), ("opt-level", ["0", "2", "3", "9"])):
            if rng.random() < 0.35:
                opts.append("%s=%s" % (key, rng.choice(vals)))
        return [rng.choice(["--fa-to-ptx=", "--fa-linalg-to-ptx="]) + " ".join(opts)]
    if r < 0.4:
        return [rng.choice(["--fa-lower-to-cpu", "--fa-linalg-to-cpu"])]
    passes = fa_passes(rng)
    chain = [passes[i] for i in sorted(rng.sample(range(len(passes)), rng.randint(1, 5)))]
    if rng.random() < 0.3:
        chain.insert(rng.randrange(len(chain) + 1), rng.choice(passes))
    if rng.random() < 0.2:
        rng.shuffle(chain)
    return chain


# -- running -------------------------------------------------------------------

def upstream_alone(fa_opt, text, args, timeout, out_dir):
    """Whether a crash or hang needs none of our code: the same input
    through the command without its fa passes and pipelines still crashes
    or hangs."""
    rest = [x for x in args if not x.startswith("--fa-")]
    kind, _ = classify(fa_opt, text, rest, timeout, out_dir)
    return kind in ("crash", "hang", "upstream")


def classify(fa_opt, text, args, timeout, out_dir):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False, dir=out_dir) as f:
        f.write(text)
        path = f.name
    try:
        start = time.time()
        p = subprocess.run([fa_opt, path] + args + ["-o", os.devnull], capture_output=True,
                           text=True, timeout=timeout, errors="replace")
        elapsed = time.time() - start
    except subprocess.TimeoutExpired:
        return "hang", "timeout after %ds" % timeout
    finally:
        os.unlink(path)
    report = p.stderr
    if any(m in report for m in KNOWN_UPSTREAM):
        return "upstream", next(m for m in KNOWN_UPSTREAM if m in report)
    if p.returncode < 0 or any(m in report for m in CRASH_MARKERS):
        first = next((l for l in report.splitlines() if any(m in l for m in CRASH_MARKERS) or
                      "error" in l.lower()), report[:200])
        return "crash", first.strip()[:200]
    if p.returncode == 0:
        return "ok", "%.2fs" % elapsed
    # MLIR diagnostics ("error: ..."), and the option parser's own messages.
    if "error" in report or "Pass-Options-Parser" in report or "option" in report:
        return "diagnostic", ""
    return "crash", "exit %d without a diagnostic: %s" % (p.returncode, report[:200])


SPLIT = "\n// -----\n"


def classify_batch(fa_opt, texts, args, timeout, out_dir):
    """Runs several inputs in one process (--split-input-file): the process
    start-up is most of a small case's time. A clean batch is split into ok
    and diagnostic by the lines its errors point at; a batch that crashes or
    hangs is re-run one input at a time, so that each report names one input.
    Returns (kind, signature, text, args) per input; a crash that only the
    whole batch shows is reported on the batch, with --split-input-file."""
    joined = SPLIT.join(t.rstrip("\n") for t in texts)
    batch_args = args + ["--split-input-file"]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False, dir=out_dir) as f:
        f.write(joined)
        path = f.name
    try:
        p = subprocess.run([fa_opt, path] + batch_args + ["-o", os.devnull], capture_output=True,
                           text=True, timeout=timeout * len(texts), errors="replace")
        report, rc = p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        report, rc = None, None
    finally:
        os.unlink(path)
    clean = report is not None and rc in (0, 1) and not any(m in report for m in CRASH_MARKERS)
    if clean and (rc == 0 or "error" in report):
        # First line of each input in the joined file (1-based).
        starts, line = [], 1
        for t in texts:
            starts.append(line)
            line += t.rstrip("\n").count("\n") + 1 + SPLIT.count("\n") - 1
        failed = set()
        for m in re.finditer(re.escape(os.path.basename(path)) + r":(\d+):\d+: error", report):
            failed.add(max([0] + [i for i, s in enumerate(starts) if s <= int(m.group(1))]))
        if rc == 1 and not failed:  # an option or pipeline error: every input
            failed = set(range(len(texts)))
        return [("diagnostic" if i in failed else "ok", "", t, args) for i, t in enumerate(texts)]
    # One at a time with the batch's own flags: an input may itself hold
    # `// -----` markers (the lit inputs do), and must be split the same way.
    results = [classify(fa_opt, t, batch_args, timeout, out_dir) + (t, batch_args) for t in texts]
    if all(k in ("ok", "diagnostic") for k, _, _, _ in results):
        kind = "hang" if report is None else "crash"
        results[0] = (kind, "only in a batch of %d" % len(texts), joined, batch_args)
    return results


def minimize(fa_opt, text, args, timeout, kind, signature, out_dir, budget):
    """Removes lines while the class and the report's first line stay; gives
    up after `budget` seconds with what it has (a hang costs a timeout per
    try, and a batch of mutated inputs can be thousands of lines)."""
    deadline = time.time() + budget
    lines = text.split("\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(lines) and time.time() < deadline:
            candidate = lines[:i] + lines[i + chunk:]
            k, s = classify(fa_opt, "\n".join(candidate), args, timeout, out_dir)
            if k == kind and s.split(":")[0] == signature.split(":")[0]:
                lines, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return "\n".join(lines)


def corpus_files():
    files = glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "examples", "*.mlir"))
    return sorted(f for f in files if "/fuzz/" not in f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fa-opt", default=os.path.join(ROOT, "build", "bin", "fa-opt"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--timeout", type=int, default=30)
    p.add_argument("--out", default=None, help="where reproducers go (default: a temporary dir)")
    p.add_argument("--batch", type=int, default=1,
                   help="inputs per fa-opt process (--split-input-file, one pipeline); a batch that "
                        "crashes or hangs is re-run one input at a time")
    p.add_argument("--minimize-seconds", type=int, default=120,
                   help="time spent minimizing one reproducer (then it is saved as it is)")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args()
    if a.batch < 1 or a.cases < 0 or a.timeout < 1 or a.minimize_seconds < 0:
        p.error("--batch and --timeout must be positive, --cases and --minimize-seconds not negative")
    rng = random.Random(a.seed)
    out = a.out or tempfile.mkdtemp(prefix="fa-fuzz-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fa-fuzz-work-")
    corpus = [open(f, errors="replace").read() for f in corpus_files()]
    if not corpus:
        p.error("no corpus under %s (test/**/*.mlir, examples/*.mlir)" % ROOT)
    counts, found = {}, {}
    start = time.time()
    def record(i, text, args, kind, signature):
        key = (kind, signature.split(":")[0][:80], " ".join(a_.split("=")[0] for a_ in args))
        if key in found:
            return
        small = minimize(a.fa_opt, text, args, a.timeout, kind, signature, work,
                         a.minimize_seconds)
        digest = hashlib.sha1((small + " ".join(args)).encode()).hexdigest()[:10]
        path = os.path.join(out, "%s-%s.mlir" % (kind, digest))
        with open(path, "w") as f:
            f.write("// %s: %s\n// fa-opt %%s %s\n%s\n" % (kind, signature, " ".join(
                "'%s'" % x for x in args), small))
        found[key] = path
        print("%s [%d] %s\n    %s" % (kind.upper(), i, signature, path), flush=True)

    done, next_report = 0, 500
    while done < a.cases:
        texts = []
        for i in range(done, min(done + a.batch, a.cases)):
            source = i % 4
            if source == 0:
                texts.append(gen_attention(rng))
            elif source == 3:
                text = random_raise.Program(random.Random(rng.random())).text()
                texts.append(mutate(rng, text) if rng.random() < 0.5 else text)
            elif source == 1:
                texts.append(mutate(rng, rng.choice(corpus)))
            else:
                texts.append(rng.choice(corpus))
        ptx_dir = os.path.join(work, "ptx")
        shutil.rmtree(ptx_dir, ignore_errors=True)
        args = random_pipeline(rng, ptx_dir)
        if len(texts) == 1:
            results = [classify(a.fa_opt, texts[0], args, a.timeout, work) + (texts[0], args)]
        else:
            results = classify_batch(a.fa_opt, texts, args, a.timeout, work)
        for j, (kind, signature, text, run_args) in enumerate(results):
            # Nothing may be written outside the output directory.
            stray = [f for f in os.listdir(work) if f not in ("ptx",) and not f.endswith(".mlir")]
            if stray:
                kind, signature = "crash", "files written outside output-dir: %s" % stray
                for f in stray:
                    shutil.rmtree(os.path.join(work, f), ignore_errors=True)
            if kind in ("crash", "hang") and upstream_alone(a.fa_opt, text, run_args, a.timeout, work):
                kind, signature = "upstream", "without the fa passes too: " + signature
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("crash", "hang", "upstream"):
                record(done + j, text, run_args, kind, signature)
        done += len(texts)
        if not a.quiet and done >= next_report:
            next_report += 500
            print("%d cases, %s, %.1f cases/s" % (done, counts, done / (time.time() - start)), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print("seed %d: %d cases in %.0f s: %s; %d distinct crashes/hangs%s" % (
        a.seed, a.cases, time.time() - start, counts, len(found), (" in " + out) if found else ""))
    return 1 if any(k[0] != "upstream" for k in found) else 0


if __name__ == "__main__":
    sys.exit(main())
