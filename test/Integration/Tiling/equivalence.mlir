// The tiled loop nest (--fa-tile-q-outer, with and without
// --fa-causal-block-skip, and the warp-mapped, scheduled and pipelined L3
// that --fa-lower-to-gpu consumes) against the naive lowering (--fa-decompose-naive),
// both run on the CPU with mlir-runner on the same random inputs
// (test/lit_utils/equivalence.py builds the module and compares O and LSE
// element by element: |tiled - naive| <= atol + rtol * |naive|).
//
// Tolerances. f32: 2e-5 + 2e-5 * |x|: printMemrefF32 prints 6 significant
// digits, and the two differ only in summation order and exp vs exp2.
// f16: 2e-3 + 2e-3 * |x|, bf16: 1e-2 + 1e-2 * |x|: the tiled form rounds P to
// the input type before P V (as the GPU kernel does), and O itself is rounded
// to f16/bf16 (1 ulp near 1.0 is 9.8e-4 in f16, 7.8e-3 in bf16).
//
// DEFINE: %{eq} = %python %lit_utils/equivalence.py --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 2e-5 --rtol 2e-5
// DEFINE: %{f16} = --dtype f16 --atol 2e-3 --rtol 2e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 1e-2 --rtol 1e-2

// Not causal, Nq == Nk.
// RUN: %{eq} %{f32} --Nq 1 --Nk 1 --D 16 --block-m 16 --block-n 16
// RUN: %{eq} %{f32} --Nq 7 --Nk 7 --D 16 --block-m 4 --block-n 2 --skip
// RUN: %{eq} %{f16} --B 2 --Hq 2 --Hkv 2 --Nq 128 --Nk 128 --D 64 --block-m 64 --block-n 64 --skip
// RUN: %{eq} %{bf16} --Hq 4 --Hkv 2 --Nq 100 --Nk 100 --D 64 --block-m 32 --block-n 64 --skip

// Not causal, Nq != Nk, Dv != D, explicit scale.
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --Nq 100 --Nk 37 --D 16 --block-m 32 --block-n 16 --skip
// RUN: %{eq} %{f32} --Nq 30 --Nk 45 --D 16 --Dv 32 --scale 0.5 --block-m 8 --block-n 16 --skip

// Causal, Nq == Nk; without the skip pass every block is visited and masked.
// RUN: %{eq} %{f32} --Hq 4 --Hkv 2 --Nq 100 --Nk 100 --D 64 --causal --block-m 32 --block-n 16
// RUN: %{eq} %{f32} --Hq 4 --Hkv 2 --Nq 100 --Nk 100 --D 64 --causal --block-m 32 --block-n 16 --skip
// RUN: %{eq} %{f32} --Nq 64 --Nk 64 --D 16 --causal --block-m 64 --block-n 64 --skip
// RUN: %{eq} %{f32} --Hq 4 --Hkv 1 --Nq 100 --Nk 100 --D 16 --causal --block-m 128 --block-n 64 --skip
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 100 --D 64 --causal --block-m 64 --block-n 32 --skip
// RUN: %{eq} %{bf16} --Nq 77 --Nk 77 --D 16 --causal --block-m 16 --block-n 8 --skip

// Causal, Nq < Nk (bottom-right aligned: every row sees the first Nk - Nq keys).
// RUN: %{eq} %{f32} --Nq 37 --Nk 100 --D 16 --causal --block-m 16 --block-n 32 --skip
// RUN: %{eq} %{f32} --Nq 1 --Nk 100 --D 64 --causal --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{f32} --dynamic --B 2 --Nq 50 --Nk 70 --D 16 --causal --block-m 16 --block-n 8 --skip

// Causal, Nq > Nk: the first Nq - Nk rows see no key (O = 0, LSE = -inf).
// RUN: %{eq} %{f32} --Hq 4 --Hkv 1 --Nq 100 --Nk 37 --D 16 --causal --block-m 32 --block-n 16 --skip
// RUN: %{eq} %{f32} --Hq 4 --Hkv 1 --Nq 100 --Nk 37 --D 16 --causal --block-m 32 --block-n 16
// RUN: %{eq} %{f16} --Nq 7 --Nk 1 --D 16 --causal --block-m 4 --block-n 4 --skip
// RUN: %{eq} %{f16} --dynamic --Hq 2 --Hkv 1 --Nq 100 --Nk 7 --D 64 --causal --block-m 16 --block-n 32 --skip

