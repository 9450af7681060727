// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true" --cse | FileCheck %s --check-prefix=AUTO

// A K/V cache in the Q-outer loop nest (L1): each forall iteration reads its
// sequence's key count off key_lengths (clamped to [0, capacity]), which
// bounds the K/V loop and gives the mask its key limit and its own
// bottom-right diagonal; a paged cache finds each K/V block's page in the
// block table (AttentionMath.h, pageOfKey) and reads the block as rows
// along dim 1 of the pools [num_pages, page_size, Hkv, D].

// CHECK-LABEL: func @paged
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<?x4x?x16xf16>, %[[K:[a-z0-9]+]]: tensor<?x32x2x16xf16>, %[[V:[a-z0-9]+]]: tensor<?x32x2x16xf16>, %[[LENS:[a-z0-9]+]]: tensor<?xi32>, %[[TABLE:[a-z0-9]+]]: tensor<?x?xi32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//     The capacity: max_pages * page_size.
// CHECK: %[[PAGES:.*]] = tensor.dim %[[TABLE]], %[[C1]]
// CHECK: %[[CAP:.*]] = arith.muli %[[PAGES]], %[[C32]] : index
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[QB:.*]]) in
// CHECK: %[[LEN:.*]] = tensor.extract %[[LENS]][%[[B]]] : tensor<?xi32>
// CHECK: %[[LENI:.*]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK: %[[LEN0:.*]] = arith.maxsi %[[LENI]], %[[C0]] : index
// CHECK: %[[NK:.*]] = arith.minsi %[[LEN0]], %[[CAP]] : index
// CHECK: %[[DIAG:.*]] = arith.subi %[[NK]], %{{.*}} : index
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %{{.*}} : index
// CHECK: scf.for %[[J:[a-z0-9]+]] = %[[C0]] to %[[NK]] step %[[C16]]
// CHECK: %[[ROWS:.*]] = arith.minsi %[[C16]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.subi %[[PAGES]], %[[C1]] : index
// CHECK: %[[COL0:.*]] = arith.divui %[[J]], %[[C32]] : index
// CHECK: %[[COL:.*]] = arith.minui %[[COL0]], %[[LAST]] : index
// CHECK: %[[ENTRY:.*]] = tensor.extract %[[TABLE]][%[[B]], %[[COL]]] : tensor<?x?xi32>
// CHECK: %[[PAGE:.*]] = arith.index_cast %[[ENTRY]] : i32 to index
// CHECK: %[[ROW:.*]] = arith.remui %[[J]], %[[C32]] : index
// CHECK: tensor.extract_slice %[[K]][%[[PAGE]], %[[ROW]], %[[KVH]], 0] [1, %[[ROWS]], 1, 16] [1, 1, 1, 1] : tensor<?x32x2x16xf16> to tensor<?x16xf16>
// CHECK: tensor.extract_slice %[[V]][%[[PAGE]], %[[ROW]], %[[KVH]], 0] [1, %[[ROWS]], 1, 16] [1, 1, 1, 1] : tensor<?x32x2x16xf16> to tensor<?x16xf16>
// CHECK: fa.mask %{{.*}}[%{{.*}}, %[[J]]] key_limit(%[[NK]]) causal_offset(%[[DIAG]]) : tensor<16x16xf32>
func.func @paged(%q: tensor<?x4x?x16xf16>, %k: tensor<?x32x2x16xf16>, %v: tensor<?x32x2x16xf16>,
                 %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x16xf16>) -> tensor<?x4x?x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x16xf16>, tensor<?x32x2x16xf16>, tensor<?x32x2x16xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x16xf16>) causal -> tensor<?x4x?x16xf16>
  return %r : tensor<?x4x?x16xf16>
}

// -----

// One K/V block per page: a block starts its page (no row offset).
// CHECK-LABEL: func @block_per_page
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<10x16x1x16xf32>
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: %[[COL:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK-NOT: arith.remui
// CHECK: tensor.extract_slice %[[K]][%{{.*}}, %c0, %{{.*}}, 0] [1, %{{.*}}, 1, 16]
//     No window, no causal: the key limit alone.
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) : tensor<16x16xf32>
func.func @block_per_page(%q: tensor<2x2x3x16xf32>, %k: tensor<10x16x1x16xf32>, %v: tensor<10x16x1x16xf32>,
                          %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x2x3x16xf32>) -> tensor<2x2x3x16xf32> {
  %r = fa.attention ins(%q, %k, %v : tensor<2x2x3x16xf32>, tensor<10x16x1x16xf32>, tensor<10x16x1x16xf32>)
           key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>)
           outs(%o : tensor<2x2x3x16xf32>) -> tensor<2x2x3x16xf32>
  return %r : tensor<2x2x3x16xf32>
}

// -----

