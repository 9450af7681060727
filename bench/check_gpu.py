#!/usr/bin/env python3
"""GPU correctness of the compiled kernels against an fp32 reference.

For every case, O and LSE of our kernel are compared with attention computed
in fp32 from the same fp16/bf16 inputs (bottom-right causal mask, as
fa.attention defines it). The pass criterion is FlashAttention-2's own:

    max|O_ours - O_ref| <= 2 * max|O_torch - O_ref| + 1e-5

where O_torch is PyTorch's own attention in the input precision (SDPA, math
backend, the same explicit mask). LSE must match the fp32 reference within
1e-3 (absolute) where finite and exactly where -inf. Rows that see no key
must give O = 0 and LSE = -inf.

  check_gpu.py --kernels build/kernels [--json results.json] [--max-seqlen N]
Prints a table and exits non-zero if any case fails.
"""
import argparse
import json
import math
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from fa_runtime import Plan

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def visible_mask(nq, nk, causal, device):
    """[nq, nk] bool: row i sees key j (bottom-right aligned causal mask)."""
    if not causal:
        return torch.ones(nq, nk, dtype=torch.bool, device=device)
    i = torch.arange(nq, device=device)[:, None]
    j = torch.arange(nk, device=device)[None, :]
    return j <= i + (nk - nq)


def reference(q, k, v, causal):
    """fp32 attention and LSE; rows that see no key give O = 0, LSE = -inf."""
    group = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(group, dim=1)
    v = v.float().repeat_interleave(group, dim=1)
    s = torch.matmul(q.float(), k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = visible_mask(q.shape[2], k.shape[2], causal, q.device)
    s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    return torch.matmul(p, v), lse


def torch_low_precision(q, k, v, causal):
    """PyTorch's attention in the input precision (math backend)."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    mask = visible_mask(q.shape[2], k.shape[2], causal, q.device)
    with sdpa_kernel(SDPBackend.MATH):
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return o.nan_to_num(0.0)


def cases():
    out = []
    for d in (64, 128):
        for dtype in ("f16", "bf16"):
            for causal in (False, True):
                for n in (1, 17, 128, 1000, 4096):
                    out.append(dict(d=d, dtype=dtype, causal=causal, b=2, hq=4, hkv=4, nq=n, nk=n))
                out.append(dict(d=d, dtype=dtype, causal=causal, b=2, hq=8, hkv=2, nq=100, nk=300))
                out.append(dict(d=d, dtype=dtype, causal=causal, b=2, hq=8, hkv=2, nq=300, nk=100))
                out.append(dict(d=d, dtype=dtype, causal=causal, b=3, hq=8, hkv=1, nq=513, nk=513))
    return out


def kernel_for(kernels, directory, c):
    name = "fa_d%d_%s_%s_h%dx%d_kernel" % (c["d"], c["dtype"], "causal" if c["causal"] else "full",
                                            c["hq"], c["hkv"])
    if name not in kernels:
        kernels[name] = Plan(directory, name)
    return kernels[name]


def run_case(kernel, c, seed):
    torch.manual_seed(seed)
    dt = DTYPES[c["dtype"]]
    q = torch.randn(c["b"], c["hq"], c["nq"], c["d"], device="cuda", dtype=dt)
    k = torch.randn(c["b"], c["hkv"], c["nk"], c["d"], device="cuda", dtype=dt)
    v = torch.randn(c["b"], c["hkv"], c["nk"], c["d"], device="cuda", dtype=dt)
    # Poison the outputs: every element must be written.
    out = torch.full((c["b"], c["hq"], c["nq"], c["d"]), float("nan"), device="cuda", dtype=dt)
    lse = torch.full((c["b"], c["hq"], c["nq"]), float("nan"), device="cuda")
    kernel.attention(q, k, v, out, lse)
    torch.cuda.synchronize()
    o_ref, lse_ref = reference(q, k, v, c["causal"])
    o_torch = torch_low_precision(q, k, v, c["causal"])
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
    a = p.parse_args()
    kernels, rows, failures, worst = {}, [], 0, 0.0
    print("%-5s %-5s %-6s %4s %3s %3s %5s %5s | %10s %10s %6s %9s  %s" % (
        "d", "dtype", "causal", "B", "Hq", "Hkv", "Nq", "Nk", "err", "torch_err", "ratio", "lse_err", "ok"))
    start = time.time()
    for i, c in enumerate(cases()):
        if a.max_seqlen is not None and max(c["nq"], c["nk"]) > a.max_seqlen:
            continue
        kernel = kernel_for(kernels, a.kernels, c)
        ok, err, torch_err, lse_err, lse_ok = run_case(kernel, c, seed=i)
        ratio = err / torch_err if torch_err > 0 else (0.0 if err == 0 else float("inf"))
        worst = max(worst, ratio) if not math.isnan(ratio) else float("nan")
        failures += not ok
        rows.append(dict(c, err=err, torch_err=torch_err, ratio=ratio, lse_err=lse_err, ok=ok))
        print("%-5d %-5s %-6s %4d %3d %3d %5d %5d | %10.3g %10.3g %6.2f %9.2g  %s%s" % (
            c["d"], c["dtype"], c["causal"], c["b"], c["hq"], c["hkv"], c["nq"], c["nk"],
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
