// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per rule of the layout encodings, of the #fa.mma_sync atom and of
// !fa.future (lib/Dialect/FA/IR/FADialect.cpp, MmaSyncAtom.cpp). These are
// checked when the attribute or the tensor type is built, i.e. where the
// parser reads it: the error points into the type, not at an op.

//===----------------------------------------------------------------------===//
// #fa.warp_rows parameters (WarpRowsAttr::verify)
//===----------------------------------------------------------------------===//

// A thread block is split over 1, 2, 4 or 8 warps.
// expected-error @+1 {{num_warps must be 1, 2, 4 or 8, got 3}}
#bad = #fa.warp_rows<acc, num_warps = 3, atom = #fa.mma_sync>

// -----

// expected-error @+1 {{num_warps must be 1, 2, 4 or 8, got 0}}
func.func @zero_warps(%t: tensor<64x64xf32, #fa.warp_rows<acc, num_warps = 0, atom = #fa.mma_sync>>) {
  return
}

// -----

// Replicas of the warps: at least one group, at most 1024 threads.
// expected-error @+1 {{replicas must be at least 1 and num_warps x replicas at most 32 (1024 threads), got replicas = 0 with num_warps = 2}}
#no_groups = #fa.warp_rows<acc, num_warps = 2, replicas = 0, atom = #fa.mma_sync>

// -----

