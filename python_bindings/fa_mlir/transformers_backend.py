"""fa_mlir as a Hugging Face transformers attention backend.

    import fa_mlir.transformers_backend as fa_hf
    fa_hf.register()                      # "fa_mlir", for transformers 5.x
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="fa_mlir")

What runs where. transformers calls the attention function with q, k, v as
[B, H, N, D] and a mask built by the mask function registered under the same
name; we register transformers' own SDPA mask function, which returns None
exactly when SDPA may use `is_causal` instead of a mask (no padding, and
Nq = 1, Nq = Nk, or a prefill into an empty static cache). Then:

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

NAME = "fa_mlir"
stats = {"fa_mlir": 0, "sdpa": 0, "reasons": {}}
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


def _unsupported(query, key, value, attention_mask, dropout, kwargs, causal):
    """Why the kernels cannot serve this call, or None."""
    from .ops import DEVICE_TYPES, DTYPES, HEAD_DIMS
    if attention_mask is not None:
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
    from .ops import attention
    causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    reason = _unsupported(query, key, value, attention_mask, dropout, kwargs, causal)
    if reason is None and kwargs.get("output_attentions"):
        reason = "output_attentions=True"
    if reason is not None:
        if softcap is not None:
            raise NotImplementedError(
                "fa_mlir attention backend: %s, and the SDPA fallback has no softcap" % reason)
        return _fallback(reason, module, query, key, value, attention_mask, dropout=dropout,
                         scaling=scaling, is_causal=is_causal, **kwargs)
    nq, nk = query.shape[2], key.shape[2]
    if causal and 1 < nq < nk:
        # No mask and more keys than queries: transformers means SDPA's
        # top-left causal mask (a prefill into an empty static cache), under
        # which keys past Nq are never seen.
        key, value = key[:, :, :nq], value[:, :, :nq]
    stats["fa_mlir"] += 1
    # [B, H, N, D] views as [B, N, H, D]: the output is then allocated in the
    # [B, N, H, D] layout transformers wants, with no copy.
    out = attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                    causal=bool(causal), scale=scaling,
                    softcap=softcap if softcap else None, layout="bnhd")
    return out, None


def register(name=NAME):
    """Registers the backend (and transformers' SDPA mask function) under
    `name` for attn_implementation=name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    AttentionInterface.register(name, attention_forward)
    AttentionMaskInterface.register(name, sdpa_mask)
    return name
