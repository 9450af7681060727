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

// -----

func.func @transpose_shape(%t: tensor<16x8xf16>) {
  // expected-error @+1 {{'fa.transpose' op result must be the source's transpose, got 'tensor<16x8xf16>' -> 'tensor<16x8xf16>'}}
  %r = fa.transpose %t : tensor<16x8xf16> -> tensor<16x8xf16>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @transpose_same_storage(%t: tensor<16x32xf16, #shared>) {
  // expected-error @+1 {{'fa.transpose' op with layouts, transposes a shared tile into a view of the same memory: #fa.block_shared of one atom and 'swizzled' with the opposite 'transposed'}}
  %r = fa.transpose %t : tensor<16x32xf16, #shared> -> tensor<32x16xf16, #shared>
  return
}

// -----

// A transposed view keeps the tile's swizzle (the same memory).
#swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @transpose_drops_swizzle(%t: tensor<32x64xf16, #swz>) {
  // expected-error @+1 {{'fa.transpose' op with layouts, transposes a shared tile into a view of the same memory: #fa.block_shared of one atom and 'swizzled' with the opposite 'transposed'}}
  %r = fa.transpose %t : tensor<32x64xf16, #swz> -> tensor<64x32xf16, #shared_t>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @transpose_registers(%t: tensor<32x32xf16, #acc>) {
  // expected-error @+1 {{'fa.transpose' op with layouts, transposes a shared tile into a view of the same memory}}
  %r = fa.transpose %t : tensor<32x32xf16, #acc> -> tensor<32x32xf16, #shared>
  return
}

// -----

// The stored shape of a transposed shared tile is what the atom checks:
// [12, 16] has rows of 16 elements, but it is stored [16, 12].
func.func @transposed_storage_columns(
    // expected-error @+1 {{#fa.mma_sync: a shared tile is copied in rows of 16-byte chunks: columns must be a multiple of 8, got 12}}
    %t: tensor<12x16xf16, #fa.block_shared<atom = #fa.mma_sync, transposed = true>>) {
  return
}

// -----

func.func @accumulate_f16(%t: tensor<16x8xf16>, %ws: memref<1x1x16x8xf32>, %i: index) {
  // expected-error @+1 {{'fa.accumulate_rows' op tile must have f32 elements, got 'tensor<16x8xf16>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%i) : tensor<16x8xf16>, memref<1x1x16x8xf32>
  return
}

// -----

func.func @accumulate_buffer_rank(%t: tensor<16x8xf32>, %ws: memref<16x8xf32>, %i: index) {
  // expected-error @+1 {{'fa.accumulate_rows' op buffer must be a rank-4 [B, H, N, D] f32 memref, got 'memref<16x8xf32>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%i) : tensor<16x8xf32>, memref<16x8xf32>
  return
}

// -----

func.func @accumulate_buffer_f16(%t: tensor<16x8xf32>, %ws: memref<1x1x16x8xf16>, %i: index) {
  // expected-error @+1 {{'fa.accumulate_rows' op buffer must be a rank-4 [B, H, N, D] f32 memref, got 'memref<1x1x16x8xf16>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%i) : tensor<16x8xf32>, memref<1x1x16x8xf16>
  return
}

// -----

func.func @accumulate_columns(%t: tensor<16x8xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  // expected-error @+1 {{'fa.accumulate_rows' op the tile's rows (16) must be the buffer's last dimension, got 'memref<1x1x?x8xf32>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%i) {transposed} : tensor<16x8xf32>, memref<1x1x?x8xf32>
  return
}
