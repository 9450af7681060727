#!/usr/bin/env python3
"""Compiles the kernels the GPU tests need (cases.needed_configs()) into a
kernel directory, on the compiler machine:

    python3 python_bindings/tests/gpu/aot_kernels.py --out build/aot-gpu-tests

--options "chip=sm_90a atom=wgmma" compiles every kernel with those fa-to-ptx
options on top of its own (a variant of the whole set in its own directory,
e.g. the GPU tests on the #fa.wgmma atom). A `chip` there is the chip of
the kernels' configurations too (as FA_MLIR_CHIP sets it), so that the
runtime finds them when the GPU tests run with the same FA_MLIR_CHIP:

    python3 python_bindings/tests/gpu/aot_kernels.py --out build/aot-wgmma \
        --options "chip=sm_90a atom=wgmma mbarrier-timeout-ms=5000"
    # on the GPU machine:
    FA_MLIR_CHIP=sm_90a FA_GPU_TEST_KERNELS=$PWD/build/aot-wgmma \
        bash scripts/gpu-python-check.sh gpu
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (puts python_bindings on sys.path)
from fa_mlir import compiler  # noqa: E402
from fa_mlir.kernels import KernelDir, describe  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    p.add_argument("--options", default="",
                   help="fa-to-ptx options (key=value, space separated) for every kernel")
    a = p.parse_args()
    extra = dict(kv.split("=", 1) for kv in a.options.split())
    if "chip" in extra:
        # The configurations read it (kernels.attention_config): a plan
        # compiled for another chip than its configuration's is refused
        # at lookup as a damaged entry.
        os.environ["FA_MLIR_CHIP"] = extra.pop("chip")
    version = compiler.version()
    target = KernelDir(a.out)
    start = time.perf_counter()
    todo = cases.needed_configs()
    for config in todo:
        t0 = time.perf_counter()
        hit = target.lookup(config)
        if hit and hit[2]["compiler_version"] == version:
            continue
        if hit:  # From another compiler: replace it.
            import shutil
            shutil.rmtree(target.entry_path(config))
        options = dict(config.pipeline_options(), **extra)
        target.store(config, compiler.compile(config.spec, options=options).plan(), version)
        print("  %5.2f s  %s" % (time.perf_counter() - t0, describe(config)), flush=True)
    target.write_index(version)
    print("%d kernels in %s (%.0f s), compiler %s" % (len(todo), a.out,
                                                      time.perf_counter() - start, version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
