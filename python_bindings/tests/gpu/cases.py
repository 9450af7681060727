"""The GPU tests' cases and the kernels they need (pure Python).

scripts/gpu-python-check.sh compiles `needed_configs()` ahead of time on the
compiler machine (aot_kernels.py); the GPU machine, which has no compiler,
then finds every kernel the tests use in that directory. A test that asks
for a configuration not listed here fails with MissingKernelError: keep the
tests' cases and this list one and the same.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from fa_mlir.kernels import attention_config  # noqa: E402

# FA_MLIR_GPU_TESTS_DRY_RUN=1 runs the GPU tests on the CPU with the fp32
# reference standing in for the kernels (fa_mlir.reference): it checks the
# tests themselves and everything around the launch, not the kernels.
DRY_RUN = os.environ.get("FA_MLIR_GPU_TESTS_DRY_RUN") == "1"
DEVICE = "cpu" if DRY_RUN else "cuda"

# (dtype, Hq, Hkv, D, causal, window, softcap) -> list of (B, Nq, Nk)
SHAPES = [(2, 128, 128), (1, 1, 300), (2, 300, 100), (2, 100, 300), (1, 1000, 1000),
          (3, 17, 17), (1, 257, 513)]
SMALL = [(2, 100, 300), (2, 300, 100), (1, 1, 77), (2, 128, 128)]

MATRIX = []
for dtype in ("f16", "bf16"):
    for d in (64, 128):
        for causal in (False, True):
            MATRIX.append(((dtype, 8, 2, d, causal, None, None), SHAPES))
MATRIX += [
    (("f16", 4, 4, 64, False, None, None), SMALL),          # MHA
    (("f16", 4, 4, 64, True, None, None), SMALL),
    (("bf16", 8, 1, 128, True, None, None), SMALL),         # MQA
    (("f16", 8, 2, 64, True, (32, 0), None), SMALL),        # sliding window, causal
    (("bf16", 8, 2, 64, False, (50, 20), None), SMALL),     # window both sides
    (("f16", 8, 2, 64, True, None, 30.0), SMALL),           # soft cap
    (("f16", 8, 2, 64, True, None, 5.0), SMALL),            # same kernel, another cap
    (("bf16", 8, 2, 128, False, None, 50.0), SMALL),
]
for d in (16, 32, 48, 80, 96, 160, 256):                     # other head dims
    MATRIX.append((("bf16", 4, 4, d, True, None, None), [(2, 100, 300), (1, 200, 200)]))
# Decode steps over long caches, where fa_mlir.attention takes the split-KV
# kernel whose count is a run-time parameter (runtime/splits.py: 2-32 chunks
# on an H200); the kernels compiled for a fixed count (fa-to-ptx splits=S)
# run too, for FIXED_SPLITS.
SPLIT_MATRIX = [
    (("bf16", 32, 4, 128, True, None, None), [(1, 1, 8192), (2, 1, 3000), (4, 1, 20000)]),
    (("f16", 8, 2, 64, True, None, None), [(1, 1, 5000), (3, 1, 1)]),
    (("f16", 8, 2, 64, True, None, 30.0), [(1, 1, 4000)]),
]
MATRIX += SPLIT_MATRIX
FIXED_SPLITS = (2, 8)

# fa_mlir.attention_with_kvcache: (dtype, Hq, Hkv, D, causal, window,
# softcap, page_size or None for a dense cache) -> list of (B, Nq, Nk_max);
# each shape runs with three patterns of per-sequence lengths
# (test_kvcache.py). Decode steps (Nq = 1) take every split count's kernel.
KV_CACHE_MATRIX = [
    (("bf16", 32, 8, 128, True, None, None, 64),
     [(4, 1, 8192), (1, 1, 131072), (16, 1, 2000), (64, 1, 300)]),
    (("bf16", 32, 4, 128, True, None, None, 256), [(2, 1, 20000), (8, 1, 1)]),
    (("f16", 8, 2, 64, True, None, None, 16), [(3, 1, 500), (2, 16, 700), (5, 4, 100)]),
    (("f16", 8, 8, 64, False, None, None, 64), [(2, 1, 1000), (3, 7, 300)]),       # MHA
    (("bf16", 16, 1, 128, True, None, None, 16), [(2, 1, 3000), (1, 16, 128)]),    # MQA
    (("f16", 8, 2, 128, True, (256, 0), None, 64), [(2, 1, 5000), (2, 9, 2000)]),  # window
    (("bf16", 8, 2, 64, True, None, 30.0, 64), [(2, 1, 4000)]),                    # soft cap
    (("bf16", 32, 8, 128, True, None, None, None), [(4, 1, 8192), (2, 5, 1000)]),  # dense
    (("f16", 8, 2, 64, False, None, None, None), [(3, 16, 777)]),
]
# fa_mlir.attention's kernel for the last one's dense comparison.
MATRIX.append((KV_CACHE_MATRIX[-1][0][:7], []))
# The configuration whose decode step runs with every split count forced.
KV_CACHE_SPLITS = (KV_CACHE_MATRIX[0][0], (2, 1, 100000))

# fa_mlir.attention_varlen: (dtype, Hq, Hkv, D, causal, window, softcap)
# -> list of (query lengths, key lengths) per case; "mixed:S:MAX" draws S
# sequences of 1..MAX queries (test_varlen.py).
VARLEN_MATRIX = [
    (("bf16", 32, 8, 128, True, None, None),
     [([128, 1, 700, 0, 2048], [128, 1, 700, 5, 2048]), ([300, 17], [1000, 17]), "mixed:8:8192",
      "mixed:70:600"]),
    # More than 32 sequences: the GPU's fa.varlen_block walks them 32 a round
    # on the lanes of a warp; empty sequences on both sides of a round's edge.
    (("f16", 8, 2, 64, True, None, None),
     [([64, 65, 1, 200], [64, 65, 0, 100]), "mixed:16:2048", "mixed:3:100", "mixed:40:300",
      ([0] * 31 + [129, 0, 1] + [40] * 30 + [0, 7], [3] * 31 + [129, 0, 5] + [40] * 30 + [2, 7])]),
    (("f16", 8, 8, 64, False, None, None), [([33, 500, 7], [90, 500, 3]), "mixed:5:3000"]),
    (("bf16", 16, 1, 128, True, None, None), [([1000, 10], [1000, 10])]),                # MQA
    (("bf16", 8, 2, 64, True, (128, 0), None), [([1000, 300, 2], [1000, 500, 2])]),      # window
    (("f16", 8, 2, 64, True, None, 30.0), [([257, 64], [257, 128])]),                    # soft cap
    # Kernels whose extra live values (a window's left bound, a soft cap,
    # the sequences' bounds) move the rescale after the exponentials
    # (MmaSyncAtom.cpp's table), at other head dims.
    (("bf16", 8, 2, 128, True, (256, 0), 30.0), [([700, 64, 1], [900, 64, 3])]),
    (("f16", 8, 2, 96, True, None, 30.0), [([300, 17], [300, 40])]),
    (("bf16", 8, 2, 32, False, (128, 32), 30.0), [([257, 5], [300, 5])]),
    (("f16", 8, 2, 192, True, None, 30.0), [([200, 33], [260, 33])]),
]

# The backward (fa_mlir.attention's autograd): (key, shapes) as above.
BACKWARD_MATRIX = [
    (("bf16", 8, 2, 64, True, None, None), [(2, 128, 128), (1, 300, 700), (1, 700, 300)]),
    (("f16", 8, 2, 128, False, None, None), [(2, 257, 257), (1, 100, 300)]),
    (("bf16", 4, 4, 128, True, None, None), [(1, 1000, 1000)]),
    (("f16", 8, 1, 64, False, (64, 16), None), [(2, 200, 200)]),
    (("bf16", 8, 2, 64, True, None, 20.0), [(2, 150, 150)]),
]
# The configuration whose backward also runs in the deterministic form.
DETERMINISTIC_BACKWARD = BACKWARD_MATRIX[0][0]
# The training test's model: causal, 4 heads of 64, bf16.
TRAIN = dict(dtype="bf16", heads=4, head_dim=64, layers=2, vocab=256, seq=128, batch=8,
             steps=50)
BACKWARD_MATRIX.append(((TRAIN["dtype"], TRAIN["heads"], TRAIN["heads"], TRAIN["head_dim"],
                         True, None, None), []))

# The transformers test's model: Llama-style, GQA 8:2, head dim 32.
LLAMA = dict(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=512)


def kernel_config(dtype, hq, hkv, d, causal, window, softcap, q_len=None, splits=1,
                  backward=False, deterministic=False):
    return attention_config(dtype, hq, hkv, d, causal=causal, window=window,
                            softcap=softcap is not None, q_len=q_len, splits=splits,
                            backward=backward, deterministic=deterministic)


def needed_configs():
    """Every kernel configuration the GPU tests and timings use."""
    seen, out = set(), []
    keys = [case for case, _ in MATRIX]
    head_dim = LLAMA["hidden_size"] // LLAMA["num_attention_heads"]
    for dtype in ("f16", "bf16"):
        keys.append((dtype, LLAMA["num_attention_heads"], LLAMA["num_key_value_heads"],
                     head_dim, True, None, None))
    # fa_mlir.attention asks for the one-query kernel on a decode step (Nq =
    # 1: the (1, 1, Nk) shapes, the transformers test's generation).
    variants = [(key, q_len, 1) for key in keys for q_len in (None, 1)]
    variants += [(key, 1, s) for key, _ in SPLIT_MATRIX for s in (0,) + FIXED_SPLITS]
    configs = [kernel_config(*key, q_len=q_len, splits=splits)
               for key, q_len, splits in variants]
    # The transformers test's static cache: attention_with_kvcache over the
    # cache's slots (prefill and decode steps).
    llama_cache = [((dtype, LLAMA["num_attention_heads"], LLAMA["num_key_value_heads"],
                     head_dim, True, None, None, None), [(1, 1, 1)]) for dtype in ("f16", "bf16")]
    for key, shapes in KV_CACHE_MATRIX + llama_cache:
        dtype, hq, hkv, d, causal, window, softcap, page_size = key
        cache = dict(causal=causal, window=window, softcap=softcap is not None,
                     key_lengths=True, page_size=page_size)
        configs.append(attention_config(dtype, hq, hkv, d, **cache))
        if any(nq == 1 for _, nq, _ in shapes):
            configs += [attention_config(dtype, hq, hkv, d, q_len=1, splits=s, **cache)
                        for s in (0, 1)]
    for key, _ in VARLEN_MATRIX:
        dtype, hq, hkv, d, causal, window, softcap = key
        configs.append(attention_config(dtype, hq, hkv, d, causal=causal, window=window,
                                        softcap=softcap is not None, varlen=True))
    for key, _ in BACKWARD_MATRIX:
        configs += [kernel_config(*key), kernel_config(*key, backward=True)]
    configs.append(kernel_config(*DETERMINISTIC_BACKWARD, backward=True, deterministic=True))
    for config in configs:
        if config.key() not in seen:
            seen.add(config.key())
            out.append(config)
    return out


def synchronize():
    if not DRY_RUN:
        import torch
        torch.cuda.synchronize()
