// The GPU form of the backward (--fa-tile-backward: the D nest, the
// K/V-outer dK/dV nest on transposed tiles, the Q-outer dQ nest, all tile
// ops) against the naive backward (--fa-decompose-naive), both run on the
// CPU with mlir-runner on the same random inputs
// (test/lit_utils/backward_check.py --gpu-form --against naive), over the
// configurations of backward.mlir: ragged N, blocks larger than N, Nq != Nk
// both ways (rows with no key), GQA/MQA, causal, windows, softcap,
// f32/f16/bf16, dynamic shapes.
//
// Tolerances as in backward.mlir: f32 1e-5 + 1e-5 |x|; f16 1e-3 + 1e-3 |x|;
// bf16 8e-3 + 8e-3 |x|. For f16/bf16 the tiles round P and dS to the element
// type before their matmuls (as the GPU's MMA operands are), which the naive
// backward does not; the differences stay within one ulp of the result.
//
// DEFINE: %{bw} = %python %lit_utils/backward_check.py --gpu-form --against naive --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 1e-5 --rtol 1e-5
// DEFINE: %{f16} = --dtype f16 --atol 1e-3 --rtol 1e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 8e-3 --rtol 8e-3

// No mask.
// RUN: %{bw} %{f32} --Nq 1 --Nk 1 --D 8 --tile 4 4
// RUN: %{bw} %{f32} --Nq 13 --Nk 13 --D 8 --tile 4 8
// RUN: %{bw} %{f32} --B 2 --Hq 2 --Hkv 2 --Nq 9 --Nk 21 --D 8 --Dv 4 --scale 0.5 --tile 8 4
// RUN: %{bw} %{f32} --Hq 4 --Hkv 1 --Nq 21 --Nk 7 --D 16 --tile 16 16

// Causal: Nq == Nk with GQA, Nq < Nk, Nq > Nk (rows with no key), a block
// larger than the sequence.
// RUN: %{bw} %{f32} --Hq 4 --Hkv 2 --Nq 17 --Nk 17 --D 8 --causal --tile 4 8
// RUN: %{bw} %{f32} --Nq 6 --Nk 19 --D 8 --causal --tile 4 4
// RUN: %{bw} %{f32} --Hq 3 --Hkv 1 --Nq 19 --Nk 6 --D 8 --causal --tile 8 4
// RUN: %{bw} %{f32} --Nq 10 --Nk 10 --D 8 --causal --tile 32 32

// Windows and the soft cap.
// RUN: %{bw} %{f32} --Hq 2 --Hkv 1 --Nq 20 --Nk 20 --D 8 --window 3 2 --tile 4 8
// RUN: %{bw} %{f32} --Nq 9 --Nk 23 --D 8 --window 5 -1 --causal --tile 8 4
// RUN: %{bw} %{f32} --Nq 15 --Nk 9 --D 8 --window -1 1 --tile 4 4
// RUN: %{bw} %{f32} --Hq 2 --Hkv 1 --Nq 14 --Nk 14 --D 8 --scale 2.0 --softcap 1.0 --causal --tile 4 4
// RUN: %{bw} %{f32} --Hq 4 --Hkv 1 --Nq 12 --Nk 18 --D 8 --Dv 4 --softcap 0.5 --window 4 2 --tile 8 8

// f16, bf16, dynamic B and N.
// RUN: %{bw} %{f16} --Hq 4 --Hkv 2 --Nq 19 --Nk 19 --D 16 --causal --tile 8 8
// RUN: %{bw} %{f16} --dynamic --B 2 --Hq 2 --Hkv 1 --Nq 11 --Nk 26 --D 16 --Dv 8 --tile 4 8
// RUN: %{bw} %{f16} --Hq 2 --Hkv 2 --Nq 24 --Nk 9 --D 8 --causal --softcap 2.0 --tile 8 4
// RUN: %{bw} %{bf16} --Hq 4 --Hkv 1 --Nq 18 --Nk 13 --D 16 --causal --tile 8 4
// RUN: %{bw} %{bf16} --dynamic --Hq 2 --Hkv 1 --Nq 16 --Nk 16 --D 8 --window 2 2 --softcap 1.5 --tile 4 4
// RUN: %{bw} %{f32} --dynamic --B 3 --Nq 5 --Nk 11 --D 8 --causal --tile 4 4
