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

// -----

func.func @fragment_order_rows(%t: tensor<16x8xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  // expected-error @+1 {{'fa.accumulate_rows' op with fragment_order, rows must be the constant 16 (whole tiles: the tile's rows)}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%i) {fragment_order} : tensor<16x8xf32>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @fragment_order_partial(%t: tensor<16x8xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'fa.accumulate_rows' op with fragment_order, rows must be the constant 16 (whole tiles: the tile's rows)}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c8) {fragment_order} : tensor<16x8xf32>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @fragment_order_transposed(%t: tensor<8x16xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{'fa.accumulate_rows' op fragment_order and transposed exclude each other (fa.read_rows reads the block back as rows)}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c16) {transposed, fragment_order} : tensor<8x16xf32>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @fragment_order_width(%t: tensor<16x8xf32>, %ws: memref<1x1x?x?xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{'fa.accumulate_rows' op with fragment_order, the buffer's last dimension must be static, got 'memref<1x1x?x?xf32>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c16) {fragment_order} : tensor<16x8xf32>, memref<1x1x?x?xf32>
  return
}

// -----

#whole = #fa.warp_rows<acc, num_warps = 1, replicas = 2, atom = #fa.mma_sync>
func.func @fragment_order_replicated(%t: tensor<16x8xf32, #whole>, %ws: memref<1x1x?x8xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{'fa.accumulate_rows' op with fragment_order, the tile's threads must hold distinct elements (one group of warps, or share = columns), got 'tensor<16x8xf32, #fa.warp_rows<acc, num_warps = 1, replicas = 2, atom = #fa.mma_sync>>'}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c16) {fragment_order} : tensor<16x8xf32, #whole>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @read_rows_sums_rank(%s: tensor<?x8xf32>, %i: index) -> tensor<16x8xf32> {
  // expected-error @+1 {{'fa.read_rows' op sums must be a rank-4 [B, H, N, D] f32 tensor, got 'tensor<?x8xf32>'}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%i) : tensor<?x8xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @read_rows_f16(%s: tensor<1x1x?x8xf32>, %i: index) -> tensor<16x8xf16> {
  // expected-error @+1 {{'fa.read_rows' op tile must have f32 elements, got 'tensor<16x8xf16>'}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%i) : tensor<1x1x?x8xf32> -> tensor<16x8xf16>
  return %t : tensor<16x8xf16>
}

// -----

func.func @read_rows_columns(%s: tensor<1x1x?x8xf32>, %i: index) -> tensor<16x16xf32> {
  // expected-error @+1 {{'fa.read_rows' op the tile's columns (16) must be the last dimension of sums, got 'tensor<1x1x?x8xf32>'}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%i) : tensor<1x1x?x8xf32> -> tensor<16x16xf32>
  return %t : tensor<16x16xf32>
}

// -----

func.func @read_rows_fragment_order(%s: tensor<1x1x?x8xf32>, %i: index) -> tensor<16x8xf32> {
  // expected-error @+1 {{'fa.read_rows' op with fragment_order, rows must be the constant 16 (whole tiles: the tile's rows)}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%i) {fragment_order} : tensor<1x1x?x8xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

#summands = #fa.warp_rows<acc, num_warps = 1, replicas = 2, share = sum, atom = #fa.mma_sync>
func.func @read_rows_summands(%s: tensor<1x1x?x8xf32>, %i: index) -> tensor<16x8xf32, #summands> {
  // expected-error @+1 {{'fa.read_rows' op tile must have share = whole or columns, got 'tensor<16x8xf32, #fa.warp_rows<acc, num_warps = 1, replicas = 2, share = sum, atom = #fa.mma_sync>>'}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%i) : tensor<1x1x?x8xf32> -> tensor<16x8xf32, #summands>
  return %t : tensor<16x8xf32, #summands>
}

// -----

func.func @accumulate_rows_past_tile(%t: tensor<16x8xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  %c17 = arith.constant 17 : index
  // expected-error @+1 {{'fa.accumulate_rows' op rows must be in [0, 16] (the tile's rows), got 17}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c17) : tensor<16x8xf32>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @accumulate_columns_past_tile(%t: tensor<8x16xf32>, %ws: memref<1x1x?x8xf32>, %i: index) {
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{'fa.accumulate_rows' op rows must be in [0, 16] (the tile's columns), got 32}}
  fa.accumulate_rows %t into %ws[%i, %i, %i] rows(%c32) {transposed} : tensor<8x16xf32>, memref<1x1x?x8xf32>
  return
}

// -----

func.func @read_rows_negative(%s: tensor<1x1x?x8xf32>, %i: index) -> tensor<16x8xf32> {
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{'fa.read_rows' op rows must be in [0, 16] (the tile's rows), got -1}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%cm1) : tensor<1x1x?x8xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @read_rows_fragment_order_width(%s: tensor<1x1x?x?xf32>, %i: index) -> tensor<16x8xf32> {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{'fa.read_rows' op with fragment_order, the buffer's last dimension must be static, got 'tensor<1x1x?x?xf32>'}}
  %t = fa.read_rows %s[%i, %i, %i] rows(%c16) {fragment_order} : tensor<1x1x?x?xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}
