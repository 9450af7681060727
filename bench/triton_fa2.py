"""A plain FlashAttention-2 forward kernel in Triton: the peer our compiler
is measured against next to PyTorch's SDPA backends.

Same contract as fa.attention: q [B, Hq, Nq, D], k/v [B, Hkv, Nk, D],
GQA by head index, causal bottom-right aligned, returns O and the natural-log
LSE. One program per (Q block, head, batch); the K/V loop runs first over
the blocks every row sees (no mask), then over the diagonal / tail blocks
(masked), like FlashAttention-2 and the Triton tutorial; Triton pipelines
the loads (num_stages).
"""
import math

import torch
import triton
import triton.language as tl

_LN2 = math.log(2.0)


@triton.jit
def _attend_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn,
                   lo, hi, offs_m, offs_n, offs_d, n_keys, causal_offset,
                   scale_log2, MASKED: tl.constexpr, CAUSAL: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    for start in range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        cols = start + offs_n
        if MASKED:
            k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None],
                        mask=cols[None, :] < n_keys, other=0.0)
        else:
            k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None])
        s = tl.dot(q, k)
        if MASKED:
            visible = cols[None, :] < n_keys
            if CAUSAL:
                visible = visible & (cols[None, :] <= offs_m[:, None] + causal_offset)
            s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1) * scale_log2)
        base = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.math.exp2(s * scale_log2 - base[:, None])
        alpha = tl.math.exp2(m_i - base)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if MASKED:
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :],
                        mask=cols[:, None] < n_keys, other=0.0)
        else:
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def _fa2_forward(Q, K, V, O, LSE, scale_log2, ln2,
                 sqb, sqh, sqn, skb, skh, skn, svb, svh, svn, sob, soh, son,
                 slb, slh, n_queries, n_keys,
                 GROUP: tl.constexpr, CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m, head, batch = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    kv_head = head // GROUP
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + batch * sqb + head * sqh + offs_m[:, None] * sqn + offs_d[None, :],
                mask=offs_m[:, None] < n_queries, other=0.0)
    k_base = K + batch * skb + kv_head * skh
    v_base = V + batch * svb + kv_head * svh
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)

    causal_offset = n_keys - n_queries
    q_start = pid_m * BLOCK_M
    if CAUSAL:
        full_end = tl.minimum(n_keys, tl.maximum(q_start + causal_offset + 1, 0))
        end = tl.minimum(n_keys, tl.maximum(q_start + BLOCK_M + causal_offset, 0))
    else:
        full_end = n_keys
        end = n_keys
    full_end = (full_end // BLOCK_N) * BLOCK_N
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                   0, full_end, offs_m, offs_n, offs_d, n_keys,
                                   causal_offset, scale_log2, False, CAUSAL, BLOCK_N)
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                   full_end, end, offs_m, offs_n, offs_d, n_keys,
                                   causal_offset, scale_log2, True, CAUSAL, BLOCK_N)

    seen = l_i > 0
    out = acc / tl.where(seen, l_i, 1.0)[:, None]
    lse = tl.where(seen, (m_i + tl.math.log2(tl.where(seen, l_i, 1.0))) * ln2, float("-inf"))
    rows = offs_m < n_queries
    tl.store(O + batch * sob + head * soh + offs_m[:, None] * son + offs_d[None, :],
             out.to(O.dtype.element_ty), mask=rows[:, None])
    tl.store(LSE + batch * slb + head * slh + offs_m, lse, mask=rows)


# (block_m, block_n, num_warps, num_stages) per head dim: the best of a small
# sweep on the H200 (bench/README.md), fixed so that timing excludes tuning.
CONFIGS = {64: (128, 64, 4, 3), 128: (128, 64, 8, 3)}


def attention(q, k, v, causal=False, config=None):
    """O, LSE of attention(q, k, v) with fa.attention's semantics."""
    batch, hq, nq, d = q.shape
    hkv, nk = k.shape[1], k.shape[2]
    assert hq % hkv == 0 and k.stride(3) == 1 and q.stride(3) == 1
    block_m, block_n, warps, stages = config or CONFIGS[d]
    o = torch.empty_like(q)
    lse = torch.empty(batch, hq, nq, device=q.device, dtype=torch.float32)
    scale_log2 = (1.0 / math.sqrt(d)) / _LN2
    grid = (triton.cdiv(nq, block_m), hq, batch)
    _fa2_forward[grid](q, k, v, o, lse, scale_log2, _LN2,
                       q.stride(0), q.stride(1), q.stride(2),
                       k.stride(0), k.stride(1), k.stride(2),
                       v.stride(0), v.stride(1), v.stride(2),
                       o.stride(0), o.stride(1), o.stride(2),
                       lse.stride(0), lse.stride(1), nq, nk,
                       GROUP=hq // hkv, CAUSAL=causal, HEAD_DIM=d,
                       BLOCK_M=block_m, BLOCK_N=block_n,
                       num_warps=warps, num_stages=stages)
    return o, lse
