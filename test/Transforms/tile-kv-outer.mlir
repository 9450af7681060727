// RUN: fa-opt %s -split-input-file --fa-tile-kv-outer="block-m=32 block-n=16" | FileCheck %s

// FlashAttention-2's backward loop nest: D = rowsum(dO * O) first; then
// batch, key/value head and K/V block outermost, the query heads of the
// group and the Q blocks inside, with the K/V block's dK and dV tiles and
// the f32 dQ accumulator as iter_args; P recomputed from LSE.

// Causal GQA 4:2, f16, dynamic Nq and Nk.
// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x?x64xf16>, %[[K:[^:]*]]: tensor<1x2x?x64xf16>, %[[V:[^:]*]]: tensor<1x2x?x64xf16>, %[[O:[^:]*]]: tensor<1x4x?x64xf16>, %[[DO:[^:]*]]: tensor<1x4x?x64xf16>, %[[L:[^:]*]]: tensor<1x4x?xf32>, %[[DQ0:[^:]*]]: tensor<1x4x?x64xf16>, %[[DK0:[^:]*]]: tensor<1x2x?x64xf16>, %[[DV0:[^:]*]]: tensor<1x2x?x64xf16>)
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %c2
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %c2
//     The preprocess: D = rowsum(dO * O), one reduction over the head dim.
// CHECK: %[[D:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[DO]], %[[O]] : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>) outs(%{{.*}} : tensor<1x4x?xf32>)
//     The causal bound, bottom-right aligned: Nk - Nq.
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
//     f32 accumulators for dQ, dK, dV.
// CHECK: %[[DQ_ACC:.*]] = linalg.fill {{.*}} -> tensor<1x4x?x64xf32>
// CHECK: %[[DK_ACC:.*]] = linalg.fill {{.*}} -> tensor<1x2x?x64xf32>
// CHECK: %[[DV_ACC:.*]] = linalg.fill {{.*}} -> tensor<1x2x?x64xf32>
// CHECK: %[[R:.*]]:3 = scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[DQ_ACC]], %{{.*}} = %[[DK_ACC]], %{{.*}} = %[[DV_ACC]])
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %c2{{.*}} step %{{.*}} iter_args(
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[NK]] step %c16{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[DK_IN:.*]] = %{{.*}}, %[[DV_IN:.*]] = %{{.*}})
//     K and V tiles of the block, zero-padded to 16 rows.
// CHECK: tensor.extract_slice %[[K]][%[[B]], %[[G]], %[[K0]], 0]
// CHECK: %[[K_TILE:.*]] = tensor.pad
// CHECK: tensor.extract_slice %[[V]][%[[B]], %[[G]], %[[K0]], 0]
// CHECK: %[[V_TILE:.*]] = tensor.pad
// CHECK-DAG: %[[DK_T0:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
// CHECK-DAG: %[[DV_T0:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
//     Block skipping: the first Q block with a row that sees key k0 is the
//     one of row k0 - (Nk - Nq), clamped to [0, Nq] and rounded down to a
//     block; without a window every later block sees the K/V block.
// CHECK: %[[FIRST:.*]] = arith.subi %[[K0]], %[[OFFSET]] : index
// CHECK: %[[NONNEG:.*]] = arith.maxsi %[[FIRST]], %{{.*}} : index
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[NONNEG]], %[[NQ]] : index
// CHECK: %[[NBLOCKS:.*]] = arith.divui %[[CLAMPED]], %c32{{.*}} : index
// CHECK: %[[Q_BEGIN:.*]] = arith.muli %[[NBLOCKS]], %c32{{.*}} : index
//     The query heads of the group (2), then the Q blocks.
// CHECK: %[[T:.*]]:3 = scf.for %[[RH:.*]] = %{{.*}} to %c2{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[DK_T0]], %{{.*}} = %[[DV_T0]], %{{.*}} = %{{.*}})
// CHECK: %[[HEAD:.*]] = arith.addi %{{.*}}, %[[RH]] : index
// CHECK: scf.for %[[Q0:.*]] = %[[Q_BEGIN]] to %[[NQ]] step %c32{{.*}} iter_args(%[[DK_T:.*]] = %{{.*}}, %[[DV_T:.*]] = %{{.*}}, %[[DQ_T:.*]] = %{{.*}})
// CHECK: tensor.extract_slice %[[Q]][%[[B]], %[[HEAD]], %[[Q0]], 0]
// CHECK: %[[Q_TILE:.*]] = tensor.pad
// CHECK: %[[DO_TILE:.*]] = tensor.pad
//     LSE rows padded with -inf (P = 0 in padded rows), D rows with 0.
// CHECK: tensor.extract_slice %[[L]][%[[B]], %[[HEAD]], %[[Q0]]]
// CHECK: %[[LSE_TILE:.*]] = tensor.pad
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: tensor.extract_slice %[[D]][%[[B]], %[[HEAD]], %[[Q0]]]
// CHECK: %[[D_TILE:.*]] = tensor.pad
//     S with the forward's tile ops, scaled, masked (keys past Nk, causal).
// CHECK: %[[S:.*]] = fa.qk %[[Q_TILE]], %[[K_TILE]] : tensor<32x64xf16>, tensor<16x64xf16> -> tensor<32x16xf32>
// CHECK: %[[SS:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<32x16xf32>)
// CHECK: %[[SM:.*]] = fa.mask %[[SS]][%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[OFFSET]]) : tensor<32x16xf32>
//     P = exp(S - LSE); dV += P^T dO; dP = dO V^T; dS; dK += dS^T Q; dQ.
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[SM]], %[[LSE_TILE]] : tensor<32x16xf32>, tensor<32xf32>)
// CHECK: math.exp
// CHECK: %[[DV_NEW:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DO_TILE]] : tensor<32x16xf32>, tensor<32x64xf16>) outs(%[[DV_T]] : tensor<16x64xf32>)
// CHECK: %[[DP:.*]] = linalg.generic {{.*}} ins(%[[DO_TILE]], %[[V_TILE]] : tensor<32x64xf16>, tensor<16x64xf16>)
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DP]], %[[D_TILE]], %[[SM]] : tensor<32x16xf32>, tensor<32x16xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: %[[DK_NEW:.*]] = linalg.generic {{.*}} ins(%[[DS]], %[[Q_TILE]] : tensor<32x16xf32>, tensor<32x64xf16>) outs(%[[DK_T]] : tensor<16x64xf32>)
// CHECK: %[[DQ_BLOCK:.*]] = linalg.generic {{.*}} ins(%[[DS]], %[[K_TILE]] : tensor<32x16xf32>, tensor<16x64xf16>)
// CHECK: %[[DQ_ROWS:.*]] = tensor.extract_slice %[[DQ_BLOCK]][0, 0] [%[[QROWS:.*]], 64] [1, 1]
// CHECK: %[[DQ_OLD:.*]] = tensor.extract_slice %[[DQ_T]][%[[B]], %[[HEAD]], %[[Q0]], 0] [1, 1, %[[QROWS]], 64] [1, 1, 1, 1]
// CHECK: %[[DQ_SUM:.*]] = linalg.generic {{.*}} ins(%[[DQ_ROWS]] : tensor<?x64xf32>) outs(%[[DQ_OLD]] : tensor<?x64xf32>)
// CHECK: %[[DQ_NEW:.*]] = tensor.insert_slice %[[DQ_SUM]] into %[[DQ_T]][%[[B]], %[[HEAD]], %[[Q0]], 0]
// CHECK: scf.yield %[[DK_NEW]], %[[DV_NEW]], %[[DQ_NEW]]
//     The block's dK and dV rows, stored once.
// CHECK: %[[DK_ROWS:.*]] = tensor.extract_slice %[[T]]#0[0, 0]
// CHECK: %[[DK_NEXT:.*]] = tensor.insert_slice %[[DK_ROWS]] into %[[DK_IN]][%[[B]], %[[G]], %[[K0]], 0]
// CHECK: %[[DV_ROWS:.*]] = tensor.extract_slice %[[T]]#1[0, 0]
// CHECK: %[[DV_NEXT:.*]] = tensor.insert_slice %[[DV_ROWS]] into %[[DV_IN]][%[[B]], %[[G]], %[[K0]], 0]
// CHECK: scf.yield %[[T]]#2, %[[DK_NEXT]], %[[DV_NEXT]]
//     Scale and round once.
// CHECK: %[[RQ:.*]] = linalg.generic {{.*}} ins(%[[R]]#0 : tensor<1x4x?x64xf32>) outs(%[[DQ0]] : tensor<1x4x?x64xf16>)
// CHECK: %[[RK:.*]] = linalg.generic {{.*}} ins(%[[R]]#1 : tensor<1x2x?x64xf32>) outs(%[[DK0]] : tensor<1x2x?x64xf16>)
// CHECK: %[[RV:.*]] = linalg.generic {{.*}} ins(%[[R]]#2 : tensor<1x2x?x64xf32>) outs(%[[DV0]] : tensor<1x2x?x64xf16>)
// CHECK: return %[[RQ]], %[[RK]], %[[RV]]
func.func @gqa_causal(%q: tensor<1x4x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                      %o: tensor<1x4x?x64xf16>, %do: tensor<1x4x?x64xf16>, %l: tensor<1x4x?xf32>,
                      %dq: tensor<1x4x?x64xf16>, %dk: tensor<1x2x?x64xf16>, %dv: tensor<1x2x?x64xf16>)
    -> (tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>,
                                    tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?xf32>)
      outs(%dq, %dk, %dv : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
      causal -> tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
  return %0#0, %0#1, %0#2 : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
}

