#!/usr/bin/env python3
"""Forward + backward, and backward alone, of fa_mlir.attention (its
autograd: the forward plan, then the backward plan) against SDPA FLASH,
SDPA cuDNN and FlexAttention (torch.compile'd, with the same causal
block mask), on the FlashAttention-2 paper shapes: bf16, B * N = 16k
tokens, hidden 2048 (d64: 32 heads, d128: 16), causal or not.

FLOPs: forward 4 B H N^2 D (half for causal), backward 2.5x that, forward
+ backward 3.5x, for every implementation. CUDA events over 10 calls,
interleaved, median of --repeats. The kernels come from a kernel directory
(FA_MLIR_KERNEL_DIR), made where the compiler is with

  python -m fa_mlir.aot --out DIR --head-dims 64,128 --dtypes bf16 \\
      --heads 32:32,16:16 --causal both --backward both

  FA_MLIR_KERNEL_DIR=DIR python3 bench/bench_training.py [--json out.json]
"""
import argparse
import json
import math
import os
import statistics
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
import fa_mlir  # noqa: E402


def time_ms(fn, calls=10):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / calls


def implementations(causal, n):
    """name -> forward(q, k, v) (differentiable)."""
    impls = {"ours": lambda q, k, v: fa_mlir.attention(q, k, v, causal=causal)}
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION),
                          ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        def sdpa(q, k, v, backend=backend):
            with sdpa_kernel(backend):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                        is_causal=causal)
        impls[name] = sdpa
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        torch._dynamo.config.recompile_limit = 64  # else a silent unfused fallback
        # The backward-alone timing calls backward repeatedly on one graph.
        torch._functorch.config.donated_buffer = False
        flex = torch.compile(flex_attention, dynamic=False)
        mask = None
        if causal:
            mask = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, n, n,
                                     device="cuda")
        impls["flex"] = lambda q, k, v: flex(q, k, v, block_mask=mask)
    except Exception as e:  # noqa: BLE001 - report, time the others
        print("flex unavailable: %s" % e, file=sys.stderr)
    return impls


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json")
    a = p.parse_args()
    rows = []
    for d, h in ((64, 32), (128, 16)):
        for causal in (False, True):
            for n in (1024, 2048, 4096, 8192):
                b = 16384 // n
                torch.manual_seed(0)
                q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
                           .requires_grad_() for _ in range(3))
                do = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
                impls = implementations(causal, n)
                fwd_bwd, bwd, grads = {}, {}, {}
                for name, f in impls.items():
                    def step(f=f):
                        return torch.autograd.grad(f(q, k, v), (q, k, v), do)
                    try:
                        grads[name] = step()
                    except Exception as e:  # noqa: BLE001
                        print("%s failed: %s" % (name, e), file=sys.stderr)
                        continue
                    y = f(q, k, v)
                    fwd_bwd[name] = step
                    bwd[name] = (lambda y=y: torch.autograd.grad(y, (q, k, v), do,
                                                                 retain_graph=True))
                times = {("fwd+bwd", m): [] for m in fwd_bwd}
                times.update({("bwd", m): [] for m in bwd})
                for _ in range(a.repeats):
                    for m in fwd_bwd:
                        times[("fwd+bwd", m)].append(time_ms(fwd_bwd[m]))
                        times[("bwd", m)].append(time_ms(bwd[m]))
                fwd_flops = 4.0 * b * h * n * n * d * (0.5 if causal else 1.0)
                row = dict(d=d, causal=causal, n=n, b=b, h=h)
                for (what, m), ts in times.items():
                    ms = statistics.median(ts)
                    flops = fwd_flops * (3.5 if what == "fwd+bwd" else 2.5)
                    row.setdefault(what, {})[m] = dict(
                        ms=ms, tflops=flops / ms / 1e9,
                        spread=(max(ts) - min(ts)) / ms)
                # Our gradients against FLASH's (a sanity check, not the criterion:
                # bench/check_backward.py and the GPU tests hold that).
                if "ours" in grads and "flash" in grads:
                    row["max_diff_vs_flash"] = max(
                        (x.float() - y.float()).abs().max().item()
                        for x, y in zip(grads["ours"], grads["flash"]))
                rows.append(row)
                if a.json:  # What is done so far survives a time limit.
                    with open(a.json, "w") as f:
                        json.dump(dict(rows=rows, partial=True), f, indent=1)
                print("d=%d causal=%d n=%5d  " % (d, causal, n) + "  ".join(
                    "%s %s %.2f ms %.0f TF/s" % (what, m, row[what][m]["ms"],
                                                 row[what][m]["tflops"])
                    for what in ("fwd+bwd", "bwd") for m in row[what]), flush=True)
    out = dict(rows=rows, device=torch.cuda.get_device_name(), torch=torch.__version__)
    for what in ("fwd+bwd", "bwd"):
        for d in (64, 128):
            for causal in (False, True):
                sel = [r for r in rows if r["d"] == d and r["causal"] == causal]
                for peer in ("flash", "cudnn", "flex"):
                    if all(peer in r[what] and "ours" in r[what] for r in sel):
                        g = math.exp(statistics.fmean(
                            math.log(r[what][peer]["ms"] / r[what]["ours"]["ms"]) for r in sel))
                        out.setdefault("geomean_speed_vs", {})["%s d%d %s %s" % (
                            what, d, "causal" if causal else "full", peer)] = g
                        print("%-8s d%-3d %-6s ours / %-5s speed %.3f" % (
                            what, d, "causal" if causal else "full", peer, g))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
