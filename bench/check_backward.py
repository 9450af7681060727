#!/usr/bin/env python3
"""GPU correctness, determinism and speed of the backward kernels.

Runs the kernel sets of compile_backward.py (one launch plan each: the D,
dK/dV and dQ kernels) on random inputs and checks dQ, dK, dV against torch
autograd on fp32 copies with FlashAttention-2's criterion, per gradient:

    max|g_ours - g_ref| <= 2 * max|g_torch - g_ref| + 1e-5

Cases without a window or a soft cap (and causal ones with Nq = Nk) also
report SDPA FLASH's errors on the same inputs (`flash`: dQ, dK, dV), for
comparison only.

where g_torch is the same reference computed in the input dtype (scores,
softmax and products in fp16/bf16, as FlashAttention-2's tests do). O and LSE
come from the fp32 forward (O rounded to the dtype). Each case runs twice:
for a deterministic plan (dq=deterministic: no atomics) the gradients must
be bitwise equal; for the atomic dQ (a dq_accum workspace) dK and dV must,
and whether dQ is is reported. With
--bench, the FlashAttention-2 paper shapes are timed against SDPA FLASH's
and cuDNN's backward (CUDA events, interleaved, medians of --repeats).

  check_backward.py --kernels build/bwk [--json out.json] [--bench]
"""
import argparse
import json
import math
import os
import statistics
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from timing import interleaved_times

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.reference import visible  # noqa: E402
from fa_mlir.runtime import Plan  # noqa: E402

DT = {"f16": torch.float16, "bf16": torch.bfloat16}


def reference(q, k, v, causal, window, softcap, scale, dtype):
    """(O, LSE) in `dtype` with autograd; rows that see no key give O = 0."""
    group = q.shape[1] // k.shape[1]
    kk = k.repeat_interleave(group, dim=1)
    vv = v.repeat_interleave(group, dim=1)
    s = torch.matmul(q, kk.transpose(-1, -2)) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    mask = visible(q.shape[2], k.shape[2], causal, window, device=q.device)
    any_key = mask.any(-1, keepdim=True)
    s = torch.where(mask, s, float("-inf"))
    lse = torch.logsumexp(s.float(), -1)
    s = torch.where(any_key, s, torch.zeros_like(s))  # No NaN in empty rows.
    p = torch.where(mask, torch.softmax(s, -1), torch.zeros_like(s))
    return torch.matmul(p.to(dtype), vv), lse


def grads(q, k, v, do, c, dtype):
    leaves = [t.detach().to(dtype).requires_grad_() for t in (q, k, v)]
    o, lse = reference(*leaves, c["causal"], c["window"], c["softcap"], c["scale"], dtype)
    gq, gk, gv = torch.autograd.grad(o, leaves, do.to(dtype))
    return (gq, gk, gv), o.detach(), lse.detach()


def run_case(plan, c, b, nq, nk, seed):
    torch.manual_seed(seed)
    dt = DT[c["dtype"]]
    d = c["d"]
    q = torch.randn(b, c["hq"], nq, d, device="cuda", dtype=dt)
    k = torch.randn(b, c["hkv"], nk, d, device="cuda", dtype=dt)
    v = torch.randn(b, c["hkv"], nk, d, device="cuda", dtype=dt)
    do = torch.randn(b, c["hq"], nq, d, device="cuda", dtype=dt)
    ref, o32, lse = grads(q, k, v, do, c, torch.float32)
    low, _, _ = grads(q, k, v, do, c, dt)
    o = o32.to(dt)
    outs = []
    for _ in range(2):
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        plan(q=q, k=k, v=v, o=o, do=do, lse=lse.contiguous(), dq=dq, dk=dk, dv=dv)
        outs.append((dq, dk, dv))
    torch.cuda.synchronize()
    result = dict(name=c["name"], b=b, nq=nq, nk=nk, ok=True)
    for i, g in enumerate("dq dk dv".split()):
        ours = outs[0][i].float()
        err = (ours - ref[i]).abs().max().item()
        base = (low[i].float() - ref[i]).abs().max().item()
        result[g] = [err, base]
        if not (err <= 2 * base + 1e-5) or math.isnan(err):
            result["ok"] = False
    if not c["window"] and not c["softcap"] and (not c["causal"] or nq == nk):
        # SDPA FLASH (FlashAttention-2's kernels) on the same inputs,
        # measured with the same criterion (K and V repeated for GQA; its
        # causal mask is top-left aligned, ours bottom-right: only Nq = Nk):
        # where ours fails, whether FlashAttention-2's algorithm passes.
        result["flash"] = flash_errors(q, k, v, do, c, ref)
    result["deterministic"] = all(torch.equal(x, y) for x, y in zip(*outs))
    # dK and dV have no atomics in either form.
    fixed_order = all(torch.equal(x, y) for x, y in zip(outs[0][1:], outs[1][1:]))
    atomic = any(w["name"] == "dq_accum" for w in plan.plan.plan["workspaces"])
    result["atomic_dq"] = atomic
    result["ok"] = result["ok"] and fixed_order and (atomic or result["deterministic"])
    return result


def flash_errors(q, k, v, do, c, ref):
    """Max errors of SDPA FLASH's dQ, dK, dV against `ref`, or None where
    the backend refuses the case."""
    group = q.shape[1] // k.shape[1]
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    kk, vv = (t.repeat_interleave(group, dim=1) for t in leaves[1:])
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            o = torch.nn.functional.scaled_dot_product_attention(
                leaves[0], kk, vv, is_causal=c["causal"], scale=c["scale"])
        got = torch.autograd.grad(o, leaves, do)
    except RuntimeError:
        return None
    return [(g.float() - r).abs().max().item() for g, r in zip(got, ref)]


