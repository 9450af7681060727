"""How many split-KV chunks a decode step gets (pure Python, no torch).

fa_mlir's decode kernels take the count at run time (`fa-to-ptx{splits=0}`:
the launch plan's `num_splits`), so the rule below may pick any count; it
picks among SPLIT_COUNTS, the counts it was fitted to. The rule, from the
H200 measurements of docs/performance.md ("the merge's warp groups", 2026-12-03: the
run-time-count kernels, whose merge runs 4 groups of warps per tile):

* the attention kernel's thread blocks (B x Hkv x ceil(Hq / Hkv / 16)
  with GQA packing) times S should fill the GPU once: S = the largest count
  with blocks x S <= multiprocessors x BLOCKS_PER_MULTIPROCESSOR. A decode
  step's thread block is 4 warps along the keys of 128-key blocks (key
  groups, docs/performance.md, "warps along the keys", 2026-12-04) with
  about 145 KB of shared memory: one a multiprocessor;
* S at most 4 x the square root of the K/V blocks (of KEYS_PER_BLOCK
  keys): each chunk's start and its share of the merge cost about as much
  as a few blocks, so the best chunk grows with the cache;
* at least one K/V block per chunk, and no split of a cache of fewer than
  MIN_BLOCKS_TO_SPLIT blocks.

Against the best of S = 1 ... 32 on the H200 (132 multiprocessors, bf16,
d = 128, GQA 32:4 and 32:8, B = 1 and 8, Nk = 1k-32k, the key-grouped
kernels; in sample): the best count in all 12 shapes
(docs/results/key-groups-splits-2026-12-04.json). The rule before (64-key
blocks, two thread blocks a multiprocessor) was fitted to one-warp thread
blocks; with the key-grouped kernels it picked twice the best count and
ran 0.80-0.98 of it at B = 1 and 8.
"""
import math

SPLIT_COUNTS = (1, 2, 4, 8, 16, 32, 64)
KEYS_PER_BLOCK = 128
BLOCKS_PER_MULTIPROCESSOR = 1
# H100/H200 (sm_90): 228 KB of shared memory a multiprocessor.
SHARED_MEMORY_PER_MULTIPROCESSOR = 228 * 1024
MIN_BLOCKS_TO_SPLIT = 4


def decode_thread_blocks(batch, q_heads, kv_heads, rows_per_block=16):
    """Thread blocks of the unsplit single-query kernel (GQA packing: the
    query heads of a group are the rows of one block)."""
    group = q_heads // kv_heads
    return batch * kv_heads * -(-group // rows_per_block)


def kernel_shape(kernel, shared_memory_per_multiprocessor=SHARED_MEMORY_PER_MULTIPROCESSOR):
    """(keys per K/V block, thread blocks per multiprocessor) the rule
    assumes for a decode kernel's launch record (a launch plan's kernels[0]):
    a thread block of 4+ warps is the key-grouped kernel (128-key blocks,
    BLOCKS_PER_MULTIPROCESSOR); one of a warp or two (a decode step over
    small pages, whose K/V blocks are too short for key groups) is the
    one-warp kernel the rule was fitted to before (64-key blocks, 2 a
    multiprocessor where its shared memory allows)."""
    threads = int(kernel["block"][0])
    if threads >= 128:
        return KEYS_PER_BLOCK, BLOCKS_PER_MULTIPROCESSOR
    shared = max(1, int(kernel.get("dynamic_shared_memory", 0)))
    return 64, max(1, min(2, shared_memory_per_multiprocessor // shared))


def choose_splits(thread_blocks, keys, multiprocessors, counts=SPLIT_COUNTS,
                  keys_per_block=KEYS_PER_BLOCK,
                  blocks_per_multiprocessor=BLOCKS_PER_MULTIPROCESSOR):
    """The split count for a step with `thread_blocks` unsplit thread blocks
    over `keys` keys on a GPU of `multiprocessors` multiprocessors, for a
    kernel of `keys_per_block`-key blocks that runs
    `blocks_per_multiprocessor` thread blocks on each (kernel_shape)."""
    if thread_blocks <= 0 or keys <= 0 or multiprocessors <= 0:
        return 1
    kv_blocks = -(-keys // keys_per_block)
    if kv_blocks < MIN_BLOCKS_TO_SPLIT:
        return 1
    best = 1
    for s in sorted(counts):
        if thread_blocks * s > blocks_per_multiprocessor * multiprocessors:
            break
        if s > 4 * math.sqrt(kv_blocks) or s > kv_blocks:
            break
        best = s
    return best
