// The naive lowering of fa.attention_backward (--fa-decompose-naive inside
// --fa-lower-to-cpu), run with mlir-runner, against the gradient computed
// independently in double precision by test/lit_utils/backward_reference.py
// (the softmax Jacobian directly, not D = rowsum(dO * O); the soft cap's
// derivative from tanh itself). test/lit_utils/backward_check.py draws Q, K,
// V, dO uniform in [-1, 1] (rounded to the element type), takes O and LSE
// from the double-precision forward (rounded to the element type and f32,
// as a forward kernel hands them over) and compares dQ, dK, dV element by
// element: |actual - expected| <= atol + rtol * |expected|.
//
// Tolerances. f32: 1e-5 + 1e-5 * |x|: f32 sums of at most a few dozen terms
// of size <= 1, and printMemrefF32's 6 significant digits (measured worst:
// 4.6e-6 at |x| = 1.3). f16: 2e-3 + 2e-3 * |x|: the gradients are rounded
// to f16 (half an ulp is 4.9e-4 relative) and O reaches D = rowsum(dO * O)
// rounded to f16 (measured worst: 8.7e-4 at |x| = 2.0). bf16: 1e-2 +
// 1e-2 * |x|: the same with bf16's 8-bit mantissa (half an ulp is 3.9e-3
// relative; measured worst: 7.2e-3 at |x| = 3.4).
//
// First, the reference itself against finite differences of sum(O * dO):
// RUN: %python %lit_utils/backward_reference.py --self-test --tol 1e-7
//
// DEFINE: %{bw} = %python %lit_utils/backward_check.py --runner-libs=%mlir_runner_libs
// DEFINE: %{f32} = --atol 1e-5 --rtol 1e-5
// DEFINE: %{f16} = --dtype f16 --atol 2e-3 --rtol 2e-3
// DEFINE: %{bf16} = --dtype bf16 --atol 1e-2 --rtol 1e-2
//
// No mask, Nq == Nk; then Nq != Nk both ways, Dv != D, explicit scale.
// RUN: %{bw} %{f32} --Nq 8 --Nk 8 --D 8
// RUN: %{bw} %{f32} --B 2 --Hq 2 --Hkv 2 --Nq 5 --Nk 11 --D 8 --Dv 4 --scale 0.5
// RUN: %{bw} %{f32} --Hq 2 --Hkv 1 --Nq 11 --Nk 5 --D 4 --Dv 8
//
// Causal, bottom-right aligned: Nq == Nk with GQA 4:2, Nq < Nk, and Nq > Nk
// with MQA 3:1, where the first rows see no key (LSE = -inf, no gradient).
// RUN: %{bw} %{f32} --Hq 4 --Hkv 2 --Nq 7 --Nk 7 --D 8 --causal
// RUN: %{bw} %{f32} --Nq 5 --Nk 9 --D 8 --causal
// RUN: %{bw} %{f32} --Hq 3 --Hkv 1 --Nq 9 --Nk 4 --D 8 --causal
//
// Sliding windows: both sides bounded, left only with causal, right only.
// RUN: %{bw} %{f32} --Hq 2 --Hkv 1 --Nq 10 --Nk 10 --D 8 --window 2 1
// RUN: %{bw} %{f32} --Nq 6 --Nk 11 --D 8 --window 3 -1 --causal
// RUN: %{bw} %{f32} --Nq 9 --Nk 6 --D 8 --window -1 0
//
// Soft cap: small enough to saturate (scale 2, c 1), with causal GQA, and
// with a window, MQA 4:1 and Dv != D.
// RUN: %{bw} %{f32} --Hq 2 --Hkv 1 --Nq 7 --Nk 7 --D 8 --scale 2.0 --softcap 1.0 --causal
// RUN: %{bw} %{f32} --Hq 4 --Hkv 1 --Nq 8 --Nk 12 --D 8 --Dv 4 --softcap 0.5 --window 4 2
//
// f16 and bf16; dynamic B and N.
// RUN: %{bw} %{f16} --Hq 4 --Hkv 2 --Nq 9 --Nk 9 --D 16 --causal
// RUN: %{bw} %{f16} --dynamic --B 2 --Hq 2 --Hkv 1 --Nq 6 --Nk 13 --D 16 --Dv 8 --scale 0.3
// RUN: %{bw} %{f16} --Hq 2 --Hkv 2 --Nq 12 --Nk 5 --D 8 --causal --softcap 2.0
// RUN: %{bw} %{bf16} --Hq 4 --Hkv 1 --Nq 10 --Nk 7 --D 16 --causal
// RUN: %{bw} %{bf16} --dynamic --Hq 2 --Hkv 1 --Nq 8 --Nk 8 --D 8 --window 2 2 --softcap 1.5
// RUN: %{bw} %{f32} --dynamic --B 3 --Nq 4 --Nk 6 --D 8 --causal
