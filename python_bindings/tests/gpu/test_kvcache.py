"""fa_mlir.attention_with_kvcache on the GPU against an fp32 reference.

Dense caches with per-sequence lengths and paged caches (page sizes 16, 64,
256, shuffled block tables whose unused entries hold a page number far
outside the pool, so a read of one faults), decode steps and short query
blocks, GQA/MQA/MHA, causal, window, soft cap, sequences without keys.
Each sequence is checked on its own, against fp32 attention of its own keys
(gathered here), with FlashAttention-2's criterion: max|O - O_ref| <= 2 *
max|O_torch - O_ref| + 1e-5, O_torch PyTorch's attention in the input
precision; LSE within 1e-3 where finite, -inf exactly where it is. A
sequence without keys must give O = 0 and LSE = -inf.
"""
import zlib

import pytest

torch = pytest.importorskip("torch")

import cases  # noqa: E402
import fa_mlir  # noqa: E402
from fa_mlir.reference import attention_reference  # noqa: E402
from test_attention import low_precision  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
GARBAGE_PAGE = 1 << 30
# Per-sequence lengths: random in [0, Nk_max] (one of them 0 when B > 2);
# all Nk_max; short, 1 to 64.
PATTERNS = ("random", "full", "short")


def lengths_for(pattern, b, nk, gen):
    if pattern == "full":
        return [nk] * b
    if pattern == "short":
        return torch.randint(1, min(nk, 64) + 1, (b,), generator=gen).tolist()
    out = torch.randint(0, nk + 1, (b,), generator=gen).tolist()
    if b > 2:
        out[1] = 0
    out[-1] = nk
    return out


def make_cache(case, b, nq, nk, lengths, gen):
    """q [B, Nq, Hq, D], the cache (dense [B, Nk, Hkv, D] or pools), the
    block table, and each sequence's keys and values [1, Hkv, n, D]."""
    dtype, hq, hkv, d, causal, window, cap, page_size = case
    dt = DTYPES[dtype]
    dev = cases.DEVICE
    q = torch.randn(b, nq, hq, d, generator=gen).to(dev, dt) * (4 if cap else 1)
    if page_size is None:
        k = torch.randn(b, nk, hkv, d, generator=gen).to(dev, dt)
        v = torch.randn(b, nk, hkv, d, generator=gen).to(dev, dt)
        seqs = [(k[i:i + 1, :n].transpose(1, 2), v[i:i + 1, :n].transpose(1, 2))
                for i, n in enumerate(lengths)]
        return q, k, v, None, seqs
    max_pages = (nk + page_size - 1) // page_size
    used = [(n + page_size - 1) // page_size for n in lengths]
    num_pages = sum(used) + 3
    k = torch.randn(num_pages, page_size, hkv, d, generator=gen).to(dev, dt)
    v = torch.randn(num_pages, page_size, hkv, d, generator=gen).to(dev, dt)
    order = torch.randperm(num_pages, generator=gen).tolist()
    table = torch.full((b, max_pages), GARBAGE_PAGE, dtype=torch.int32)
    seqs = []
    for i, (n, u) in enumerate(zip(lengths, used)):
        pages = [order.pop() for _ in range(u)]
        table[i, :u] = torch.tensor(pages, dtype=torch.int32)
        idx = torch.tensor(pages, dtype=torch.long, device=dev)
        kb = k[idx].reshape(-1, hkv, d)[:n].transpose(0, 1)[None]
        vb = v[idx].reshape(-1, hkv, d)[:n].transpose(0, 1)[None]
        seqs.append((kb, vb))
    return q, k, v, table.to(dev), seqs


def check(case, q, out, lse, seqs):
    dtype, hq, hkv, d, causal, window, cap, page_size = case
    assert not torch.isnan(out).any()
    for i, (kb, vb) in enumerate(seqs):
        qb = q[i:i + 1].transpose(1, 2)
        ob = out[i:i + 1].transpose(1, 2)
        if kb.shape[2] == 0:
            assert torch.equal(ob.float(), torch.zeros_like(ob.float())), i
            assert torch.isneginf(lse[i]).all(), i
            continue
        o_ref, lse_ref = attention_reference(qb, kb, vb, causal, None, window, cap)
        o_torch = low_precision(qb, kb, vb, causal, window, cap)
        err = (ob.float() - o_ref).abs().max().item()
        torch_err = (o_torch.float() - o_ref).abs().max().item()
        assert err <= 2 * torch_err + 1e-5, (i, err, torch_err)
        finite = torch.isfinite(lse_ref[0])
        assert torch.equal(torch.isneginf(lse[i]), ~finite), i
        if finite.any():
            assert (lse[i][finite] - lse_ref[0][finite]).abs().max().item() <= 1e-3, i


def params():
    for case, shapes in cases.KV_CACHE_MATRIX:
        for shape in shapes:
            for pattern in PATTERNS:
                dtype, hq, hkv, d, causal, window, cap, ps = case
                yield pytest.param(case, shape, pattern, id="%s-h%dx%d-d%d-%s-w%s-cap%s-%s-%s-%s"
                                   % (dtype, hq, hkv, d, "causal" if causal else "full", window,
                                      cap, "dense" if ps is None else "ps%d" % ps,
                                      "x".join(map(str, shape)), pattern))


@pytest.mark.cuda_only
@pytest.mark.parametrize("case, shape, pattern", list(params()))
def test_kvcache_against_fp32_reference(case, shape, pattern):
    b, nq, nk = shape
    gen = torch.Generator().manual_seed(zlib.crc32(repr((case, shape, pattern)).encode()))
    lengths = lengths_for(pattern, b, nk, gen)
    q, k, v, table, seqs = make_cache(case, b, nq, nk, lengths, gen)
    dtype, hq, hkv, d, causal, window, cap, page_size = case
    lens = torch.tensor(lengths, dtype=torch.int32, device=cases.DEVICE)
    out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, causal=causal, window=window,
                                              softcap=cap, return_lse=True)
    cases.synchronize()
    assert out.shape == q.shape and lse.shape == (b, hq, nq)
    check(case, q, out, lse, seqs)


