"""fa_mlir.attention, the custom op and the transformers backend on the CPU,
with the fp32 reference standing in for the GPU kernel.

Everything but the launch itself runs: argument checks, layouts, output
allocation, the scalars the kernel would get (decoded back into a scale and
a cap), the custom op's fake implementation, torch.compile tracing, and the
transformers backend's routing. Needs torch (skipped without it); the real
kernels are tested by tests/gpu/.
"""
import pytest

torch = pytest.importorskip("torch")

from fa_mlir import ops  # noqa: E402
from fa_mlir.reference import attention_reference, use_reference_kernels  # noqa: E402


@pytest.fixture
def cpu_kernels(monkeypatch):
    return use_reference_kernels(monkeypatch)


def rand(*shape, dtype=torch.float16):
    return torch.randn(*shape, dtype=dtype)


def close(a, b, dtype):
    tol = 2e-2 if dtype == torch.float16 else 4e-2
    return torch.allclose(a.float(), b.float(), atol=tol, rtol=tol)


@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
@pytest.mark.parametrize("kw", [
    dict(causal=False), dict(causal=True), dict(causal=True, window=(8, 0)),
    dict(window=(5, 3)), dict(softcap=20.0, scale=0.3), dict(causal=True, softcap=5.0)])
@pytest.mark.parametrize("fast", [True, False])
def test_attention_matches_reference(cpu_kernels, monkeypatch, layout, kw, fast):
    monkeypatch.setattr(ops, "_NO_FAST_PATH", not fast)
    torch.manual_seed(0)
    b, hq, hkv, nq, nk, d = 2, 4, 2, 7, 19, 32
    shape = (lambda h, n: (b, h, n, d)) if layout == "bhnd" else (lambda h, n: (b, n, h, d))
    q, k, v = rand(*shape(hq, nq)), rand(*shape(hkv, nk)), rand(*shape(hkv, nk))
    out, lse = ops.attention(q, k, v, layout=layout, return_lse=True, **kw)
    ref, ref_lse = attention_reference(q, k, v, layout=layout, **{
        "causal": kw.get("causal", False), "scale": kw.get("scale"),
        "window": kw.get("window"), "softcap": kw.get("softcap")})
    assert out.shape == q.shape and out.dtype == q.dtype and out.is_contiguous()
    assert lse.shape == (b, hq, nq) and lse.dtype == torch.float32
    assert close(out, ref, q.dtype)
    assert torch.equal(torch.isinf(lse), torch.isinf(ref_lse))
    assert torch.allclose(lse[torch.isfinite(lse)], ref_lse[torch.isfinite(ref_lse)], atol=1e-3)
    assert sum(p.calls for p in cpu_kernels.values()) == 1


def test_bottom_right_causal_differs_from_sdpa_top_left(cpu_kernels):
    q, k, v = rand(1, 2, 3, 16, dtype=torch.float32).half(), rand(1, 2, 5, 16), rand(1, 2, 5, 16)
    out = ops.attention(q, k, v, causal=True)
    # Row i sees keys j <= i + 2: SDPA with that explicit mask agrees.
    mask = torch.ones(3, 5, dtype=torch.bool).tril(diagonal=2)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                            attn_mask=mask)
    assert close(out, sdpa, torch.float16)
    top_left = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                                is_causal=True)
    assert not close(out, top_left, torch.float16)


def test_rows_without_keys_and_empty_inputs(cpu_kernels):
    q, k, v = rand(1, 2, 6, 16), rand(1, 2, 2, 16), rand(1, 2, 2, 16)
    out, lse = ops.attention(q, k, v, causal=True, return_lse=True)
    assert torch.all(out[:, :, :4] == 0) and torch.all(torch.isneginf(lse[:, :, :4]))
    out, lse = ops.attention(q, k[:, :, :0], v[:, :, :0], return_lse=True)
    assert torch.all(out == 0) and torch.all(torch.isneginf(lse))


