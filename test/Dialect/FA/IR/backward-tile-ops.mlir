// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s

// The backward's tile ops round-trip, in both orientations, with and
// without layouts (the per-query vectors never have one).

// CHECK-LABEL: func @dq_tiles
// CHECK: %[[S:.*]] = fa.mask %{{.*}}[%{{.*}}, %{{.*}}] key_limit(%{{.*}}) causal_offset(%{{.*}}) : tensor<64x32xf32>
// CHECK: %[[P:.*]] = fa.probs_from_lse %[[S]], %{{.*}} scale(%{{.*}}) : tensor<64x32xf32>, tensor<64xf32>
// CHECK: fa.score_grad %[[P]], %{{.*}}, %{{.*}} scale(%{{.*}}) : tensor<64x32xf32>, tensor<64xf32>
func.func @dq_tiles(%s: tensor<64x32xf32>, %dp: tensor<64x32xf32>, %lse: tensor<64xf32>,
                    %d: tensor<64xf32>, %c: f32, %i: index) -> tensor<64x32xf32> {
  %m = fa.mask %s[%i, %i] key_limit(%i) causal_offset(%i) : tensor<64x32xf32>
  %p = fa.probs_from_lse %m, %lse scale(%c) : tensor<64x32xf32>, tensor<64xf32>
  %ds = fa.score_grad %p, %dp, %d scale(%c) : tensor<64x32xf32>, tensor<64xf32>
  return %ds : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func @dkdv_tiles
// CHECK: %[[S:.*]] = fa.mask %{{.*}}[%{{.*}}, %{{.*}}] causal_offset(%{{.*}}) window_offset(%{{.*}}) {transposed} : tensor<32x64xf32, #acc_w2>
// CHECK: %[[P:.*]] = fa.probs_from_lse %[[S]], %{{.*}} scale(%{{.*}}) {transposed} : tensor<32x64xf32, #acc_w2>, tensor<64xf32>
// CHECK: fa.score_grad %[[P]], %{{.*}}, %{{.*}} scale(%{{.*}}) softcap(%[[S]], %{{.*}}) {transposed} : tensor<32x64xf32, #acc_w2>, tensor<64xf32>, tensor<32x64xf32, #acc_w2>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @dkdv_tiles(%s: tensor<32x64xf32, #acc>, %dp: tensor<32x64xf32, #acc>,
                      %lse: tensor<64xf32>, %d: tensor<64xf32>, %c: f32, %i: index)
    -> tensor<32x64xf32, #acc> {
  %m = fa.mask %s[%i, %i] causal_offset(%i) window_offset(%i) {transposed} : tensor<32x64xf32, #acc>
  %p = fa.probs_from_lse %m, %lse scale(%c) {transposed} : tensor<32x64xf32, #acc>, tensor<64xf32>
  %ds = fa.score_grad %p, %dp, %d scale(%c) softcap(%m, %c) {transposed}
      : tensor<32x64xf32, #acc>, tensor<64xf32>, tensor<32x64xf32, #acc>
  return %ds : tensor<32x64xf32, #acc>
}

// -----

// CHECK-LABEL: func @row_dot
// CHECK: fa.row_dot %{{.*}}, %{{.*}} : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64xf32, #rows_w4>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
func.func @row_dot(%do: tensor<64x128xbf16>, %o: tensor<64x128xbf16>) -> tensor<64xf32, #rows> {
  %d = fa.row_dot %do, %o : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64xf32, #rows>
  return %d : tensor<64xf32, #rows>
}

// -----

// The atomic dQ's ops: K^T as a transposed view of the shared K tile (the
// `transposed` flag of #fa.block_shared), and the addition into the f32
// dQ buffer.
// CHECK-LABEL: func @atomic_dq
// CHECK: %[[KT:.*]] = fa.transpose %{{.*}} : tensor<32x64xf16, #shared> -> tensor<64x32xf16, #shared_t>
// CHECK: %[[DQT:.*]] = fa.pv %[[KT]], %{{.*}}, %{{.*}} : tensor<64x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc_w2>
// CHECK: fa.accumulate_rows %[[DQT]] into %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows(%{{.*}}) {transposed} : tensor<64x16xf32, #acc_w2>, memref<?x4x?x64xf32>
// CHECK: fa.transpose %{{.*}} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK: fa.accumulate_rows %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows(%{{.*}}) : tensor<16x8xf32>, memref<2x4x16x8xf32>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @atomic_dq(%k: tensor<32x64xf16, #shared>, %ds: tensor<32x16xf16, #shared>,
                     %acc: tensor<64x16xf32, #acc>, %ws: memref<?x4x?x64xf32>,
                     %t: tensor<16x8xf32>, %ws2: memref<2x4x16x8xf32>, %i: index) {
  %kt = fa.transpose %k : tensor<32x64xf16, #shared> -> tensor<64x32xf16, #shared_t>
  %dqt = fa.pv %kt, %ds, %acc : tensor<64x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
  fa.accumulate_rows %dqt into %ws[%i, %i, %i] rows(%i) {transposed} : tensor<64x16xf32, #acc>, memref<?x4x?x64xf32>
  %tt = fa.transpose %t : tensor<16x8xf32> -> tensor<8x16xf32>
  fa.accumulate_rows %t into %ws2[%i, %i, %i] rows(%i) : tensor<16x8xf32>, memref<2x4x16x8xf32>
  return
}

