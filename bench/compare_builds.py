#!/usr/bin/env python3
"""Times kernels from several compiler builds side by side with SDPA-FLASH.

When a change to a pass is meant to make the kernel faster, compile the same
kernels with the old and the new compiler into two directories and time both
in one run (same GPU state, same inputs, outputs checked as in bench.py):

  compare_builds.py --builds base=build/cmp/base new=build/cmp/new \
      --seqlens 1024 4096 16384 --dtypes f16
"""
import argparse
import json
import sys
import time

import torch

from bench import SDPA_BACKENDS, bench_shape, our_impl, sdpa, shape_list


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--builds", nargs="+", required=True, help="NAME=KERNEL_DIR ...")
    p.add_argument("--seqlens", type=int, nargs="+", default=[1024, 4096, 16384])
    p.add_argument("--dtypes", nargs="+", default=["f16"])
    p.add_argument("--json")
    a = p.parse_args()
    builds = dict(b.split("=", 1) for b in a.builds)
    rows = []
    start = time.time()
    for d, b, h, n in shape_list(a.seqlens):
        for dtype in a.dtypes:
            for causal in (False, True):
                impls = {name: our_impl(path, d, dtype, causal) for name, path in builds.items()}
                flash = SDPA_BACKENDS["sdpa_flash"]
                impls["sdpa_flash"] = lambda q, k, v, c: sdpa(flash, q, k, v, c)
                row = bench_shape(impls, d, b, h, n, dtype, causal)
                rows.append(row)
                ref = row["sdpa_flash"].get("tflops", float("nan"))
                cells = " ".join("%s %6.1f (%.3f)" % (name, row[name]["tflops"], row[name]["tflops"] / ref)
                                 if "tflops" in row[name] else "%s err" % name for name in builds)
                print("d=%3d N=%5d %-4s causal=%d | flash %6.1f | %s" % (d, n, dtype, causal, ref, cells),
                      flush=True)
    print("%.0f s" % (time.time() - start))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(rows=rows, builds=builds, device=torch.cuda.get_device_name(),
                           date=time.strftime("%Y-%m-%d")), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
