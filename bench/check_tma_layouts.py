#!/usr/bin/env python3
"""Kernels whose launch plans take TMA tensor maps (docs/launch-plan.md,
`tensor_maps`; `--fa-to-ptx{chip=sm_90a atom=wgmma}`) on what the maps must
get right: [B, N, H, D] memory seen as [B, H, N, D] (strided), slices of a
bigger buffer (an offset base, padded rows), new tensors every call (the
runtime's map cache), and CUDA-graph capture and replay (the maps are
by-value parameters in the graph). Against an fp32 SDPA reference.

  check_tma_layouts.py --kernels DIR   (the h8x2 d64 f16 / d128 bf16 plans
                                        bench/compile_kernels.py writes)
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.runtime import Plan  # noqa: E402

p = argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--kernels", required=True)
D = p.parse_args().kernels
fails = 0
def ref(q, k, v, causal):
    rep = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(rep, 1); v = v.repeat_interleave(rep, 1)
    return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
def check(name, causal, q, k, v, tag):
    global fails
    plan = Plan(D, name)
    o, _ = plan.attention(q, k, v)
    torch.cuda.synchronize()
    if causal and q.shape[2] != k.shape[2]:
        return
    err = (o.float() - ref(q, k, v, causal)).abs().max().item()
    ok = err < 2e-2
    fails += not ok
    print("%-40s %-28s err %.4f %s" % (name, tag, err, "PASS" if ok else "FAIL"), flush=True)
for d, dt in ((64, torch.float16), (128, torch.bfloat16)):
    dn = "f16" if dt == torch.float16 else "bf16"
    for causal in (False, True):
        name = "fa_d%d_%s_%s_h8x2_kernel" % (d, dn, "causal" if causal else "full")
        if not os.path.exists(os.path.join(D, name + ".json")):
            print("missing", name); continue
        for n in (1, 63, 300, 1000):
            # [B, N, H, D] memory seen as [B, H, N, D].
            q = torch.randn(2, n, 8, d, device="cuda", dtype=dt).transpose(1, 2)
            k = torch.randn(2, n, 2, d, device="cuda", dtype=dt).transpose(1, 2)
            v = torch.randn(2, n, 2, d, device="cuda", dtype=dt).transpose(1, 2)
            check(name, causal, q, k, v, "BNHD n=%d" % n)
            # Slices of a bigger buffer (offset base, padded rows).
            big = torch.randn(3, 2, n + 40, d, device="cuda", dtype=dt)
            check(name, causal, torch.randn(2, 8, n, d, device="cuda", dtype=dt),
                  big[1:, :, 8:8 + n], big[1:, :, 16:16 + n].clone(), "sliced n=%d" % n)
        # CUDA graph: capture once, replay with new contents in the same buffers.
        plan = Plan(D, name)
        q = torch.randn(2, 8, 700, d, device="cuda", dtype=dt)
        k = torch.randn(2, 2, 700, d, device="cuda", dtype=dt)
        v = torch.randn(2, 2, 700, d, device="cuda", dtype=dt)
        o = torch.empty_like(q); lse = torch.empty(2, 8, 700, device="cuda")
        plan.attention(q, k, v, o, lse); torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(g, stream=s):
                plan.attention(q, k, v, o, lse, stream=s.cuda_stream)
        for _ in range(2):
            q.copy_(torch.randn_like(q)); k.copy_(torch.randn_like(k)); v.copy_(torch.randn_like(v))
            g.replay(); torch.cuda.synchronize()
            err = (o.float() - ref(q, k, v, causal)).abs().max().item()
            fails += err >= 2e-2
            print("%-40s %-28s err %.4f %s" % (name, "graph replay", err, "PASS" if err < 2e-2 else "FAIL"), flush=True)
print("failures", fails)
sys.exit(1 if fails else 0)
