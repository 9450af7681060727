// RUN: fa-opt %s -split-input-file --fa-tile-combine --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-combine="block-m=32 block-dv=64" --cse | FileCheck %s --check-prefix=ROWS32
// RUN: not fa-opt %s --fa-tile-combine=block-m=24 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not fa-opt %s --fa-tile-combine=block-m=256 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not fa-opt %s --fa-tile-combine=block-dv=-8 2>&1 | FileCheck %s --check-prefix=BAD-COLS
// RUN: not fa-opt %s -split-input-file --fa-tile-combine=block-dv=48 2>&1 | FileCheck %s --check-prefix=NOT-DIVIDING
// RUN: not fa-opt %s -split-input-file --fa-tile-combine=block-dv=4 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: fa-opt %s -split-input-file --fa-tile-combine=split-warps=1 | FileCheck %s --check-prefix=ONE-GROUP
// RUN: fa-opt %s -split-input-file --fa-tile-combine=split-warps=3 | FileCheck %s --check-prefix=GROUPS3
// RUN: not fa-opt %s --fa-tile-combine=split-warps=-1 2>&1 | FileCheck %s --check-prefix=BAD-GROUPS
// RUN: not fa-opt %s -split-input-file --fa-tile-combine="block-m=128 split-warps=8" 2>&1 | FileCheck %s --check-prefix=TOO-MANY-GROUPS
// RUN: not fa-opt %s -split-input-file --fa-tile-combine=split-warps=4611686018427387904 2>&1 | FileCheck %s --check-prefix=HUGE-GROUPS

// BAD-OPTION: fa-tile-combine: option block-m must be 0 (pick from the shapes) or a multiple of 16 up to 128
// BAD-COLS: fa-tile-combine: option block-dv must be 0 (8 where it divides the value head dim, else all of it) or a column count that divides it, got -8
// NOT-DIVIDING: error: fa-tile-combine: block-dv (48) must divide the value head dim, got 'tensor<?x32x1x128xbf16>'
// NARROW: error: fa-tile-combine: #fa.mma_sync: acc tile columns (4) must be a multiple of 8, the n of mma.m16n8k16
// BAD-GROUPS: fa-tile-combine: option split-warps must be 0 (pick from the split count) or a number of warp groups per tile, got -1
// HUGE-GROUPS: error: fa-tile-combine: split-warps (4611686018427387904) groups of 2 warps (32-row tiles) are more than the 32 warps of a thread block
// TOO-MANY-GROUPS: error: fa-tile-combine: split-warps (8) groups of 8 warps (128-row tiles) are more than the 32 warps of a thread block

// The pass's input is --fa-split-kv's output after the loop nest: the
// workspaces [S * B, H, Nq, Dv] / [S * B, H, Nq] viewed as [S, B, ...] by
// tensor.expand_shape, merged by fa.combine_splits on whole tensors.

// A decode step (static Nq = 1, 32 heads): the rows of a tile are the heads
// at that position, all 32 in one tile of 2 warps, and its columns 8 of the
// 128 (block-dv = 0, the atom's fragment width), so 16 column tiles per
// row tile along x, column tile c of row tile t at t * 16 + c; split s of batch b is read at batch
// s * B + b of the workspace (stride B), padded to the tile (O with 0, LSE
// with -inf), merged with the tile form whose results are held by the warps
// like an attention output, and rows [0, n) stored along the heads, the LSE
// by the first column tile only.

