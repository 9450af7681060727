"""fa_mlir.attention_varlen on the GPU against an fp32 reference.

Sequences of different lengths packed along the tokens (FlashAttention's
flash_attn_varlen_func conventions): each sequence is checked on its own
against fp32 attention of its own rows and keys, with FlashAttention-2's
criterion (max|O - O_ref| <= 2 * max|O_torch - O_ref| + 1e-5); LSE within
1e-3 where finite and -inf exactly where it is; a sequence without keys
gives O = 0. Cases: sequences of 0 queries or 0 keys, Nq != Nk within a
sequence (both ways, causal bottom-right per sequence), 1..8192-query
mixes, GQA/MQA/MHA, window, soft cap, unused keys past the last sequence.
"""
import zlib

import pytest

torch = pytest.importorskip("torch")

import cases  # noqa: E402
import fa_mlir  # noqa: E402
from fa_mlir.reference import attention_reference  # noqa: E402
from test_attention import low_precision  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def lengths_of(shape, gen):
    if isinstance(shape, str):
        _, count, most = shape.split(":")
        nq = torch.randint(1, int(most) + 1, (int(count),), generator=gen).tolist()
        nk = [n + int(torch.randint(0, 64, (1,), generator=gen)) for n in nq]
        return nq, nk
    return shape


def cu(lengths):
    return torch.tensor([0] + list(torch.tensor(lengths).cumsum(0).tolist()),
                        dtype=torch.int32, device=cases.DEVICE)


def params():
    for case, shapes in cases.VARLEN_MATRIX:
        for i, shape in enumerate(shapes):
            dtype, hq, hkv, d, causal, window, cap = case
            yield pytest.param(case, shape, id="%s-h%dx%d-d%d-%s-w%s-cap%s-%d" % (
                dtype, hq, hkv, d, "causal" if causal else "full", window, cap, i))


@pytest.mark.cuda_only
@pytest.mark.parametrize("case, shape", list(params()))
def test_varlen_against_fp32_reference(case, shape):
    dtype, hq, hkv, d, causal, window, cap = case
    gen = torch.Generator().manual_seed(zlib.crc32(repr((case, shape)).encode()))
    nq, nk = lengths_of(shape, gen)
    extra = 3  # Unused key rows after the last sequence's.
    dt = DTYPES[dtype]
    q = torch.randn(sum(nq), hq, d, generator=gen).to(cases.DEVICE, dt) * (4 if cap else 1)
    k = torch.randn(sum(nk) + extra, hkv, d, generator=gen).to(cases.DEVICE, dt)
    v = torch.randn(sum(nk) + extra, hkv, d, generator=gen).to(cases.DEVICE, dt)
    cu_q, cu_k = cu(nq), cu(nk)
    out, lse = fa_mlir.attention_varlen(q, k, v, cu_q, cu_k, max(nq), max(nk), causal=causal,
                                        window=window, softcap=cap, return_lse=True)
    cases.synchronize()
    assert out.shape == q.shape and lse.shape == (hq, sum(nq))
    assert not torch.isnan(out).any()
    qs, ks = cu_q.tolist(), cu_k.tolist()
    for s in range(len(nq)):
        if nq[s] == 0:
            continue
        rows = slice(qs[s], qs[s + 1])
        qb = q[rows].transpose(0, 1)[None]
        kb = k[ks[s]:ks[s + 1]].transpose(0, 1)[None]
        vb = v[ks[s]:ks[s + 1]].transpose(0, 1)[None]
        ob = out[rows].transpose(0, 1)[None]
        if nk[s] == 0:
            assert torch.equal(ob.float(), torch.zeros_like(ob.float())), s
            assert torch.isneginf(lse[:, rows]).all(), s
            continue
        o_ref, lse_ref = attention_reference(qb, kb, vb, causal, None, window, cap)
        o_torch = low_precision(qb, kb, vb, causal, window, cap)
        err = (ob.float() - o_ref).abs().max().item()
        torch_err = (o_torch.float() - o_ref).abs().max().item()
        assert err <= 2 * torch_err + 1e-5, (s, err, torch_err)
        finite = torch.isfinite(lse_ref[0])
        assert torch.equal(torch.isneginf(lse[:, rows]), ~finite), s
        if finite.any():
            assert (lse[:, rows][finite] - lse_ref[0][finite]).abs().max().item() <= 1e-3, s


