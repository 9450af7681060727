"""fa_mlir as a Hugging Face transformers attention backend.

    import fa_mlir.transformers_backend as fa_hf
    fa_hf.register()                      # "fa_mlir", for transformers 5.x
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="fa_mlir")

What runs where. transformers calls the attention function with q, k, v as
[B, H, N, D] and a mask built by the mask function registered under the same
name. Ours (`cache_mask`) tells three cases apart:

* None, exactly where transformers' SDPA mask function returns None (SDPA
  may use `is_causal`: no padding, and Nq = 1, Nq = Nk, or a prefill into an
  empty static cache);
* key lengths, for a causal mask without padding that SDPA would have to
  materialise: the calls over a static cache (decode steps and prefills
  into it), where the keys are the cache's every slot and the valid ones a
  prefix. An int32 [B, 1, 1, 1] tensor holding n, the last query's
  position + 1 (on the device: a CUDA graph replays it with the new
  position), which the attention function runs with attention_with_kvcache:
  bottom-right causal over each sequence's first n keys is then exactly
  transformers' mask (its queries sit at positions n - Nq .. n - 1:
  q_offset + [0, Nq), or a cache_position that transformers always makes
  contiguous);
* transformers' SDPA mask otherwise (padding, sliding windows, packed
  sequences, custom mask functions; and under torch.compile a padding mask
  whose contents cannot be looked at).

Then:

* key lengths: fa_mlir.attention_with_kvcache (the decode kernels with
  split-KV, the cache read in place);
* mask None, causal layer: our kernel. transformers means SDPA's top-left
  causal mask there; it equals our bottom-right one for Nq = 1 and Nq = Nk,
  and for Nq < Nk (keys past Nq are empty cache slots) we drop the keys
  beyond Nq first, as transformers' SDPA path does;
* mask None, non-causal layer: our kernel without causal;
* anything the kernels cannot serve falls back to transformers' SDPA
  function, with a warning (once per reason) and a count in `stats`: an
  explicit mask (padding, sliding window beyond its size, packed sequences,
  custom masks), dropout, position bias, dtypes other than fp16/bf16,
  non-CUDA tensors, head dims the kernels lack, Nq > Nk when causal.
  FA_MLIR_TRANSFORMERS_FALLBACK=raise makes these a NotImplementedError
  instead. Never a silently different result.

Soft-capping (Gemma 2's `softcap`) runs on our kernel (SDPA has none).
"""
import os
import warnings

import torch

NAME = "fa_mlir"
# Calls served by our kernels (of them through attention_with_kvcache) and by
# the SDPA fallback, with the fallback's reasons.
stats = {"fa_mlir": 0, "kv_cache": 0, "sdpa": 0, "reasons": {}}
_warned = set()


def _fallback(reason, module, query, key, value, attention_mask, **kwargs):
    stats["sdpa"] += 1
    stats["reasons"][reason] = stats["reasons"].get(reason, 0) + 1
    if os.environ.get("FA_MLIR_TRANSFORMERS_FALLBACK", "sdpa") == "raise":
        raise NotImplementedError("fa_mlir attention backend cannot serve this call: %s" % reason)
    if reason not in _warned:
        _warned.add(reason)
        warnings.warn("fa_mlir attention backend: %s; this call (and others like it) runs "
                      "transformers' SDPA attention instead" % reason, stacklevel=3)
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)


def cache_mask(batch_size, cache_position=None, kv_length=None, kv_offset=0,
               mask_function=None, attention_mask=None, allow_is_causal_skip=True,
               q_length=None, q_offset=0, **kwargs):
    """The mask function registered with the backend: None, key lengths or
    SDPA's mask (the module docstring says when). transformers' mask
    interface, in either of its forms: the queries at `cache_position` (a
    tensor; transformers 5.0-5.x) or at q_offset + [0, q_length)
    (q_offset an int or a 0-d tensor; later 5.x)."""
    from transformers.masking_utils import causal_mask_function, sdpa_mask
    if mask_function is None:
        mask_function = causal_mask_function
    if cache_position is not None:
        where = dict(cache_position=cache_position)
        device = cache_position.device
    else:
        where = dict(q_length=q_length, q_offset=q_offset)
        device = kwargs.get("device", "cpu")
    full = dict(batch_size=batch_size, kv_length=kv_length, kv_offset=kv_offset,
                mask_function=mask_function, attention_mask=attention_mask, **where, **kwargs)
    if mask_function is causal_mask_function and kv_offset == 0 and \
            kwargs.get("local_size") is None and _no_padding(attention_mask):
        if allow_is_causal_skip:
            # Where SDPA may use is_causal, no mask, as before. (Where it
            # may not, sdpa_mask builds a mask that is dropped: only calls
            # over a dynamic cache with 1 < Nq < Nk, a second prompt turn.)
            mask = sdpa_mask(allow_is_causal_skip=True, **full)
            if mask is None:
                return None
        # Query i at position n - Nq + i sees keys [0, n - Nq + i].
        if cache_position is not None:
            n = (cache_position[-1:] + 1).to(torch.int32)
        elif isinstance(q_offset, torch.Tensor):
            n = (q_offset.reshape(1) + q_length).to(device=device, dtype=torch.int32)
        else:
            n = torch.full((1,), q_offset + q_length, dtype=torch.int32, device=device)
        return n.repeat(batch_size).view(batch_size, 1, 1, 1)
    return sdpa_mask(allow_is_causal_skip=allow_is_causal_skip, **full)