// CHECK-LABEL: func @decode
// CHECK-SAME: (%[[WO:.*]]: tensor<?x32x1x128xf32>, %[[WL:.*]]: tensor<?x32x1xf32>)
// CHECK: %[[SB:.*]] = tensor.dim %[[WO]], %c0
// CHECK: %[[B:.*]] = arith.divui %[[SB]], %c4 : index
// CHECK: %[[OI:.*]] = tensor.empty(%[[B]]) : tensor<?x32x1x128xbf16>
// CHECK: %[[LI:.*]] = tensor.empty(%[[B]]) : tensor<?x32x1xf32>
// CHECK: %[[ROWTILES:.*]] = arith.ceildivui %c32, %c32 : index
// CHECK: %[[TILES:.*]] = arith.muli %[[ROWTILES]], %c16 : index
// CHECK: %[[R:.*]]:2 = scf.forall (%[[BI:.*]], %[[X:.*]], %[[QI:.*]]) in (%[[B]], %[[TILES]], 1) shared_outs(%[[O:.*]] = %[[OI]], %[[L:.*]] = %[[LI]])
// CHECK:   %[[CT:.*]] = arith.remui %[[X]], %c16 : index
// CHECK:   %[[HB:.*]] = arith.divui %[[X]], %c16 : index
// CHECK:   %[[COL:.*]] = arith.muli %[[CT]], %c8 : index
// CHECK:   %[[H0:.*]] = arith.muli %[[HB]], %c32 : index
// CHECK:   %[[LEFT:.*]] = arith.subi %c32, %[[H0]] : index
// CHECK:   %[[N:.*]] = arith.minsi %c32, %[[LEFT]] : index
// CHECK:   %[[PO:.*]] = tensor.extract_slice %[[WO]][%[[BI]], %[[H0]], %[[QI]], %[[COL]]] [4, %[[N]], 1, 8] [%[[B]], 1, 1, 1] : tensor<?x32x1x128xf32> to tensor<4x?x8xf32>
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[PAD:.*]] = arith.subi %c32, %[[N]] : index
// CHECK:   %[[POT:.*]] = tensor.pad %[[PO]] low[0, 0, 0] high[0, %[[PAD]], 0]
// CHECK:     tensor.yield %[[ZERO]]
// CHECK:   } : tensor<4x?x8xf32> to tensor<4x32x8xf32>
// CHECK:   %[[PL:.*]] = tensor.extract_slice %[[WL]][%[[BI]], %[[H0]], %[[QI]]] [4, %[[N]], 1] [%[[B]], 1, 1] : tensor<?x32x1xf32> to tensor<4x?xf32>
// CHECK:   %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:   %[[PLT:.*]] = tensor.pad %[[PL]] low[0, 0] high[0, %[[PAD]]]
// CHECK:     tensor.yield %[[NEGINF]]
// CHECK:   } : tensor<4x?xf32> to tensor<4x32xf32>
// CHECK:   %[[OT:.*]], %[[LT:.*]] = fa.combine_splits %[[POT]], %[[PLT]] : tensor<4x32x8xf32>, tensor<4x32xf32> -> tensor<32x8xbf16, #acc_w2>, tensor<32xf32, #rows_w2>
// CHECK:   %[[OR:.*]] = tensor.extract_slice %[[OT]][0, 0] [%[[N]], 8] [1, 1]
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[CT]], %c0 : index
// CHECK:   %[[NL:.*]] = arith.select %[[FIRST]], %[[N]], %c0 : index
// CHECK:   %[[LR:.*]] = tensor.extract_slice %[[LT]][0] [%[[NL]]] [1]
// CHECK:   tensor.parallel_insert_slice %[[OR]] into %[[O]][%[[BI]], %[[H0]], %[[QI]], %[[COL]]] [1, %[[N]], 1, 8] [1, 1, 1, 1]
// CHECK:   tensor.parallel_insert_slice %[[LR]] into %[[L]][%[[BI]], %[[H0]], %[[QI]]] [1, %[[NL]], 1] [1, 1, 1]
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @decode(%wo: tensor<?x32x1x128xf32>, %wl: tensor<?x32x1xf32>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %sb = tensor.dim %wo, %c0 : tensor<?x32x1x128xf32>
  %b = arith.divui %sb, %c4 : index
  %po = tensor.expand_shape %wo [[0, 1], [2], [3], [4]] output_shape [4, %b, 32, 1, 128]
      : tensor<?x32x1x128xf32> into tensor<4x?x32x1x128xf32>
  %pl = tensor.expand_shape %wl [[0, 1], [2], [3]] output_shape [4, %b, 32, 1]
      : tensor<?x32x1xf32> into tensor<4x?x32x1xf32>
  %o, %l = fa.combine_splits %po, %pl : tensor<4x?x32x1x128xf32>, tensor<4x?x32x1xf32>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}

