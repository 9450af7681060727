// FlashAttention-2's atomic dQ in the GPU form of the backward
// (--fa-tile-backward dq=atomic: the dK/dV nest adds dQ^T = K^T dS^T into
// an f32 buffer the D nest zeroed, a last nest rounds it) against the naive
// backward (--fa-decompose-naive), both run on the CPU with mlir-runner on
// the same random inputs (test/lit_utils/backward_check.py --gpu-form
// --dq atomic --against naive). The CPU runs the additions one after the
// other, in the loop nests' order, so the sums are those of some order of
// the GPU's atomics. Configurations as in backward-gpu-form.mlir (ragged N,
// Nq != Nk both ways, GQA/MQA, causal, windows, softcap, f32/f16/bf16,
// dynamic shapes), and two at head dim 64 with --fa-map-warps first (the
// layouts of the atomic dQ, which the CPU lowering erases). Two with 64-row
// query tiles in the dK/dV nest, whose dQ = dS K has query rows (the
// transpose of dS^T times K); the second with layouts, where the rounding
// nest's blocks are those tiles and both ends take the fragment order
// (a GPU storage order: the CPU adds and reads by rows). Two with
// rotate-query-blocks=on (K/V block j walks the Q blocks from block j,
// wrapping around: every Q block still visited once), unmasked and with a
// left-only window (whose ranges start at Q block 0 too).
//
// Tolerances as in backward-gpu-form.mlir: f32 1e-5 + 1e-5 |x|; f16 1e-3 +
// 1e-3 |x|; bf16 8e-3 + 8e-3 |x|.
//
// DEFINE: %{bw} = %python %lit_utils/backward_check.py --gpu-form --dq atomic --against naive --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 1e-5 --rtol 1e-5
// DEFINE: %{f16} = --dtype f16 --atol 1e-3 --rtol 1e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 8e-3 --rtol 8e-3

// RUN: %{bw} %{f32} --Nq 13 --Nk 13 --D 8 --tile 4 8
// RUN: %{bw} %{f32} --B 2 --Hq 2 --Hkv 2 --Nq 9 --Nk 21 --D 8 --Dv 4 --scale 0.5 --tile 8 4
// RUN: %{bw} %{f32} --Hq 4 --Hkv 1 --Nq 21 --Nk 7 --D 16 --tile 16 16
// RUN: %{bw} %{f32} --Hq 4 --Hkv 2 --Nq 17 --Nk 17 --D 8 --causal --tile 4 8
// RUN: %{bw} %{f32} --Hq 3 --Hkv 1 --Nq 19 --Nk 6 --D 8 --causal --tile 8 4
// RUN: %{bw} %{f32} --Nq 9 --Nk 23 --D 8 --window 5 -1 --causal --tile 8 4
// RUN: %{bw} %{f32} --Hq 4 --Hkv 1 --Nq 12 --Nk 18 --D 8 --Dv 4 --softcap 0.5 --window 4 2 --tile 8 8
// RUN: %{bw} %{f16} --dynamic --B 2 --Hq 2 --Hkv 1 --Nq 11 --Nk 26 --D 16 --Dv 8 --tile 4 8
// RUN: %{bw} %{bf16} --dynamic --Hq 2 --Hkv 1 --Nq 16 --Nk 16 --D 8 --window 2 2 --softcap 1.5 --tile 4 4
// RUN: %{bw} %{f16} --Hq 4 --Hkv 2 --Nq 37 --Nk 70 --D 64 --causal --tile 64 64 --map-warps
// RUN: %{bw} %{bf16} --Hq 2 --Hkv 1 --Nq 81 --Nk 40 --D 64 --softcap 3.0 --tile 64 64 --map-warps
// RUN: %{bw} %{f16} --Hq 2 --Hkv 1 --Nq 70 --Nk 45 --D 16 --causal --tile 128 32
// RUN: %{bw} %{bf16} --Hq 4 --Hkv 1 --Nq 77 --Nk 50 --D 32 --tile 64 64 --dkdv-block-m 64 --map-warps
// RUN: %{bw} %{f32} --B 2 --Hq 4 --Hkv 2 --Nq 21 --Nk 37 --D 8 --tile 4 8 --rotate-query-blocks on
// RUN: %{bw} %{bf16} --Hq 2 --Hkv 1 --Nq 150 --Nk 200 --D 32 --window 90 -1 --tile 64 64 --dkdv-block-m 64 --rotate-query-blocks on --map-warps
