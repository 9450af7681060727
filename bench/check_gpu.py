#!/usr/bin/env python3
"""GPU correctness of the compiled kernels against an fp32 reference.

For every case of configs.check_cases(), O and LSE of our kernel are compared
with attention computed in fp32 from the same fp16/bf16 inputs (the mask as
fa.attention defines it: bottom-right aligned causal mask and sliding window,
soft-capping as cap * tanh(scale * s / cap)). The pass criterion is
FlashAttention-2's own:

    max|O_ours - O_ref| <= 2 * max|O_torch - O_ref| + 1e-5

where O_torch is PyTorch's attention in the input precision: SDPA (math
backend, the same explicit mask), or, with a soft cap, which SDPA lacks, the
same computation as FlashAttention-2's test reference (scores, tanh and the
softmax output in the input dtype). LSE must match the fp32 reference within
1e-3 (absolute) where finite and exactly where -inf. Rows that see no key
must give O = 0 and LSE = -inf.

  check_gpu.py --kernels build/kernels [--json results.json] [--max-seqlen N]
Prints a table and exits non-zero if any case fails.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import configs
# The runtime lives in python_bindings/fa_mlir (pure Python, torch and
# cuda-python only); the GPU machine uses it from the source tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.reference import visible  # noqa: E402
from fa_mlir.runtime import Plan  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def visible_mask(nq, nk, c, device):
    """[nq, nk] bool: row i sees key j (fa.attention's bottom-right aligned
    causal mask and sliding window; the one definition in fa_mlir.reference)."""
    return visible(nq, nk, c["causal"], c.get("window"), device)


def scores(q, k, c, dtype):
    """Scaled (and soft-capped) scores in `dtype`, K/V heads repeated."""
    scale = c.get("scale") or 1.0 / math.sqrt(q.shape[-1])
    s = torch.matmul(q.to(dtype), k.to(dtype).transpose(-1, -2)) * scale
    if c.get("softcap"):
        s = torch.tanh(s / c["softcap"]) * c["softcap"]
    return s


def repeat_kv(q, k, v):
    group = q.shape[1] // k.shape[1]
    return k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)


def reference(q, k, v, c):
    """fp32 attention and LSE; rows that see no key give O = 0, LSE = -inf."""
    k, v = repeat_kv(q, k, v)
    s = scores(q, k, c, torch.float32)
    mask = visible_mask(q.shape[2], k.shape[2], c, q.device)
    s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    return torch.matmul(p, v.float()), lse


def torch_low_precision(q, k, v, c):
    """PyTorch's attention in the input precision."""
    k, v = repeat_kv(q, k, v)
    mask = visible_mask(q.shape[2], k.shape[2], c, q.device)
    if not c.get("softcap"):
        with sdpa_kernel(SDPBackend.MATH):
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=c.get("scale"))
        return o.nan_to_num(0.0)
    s = scores(q, k, c, q.dtype).masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0).to(q.dtype)
    return torch.matmul(p, v)


def cases():
    return [dict(c, **shape) for c, shape in configs.check_cases()]


def kernel_for(kernels, directory, c):
    name = configs.kernel_name(c)
    if name not in kernels:
        kernels[name] = Plan(directory, name)
    return kernels[name]


def run_case(kernel, c, seed):
    torch.manual_seed(seed)
    dt = DTYPES[c["dtype"]]
    # Soft-capping matters where scores are large: scale Q up for it.
    q = torch.randn(c["b"], c["hq"], c["nq"], c["d"], device="cuda", dtype=dt)
    if c.get("softcap"):
        q = q * 4
    k = torch.randn(c["b"], c["hkv"], c["nk"], c["d"], device="cuda", dtype=dt)
    v = torch.randn(c["b"], c["hkv"], c["nk"], c["d"], device="cuda", dtype=dt)
    # Poison the outputs: every element must be written.
    out = torch.full((c["b"], c["hq"], c["nq"], c["d"]), float("nan"), device="cuda", dtype=dt)
    lse = torch.full((c["b"], c["hq"], c["nq"]), float("nan"), device="cuda")
    kernel.attention(q, k, v, out, lse)
    torch.cuda.synchronize()
    o_ref, lse_ref = reference(q, k, v, c)
    o_torch = torch_low_precision(q, k, v, c)
    err = (out.float() - o_ref).abs().max().item() if out.numel() else 0.0
    if torch.isnan(out).any():
        err = float("nan")
    torch_err = (o_torch.float() - o_ref).abs().max().item() if out.numel() else 0.0
    finite = torch.isfinite(lse_ref)
    lse_ok = bool(torch.equal(torch.isinf(lse) & (lse < 0), ~finite))
    lse_err = (lse[finite] - lse_ref[finite]).abs().max().item() if finite.any() else 0.0
    ok = err <= 2 * torch_err + 1e-5 and lse_ok and lse_err <= 1e-3
    return ok, err, torch_err, lse_err, lse_ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default="build/kernels")
    p.add_argument("--json", help="write the per-case results here")
    p.add_argument("--max-seqlen", type=int, default=None,
                   help="only the cases with Nq and Nk at most this (for compute-sanitizer runs)")
    p.add_argument("--only", default="", help="only the cases whose kernel name contains this")
    p.add_argument("--present-only", action="store_true",
                   help="only the cases whose kernel is in --kernels (a directory holding "
                        "some of the configurations, e.g. those a change affects)")
    a = p.parse_args()
    kernels, rows, failures, worst = {}, [], 0, 0.0
    print("%-5s %-5s %-6s %-11s %-5s %4s %3s %3s %5s %5s | %10s %10s %6s %9s  %s" % (
        "d", "dtype", "causal", "window", "cap", "B", "Hq", "Hkv", "Nq", "Nk", "err", "torch_err",
        "ratio", "lse_err", "ok"))
    start = time.time()
    for i, c in enumerate(cases()):
        if a.max_seqlen is not None and max(c["nq"], c["nk"]) > a.max_seqlen:
            continue
        if a.only not in configs.kernel_name(c):
            continue
        if a.present_only and not os.path.exists(
                os.path.join(a.kernels, configs.kernel_name(c) + ".json")):
            continue
        kernel = kernel_for(kernels, a.kernels, c)
        ok, err, torch_err, lse_err, lse_ok = run_case(kernel, c, seed=i)
        ratio = err / torch_err if torch_err > 0 else (0.0 if err == 0 else float("inf"))
        worst = max(worst, ratio) if not math.isnan(ratio) else float("nan")
        failures += not ok
        rows.append(dict(c, err=err, torch_err=torch_err, ratio=ratio, lse_err=lse_err, ok=ok))
        print("%-5d %-5s %-6s %-11s %-5s %4d %3d %3d %5d %5d | %10.3g %10.3g %6.2f %9.2g  %s%s" % (
            c["d"], c["dtype"], c["causal"], "%d,%d" % c["window"] if c["window"] else "-",
            "%g" % c["softcap"] if c["softcap"] else "-", c["b"], c["hq"], c["hkv"], c["nq"], c["nk"],
            err, torch_err, ratio, lse_err, "PASS" if ok else "FAIL",
            "" if lse_ok else " (LSE -inf pattern differs)"))
    print("%d cases, %d failed, worst err/torch_err ratio %.3f, %.1f s" % (
        len(rows), failures, worst, time.time() - start))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(cases=rows, failures=failures, worst_ratio=worst,
                           device=torch.cuda.get_device_name()), f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