@pytest.mark.cuda_only
@pytest.mark.parametrize("splits", [1, 2, 3, 4, 7, 8, 16, 32, 100])
def test_kvcache_every_split_count(splits, monkeypatch):
    monkeypatch.setenv("FA_MLIR_SPLITS", str(splits))
    case, (b, nq, nk) = cases.KV_CACHE_SPLITS
    gen = torch.Generator().manual_seed(splits)
    lengths = lengths_for("random", b, nk, gen)
    q, k, v, table, seqs = make_cache(case, b, nq, nk, lengths, gen)
    lens = torch.tensor(lengths, dtype=torch.int32, device=cases.DEVICE)
    out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, causal=case[4],
                                              return_lse=True)
    cases.synchronize()
    check(case, q, out, lse, seqs)


@pytest.mark.cuda_only
def test_kvcache_lengths_past_capacity_are_clamped():
    # key lengths of -5 and capacity + 100: as 0 and the capacity.
    case = cases.KV_CACHE_MATRIX[2][0]
    gen = torch.Generator().manual_seed(7)
    b, nq, nk = 2, 1, 160
    q, k, v, table, seqs = make_cache(case, b, nq, nk, [0, nk], gen)
    lens = torch.tensor([-5, nk + 100], dtype=torch.int32, device=cases.DEVICE)
    out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, causal=True,
                                              return_lse=True)
    cases.synchronize()
    check(case, q, out, lse, seqs)


@pytest.mark.cuda_only
def test_kvcache_graph_replay_follows_new_lengths():
    # The lengths are read on the GPU: a captured decode step replays with
    # the lengths (and table) the tensors hold at replay time.
    case = cases.KV_CACHE_MATRIX[0][0]
    gen = torch.Generator().manual_seed(11)
    b, nq, nk = 4, 1, 2048
    lengths = [2048, 100, 1500, 7]
    q, k, v, table, seqs = make_cache(case, b, nq, nk, lengths, gen)
    lens = torch.tensor([1, 1, 1, 1], dtype=torch.int32, device=cases.DEVICE)
    fa_mlir.attention_with_kvcache(q, k, v, lens, table, causal=True)  # Warm-up (loads).
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, causal=True,
                                                  return_lse=True)
    lens.copy_(torch.tensor(lengths, dtype=torch.int32))
    graph.replay()
    torch.cuda.synchronize()
    check(case, q, out, lse, seqs)


