"""fa_mlir.attention on the GPU against an fp32 reference.

Pass criterion (FlashAttention-2's): max|O - O_ref| <= 2 * max|O_torch -
O_ref| + 1e-5, where O_ref is fp32 attention of the same fp16/bf16 inputs
and O_torch PyTorch's attention in the input precision (SDPA's math backend
with the same explicit mask, or, with a soft cap, which SDPA lacks, the same
computation in the input dtype). LSE within 1e-3 of the reference where
finite and -inf exactly where it is.
"""
import math
import zlib

import pytest

torch = pytest.importorskip("torch")

import cases  # noqa: E402
import fa_mlir  # noqa: E402
from fa_mlir.reference import attention_reference, visible  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def low_precision(q, k, v, causal, window, softcap):
    """PyTorch's attention in the input precision ([B, H, N, D])."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    mask = visible(q.shape[2], k.shape[2], causal, window, q.device)
    if softcap is None:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.MATH):
            o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return o.nan_to_num(0.0)
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    s = (torch.tanh(s / softcap) * softcap).masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s, -1).nan_to_num(0.0).to(q.dtype), v)


def params():
    for case, shapes in cases.MATRIX:
        for shape in shapes:
            for layout in ("bhnd", "bnhd"):
                dtype, hq, hkv, d, causal, window, cap = case
                yield pytest.param(case, shape, layout, id="%s-h%dx%d-d%d-%s-w%s-cap%s-%s-%s" % (
                    dtype, hq, hkv, d, "causal" if causal else "full", window, cap,
                    "x".join(map(str, shape)), layout))


@pytest.mark.parametrize("case, shape, layout", list(params()))
def test_against_fp32_reference(case, shape, layout):
    dtype, hq, hkv, d, causal, window, cap = case
    b, nq, nk = shape
    torch.manual_seed(zlib.crc32(repr((case, shape)).encode()))
    dt = DTYPES[dtype]
    q = torch.randn(b, hq, nq, d, device=cases.DEVICE, dtype=dt) * (4 if cap else 1)
    k = torch.randn(b, hkv, nk, d, device=cases.DEVICE, dtype=dt)
    v = torch.randn(b, hkv, nk, d, device=cases.DEVICE, dtype=dt)
    args = (q, k, v) if layout == "bhnd" else tuple(t.transpose(1, 2).contiguous()
                                                    for t in (q, k, v))
    out, lse = fa_mlir.attention(*args, causal=causal, window=window, softcap=cap,
                                 return_lse=True, layout=layout)
    cases.synchronize()
    if layout == "bnhd":
        assert out.shape == (b, nq, hq, d)
        out = out.transpose(1, 2)
    o_ref, lse_ref = attention_reference(q, k, v, causal, None, window, cap)
    o_torch = low_precision(q, k, v, causal, window, cap)
    assert not torch.isnan(out).any()
    err = (out.float() - o_ref).abs().max().item()
    torch_err = (o_torch.float() - o_ref).abs().max().item()
    assert err <= 2 * torch_err + 1e-5, (err, torch_err)
    finite = torch.isfinite(lse_ref)
    assert torch.equal(torch.isneginf(lse), ~finite)
    if finite.any():
        assert (lse[finite] - lse_ref[finite]).abs().max().item() <= 1e-3


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_causal_nq_ne_nk_matches_sdpa_with_explicit_mask(dtype):
    # Bottom-right alignment: SDPA's is_causal is top-left, so compare with
    # an explicit mask (and check that the two conventions do differ here).
    dt = DTYPES[dtype]
    q = torch.randn(2, 8, 100, 64, device=cases.DEVICE, dtype=dt)
    k = torch.randn(2, 2, 300, 64, device=cases.DEVICE, dtype=dt)
    v = torch.randn(2, 2, 300, 64, device=cases.DEVICE, dtype=dt)
    out = fa_mlir.attention(q, k, v, causal=True)
    mask = visible(100, 300, causal=True, device=cases.DEVICE)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                           enable_gqa=True)
    top_left = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                enable_gqa=True)
    tol = 2e-2 if dtype == "f16" else 5e-2
    assert (out.float() - ref.float()).abs().max().item() < tol
    assert (out.float() - top_left.float()).abs().max().item() > 0.1


def test_scale_and_strided_views():
    q = torch.randn(2, 8, 300, 64, device=cases.DEVICE, dtype=torch.float16)
    kv = torch.randn(2, 300, 2, 2, 64, device=cases.DEVICE, dtype=torch.float16)  # packed K, V
    k, v = kv[:, :, 0].transpose(1, 2), kv[:, :, 1].transpose(1, 2)        # strided views
    out = fa_mlir.attention(q, k, v, causal=True, scale=0.05)
    ref, _ = attention_reference(q, k, v, causal=True, scale=0.05)
    assert (out.float() - ref).abs().max().item() < 1e-2


def test_outputs_are_fresh_and_inputs_untouched():
    q = torch.randn(1, 8, 64, 64, device=cases.DEVICE, dtype=torch.bfloat16)
    k = torch.randn(1, 2, 64, 64, device=cases.DEVICE, dtype=torch.bfloat16)
    copies = [t.clone() for t in (q, k)]
    a = fa_mlir.attention(q, k, k)
    b = fa_mlir.attention(q, k, k)
    assert a.data_ptr() != b.data_ptr() and torch.equal(a, b)
    assert all(torch.equal(x, y) for x, y in zip((q, k), copies))


@pytest.mark.cuda_only
def test_runs_on_the_current_stream():
    q = torch.randn(2, 8, 512, 128, device=cases.DEVICE, dtype=torch.float16)
    k = torch.randn(2, 2, 512, 128, device=cases.DEVICE, dtype=torch.float16)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        out = fa_mlir.attention(q, k, k, causal=True)
    s.synchronize()
    ref = fa_mlir.attention(q, k, k, causal=True)
    assert torch.equal(out, ref)


# -- bad input ---------------------------------------------------------------

def cuda(*shape, dtype=torch.float16):
    return torch.randn(*shape, device=cases.DEVICE, dtype=dtype)


def gpu_only(*values):
    """A case the dry run cannot check (the plan checks run only with a
    real plan; CPU tensors are what the dry run computes on)."""
    return pytest.param(*values, marks=pytest.mark.cuda_only)


@pytest.mark.parametrize("make, error, words", [
    gpu_only(lambda: (cuda(1, 8, 64, 64).cpu(), cuda(1, 2, 64, 64), cuda(1, 2, 64, 64)),
             ValueError, "q is on cpu"),
    (lambda: (cuda(1, 8, 64, 64), cuda(1, 2, 64, 64, dtype=torch.bfloat16),
              cuda(1, 2, 64, 64)), TypeError, "one dtype"),
    (lambda: (cuda(1, 8, 64, 64, dtype=torch.float32),) * 3, TypeError, "float16 or bfloat16"),
    (lambda: (cuda(8, 64, 64), cuda(1, 2, 64, 64), cuda(1, 2, 64, 64)), ValueError,
     "4 dimensions"),
    (lambda: (cuda(1, 8, 64, 64), cuda(1, 3, 64, 64), cuda(1, 3, 64, 64)), ValueError,
     "multiple of the key/value heads"),
    (lambda: (cuda(1, 8, 64, 40), cuda(1, 2, 64, 40), cuda(1, 2, 64, 40)), ValueError,
     "head dim 40 is not supported"),
    (lambda: (cuda(1, 8, 64, 64).transpose(2, 3), cuda(1, 2, 64, 64), cuda(1, 2, 64, 64)),
     ValueError, "last dimension .* must be contiguous"),
    # A base address 2 bytes off 16: rows move in 16-byte copies.
    gpu_only(lambda: (cuda(1 * 8 * 64 * 64 + 1)[1:].view(1, 8, 64, 64), cuda(1, 2, 64, 64),
                      cuda(1, 2, 64, 64)), ValueError, "16-byte aligned"),
    # Rows 72 elements apart but 68 long: a stride not a multiple of 8.
    gpu_only(lambda: (cuda(1, 8, 64, 68)[..., :64], cuda(1, 2, 64, 64), cuda(1, 2, 64, 64)),
             ValueError, "multiple of 8 elements"),
])
def test_bad_input_raises_before_any_launch(make, error, words):
    args = make()
    cases.synchronize()
    with pytest.raises(error, match=words):
        fa_mlir.attention(*args)


@pytest.mark.cuda_only
def test_beyond_the_index_width_is_refused():
    # q spans 2^31 + 512 elements (4 GiB): more than 32-bit indices address.
    q = torch.empty(1, 8, 2 ** 22 + 1, 64, device=cases.DEVICE, dtype=torch.float16)
    k = cuda(1, 2, 64, 64)
    with pytest.raises(ValueError, match="32-bit indices"):
        fa_mlir.attention(q, k, k)
    del q
    torch.cuda.empty_cache()


def test_dropout_and_lse_gradient_are_refused():
    q, k = cuda(1, 8, 64, 64), cuda(1, 2, 64, 64)
    with pytest.raises(NotImplementedError, match="dropout"):
        fa_mlir.attention(q, k, k, dropout_p=0.1)
    _, lse = fa_mlir.attention(q.requires_grad_(), k, k, return_lse=True)
    with pytest.raises(NotImplementedError, match="gradient of O only"):
        lse.sum().backward()


@pytest.mark.cuda_only
def test_missing_kernel_names_the_aot_command():
    from fa_mlir import compiler
    if compiler.available():
        pytest.skip("the compiler is here: a miss compiles")
    with pytest.raises(fa_mlir.MissingKernelError, match="python -m fa_mlir.aot"):
        fa_mlir.attention(cuda(1, 6, 64, 64), cuda(1, 3, 64, 64), cuda(1, 3, 64, 64))


@pytest.mark.cuda_only
def test_long_decode_steps_take_a_split_kv_kernel():
    """A decode step whose few thread blocks leave the GPU idle runs the
    split-KV plan (two kernels, two workspaces) with the count the rule
    picks as its run-time `num_splits`; every count (0 counts as 1; more
    than the 128 K/V blocks leaves chunks empty) and the kernels compiled
    for a fixed count give the same result within rounding."""
    from fa_mlir import ops
    q = cuda(1, 32, 1, 128, dtype=torch.bfloat16)
    k, v = cuda(1, 4, 8192, 128, dtype=torch.bfloat16), cuda(1, 4, 8192, 128, dtype=torch.bfloat16)
    splits = ops.decode_splits(q.device, 1, 32, 4, 8192)
    assert splits > 1
    out = fa_mlir.attention(q, k, v, causal=True)
    plan = ops.plan_for("bf16", 32, 4, 128, 128, True, (-1, 0), False, q_len=1, splits=0)
    assert len(plan.plan.kernels) == 2 and set(plan.plan.workspaces) == {"partial_o",
                                                                         "partial_lse"}
    assert plan.plan.scalars["num_splits"]["dtype"] == "index"
    o_ref, lse_ref = attention_reference(q, k, v, True, None, None, None)
    assert (out.float() - o_ref).abs().max().item() <= 2e-2
    for s in list(range(0, 34)) + [100, 129, 1000]:
        o, lse = plan.attention(q, k, v, num_splits=s)
        assert (o.float() - o_ref).abs().max().item() <= 2e-2, s
        assert (lse - lse_ref).abs().max().item() <= 1e-3, s
    for s in cases.FIXED_SPLITS:
        p = ops.plan_for("bf16", 32, 4, 128, 128, True, (-1, 0), False, q_len=1, splits=s)
        assert len(p.plan.kernels) == 2 and "num_splits" not in p.plan.scalars
        o, _ = p.attention(q, k, v)
        assert (o.float() - o_ref).abs().max().item() <= 2e-2, s
    with pytest.raises(ValueError, match="num_splits"):
        plan.attention(q, k, v)  # The count has no compiled value.
