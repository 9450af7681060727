"""Precompiles fa_mlir.attention kernels into a directory (ahead of time).

Run where the compiler module is; copy DIR to the GPU machine and set
FA_MLIR_KERNEL_DIR=DIR there (or call fa_mlir.add_kernel_dir(DIR)): the
runtime then needs neither MLIR nor the compiler. The configurations are
the ones fa_mlir.attention looks up (kernels.attention_config), every
combination of the lists given:

  python -m fa_mlir.aot --out DIR --head-dims 64,128 --dtypes f16,bf16 \\
      --heads 32:8,16:16 --causal both [--windows none,256:0] [--softcap both]

B, Nq, Nk, the softmax scale and the soft cap's value are not part of a
configuration (read at run time). DIR/index.json lists the entries with the
compiler version; `--list DIR` prints it.
"""
import argparse
import itertools
import os
import shutil
import sys
import time

from .kernels import KernelDir, attention_config, describe

_YES_NO = {"yes": [True], "no": [False], "both": [False, True]}


def _argument(parse):
    """An argparse type from `parse`: a ValueError becomes argparse's own
    error, which names the option, instead of a traceback."""
    def wrapped(text):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError("%s (got %r)" % (e, text)) from None
    wrapped.__name__ = parse.__name__.lstrip("_")
    return wrapped


@_argument
def _ints(text):
    return [int(x) for x in text.split(",") if x]


@_argument
def _heads(text):
    out = []
    for item in text.split(","):
        if not item:
            continue
        parts = item.replace("x", ":").split(":")
        if len(parts) == 1:
            parts = parts * 2
        if len(parts) != 2:
            raise argparse.ArgumentTypeError("heads are Hq:Hkv pairs, got %r" % item)
        out.append((int(parts[0]), int(parts[1])))
    return out


@_argument
def _windows(text):
    out = []
    for item in text.split(","):
        if item in ("none", ""):
            out.append(None)
            continue
        parts = item.split(":")
        if len(parts) != 2:
            raise ValueError("windows are left:right or none, e.g. 256:0")
        out.append((int(parts[0]), int(parts[1])))
    return out


def _kv_caches(text):
    """none, lengths (key_lengths) or paged:P (page size P) items, as
    (key_lengths, page_size) pairs."""
    out = []
    for item in text.split(","):
        if item in ("none", ""):
            out.append((False, None))
        elif item == "lengths":
            out.append((True, None))
        elif item.startswith("paged:") and item[6:].isdigit() and int(item[6:]) > 0:
            out.append((True, int(item[6:])))
        else:
            raise argparse.ArgumentTypeError(
                "K/V caches are none, lengths or paged:PAGE_SIZE, got %r" % item)
    return out


def _options(text):
    out = {}
    for item in text.split(","):
        if item:
            key, _, value = item.partition("=")
            # One spelling, so that block_m and block-m name one configuration.
            out[key.replace("_", "-")] = value
    return out