// -----

// Column groups (--fa-map-warps{dkdv-groups}): the dK/dV nest's
// accumulators split by columns between groups of warps; P^T goes into a
// shared tile whole, and dV += P^T dO reads it there.
// CHECK-LABEL: func @column_groups
// CHECK: %[[P:.*]] = fa.probs_from_lse %{{.*}}, %{{.*}} scale(%{{.*}}) {transposed} : tensor<128x64xf32, #acc_w4x2_cols>, tensor<64xf32>
// CHECK: %[[DS:.*]] = fa.score_grad %[[P]], %{{.*}}, %{{.*}} scale(%{{.*}}) {transposed} : tensor<128x64xf32, #acc_w4x2_cols>, tensor<64xf32>
// CHECK: %[[PS:.*]] = fa.convert_layout %{{.*}} : tensor<128x64xf16, #acc_w4x2_cols> -> tensor<128x64xf16, #shared>
// CHECK: fa.pv %[[PS]], %{{.*}}, %{{.*}} : tensor<128x64xf16, #shared>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #acc_w4x2_cols>
// CHECK: fa.accumulate_rows %{{.*}} into %{{.*}} {transposed} : tensor<128x64xf32, #acc_w4x2_cols>, memref<?x4x?x128xf32>
#cols = #fa.warp_rows<acc, num_warps = 4, replicas = 2, share = columns, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @column_groups(%s: tensor<128x64xf32, #cols>, %dp: tensor<128x64xf32, #cols>,
                         %lse: tensor<64xf32>, %d: tensor<64xf32>, %c: f32,
                         %do: tensor<64x128xf16, #shared>, %dv: tensor<128x128xf32, #cols>,
                         %dqt: tensor<128x64xf32, #cols>, %ws: memref<?x4x?x128xf32>, %i: index)
    -> (tensor<128x64xf32, #cols>, tensor<128x128xf32, #cols>) {
  %p = fa.probs_from_lse %s, %lse scale(%c) {transposed} : tensor<128x64xf32, #cols>, tensor<64xf32>
  %ds = fa.score_grad %p, %dp, %d scale(%c) {transposed} : tensor<128x64xf32, #cols>, tensor<64xf32>
  %p16 = arith.truncf %p : tensor<128x64xf32, #cols> to tensor<128x64xf16, #cols>
  %ps = fa.convert_layout %p16 : tensor<128x64xf16, #cols> -> tensor<128x64xf16, #shared>
  %dv2 = fa.pv %ps, %do, %dv : tensor<128x64xf16, #shared>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #cols>
  fa.accumulate_rows %dqt into %ws[%i, %i, %i] rows(%i) {transposed} : tensor<128x64xf32, #cols>, memref<?x4x?x128xf32>
  return %ds, %dv2 : tensor<128x64xf32, #cols>, tensor<128x128xf32, #cols>
}

// -----

// The atomic dQ's sums in fragment order: fa.accumulate_rows of a whole
// tile of query rows and fa.read_rows of the same block back into the same
// layout (a [4, 2] grid, column shares); fa.read_rows by rows, without
// layouts.
// CHECK-LABEL: func @fragment_order
// CHECK-SAME: %[[DQ:[^:]*]]: tensor<64x128xf32, #acc_w4x2_cols>, %[[WS:[^:]*]]: memref<?x8x?x128xf32>, %[[SUMS:[^:]*]]: tensor<?x8x?x128xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: fa.accumulate_rows %[[DQ]] into %[[WS]][%{{.*}}, %{{.*}}, %{{.*}}] rows(%[[C64]]) {fragment_order} : tensor<64x128xf32, #acc_w4x2_cols>, memref<?x8x?x128xf32>
// CHECK: fa.read_rows %[[SUMS]][%{{.*}}, %{{.*}}, %{{.*}}] rows(%[[C64]]) {fragment_order} : tensor<?x8x?x128xf32> -> tensor<64x128xf32, #acc_w4x2_cols>
// CHECK: fa.read_rows %[[SUMS]][%{{.*}}, %{{.*}}, %{{.*}}] rows(%[[N:.*]]) : tensor<?x8x?x128xf32> -> tensor<32x128xf32>
#cols = #fa.warp_rows<acc, num_warps = 4, replicas = 2, share = columns, atom = #fa.mma_sync>
func.func @fragment_order(%dq: tensor<64x128xf32, #cols>, %ws: memref<?x8x?x128xf32>,
                          %sums: tensor<?x8x?x128xf32>, %i: index, %n: index)
    -> (tensor<64x128xf32, #cols>, tensor<32x128xf32>) {
  %c64 = arith.constant 64 : index
  fa.accumulate_rows %dq into %ws[%i, %i, %i] rows(%c64) {fragment_order} : tensor<64x128xf32, #cols>, memref<?x8x?x128xf32>
  %t = fa.read_rows %sums[%i, %i, %i] rows(%c64) {fragment_order} : tensor<?x8x?x128xf32> -> tensor<64x128xf32, #cols>
  %r = fa.read_rows %sums[%i, %i, %i] rows(%n) : tensor<?x8x?x128xf32> -> tensor<32x128xf32>
  return %t, %r : tensor<64x128xf32, #cols>, tensor<32x128xf32>
}
