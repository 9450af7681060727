"""Kernel directories timed side by side in one process (the `--variant`
flag of bench_varlen.py and bench_kvcache.py).

A variant is another fa_mlir.aot directory of the same configurations (e.g.
compiled with `--variant-options`, or for another chip). Its calls run
with fa_mlir's kernel lookups sent to that directory's cache, and with the
plans fa_mlir.ops memoises per configuration kept apart, so both builds
are timed in the same interleaved rounds.

  --variant NAME=DIR            the directory's kernels, the GPU's own chip
  --variant NAME=DIR@CHIP       looked up as CHIP's kernels (e.g. sm_90a for
                                a directory compiled with `--chip sm_90a`)
"""
import os

import fa_mlir
import fa_mlir.chips
import fa_mlir.kernels
import fa_mlir.ops


def parse_variants(parser, specs):
    """[(name, cache, chip or None)] from `NAME=DIR[@CHIP]` strings;
    parser.error on a malformed one."""
    variants = []
    for spec in specs:
        name, sep, rest = spec.partition("=")
        directory, _, chip = rest.partition("@")
        if not sep or not name or not directory:
            parser.error("--variant takes NAME=DIR or NAME=DIR@CHIP, got %r" % spec)
        if chip:
            try:
                fa_mlir.chips.parse_chip(chip)
            except ValueError as e:
                parser.error("--variant %s: %s" % (spec, e))
        cache = fa_mlir.kernels.KernelCache()
        cache.add_kernel_dir(directory)
        variants.append((name, cache, chip or None))
    return variants


def with_cache(cache, fn, chip=None):
    """fn run with fa_mlir's kernel lookups going to `cache` (and the plans
    fa_mlir.ops memoises by configuration kept apart per cache); `chip`:
    the chip the lookups name (FA_MLIR_CHIP for the call), None: unchanged.
    Graph capture records the kernels launched, so a call captured in a
    CUDA graph replays this variant's kernels."""
    plans = {}

    def call():
        saved = fa_mlir.kernels.default_cache, fa_mlir.ops._plans
        saved_chip = os.environ.get("FA_MLIR_CHIP")
        fa_mlir.kernels.default_cache, fa_mlir.ops._plans = cache, plans
        if chip:
            os.environ["FA_MLIR_CHIP"] = chip
        try:
            return fn()
        finally:
            fa_mlir.kernels.default_cache, fa_mlir.ops._plans = saved
            if chip:
                if saved_chip is None:
                    os.environ.pop("FA_MLIR_CHIP", None)
                else:
                    os.environ["FA_MLIR_CHIP"] = saved_chip
    return call
