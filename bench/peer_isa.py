#!/usr/bin/env python3
"""Which tensor-core instructions the Triton peer kernel compiles to on this
GPU: prints the Triton target and counts of mma.sync / wgmma in its PTX."""
import torch

import triton_fa2

for d in (64, 128):
    q = torch.randn(1, 2, 256, d, device="cuda", dtype=torch.float16)
    triton_fa2.attention(q, q, q)
    torch.cuda.synchronize()
kernel = triton_fa2._fa2_forward
for key, compiled in kernel.device_caches[0][0].items() if hasattr(kernel, "device_caches") else []:
    ptx = compiled.asm["ptx"]
    target = [l for l in ptx.splitlines() if l.startswith(".target")]
    print(target, "wgmma:", ptx.count("wgmma.mma_async"), "mma.sync:", ptx.count("mma.sync"))
