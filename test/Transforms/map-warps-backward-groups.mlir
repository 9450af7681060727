// RUN: fa-opt %s --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=64 dq=atomic" | fa-opt --fa-map-warps="dkdv-groups=2" | FileCheck %s
// RUN: fa-opt %s --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=64 dq=deterministic" | fa-opt --fa-map-warps="dkdv-groups=2" | FileCheck %s --check-prefix=DET
// RUN: fa-opt %s --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=64 dq=atomic" | fa-opt --fa-map-warps="num-warps=2 dkdv-groups=4" | FileCheck %s --check-prefix=W2X4
// RUN: fa-opt %s --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=16 dq=atomic" | not fa-opt --fa-map-warps="dkdv-groups=2" 2>&1 | FileCheck %s --check-prefix=BAD-COLS
// RUN: fa-opt %s --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=64 dq=atomic" | not fa-opt --fa-map-warps="dkdv-groups=3" 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="chip=sm_90" | fa-opt --fa-map-warps="chip=sm_90" | FileCheck %s --check-prefix=RECORDED
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="chip=sm_90" | fa-opt --fa-map-warps="chip=sm_90 dkdv-groups=1" 2>/dev/null | FileCheck %s --check-prefix=ROWWISE
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="chip=sm_90" | fa-opt --fa-map-warps="chip=sm_90 dkdv-groups=1" 2>&1 >/dev/null | FileCheck %s --check-prefix=OVERRIDE
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="chip=sm_90" | sed -e 's/fa.dkdv_groups = 2 : i64/fa.dkdv_groups = 4611686018427387904 : i64/' | not fa-opt --fa-map-warps="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: sed -e 's/x64xf16/x512xf16/g' %s | fa-opt --fa-tile-backward="block-m=128 block-n=128 dkdv-block-m=128 dq=atomic" | not fa-opt --fa-map-warps="num-warps=8 dkdv-groups=8" 2>&1 | FileCheck %s --check-prefix=TOO-MANY

// --fa-map-warps{dkdv-groups=C} on the nests of --fa-tile-backward (input:
// that pass's output): in the dK/dV nest, C groups of num-warps warps split
// the columns of every accumulator, a [num-warps, C] warp grid. P^T and
// dS^T go into shared memory (each group holds only its query columns, the
// k of dV += P^T dO and dK += dS^T Q), K and V stay there; the D and dQ
// nests keep warps on whole rows.