def time_ms(fn, repeats=20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / repeats


def bench(plans, configs, repeats, variants=()):
    """`variants`: (name, {config name: plan}) timed beside ours."""
    rows = []
    for d, h in ((64, 32), (128, 16)):
        for causal in (False, True):
            cfg = next((c for c in configs if c["d"] == d and c["dtype"] == "bf16" and
                        c["hq"] == c["hkv"] == 4 and c["causal"] == causal and not c["window"]
                        and not c["softcap"]), None)
            if cfg is None:
                continue  # Not among the --only configurations.
            for n in (1024, 2048, 4096, 8192):
                b = 16384 // n
                torch.manual_seed(0)
                mk = lambda: torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)  # noqa: E731
                q, k, v, do = mk(), mk(), mk(), mk()
                # Our plan has 4 heads compiled in: run it on [b * h / 4, 4, n, d] views.
                qv = lambda t: t.view(b * h // 4, 4, n, d)  # noqa: E731
                out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                lse = torch.zeros(b, h, n, device="cuda")  # Timing only: any finite LSE.
                dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
                def call(plan):
                    return lambda: plan(q=qv(q), k=qv(k), v=qv(v), o=qv(out), do=qv(do),
                                        lse=lse.view(b * h // 4, 4, n), dq=qv(dq), dk=qv(dk),
                                        dv=qv(dv))
                ours = call(plans[cfg["name"]])
                peers = {vname: call(vplans[cfg["name"]]) for vname, vplans in variants
                         if cfg["name"] in vplans}
                for name, backend in (("flash", SDPBackend.FLASH_ATTENTION),
                                      ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
                    try:
                        with sdpa_kernel(backend):
                            y = torch.nn.functional.scaled_dot_product_attention(
                                *leaves, is_causal=causal)
                        peers[name] = (lambda y=y, leaves=leaves: torch.autograd.grad(
                            y, leaves, do, retain_graph=True))
                    except RuntimeError:
                        pass
                # Rotated order each repeat (timing.interleaved_times): with
                # "ours" always first, whichever plan held that place ran
                # 2-5 % slower at N >= 4k on an H100 (2026-12-05, after
                # cuDNN's backward: docs/performance.md, "L2 prefetch").
                times = interleaved_times(dict(ours=ours, **peers), repeats, timer=time_ms)
                flops = 2.5 * 4 * b * h * n * n * d * (0.5 if causal else 1.0)
                row = dict(d=d, causal=causal, n=n, b=b, h=h)
                for name, ts in times.items():
                    ms = statistics.median(ts)
                    row[name] = dict(ms=ms, tflops=flops / ms / 1e9,
                                     spread=(max(ts) - min(ts)) / ms)
                rows.append(row)
                print("d=%d causal=%d n=%5d  " % (d, causal, n) + "  ".join(
                    "%s %.3f ms %.0f TF/s" % (k, row[k]["ms"], row[k]["tflops"])
                    for k in times), flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", required=True)
    p.add_argument("--json")
    p.add_argument("--bench", action="store_true")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--only", default="", help="only the configurations whose name has this")
    p.add_argument("--shapes", type=int, default=5, help="at most this many shapes per config")
    p.add_argument("--variants", nargs="*", default=[], metavar="NAME=DIR",
                   help="other kernel sets (compile_backward.py) timed beside --kernels")
    a = p.parse_args()
    configs = json.load(open(os.path.join(a.kernels, "configs.json")))
    plans = {}
    results = []
    shapes = [(2, 128, 128), (1, 1000, 1000), (2, 257, 511), (1, 700, 300), (1, 64, 1)]
    configs = [c for c in configs if a.only in c["name"]]
    shapes = shapes[:a.shapes]
    for i, c in enumerate(configs):
        c["scale"] = 1.0 / math.sqrt(c["d"])
        if c["window"]:
            c["window"] = tuple(c["window"])
        plans[c["name"]] = Plan(os.path.join(a.kernels, c["name"]), "bwd_kernel")
        for j, (b, nq, nk) in enumerate(shapes):
            if (i + j) % 2 and j > 1:
                continue  # Every config runs 3 or 5 shapes; 40+ cases overall.
            r = run_case(plans[c["name"]], c, b, nq, nk, seed=i * 10 + j)
            results.append(r)
            fl = r.get("flash")
            print("%-4s %-26s b=%d nq=%4d nk=%4d  dq %.2e/%.2e dk %.2e/%.2e dv %.2e/%.2e det=%d%s" % (
                "ok" if r["ok"] else "FAIL", r["name"], b, nq, nk, *r["dq"], *r["dk"], *r["dv"],
                r["deterministic"],
                "  flash %.2e %.2e %.2e" % tuple(fl) if fl else ""), flush=True)
    failed = [r for r in results if not r["ok"]]
    print("%d cases, %d failed" % (len(results), len(failed)))
    out = dict(cases=results, device=torch.cuda.get_device_name())
    if a.bench:
        variants = []
        for spec in a.variants:
            vname, vdir = spec.split("=", 1)
            variants.append((vname, {c["name"]: Plan(os.path.join(vdir, c["name"]), "bwd_kernel")
                                     for c in configs
                                     if os.path.isfile(os.path.join(vdir, c["name"],
                                                                    "bwd_kernel.json"))}))
        out["bench"] = bench(plans, configs, a.repeats, variants)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
