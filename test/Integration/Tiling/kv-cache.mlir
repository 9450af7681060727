// K/V caches on the CPU with mlir-runner (test/lit_utils/equivalence.py
// --key-lengths): fa.attention with key_lengths (and block_table, a
// shuffled table over a pool with spare pages, its unused entries a page
// number far outside the pool), lowered naively and tiled (L1, L2, L3 with
// warps and the K/V pipeline, split-KV), each against one dense
// fa.attention per sequence on that sequence's own keys, gathered in
// Python: an independent check of the lengths, the paging and the
// per-sequence diagonal. Tolerances as in equivalence.mlir. Cases: ragged
// lengths including 0 (O = 0, LSE = -inf) and lengths past the capacity
// (clamped), Nq > 1 with causal and window (aligned to each sequence's own
// end), GQA/MQA, decode steps with GQA packing and split-KV (the chunks of
// each sequence's own keys), page sizes equal to and larger than the K/V
// block, dense caches with lengths, soft cap, f16/bf16, --fa-warp-block-skip.
//
// DEFINE: %{eq} = %python %lit_utils/equivalence.py --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 2e-5 --rtol 2e-5
// DEFINE: %{f16} = --dtype f16 --atol 2e-3 --rtol 2e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 1e-2 --rtol 1e-2

// RUN: %{eq} %{f32} --B 3 --Hq 2 --Hkv 1 --Nq 3 --Nk 40 --D 16 --block-m 16 --block-n 16 --key-lengths 17 40 5 --page-size 16
// RUN: %{eq} %{f32} --B 3 --Hq 2 --Hkv 1 --Nq 3 --Nk 40 --D 16 --block-m 16 --block-n 16 --key-lengths 17 40 5 --page-size 16 --skip
// RUN: %{eq} %{f32} --B 3 --Hq 4 --Hkv 2 --Nq 20 --Nk 70 --D 16 --causal --block-m 16 --block-n 16 --key-lengths 17 70 0 --page-size 32 --skip
// RUN: %{eq} %{f32} --B 2 --Hq 2 --Hkv 2 --Nq 30 --Nk 64 --D 16 --causal --block-m 16 --block-n 16 --key-lengths 10 -3 --page-size 64 --skip
// RUN: %{eq} %{f32} --B 2 --Hq 4 --Hkv 1 --Nq 9 --Nk 96 --D 16 --causal --window 20 0 --block-m 16 --block-n 16 --key-lengths 96 50 --page-size 32 --skip
// RUN: %{eq} %{f32} --B 2 --Hq 2 --Hkv 1 --Nq 5 --Nk 80 --D 16 --window 10 7 --block-m 16 --block-n 16 --key-lengths 80 33 --page-size 16 --skip
// RUN: %{eq} %{f32} --B 3 --Hq 2 --Hkv 1 --Nq 4 --Nk 50 --D 16 --causal --block-m 16 --block-n 16 --key-lengths 50 1 200
// RUN: %{eq} %{f32} --B 2 --Hq 2 --Hkv 1 --Nq 7 --Nk 45 --D 16 --softcap 5 --block-m 16 --block-n 16 --key-lengths 45 20 --skip
// RUN: %{eq} %{f32} --B 3 --Hq 8 --Hkv 2 --Nq 1 --Nk 100 --D 16 --block-m 16 --block-n 16 --key-lengths 100 37 0 --page-size 16 --skip --pack-gqa --split-kv 3
// RUN: %{eq} %{f32} --B 2 --Hq 4 --Hkv 4 --Nq 1 --Nk 130 --D 16 --causal --block-m 16 --block-n 16 --key-lengths 130 64 --page-size 64 --skip --split-kv 5 --combine-rows 0
// RUN: %{eq} %{f16} --B 3 --Hq 4 --Hkv 2 --Nq 20 --Nk 70 --D 16 --causal --block-m 16 --block-n 16 --key-lengths 17 70 0 --page-size 32 --skip --warps 1
// RUN: %{eq} %{f16} --B 2 --Hq 2 --Hkv 1 --Nq 40 --Nk 96 --D 16 --causal --block-m 32 --block-n 16 --key-lengths 96 41 --page-size 16 --skip --warps 2 --stages 3
// RUN: %{eq} %{bf16} --B 3 --Hq 8 --Hkv 2 --Nq 1 --Nk 70 --D 16 --block-m 16 --block-n 16 --key-lengths 17 70 1 --page-size 16 --skip --pack-gqa --split-kv 3 --warps 1 --combine-rows 0
// RUN: %{eq} %{bf16} --B 2 --Hq 8 --Hkv 1 --Nq 1 --Nk 128 --D 32 --causal --block-m 16 --block-n 32 --key-lengths 128 90 --page-size 64 --skip --pack-gqa --warps 1
// RUN: %{eq} %{f16} --B 2 --Hq 4 --Hkv 2 --Nq 3 --Nk 100 --D 16 --causal --window 30 0 --block-m 16 --block-n 16 --key-lengths 100 61 --skip --warps 1 --split-kv 2
// RUN: %{eq} %{bf16} --B 2 --Hq 2 --Hkv 1 --Nq 16 --Nk 64 --D 16 --causal --softcap 10 --block-m 16 --block-n 16 --key-lengths 64 23 --page-size 32 --skip --warps 1
// RUN: %{eq} %{f16} --B 4 --Hq 2 --Hkv 1 --Nq 1 --Nk 48 --D 16 --block-m 16 --block-n 16 --key-lengths 48 0 16 47 --skip --warps 1 --split-kv 4 --combine-rows 16
// RUN: %{eq} %{f32} --B 2 --Hq 3 --Hkv 1 --Nq 2 --Nk 32 --D 8 --Dv 16 --block-m 16 --block-n 8 --key-lengths 32 9 --page-size 8 --skip
// RUN: %{eq} %{f16} --B 2 --Hq 2 --Hkv 1 --Nq 40 --Nk 96 --D 16 --causal --block-m 32 --block-n 16 --key-lengths 96 41 --page-size 16 --skip --warps 2 --warp-skip