// ROWS32-LABEL: func @decode
// ROWS32: arith.muli %{{.*}}, %c2 : index
// ROWS32: fa.combine_splits {{.*}} -> tensor<32x64xbf16, #acc_w2>, tensor<32xf32, #rows_w2>

// -----

// split-warps: groups of warps per tile (replicas in both result layouts),
// each merging a share of the splits. Left to the pass (0), a static count
// gets one group per 4 splits (13 -> 4).
// CHECK-LABEL: func @decode_many_splits
// CHECK: fa.combine_splits {{.*}} : tensor<13x32x8xf32>, tensor<13x32xf32> -> tensor<32x8xbf16, #acc_w2x4>, tensor<32xf32, #rows_w2x4>
// ONE-GROUP-LABEL: func @decode_many_splits
// ONE-GROUP: fa.combine_splits {{.*}} -> tensor<32x8xbf16, #acc_w2>, tensor<32xf32, #rows_w2>
// GROUPS3-LABEL: func @decode_many_splits
// GROUPS3: fa.combine_splits {{.*}} -> tensor<32x8xbf16, #acc_w2x3>, tensor<32xf32, #rows_w2x3>
func.func @decode_many_splits(%wo: tensor<?x32x1x128xf32>, %wl: tensor<?x32x1xf32>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %c0 = arith.constant 0 : index
  %c13 = arith.constant 13 : index
  %sb = tensor.dim %wo, %c0 : tensor<?x32x1x128xf32>
  %b = arith.divui %sb, %c13 : index
  %po = tensor.expand_shape %wo [[0, 1], [2], [3], [4]] output_shape [13, %b, 32, 1, 128]
      : tensor<?x32x1x128xf32> into tensor<13x?x32x1x128xf32>
  %pl = tensor.expand_shape %wl [[0, 1], [2], [3]] output_shape [13, %b, 32, 1]
      : tensor<?x32x1xf32> into tensor<13x?x32x1xf32>
  %o, %l = fa.combine_splits %po, %pl : tensor<13x?x32x1x128xf32>, tensor<13x?x32x1xf32>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}

// -----

// A dynamic Nq: tiles of 64 queries of one head on 4 warps (or 32 on 2
// with block-m=32), the last one partial, rows stored along the sequence;
// 8 of the 64 columns per tile (all 64 with block-dv=64).
// The partial results here are not a split workspace's view (no
// expand_shape): the tiles slice them directly.

// CHECK-LABEL: func @prefill
// CHECK-SAME: (%[[PO:.*]]: tensor<3x2x8x?x64xf32>, %[[PL:.*]]: tensor<3x2x8x?xf32>)
// CHECK: %[[NQ:.*]] = tensor.dim %[[PO]], %c3
// CHECK: %[[ROWTILES:.*]] = arith.ceildivui %[[NQ]], %c64 : index
// CHECK: %[[TILES:.*]] = arith.muli %[[ROWTILES]], %c8 : index
// CHECK: scf.forall (%[[BI:.*]], %[[HI:.*]], %[[X:.*]]) in (2, 8, %[[TILES]]) shared_outs(%[[O:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}) -> (tensor<2x8x?x64xf16>, tensor<2x8x?xf32>)
// CHECK:   %[[CT:.*]] = arith.remui %[[X]], %c8 : index
// CHECK:   %[[QB:.*]] = arith.divui %[[X]], %c8 : index
// CHECK:   %[[COL:.*]] = arith.muli %[[CT]], %c8 : index
// CHECK:   %[[Q0:.*]] = arith.muli %[[QB]], %c64 : index
// CHECK:   %[[N:.*]] = arith.minsi
// CHECK:   tensor.extract_slice %[[PO]][0, %[[BI]], %[[HI]], %[[Q0]], %[[COL]]] [3, 1, 1, %[[N]], 8] [1, 1, 1, 1, 1] : tensor<3x2x8x?x64xf32> to tensor<3x?x8xf32>
// CHECK:   tensor.extract_slice %[[PL]][0, %[[BI]], %[[HI]], %[[Q0]]] [3, 1, 1, %[[N]]] [1, 1, 1, 1] : tensor<3x2x8x?xf32> to tensor<3x?xf32>
// CHECK:   fa.combine_splits {{.*}} : tensor<3x64x8xf32>, tensor<3x64xf32> -> tensor<64x8xf16, #acc_w4>, tensor<64xf32, #rows_w4>
// CHECK:   %[[NL:.*]] = arith.select
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[O]][%[[BI]], %[[HI]], %[[Q0]], %[[COL]]] [1, 1, %[[N]], 8] [1, 1, 1, 1]
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[L]][%[[BI]], %[[HI]], %[[Q0]]] [1, 1, %[[NL]]] [1, 1, 1]
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}

