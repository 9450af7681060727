#!/usr/bin/env python3
"""A/B timing of kernel variants (e.g. two compiler builds) in one process.

For each FlashAttention-2 paper shape (batch x seqlen = 16384, hidden 2048,
fp16/bf16, causal or not), every variant and SDPA-FLASH is checked against
SDPA-FLASH's output, then timed `--repeats` times, interleaved: in round r
the variants run in an order rotated by r, so a drift of the GPU (clocks,
power) falls on all of them alike. Each timing is a median of
triton.testing.do_bench (or do_bench_cudagraph for kernels under 100 us, so
that launch gaps do not count); the table reports the median of the rounds.
The first variant is also timed a second time in every round ("<name>~"):
the spread between the two is the noise floor of the run.

Variants: NAME=plan:DIR (kernels with launch plans, fa_mlir.runtime.Plan) or
NAME=legacy:DIR (kernels of commit ffb817e and before,
legacy_runtime.Kernel).

  ab_compare.py --variant new=plan:../build/kernels \\
      --variant old=legacy:../build/kernels-ffb817e --json ab.json
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from bench import DTYPES, TOLERANCE, Plan, flops, shape_list

SHORT_MS = 0.1  # Kernels shorter than this are timed through CUDA graphs.


def flash(q, k, v, causal):
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def make_variant(spec, d, dtype, causal, heads):
    kind, directory = spec.split(":", 1)
    mask = "causal" if causal else "full"
    if kind == "plan":
        plan = Plan(directory, "fa_d%d_%s_%s_h%dx%d_kernel" % (d, dtype, mask, heads, heads))
        return lambda q, k, v, out, lse: plan.attention(q, k, v, out, lse)
    if kind == "legacy":
        from legacy_runtime import Kernel
        kernel = Kernel(directory, "fa_d%d_%s_%s_g1_kernel" % (d, dtype, mask))
        return lambda q, k, v, out, lse: kernel(q, k, v, out, lse)
    raise ValueError("variant kind must be plan or legacy: %s" % spec)


def time_ms(fn):
    ms = triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
    if ms < SHORT_MS:
        with torch.cuda.stream(torch.cuda.Stream()):
            ms = triton.testing.do_bench_cudagraph(fn, rep=50, return_mode="median")
    return ms


def run_shape(variants, d, b, h, n, dtype, causal, repeats, unchecked=()):
    torch.manual_seed(0)
    dt = DTYPES[dtype]
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dt) for _ in range(3))
    ref = flash(q, k, v, causal)
    calls, row = {}, dict(d=d, batch=b, heads=h, seqlen=n, dtype=dtype, causal=causal)
    for name, spec in variants.items():
        fn = make_variant(spec, d, dtype, causal, h)
        out = torch.empty_like(q)
        lse = torch.empty(b, h, n, device="cuda")
        fn(q, k, v, out, lse)
        torch.cuda.synchronize()
        err = (out.float() - ref.float()).abs().max().item()
        row.setdefault("errors", {})[name] = err
        if not err <= TOLERANCE[dtype] and name not in unchecked:
            raise RuntimeError("%s: wrong result at d=%d N=%d %s causal=%d: max |diff| %.3g" % (
                name, d, n, dtype, causal, err))
        calls[name] = lambda fn=fn, out=out, lse=lse: fn(q, k, v, out, lse)
    first = next(iter(variants))
    calls[first + "~"] = calls[first]
    calls["sdpa_flash"] = lambda: flash(q, k, v, causal)
    names = list(calls)
    times = {name: [] for name in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            times[name].append(time_ms(calls[name]))
    f = flops(b, h, n, d, causal)
    for name in names:
        ms = statistics.median(times[name])
        row[name] = dict(ms=ms, tflops=f / ms / 1e9, rounds=times[name])
    return row


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", action="append", required=True, help="NAME=plan:DIR or NAME=legacy:DIR")
    p.add_argument("--seqlens", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    p.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--unchecked", nargs="*", default=[],
                   help="variants timed even when their results are wrong (probes that "
                        "remove a synchronisation by hand); their errors are in the JSON")
    p.add_argument("--json")
    a = p.parse_args()
    variants = dict(v.split("=", 1) for v in a.variant)
    names = list(variants)
    base, new = names[-1], names[0]
    start = time.time()
    rows = []
    for d, b, h, n in shape_list(a.seqlens, a.head_dims):
        for dtype in a.dtypes:
            for causal in (False, True):
                row = run_shape(variants, d, b, h, n, dtype, causal, a.repeats, a.unchecked)
                rows.append(row)
                cells = " ".join("%s %6.1f" % (k, row[k]["tflops"]) for k in names + [new + "~", "sdpa_flash"])
                print("d=%3d N=%5d %-4s causal=%d | %s | %s/%s %.3f" % (
                    d, n, dtype, causal, cells, new, base,
                    row[new]["tflops"] / row[base]["tflops"]), flush=True)
    summary = {}
    if len(names) > 1:
        for d in sorted({r["d"] for r in rows}) + ["all"]:
            sel = [r for r in rows if d == "all" or r["d"] == d]
            summary[str(d)] = dict(
                geomean_ratio=geomean([r[new]["tflops"] / r[base]["tflops"] for r in sel]),
                min_ratio=min(r[new]["tflops"] / r[base]["tflops"] for r in sel),
                max_ratio=max(r[new]["tflops"] / r[base]["tflops"] for r in sel))
    noise = [abs(r[new + "~"]["ms"] / r[new]["ms"] - 1) for r in rows]
    summary["noise"] = dict(median=statistics.median(noise), max=max(noise))
    for key, value in summary.items():
        print(key, json.dumps(value))
    print("%.0f s" % (time.time() - start))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(rows=rows, variants=variants, summary=summary, repeats=a.repeats,
                           device=torch.cuda.get_device_name(), torch=torch.__version__,
                           date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
