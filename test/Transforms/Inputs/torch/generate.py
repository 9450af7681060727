#!/usr/bin/env python3
"""Regenerates the torch-mlir attention programs in this folder.

Not run by the tests (they use the checked-in .mlir files, so CI needs
neither PyTorch nor torch-mlir). To regenerate:

    python3 -m venv /tmp/tm && /tmp/tm/bin/pip install torch torch-mlir
    /tmp/tm/bin/python test/Transforms/Inputs/torch/generate.py OUTDIR

Each module is exported with torch_mlir.fx.export_and_import(...,
output_type="linalg-on-tensors") and written as OUTDIR/<name>.mlir.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch_mlir import fx


class Sdpa(torch.nn.Module):
    def __init__(self, causal=False, scale=None, gqa=False):
        super().__init__()
        self.causal, self.scale, self.gqa = causal, scale, gqa

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal,
                                              scale=self.scale,
                                              enable_gqa=self.gqa)


class ByHand(torch.nn.Module):
    """Attention as people write it: matmul, scale, tril mask, softmax."""

    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if self.causal:
            n = q.shape[-2]
            mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
            s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s, dim=-1) @ v


class ByHandGqa(torch.nn.Module):
    """Llama-style repeat_kv (expand + reshape) before the attention."""

    def __init__(self, group):
        super().__init__()
        self.group = group

    def forward(self, q, k, v):
        b, hkv, n, d = k.shape

        def repeat_kv(x):
            x = x[:, :, None, :, :].expand(b, hkv, self.group, n, d)
            return x.reshape(b, hkv * self.group, n, d)

        k, v = repeat_kv(k), repeat_kv(v)
        s = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(d))
        p = torch.softmax(s.float(), dim=-1).to(q.dtype)
        return torch.matmul(p, v)


class ByHandRepeatInterleave(torch.nn.Module):
    def __init__(self, group):
        super().__init__()
        self.group = group

    def forward(self, q, k, v):
        k = k.repeat_interleave(self.group, dim=1)
        v = v.repeat_interleave(self.group, dim=1)
        s = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        return torch.softmax(s, dim=-1) @ v


def export(name, module, shapes, dtype, outdir):
    torch.manual_seed(0)
    args = [torch.randn(*s, dtype=dtype) for s in shapes]
    m = fx.export_and_import(module, *args, output_type="linalg-on-tensors",
                             func_name=name)
    path = os.path.join(outdir, name + ".mlir")
    with open(path, "w") as f:
        f.write(str(m))
    print("wrote", path)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    qkv = [(1, 2, 8, 16)] * 3
    export("sdpa", Sdpa(), qkv, torch.float32, outdir)
    export("sdpa_causal", Sdpa(causal=True), qkv, torch.float32, outdir)
    export("sdpa_scale", Sdpa(scale=0.5), qkv, torch.float32, outdir)
    export("by_hand", ByHand(), qkv, torch.float32, outdir)
    export("by_hand_causal", ByHand(causal=True), qkv, torch.float32, outdir)
    gqa = [(1, 4, 8, 16), (1, 2, 8, 16), (1, 2, 8, 16)]
    export("by_hand_gqa_f16", ByHandGqa(2), gqa, torch.float16, outdir)
    export("by_hand_repeat_interleave", ByHandRepeatInterleave(2), gqa,
           torch.float32, outdir)
    export("sdpa_gqa", Sdpa(gqa=True), gqa, torch.float32, outdir)


if __name__ == "__main__":
    main()
