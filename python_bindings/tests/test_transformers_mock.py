"""The transformers backend on the CPU, with the fp32 reference standing in
for the GPU kernels (fa_mlir.reference): routing (our kernels, the K/V-cache
path for static caches, the SDPA fallback), masks and causal alignment.
Needs torch and transformers (skipped without them); the real kernels are
tested by tests/gpu/test_transformers.py.
"""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

# The CPU stand-in for the kernels and the input helpers of the torch tests.
from test_torch_mock import close, cpu_kernels, rand  # noqa: E402,F401


def tiny_llama(attn):
    from transformers import AutoModelForCausalLM, LlamaConfig
    import fa_mlir.transformers_backend as backend
    backend.register()
    cfg = LlamaConfig(vocab_size=97, hidden_size=64, intermediate_size=128,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=128)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation=attn,
                                            dtype=torch.bfloat16).eval()


def test_transformers_backend_matches_sdpa(cpu_kernels):
    import fa_mlir.transformers_backend as backend
    ours, sdpa = tiny_llama("fa_mlir"), tiny_llama("sdpa")
    sdpa.load_state_dict(ours.state_dict())
    ids = torch.randint(0, 97, (2, 11))
    before = dict(backend.stats)
    with torch.no_grad():
        a, b = ours(ids).logits, sdpa(ids).logits
    assert (a.float() - b.float()).abs().max() < 0.05
    assert backend.stats["fa_mlir"] == before["fa_mlir"] + 2  # two layers, no fallback
    # Decode steps with a cache: Nq = 1 against a growing K/V.
    with torch.no_grad():
        g1 = ours.generate(ids, max_new_tokens=5, do_sample=False)
        g2 = sdpa.generate(ids, max_new_tokens=5, do_sample=False)
    assert g1.shape == g2.shape == (2, 16)
    assert backend.stats["sdpa"] == before["sdpa"]


