"""Appending new keys and values to a K/V cache (flash_attn_with_kvcache's
k=/v=), before attention_with_kvcache reads it.

Sequence b's new keys k[b, t] go to cache positions cache_seqlens[b] + t
(a negative length counts as 0, as the kernels' clamp does), in the dense
cache's row or, in a paged cache, row pos % page_size of page
block_table[b, pos // page_size]; the attention then sees
max(cache_seqlens[b], 0) + Nnew keys. The caches are written in place.

Done with PyTorch's indexed writes (one index_put_ per cache), not inside
the attention kernel as FlashAttention fuses it: the write is
Nnew x Hkv x D elements per sequence, small against the cache the attention
reads, and vLLM keeps it a kernel of its own too. All on the device, so a
CUDA graph captures it and it replays with the lengths the tensors hold
then. Positions past the capacity cannot be checked without a device sync
when the lengths are a tensor: they are clamped to the last slot (and table
entries to the pool), so an overflowing append corrupts that sequence's last
key but never reads or writes outside the tensors; with an int length an
overflow raises ValueError.
"""
import torch


def check_new_keys(k, v, k_cache, q):
    """Checks k/v ([B, Nnew, Hkv, D]) against the cache and q."""
    if (k is None) != (v is None):
        raise ValueError("k and v must be given together (both the new keys and their values)")
    if k is None:
        return
    for name, t in (("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.dim() != 4:
            raise ValueError("%s must be [B, Nnew, Hkv, D], got shape %s" % (name, tuple(t.shape)))
        if t.dtype != k_cache.dtype:
            raise TypeError("%s has dtype %s, the cache %s" % (name, t.dtype, k_cache.dtype))
        if t.device != q.device:
            raise ValueError("%s must be on q's device (%s), got %s" % (name, q.device, t.device))
    want = (q.shape[0], k.shape[1], k_cache.shape[2], k_cache.shape[3])
    for name, t in (("k", k), ("v", v)):
        if tuple(t.shape) != want:
            raise ValueError("%s must be [B, Nnew, Hkv, D] = %s (B from q, Hkv and D from the "
                             "cache), got %s" % (name, list(want), tuple(t.shape)))


def append(k_cache, v_cache, k, v, cache_seqlens, block_table):
    """Writes k, v into the caches at each sequence's end; returns the key
    lengths the attention then uses (an int where cache_seqlens is one)."""
    n_new = k.shape[1]
    b = k.shape[0]
    paged = block_table is not None
    capacity = block_table.shape[1] * k_cache.shape[1] if paged else k_cache.shape[1]
    if capacity == 0 and n_new > 0:
        raise ValueError("cannot append %d keys to a cache with no slots (k_cache shape %s)"
                         % (n_new, tuple(k_cache.shape)))
    if isinstance(cache_seqlens, int):
        start = max(cache_seqlens, 0)
        if start + n_new > capacity:
            raise ValueError("appending %d keys at position %d overflows the cache's %d slots"
                             % (n_new, start, capacity))
        new_lengths = start + n_new
        starts = torch.full((b, 1), start, dtype=torch.long, device=k.device)
    else:
        starts = cache_seqlens.clamp(min=0)
        new_lengths = starts + n_new
        starts = starts.long()[:, None]
    if n_new == 0 or b == 0:
        return new_lengths
    pos = (starts + torch.arange(n_new, device=k.device)).clamp(max=capacity - 1)
    if paged:
        page_size = k_cache.shape[1]
        slot = torch.div(pos, page_size, rounding_mode="floor")
        pages = block_table.long().gather(1, slot).clamp(0, k_cache.shape[0] - 1)
        index = (pages, pos % page_size)
    else:
        index = (torch.arange(b, device=k.device)[:, None], pos)
    k_cache.index_put_(index, k)
    v_cache.index_put_(index, v)
    return new_lengths
