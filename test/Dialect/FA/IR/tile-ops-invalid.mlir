// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile-level ops (lib/Dialect/FA/IR/
// TileOps.cpp): shapes, ranks and element types first (L1), then the layout
// rules once an op has layout encodings (L3), then fa.convert_layout,
// fa.async_load and fa.await. Each diagnostic names the operand and the
// offending type. The rules of the encodings themselves are in
// layouts-invalid.mlir.

//===----------------------------------------------------------------------===//
// fa.qk
//===----------------------------------------------------------------------===//

// Tiles are static.
func.func @qk_dynamic(%q: tensor<?x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op query tile must have a static shape, got 'tensor<?x64xf16>'}}
  %s = fa.qk %q, %k : tensor<?x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return
}

// -----

// Q, K and S are rank-2 tiles; the rank is checked before the shape.
func.func @qk_rank(%q: tensor<128x64x1xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op query tile must be a rank-2 tile, got 'tensor<128x64x1xf16>'}}
  %s = fa.qk %q, %k : tensor<128x64x1xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_key_rank(%q: tensor<128x64xf16>, %k: tensor<64xf16>) {
  // expected-error @+1 {{'fa.qk' op key tile must be a rank-2 tile, got 'tensor<64xf16>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_scores_rank(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op scores must be a rank-2 tile, got 'tensor<8192xf32>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<8192xf32>
  return
}

// -----

func.func @qk_element_types(%q: tensor<128x64xf16>, %k: tensor<64x64xbf16>) {
  // expected-error @+1 {{'fa.qk' op query and key tiles must have the same element type, got 'tensor<128x64xf16>' and 'tensor<64x64xbf16>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  return
}

// -----

// Only floating-point tiles (f16, bf16, f32).
func.func @qk_integer(%q: tensor<128x64xi8>, %k: tensor<64x64xi8>) {
  // expected-error @+1 {{'fa.qk' op query tile must have f16, bf16 or f32 elements, got 'tensor<128x64xi8>'}}
  %s = fa.qk %q, %k : tensor<128x64xi8>, tensor<64x64xi8> -> tensor<128x64xf32>
  return
}

// -----

func.func @qk_head_dim(%q: tensor<128x64xf16>, %k: tensor<64x32xf16>) {
  // expected-error @+1 {{'fa.qk' op query and key tiles must have the same head dim, got 'tensor<128x64xf16>' and 'tensor<64x32xf16>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x32xf16> -> tensor<128x64xf32>
  return
}

// -----

// S is [Q rows, K rows], not transposed.
func.func @qk_scores_shape(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op scores must be [query rows, key rows] = [128, 64], got 'tensor<64x128xf32>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<64x128xf32>
  return
}

// -----