def configurations(a):
    """Every distinct configuration the arguments describe."""
    seen, out = set(), []
    for d, dtype, (hq, hkv), causal, window, softcap, decode, splits, cache, varlen in \
            itertools.product(a.head_dims, a.dtypes, a.heads, _YES_NO[a.causal], a.windows,
                              _YES_NO[a.softcap], _YES_NO[a.decode], a.splits, a.kv_cache,
                              _YES_NO[a.varlen]):
        if splits != 1 and not decode:
            continue  # fa_mlir.attention splits decode steps only.
        if varlen:
            # fa_mlir.attention_varlen: packed prefill, no cache, no split.
            if a.backward != "yes" and not decode and splits == 1 and not cache[0]:
                config = attention_config(dtype, hq, hkv, d, a.v_head_dim, causal=causal,
                                          window=window, softcap=softcap, chip=a.chip,
                                          options=a.options, varlen=True)
                if config.key() not in seen:
                    seen.add(config.key())
                    out.append(config)
            continue
        forward = attention_config(dtype, hq, hkv, d, a.v_head_dim, causal=causal,
                                   window=window, softcap=softcap, chip=a.chip,
                                   options=a.options, q_len=1 if decode else None,
                                   splits=splits, key_lengths=cache[0], page_size=cache[1])
        if cache[0]:  # A K/V cache: inference only.
            if a.backward != "yes" and forward.key() not in seen:
                seen.add(forward.key())
                out.append(forward)
            continue
        backward = attention_config(dtype, hq, hkv, d, a.v_head_dim, causal=causal,
                                    window=window, softcap=softcap, chip=a.chip,
                                    options=a.options, backward=True)
        wanted = {"no": [forward], "yes": [backward],
                  "both": [forward, backward]}[a.backward]
        if decode or splits != 1:
            wanted = [forward] if a.backward != "yes" else []
        for config in wanted:
            if config.key() not in seen:
                seen.add(config.key())
                out.append(config)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m fa_mlir.aot", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="the kernel directory to write (created)")
    p.add_argument("--head-dims", type=_ints, default=[64, 128])
    p.add_argument("--v-head-dim", type=int, default=None)
    p.add_argument("--dtypes", type=lambda t: [x for x in t.split(",") if x],
                   default=["f16", "bf16"])
    p.add_argument("--heads", type=_heads, default=[(32, 32)],
                   help="Hq:Hkv pairs, comma separated (e.g. 32:8,16:16)")
    p.add_argument("--causal", choices=sorted(_YES_NO), default="both")
    p.add_argument("--windows", type=_windows, default=[None],
                   help="left:right windows or none, comma separated (e.g. none,256:0)")
    p.add_argument("--softcap", choices=sorted(_YES_NO), default="no",
                   help="kernels with a soft cap (its value is a run-time parameter)")
    p.add_argument("--decode", choices=sorted(_YES_NO), default="no",
                   help="also (both) or only (yes) the decode-step kernels: one static query, "
                        "16-row Q blocks (fa_mlir.attention uses them when Nq = 1 and falls "
                        "back to the others when they are missing)")
    p.add_argument("--splits", type=_ints, default=[1],
                   help="split-KV forms of the decode kernels, comma separated: 1 unsplit, "
                        "0 the split count a run-time parameter (what fa_mlir.attention "
                        "uses: runtime/splits.py picks the count), S > 1 compiled for S "
                        "chunks; e.g. 1,0")
    p.add_argument("--backward", choices=sorted(_YES_NO), default="no",
                   help="also (both) or only (yes) the backward kernels that fa_mlir.attention's "
                        "autograd runs (not for decode steps)")
    p.add_argument("--kv-cache", type=_kv_caches, default=[(False, None)],
                   help="comma-separated: none (default), lengths (per-sequence key "
                        "lengths), paged:P (a paged cache of page size P), as "
                        "fa_mlir.attention_with_kvcache uses")
    p.add_argument("--varlen", choices=sorted(_YES_NO), default="no",
                   help="packed sequences (fa_mlir.attention_varlen): yes, no or both")
    p.add_argument("--chip", default=None,
                   help="sm_80 (default), sm_86, sm_87, sm_89, sm_90, sm_90a (what an "
                        "H100/H200 looks up: wgmma kernels), ...")
    p.add_argument("--options", type=_options, default={},
                   help="more fa-to-ptx options, e.g. block-m=64,block-n=64")
    p.add_argument("--variant-options", type=_options, default={},
                   help="fa-to-ptx options the kernels are compiled with but not stored "
                        "under: each entry keeps the configuration fa_mlir looks up, so the "
                        "directory is a variant of the default kernels for an A/B run "
                        "(e.g. stage-block-scalars=off; bench_varlen.py --variant "
                        "NAME=DIR). The options are noted in the entries' compiler version")
    p.add_argument("--force", action="store_true",
                   help="recompile configurations DIR already has")
    p.add_argument("--list", metavar="DIR", help="print DIR/index.json and exit")
    a = p.parse_args(argv)
    if a.list:
        try:
            index = KernelDir(a.list).read_index()
            lines = ["compiler: %s" % index["compiler_version"]]
            lines += ["  %-48s %s" % (e["plan"], e["key"]) for e in index["entries"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            p.error("--list: cannot read %s/index.json (%s: %s)" % (a.list, type(e).__name__, e))
        print("\n".join(lines))
        return 0
    if not a.out:
        p.error("--out DIR is required")
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        p.error("--out %s exists and is not a directory" % a.out)
    if "splits" in a.options:
        p.error("--options splits=...: use --splits (split-KV forms of the decode kernels, "
                "the ones fa_mlir.attention looks up)")
    if any(s < 0 or s > 1024 for s in a.splits):
        p.error("--splits: split counts must be 0 (run time) to 1024, got %s" % a.splits)
    try:
        todo = configurations(a)
    except (ValueError, TypeError) as e:
        p.error(str(e))

    if "splits" in a.variant_options:
        p.error("--variant-options splits=...: the split count is part of the configuration")
    from . import compiler
    from .errors import CompileError
    version = compiler.version()  # CompilerUnavailableError without the module.
    if a.variant_options:
        version += " (variant: %s)" % ",".join(
            "%s=%s" % kv for kv in sorted(a.variant_options.items()))
    target = KernelDir(a.out)
    os.makedirs(a.out, exist_ok=True)
    start = time.perf_counter()
    for config in todo:
        t0 = time.perf_counter()
        have = target.lookup(config)
        if have and not a.force:
            print("  have     %s%s" % (describe(config), "" if have[2]["compiler_version"] == version
                                       else "  (from %s)" % have[2]["compiler_version"]),
                  flush=True)
            continue
        try:
            options = dict(config.pipeline_options(), **a.variant_options)
            compiled = compiler.compile(config.spec, options=options).plan()
        except (CompileError, ValueError) as e:  # ValueError: a bad --options value.
            print("error: %s: %s" % (describe(config), e), file=sys.stderr)
            return 1
        # What is there is replaced: an entry of an older build (--force) or
        # a damaged one (lookup ignored it).
        if os.path.exists(target.entry_path(config)):
            shutil.rmtree(target.entry_path(config))
        target.store(config, compiled, version)
        print("  %5.2f s  %s" % (time.perf_counter() - t0, describe(config)), flush=True)
    path = target.write_index(version)
    print("%d configurations in %.1f s; index: %s" % (len(todo), time.perf_counter() - start,
                                                      path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
