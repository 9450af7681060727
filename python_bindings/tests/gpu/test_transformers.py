"""fa_mlir as a transformers attention backend, against "sdpa".

A small randomly initialised Llama-style model with GQA (cases.LLAMA, no
weights downloaded) runs three times with the same weights: attn
"fa_mlir" and "sdpa" in fp16/bf16, and "sdpa" in fp32 as the reference.
Teacher-forced: the prompt's logits, then one decode step at a time (Nq = 1
against the cache) with the tokens of the sdpa model's greedy generation,
fed to all three. Criterion at every step, in the spirit of
FlashAttention-2's: max|ours - sdpa| <= 3 * max|sdpa - fp32| + 1e-3.
Greedy generate() runs on both; where they diverge, the top two logits of
the step must be a near-tie.
"""
import inspect

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import cases  # noqa: E402
import fa_mlir.transformers_backend as backend  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
STEPS = 24


def make_models(dtype):
    from transformers import AutoModelForCausalLM, LlamaConfig
    backend.register()
    # One config each: from_config records the attention implementation in it.
    cfg = lambda: LlamaConfig(**cases.LLAMA)  # noqa: E731
    torch.manual_seed(0)
    ours = AutoModelForCausalLM.from_config(cfg(), attn_implementation="fa_mlir", dtype=dtype)
    sdpa = AutoModelForCausalLM.from_config(cfg(), attn_implementation="sdpa", dtype=dtype)
    ref = AutoModelForCausalLM.from_config(cfg(), attn_implementation="sdpa",
                                           dtype=torch.float32)
    assert ours.config._attn_implementation == "fa_mlir"
    state = ours.state_dict()
    sdpa.load_state_dict(state)
    ref.load_state_dict({k: v.float() for k, v in state.items()})
    return [m.to(cases.DEVICE).eval() for m in (ours, sdpa, ref)]


def cache_kwarg(model):
    return "cache" if "cache" in inspect.signature(model.forward).parameters \
        else "past_key_values"


def cache_of(out):
    return out["cache"] if "cache" in out.keys() else out.past_key_values


