// RUN: fa-opt %s -split-input-file --fa-decompose-naive | FileCheck %s

// The naive decomposition: S = scale * Q K^T over the whole key range, the
// causal mask, a row max, exp, a row sum, E V, and one division by the row sum.

// CHECK-DAG: #[[$QMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[$VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-LABEL: func @causal_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x?x8xf16>, %[[K:[^:]*]]: tensor<1x2x?x8xf16>, %[[V:[^:]*]]: tensor<1x2x?x16xf16>, %[[O:[^:]*]]: tensor<1x4x?x16xf16>, %[[L:[^:]*]]: tensor<1x4x?xf32>)
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<1x4x?x8xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<1x2x?x8xf16>
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
//     Scores, reading K head h floordiv 2 for query head h, accumulated in f32.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$KMAP]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[K]] : {{.*}}) outs(%{{.*}} : tensor<1x4x?x?xf32>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
//     Scale 1/sqrt(8) and the bottom-right causal mask: hide j > i + Nk - Nq.
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK: %[[MASKED:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<1x4x?x?xf32>)
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[I:.*]] = linalg.index 2
// CHECK: %[[J:.*]] = linalg.index 3
// CHECK: %[[LAST:.*]] = arith.addi %[[I]], %[[OFFSET]]
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sgt, %[[J]], %[[LAST]]
// CHECK: arith.select %[[HIDDEN]], %[[NEG_INF]], %[[SCALED]]
//     Row max, exp, row sum.
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[MASKED]] : tensor<1x4x?x?xf32>) outs(%{{.*}} : tensor<1x4x?xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<1x4x?xf32>) outs(%[[MASKED]] : tensor<1x4x?x?xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<1x4x?x?xf32>) outs(%{{.*}} : tensor<1x4x?xf32>)
// CHECK: arith.addf
//     E V, reading V head h floordiv 2.
// CHECK: %[[U:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$VMAP]], {{.*}}]
// CHECK-SAME: ins(%[[E]], %[[V]] : tensor<1x4x?x?xf32>, tensor<1x2x?x16xf16>)
//     The one division, 0 for rows that see no key, then f16.
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[U]], %[[SUM]] : {{.*}}) outs(%[[O]] : tensor<1x4x?x16xf16>)
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[SUM]] : {{.*}}) outs(%[[L]] : tensor<1x4x?xf32>)
// CHECK: math.log
// CHECK: return %[[OUT]], %[[LSE]]
func.func @causal_gqa(%q: tensor<1x4x?x8xf16>, %k: tensor<1x2x?x8xf16>, %v: tensor<1x2x?x16xf16>,
                      %o: tensor<1x4x?x16xf16>, %l: tensor<1x4x?xf32>) -> (tensor<1x4x?x16xf16>, tensor<1x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>)
                        outs(%o, %l : tensor<1x4x?x16xf16>, tensor<1x4x?xf32>) causal
                        -> tensor<1x4x?x16xf16>, tensor<1x4x?xf32>
  return %0, %1 : tensor<1x4x?x16xf16>, tensor<1x4x?xf32>
}

// -----

// Without `causal` there is no mask, only the scale; f32 needs no conversion;
// without an LSE destination no log is computed.
// CHECK-LABEL: func @plain_f32
// CHECK-NOT: linalg.index
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK-NOT: math.log
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK-NOT: math.log
// CHECK: return
func.func @plain_f32(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>,
                     %o: tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = fa.attention ins(%q, %k, %v : tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>)
                    outs(%o : tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}