// CHECK-DAG: #[[ACC:.*]] = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #[[COLS:.*]] = #fa.warp_rows<acc, num_warps = 4, replicas = 2, share = columns, atom = #fa.mma_sync>
// CHECK-DAG: #[[ROWS:.*]] = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #[[SH:.*]] = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-DAG: #[[SHT:.*]] = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
// CHECK-LABEL: func.func @mha_causal
//     1. D: warps on rows.
// CHECK: fa.row_dot {{.*}} -> tensor<128xf32, #[[ROWS]]>
// CHECK: } {mapping
//     2. dK/dV: the [4, 2] grid.
// CHECK: %[[K:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16, #[[SH]]>
// CHECK: %[[V:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16, #[[SH]]>
// CHECK-NOT: operand_a
// CHECK: scf.for {{.*}} -> (tensor<128x64xf32, #[[COLS]]>, tensor<128x64xf32, #[[COLS]]>)
// CHECK: %[[Q:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #[[SH]]>
// CHECK: %[[DO:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #[[SH]]>
// CHECK: %[[ST:.*]] = fa.qk %[[K]], %[[Q]] : tensor<128x64xf16, #[[SH]]>, tensor<64x64xf16, #[[SH]]> -> tensor<128x64xf32, #[[COLS]]>
// CHECK: %[[STM:.*]] = fa.mask %[[ST]]{{.*}} {transposed} : tensor<128x64xf32, #[[COLS]]>
// CHECK: %[[PT:.*]] = fa.probs_from_lse %[[STM]], {{.*}} {transposed} : tensor<128x64xf32, #[[COLS]]>, tensor<64xf32>
// CHECK: %[[PT16:.*]] = arith.truncf %[[PT]] : tensor<128x64xf32, #[[COLS]]> to tensor<128x64xf16, #[[COLS]]>
// CHECK: %[[PTS:.*]] = fa.convert_layout %[[PT16]] : tensor<128x64xf16, #[[COLS]]> -> tensor<128x64xf16, #[[SH]]>
// CHECK: fa.pv %[[PTS]], %[[DO]], %{{.*}} : tensor<128x64xf16, #[[SH]]>, tensor<64x64xf16, #[[SH]]>, tensor<128x64xf32, #[[COLS]]>
// CHECK: %[[DPT:.*]] = fa.qk %[[V]], %[[DO]] : {{.*}} -> tensor<128x64xf32, #[[COLS]]>
// CHECK: fa.score_grad %[[PT]], %[[DPT]], {{.*}} {transposed} : tensor<128x64xf32, #[[COLS]]>, tensor<64xf32>
// CHECK: %[[DS16:.*]] = arith.truncf
// CHECK: %[[DSS:.*]] = fa.convert_layout %[[DS16]] : tensor<128x64xf16, #[[COLS]]> -> tensor<128x64xf16, #[[SH]]>
// CHECK: fa.pv %[[DSS]], %[[Q]], %{{.*}} : tensor<128x64xf16, #[[SH]]>, tensor<64x64xf16, #[[SH]]>, tensor<128x64xf32, #[[COLS]]>
//    dQ = dS K (64 query rows): dS is the transposed view of dS^T's shared
//    tile, K the shared K tile.
// CHECK: %[[DS:.*]] = fa.transpose %[[DSS]] : tensor<128x64xf16, #[[SH]]> -> tensor<64x128xf16, #[[SHT]]>
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[COLS]]>
// CHECK: %[[DQ:.*]] = fa.pv %[[DS]], %[[K]], %[[Z]] : tensor<64x128xf16, #[[SHT]]>, tensor<128x64xf16, #[[SH]]>, tensor<64x64xf32, #[[COLS]]>
// CHECK: fa.accumulate_rows %[[DQ]] into {{.*}} rows(%c64{{(_[0-9]+)?}}) : tensor<64x64xf32, #[[COLS]]>
// CHECK: } {mapping
//     3. The dQ rounding nest: its 128-row blocks are not the writer's
//        64-row tiles, so it reads by rows, warps on rows (no fragment
//        order).
// CHECK-NOT: fragment_order
// CHECK: fa.read_rows {{.*}} -> tensor<128x64xf32, #[[ACC]]>
// CHECK: } {mapping

//     The deterministic form: the dK/dV nest takes the grid, the dQ nest
//     (Q-outer, whose rows are queries) keeps warps on rows.
// DET-LABEL: func.func @mha_causal
// DET: fa.probs_from_lse {{.*}} {transposed} : tensor<128x64xf32, #acc_w4x2_cols>
// DET: } {mapping
// DET: fa.probs_from_lse {{.*}} : tensor<128x128xf32, #acc_w4>, tensor<128xf32>
// DET: } {mapping

// W2X4-LABEL: func.func @mha_causal
// W2X4: fa.qk {{.*}} -> tensor<128x64xf32, #acc_w2x4_cols>
// W2X4: fa.accumulate_rows {{.*}} : tensor<64x64xf32, #acc_w2x4_cols>