// expected-error @+1 {{replicas must be at least 1 and num_warps x replicas at most 32 (1024 threads), got replicas = 16 with num_warps = 4}}
func.func @too_many_threads(%t: tensor<64x8xf32, #fa.warp_rows<acc, num_warps = 4, replicas = 16, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{num_warps must be 1, 2, 4 or 8, got 16}}
func.func @sixteen_warps(%t: tensor<256xf32, #fa.warp_rows<rows, num_warps = 16, atom = #fa.mma_sync>>) {
  return
}

// -----

// The atom must be an MMA atom attribute. The parser already rejects any
// other attribute (WarpRowsAttr::verify's own "atom must be an MMA atom
// attribute" is not reachable from text).
// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse FA_WarpRowsAttr parameter 'atom' which is to be a `::mlir::fa::MmaAtomAttrInterface`}}
#bad = #fa.warp_rows<acc, num_warps = 4, atom = #fa.block_shared<atom = #fa.mma_sync>>

// -----

// Unknown role.
// expected-error @+2 {{expected ::mlir::fa::FragmentRole to be one of: acc, operand_a, rows, partial_rows}}
// expected-error @+1 {{failed to parse FA_WarpRowsAttr parameter 'role'}}
#bad = #fa.warp_rows<operand_b, num_warps = 4, atom = #fa.mma_sync>

// -----

//===----------------------------------------------------------------------===//
// Static shapes (verifyEncoding)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a tile held in registers must have a static shape}}
func.func @dynamic_registers(%t: tensor<?x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{a tile held in registers must have a static shape}}
func.func @dynamic_rows(%t: tensor<?xf32, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{a shared tile must have a static shape}}
func.func @dynamic_shared(%t: tensor<64x?xf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// The swizzle works on 128-byte row segments: 32 f16 columns are 64 bytes.
// expected-error @+1 {{a swizzled shared tile stores rows of a multiple of 128 bytes, at least 8 and a multiple of 8 of them, got [64, 32] x 'f16'}}
func.func @swizzled_narrow(%t: tensor<64x32xf16, #fa.block_shared<atom = #fa.mma_sync, swizzled = true>>) {
  return
}

// -----

// ... and on 8 rows (c ^ (r % 8)); a transposed view is checked as stored.
// expected-error @+1 {{a swizzled shared tile stores rows of a multiple of 128 bytes, at least 8 and a multiple of 8 of them, got [4, 64] x 'f16'}}
func.func @swizzled_few_rows(%t: tensor<64x4xf16, #fa.block_shared<atom = #fa.mma_sync, transposed = true, swizzled = true>>) {
  return
}

// -----

// #fa.wgmma's 128-byte swizzle takes whole 64-element column blocks.
// expected-error @+1 {{a swizzled shared tile stores rows of a multiple of 128 bytes, at least 8 and a multiple of 8 of them, got [64, 32] x 'bf16'}}
func.func @swizzled_wgmma_narrow(%t: tensor<64x32xbf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// #fa.mma_sync fragments (MmaSyncAtomAttr::verifyFragment)
//===----------------------------------------------------------------------===//

// acc and operand_a tiles are 2-D, rows and partial_rows 1-D.
// expected-error @+1 {{#fa.mma_sync: a tile in the acc role must have rank 2, got rank 1}}
func.func @acc_rank(%t: tensor<128xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: a tile in the operand_a role must have rank 2, got rank 3}}
func.func @operand_a_rank(%t: tensor<64x16x2xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: a tile in the rows role must have rank 1, got rank 2}}
func.func @rows_rank(%t: tensor<128x1xf32, #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: a tile in the partial_rows role must have rank 1, got rank 0}}
func.func @partial_rows_rank(%t: tensor<f32, #fa.warp_rows<partial_rows, num_warps = 1, atom = #fa.mma_sync>>) {
  return
}

// -----

// Every warp owns whole 16-row m-tiles: rows % (16 * num_warps) == 0.
// expected-error @+1 {{#fa.mma_sync: 96 rows do not split into whole 16-row mma tiles over 4 warps (need a multiple of 64)}}
func.func @acc_rows(%t: tensor<96x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// The same rule for a per-row vector and for operand_a.
// expected-error @+1 {{#fa.mma_sync: 64 rows do not split into whole 16-row mma tiles over 8 warps (need a multiple of 128)}}
func.func @rows_rows(%t: tensor<64xf32, #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: 8 rows do not split into whole 16-row mma tiles over 1 warps (need a multiple of 16)}}
func.func @operand_a_rows(%t: tensor<8x16xf16, #fa.warp_rows<operand_a, num_warps = 1, atom = #fa.mma_sync>>) {
  return
}

// -----

// acc: f32, f16 or bf16 ...
// expected-error @+1 {{#fa.mma_sync: acc tiles hold f32, f16 or bf16, got 'f64'}}
func.func @acc_element_type(%t: tensor<64x64xf64, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// ... in whole 8-column n-tiles.
// expected-error @+1 {{#fa.mma_sync: acc tile columns (12) must be a multiple of 8, the n of mma.m16n8k16}}
func.func @acc_columns(%t: tensor<64x12xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// operand_a: f16 or bf16 only (f32 needs arith.truncf first) ...
// expected-error @+1 {{#fa.mma_sync: A operands are f16 or bf16, got 'f32'}}
func.func @operand_a_element_type(%t: tensor<64x64xf32, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// ... in whole 16-wide k steps (8 columns would do for acc).
// expected-error @+1 {{#fa.mma_sync: A operand columns (8) must be a multiple of 16, the k of mma.m16n8k16}}
func.func @operand_a_columns(%t: tensor<64x8xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// Per-row values (max, sum, alpha, LSE) are f32.
// expected-error @+1 {{#fa.mma_sync: per-row values are f32, got 'f16'}}
func.func @rows_element_type(%t: tensor<64xf16, #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: per-row values are f32, got 'bf16'}}
func.func @partial_rows_element_type(%t: tensor<64xbf16, #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// #fa.mma_sync shared tiles (MmaSyncAtomAttr::verifySharedTile)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{#fa.mma_sync: a shared tile must have rank 2, got rank 1}}
func.func @shared_rank(%t: tensor<64xf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// expected-error @+1 {{#fa.mma_sync: a shared tile must have rank 2, got rank 4}}
func.func @shared_rank4(%t: tensor<1x1x64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// Shared tiles hold the MMA operands: f16 or bf16.
// expected-error @+1 {{#fa.mma_sync: shared tiles hold f16 or bf16 (the MMA operands), got 'f32'}}
func.func @shared_element_type(%t: tensor<64x64xf32, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// Rows are copied in 16-byte chunks (8 halves).
// expected-error @+1 {{#fa.mma_sync: a shared tile is copied in rows of 16-byte chunks: columns must be a multiple of 8, got 12}}
func.func @shared_columns(%t: tensor<64x12xbf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// A tile with no rows is rejected by the same rule. (The message then
// speaks of columns and prints the valid column count, 64: only its prefix
// is checked here.)
// expected-error @+1 {{#fa.mma_sync: a shared tile must not be empty}}
func.func @shared_no_rows(%t: tensor<0x64xf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// !fa.future (FutureType::verify)
//===----------------------------------------------------------------------===//

// A future is a shared-memory slot: its tiles are #fa.block_shared ...
// expected-error @+1 {{a future holds shared tiles (#fa.block_shared), got 'tensor<64x64xf16>'}}
func.func @future_plain_tile(%f: !fa.future<tensor<64x64xf16>>) {
  return
}

// -----

// ... every one of them, not registers.
// expected-error @+1 {{a future holds shared tiles (#fa.block_shared), got 'tensor<64x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>'}}
func.func @future_register_tile(%f: !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<64x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>>) {
  return
}

// -----

// At least one tile. The parser already rejects an empty list
// (FutureType::verify's "a future holds at least one tile" is not reachable
// from text).
// expected-error @+2 {{expected non-function type}}
// expected-error @+1 {{failed to parse FA_FutureType parameter 'tiles'}}
func.func @future_empty(%f: !fa.future<>) {
  return
}

// -----

// The tiles themselves are verified: a bad shared tile inside a future is
// reported as such (then the future's parameter fails to parse).
// expected-error @+2 {{#fa.mma_sync: shared tiles hold f16 or bf16 (the MMA operands), got 'f32'}}
// expected-error @+1 {{failed to parse FA_FutureType parameter 'tiles'}}
func.func @future_bad_tile(%f: !fa.future<tensor<64x64xf32, #fa.block_shared<atom = #fa.mma_sync>>>) {
  return
}

// -----

// Encodings are checked wherever a tensor type is built, also in an op's
// type list.
func.func @encoding_in_op() {
  // expected-error @+1 {{#fa.mma_sync: acc tile columns (4) must be a multiple of 8, the n of mma.m16n8k16}}
  %z = arith.constant dense<0.0> : tensor<64x4xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #fa.wgmma (WgmmaAtom.cpp): whole warpgroups, 16 rows a warp
//===----------------------------------------------------------------------===//

// expected-error @+1 {{#fa.wgmma: tiles are held by whole warpgroups: num_warps must be a multiple of 4, got 2}}
func.func @wgmma_two_warps(%t: tensor<32x64xf32, #fa.warp_rows<acc, num_warps = 2, atom = #fa.wgmma>>) {
  return
}

// -----

// expected-error @+1 {{#fa.wgmma: each warp owns 16 rows of its warpgroup's m64 tile: a tile held by 4 warps has 64 rows, got 128}}
func.func @wgmma_two_m_tiles(%t: tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>>) {
  return
}

// -----

// expected-error @+1 {{#fa.wgmma: acc tiles are at most 256 columns wide (the widest wgmma), got 512}}
func.func @wgmma_too_wide(%t: tensor<64x512xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>>) {
  return
}

// -----

// expected-error @+1 {{#fa.wgmma: a shared tile is stored as 8 x 8 core matrices: rows must be a multiple of 8, got 20}}
func.func @wgmma_shared_rows(%t: tensor<20x64xf16, #fa.block_shared<atom = #fa.wgmma>>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// share = columns / sum (key groups, --fa-map-warps key-groups)
//===----------------------------------------------------------------------===//

// Dividing a tile between groups needs more than one group.
// expected-error @+1 {{share = columns divides a tile between groups of warps: it needs replicas > 1}}
#one_group = #fa.warp_rows<acc, num_warps = 1, share = columns, atom = #fa.mma_sync>

// -----

// Columns are divided for acc and operand_a tiles (S, P), not per-row vectors.
// expected-error @+1 {{share = columns divides the columns of an acc or operand_a tile, not a rows vector}}
#rows_cols = #fa.warp_rows<rows, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>

// -----

// Summands are accumulators or running sums, not a running max.
// expected-error @+1 {{share = sum holds summands of an acc tile or a partial_rows vector, not of a rows tile}}
#rows_sum = #fa.warp_rows<rows, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>

// -----

// The sm_90a atom has no lowering of divided tiles.
// expected-error @+1 {{share = columns is implemented for #fa.mma_sync only, got #fa.wgmma}}
#wgmma_cols = #fa.warp_rows<acc, num_warps = 4, replicas = 2, share = columns, atom = #fa.wgmma>

// -----

// The groups' columns are an even split.
// expected-error @+1 {{share = columns divides the columns of a 2-D tile evenly between the 4 groups, got shape [16, 18]}}
func.func @uneven_columns(%t: tensor<16x18xf32, #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>>) {
  return
}

// -----

// A group's columns are a tile of the atom: 128 / 4 = 32 keys are 4 n-tiles,
// but 64 / 8 = 8 columns of operand_a are not a 16-wide k step (the atom's
// rule, on the group's part).
// expected-error @+1 {{#fa.mma_sync: A operand columns (8) must be a multiple of 16, the k of mma.m16n8k16}}
func.func @group_columns_not_a_k_step(%t: tensor<16x64xf16, #fa.warp_rows<operand_a, num_warps = 1, replicas = 8, share = columns, atom = #fa.mma_sync>>) {
  return
}