@pytest.mark.parametrize("make, error, words", [
    (lambda: (rand(1, 2, 4, 16).float(),) * 3, TypeError, "float16 or bfloat16"),
    (lambda: (rand(1, 2, 4, 16), rand(1, 2, 4, 16, dtype=torch.bfloat16), rand(1, 2, 4, 16)),
     TypeError, "one dtype"),
    (lambda: (rand(2, 4, 16), rand(1, 2, 4, 16), rand(1, 2, 4, 16)), ValueError,
     r"q must have 4 dimensions \[B, H, N, D\]"),
    (lambda: (rand(1, 6, 4, 16), rand(1, 4, 4, 16), rand(1, 4, 4, 16)), ValueError,
     r"query heads \(6\) must be a multiple of the key/value heads \(4\)"),
    (lambda: (rand(1, 2, 4, 24),) * 3, ValueError, "head dim 24 is not supported"),
    (lambda: (rand(1, 2, 4, 272),) * 3, ValueError, "head dim 272"),
    (lambda: (rand(1, 2, 16, 4).transpose(2, 3), rand(1, 2, 4, 16), rand(1, 2, 4, 16)),
     ValueError, "q's last dimension .* must be contiguous"),
    (lambda: (rand(1, 2, 4, 16), rand(2, 2, 4, 16), rand(2, 2, 4, 16)), ValueError,
     "batch sizes differ"),
    (lambda: (rand(1, 2, 4, 16), rand(1, 2, 4, 16), rand(1, 2, 5, 16)), ValueError,
     "same sequence length"),
    (lambda: (rand(1, 2, 4, 16), rand(1, 2, 4, 16), rand(1, 2, 4, 32)), ValueError,
     "v's head dim"),
    (lambda: ([1.0], rand(1, 2, 4, 16), rand(1, 2, 4, 16)), TypeError, "torch.Tensor"),
])
def test_bad_inputs_raise_before_any_launch(cpu_kernels, make, error, words):
    with pytest.raises(error, match=words):
        ops.attention(*make())
    assert not cpu_kernels


def test_cpu_tensors_are_refused_for_real():
    with pytest.raises(ValueError, match="q is on cpu: fa_mlir.attention runs on CUDA"):
        ops.attention(rand(1, 2, 4, 16), rand(1, 2, 4, 16), rand(1, 2, 4, 16))


@pytest.mark.parametrize("kw, error, words", [
    (dict(dropout_p=0.1), NotImplementedError, "no dropout"),
    (dict(layout="nhd"), ValueError, "layout must be"),
    (dict(window=(3,)), TypeError, "pair of ints"),
    (dict(window=(-3, 0)), ValueError, "-1 for unbounded"),
    (dict(window=(2**40, 0)), ValueError, "below 2\\*\\*30"),
    (dict(scale=-1.0), ValueError, "scale must be"),
    (dict(softcap=float("inf")), ValueError, "softcap must be"),
    (dict(causal=None), TypeError, "causal must be a bool"),
])
def test_bad_options(cpu_kernels, kw, error, words):
    x = rand(1, 2, 4, 16)
    with pytest.raises(error, match=words):
        ops.attention(x, x, x, **kw)


@pytest.mark.parametrize("layout", ["bhnd", "bnhd"])
@pytest.mark.parametrize("kw", [dict(causal=False), dict(causal=True, window=(6, 0)),
                                dict(softcap=10.0, scale=0.4)])
def test_backward_runs_the_backward_plan(cpu_kernels, layout, kw):
    torch.manual_seed(1)
    b, hq, hkv, nq, nk, d = 2, 4, 2, 9, 13, 16
    shape = (lambda h, n: (b, h, n, d)) if layout == "bhnd" else (lambda h, n: (b, n, h, d))
    q, k, v = (rand(*shape(h, n)).requires_grad_() for h, n in ((hq, nq), (hkv, nk), (hkv, nk)))
    out = ops.attention(q, k, v, layout=layout, **kw)
    g = rand(*out.shape)
    grads = torch.autograd.grad(out, (q, k, v), g)
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    ref, _ = attention_reference(*leaves, layout=layout, causal=kw.get("causal", False),
                                 scale=kw.get("scale"), window=kw.get("window"),
                                 softcap=kw.get("softcap"))
    expected = torch.autograd.grad(ref, leaves, g.float())
    for x, got, want in zip((q, k, v), grads, expected):
        assert got.shape == x.shape and got.dtype == x.dtype
        assert close(got, want, x.dtype)
    backward = [p for key, p in cpu_kernels.items() if key[0] == "backward"]
    assert len(backward) == 1 and backward[0].calls == 1


