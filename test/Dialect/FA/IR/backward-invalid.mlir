// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of fa.attention_backward that goes beyond
// fa.attention's, and a sample of the forward's rules, which it shares
// (invalid.mlir covers those one by one).

// A memref among tensors.
func.func @mixed_tensor_and_memref(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: memref<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{expects all operands to be ranked tensors or all to be memrefs, got 'tensor<2x8x128x64xf16>' and 'memref<2x8x128x32xf16>' (operand #4)}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, memref<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

// dQ, dK and dV are all required.
func.func @two_outputs(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{expects 3 outputs (dQ, dK, dV), got 2}}
  %r0, %r1 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>
  return
}

// -----

func.func @result_type_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{result type 'tensor<2x2x128x32xf32>' does not match its output type 'tensor<2x2x128x32xf16>'}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf32>
  return
}

// -----

// The forward's rules apply to Q, K, V, O and LSE.
func.func @query_rank(%q: tensor<8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{query must have rank 4 [B, Hq, Nq, D], got rank 3}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @lse_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf16>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{lse element type must be f32, got 'f16'}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf16>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @lse_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x2x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{lse shape must be [B, Hq, Nq] = [2, 8, 128], got [2, 2, 128]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x2x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @gqa_heads(%q: tensor<2x6x128x64xf16>, %k: tensor<2x4x128x64xf16>, %v: tensor<2x4x128x32xf16>, %o: tensor<2x6x128x32xf16>, %do: tensor<2x6x128x32xf16>, %l: tensor<2x6x128xf32>, %dq: tensor<2x6x128x64xf16>, %dk: tensor<2x4x128x64xf16>, %dv: tensor<2x4x128x32xf16>) {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4) for grouped-query attention}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x32xf16>, tensor<2x6x128x32xf16>, tensor<2x6x128x32xf16>, tensor<2x6x128xf32>) outs(%dq, %dk, %dv : tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x32xf16>) -> tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x32xf16>
  return
}

// -----

func.func @out_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x64xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{out shape must be [B, Hq, Nq, Dv] = [2, 8, 128, 32], got [2, 8, 128, 64]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

// dO is shaped and typed like O.
func.func @grad_out_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_out must have rank 4 [B, Hq, Nq, Dv], got rank 3}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @grad_out_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf32>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_out element type 'f32' does not match query element type 'f16'}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf32>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @grad_out_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x64x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_out shape must be [B, Hq, Nq, Dv] = [2, 8, 128, 32], got [2, 8, 64, 32]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x64x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

// dQ is shaped like Q.
func.func @grad_query_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x2x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_query shape must be [B, Hq, Nq, D] = [2, 8, 128, 64], got [2, 2, 128, 64]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

// dK is shaped like K: summed over the query heads of a group, not one per query head.
func.func @grad_key_per_query_head(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x8x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_key shape must be [B, Hkv, Nk, D] = [2, 2, 128, 64], got [2, 8, 128, 64]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @grad_key_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xbf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{grad_key element type 'bf16' does not match query element type 'f16'}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @grad_value_head_dim(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x64xf16>) {
  // expected-error @+1 {{grad_value shape must be [B, Hkv, Nk, Dv] = [2, 2, 128, 32], got [2, 2, 128, 64]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
  return
}

// -----

func.func @grad_value_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128xf16>) {
  // expected-error @+1 {{grad_value must have rank 4 [B, Hkv, Nk, Dv], got rank 3}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128xf16>
  return
}

// -----

// A dynamic head count in a destination is not the static Hkv.
func.func @grad_value_dynamic_heads(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x?x128x32xf16>) {
  // expected-error @+1 {{grad_value shape must be [B, Hkv, Nk, Dv] = [2, 2, 128, 32], got [2, ?, 128, 32]}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x?x128x32xf16>) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x?x128x32xf16>
  return
}

// -----

// The forward's attribute rules.
func.func @scale_not_positive(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{'fa.attention_backward' op scale must be finite and > 0, got -1}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) scale(-1.0) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @window_one_side_bad(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{'fa.attention_backward' op window sizes must be >= 0, or -1 for an unbounded side, got -2}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) window(-2, 0) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @window_side_too_wide(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{'fa.attention_backward' op window sizes must be below 2^30 (1073741824), got 9223372036854775807}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) causal window(9223372036854775807, 0) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}

// -----

func.func @softcap_zero(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x32xf16>, %do: tensor<2x8x128x32xf16>, %l: tensor<2x8x128xf32>, %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x32xf16>) {
  // expected-error @+1 {{'fa.attention_backward' op softcap must be finite and > 0, got 0}}
  %r0, %r1, %r2 = fa.attention_backward ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128x32xf16>, tensor<2x8x128xf32>) outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) softcap(0.0) -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>
  return
}
