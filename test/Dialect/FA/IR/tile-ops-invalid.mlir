// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile-level ops.

func.func @qk_dynamic(%q: tensor<?x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{query tile must have a static shape, got 'tensor<?x64xf16>'}}
  %s = fa.qk %q, %k scale(1.0) : tensor<?x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_rank(%q: tensor<128x64x1xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{query tile must be a rank-2 tile, got 'tensor<128x64x1xf16>'}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64x1xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_element_types(%q: tensor<128x64xf16>, %k: tensor<64x64xbf16>) {
  // expected-error @+1 {{query and key tiles must have the same element type}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64xf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_integer(%q: tensor<128x64xi8>, %k: tensor<64x64xi8>) {
  // expected-error @+1 {{query tile must have f16, bf16 or f32 elements, got 'tensor<128x64xi8>'}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64xi8>, tensor<64x64xi8> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_head_dim(%q: tensor<128x64xf16>, %k: tensor<64x32xf16>) {
  // expected-error @+1 {{query and key tiles must have the same head dim}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64xf16>, tensor<64x32xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_scores_shape(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{scores must be [query rows, key rows] = [128, 64], got 'tensor<64x128xf32>'}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @qk_scores_f32(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{scores must have f32 elements, got 'tensor<128x64xf16>'}}
  %s = fa.qk %q, %k scale(1.0) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @qk_scale(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{scale must be finite and > 0, got -1}}
  %s = fa.qk %q, %k scale(-1.0) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @mask_nothing(%s: tensor<128x64xf32>, %i: index) {
  // expected-error @+1 {{needs a key_limit, a causal_offset, or both}}
  %m = fa.mask %s[%i, %i] : tensor<128x64xf32>
  return
}

// -----

func.func @mask_scores_f32(%s: tensor<128x64xf16>, %i: index) {
  // expected-error @+1 {{scores must have f32 elements}}
  %m = fa.mask %s[%i, %i] key_limit(%i) : tensor<128x64xf16>
  return
}

// -----

func.func @softmax_rows(%s: tensor<128x64xf32>, %m: tensor<64xf32>) {
  // expected-error @+1 {{running max must have one entry per row (128), got 'tensor<64xf32>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %m : tensor<128x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @softmax_state_f32(%s: tensor<128x64xf32>, %m: tensor<128xf16>) {
  // expected-error @+1 {{running max must have f32 elements}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %m : tensor<128x64xf32>, tensor<128xf16>
  return
}

// -----

func.func @pv_types(%p: tensor<128x64xf32>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>, %a: tensor<128xf32>) {
  // expected-error @+1 {{P must have the element type of the value tile}}
  %r = fa.pv %p, %v, %acc, %a : tensor<128x64xf32>, tensor<64x64xf16>, tensor<128x64xf32>, tensor<128xf32>
  return
}

// -----

func.func @pv_inner_dim(%p: tensor<128x32xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>, %a: tensor<128xf32>) {
  // expected-error @+1 {{P columns must match value tile rows}}
  %r = fa.pv %p, %v, %acc, %a : tensor<128x32xf16>, tensor<64x64xf16>, tensor<128x64xf32>, tensor<128xf32>
  return
}

// -----

func.func @pv_acc_shape(%p: tensor<128x64xf16>, %v: tensor<64x32xf16>, %acc: tensor<128x64xf32>, %a: tensor<128xf32>) {
  // expected-error @+1 {{accumulator must be [P rows, value cols] = [128, 32], got 'tensor<128x64xf32>'}}
  %r = fa.pv %p, %v, %acc, %a : tensor<128x64xf16>, tensor<64x32xf16>, tensor<128x64xf32>, tensor<128xf32>
  return
}

// -----

func.func @pv_alpha(%p: tensor<128x64xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>, %a: tensor<64xf32>) {
  // expected-error @+1 {{alpha must have one entry per row (128)}}
  %r = fa.pv %p, %v, %acc, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @pv_acc_f32(%p: tensor<128x64xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf16>, %a: tensor<128xf32>) {
  // expected-error @+1 {{accumulator must have f32 elements}}
  %r = fa.pv %p, %v, %acc, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf16>, tensor<128xf32>
  return
}

// -----

func.func @finalize_shape(%acc: tensor<128x64xf32>, %m: tensor<128xf32>) {
  // expected-error @+1 {{output tile must have the accumulator's shape}}
  %o, %lse = fa.finalize %acc, %m, %m : tensor<128x64xf32>, tensor<128xf32> -> tensor<64x64xf16>
  return
}

// -----

func.func @finalize_rows(%acc: tensor<128x64xf32>, %m: tensor<32xf32>) {
  // expected-error @+1 {{running max must have one entry per row (128)}}
  %o, %lse = fa.finalize %acc, %m, %m : tensor<128x64xf32>, tensor<32xf32> -> tensor<128x64xf16>
  return
}