def test_backward_through_lse_raises_a_clear_error(cpu_kernels):
    q = rand(1, 2, 4, 16).requires_grad_()
    _, lse = ops.attention(q, rand(1, 2, 4, 16), rand(1, 2, 4, 16), return_lse=True)
    with pytest.raises(NotImplementedError, match="gradient of O only"):
        lse.sum().backward()


def test_custom_op_fake_implementation_agrees(cpu_kernels):
    bhnd = (rand(2, 8, 5, 32), rand(2, 4, 3, 32), rand(2, 4, 3, 32))
    bnhd = tuple(t.transpose(1, 2).contiguous() for t in bhnd)
    for args, layout in ((bhnd, "bhnd"), (bnhd, "bnhd")):
        torch.library.opcheck(torch.ops.fa_mlir.attention.default,
                              args + (True, 0.2, -1, -1, 0.0, layout),
                              test_utils=("test_schema", "test_faketensor"))


def test_torch_compile_fullgraph_traces_through(cpu_kernels):
    import torch._dynamo

    class Block(torch.nn.Module):
        def forward(self, q, k, v):
            return ops.attention(q, k, v, causal=True, layout="bnhd") * 2

    torch._dynamo.reset()
    q, k, v = rand(1, 9, 4, 32), rand(1, 9, 2, 32), rand(1, 9, 2, 32)
    compiled = torch.compile(Block(), fullgraph=True, backend="aot_eager")
    out = compiled(q, k, v)
    assert close(out, Block()(q, k, v), torch.float16)
    assert sum(p.calls for p in cpu_kernels.values()) == 2


def test_fast_path_only_for_plain_eager_calls():
    x = rand(1, 2, 4, 16)
    assert ops._fast_path(x, x, x) == (not ops._NO_FAST_PATH)
    y = x.clone().requires_grad_()
    assert not ops._fast_path(y, x, x)
    with torch.no_grad():
        assert ops._fast_path(y, x, x) == (not ops._NO_FAST_PATH)


def _lens(*n):
    return torch.tensor(n, dtype=torch.int32)


@pytest.mark.parametrize("make, error, words", [
    (lambda: (rand(2, 1, 4, 16), rand(2, 8, 2, 16), rand(2, 8, 2, 16), _lens(3, 4).long(), None),
     ValueError, r"cache_seqlens must be an int32 tensor of shape \[B\] = \[2\]"),
    (lambda: (rand(2, 1, 4, 16), rand(2, 8, 2, 16), rand(2, 8, 2, 16), _lens(3), None),
     ValueError, "cache_seqlens must be an int32 tensor"),
    (lambda: (rand(2, 1, 4, 16), rand(2, 8, 2, 16), rand(2, 8, 2, 16), 2.5, None),
     TypeError, "cache_seqlens must be an int or an int32 tensor"),
    (lambda: (rand(2, 1, 4, 16), rand(3, 8, 2, 16), rand(3, 8, 2, 16), 4, None),
     ValueError, "a dense cache has one sequence per batch entry"),
    (lambda: (rand(2, 1, 4, 16), rand(5, 16, 2, 16), rand(5, 16, 2, 16), 4,
              torch.zeros(2, 0, dtype=torch.int32)),
     ValueError, "block_table needs at least one page"),
    (lambda: (rand(2, 1, 4, 16), rand(5, 16, 2, 16), rand(5, 16, 2, 16), 4,
              torch.zeros(2, 3, dtype=torch.int64)),
     ValueError, r"block_table must be an int32 tensor \[B, max_pages\]"),
    (lambda: (rand(2, 1, 4, 16), rand(5, 24, 2, 16), rand(5, 24, 2, 16), 4,
              torch.zeros(2, 3, dtype=torch.int32)),
     ValueError, "page size that is a multiple of 16"),
    (lambda: (rand(2, 1, 4, 16), rand(5, 16, 3, 16), rand(5, 16, 3, 16), 4,
              torch.zeros(2, 3, dtype=torch.int32)),
     ValueError, r"query heads \(4\) must be a multiple of the key/value heads \(3\)"),
    (lambda: (rand(2, 1, 4, 16), rand(5, 16, 2, 16), rand(5, 32, 2, 16), 4,
              torch.zeros(2, 3, dtype=torch.int32)),
     ValueError, "same leading dims"),
])
def test_bad_cache_inputs_raise_before_any_launch(cpu_kernels, make, error, words):
    q, k, v, lens, table = make()
    with pytest.raises(error, match=words):
        ops.attention_with_kvcache(q, k, v, lens, table)
    assert not cpu_kernels