@pytest.mark.cuda_only
def test_kvcache_matches_attention_on_full_dense_cache():
    # Every sequence at full length: the same numbers as fa_mlir.attention
    # on the same keys (layout bnhd), up to the order of the key blocks.
    case = cases.KV_CACHE_MATRIX[-1][0]
    gen = torch.Generator().manual_seed(3)
    b, nq, nk = 2, 5, 300
    q, k, v, _, _ = make_cache(case, b, nq, nk, [nk, nk], gen)
    out = fa_mlir.attention_with_kvcache(q, k, v, nk, causal=case[4])
    ref = fa_mlir.attention(q, k, v, causal=case[4], layout="bnhd")
    cases.synchronize()
    assert (out.float() - ref.float()).abs().max().item() <= 2e-3


@pytest.mark.cuda_only
@pytest.mark.parametrize("index, n_new", [(0, 1), (2, 1), (2, 4), (7, 1), (7, 5), (3, 7)])
def test_kvcache_append_then_attend(index, n_new):
    # k=/v=: the new keys written at each sequence's end (across page
    # boundaries), then attention over n + Nnew keys; the cache afterwards
    # holds them, and the output passes the criterion against fp32 attention
    # of each sequence's keys including the new ones.
    case = cases.KV_CACHE_MATRIX[index][0]
    dtype, hq, hkv, d, causal, window, cap, page_size = case
    gen = torch.Generator().manual_seed(100 * index + n_new)
    b, nk = 3, 700
    lengths = [0, 333, nk - n_new]
    # Pages for the keys after the append.
    q, k, v, table, _ = make_cache(case, b, n_new, nk, [n + n_new for n in lengths], gen)
    knew = torch.randn(b, n_new, hkv, d, generator=gen).to(cases.DEVICE, DTYPES[dtype])
    vnew = torch.randn(b, n_new, hkv, d, generator=gen).to(cases.DEVICE, DTYPES[dtype])
    lens = torch.tensor(lengths, dtype=torch.int32, device=cases.DEVICE)
    out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, k=knew, v=vnew,
                                              causal=causal, window=window, softcap=cap,
                                              return_lse=True)
    cases.synchronize()
    seqs = []
    for i, n in enumerate(lengths):
        pos = torch.arange(n + n_new, device=cases.DEVICE)
        if table is None:
            kb, vb = k[i, pos], v[i, pos]
        else:
            pages = table[i].long()[pos // page_size]
            kb, vb = k[pages, pos % page_size], v[pages, pos % page_size]
        assert torch.equal(kb[n:], knew[i]) and torch.equal(vb[n:], vnew[i]), i
        seqs.append((kb.transpose(0, 1)[None], vb.transpose(0, 1)[None]))
    check(case, q, out, lse, seqs)


@pytest.mark.cuda_only
def test_kvcache_append_graph_replay():
    # A decode step with its append, captured once: each replay writes the
    # new key at the lengths the tensor holds then.
    case = cases.KV_CACHE_MATRIX[0][0]
    dtype, hq, hkv, d = case[:4]
    gen = torch.Generator().manual_seed(5)
    b, nk = 2, 1024
    q, k, v, table, _ = make_cache(case, b, 1, nk, [nk, nk], gen)
    knew = torch.zeros(b, 1, hkv, d, dtype=DTYPES[dtype], device=cases.DEVICE)
    vnew = torch.zeros_like(knew)
    lens = torch.tensor([0, 0], dtype=torch.int32, device=cases.DEVICE)
    fa_mlir.attention_with_kvcache(q, k, v, lens, table, k=knew, v=vnew, causal=True)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = fa_mlir.attention_with_kvcache(q, k, v, lens, table, k=knew, v=vnew,
                                                  causal=True, return_lse=True)
    for step, lengths in enumerate(([10, 500], [11, 1023])):
        knew.copy_(torch.randn(b, 1, hkv, d, generator=gen).to(knew))
        vnew.copy_(torch.randn(b, 1, hkv, d, generator=gen).to(vnew))
        lens.copy_(torch.tensor(lengths, dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        seqs = []
        for i, n in enumerate(lengths):
            pos = torch.arange(n + 1, device=cases.DEVICE)
            pages = table[i].long()[pos // case[7]]
            kb, vb = k[pages, pos % case[7]], v[pages, pos % case[7]]
            assert torch.equal(kb[n], knew[i, 0]), (step, i)
            seqs.append((kb.transpose(0, 1)[None], vb.transpose(0, 1)[None]))
        check(case, q, out, lse, seqs)
