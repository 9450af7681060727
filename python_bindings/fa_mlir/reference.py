"""fa.attention's semantics in plain PyTorch (fp32): the tests' reference.

Bottom-right aligned causal mask and sliding window, soft cap as
cap * tanh(scale * s / cap), GQA by repeating K/V heads; a row that sees no
key gets O = 0 and LSE = -inf. Slow and memory-hungry (materialises the
scores): for tests only.
"""
import math

import torch


def visible(nq, nk, causal=False, window=None, device=None):
    """[nq, nk] bool: query row i sees key j."""
    i = torch.arange(nq, device=device)[:, None] + (nk - nq)
    j = torch.arange(nk, device=device)[None, :]
    left, right = window if window is not None else (-1, -1)
    if causal:
        right = 0
    mask = torch.ones(nq, nk, dtype=torch.bool, device=device)
    if right >= 0:
        mask &= j <= i + right
    if left >= 0:
        mask &= j >= i - left
    return mask


def attention_reference(q, k, v, causal=False, scale=None, window=None, softcap=None,
                        layout="bhnd", dtype=torch.float32):
    """(O, LSE) computed in `dtype`; O in `dtype`, in q's layout."""
    if layout == "bnhd":
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1).to(dtype)
    v = v.repeat_interleave(group, dim=1).to(dtype)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = torch.matmul(q.to(dtype), k.transpose(-1, -2)) * scale
    if softcap:
        s = torch.tanh(s / softcap) * softcap
    mask = visible(q.shape[2], k.shape[2], causal, window, q.device)
    s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    o = torch.matmul(p, v)
    if layout == "bnhd":
        o = o.transpose(1, 2)
    return o, lse


class ReferencePlan:
    """Stands in for a loaded kernel plan (runtime.LoadedPlan) in tests
    without a GPU: computes fa.attention with attention_reference from what
    the kernel would be passed (the scalars decoded back into a scale and a
    cap), and writes O and LSE in place."""

    def __init__(self, causal, window, capped):
        from .runtime.plan import LaunchPlan
        names = ["softcap_scale", "softmax_scale_log2"] if capped \
            else ["softmax_scale_log2"]
        self.plan = LaunchPlan({
            "format": "fa-mlir-launch-plan", "version": 1, "name": "reference",
            "chip": "none", "index_bitwidth": 32, "tensors": [], "workspaces": [],
            "kernels": [], "scalars": [{"name": n, "dtype": "f32", "value": 1.0}
                                       for n in names]})
        self.causal, self.capped = causal, capped
        self.window = None if window in (None, (-1, -1)) else tuple(window)
        self.calls = 0

    def __call__(self, q, k, v, o, lse, **scalars):
        from .runtime.plan import LOG2E
        self.calls += 1
        if self.capped:
            # tanh(softcap_scale * s) with the cap in the softmax's scale.
            if set(scalars) != {"softcap_scale", "softmax_scale_log2"}:
                raise AssertionError("a capped plan takes softcap_scale and softmax_scale_log2, "
                                     "got %s" % sorted(scalars))
            cap = scalars["softmax_scale_log2"] / LOG2E
            scale = scalars["softcap_scale"] * cap
        else:
            cap, scale = None, scalars["softmax_scale_log2"] / LOG2E
        out, l = attention_reference(q, k, v, self.causal, scale, self.window, cap)
        o.copy_(out)
        lse.copy_(l)


class ReferenceCachePlan(ReferencePlan):
    """A loaded K/V-cache plan's stand-in: each sequence b against its first
    clamp(key_lengths[b], 0, capacity) keys, gathered from the dense cache
    [B, Hkv, Nk, D] or through the block table from the pools [num_pages,
    page_size, Hkv, D]."""

    def __call__(self, q, k, v, key_lengths, o, lse, block_table=None, **scalars):
        calls = self.calls + 1
        for b in range(q.shape[0]):
            if block_table is None:
                n = min(max(int(key_lengths[b]), 0), k.shape[2])
                kb, vb = k[b:b + 1, :, :n], v[b:b + 1, :, :n]
            else:
                page = k.shape[1]
                n = min(max(int(key_lengths[b]), 0), block_table.shape[1] * page)
                pages = block_table[b, :(n + page - 1) // page].long()
                kb, vb = (t[pages].reshape(-1, *t.shape[2:])[:n].transpose(0, 1)[None]
                          for t in (k, v))
            super().__call__(q[b:b + 1], kb, vb, o[b:b + 1], lse[b:b + 1], **scalars)
        self.calls = calls


class ReferenceBackwardPlan:
    """Stands in for a loaded backward plan: the gradients of
    attention_reference (fp32 autograd) from what the kernels would be passed
    (the scalars decoded back into a scale and a cap), written in place."""

    def __init__(self, causal, window, capped):
        from .runtime.plan import LaunchPlan
        names = ["softmax_scale", "softmax_scale_log2"]
        if capped:
            names += ["softcap", "softcap_scale"]
        self.plan = LaunchPlan({
            "format": "fa-mlir-launch-plan", "version": 1, "name": "reference_backward",
            "chip": "none", "index_bitwidth": 32, "tensors": [], "workspaces": [],
            "kernels": [], "scalars": [{"name": n, "dtype": "f32", "value": 1.0}
                                       for n in names]})
        self.causal, self.capped = causal, capped
        self.window = None if window in (None, (-1, -1)) else tuple(window)
        self.calls = 0

    def __call__(self, q, k, v, o, do, lse, dq, dk, dv, **scalars):
        self.calls += 1
        scale, cap = scalars["softmax_scale"], scalars.get("softcap")
        leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
        with torch.enable_grad():
            out, _ = attention_reference(*leaves, self.causal, scale, self.window, cap)
            grads = torch.autograd.grad(out, leaves, do.float())
        for dest, g in zip((dq, dk, dv), grads):
            dest.copy_(g)


def use_reference_kernels(monkeypatch):
    """Makes fa_mlir.attention run ReferencePlans, on CPU tensors too
    (pytest's monkeypatch undoes it). Returns {configuration: plan}."""
    from . import ops
    plans = {}

    def plan_for(dtype, hq, hkv, d, dv, causal, window, capped, q_len=None, splits=1,
                 chip=None):
        key = (dtype, hq, hkv, d, dv, causal, window, capped, q_len, splits)
        return plans.setdefault(key, ReferencePlan(causal, window, capped))

    def backward_plan_for(dtype, hq, hkv, d, dv, causal, window, capped,
                          deterministic=False, chip=None):
        key = ("backward", dtype, hq, hkv, d, dv, causal, window, capped, deterministic)
        return plans.setdefault(key, ReferenceBackwardPlan(causal, window, capped))

    def cache_plan_for(dtype, hq, hkv, d, causal, window, capped, q_len, splits, page_size,
                       chip=None):
        key = ("kv-cache", dtype, hq, hkv, d, causal, window, capped, q_len, splits, page_size)
        return plans.setdefault(key, ReferenceCachePlan(causal, window, capped))

    monkeypatch.setattr(ops, "DEVICE_TYPES", ("cuda", "cpu"))
    monkeypatch.setattr(ops, "cache_plan_for", cache_plan_for)
    monkeypatch.setattr(ops, "plan_for", plan_for)
    monkeypatch.setattr(ops, "backward_plan_for", backward_plan_for)
    return plans