@pytest.mark.parametrize("make, error, words", [
    (lambda: (rand(1, 9, 4, 16), rand(9, 2, 16), rand(9, 2, 16), _lens(0, 9), _lens(0, 9)),
     ValueError, r"q must have 3 dimensions \[total, H, D\]"),
    (lambda: (rand(9, 4, 16), rand(9, 2, 16), rand(9, 2, 16), _lens(0, 9).long(), _lens(0, 9)),
     ValueError, r"cu_seqlens_q must be an int32 tensor \[S \+ 1\]"),
    (lambda: (rand(9, 4, 16), rand(9, 2, 16), rand(9, 2, 16), _lens(0, 9), _lens(0, 4, 9)),
     ValueError, "must have one length"),
    (lambda: (rand(9, 4, 16), rand(9, 2, 16), rand(8, 2, 16), _lens(0, 9), _lens(0, 9)),
     ValueError, "k and v must have one shape"),
    (lambda: (rand(9, 4, 24), rand(9, 2, 24), rand(9, 2, 24), _lens(0, 9), _lens(0, 9)),
     ValueError, "head dim 24 is not supported"),
])
def test_bad_varlen_inputs_raise_before_any_launch(cpu_kernels, make, error, words):
    q, k, v, cu_q, cu_k = make()
    with pytest.raises(error, match=words):
        ops.attention_varlen(q, k, v, cu_q, cu_k)
    assert not cpu_kernels


@pytest.mark.parametrize("max_seqlen, error, words", [
    (-1, ValueError, "max_seqlen_q must be >= 0, got -1"),
    (2.0, TypeError, "max_seqlen_q must be an int"),
    (True, TypeError, "max_seqlen_q must be an int"),
    ("9", TypeError, "max_seqlen_q must be an int"),
])
def test_bad_max_seqlen_raises_before_any_launch(cpu_kernels, max_seqlen, error, words):
    with pytest.raises(error, match=words):
        ops.attention_varlen(rand(9, 4, 16), rand(9, 2, 16), rand(9, 2, 16), _lens(0, 9),
                             _lens(0, 9), max_seqlen, 9)
    assert not cpu_kernels


def test_max_seqlen_is_clamped_to_the_queries():
    # None and bounds past total_q say as much as total_q; 0-d integer
    # tensors are taken as their value.
    assert ops._max_seqlen(None, 9) == 9 and ops._max_seqlen(100, 9) == 9
    assert ops._max_seqlen(4, 9) == 4 and ops._max_seqlen(torch.tensor(5), 9) == 5


def test_cache_and_varlen_options_are_checked_like_attention(cpu_kernels):
    q, k = rand(2, 1, 4, 16), rand(2, 8, 2, 16)
    with pytest.raises(ValueError, match="scale must be"):
        ops.attention_with_kvcache(q, k, k, 4, scale=0.0)
    with pytest.raises(TypeError, match="causal must be a bool"):
        ops.attention_varlen(rand(9, 4, 16), rand(9, 2, 16), rand(9, 2, 16), _lens(0, 9),
                             _lens(0, 9), causal=1)


def _paged(num_pages, page, hkv, d, table_rows):
    """Pools [num_pages, page, hkv, d] and a shuffled int32 block table."""
    k, v = rand(num_pages, page, hkv, d), rand(num_pages, page, hkv, d)
    order = torch.randperm(num_pages).tolist()
    table = torch.tensor([[order.pop() for _ in range(table_rows[1])]
                          for _ in range(table_rows[0])], dtype=torch.int32)
    return k, v, table


