"""How many split-KV chunks a decode step gets (pure Python, no torch).

fa_mlir's decode kernels take the count at run time (`fa-to-ptx{splits=0}`:
the launch plan's `num_splits`), so the rule below may pick any count; it
picks among SPLIT_COUNTS, the counts it was fitted to. The rule, from the
H200 measurements of docs/performance.md ("split-KV decode steps", with
kernels compiled per count; the run-time-count kernels run at 0.96 of
those, "split-KV with the split count at run time"):

* the attention kernel's thread blocks (one warp each for a decode step:
  B x Hkv x ceil(Hq / Hkv / 16) with GQA packing) times S should fill about
  two thread blocks per multiprocessor: S = the largest count with
  blocks x S <= 2 x multiprocessors;
* S at most the square root of the K/V blocks (of KEYS_PER_BLOCK keys):
  each chunk's start and its share of the merge cost about as much as a
  block, so the best chunk grows with the cache (measured best: 16 blocks
  at Nk = 8k, 32 at 32k, 64 at 128k, 4 at 1k).

Against the best of S = 1 ... 32 on the H200 (132 multiprocessors, bf16,
d = 128, GQA 32:4 and 32:8, B = 1-64, Nk = 1k-128k; the shapes the rule
was fitted to, so an in-sample figure): the best count in 17 of the 20
shapes, within 8 % of it in two more, and S = 1 at B = 64, 32:8, Nk = 8k,
where 4 splits were 1.25x faster (a grid of 512 thread blocks is 1.3 waves
of the three that fit a multiprocessor; the rule does not model waves).
"""
import math

SPLIT_COUNTS = (1, 2, 4, 8, 16, 32)
KEYS_PER_BLOCK = 64
BLOCKS_PER_MULTIPROCESSOR = 2


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
    best = 1
    for s in sorted(counts):
        if thread_blocks * s > BLOCKS_PER_MULTIPROCESSOR * multiprocessors:
            break
        if s > math.sqrt(kv_blocks):
            break
        best = s
    return best