// A dense cache with per-sequence lengths: the K/V tiles are the usual rows
// of one head; the capacity is Nk.
// CHECK-LABEL: func @dense_lengths
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<?x8x1x64xbf16>, %[[K:[a-z0-9]+]]: tensor<?x2x?x64xbf16>, %{{.*}}: tensor<?x2x?x64xbf16>, %[[LENS:[a-z0-9]+]]: tensor<?xi32>
// CHECK: %[[NKMAX:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x2x?x64xbf16>
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[QB:.*]]) in
// CHECK: tensor.extract %[[LENS]][%[[B]]] : tensor<?xi32>
// CHECK: %[[NK:.*]] = arith.minsi %{{.*}}, %[[NKMAX]] : index
// CHECK: scf.for %[[J:[a-z0-9]+]] = %{{.*}} to %[[NK]] step
// CHECK: tensor.extract_slice %[[K]][%[[B]], %{{.*}}, %[[J]], 0] [1, 1, %{{.*}}, 64]
// CHECK-NOT: tensor.extract %
// CHECK: fa.mask %{{.*}} key_limit(%[[NK]]) causal_offset(%{{.*}})
func.func @dense_lengths(%q: tensor<?x8x1x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                         %n: tensor<?xi32>, %o: tensor<?x8x1x64xbf16>) -> tensor<?x8x1x64xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x1x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
           key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x8x1x64xbf16>) causal -> tensor<?x8x1x64xbf16>
  return %r : tensor<?x8x1x64xbf16>
}

// -----

// auto-blocks: a K/V block divides the page size. d = 64 takes 64-key
// blocks (the table's), so 32-key pages get 32-key blocks, and 256-key
// pages the table's 64. At d = 128 with a dynamic Nq (the table's 128-row
// Q block) a paged nest takes the table's window tiles, 32-key blocks.
// AUTO-LABEL: func @auto_small_pages
// AUTO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// AUTO: fa.qk {{.*}} -> tensor<128x32xf32>
func.func @auto_small_pages(%q: tensor<?x4x?x64xf16>, %k: tensor<?x32x2x64xf16>, %v: tensor<?x32x2x64xf16>,
                            %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xf16>, tensor<?x32x2x64xf16>, tensor<?x32x2x64xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x64xf16>) causal -> tensor<?x4x?x64xf16>
  return %r : tensor<?x4x?x64xf16>
}

// -----

// A decode step (static Nq = 1) over 16-key pages at d = 128: the K/V block
// shrinks from 64 keys to one page, and the loop nest asks for 4 K/V
// stages (the table's decode step has 3) so that about as many keys are in
// flight: 1.2-1.5x the GB/s of 3 stages on H200 decode steps
// (docs/performance.md). 64-key pages: below.
// AUTO-LABEL: func @auto_decode_small_pages
// AUTO: scf.forall
// AUTO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// AUTO: } {fa.kv_stages = 4 : i64, fa.mma_atom = #fa.mma_sync}
func.func @auto_decode_small_pages(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x16x8x128xbf16>, %v: tensor<?x16x8x128xbf16>,
                                   %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x32x1x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x16x8x128xbf16>, tensor<?x16x8x128xbf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x32x1x128xbf16>) causal -> tensor<?x32x1x128xbf16>
  return %r : tensor<?x32x1x128xbf16>
}

// -----

// AUTO-LABEL: func @auto_decode_large_pages
// AUTO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
//     (The 128-key block of a decode step halved to the page: 4 stages,
//     and 2 key groups of 32 keys.)
// AUTO: } {fa.key_groups = 2 : i64, fa.kv_stages = 4 : i64, fa.mma_atom = #fa.mma_sync}
func.func @auto_decode_large_pages(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x64x8x128xbf16>, %v: tensor<?x64x8x128xbf16>,
                                   %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x32x1x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x32x1x128xbf16>) causal -> tensor<?x32x1x128xbf16>
  return %r : tensor<?x32x1x128xbf16>
}

// -----

// AUTO-LABEL: func @auto_large_pages
// AUTO: fa.qk {{.*}} -> tensor<128x64xf32>
func.func @auto_large_pages(%q: tensor<?x4x?x64xf16>, %k: tensor<?x256x2x64xf16>, %v: tensor<?x256x2x64xf16>,
                            %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xf16>, tensor<?x256x2x64xf16>, tensor<?x256x2x64xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x64xf16>) causal -> tensor<?x4x?x64xf16>
  return %r : tensor<?x4x?x64xf16>
}

// -----

// AUTO-LABEL: func @auto_d128_prefill
// AUTO: fa.qk {{.*}} -> tensor<128x32xf32>
func.func @auto_d128_prefill(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x64x2x128xbf16>, %v: tensor<?x64x2x128xbf16>,
                             %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x64x2x128xbf16>, tensor<?x64x2x128xbf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x128xbf16>) causal -> tensor<?x4x?x128xbf16>
  return %r : tensor<?x4x?x128xbf16>
}

// -----

// A decode step (one static query) at d = 128 keeps the 64-key block: its
// 16-row Q block has the registers to spare.
// AUTO-LABEL: func @auto_d128_decode
// AUTO: fa.qk {{.*}} -> tensor<16x64xf32>
func.func @auto_d128_decode(%q: tensor<?x4x1x128xbf16>, %k: tensor<?x64x4x128xbf16>, %v: tensor<?x64x4x128xbf16>,
                            %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x1x128xbf16>) -> tensor<?x4x1x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x1x128xbf16>, tensor<?x64x4x128xbf16>, tensor<?x64x4x128xbf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x1x128xbf16>) causal -> tensor<?x4x1x128xbf16>
  return %r : tensor<?x4x1x128xbf16>
}