// -----

// A soft cap replaces the scale generic by fa.softcap (scale / cap, cap);
// a window gives the mask its left bound, and the Q loop an end: the rows
// before k0 + kRows - (Nk - Nq - 8), clamped to [0, Nq].
// CHECK-LABEL: func @softcap_window
// CHECK: %[[DIAG:.*]] = arith.subi %c40{{.*}}, %c40{{.*}} : index
// CHECK: %[[WOFF:.*]] = arith.addi %[[DIAG]], %c-8 : index
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c40{{.*}} step %c16
// CHECK: %[[KROWS:.*]] = arith.minsi %c16{{.*}}, %{{.*}} : index
// CHECK: %[[KEND:.*]] = arith.addi %[[K0]], %[[KROWS]] : index
// CHECK: %[[Q_BEGIN:.*]] = arith.muli
// CHECK: %[[LAST:.*]] = arith.subi %[[KEND]], %[[WOFF]] : index
// CHECK: %[[NONNEG:.*]] = arith.maxsi %[[LAST]], %{{.*}} : index
// CHECK: %[[Q_END:.*]] = arith.minsi %[[NONNEG]], %c40{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[Q_BEGIN]] to %[[Q_END]] step %c32
// CHECK: %[[S:.*]] = fa.qk
// CHECK-NEXT: %[[C:.*]] = fa.softcap %[[S]] scale(%{{.*}}) cap(%{{.*}}) : tensor<32x16xf32>
// CHECK-NEXT: fa.mask %[[C]][%{{.*}}, %{{.*}}] key_limit(%{{.*}}) causal_offset(%{{.*}}) window_offset(%{{.*}}) : tensor<32x16xf32>
func.func @softcap_window(%q: tensor<1x1x40x16xf32>, %l: tensor<1x1x40xf32>, %d: tensor<1x1x40x16xf32>)
    -> (tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>) {
  %0:3 = fa.attention_backward
      ins(%q, %q, %q, %q, %q, %l : tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>,
                                   tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40xf32>)
      outs(%d, %d, %d : tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>)
      window(8, 0) softcap(30.0) -> tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>
  return %0#0, %0#1, %0#2 : tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>
}
