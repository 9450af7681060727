// Packed sequences (fa.attention's cu_seqlens) on the CPU with mlir-runner
// (test/lit_utils/equivalence.py --seqlens-q/--seqlens-k): the op, lowered
// naively and tiled (L1, L2, L3 with warps and the K/V pipeline, split-KV),
// against one dense fa.attention per sequence on its own rows and keys
// (sliced in Python): an independent check of the offsets, the per-sequence
// diagonal and the Q-block walk (fa.varlen_block). Tolerances as in
// equivalence.mlir. Cases: sequences of 0 queries, of 0 keys (O = 0, LSE =
// -inf), Nq > Nk and Nq < Nk within a sequence with causal, unused keys
// after the last sequence, window, soft cap, GQA/MQA, several Q blocks per
// sequence, f16/bf16.
//
// DEFINE: %{eq} = %python %lit_utils/equivalence.py --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 2e-5 --rtol 2e-5
// DEFINE: %{f16} = --dtype f16 --atol 2e-3 --rtol 2e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 1e-2 --rtol 1e-2

// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --D 16 --block-m 16 --block-n 16 --seqlens-q 5 20 3 --seqlens-k 7 20 40
// RUN: %{eq} %{f32} --Hq 4 --Hkv 2 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 5 0 33 3 --seqlens-k 7 4 20 40 --skip --extra-keys 5
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --D 16 --causal --window 8 0 --block-m 16 --block-n 16 --seqlens-q 40 17 --seqlens-k 40 30 --skip
// RUN: %{eq} %{f32} --Hq 2 --Hkv 2 --D 16 --window 5 3 --block-m 16 --block-n 16 --seqlens-q 9 30 --seqlens-k 50 30 --skip
// RUN: %{eq} %{f32} --Hq 3 --Hkv 1 --D 16 --causal --softcap 5 --block-m 16 --block-n 16 --seqlens-q 20 4 --seqlens-k 20 9 --skip
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 7 12 --seqlens-k 0 12 --skip
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --D 8 --Dv 16 --block-m 16 --block-n 8 --seqlens-q 1 1 1 1 --seqlens-k 3 9 1 17
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 40 17 1 --seqlens-k 40 30 0 --skip --warps 1
// RUN: %{eq} %{f16} --Hq 4 --Hkv 1 --D 16 --causal --block-m 32 --block-n 16 --seqlens-q 40 17 50 --seqlens-k 40 30 55 --skip --warps 2 --stages 3
// RUN: %{eq} %{f16} --Hq 4 --Hkv 1 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 3 1 5 --seqlens-k 40 30 55 --skip --warps 1 --split-kv 3 --combine-rows 0
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 1 --D 32 --causal --block-m 16 --block-n 32 --seqlens-q 70 0 25 --seqlens-k 70 3 60 --skip --warps 1 --extra-keys 7
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 2 --D 16 --causal --window 12 0 --softcap 8 --block-m 16 --block-n 16 --seqlens-q 33 16 --seqlens-k 33 48 --skip --warps 1
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --D 16 --causal --block-m 32 --block-n 16 --seqlens-q 45 20 --seqlens-k 45 26 --skip --warps 2 --warp-skip
// max_seqlen_q: slots of 16 rows per sequence where fewer than the walk's
// bound (2 slots a sequence: 6 blocks against the walk's 4 + 3; empty slots
// of the shorter ones), and a bound the walk beats (7 against 7 x 3).
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 20 32 9 --seqlens-k 25 32 9 --max-seqlen-q 32 --skip
// RUN: %{eq} %{f16} --Hq 4 --Hkv 2 --D 16 --block-m 16 --block-n 16 --seqlens-q 40 17 0 --seqlens-k 40 30 5 --max-seqlen-q 100 --warps 1
// A bound below a length (40 > 20): the sequence's 2 slots cannot reach
// its last rows; the run aborts at fa.varlen_block's cf.assert instead of
// printing an output with rows never computed.
// RUN: not %{eq} %{f32} --Hq 2 --Hkv 1 --D 16 --causal --block-m 16 --block-n 16 --seqlens-q 20 40 9 --seqlens-k 25 40 9 --max-seqlen-q 20 --skip 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: mlir-runner{{.*}}died with <Signals.SIGABRT
// #fa.wgmma with D = 64: swizzled K/V tiles, TMA copies on the GPU, and
// each in-loop await zeroes the rows past a sequence's last block
// (fa.await zero_from; a no-op here, where loads are zero-padded).
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --D 64 --causal --block-m 64 --block-n 16 --seqlens-q 40 17 1 --seqlens-k 40 30 7 --skip --warps 4 --atom wgmma --extra-keys 5
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 2 --D 64 --block-m 64 --block-n 16 --seqlens-q 70 9 --seqlens-k 50 33 --skip --warps 4 --atom wgmma --pipeline-mma --kv-release mbarrier