// L3, the IR the GPU lowering consumes (--fa-map-warps, --fa-schedule-softmax,
// --fa-pipeline-kv), on the CPU: every placement of the rescale, Q in
// registers or shared memory, 2 to 4 K/V stages, over both K/V loops of
// causal block skipping, with tails and with Q blocks that see no key.
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 1 --rescale before-exp --query-home registers --stages 3
// RUN: %{eq} %{bf16} --Nq 77 --Nk 77 --D 32 --causal --block-m 16 --block-n 16 --skip --warps 1 --rescale after-exp --query-home shared --stages 4
// RUN: %{eq} %{f16} --B 2 --Hq 4 --Hkv 2 --Nq 100 --Nk 37 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2 --stages 3
// RUN: %{eq} %{f16} --dynamic --Hq 2 --Hkv 2 --Nq 50 --Nk 70 --D 32 --Dv 16 --block-m 16 --block-n 32 --skip --warps 1
// RUN: %{eq} %{bf16} --Nq 40 --Nk 40 --D 16 --block-m 16 --block-n 16 --warps 1 --stages 2
// Key groups (--fa-map-warps key-groups: warps along the keys, S and P
// split by columns, the accumulator and running sum as per-group summands):
// the encodings change nothing on the CPU, so these check that the tile
// ops the groups run are still attention, over ragged key blocks too.
// RUN: %{eq} %{f16} --Hq 4 --Hkv 2 --Nq 1 --Nk 300 --D 32 --causal --block-m 16 --block-n 64 --skip --warps 1 --key-groups 4
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 1 --Nq 37 --Nk 100 --D 16 --causal --block-m 32 --block-n 32 --skip --warps 2 --key-groups 2 --stages 3

// Sliding windows (FlashAttention-2's window_size, bottom-right aligned) and
// logit soft-capping, through L1/L2 (three K/V loops for a window: the
// masked left edge, the unmasked middle, the masked right edge) and L3:
// windows narrower than a block, wider than N, one side unbounded, with and
// without causal, Nq != Nk both ways (rows that see no key give O = 0,
// LSE = -inf), GQA.
// RUN: %{eq} %{f32} --Nq 100 --Nk 130 --D 16 --window 20 5 --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{f32} --Nq 100 --Nk 130 --D 16 --window 20 5 --block-m 16 --block-n 16
// RUN: %{eq} %{f16} --Hq 4 --Hkv 2 --Nq 100 --Nk 130 --D 16 --window 20 5 --causal --block-m 32 --block-n 16 --skip --warps 2
// RUN: %{eq} %{f16} --Nq 130 --Nk 100 --D 16 --window 7 -1 --block-m 16 --block-n 16 --skip --warps 1 --stages 3
// RUN: %{eq} %{f32} --Nq 64 --Nk 64 --D 16 --window -1 3 --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{f32} --Nq 40 --Nk 40 --D 16 --window 0 0 --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{bf16} --Nq 50 --Nk 50 --D 32 --window 500 500 --causal --block-m 16 --block-n 16 --skip --warps 1
// RUN: %{eq} %{f32} --Nq 90 --Nk 30 --D 16 --window 10 0 --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{f16} --Nq 70 --Nk 50 --D 16 --softcap 2.0 --causal --block-m 16 --block-n 16 --skip --warps 1

// GQA packing of a single query (--fa-tile-q-outer pack-gqa=true): the
// query heads of a group are the rows of one Q block (G = 4 in one block,
// G = 8 over two blocks of 4, MQA), every row query 0 (single_query mask):
// causal, windows (one- and two-sided), soft cap, ragged Nk. With a
// dynamic Nq (fourth line) the option leaves the op as it is.
// RUN: %{eq} %{f16} --B 2 --Hq 8 --Hkv 2 --Nq 1 --Nk 70 --D 16 --causal --block-m 16 --block-n 16 --skip --pack-gqa
// RUN: %{eq} %{bf16} --Hq 8 --Hkv 1 --Nq 1 --Nk 100 --D 32 --window 20 0 --causal --softcap 2.0 --block-m 4 --block-n 16 --skip --pack-gqa
// RUN: %{eq} %{f32} --Hq 6 --Hkv 2 --Nq 1 --Nk 33 --D 16 --window 5 3 --block-m 16 --block-n 8 --skip --pack-gqa
// RUN: %{eq} %{f32} --dynamic --B 2 --Hq 4 --Hkv 2 --Nq 1 --Nk 9 --D 16 --causal --block-m 16 --block-n 8 --pack-gqa
// Through L3 (the packed Q tile is one fa.async_load along_heads): G = 4,
// G = 8 with a window and soft cap on 2 warps, G = 6 with Q read from shared
// memory, G = 20 over two Q blocks of 16 rows.
// RUN: %{eq} %{f16} --B 2 --Hq 8 --Hkv 2 --Nq 1 --Nk 70 --D 16 --causal --block-m 16 --block-n 16 --skip --pack-gqa --warps 1
// RUN: %{eq} %{bf16} --Hq 8 --Hkv 1 --Nq 1 --Nk 100 --D 32 --window 20 0 --causal --softcap 2.0 --block-m 32 --block-n 16 --skip --pack-gqa --warps 2 --stages 3
// RUN: %{eq} %{f16} --Hq 12 --Hkv 2 --Nq 1 --Nk 45 --D 16 --window 5 3 --block-m 16 --block-n 16 --skip --pack-gqa --warps 1 --query-home shared
// RUN: %{eq} %{bf16} --Hq 40 --Hkv 2 --Nq 1 --Nk 37 --D 16 --causal --block-m 16 --block-n 16 --skip --pack-gqa --warps 1

