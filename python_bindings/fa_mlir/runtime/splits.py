"""How many split-KV chunks a decode step gets (pure Python, no torch).

fa_mlir's decode kernels take the count at run time (`fa-to-ptx{splits=0}`:
the launch plan's `num_splits`), so the rule below may pick any count; it
picks among SPLIT_COUNTS, the counts it was fitted to. The rule, from the
H200 measurements of docs/performance.md ("the merge's warp groups", 2026-12-03: the
run-time-count kernels, whose merge runs 4 groups of warps per tile):

* the attention kernel's thread blocks (one warp each for a decode step:
  B x Hkv x ceil(Hq / Hkv / 16) with GQA packing) times S should fill about
  two thread blocks per multiprocessor: S = the largest count with
  blocks x S <= 2 x multiprocessors;
* S at most 4 x the square root of the K/V blocks (of KEYS_PER_BLOCK
  keys): each chunk's start and its share of the merge cost about as much
  as a few blocks, so the best chunk grows with the cache (measured best at
  B = 1: 16 splits at Nk = 1k, 32 at 8k, 32-64 at 32k and 128k, as many as
  fill the GPU);
* at least one K/V block per chunk, and no split of a cache of fewer than
  MIN_BLOCKS_TO_SPLIT blocks (at B = 1, 32:8: 128 keys unsplit 4.6 us, in
  2 chunks 6.0-6.3; 256 keys 7.3 unsplit, 6.4-6.8 in 4).

Against the best of S = 1 ... 64 on the H200 (132 multiprocessors, bf16,
d = 128, GQA 32:4 and 32:8, B = 1-64, Nk = 1k-128k; the shapes the rule
was fitted to, so an in-sample figure): the best count in 17 of the 20
shapes, within 4.5 % of it in the other three (B = 16-32, Nk = 1k, where
2 splits run at 0.90-0.96 of none, and B = 64, Nk = 8k, 0.99). The rule
before (S <= 2 sqrt(K/V blocks), 2 blocks per chunk at least) was fitted to
a merge of one warp group, where each split cost the merge more.
"""
import math

SPLIT_COUNTS = (1, 2, 4, 8, 16, 32, 64)
KEYS_PER_BLOCK = 64
BLOCKS_PER_MULTIPROCESSOR = 2
MIN_BLOCKS_TO_SPLIT = 4


def decode_thread_blocks(batch, q_heads, kv_heads, rows_per_block=16):
    """Thread blocks of the unsplit single-query kernel (GQA packing: the
    query heads of a group are the rows of one block)."""
    group = q_heads // kv_heads
    return batch * kv_heads * -(-group // rows_per_block)


def choose_splits(thread_blocks, keys, multiprocessors, counts=SPLIT_COUNTS):
    """The split count for a step with `thread_blocks` unsplit thread blocks
    over `keys` keys on a GPU of `multiprocessors` multiprocessors."""
    if thread_blocks <= 0 or keys <= 0 or multiprocessors <= 0:
        return 1
    kv_blocks = -(-keys // KEYS_PER_BLOCK)
    if kv_blocks < MIN_BLOCKS_TO_SPLIT:
        return 1
    best = 1
    for s in sorted(counts):
        if thread_blocks * s > BLOCKS_PER_MULTIPROCESSOR * multiprocessors:
            break
        if s > 4 * math.sqrt(kv_blocks) or s > kv_blocks:
            break
        best = s
    return best