// Scores are accumulated in f32.
func.func @qk_scores_f32(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op scores must have f32 elements, got 'tensor<128x64xf16>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf16>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// With layouts, Q is an A operand in registers or a shared tile; an acc
// tile (P's layout before fa.convert_layout) is not an MMA operand. The
// message lists both allowed layouts.
func.func @qk_query_layout(%q: tensor<128x64xf16, #acc>, %k: tensor<64x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op query tile must have the layout #fa.warp_rows<operand_a> or #fa.block_shared once the op has layouts, got 'tensor<128x64xf16, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16, #acc>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>

// K is read by every warp: it must be in shared memory.
func.func @qk_key_layout(%q: tensor<128x64xf16, #opA>, %k: tensor<64x64xf16, #opA>) {
  // expected-error @+1 {{'fa.qk' op key tile must have the layout #fa.block_shared once the op has layouts, got 'tensor<64x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16, #opA>, tensor<64x64xf16, #opA> -> tensor<128x64xf32, #acc>
  return
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// Some tiles with layouts and some without: the tile without one is
// reported.
func.func @qk_scores_no_layout(%q: tensor<128x64xf16, #opA>, %k: tensor<64x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op scores must have the layout #fa.warp_rows<acc> once the op has layouts, got 'tensor<128x64xf32>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>

func.func @qk_query_no_layout(%q: tensor<128x64xf16>, %k: tensor<64x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op query tile must have the layout #fa.warp_rows<operand_a> or #fa.block_shared once the op has layouts, got 'tensor<128x64xf16>'}}
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>

// An encoding of another dialect is not an fa layout: it is reported like a
// missing one.
func.func @qk_query_foreign_encoding(%q: tensor<128x64xf16, "other">, %k: tensor<64x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op query tile must have the layout #fa.warp_rows<operand_a> or #fa.block_shared once the op has layouts, got 'tensor<128x64xf16, "other">'}}
  %s = fa.qk %q, %k : tensor<128x64xf16, "other">, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  return
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#acc8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// Q and S are split over the same warps; the message names both counts and
// the tile that differs.
func.func @qk_num_warps(%q: tensor<128x64xf16, #opA>, %k: tensor<64x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op all tiles held by warps must use the same num_warps, got 4 and 8 (scores)}}
  %s = fa.qk %q, %k : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.mask
//===----------------------------------------------------------------------===//

func.func @mask_nothing(%s: tensor<128x64xf32>, %i: index) {
  // expected-error @+1 {{'fa.mask' op needs a key_limit, a causal_offset or a window_offset}}
  %m = fa.mask %s[%i, %i] : tensor<128x64xf32>
  return
}

// -----

func.func @mask_scores_f32(%s: tensor<128x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.mask' op scores must have f32 elements, got 'tensor<128x64xf16>'}}
  %m = fa.mask %s[%i, %i] key_limit(%i) : tensor<128x64xf16>
  return
}

// -----

func.func @mask_scores_rank(%s: tensor<128xf32>, %i: index) {
  // expected-error @+1 {{'fa.mask' op scores must be a rank-2 tile, got 'tensor<128xf32>'}}
  %m = fa.mask %s[%i, %i] causal_offset(%i) : tensor<128xf32>
  return
}

// -----

func.func @mask_dynamic(%s: tensor<128x?xf32>, %i: index) {
  // expected-error @+1 {{'fa.mask' op scores must have a static shape, got 'tensor<128x?xf32>'}}
  %m = fa.mask %s[%i, %i] key_limit(%i) causal_offset(%i) : tensor<128x?xf32>
  return
}

// -----

// A window bound alone is enough; the scores are still checked.
func.func @mask_window_rank(%s: tensor<128x64x1xf32>, %i: index) {
  // expected-error @+1 {{'fa.mask' op scores must be a rank-2 tile, got 'tensor<128x64x1xf32>'}}
  %m = fa.mask %s[%i, %i] window_offset(%i) : tensor<128x64x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.softcap
//===----------------------------------------------------------------------===//

// The scores are a rank-2 f32 tile (the raw Q K^T).
func.func @softcap_rank(%s: tensor<128xf32>, %x: f32, %c: f32) {
  // expected-error @+1 {{'fa.softcap' op scores must be a rank-2 tile, got 'tensor<128xf32>'}}
  %r = fa.softcap %s scale(%x) cap(%c) : tensor<128xf32>
  return
}

// -----

func.func @softcap_f16(%s: tensor<128x64xf16>, %x: f32, %c: f32) {
  // expected-error @+1 {{'fa.softcap' op scores must have f32 elements, got 'tensor<128x64xf16>'}}
  %r = fa.softcap %s scale(%x) cap(%c) : tensor<128x64xf16>
  return
}

// -----

func.func @softcap_dynamic(%s: tensor<?x64xf32>, %x: f32, %c: f32) {
  // expected-error @+1 {{'fa.softcap' op scores must have a static shape, got 'tensor<?x64xf32>'}}
  %r = fa.softcap %s scale(%x) cap(%c) : tensor<?x64xf32>
  return
}

// -----

// The scale and the cap are f32 values.
func.func @softcap_cap_f16(%s: tensor<128x64xf32>, %x: f32, %c: f16) {
  // expected-error @+1 {{'fa.softcap' op operand #2 must be 32-bit float, but got 'f16'}}
  %r = "fa.softcap"(%s, %x, %c) : (tensor<128x64xf32>, f32, f16) -> tensor<128x64xf32>
  return
}

// -----

// The result is the scores' type (layout included). (fa.softcap's layout
// rule, acc once it has layouts, cannot be broken by a valid type: of the
// #fa.mma_sync encodings only acc holds a 2-D f32 tile; the encodings' own
// rules are in layouts-invalid.mlir.)
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
func.func @softcap_result_type(%s: tensor<128x64xf32, #acc>, %x: f32, %c: f32) {
  // expected-error @+1 {{'fa.softcap' op failed to verify that all of {scores, result} have same type}}
  %r = "fa.softcap"(%s, %x, %c) : (tensor<128x64xf32, #acc>, f32, f32) -> tensor<128x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.online_softmax
//===----------------------------------------------------------------------===//

// m has one entry per row of S.
func.func @softmax_rows(%s: tensor<128x64xf32>, %m: tensor<64xf32>, %l: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running max must have one entry per row (128), got 'tensor<64xf32>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32>, tensor<64xf32>, tensor<128xf32>
  return
}

// -----

func.func @softmax_sum_rows(%s: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<256xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running sum must have one entry per row (128), got 'tensor<256xf32>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32>, tensor<128xf32>, tensor<256xf32>
  return
}

// -----

// The softmax state is f32.
func.func @softmax_state_f32(%s: tensor<128x64xf32>, %m: tensor<128xf16>, %l: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running max must have f32 elements, got 'tensor<128xf16>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32>, tensor<128xf16>, tensor<128xf32>
  return
}

// -----

// m is a per-row vector, not a [rows, 1] tile.
func.func @softmax_max_rank(%s: tensor<128x64xf32>, %m: tensor<128x1xf32>, %l: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running max must be a rank-1 tile, got 'tensor<128x1xf32>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32>, tensor<128x1xf32>, tensor<128xf32>
  return
}

// -----

func.func @softmax_scores_f32(%s: tensor<128x64xbf16>, %m: tensor<128xf32>, %l: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op scores must have f32 elements, got 'tensor<128x64xbf16>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xbf16>, tensor<128xf32>, tensor<128xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>

// The max is reduced across the quad: it must be `rows`, never per-lane
// shares.
func.func @softmax_max_partial(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #partial>, %l: tensor<128xf32, #partial>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running max must have the layout #fa.warp_rows<rows> once the op has layouts, got 'tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #partial>, tensor<128xf32, #partial>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

// The sum may be rows or partial_rows (both listed), but not absent.
func.func @softmax_sum_no_layout(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows>, %l: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running sum must have the layout #fa.warp_rows<rows> or #fa.warp_rows<partial_rows> once the op has layouts, got 'tensor<128xf32>'}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#rows8 = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>

func.func @softmax_num_warps(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows8>, %l: tensor<128xf32, #rows8>, %c: f32) {
  // expected-error @+1 {{'fa.online_softmax' op all tiles held by warps must use the same num_warps, got 4 and 8 (running max)}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows8>, tensor<128xf32, #rows8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.running_max, fa.softmax_exp
//===----------------------------------------------------------------------===//

func.func @running_max_rows(%s: tensor<64x64xf32>, %m: tensor<128xf32>, %c: f32) {
  // expected-error @+1 {{'fa.running_max' op running max must have one entry per row (64), got 'tensor<128xf32>'}}
  %m2, %a = fa.running_max %s, %m scale(%c) : tensor<64x64xf32>, tensor<128xf32>
  return
}

// -----

func.func @running_max_scores_rank(%s: tensor<64x64x1xf32>, %m: tensor<64xf32>, %c: f32) {
  // expected-error @+1 {{'fa.running_max' op scores must be a rank-2 tile, got 'tensor<64x64x1xf32>'}}
  %m2, %a = fa.running_max %s, %m scale(%c) : tensor<64x64x1xf32>, tensor<64xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>

func.func @running_max_partial(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #partial>, %c: f32) {
  // expected-error @+1 {{'fa.running_max' op running max must have the layout #fa.warp_rows<rows> once the op has layouts, got 'tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>'}}
  %m2, %a = fa.running_max %s, %m scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #partial>
  return
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

func.func @running_max_scores_no_layout(%s: tensor<128x64xf32>, %m: tensor<128xf32, #rows>, %c: f32) {
  // expected-error @+1 {{'fa.running_max' op scores must have the layout #fa.warp_rows<acc> once the op has layouts, got 'tensor<128x64xf32>'}}
  %m2, %a = fa.running_max %s, %m scale(%c) : tensor<128x64xf32>, tensor<128xf32, #rows>
  return
}

// -----

func.func @softmax_exp_sum_rows(%s: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<64xf32>, %c: f32) {
  // expected-error @+1 {{'fa.softmax_exp' op running sum must have one entry per row (128), got 'tensor<64xf32>'}}
  %p, %l2 = fa.softmax_exp %s, %m, %m, %l scale(%c) : tensor<128x64xf32>, tensor<128xf32>, tensor<64xf32>
  return
}

// -----

func.func @softmax_exp_sum_f32(%s: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<128xbf16>, %c: f32) {
  // expected-error @+1 {{'fa.softmax_exp' op running sum must have f32 elements, got 'tensor<128xbf16>'}}
  %p, %l2 = fa.softmax_exp %s, %m, %m, %l scale(%c) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xbf16>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>

// The new max (and alpha, of the same type) must be rows.
func.func @softmax_exp_max_partial(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #partial>, %l: tensor<128xf32, #partial>, %c: f32) {
  // expected-error @+1 {{'fa.softmax_exp' op running max must have the layout #fa.warp_rows<rows> once the op has layouts, got 'tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>'}}
  %p, %l2 = fa.softmax_exp %s, %m, %m, %l scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #partial>, tensor<128xf32, #partial>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial2 = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>

func.func @softmax_exp_num_warps(%s: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial2>, %c: f32) {
  // expected-error @+1 {{'fa.softmax_exp' op all tiles held by warps must use the same num_warps, got 4 and 2 (running sum)}}
  %p, %l2 = fa.softmax_exp %s, %m, %m, %l scale(%c) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.rescale
//===----------------------------------------------------------------------===//

func.func @rescale_acc_f32(%acc: tensor<128x64xf16>, %a: tensor<128xf32>) {
  // expected-error @+1 {{'fa.rescale' op accumulator must have f32 elements, got 'tensor<128x64xf16>'}}
  %r = fa.rescale %acc, %a : tensor<128x64xf16>, tensor<128xf32>
  return
}

// -----

func.func @rescale_alpha_rows(%acc: tensor<128x64xf32>, %a: tensor<64xf32>) {
  // expected-error @+1 {{'fa.rescale' op alpha must have one entry per row (128), got 'tensor<64xf32>'}}
  %r = fa.rescale %acc, %a : tensor<128x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rescale_alpha_dynamic(%acc: tensor<128x64xf32>, %a: tensor<?xf32>) {
  // expected-error @+1 {{'fa.rescale' op alpha must have a static shape, got 'tensor<?xf32>'}}
  %r = fa.rescale %acc, %a : tensor<128x64xf32>, tensor<?xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>

// alpha multiplies every element of a row: each lane needs the whole value.
func.func @rescale_alpha_partial(%acc: tensor<128x64xf32, #acc>, %a: tensor<128xf32, #partial>) {
  // expected-error @+1 {{'fa.rescale' op alpha must have the layout #fa.warp_rows<rows> once the op has layouts, got 'tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.rescale %acc, %a : tensor<128x64xf32, #acc>, tensor<128xf32, #partial>
  return
}

// -----

#acc2 = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#rows4 = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

func.func @rescale_num_warps(%acc: tensor<128x64xf32, #acc2>, %a: tensor<128xf32, #rows4>) {
  // expected-error @+1 {{'fa.rescale' op all tiles held by warps must use the same num_warps, got 2 and 4 (alpha)}}
  %r = fa.rescale %acc, %a : tensor<128x64xf32, #acc2>, tensor<128xf32, #rows4>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.pv
//===----------------------------------------------------------------------===//

// P is rounded to V's element type (arith.truncf) before fa.pv.
func.func @pv_types(%p: tensor<128x64xf32>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op P must have the element type of the value tile, got 'tensor<128x64xf32>' and 'tensor<64x64xf16>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf32>, tensor<64x64xf16>, tensor<128x64xf32>
  return
}

// -----

func.func @pv_inner_dim(%p: tensor<128x32xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op P columns must match value tile rows, got 'tensor<128x32xf16>' and 'tensor<64x64xf16>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x32xf16>, tensor<64x64xf16>, tensor<128x64xf32>
  return
}

// -----

func.func @pv_acc_shape(%p: tensor<128x64xf16>, %v: tensor<64x32xf16>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op accumulator must be [P rows, value cols] = [128, 32], got 'tensor<128x64xf32>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16>, tensor<64x32xf16>, tensor<128x64xf32>
  return
}

// -----

func.func @pv_acc_f32(%p: tensor<128x64xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf16>) {
  // expected-error @+1 {{'fa.pv' op accumulator must have f32 elements, got 'tensor<128x64xf16>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf16>
  return
}

// -----

func.func @pv_p_rank(%p: tensor<8192xf16>, %v: tensor<64x64xf16>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op P must be a rank-2 tile, got 'tensor<8192xf16>'}}
  %r = fa.pv %p, %v, %acc : tensor<8192xf16>, tensor<64x64xf16>, tensor<128x64xf32>
  return
}

// -----

func.func @pv_value_dynamic(%p: tensor<128x64xf16>, %v: tensor<64x?xf16>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op value tile must have a static shape, got 'tensor<64x?xf16>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16>, tensor<64x?xf16>, tensor<128x64xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// P is an A operand: an acc tile needs fa.convert_layout first.
func.func @pv_p_acc(%p: tensor<128x64xf16, #acc>, %v: tensor<64x64xf16, #shared>, %acc: tensor<128x64xf32, #acc>) {
  // expected-error @+1 {{'fa.pv' op P must have the layout #fa.warp_rows<operand_a> or #fa.block_shared once the op has layouts, got 'tensor<128x64xf16, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16, #acc>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>

func.func @pv_value_registers(%p: tensor<128x64xf16, #opA>, %v: tensor<64x64xf16, #opA>, %acc: tensor<128x64xf32, #acc>) {
  // expected-error @+1 {{'fa.pv' op value tile must have the layout #fa.block_shared once the op has layouts, got 'tensor<64x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16, #opA>, tensor<64x64xf16, #opA>, tensor<128x64xf32, #acc>
  return
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @pv_acc_no_layout(%p: tensor<128x64xf16, #opA>, %v: tensor<64x64xf16, #shared>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{'fa.pv' op accumulator must have the layout #fa.warp_rows<acc> once the op has layouts, got 'tensor<128x64xf32>'}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32>
  return
}

// -----

#opA2 = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#acc4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// The shared tile between them has no num_warps; the two warp tiles still
// must agree.
func.func @pv_num_warps(%p: tensor<128x64xf16, #opA2>, %v: tensor<64x64xf16, #shared>, %acc: tensor<128x64xf32, #acc4>) {
  // expected-error @+1 {{'fa.pv' op all tiles held by warps must use the same num_warps, got 2 and 4 (accumulator)}}
  %r = fa.pv %p, %v, %acc : tensor<128x64xf16, #opA2>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc4>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.finalize
//===----------------------------------------------------------------------===//

func.func @finalize_shape(%acc: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<128xf32>) {
  // expected-error @+1 {{'fa.finalize' op output tile must have the accumulator's shape, got 'tensor<64x64xf16>' for 'tensor<128x64xf32>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<64x64xf16>
  return
}

// -----

func.func @finalize_rows(%acc: tensor<128x64xf32>, %m: tensor<32xf32>, %l: tensor<128xf32>) {
  // expected-error @+1 {{'fa.finalize' op running max must have one entry per row (128), got 'tensor<32xf32>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32>, tensor<32xf32>, tensor<128xf32> -> tensor<128x64xf16>
  return
}

// -----

func.func @finalize_sum_rows(%acc: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<32xf32>) {
  // expected-error @+1 {{'fa.finalize' op running sum must have one entry per row (128), got 'tensor<32xf32>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32>, tensor<128xf32>, tensor<32xf32> -> tensor<128x64xf16>
  return
}

// -----

func.func @finalize_acc_f32(%acc: tensor<128x64xbf16>, %m: tensor<128xf32>, %l: tensor<128xf32>) {
  // expected-error @+1 {{'fa.finalize' op accumulator must have f32 elements, got 'tensor<128x64xbf16>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xbf16>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xbf16>
  return
}

// -----

func.func @finalize_output_integer(%acc: tensor<128x64xf32>, %m: tensor<128xf32>, %l: tensor<128xf32>) {
  // expected-error @+1 {{'fa.finalize' op output tile must have f16, bf16 or f32 elements, got 'tensor<128x64xi16>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xi16>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>

// O is written from the accumulator fragments: an acc tile.
func.func @finalize_output_layout(%acc: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>) {
  // expected-error @+1 {{'fa.finalize' op output tile must have the layout #fa.warp_rows<acc> once the op has layouts, got 'tensor<128x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #opA>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

func.func @finalize_sum_no_layout(%acc: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows>, %l: tensor<128xf32>) {
  // expected-error @+1 {{'fa.finalize' op running sum must have the layout #fa.warp_rows<rows> or #fa.warp_rows<partial_rows> once the op has layouts, got 'tensor<128xf32>'}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32> -> tensor<128x64xf16, #acc>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#acc8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

func.func @finalize_num_warps(%acc: tensor<128x64xf32, #acc>, %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #rows>) {
  // expected-error @+1 {{'fa.finalize' op all tiles held by warps must use the same num_warps, got 4 and 8 (output tile)}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #rows> -> tensor<128x64xf16, #acc8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.convert_layout
//===----------------------------------------------------------------------===//

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>

func.func @convert_shape(%p: tensor<128x64xf16, #acc>) {
  // expected-error @+1 {{'fa.convert_layout' op changes only the layout: shape and element type must stay, got 'tensor<128x64xf16, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>' -> 'tensor<128x32xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.convert_layout %p : tensor<128x64xf16, #acc> -> tensor<128x32xf16, #opA>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>

// No rounding hidden in a layout change: that is arith.truncf's job.
func.func @convert_element_type(%p: tensor<128x64xf32, #acc>) {
  // expected-error @+1 {{'fa.convert_layout' op changes only the layout: shape and element type must stay, got 'tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>' -> 'tensor<128x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.convert_layout %p : tensor<128x64xf32, #acc> -> tensor<128x64xf16, #opA>
  return
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>

func.func @convert_from_plain(%q: tensor<128x64xf16>) {
  // expected-error @+1 {{'fa.convert_layout' op converts between fa layouts: both types need an #fa.warp_rows or #fa.block_shared encoding, got 'tensor<128x64xf16>' -> 'tensor<128x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
  %r = fa.convert_layout %q : tensor<128x64xf16> -> tensor<128x64xf16, #opA>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @convert_to_plain(%q: tensor<128x64xf16, #shared>) {
  // expected-error @+1 {{'fa.convert_layout' op converts between fa layouts: both types need an #fa.warp_rows or #fa.block_shared encoding, got 'tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync>>' -> 'tensor<128x64xf16>'}}
  %r = fa.convert_layout %q : tensor<128x64xf16, #shared> -> tensor<128x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.async_load
//===----------------------------------------------------------------------===//

#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @async_load_tile_count(%k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op loads one tile per source: 2 sources but the future holds 1 tiles}}
  %f = fa.async_load %k, %v[%i, %i, %i] rows(%i) slot(%i) of 2 : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #shared>>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @async_load_no_slot(%k: tensor<?x2x?x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op needs at least one slot, got 0}}
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 0 : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #shared>>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

// PTX's cp.async prefetches 64, 128 or 256 bytes into L2, nothing else.
func.func @async_load_l2_prefetch(%k: tensor<?x2x?x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op l2_prefetch must be 64, 128 or 256 bytes (PTX's .L2::64B/128B/256B), got 32}}
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 2 l2_prefetch(32) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #shared>>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

// Sources are the whole [B, H, N, D] tensors; the op picks the tile.
func.func @async_load_source_rank(%k: tensor<64x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op sources are [B, H, N, D] tensors, got 'tensor<64x64xf16>'}}
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 2 : tensor<64x64xf16> -> !fa.future<tensor<64x64xf16, #shared>>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @async_load_element_type(%k: tensor<?x2x?x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op each tile is [rows, D] of its source's element type, got 'tensor<64x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>' from 'tensor<?x2x?x64xf16>'}}
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 2 : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xbf16, #shared>>
  return
}

// -----

#shared = #fa.block_shared<atom = #fa.mma_sync>

// Tiles are matched to sources in order: here V's head dim (32) against a
// 64-column tile.
func.func @async_load_head_dim(%k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x32xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op each tile is [rows, D] of its source's element type, got 'tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>' from 'tensor<?x2x?x32xf16>'}}
  %f = fa.async_load %k, %v[%i, %i, %i] rows(%i) slot(%i) of 2 : tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> !fa.future<tensor<64x64xf16, #shared>, tensor<64x64xf16, #shared>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.await
//===----------------------------------------------------------------------===//

#shared = #fa.block_shared<atom = #fa.mma_sync>

// The results are the future's tiles (inferred): the generic form cannot
// change them.
func.func @await_result_types(%f: !fa.future<tensor<64x64xf16, #shared>>) {
  // expected-error @+2 {{'fa.await' op inferred type(s) 'tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>' are incompatible with return type(s) of operation 'tensor<64x64xf16>'}}
  // expected-error @+1 {{'fa.await' op failed to infer returned types}}
  %t = "fa.await"(%f) <{operandSegmentSizes = array<i32: 1, 0, 0>, pending = 0 : i64}> : (!fa.future<tensor<64x64xf16, #shared>>) -> tensor<64x64xf16>
  return
}

// -----

func.func @await_not_a_future(%t: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.await' op operand #0 must be tiles being loaded asynchronously, but got 'tensor<64x64xf16>'}}
  %r = "fa.await"(%t) <{operandSegmentSizes = array<i32: 1, 0, 0>, pending = 0 : i64}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
  return
}

// `pending` and `num_slots` are read as signed values.

func.func @await_negative_pending(%f: !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>) {
  // expected-error @+1 {{'fa.await' op pending must be >= 0, got -1}}
  %t = fa.await %f pending(-1) : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>
  return
}

// -----

func.func @async_load_negative_slots(%s: tensor<1x1x64x64xf16>, %i: index) {
  // expected-error @+1 {{'fa.async_load' op needs at least one slot, got -1}}
  %f = fa.async_load %s[%i, %i, %i] rows(%i) slot(%i) of -1 : tensor<1x1x64x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>
  return
}

// -----

// Empty tiles are rejected.

func.func @empty_tile(%q: tensor<0x64xf16>, %k: tensor<64x64xf16>) {
  // expected-error @+1 {{'fa.qk' op query tile must not be empty, got 'tensor<0x64xf16>'}}
  %s = fa.qk %q, %k : tensor<0x64xf16>, tensor<64x64xf16> -> tensor<0x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fa.warp_row_range
//===----------------------------------------------------------------------===//

func.func @warp_row_range_dynamic(%t: tensor<?x64xf32>) {
  // expected-error @+1 {{'fa.warp_row_range' op needs a tile with a static number of rows, got 'tensor<?x64xf32>'}}
  %first, %count = fa.warp_row_range %t : tensor<?x64xf32>
  return
}

// -----

func.func @warp_row_range_scalar(%t: tensor<f32>) {
  // expected-error @+1 {{'fa.warp_row_range' op needs a tile with a static number of rows, got 'tensor<f32>'}}
  %first, %count = fa.warp_row_range %t : tensor<f32>
  return
}

// -----

func.func @varlen_block_cu_rank2(%cu: tensor<?x2xi32>, %ck: tensor<?xi32>, %i: index) {
  // expected-error @+1 {{cu_seqlens_q must be rank-1 i32 [S + 1], got 'tensor<?x2xi32>'}}
  %s:6 = fa.varlen_block %cu, %ck[%i] block_rows(16) : tensor<?x2xi32>, tensor<?xi32>
  return
}

// -----

func.func @varlen_block_cu_k_rank0(%cq: tensor<?xi32>, %ck: tensor<i32>, %i: index) {
  // expected-error @+1 {{cu_seqlens_k must be rank-1 i32 [S + 1], got 'tensor<i32>'}}
  %s:6 = fa.varlen_block %cq, %ck[%i] block_rows(16) : tensor<?xi32>, tensor<i32>
  return
}

// -----

func.func @varlen_block_cu_f32(%cu: tensor<?xf32>, %ck: tensor<?xi32>, %i: index) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer values}}
  %s:6 = "fa.varlen_block"(%cu, %ck, %i) <{block_rows = 16 : i64}> : (tensor<?xf32>, tensor<?xi32>, index) -> (index, index, index, index, index, index)
  return
}

// -----

func.func @varlen_block_entries(%cq: tensor<5xi32>, %ck: tensor<4xi32>, %i: index) {
  // expected-error @+1 {{cu_seqlens_q and cu_seqlens_k must have S + 1 entries each, got 5 and 4}}
  %s:6 = fa.varlen_block %cq, %ck[%i] block_rows(16) : tensor<5xi32>, tensor<4xi32>
  return
}

// -----

func.func @varlen_block_rows(%cu: tensor<?xi32>, %i: index) {
  // expected-error @+1 {{block_rows must be positive, got 0}}
  %s:6 = fa.varlen_block %cu, %cu[%i] block_rows(0) : tensor<?xi32>, tensor<?xi32>
  return
}

//===----------------------------------------------------------------------===//
// async fa.qk / fa.pv and fa.mma_wait
//===----------------------------------------------------------------------===//

// An async product's registers may still be written: read only after a wait.
func.func @async_qk_read_directly(%q: tensor<64x16xf16>, %k: tensor<16x16xf16>) -> tensor<64x16xf32> {
  // expected-error @+1 {{'fa.qk' op is async: its result may be read only through fa.mma_wait, but 'func.return' uses it}}
  %s = fa.qk %q, %k {async} : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}

// -----

func.func @async_pv_read_directly(%p: tensor<64x16xf16>, %v: tensor<16x16xf16>, %acc: tensor<64x16xf32>,
                                  %alpha: tensor<64xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{'fa.pv' op is async: its result may be read only through fa.mma_wait, but 'fa.rescale' uses it}}
  %o = fa.pv %p, %v, %acc {async} : tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>
  %r = fa.rescale %o, %alpha : tensor<64x16xf32>, tensor<64xf32>
  return %r : tensor<64x16xf32>
}

// -----

// A wait is for an async product, not for any value.
func.func @mma_wait_not_async(%q: tensor<64x16xf16>, %k: tensor<16x16xf16>) -> tensor<64x16xf32> {
  %s = fa.qk %q, %k : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>
  // expected-error @+1 {{'fa.mma_wait' op waits for the result of an async fa.qk or fa.pv, got a value that is not one}}
  %w = fa.mma_wait %s pending(0) : tensor<64x16xf32>
  return %w : tensor<64x16xf32>
}

// -----

func.func @mma_wait_block_argument(%acc: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{'fa.mma_wait' op waits for the result of an async fa.qk or fa.pv, got a value that is not one}}
  %w = fa.mma_wait %acc pending(0) : tensor<64x16xf32>
  return %w : tensor<64x16xf32>
}

// -----

func.func @mma_wait_negative(%q: tensor<64x16xf16>, %k: tensor<16x16xf16>) -> tensor<64x16xf32> {
  %s = fa.qk %q, %k {async} : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>
  // expected-error @+1 {{'fa.mma_wait' op pending must be non-negative, got -1}}
  %w = fa.mma_wait %s pending(-1) : tensor<64x16xf32>
  return %w : tensor<64x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Key groups (share = columns / sum)
//===----------------------------------------------------------------------===//

// P divided by columns between groups adds into per-group summands only.
#opA_cols = #fa.warp_rows<operand_a, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#acc_whole = #fa.warp_rows<acc, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @pv_columns_into_whole(%p: tensor<16x128xf16, #opA_cols>, %v: tensor<128x64xf16, #shared>, %acc: tensor<16x64xf32, #acc_whole>) {
  // expected-error @+1 {{'fa.pv' op accumulator must have share = sum exactly when P has share = columns (groups of warps that see different keys hold summands)}}
  %o = fa.pv %p, %v, %acc : tensor<16x128xf16, #opA_cols>, tensor<128x64xf16, #shared>, tensor<16x64xf32, #acc_whole>
  return
}

// -----

// Q is whole in every group.
#opA_cols = #fa.warp_rows<operand_a, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#acc_cols = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @qk_divided_query(%q: tensor<16x64xf16, #opA_cols>, %k: tensor<128x64xf16, #shared>) {
  // expected-error @+1 {{'fa.qk' op query tile must have share = whole, got}}
  %s = fa.qk %q, %k : tensor<16x64xf16, #opA_cols>, tensor<128x64xf16, #shared> -> tensor<16x128xf32, #acc_cols>
  return
}

// -----

// The running max is whole: every group scales by the same max.
#acc_cols = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#partial_sum = #fa.warp_rows<partial_rows, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>
func.func @softmax_summed_max(%s: tensor<16x128xf32, #acc_cols>, %m: tensor<16xf32, #partial_sum>, %l: tensor<16xf32, #partial_sum>, %scale: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running max must have the layout #fa.warp_rows<rows> once the op has layouts}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%scale) : tensor<16x128xf32, #acc_cols>, tensor<16xf32, #partial_sum>, tensor<16xf32, #partial_sum>
  return
}

// -----

// Scores divided by columns leave per-group running sums.
#acc_cols = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
func.func @softmax_columns_whole_sum(%s: tensor<16x128xf32, #acc_cols>, %m: tensor<16xf32, #rows>, %l: tensor<16xf32, #partial>, %scale: f32) {
  // expected-error @+1 {{'fa.online_softmax' op running sum must have share = sum exactly when scores has share = columns}}
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%scale) : tensor<16x128xf32, #acc_cols>, tensor<16xf32, #rows>, tensor<16xf32, #partial>
  return
}

// -----

// fa.finalize adds up accumulator and running sum together.
#acc_sum = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>
#acc = #fa.warp_rows<acc, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
func.func @finalize_mixed_shares(%acc: tensor<16x64xf32, #acc_sum>, %m: tensor<16xf32, #rows>, %l: tensor<16xf32, #partial>) {
  // expected-error @+1 {{'fa.finalize' op accumulator and running sum must both be per-group summands (share = sum) or neither}}
  %o, %lse = fa.finalize %acc, %m, %l : tensor<16x64xf32, #acc_sum>, tensor<16xf32, #rows>, tensor<16xf32, #partial> -> tensor<16x64xf16, #acc>
  return
}

// -----

// A layout conversion keeps the groups' shares.
#acc_cols = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
func.func @convert_drops_share(%p: tensor<16x128xf16, #acc_cols>) {
  // expected-error @+1 {{'fa.convert_layout' op keeps how groups of warps share the tile: share must stay}}
  %a = fa.convert_layout %p : tensor<16x128xf16, #acc_cols> -> tensor<16x128xf16, #opA>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Column groups (the backward's dK/dV nest: share = columns accumulators)
//===----------------------------------------------------------------------===//

// An accumulator whose groups hold its columns reads all of P: from shared
// memory, not from a group's registers.
#acc_cols = #fa.warp_rows<acc, num_warps = 4, replicas = 2, share = columns, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, replicas = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @pv_columns_acc_registers_p(%p: tensor<128x64xf16, #opA>, %v: tensor<64x128xf16, #shared>, %acc: tensor<128x128xf32, #acc_cols>) {
  // expected-error @+1 {{'fa.pv' op an accumulator whose groups of warps hold its columns needs P in shared memory (every group reads all of it), got}}
  %o = fa.pv %p, %v, %acc : tensor<128x64xf16, #opA>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #acc_cols>
  return
}

// -----

// Column shares meet in a shared tile, but a summand cannot become one.
#acc_sum = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @convert_summand_to_shared(%p: tensor<16x128xf16, #acc_sum>) {
  // expected-error @+1 {{'fa.convert_layout' op keeps how groups of warps share the tile: share must stay (or column shares of an acc tile go into a shared tile), got}}
  %a = fa.convert_layout %p : tensor<16x128xf16, #acc_sum> -> tensor<16x128xf16, #shared>
  return
}

// -----

// TMA copies (fa.async_load tma) write #fa.wgmma's swizzled tiles only.

func.func @tma_into_padded_tiles(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op tma loads 16-bit tiles of at most 256 rows (a multiple of 8) and a multiple of 64 columns in the swizzled #fa.wgmma layout (#fa.block_shared<atom = #fa.wgmma, swizzled = true>), got 'tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>'}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 tma : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>
  return
}

// -----

func.func @tma_with_prefetch(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op tma copies rows of one head from a tensor map, without along_heads or l2_prefetch (the map holds the L2 promotion)}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 l2_prefetch(128) tma : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

// Awaiting TMA copies names the slot's mbarrier phase, and only then.

func.func @tma_await_without_phase(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 tma : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  // expected-error @+1 {{'fa.await' op awaits tma loads: name the mbarrier phase with phase(%p)}}
  %t = fa.await %f pending(0) : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

func.func @cp_async_await_with_phase(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  // expected-error @+1 {{'fa.await' op has a phase but awaits cp.async loads (no tma)}}
  %t = fa.await %f pending(0) phase(%s) : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

// Zeroing the rows past a block's is for TMA boxes (cp.async zero-fills).
func.func @zero_from_without_phase(%f: !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>, %n: index) {
  // expected-error @+1 {{'fa.await' op zero_from(%n) needs tma loads (a phase(%p)): cp.async loads zero-fill the rows past the loaded ones}}
  %t = fa.await %f pending(0) zero_from(%n) : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

// Waiting for a slot's release is for TMA rings (of 2 slots or more), and
// only futures of such loads are released.

func.func @release_phase_without_tma(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op after_release waits for a slot's release, which only tma loads into a ring of 2 slots or more have}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 after_release(%s) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

func.func @release_phase_one_slot(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op after_release waits for a slot's release, which only tma loads into a ring of 2 slots or more have}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 1 tma after_release(%s) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

func.func @release_without_release_phase(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 tma : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  %t = fa.await %f pending(0) phase(%s) : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  // expected-error @+1 {{'fa.release' op releases a future whose load does not wait for releases (no after_release(%p))}}
  fa.release %f : !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

// fa.mma_turn orders two to eight warpgroups (a block has at most 1024
// threads), and names one of its four steps.

func.func @turn_one_warpgroup() {
  // expected-error @+1 {{'fa.mma_turn' op takes turns between 2 to 8 warpgroups, got 1}}
  fa.mma_turn take of 1
  return
}

// -----

func.func @turn_nine_warpgroups() {
  // expected-error @+1 {{'fa.mma_turn' op takes turns between 2 to 8 warpgroups, got 9}}
  fa.mma_turn pass of 9
  return
}

// -----

func.func @turn_unknown_step() {
  // expected-error @+1 {{custom op 'fa.mma_turn' expected string or keyword containing one of the following enum values for attribute 'step' [open, take, pass, close]}}
  fa.mma_turn give of 2
  return
}

// -----

// issuer(T) names the thread that issues a tma load; a cp.async load is
// every thread's, and T is a thread of a block (below 1024).

func.func @issuer_without_tma(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op issuer(T) names the thread that issues a tma load; cp.async loads are issued by every thread}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 issuer(128) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

func.func @issuer_past_the_block(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op issuer must be a thread of the block (0..1023), got 1024}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 tma issuer(1024) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}

// -----

func.func @issuer_negative(%k: tensor<?x2x?x64xf16>, %b: index, %s: index) {
  // expected-error @+1 {{'fa.async_load' op issuer must be a thread of the block (0..1023), got -1}}
  %f = fa.async_load %k[%b, %b, %b] rows(%b) slot(%s) of 2 tma issuer(-1) : tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>>
  return
}