def test_transformers_padding_falls_back_visibly(cpu_kernels):
    import fa_mlir.transformers_backend as backend
    ours, sdpa = tiny_llama("fa_mlir"), tiny_llama("sdpa")
    sdpa.load_state_dict(ours.state_dict())
    ids = torch.randint(0, 97, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[0, :3] = 0  # left padding
    backend._warned.clear()
    with pytest.warns(UserWarning, match="explicit attention mask"):
        with torch.no_grad():
            a = ours(ids, attention_mask=mask).logits
    b = sdpa(ids, attention_mask=mask).logits
    assert torch.allclose(a.float(), b.float(), atol=1e-3)
    assert backend.stats["reasons"]["an explicit attention mask (padding, sliding window or "
                                    "custom mask)"] >= 2


def test_transformers_strict_mode_raises(cpu_kernels, monkeypatch):
    monkeypatch.setenv("FA_MLIR_TRANSFORMERS_FALLBACK", "raise")
    ours = tiny_llama("fa_mlir")
    ids = torch.randint(0, 97, (1, 4))
    with pytest.raises(NotImplementedError, match="cannot serve this call: an explicit"):
        ours(ids, attention_mask=torch.tensor([[0, 1, 1, 1]]))


def test_transformers_backend_without_mask_means_top_left_causal(cpu_kernels):
    # Nq < Nk with no mask (a prefill into an empty static cache): keys past
    # Nq are empty slots that transformers' SDPA path never looks at.
    import fa_mlir.transformers_backend as backend
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    class Module(torch.nn.Module):
        is_causal = True
        num_key_value_groups = 2

    q, k, v = rand(1, 4, 5, 32), rand(1, 2, 9, 32), rand(1, 2, 9, 32)
    k[:, :, 5:] = float("nan")  # empty cache slots: never read
    v[:, :, 5:] = float("nan")
    ours, _ = backend.attention_forward(Module(), q, k, v, None, scaling=0.2)
    # SDPA's top-left causal mask never sees them (its math path would still
    # multiply them by zero weights: give it the first Nq keys).
    ref, _ = sdpa_attention_forward(Module(), q.float(), k[:, :, :5].float(),
                                    v[:, :, :5].float(), None, scaling=0.2)
    assert ours.shape == (1, 5, 4, 32)
    assert not torch.isnan(ours).any() and close(ours, ref, torch.float16)
    # Decode (Nq = 1) sees every key, as SDPA without is_causal does.
    k[:, :, 5:] = rand(1, 2, 4, 32)
    v[:, :, 5:] = rand(1, 2, 4, 32)
    ours, _ = backend.attention_forward(Module(), q[:, :, :1], k, v, None)
    ref, _ = sdpa_attention_forward(Module(), q[:, :, :1].float(), k.float(), v.float(), None)
    assert close(ours, ref, torch.float16)


@pytest.mark.parametrize("nq, past, kv_length", [(1, 0, 32), (1, 20, 32), (5, 0, 32),
                                                  (5, 11, 32), (7, 9, 16)])
def test_cache_mask_key_lengths_mean_sdpa_mask(nq, past, kv_length):
    # Where the backend's mask function gives key lengths, they stand for
    # exactly the mask transformers' SDPA function would have built.
    # In the mask interface's form of the installed transformers: queries at
    # cache_position (5.0) or at q_offset + [0, q_length) (later 5.x).
    import inspect
    import fa_mlir.transformers_backend as backend
    from transformers.masking_utils import sdpa_mask
    if "cache_position" in inspect.signature(sdpa_mask).parameters:
        where = dict(cache_position=torch.arange(past, past + nq))
    else:
        where = dict(q_length=nq, q_offset=past)
    args = dict(batch_size=3, kv_length=kv_length, **where)
    lengths = backend.cache_mask(allow_is_causal_skip=False, **args)
    assert backend.is_key_lengths(lengths) and lengths.view(-1).tolist() == [past + nq] * 3
    want = sdpa_mask(allow_is_causal_skip=False, **args)
    assert torch.equal(backend.key_lengths_to_mask(lengths, nq, kv_length),
                       want.expand(3, 1, nq, kv_length))
    # Where SDPA may use is_causal, None as SDPA's; with padding, SDPA's mask.
    if sdpa_mask(**args) is None:
        assert backend.cache_mask(**args) is None
    padding = torch.ones(3, past + nq, dtype=torch.bool)
    padding[1, 0] = False
    got = backend.cache_mask(attention_mask=padding, allow_is_causal_skip=False, **args)
    assert got.dtype == torch.bool and torch.equal(
        got, sdpa_mask(attention_mask=padding, allow_is_causal_skip=False, **args))


def test_static_cache_runs_attention_with_kvcache(cpu_kernels):
    import fa_mlir.transformers_backend as backend
    from transformers import StaticCache
    ours, sdpa = tiny_llama("fa_mlir"), tiny_llama("sdpa")
    sdpa.load_state_dict(ours.state_dict())
    ids = torch.randint(0, 97, (2, 9))
    before = dict(backend.stats)
    caches = [StaticCache(config=m.config, max_cache_len=32) for m in (ours, sdpa)]
    with torch.no_grad():
        for step in range(4):
            x = ids if step == 0 else ids[:, step:step + 1]
            a = ours(x, past_key_values=caches[0], use_cache=True).logits
            b = sdpa(x, past_key_values=caches[1], use_cache=True).logits
            assert (a.float() - b.float()).abs().max() < 0.05, step
    # Every decode step through attention_with_kvcache (the prefill into the
    # empty cache too, where the transformers version does not let SDPA use
    # is_causal there).
    assert backend.stats["fa_mlir"] == before["fa_mlir"] + 2 * 4
    assert backend.stats["kv_cache"] - before["kv_cache"] in (2 * 3, 2 * 4)
    assert backend.stats["sdpa"] == before["sdpa"]
    assert any(key[0] == "kv-cache" for key in cpu_kernels)


def test_key_lengths_fall_back_as_the_mask_they_mean(cpu_kernels):
    # A call the kernels cannot serve (float32 here) with the key-lengths
    # form: SDPA gets the boolean mask the lengths stand for.
    import fa_mlir.transformers_backend as backend
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    class Module(torch.nn.Module):
        is_causal = True
        num_key_value_groups = 2

    q, k, v = (rand(2, 4, 3, 32, dtype=torch.float32), rand(2, 2, 16, 32, dtype=torch.float32),
               rand(2, 2, 16, 32, dtype=torch.float32))
    lengths = torch.tensor([9, 9], dtype=torch.int32).view(2, 1, 1, 1)
    backend._warned.clear()
    with pytest.warns(UserWarning, match="dtype torch.float32"):
        ours, _ = backend.attention_forward(Module(), q, k, v, lengths)
    mask = backend.key_lengths_to_mask(lengths, 3, 16)
    ref, _ = sdpa_attention_forward(Module(), q, k, v, mask)
    assert torch.equal(ours, ref)