def _no_padding(attention_mask):
    """True when the 2-D padding mask masks nothing (looked at only outside
    tracing, as transformers' own SDPA skip does: it needs a sync)."""
    if attention_mask is None:
        return True
    from transformers.utils.import_utils import is_tracing
    return not is_tracing(attention_mask) and bool(attention_mask.all())


def is_key_lengths(attention_mask):
    """True for cache_mask's key-lengths form."""
    return attention_mask is not None and attention_mask.dtype == torch.int32 and \
        attention_mask.dim() == 4 and attention_mask.shape[1:] == (1, 1, 1)


def key_lengths_to_mask(lengths, nq, nk):
    """SDPA's boolean mask [B, 1, Nq, Nk] for the key-lengths form: query i
    sees key j iff j <= n - Nq + i (and so j < n)."""
    n = lengths.view(-1, 1, 1, 1).long()
    i = torch.arange(nq, device=lengths.device).view(1, 1, nq, 1)
    j = torch.arange(nk, device=lengths.device).view(1, 1, 1, nk)
    return j <= n - nq + i


def _unsupported(query, key, value, attention_mask, dropout, kwargs, causal):
    """Why the kernels cannot serve this call, or None."""
    from .ops import DEVICE_TYPES, DTYPES, HEAD_DIMS
    if attention_mask is not None and not is_key_lengths(attention_mask):
        return "an explicit attention mask (padding, sliding window or custom mask)"
    if dropout:
        return "dropout %g (the kernels have none)" % dropout
    if kwargs.get("position_bias") is not None:
        return "a position bias"
    if query.device.type not in DEVICE_TYPES:
        return "tensors on %s" % query.device.type
    if query.dtype not in DTYPES or key.dtype != query.dtype or value.dtype != query.dtype:
        return "dtype %s (the kernels take float16 and bfloat16)" % query.dtype
    if query.shape[-1] not in HEAD_DIMS or value.shape[-1] != query.shape[-1]:
        return "head dim %d/%d" % (query.shape[-1], value.shape[-1])
    if query.shape[1] % key.shape[1]:
        return "query heads not a multiple of key/value heads"
    if causal and query.shape[2] > key.shape[2]:
        return "a causal mask with more queries than keys"
    return None


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
                      is_causal=None, softcap=None, **kwargs):
    """transformers' attention-function interface: q, k, v [B, H, N, D];
    returns ([B, Nq, Hq, D], None)."""
    from .ops import attention, attention_with_kvcache
    lengths = attention_mask if is_key_lengths(attention_mask) else None
    causal = True if lengths is not None else \
        is_causal if is_causal is not None else getattr(module, "is_causal", True)
    reason = _unsupported(query, key, value, attention_mask, dropout, kwargs, causal)
    if reason is None and kwargs.get("output_attentions"):
        reason = "output_attentions=True"
    if reason is not None:
        if softcap is not None:
            raise NotImplementedError(
                "fa_mlir attention backend: %s, and the SDPA fallback has no softcap" % reason)
        if lengths is not None:
            attention_mask = key_lengths_to_mask(lengths, query.shape[2], key.shape[2])
        return _fallback(reason, module, query, key, value, attention_mask, dropout=dropout,
                         scaling=scaling, is_causal=is_causal, **kwargs)
    stats["fa_mlir"] += 1
    if lengths is not None:
        # A static cache: its every slot, the first n of each sequence valid.
        stats["kv_cache"] += 1
        out = attention_with_kvcache(query.transpose(1, 2), key.transpose(1, 2),
                                     value.transpose(1, 2), lengths.view(-1), causal=True,
                                     scale=scaling, softcap=softcap if softcap else None)
        return out, None
    nq, nk = query.shape[2], key.shape[2]
    if causal and 1 < nq < nk:
        # No mask and more keys than queries: transformers means SDPA's
        # top-left causal mask (a prefill into an empty static cache), under
        # which keys past Nq are never seen.
        key, value = key[:, :, :nq], value[:, :, :nq]
    # [B, H, N, D] views as [B, N, H, D]: the output is then allocated in the
    # [B, N, H, D] layout transformers wants, with no copy.
    out = attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                    causal=bool(causal), scale=scaling,
                    softcap=softcap if softcap else None, layout="bnhd")
    return out, None


def register(name=NAME):
    """Registers the backend (and its mask function, cache_mask) under
    `name` for attn_implementation=name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface
    AttentionInterface.register(name, attention_forward)
    AttentionMaskInterface.register(name, cache_mask)
    return name