def teacher_forced(models, prompt, tokens, static=False):
    """Logits of each model for the prompt and then for each token of
    `tokens` ([B, T]) fed one at a time with the cache (a dynamic one, or a
    static one of 64 slots)."""
    logits = [[] for _ in models]
    caches = [None] * len(models)
    if static:
        from transformers import StaticCache
        caches = [StaticCache(config=m.config, max_cache_len=64) for m in models]
    with torch.no_grad():
        for t in range(tokens.shape[1] + 1):
            ids = prompt if t == 0 else tokens[:, t - 1:t]
            for i, m in enumerate(models):
                kw = {} if caches[i] is None else {cache_kwarg(m): caches[i]}
                out = m(ids, use_cache=True, **kw)
                caches[i] = cache_of(out)
                logits[i].append(out.logits[:, -1].float())
    return logits


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_logits_match_sdpa_prompt_and_each_decode_step(dtype):
    ours, sdpa, ref = make_models(DTYPES[dtype])
    torch.manual_seed(1)
    prompt = torch.randint(0, cases.LLAMA["vocab_size"], (2, 37), device=cases.DEVICE)
    with torch.no_grad():
        generated = sdpa.generate(prompt, max_new_tokens=STEPS, min_new_tokens=STEPS,
                                  do_sample=False)[:, prompt.shape[1]:]
    before = dict(backend.stats)
    mine, theirs, exact = teacher_forced([ours, sdpa, ref], prompt, generated)
    layers = cases.LLAMA["num_hidden_layers"]
    assert backend.stats["fa_mlir"] - before["fa_mlir"] == layers * (STEPS + 1)
    assert backend.stats["sdpa"] == before["sdpa"], backend.stats  # no fallback
    for step, (a, b, r) in enumerate(zip(mine, theirs, exact)):
        ours_err = (a - b).abs().max().item()
        sdpa_err = (b - r).abs().max().item()
        assert ours_err <= 3 * sdpa_err + 1e-3, (step, ours_err, sdpa_err)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_static_cache_runs_attention_with_kvcache(dtype):
    # A static cache hands the attention its 64 slots with a mask SDPA must
    # materialise; the backend's mask function gives the key lengths instead
    # and every decode step runs attention_with_kvcache.
    ours, sdpa, ref = make_models(DTYPES[dtype])
    torch.manual_seed(3)
    prompt = torch.randint(0, cases.LLAMA["vocab_size"], (2, 19), device=cases.DEVICE)
    generated = torch.randint(0, cases.LLAMA["vocab_size"], (2, STEPS), device=cases.DEVICE)
    before = dict(backend.stats)
    mine, theirs, exact = teacher_forced([ours, sdpa, ref], prompt, generated, static=True)
    layers = cases.LLAMA["num_hidden_layers"]
    assert backend.stats["fa_mlir"] - before["fa_mlir"] == layers * (STEPS + 1)
    # Every decode step (and the prefill, where the transformers version does
    # not let SDPA use is_causal for it) through attention_with_kvcache.
    assert backend.stats["kv_cache"] - before["kv_cache"] in (layers * STEPS,
                                                             layers * (STEPS + 1))
    assert backend.stats["sdpa"] == before["sdpa"], backend.stats
    for step, (a, b, r) in enumerate(zip(mine, theirs, exact)):
        ours_err = (a - b).abs().max().item()
        sdpa_err = (b - r).abs().max().item()
        assert ours_err <= 3 * sdpa_err + 1e-3, (step, ours_err, sdpa_err)
    # generate() with cache_implementation="static" as well.
    with torch.no_grad():
        a = ours.generate(prompt, max_new_tokens=8, min_new_tokens=8, do_sample=False,
                          cache_implementation="static")
    assert a.shape == (2, 19 + 8)
    assert backend.stats["sdpa"] == before["sdpa"], backend.stats


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_greedy_generate(dtype):
    ours, sdpa, _ = make_models(DTYPES[dtype])
    torch.manual_seed(2)
    prompt = torch.randint(0, cases.LLAMA["vocab_size"], (2, 21), device=cases.DEVICE)
    with torch.no_grad():
        a = ours.generate(prompt, max_new_tokens=STEPS, min_new_tokens=STEPS, do_sample=False)
        b = sdpa.generate(prompt, max_new_tokens=STEPS, min_new_tokens=STEPS, do_sample=False)
    assert a.shape == b.shape == (2, 21 + STEPS)
    for row in range(2):
        diff = (a[row] != b[row]).nonzero()
        if len(diff) == 0:
            continue
        # Diverged at position t: sdpa's logits there must have a near-tie
        # between its top two tokens (within the two models' logit gap).
        t = diff[0].item()
        prefix = b[row:row + 1, :t]
        with torch.no_grad():
            la = ours(prefix).logits[0, -1].float()
            lb = sdpa(prefix).logits[0, -1].float()
        top2 = lb.topk(2).values
        gap = (top2[0] - top2[1]).item()
        assert gap <= 2 * (la - lb).abs().max().item() + 1e-3, (row, t, gap)


def test_padding_mask_falls_back_to_sdpa_visibly():
    ours, sdpa, _ = make_models(torch.float16)
    ids = torch.randint(0, cases.LLAMA["vocab_size"], (2, 16), device=cases.DEVICE)
    mask = torch.ones(2, 16, dtype=torch.long, device=cases.DEVICE)
    mask[0, :5] = 0
    backend._warned.clear()
    before = backend.stats["sdpa"]
    with pytest.warns(UserWarning, match="explicit attention mask"):
        with torch.no_grad():
            a = ours(ids, attention_mask=mask).logits
    with torch.no_grad():
        b = sdpa(ids, attention_mask=mask).logits
    assert backend.stats["sdpa"] > before
    assert torch.equal(a, b)
