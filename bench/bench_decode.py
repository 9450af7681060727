#!/usr/bin/env python3
"""Decode steps (Nq = 1 against a long K/V cache) in one run, side by side
with SDPA's FLASH and cuDNN backends: the inference shape of the "inference
shapes" issue: the single-query kernel (GQA packing), its split-KV variants
(`--options splits=S`, two kernels and workspaces) and others tried for it.

Shape: B sequences, Hq query heads over Hkv key/value heads (GQA), one query
each, Nk keys, head dim D, bf16, causal (with Nq = 1 the same as no mask).
A decode step is bound by memory, so the figure is GB/s: the bytes of Q, K,
V, O and LSE read or written once, over the time (CUDA graphs below 100 us,
3+ interleaved repeats, medians; bench_features.time_ms).

  # compiler machine: the two kernels (static Nq = 1, and dynamic Nq)
  compile_kernels.py --decode --out build/decode
  # GPU machine
  bench_decode.py --kernels ../build/decode [--variants NAME=DIR ...]

Variants are other builds of the kernels (e.g. `compile_kernels.py --decode
--options "splits=8" --out build/decode-kv8`): a variant's single-query
kernel if it has one, else its dynamic-Nq kernel. The dynamic-Nq kernel of
--kernels is timed too when that directory has it. `--runtime DIR` times
the split-KV kernels whose count is a run-time parameter (`--options
splits=0`) once per count of `--runtime-counts`, as `rt<S>`: one plan, the
count passed per call; `--runtime NAME=DIR` (repeatable) names them
`NAME<S>`, to compare two builds in one run.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import configs
from bench_features import interleaved, ours
from bench_features import Plan


def sdpa(backend, q, k, v):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default="../build/decode")
    p.add_argument("--variants", nargs="*", default=[], help="NAME=DIR: other builds of the kernel")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--heads", default="32x4", help="HqxHkv")
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--keys", type=int, nargs="+", default=[1024, 8192, 32768])
    p.add_argument("--runtime", action="append", default=[],
                   help="[NAME=]DIR of splits=0 kernels (run-time split count), timed as "
                        "NAME<S> (default name rt); repeat it to compare builds")
    p.add_argument("--runtime-counts", type=int, nargs="+", default=[2, 4, 8, 16, 32])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--unchecked", nargs="*", default=[],
                   help="variants timed without the sanity check (experiments that "
                        "are wrong on purpose, e.g. a barrier removed by hand)")
    p.add_argument("--json")
    a = p.parse_args()
    hq, hkv = map(int, a.heads.split("x"))
    b, d = a.batch, a.head_dim
    # Ours: the kernel compiled for one static query (the pipeline then
    # picks a 16-row Q block); "dynamic_nq": the same op with a dynamic Nq
    # (the table's 128-row block), as before the small-Nq rule.
    c = dict(configs.config(d, "bf16", True, hq, hkv), static_nq=1)
    dynamic = configs.config(d, "bf16", True, hq, hkv)
    rows = []
    for nk in a.keys:
        torch.manual_seed(0)
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, hkv, nk, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        out = torch.empty_like(q)
        # A sanity check only (check_gpu.py is the correctness test): SDPA's
        # FLASH output, since the fp32 math path would repeat K/V per query
        # head (hundreds of GB at long caches).
        try:
            ref = sdpa(SDPBackend.FLASH_ATTENTION, q, k, v)
        except Exception:  # A backend without this shape.
            ref = sdpa(SDPBackend.MATH, q.float(), k.float(), v.float()).to(torch.bfloat16)
        calls = {}
        runs = [("ours", a.kernels, c)]
        if os.path.exists(os.path.join(a.kernels, configs.kernel_name(dynamic) + ".json")):
            runs.append(("dynamic_nq", a.kernels, dynamic))
        # A variant's single-query kernel if it has one, else its dynamic-Nq one.
        for n, dr in (s.split("=", 1) for s in a.variants):
            has_static = os.path.exists(os.path.join(dr, configs.kernel_name(c) + ".json"))
            runs.append((n, dr, c if has_static else dynamic))
        for spec in a.runtime:
            label, _, rdir = spec.rpartition("=")
            rt = Plan(rdir, configs.kernel_name(c))
            for n in a.runtime_counts:
                runs.append(("%s%d" % (label or "rt", n), None,
                             lambda q, k, v, out, n=n, rt=rt: rt.attention(
                                 q, k, v, out, num_splits=n)[0]))
        for name, directory, config in runs:
            fn = ours(directory, config) if directory else config
            err = (fn(q, k, v, out).float() - ref.float()).abs().max().item()
            if not err <= 2e-2 and name not in a.unchecked:
                raise RuntimeError("%s Nk=%d: max |diff| %.3g against SDPA (fp32)" % (name, nk, err))
            calls[name] = lambda fn=fn: fn(q, k, v, out)
        for name, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION),
                              ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                sdpa(backend, q, k, v)
                calls[name] = lambda backend=backend: sdpa(backend, q, k, v)
            except Exception as e:  # A backend without this shape.
                print("%s: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
        ms = interleaved(calls, a.repeats)
        nbytes = 2 * (q.numel() + k.numel() + v.numel() + out.numel()) + 4 * b * hq
        row = dict(batch=b, hq=hq, hkv=hkv, d=d, nk=nk)
        for name, t in ms.items():
            row[name] = dict(ms=t, gbps=nbytes / t / 1e6)
        rows.append(row)
        print("decode B=%d h%dx%d d=%d Nk=%6d | %s" % (b, hq, hkv, d, nk, " ".join(
            "%s %.0f GB/s (%.1f us)" % (n, row[n]["gbps"], row[n]["ms"] * 1e3) for n in ms)), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