//     dkdv-groups=0 (the default) takes the grid --fa-tile-backward
//     recorded (fa.dkdv_groups: chip=sm_90, head dim 128, dq=auto); its
//     streamed Q and dO tiles are swizzled for sm_90 (swizzle-shared=auto).
//     The atomic dQ = dS K (64 queries x 128 head-dim columns) only leaves
//     the nest (fa.accumulate_rows), so it takes the split of the nest's 8
//     warps whose warps read the fewest rows + columns: [2, 4], 32 x 32 a
//     warp (the nest's [4, 2] would give 16 x 64), from a zero constant of
//     that layout. The rounding nest's 64-row blocks are those tiles,
//     whole (padded buffer): it reads them in the writer's layout, and both
//     ends take the fragment order (fa.accumulate_rows).
// RECORDED-DAG: #[[SWZ:.*]] = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// RECORDED-DAG: #[[DQ:.*]] = #fa.warp_rows<acc, num_warps = 2, replicas = 4, share = columns, atom = #fa.mma_sync>
// RECORDED-LABEL: func.func @mha_causal
// RECORDED: } : tensor<?x128xf16> to tensor<64x128xf16, #[[SWZ]]>
// RECORDED: fa.qk {{.*}} -> tensor<128x64xf32, #acc_w4x2_cols>
// RECORDED: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #[[DQ]]>
// RECORDED-NEXT: %[[DQT:.*]] = fa.pv {{.*}}, %[[ZERO]] : tensor<64x128xf16, #shared_t>, tensor<128x128xf16, #shared>, tensor<64x128xf32, #[[DQ]]>
// RECORDED-NEXT: fa.accumulate_rows %[[DQT]] {{.*}} rows(%c64{{(_[0-9]+)?}}) {fragment_order} : tensor<64x128xf32, #[[DQ]]>
// RECORDED: %[[SUMS:.*]] = fa.read_rows {{.*}} rows(%c64{{(_[0-9]+)?}}) {fragment_order} : tensor<?x2x?x128xf32> -> tensor<64x128xf32, #[[DQ]]>
// RECORDED-NEXT: arith.truncf %[[SUMS]] : tensor<64x128xf32, #[[DQ]]> to tensor<64x128xf16, #[[DQ]]>
//     On rows of 4 warps, [2, 2] and [1, 4] tie (32 + 64 rows and columns
//     a warp) and beat [4, 1] (16 + 128): the most warps on rows.
// ROWWISE-DAG: #[[DQ2:.*]] = #fa.warp_rows<acc, num_warps = 2, replicas = 2, share = columns, atom = #fa.mma_sync>
// ROWWISE-LABEL: func.func @mha_causal
// ROWWISE: fa.pv {{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #acc_w4>
// ROWWISE: fa.accumulate_rows {{.*}} {fragment_order} : tensor<64x128xf32, #[[DQ2]]>
// ROWWISE: fa.read_rows {{.*}} {fragment_order} : tensor<?x2x?x128xf32> -> tensor<64x128xf32, #[[DQ2]]>

// OVERRIDE: warning: fa-map-warps: dkdv-groups=1 overrides the 2 groups --fa-tile-backward sized this dK/dV nest's tiles for (fa.dkdv_groups); the kernel may spill (give --fa-tile-backward block-n and dkdv-block-m for it)

// BAD-COLS: error: fa-map-warps: the dK/dV nest's tile 'tensor<128x16xf32>' must have a multiple of 16 * dkdv-groups = 32 columns: each group of warps owns whole 16-column slices
// BAD-OPTION: error: fa-map-warps: option dkdv-groups must be 1, 2, 4 or 8 (or 0 for the tiling's choice), got 3
// TOO-MANY: error: fa-map-warps: num-warps x dkdv-groups (8 x 8) must be at most 32 warps a block, with at least one group
// HUGE: error: fa-map-warps: num-warps x dkdv-groups (4 x 4611686018427387904) must be at most 32 warps a block, with at least one group

func.func @mha_causal(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %o: tensor<1x2x?x64xf16>, %do: tensor<1x2x?x64xf16>, %lse: tensor<1x2x?xf32>, %dq0: tensor<1x2x?x64xf16>, %dk0: tensor<1x2x?x64xf16>, %dv0: tensor<1x2x?x64xf16>) -> (tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) {
  %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) causal -> tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
  return %dq, %dk, %dv : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
}