// --fa-warp-block-skip (opt-in on the GPU): on the CPU fa.warp_row_range is
// the whole Q block, so every masked step runs inside its scf.if; the
// per-warp conditions are checked on the GPU (docs/gpu-correctness.md).
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2 --warp-skip
// RUN: %{eq} %{bf16} --Hq 4 --Hkv 2 --Nq 130 --Nk 100 --D 16 --window 20 5 --causal --softcap 2.0 --block-m 32 --block-n 16 --skip --warps 2 --stages 3 --warp-skip
// RUN: %{eq} %{f32} --Hq 2 --Hkv 1 --Nq 70 --Nk 90 --D 16 --softcap 1.5 --window 10 10 --block-m 16 --block-n 16 --skip
// RUN: %{eq} %{bf16} --Nq 33 --Nk 33 --D 16 --softcap 0.5 --scale 2.0 --block-m 16 --block-n 16 --skip --warps 1 --stages 4

// P V deferred by one K/V block (--fa-pipeline-mma, all-atoms=true so that
// the #fa.mma_sync layouts take it too; with --atom wgmma the #fa.wgmma
// ones): the unmasked and masked loops hand P and V on, the last block's
// P V follows the loops, rows and sequences with no key skip it. A wrong
// V in the first step, or the final P V left out, fails these.
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --warps 2 --pipeline-mma
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 130 --D 16 --causal --block-m 64 --block-n 16 --skip --warps 4 --atom wgmma --pipeline-mma
// With 128-byte rows (D = 64) the #fa.wgmma K/V tiles are swizzled and
// --fa-pipeline-kv makes them TMA loads, and with release=mbarrier their
// slots are released (fa.release, after_release; the previous block's
// future carried with the deferred P V, the block's own without it),
// static and dynamic N:
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 150 --D 64 --causal --block-m 64 --block-n 16 --skip --warps 4 --atom wgmma --pipeline-mma --kv-release mbarrier
// RUN: %{eq} %{bf16} --Hq 2 --Hkv 2 --Nq 90 --Nk 120 --D 64 --window 30 5 --causal --block-m 64 --block-n 16 --skip --warps 4 --atom wgmma --stages 3 --kv-release mbarrier
// RUN: %{eq} %{f16} --dynamic --Nq 40 --Nk 70 --D 64 --block-m 64 --block-n 32 --warps 4 --atom wgmma --pipeline-mma --stages 3 --kv-release mbarrier
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 100 --Nk 150 --D 64 --causal --block-m 64 --block-n 16 --skip --warps 4 --atom wgmma --pipeline-mma
// The warpgroups' turns (--fa-pingpong, two warpgroups: 128-row Q blocks on
// 8 warps; the loops' TMA loads issued by thread 128) change no value:
// fa.mma_turn is a no-op on the CPU, and the IR around it is the same.
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 200 --Nk 230 --D 64 --causal --block-m 128 --block-n 32 --skip --warps 8 --atom wgmma --pipeline-mma --stages 3 --kv-release mbarrier --pingpong
// RUN: %{eq} %{bf16} --dynamic --Nq 150 --Nk 90 --D 64 --window 40 10 --block-m 128 --block-n 64 --skip --warps 8 --atom wgmma --pipeline-mma --pingpong
// RUN: %{eq} %{bf16} --Nq 77 --Nk 77 --D 32 --causal --block-m 16 --block-n 16 --skip --warps 1 --rescale before-exp --query-home shared --stages 3 --pipeline-mma
// RUN: %{eq} %{bf16} --Hq 4 --Hkv 2 --Nq 130 --Nk 100 --D 16 --window 20 5 --causal --softcap 2.0 --block-m 32 --block-n 16 --skip --warps 2 --stages 3 --pipeline-mma
// RUN: %{eq} %{f16} --Nq 7 --Nk 1 --D 16 --causal --block-m 16 --block-n 16 --skip --warps 1 --pipeline-mma
// RUN: %{eq} %{f16} --dynamic --Hq 2 --Hkv 2 --Nq 50 --Nk 70 --D 32 --Dv 16 --block-m 16 --block-n 32 --warps 1 --stages 4 --pipeline-mma
// RUN: %{eq} %{f16} --Hq 2 --Hkv 1 --Nq 40 --Nk 130 --D 16 --causal --block-m 32 --block-n 16 --skip --split-kv 3 --combine-rows 0 --warps 2 --pipeline-mma
// RUN: %{eq} %{bf16} --Hq 8 --Hkv 1 --Nq 1 --Nk 100 --D 32 --window 20 0 --causal --softcap 2.0 --block-m 32 --block-n 16 --skip --pack-gqa --warps 2 --stages 3 --pipeline-mma
