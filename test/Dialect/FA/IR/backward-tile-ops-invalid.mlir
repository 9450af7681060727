// RUN: fa-opt %s -split-input-file -verify-diagnostics

func.func @lse_length(%s: tensor<64x32xf32>, %lse: tensor<32xf32>, %c: f32) -> tensor<64x32xf32> {
  // expected-error @+1 {{'fa.probs_from_lse' op LSE must have one entry per row (64), got 'tensor<32xf32>'}}
  %p = fa.probs_from_lse %s, %lse scale(%c) : tensor<64x32xf32>, tensor<32xf32>
  return %p : tensor<64x32xf32>
}

// -----

// Transposed: one entry per column (query).
func.func @lse_length_transposed(%s: tensor<64x32xf32>, %lse: tensor<64xf32>, %c: f32) -> tensor<64x32xf32> {
  // expected-error @+1 {{'fa.probs_from_lse' op LSE must have one entry per row (32), got 'tensor<64xf32>'}}
  %p = fa.probs_from_lse %s, %lse scale(%c) {transposed} : tensor<64x32xf32>, tensor<64xf32>
  return %p : tensor<64x32xf32>
}

// -----

func.func @scores_f16(%s: tensor<64x32xf16>, %lse: tensor<64xf32>, %c: f32) -> tensor<64x32xf16> {
  // expected-error @+1 {{'fa.probs_from_lse' op scores must have f32 elements, got 'tensor<64x32xf16>'}}
  %p = fa.probs_from_lse %s, %lse scale(%c) : tensor<64x32xf16>, tensor<64xf32>
  return %p : tensor<64x32xf16>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @lse_with_layout(%s: tensor<64x32xf32, #acc>, %lse: tensor<64xf32, #rows>, %c: f32) -> tensor<64x32xf32, #acc> {
  // expected-error @+1 {{'fa.probs_from_lse' op LSE is read from memory by the threads that need it and must not have a layout}}
  %p = fa.probs_from_lse %s, %lse scale(%c) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>
  return %p : tensor<64x32xf32, #acc>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @dp_without_layout(%p: tensor<64x32xf32, #acc>, %dp: tensor<64x32xf32>, %d: tensor<64xf32>, %c: f32) {
  // expected-error @+1 {{'fa.score_grad' op failed to verify that all of {probs, grad_probs, grad_scores} have same type}}
  %ds = "fa.score_grad"(%p, %dp, %d, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>} : (tensor<64x32xf32, #acc>, tensor<64x32xf32>, tensor<64xf32>, f32) -> tensor<64x32xf32, #acc>
  return
}

// -----

func.func @capped_without_cap(%p: tensor<64x32xf32>, %d: tensor<64xf32>, %c: f32) {
  // expected-error @+1 {{'fa.score_grad' op takes the capped scores and the cap together}}
  %ds = "fa.score_grad"(%p, %p, %d, %c, %p) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>, f32, tensor<64x32xf32>) -> tensor<64x32xf32>
  return
}

// -----

func.func @d_length(%p: tensor<64x32xf32>, %d: tensor<16xf32>, %c: f32) {
  // expected-error @+1 {{'fa.score_grad' op D must have one entry per row (64), got 'tensor<16xf32>'}}
  %ds = fa.score_grad %p, %p, %d scale(%c) : tensor<64x32xf32>, tensor<16xf32>
  return
}

// -----

func.func @row_dot_shapes(%do: tensor<64x64xf16>, %o: tensor<64x32xf16>) {
  // expected-error @+1 {{'fa.row_dot' op dO and O tiles must have the same shape and element type, got 'tensor<64x64xf16>' and 'tensor<64x32xf16>'}}
  %d = fa.row_dot %do, %o : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64xf32>
  return
}

// -----

func.func @row_dot_rows(%do: tensor<64x64xf16>, %o: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.row_dot' op D must have one entry per row (64), got 'tensor<32xf32>'}}
  %d = fa.row_dot %do, %o : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<32xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @row_dot_operand_layout(%do: tensor<64x64xf16, #acc>, %o: tensor<64x64xf16, #acc>) {
  // expected-error @+1 {{'fa.row_dot' op dO and O tiles are read from memory and must not have a layout}}
  %d = fa.row_dot %do, %o : tensor<64x64xf16, #acc>, tensor<64x64xf16, #acc> -> tensor<64xf32>
  return
}

// -----

func.func @mask_both(%s: tensor<64x32xf32>, %i: index) {
  // expected-error @+1 {{'fa.mask' op takes transposed (rows are keys) or single_query (rows are heads of one query), not both}}
  %m = fa.mask %s[%i, %i] causal_offset(%i) {transposed, single_query} : tensor<64x32xf32>
  return
}
