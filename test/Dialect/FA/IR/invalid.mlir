// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of fa.attention. Each diagnostic names the rule
// and the offending types or sizes.

func.func @mixed_tensor_and_memref(%q: tensor<2x8x128x64xf16>, %k: memref<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{expects all operands to be ranked tensors or all to be memrefs, got 'tensor<2x8x128x64xf16>' and 'memref<2x2x128x64xf16>' (operand #1)}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, memref<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @unranked_query(%q: tensor<*xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{expects ranked tensor or memref operands, operand #0 is 'tensor<*xf16>'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<*xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @three_outputs(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>, %l: tensor<2x8x128xf32>, %x: tensor<2x8x128xf32>) {
  // expected-error @+1 {{expects 1 or 2 outputs (O and optionally LSE), got 3}}
  %r0, %r1, %r2 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o, %l, %x : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>, tensor<2x8x128xf32>) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>, tensor<2x8x128xf32>
  return
}

// -----

func.func @missing_result(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>, %l: tensor<2x8x128xf32>) {
  // expected-error @+1 {{in tensor form expects one result per output (2), got 1}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @result_type_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{result type 'tensor<2x8x128x64xf32>' does not match its output type 'tensor<2x8x128x64xf16>'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf32>
  return
}

// -----

func.func @memref_form_with_result(%q: memref<2x8x128x64xf16>, %k: memref<2x2x128x64xf16>, %v: memref<2x2x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  // expected-error @+1 {{in memref form has no results, got 1}}
  %r0 = fa.attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x2x128x64xf16>, memref<2x2x128x64xf16>) outs(%o : memref<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @query_rank(%q: tensor<8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{query must have rank 4 [B, Hq, Nq, D], got rank 3}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @key_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64x1xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{key must have rank 4 [B, Hkv, Nk, D], got rank 5}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64x1xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @value_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{value must have rank 4 [B, Hkv, Nk, Dv], got rank 3}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @out_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128xf16>) {
  // expected-error @+1 {{out must have rank 4 [B, Hq, Nq, Dv], got rank 3}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128xf16>) -> tensor<2x8x128xf16>
  return
}

// -----

func.func @lse_rank(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>, %l: tensor<2x8x128x1xf32>) {
  // expected-error @+1 {{lse must have rank 3 [B, Hq, Nq], got rank 4}}
  %r0, %r1 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128x1xf32>) -> tensor<2x8x128x64xf16>, tensor<2x8x128x1xf32>
  return
}

// -----

func.func @unsupported_element_type(%q: tensor<2x8x128x64xi8>, %k: tensor<2x2x128x64xi8>, %v: tensor<2x2x128x64xi8>, %o: tensor<2x8x128x64xi8>) {
  // expected-error @+1 {{query element type must be f16, bf16 or f32, got 'i8'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xi8>, tensor<2x2x128x64xi8>, tensor<2x2x128x64xi8>) outs(%o : tensor<2x8x128x64xi8>) -> tensor<2x8x128x64xi8>
  return
}

// -----

func.func @f64_not_supported(%q: tensor<2x8x128x64xf64>, %k: tensor<2x2x128x64xf64>, %v: tensor<2x2x128x64xf64>, %o: tensor<2x8x128x64xf64>) {
  // expected-error @+1 {{query element type must be f16, bf16 or f32, got 'f64'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf64>, tensor<2x2x128x64xf64>, tensor<2x2x128x64xf64>) outs(%o : tensor<2x8x128x64xf64>) -> tensor<2x8x128x64xf64>
  return
}

// -----

func.func @key_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{key element type 'bf16' does not match query element type 'f16'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @value_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf32>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{value element type 'f32' does not match query element type 'f16'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf32>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @out_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf32>) {
  // expected-error @+1 {{out element type 'f32' does not match query element type 'f16'}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf32>) -> tensor<2x8x128x64xf32>
  return
}

// -----

func.func @lse_element_type(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>, %l: tensor<2x8x128xf16>) {
  // expected-error @+1 {{lse element type must be f32, got 'f16'}}
  %r0, %r1 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf16>) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf16>
  return
}

// -----

func.func @dynamic_head_dim(%q: tensor<2x8x128x?xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{head dim D must be static, got query [2, 8, 128, ?] and key [2, 2, 128, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x?xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @dynamic_value_head_dim(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x?xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{value head dim Dv must be static, got value [2, 2, 128, ?]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x?xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @dynamic_heads(%q: tensor<2x?x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x?x128x64xf16>) {
  // expected-error @+1 {{head counts Hq and Hkv must be static}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x?x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x?x128x64xf16>) -> tensor<2x?x128x64xf16>
  return
}

// -----

func.func @zero_head_dim(%q: tensor<2x8x128x0xf16>, %k: tensor<2x2x128x0xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{head counts and head dims must be positive}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x0xf16>, tensor<2x2x128x0xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @batch_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<3x2x128x64xf16>, %v: tensor<3x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{batch sizes differ: query [2, 8, 128, 64], key [3, 2, 128, 64], value [3, 2, 128, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<3x2x128x64xf16>, tensor<3x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @kv_heads_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x4x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{key and value must have the same number of heads, got 2 and 4}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x4x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @gqa_not_divisible(%q: tensor<2x6x128x64xf16>, %k: tensor<2x4x128x64xf16>, %v: tensor<2x4x128x64xf16>, %o: tensor<2x6x128x64xf16>) {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4) for grouped-query attention}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x64xf16>) outs(%o : tensor<2x6x128x64xf16>) -> tensor<2x6x128x64xf16>
  return
}

// -----

func.func @kv_seq_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x100x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{key and value sequence lengths differ: key [2, 2, 128, 64], value [2, 2, 100, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x100x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @qk_head_dim_mismatch(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x32xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{query head dim (64) does not match key head dim (32)}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x32xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @out_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x64x64xf16>) {
  // expected-error @+1 {{out shape must be [B, Hq, Nq, Dv] = [2, 8, 128, 64], got [2, 8, 64, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x64x64xf16>) -> tensor<2x8x64x64xf16>
  return
}

// -----

func.func @out_uses_value_head_dim(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x32xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{out shape must be [B, Hq, Nq, Dv] = [2, 8, 128, 32], got [2, 8, 128, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x32xf16>) outs(%o : tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @lse_shape(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>, %l: tensor<2x2x128xf32>) {
  // expected-error @+1 {{lse shape must be [B, Hq, Nq] = [2, 8, 128], got [2, 2, 128]}}
  %r0, %r1 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x2x128xf32>) -> tensor<2x8x128x64xf16>, tensor<2x2x128xf32>
  return
}

// -----

func.func @negative_scale(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be finite and > 0, got -1}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(-1.0) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @zero_scale(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be finite and > 0, got 0}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(0.0) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @infinite_scale(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be finite and > 0, got INF}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(0x7F800000) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @nan_scale(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be finite and > 0, got nan}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(0x7FC00000) -> tensor<2x8x128x64xf16>
  return
}

// -----

// The kernels multiply by scale * log2(e) in f32: it must not overflow.
func.func @scale_overflows_in_f32(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale * log2(e) must be a normal f32 number (scale between about 8e-39 and 2.3e38), got scale 3.000000e+38}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(3.0e38) -> tensor<2x8x128x64xf16>
  return
}

// -----

// ... nor be a subnormal (flushed to zero on the GPU).
func.func @scale_subnormal_in_f32(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale * log2(e) must be a normal f32 number}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(1.0e-40) -> tensor<2x8x128x64xf16>
  return
}

// -----

// With a soft cap the kernels take scale / softcap and softcap.
func.func @softcap_scale_overflows(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale / softcap (1.000000e+30 / 1.000000e-10) and softcap must be normal f32 numbers}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(1.0e30) softcap(1.0e-10) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @no_outputs(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>) {
  // expected-error @+1 {{expects 1 or 2 outputs (O and optionally LSE), got 0}}
  "fa.attention"(%q, %k, %v) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0>}> : (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) -> ()
  return
}

// -----

// A dynamic head count in the destination is as wrong as a different one.
func.func @out_dynamic_heads(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x?x128x64xf16>) {
  // expected-error @+1 {{out shape must be [B, Hq, Nq, Dv] = [2, 8, 128, 64], got [2, ?, 128, 64]}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x?x128x64xf16>) -> tensor<2x?x128x64xf16>
  return
}

// -----

// window(left, right) needs both sizes. The custom syntax always reads
// both, so only the generic form can give one.
func.func @window_left_only(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op window needs both sizes, window(left, right)}}
  %r0 = "fa.attention"(%q, %k, %v, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1>, window_left = 16 : i64}> : (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @window_right_only(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op window needs both sizes, window(left, right)}}
  %r0 = "fa.attention"(%q, %k, %v, %o) <{causal, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1>, window_right = -1 : i64}> : (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}

// -----

// -1 is the only negative size (an unbounded side).
func.func @window_left_below_minus_one(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op window sizes must be >= 0, or -1 for an unbounded side, got -2}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) window(-2, 0) -> tensor<2x8x128x64xf16>
  return
}

// -----

// The right side is checked too, also when causal ignores it.
func.func @window_right_below_minus_one(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op window sizes must be >= 0, or -1 for an unbounded side, got -100}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) causal window(8, -100) -> tensor<2x8x128x64xf16>
  return
}

// -----

// Each clause at most once (any order is fine).
func.func @clause_twice(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'scale' is given twice}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) scale(0.5) causal scale(0.25) -> tensor<2x8x128x64xf16>
  return
}

// -----

// A side of 2^30 or more would overflow the kernels' 32-bit key bounds and
// bounds no sequence anyway (-1 is the unbounded side).
func.func @window_side_too_wide(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op window sizes must be below 2^30 (1073741824), got 4294967296: a side that wide bounds no sequence; use -1 for an unbounded side}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) window(0, 4294967296) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @zero_softcap(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op softcap must be finite and > 0, got 0}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) softcap(0.0) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @negative_softcap(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op softcap must be finite and > 0, got -3.000000e+01}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) softcap(-30.0) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @infinite_softcap(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op softcap must be finite and > 0, got INF}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) softcap(0x7F800000) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @nan_softcap(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op softcap must be finite and > 0, got nan}}
  %r0 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) outs(%o : tensor<2x8x128x64xf16>) softcap(0x7FC00000) -> tensor<2x8x128x64xf16>
  return
}

// -----

// The attributes are typed: a window size is an i64, the cap an f32.
func.func @softcap_not_f32(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'fa.attention' op attribute 'softcap' failed to satisfy constraint: 32-bit float attribute}}
  %r0 = "fa.attention"(%q, %k, %v, %o) {softcap = 30.0 : f64} : (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
  return
}