def _written(k_cache, knew, lengths, table):
    """The cache after an append, by a loop over (sequence, new key)."""
    out = k_cache.clone()
    for b, n in enumerate(lengths):
        for t in range(knew.shape[1]):
            pos = max(n, 0) + t
            if table is None:
                out[b, pos] = knew[b, t]
            else:
                page = k_cache.shape[1]
                out[table[b, pos // page], pos % page] = knew[b, t]
    return out


@pytest.mark.parametrize("paged", [False, True])
@pytest.mark.parametrize("n_new, lengths", [(1, (5, 0, 31)), (3, (15, -4, 44)), (0, (7, 2, 9))])
def test_append_writes_the_cache_then_attends_over_it(cpu_kernels, paged, n_new, lengths):
    # New keys at each sequence's end (a negative length counts as 0),
    # across page boundaries; the attention then sees n + Nnew keys: the
    # same output as writing the cache first and passing the longer lengths.
    q = rand(3, max(n_new, 1), 4, 16)
    if paged:
        k, v, table = _paged(14, 16, 2, 16, (3, 4))
    else:
        k, v, table = rand(3, 48, 2, 16), rand(3, 48, 2, 16), None
    knew, vnew = rand(3, n_new, 2, 16), rand(3, n_new, 2, 16)
    k_want, v_want = _written(k, knew, lengths, table), _written(v, vnew, lengths, table)
    ref = ops.attention_with_kvcache(q, k_want, v_want,
                                     _lens(*[max(n, 0) + n_new for n in lengths]), table,
                                     causal=True)
    out = ops.attention_with_kvcache(q, k, v, _lens(*lengths), table, k=knew, v=vnew,
                                     causal=True)
    assert torch.equal(k, k_want) and torch.equal(v, v_want)
    assert torch.equal(out, ref)


def test_append_with_an_int_length(cpu_kernels):
    q, k, v = rand(2, 2, 4, 16), rand(2, 32, 2, 16), rand(2, 32, 2, 16)
    knew, vnew = rand(2, 2, 2, 16), rand(2, 2, 2, 16)
    k_want, v_want = _written(k, knew, (30, 30), None), _written(v, vnew, (30, 30), None)
    out = ops.attention_with_kvcache(q, k, v, 30, k=knew, v=vnew)
    assert torch.equal(k, k_want) and torch.equal(v, v_want)
    assert torch.equal(out, ops.attention_with_kvcache(q, k_want, v_want, 32))
    with pytest.raises(ValueError, match="appending 2 keys at position 31 overflows the "
                                         "cache's 32 slots"):
        ops.attention_with_kvcache(q, k, v, 31, k=knew, v=vnew)
    # A cache without slots cannot take any, whatever the lengths say.
    empty = rand(2, 0, 2, 16)
    with pytest.raises(ValueError, match="cannot append 2 keys to a cache with no slots"):
        ops.attention_with_kvcache(q, empty, empty.clone(), _lens(0, 0), k=knew, v=vnew)


def test_append_past_the_capacity_stays_inside_the_tensors(cpu_kernels):
    # Lengths in a tensor cannot be checked without a sync: the overflowing
    # keys are clamped to the last slot (and a table entry to the pool);
    # nothing outside the caches is touched and the call does not fail.
    from fa_mlir import cache_append
    q = rand(2, 1, 4, 16)
    k, v, table = _paged(6, 16, 2, 16, (2, 2))
    knew, vnew = rand(2, 3, 2, 16), rand(2, 3, 2, 16)
    out = ops.attention_with_kvcache(q, k, v, _lens(31, 3), table, k=knew, v=vnew)
    assert torch.equal(k[table[0, 1], 15], knew[0, 2])  # 31, 32, 33 -> the last slot
    assert out.shape == q.shape and not torch.isnan(out).any()
    # A table entry outside the pool (the caller's error) is clamped to it.
    table[1, 1] = 1000
    lengths = cache_append.append(k, v, knew, vnew, _lens(0, 16), table)
    assert lengths.tolist() == [3, 19] and torch.equal(k[5, :3], knew[1])


@pytest.mark.parametrize("kw, error, words", [
    (dict(k=rand(2, 1, 2, 16)), ValueError, "k and v must be given together"),
    (dict(v=rand(2, 1, 2, 16)), ValueError, "k and v must be given together"),
    (dict(k=rand(2, 1, 3, 16), v=rand(2, 1, 3, 16)), ValueError,
     r"k must be \[B, Nnew, Hkv, D\] = \[2, 1, 2, 16\]"),
    (dict(k=rand(2, 1, 2, 16), v=rand(2, 2, 2, 16)), ValueError,
     r"v must be \[B, Nnew, Hkv, D\] = \[2, 1, 2, 16\]"),
    (dict(k=rand(2, 1, 2, 16, dtype=torch.bfloat16), v=rand(2, 1, 2, 16)), TypeError,
     "k has dtype torch.bfloat16, the cache torch.float16"),
    (dict(k=rand(2, 1, 2, 16), v=rand(2, 1, 2, 16)[..., 0]), ValueError,
     r"v must be \[B, Nnew, Hkv, D\], got shape \(2, 1, 2\)"),
    (dict(k=[1.0], v=rand(2, 1, 2, 16)), TypeError, "k must be a torch.Tensor"),
])
def test_bad_new_keys_raise_before_any_write(cpu_kernels, kw, error, words):
    q, k, v = rand(2, 1, 4, 16), rand(2, 8, 2, 16), rand(2, 8, 2, 16)
    before = k.clone()
    with pytest.raises(error, match=words):
        ops.attention_with_kvcache(q, k, v, 4, **kw)
    assert torch.equal(k, before) and not cpu_kernels


def test_decode_step_asks_for_the_one_query_kernel_and_falls_back(monkeypatch):
    """Nq = 1 asks for the q_len=1 kernel (16-row Q block); where none can
    be had (no compiler, not in a kernel directory) the dynamic-Nq one
    serves. Other Nq ask for the dynamic one directly."""
    from fa_mlir import MissingKernelError
    from fa_mlir import kernels as K
    asked = []

    def get(config):
        asked.append(config.spec.q_len)
        if config.spec.q_len is not None:
            raise MissingKernelError("no decode kernel here")
        return "dynamic plan"
    monkeypatch.setattr(K.default_cache, "get", get)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_80")  # one chip, wherever this runs
    assert ops.plan_for("bf16", 8, 2, 64, 64, True, (-1, 0), False, q_len=1) == "dynamic plan"
    assert asked == [1, None]
    # Memoised: no second lookup.
    assert ops.plan_for("bf16", 8, 2, 64, 64, True, (-1, 0), False, q_len=1) == "dynamic plan"
    assert asked == [1, None]
    assert ops.plan_for("bf16", 8, 2, 64, 64, False, (-1, -1), False) == "dynamic plan"
    assert asked == [1, None, None]


def test_split_decode_kernel_falls_back_to_the_unsplit_one(monkeypatch):
    """A split-KV decode kernel that cannot be had: the unsplit single-query
    kernel serves, then the dynamic-Nq one."""
    from fa_mlir import MissingKernelError
    from fa_mlir import kernels as K
    asked = []

    def get(config):
        splits = config.pipeline_options().get("splits", 1)
        asked.append((config.spec.q_len, int(splits)))
        if int(splits) != 1:
            raise MissingKernelError("no split kernel here")
        return "unsplit decode plan"
    monkeypatch.setattr(K.default_cache, "get", get)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_80")  # one chip, wherever this runs
    assert ops.plan_for("bf16", 32, 4, 128, 128, True, (-1, 0), False, q_len=1,
                        splits=8) == "unsplit decode plan"
    assert asked == [(1, 8), (1, 1)]


def test_cache_kernel_falls_back_in_its_own_form(monkeypatch):
    """A K/V-cache decode kernel falls back like plan_for's (split, then
    static Nq), and every lookup keeps the cache form: never a kernel
    without key lengths or with another page size. Backward and packed
    forms have no fallback: their lookup error is the caller's."""
    from fa_mlir import MissingKernelError
    from fa_mlir import kernels as K
    asked = []

    def get(config):
        splits = int(config.pipeline_options().get("splits", 1))
        spec = config.spec
        asked.append((spec.q_len, splits, spec.key_lengths, spec.page_size))
        if spec.q_len is not None or spec.varlen or spec.backward:
            raise MissingKernelError("only dynamic-Nq cache kernels here")
        return "cache plan"
    monkeypatch.setattr(K.default_cache, "get", get)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_80")  # one chip, wherever this runs
    assert ops.cache_plan_for("bf16", 32, 8, 128, True, (-1, 0), False, 1, 0, 64) == "cache plan"
    assert asked == [(1, 0, True, 64), (1, 1, True, 64), (None, 1, True, 64)]
    # Another page size is another kernel.
    assert ops.cache_plan_for("bf16", 32, 8, 128, True, (-1, 0), False, 1, 0, 16) == "cache plan"
    assert asked[3:] == [(1, 0, True, 16), (1, 1, True, 16), (None, 1, True, 16)]
    with pytest.raises(MissingKernelError):
        ops.varlen_plan_for("bf16", 32, 8, 128, True, (-1, 0), False)
    with pytest.raises(MissingKernelError):
        ops.backward_plan_for("bf16", 32, 8, 128, 128, True, (-1, 0), False)


def test_decode_step_runs_with_the_reference(cpu_kernels):
    q, k, v = rand(2, 8, 1, 64), rand(2, 2, 300, 64), rand(2, 2, 300, 64)
    o, lse = ops.attention(q, k, v, causal=True, return_lse=True)
    ref, ref_lse = attention_reference(q, k, v, True, 64 ** -0.5)
    assert close(o, ref, torch.float16) and torch.allclose(lse, ref_lse, atol=1e-3)
    assert any(key[-1] == 1 for key in cpu_kernels)



def test_kernels_are_asked_for_the_devices_chip_then_the_portable_one(monkeypatch):
    """On an H100/H200 the sm_90a kernel is asked for first, then sm_90's
    and sm_80's; a kernel directory with only sm_80 kernels (no compiler)
    still serves, with the same form, before any form fallback.
    FA_MLIR_CHIP pins the chip: no fallback then."""
    from fa_mlir import MissingKernelError
    from fa_mlir import kernels as K
    asked = []

    def get(config):
        chip, q_len = config.pipeline_options()["chip"], config.spec.q_len
        asked.append((chip, q_len))
        if chip != "sm_80":
            raise MissingKernelError("only sm_80 kernels here")
        return "sm_80 plan"
    monkeypatch.setattr(K.default_cache, "get", get)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.delenv("FA_MLIR_CHIP", raising=False)
    assert ops.plan_for("bf16", 8, 2, 64, 64, True, (-1, 0), False, q_len=1,
                        chip="sm_90a") == "sm_80 plan"
    assert asked == [("sm_90a", 1), ("sm_90", 1), ("sm_80", 1)]
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_90")
    monkeypatch.setattr(ops, "_plans", {})
    asked.clear()
    with pytest.raises(MissingKernelError):
        ops.plan_for("bf16", 8, 2, 64, 64, True, (-1, 0), False, chip=ops.device_chip())
    assert asked == [("sm_90", None)]


def test_device_chip_reads_the_gpu_and_the_environment(monkeypatch):
    monkeypatch.delenv("FA_MLIR_CHIP", raising=False)
    monkeypatch.setattr(ops, "_device_chips", {})
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index: (9, 0))
    # An H100/H200: its architecture-specific chip (the #fa.wgmma kernels).
    assert ops.device_chip(torch.device("cuda", 0)) == "sm_90a"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index: (8, 6))
    assert ops.device_chip(torch.device("cuda", 1)) == "sm_86"
    assert ops.device_chip(torch.device("cpu")) == "sm_80"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index: (7, 5))
    from fa_mlir.chips import UnsupportedDeviceError
    with pytest.raises(UnsupportedDeviceError, match="compute capability 8.0 or newer"):
        ops.device_chip(torch.device("cuda", 2))
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_89")
    assert ops.device_chip(torch.device("cuda", 2)) == "sm_89"
    monkeypatch.setenv("FA_MLIR_CHIP", "ampere")
    with pytest.raises(ValueError, match="FA_MLIR_CHIP: not a chip name: 'ampere'"):
        ops.device_chip(torch.device("cuda", 0))