// ROWS32-LABEL: func @prefill
// ROWS32: arith.ceildivui %{{.*}}, %c32
// ROWS32-NOT: arith.remui
// ROWS32: fa.combine_splits {{.*}} -> tensor<32x64xf16, #acc_w2>, tensor<32xf32, #rows_w2>
// ROWS32: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, 0] [1, 1, %{{.*}}, 64]
func.func @prefill(%po: tensor<3x2x8x?x64xf32>, %pl: tensor<3x2x8x?xf32>)
    -> (tensor<2x8x?x64xf16>, tensor<2x8x?xf32>) {
  %o, %l = fa.combine_splits %po, %pl : tensor<3x2x8x?x64xf32>, tensor<3x2x8x?xf32>
      -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
}

// -----

// The tile form is left as it is (running the pass twice changes nothing).

// CHECK-LABEL: func @tiled
// CHECK-NOT: scf.forall
// CHECK: fa.combine_splits %{{.*}}, %{{.*}} : tensor<2x16x64xf32>, tensor<2x16xf32> -> tensor<16x64xf16, #acc_w1>, tensor<16xf32, #rows_w1>
#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @tiled(%po: tensor<2x16x64xf32>, %pl: tensor<2x16xf32>)
    -> (tensor<16x64xf16, #acc>, tensor<16xf32, #rows>) {
  %o, %l = fa.combine_splits %po, %pl : tensor<2x16x64xf32>, tensor<2x16xf32>
      -> tensor<16x64xf16, #acc>, tensor<16xf32, #rows>
  return %o, %l : tensor<16x64xf16, #acc>, tensor<16xf32, #rows>
}

// -----

// A split count known only at run time (--fa-split-kv splits=0), read off
// the partial output [S, B, H, Nq, Dv] (no expand_shape here): the tiles
// are [S, rows] with S dynamic, merged by 4 groups of warps (split-warps
// = 0: the count is unknown here; one group with split-warps=1).
// CHECK-LABEL: func @runtime_splits
// CHECK-SAME: (%[[PO:.*]]: tensor<?x2x8x?x64xf32>, %[[PL:.*]]: tensor<?x2x8x?xf32>)
// CHECK: %[[S:.*]] = tensor.dim %[[PO]], %c0
// CHECK: scf.forall
// CHECK:   %[[OS:.*]] = tensor.extract_slice %[[PO]][0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [%[[S]], 1, 1, %{{.*}}, 8] [1, 1, 1, 1, 1] : tensor<?x2x8x?x64xf32> to tensor<?x?x8xf32>
// CHECK:   tensor.pad %[[OS]]
// CHECK:   } : tensor<?x?x8xf32> to tensor<?x64x8xf32>
// CHECK:   fa.combine_splits {{.*}} : tensor<?x64x8xf32>, tensor<?x64xf32> -> tensor<64x8xf16, #acc_w4x4>, tensor<64xf32, #rows_w4x4>
// ONE-GROUP-LABEL: func @runtime_splits
// ONE-GROUP: fa.combine_splits {{.*}} -> tensor<64x8xf16, #acc_w4>, tensor<64xf32, #rows_w4>
func.func @runtime_splits(%po: tensor<?x2x8x?x64xf32>, %pl: tensor<?x2x8x?xf32>)
    -> (tensor<2x8x?x64xf16>, tensor<2x8x?xf32>) {
  %o, %l = fa.combine_splits %po, %pl : tensor<?x2x8x?x64xf32>, tensor<?x2x8x?xf32>
      -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
}
