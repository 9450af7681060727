// Split-KV (--fa-split-kv) against the naive lowering on the CPU with
// mlir-runner (test/lit_utils/equivalence.py; tolerances as in
// equivalence.mlir: the splits only change the order in which the keys'
// contributions are summed, plus one exp/log per split).
// Cases: decode steps (Nq = 1) with and without GQA packing, more splits
// than K/V blocks (empty splits: LSE -inf, weight 0), causal Nq > Nk (rows
// that see no key in any split: O = 0, LSE = -inf), dynamic shapes, a
// sliding window, softcap, f16/bf16, and the L3 passes (warps, schedule,
// K/V pipeline) run on the split nest; with --combine-rows the merge is
// tiled too (--fa-tile-combine: row tiles of queries, or of heads for a
// static Nq = 1, the last tile partial; 8 columns wide where they divide
// Dv), which is the IR the GPU lowering
// gets from --fa-to-ptx with splits > 1. With --split-kv 0 the count is a
// run-time value (the function's argument marked fa.num_splits, which main
// passes as --num-splits): 0 (counts as 1), 1, more splits than K/V
// blocks, and the L3 passes and the tiled merge on the dynamic count.
// The tiled merge's warp groups (split-warps, #fa.warp_rows replicas) do not
// change the CPU's result (--fa-decompose-tiles ignores the layouts), but
// each grouping must be one the passes accept: 4 groups by default for a
// run-time count, ceil(S / 4) for a static S, and 3 and 1 requested.
//
// DEFINE: %{eq} = %python %lit_utils/equivalence.py --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 2e-5 --rtol 2e-5
// DEFINE: %{f16} = --dtype f16 --atol 2e-3 --rtol 2e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 1e-2 --rtol 1e-2

// RUN: %{eq} %{f32} --Hq 8 --Hkv 2 --Nq 1 --Nk 100 --D 16 --block-m 16 --block-n 16 --skip --split-kv 3
// RUN: %{eq} %{f32} --Hq 8 --Hkv 2 --Nq 1 --Nk 100 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 5
// RUN: %{eq} %{f32} --Nq 3 --Nk 40 --D 16 --block-m 16 --block-n 16 --skip --split-kv 8
// RUN: %{eq} %{f32} --Nq 37 --Nk 100 --D 16 --causal --block-m 16 --block-n 16 --skip --split-kv 4
// RUN: %{eq} %{f32} --Hq 4 --Hkv 1 --Nq 100 --Nk 37 --D 16 --causal --block-m 32 --block-n 16 --skip --split-kv 3
// RUN: %{eq} %{f32} --Nq 4 --Nk 90 --D 16 --softcap 5 --block-m 16 --block-n 16 --split-kv 2
// RUN: %{eq} %{bf16} --dynamic --B 2 --Hq 4 --Hkv 2 --Nq 5 --Nk 300 --D 32 --causal --block-m 16 --block-n 32 --skip --split-kv 4
// RUN: %{eq} %{f16} --Nq 20 --Nk 200 --D 16 --causal --window 50 0 --block-m 16 --block-n 16 --skip --split-kv 3
// RUN: %{eq} %{f16} --Hq 8 --Hkv 2 --Nq 1 --Nk 130 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 3 --warps 1
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2 --split-kv 3 --stages 3
// RUN: %{eq} %{bf16} --Nq 30 --Nk 230 --D 16 --causal --window 60 0 --block-m 16 --block-n 16 --skip --split-kv 4 --warps 1
// RUN: %{eq} %{f16} --Hq 8 --Hkv 2 --Nq 1 --Nk 130 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 3 --warps 1 --combine-rows 0
// RUN: %{eq} %{bf16} --B 3 --Hq 40 --Hkv 8 --Nq 1 --Nk 200 --D 32 --block-m 16 --block-n 32 --skip --pack-gqa --split-kv 4 --warps 1 --combine-rows 16
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2 --split-kv 3 --combine-rows 32
// RUN: %{eq} %{f32} --dynamic --B 2 --Hq 4 --Hkv 2 --Nq 37 --Nk 90 --D 16 --causal --block-m 16 --block-n 16 --skip --split-kv 5 --combine-rows 0
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --Nq 70 --Nk 20 --D 16 --causal --block-m 16 --block-n 16 --skip --split-kv 4 --combine-rows 64
// Dv = 32, 64 and 128: the merge's tiles are 8 columns wide (4, 8 and 16
// column tiles; only the first stores the LSE).
// RUN: %{eq} %{f16} --B 2 --Hq 8 --Hkv 2 --Nq 1 --Nk 150 --D 64 --block-m 16 --block-n 32 --skip --pack-gqa --split-kv 3 --warps 1 --combine-rows 16
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 1 --Nq 19 --Nk 100 --D 128 --causal --block-m 16 --block-n 32 --skip --split-kv 0 --num-splits 3 --combine-rows 16
// RUN: %{eq} %{f32} --Hq 8 --Hkv 2 --Nq 1 --Nk 100 --D 16 --block-m 16 --block-n 16 --skip --split-kv 0 --num-splits 3
// RUN: %{eq} %{f16} --Hq 8 --Hkv 2 --Nq 1 --Nk 130 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 0 --num-splits 5 --warps 1 --combine-rows 0 --merge-groups 3
// RUN: %{eq} %{f16} --Hq 8 --Hkv 2 --Nq 1 --Nk 130 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 9 --warps 1 --combine-rows 0 --merge-groups 1
// RUN: %{eq} %{f32} --Nq 3 --Nk 40 --D 16 --block-m 16 --block-n 16 --skip --split-kv 0 --num-splits 8
// RUN: %{eq} %{f32} --Nq 37 --Nk 100 --D 16 --causal --block-m 16 --block-n 16 --skip --split-kv 0 --num-splits 0
// RUN: %{eq} %{f32} --Nq 37 --Nk 100 --D 16 --causal --block-m 16 --block-n 16 --skip --split-kv 0 --num-splits 1
// RUN: %{eq} %{bf16} --dynamic --B 2 --Hq 4 --Hkv 2 --Nq 5 --Nk 300 --D 32 --causal --block-m 16 --block-n 32 --skip --split-kv 0 --num-splits 5 --combine-rows 0
// RUN: %{eq} %{f16} --Hq 8 --Hkv 2 --Nq 1 --Nk 130 --D 16 --block-m 16 --block-n 16 --skip --pack-gqa --split-kv 0 --num-splits 7 --warps 1 --combine-rows 0
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --window 40 0 --block-m 32 --block-n 16 --skip --warps 2 --split-kv 0 --num-splits 2 --combine-rows 32
// A run-time split count with a dynamic batch and the merge left untiled:
// [S * B, ...] -> [S, B, ...] has two dynamic sizes in one group, which the
// CPU path reshapes (upstream's --expand-strided-metadata crashed on it).
// RUN: %{eq} %{f32} --dynamic --Nq 20 --Nk 50 --D 16 --block-m 16 --block-n 16 --split-kv 0 --num-splits 2
// RUN: %{eq} %{bf16} --dynamic --B 3 --Hq 4 --Hkv 2 --Nq 9 --Nk 70 --D 32 --causal --block-m 16 --block-n 16 --skip --split-kv 0 --num-splits 3 --warps 1