@pytest.mark.cuda_only
@pytest.mark.parametrize("max_seqlen", [200, None, 1000])
def test_varlen_equal_lengths_match_the_dense_kernel(max_seqlen):
    """With max_seqlen_q = 200 the Q blocks are numbered per sequence
    (fa.varlen_block per_sequence: 2 slots a sequence, 6 blocks where the
    walk's bound is 5 + 3); without it, or with a bound the walk beats, by
    the walk. Both give the dense kernel's output."""
    case = cases.VARLEN_MATRIX[1][0]
    dtype, hq, hkv, d, causal, _, _ = case
    gen = torch.Generator().manual_seed(5)
    b, n = 3, 200
    dt = DTYPES[dtype]
    q = torch.randn(b, n, hq, d, generator=gen).to(cases.DEVICE, dt)
    k = torch.randn(b, n, hkv, d, generator=gen).to(cases.DEVICE, dt)
    v = torch.randn(b, n, hkv, d, generator=gen).to(cases.DEVICE, dt)
    seqs = cu([n] * b)
    out = fa_mlir.attention_varlen(q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1), seqs,
                                   seqs, max_seqlen, max_seqlen, causal=causal)
    ref = fa_mlir.attention(q, k, v, causal=causal, layout="bnhd")
    cases.synchronize()
    assert (out.view(b, n, hq, d).float() - ref.float()).abs().max().item() <= 2e-3


@pytest.mark.cuda_only
@pytest.mark.parametrize("index", range(len(cases.VARLEN_MATRIX)))
def test_a_sequences_rows_never_reach_another(index):
    """Keys and values of one sequence, even infinite or NaN, change no
    other sequence's output: the K/V blocks past a sequence's end (which a
    TMA box brings from the next sequence, fa.await zero_from) are zero
    when read. Sequences of 70 and 50 keys (not multiples of the K/V
    block), the second one's K and V poisoned, and unused poisoned rows
    after it; the first's output must equal it computed alone."""
    dtype, hq, hkv, d, causal, window, cap = cases.VARLEN_MATRIX[index][0]
    gen = torch.Generator().manual_seed(11)
    dt = DTYPES[dtype]
    nq, nk = [70, 50], [70, 50]
    q = torch.randn(sum(nq), hq, d, generator=gen).to(cases.DEVICE, dt)
    k = torch.randn(sum(nk) + 64, hkv, d, generator=gen).to(cases.DEVICE, dt)
    v = torch.randn(sum(nk) + 64, hkv, d, generator=gen).to(cases.DEVICE, dt)
    alone = fa_mlir.attention_varlen(q[:70], k[:70], v[:70], cu([70]), cu([70]), causal=causal,
                                     window=window, softcap=cap)
    k[70:], v[70:] = float("inf"), float("nan")
    out = fa_mlir.attention_varlen(q, k, v, cu(nq), cu(nk), causal=causal, window=window,
                                   softcap=cap)
    cases.synchronize()
    assert torch.equal(out[:70], alone)


TOO_SHORT = """
import sys
sys.path[:0] = %r
import torch, cases, fa_mlir
q = torch.randn(300, 8, 64, device=cases.DEVICE, dtype=torch.float16)
kv = torch.randn(300, 2, 64, device=cases.DEVICE, dtype=torch.float16)
cu = torch.tensor([0, 100, 300], dtype=torch.int32, device=cases.DEVICE)
fa_mlir.attention_varlen(q, kv, kv, cu, cu, 100, 200, causal=True)
torch.cuda.synchronize()
print("no error")
"""


@pytest.mark.cuda_only
def test_max_seqlen_below_a_sequence_length_is_a_cuda_error():
    """max_seqlen_q = 100 for sequences of 100 and 200 queries (a kernel of
    VARLEN_MATRIX's second case): the slots it gives a sequence (one of 128
    rows, or two of 64; fewer blocks than the walk's bound either way)
    cannot reach the second sequence's last rows, and the kernel traps (a
    CUDA error; in a process of its own, as it ends the context) instead of
    leaving them unwritten."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, "-c", TOO_SHORT % ([here] + sys.path,)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "no error" not in run.stdout, run.stdout + run.stderr
    assert "CUDA" in run.stderr or "cuda" in run.stderr, run.stderr[-2000:]
