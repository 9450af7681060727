"""How many split-KV chunks a decode step gets (pure Python, no torch).

fa_mlir's decode kernels take the count at run time (`fa-to-ptx{splits=0}`:
the launch plan's `num_splits`), so the rule below may pick any count; it
picks among SPLIT_COUNTS, the counts it was fitted to. The rule, from the
H200 measurements of docs/performance.md ("split-KV's merge in column
tiles": the run-time-count kernels, whose merge ran in 16-column tiles; 8-column tiles since, whose best
counts were the same on the shapes remeasured):

* the attention kernel's thread blocks (one warp each for a decode step:
  B x Hkv x ceil(Hq / Hkv / 16) with GQA packing) times S should fill about
  two thread blocks per multiprocessor: S = the largest count with
  blocks x S <= 2 x multiprocessors;
* S at most twice the square root of the K/V blocks (of KEYS_PER_BLOCK
  keys): each chunk's start and its share of the merge cost about as much
  as a few blocks, so the best chunk grows with the cache (measured best at
  B = 1: 8 splits at Nk = 1k, 16 at 8k, 32 at 32k, 64 at 128k);
* and at least two K/V blocks per chunk.

Against the best of S = 1 ... 64 on the H200 (132 multiprocessors, bf16,
d = 128, GQA 32:4 and 32:8, B = 1-64, Nk = 1k-128k; the shapes the rule
was fitted to, so an in-sample figure): the best count in 17 of the 20
shapes and within 2.1 % of it in the other three (B = 16-32, Nk = 1k,
where 2 splits run at 0.98-0.99 of none, and B = 64, Nk = 8k, where no
split runs at 0.998 of 4). The earlier rule (S <= sqrt(K/V blocks), at most 32) was
fitted to a merge of whole rows, which made more splits cost about 2.3 us
each at B = 1.
"""
import math

SPLIT_COUNTS = (1, 2, 4, 8, 16, 32, 64)
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
        if s > 2 * math.sqrt(kv_blocks) or 2 * s > kv_blocks:
            break
        best = s
    return best
