// RUN: fa-opt %s -split-input-file --fa-decompose-naive | FileCheck %s

// The naive decomposition of fa.attention_backward (the CPU oracle of the
// gradient): the forward's scores (the same Q K^T generic, the same soft cap
// and mask), P = exp(S - LSE), D = rowsum(dO * O), dP = dO V^T,
// dS = P * (dP - D) (times the soft cap's derivative), dQ = scale * dS K,
// and dK = scale * dS^T Q, dV = P^T dO summed over each GQA group.

// Causal GQA 4:2 with a soft cap, f16, dynamic Nq and Nk, Dv = 16 != D = 8.

//     Loops (b, h, i, j, d) of Q K^T and dO V^T (K and V at head h floordiv
//     2), (b, h, i, d, j) of dS K, and (b, g, j, d, r, i) of the group sums
//     (query head h = 2 g + r after the split).
// CHECK-DAG: #[[$QMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[$SMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$KTMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ROW4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$GSCORE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5, d2)>
// CHECK-DAG: #[[$GROW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5, d3)>
// CHECK-DAG: #[[$GOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @gqa_causal_softcap
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x?x8xf16>, %[[K:[^:]*]]: tensor<1x2x?x8xf16>, %[[V:[^:]*]]: tensor<1x2x?x16xf16>, %[[O:[^:]*]]: tensor<1x4x?x16xf16>, %[[DO:[^:]*]]: tensor<1x4x?x16xf16>, %[[L:[^:]*]]: tensor<1x4x?xf32>, %[[DQ0:[^:]*]]: tensor<1x4x?x8xf16>, %[[DK0:[^:]*]]: tensor<1x2x?x8xf16>, %[[DV0:[^:]*]]: tensor<1x2x?x16xf16>)
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
//     S: the forward's Q K^T in f32, then scale inside the cap and the
//     bottom-right causal mask.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$KMAP]], #[[$SMAP]]], {{.*}}} ins(%[[Q]], %[[K]] : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>)
// CHECK-DAG: %[[CAP_SCALE:.*]] = arith.constant 0.0176776703 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 2.000000e+01 : f32
// CHECK: %[[SM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]]], {{.*}}} outs(%[[S]] : tensor<1x4x?x?xf32>)
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[CAP_SCALE]] : f32
// CHECK: %[[TANH:.*]] = math.tanh %[[T]] : f32
// CHECK: %[[CAPPED:.*]] = arith.mulf %[[CAP]], %[[TANH]] : f32
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge
// CHECK: arith.select %[[HIDDEN]], %[[NEG_INF]], %[[CAPPED]] : f32
//     P = exp(S - LSE), 0 for a row with LSE = -inf.
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ROW4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[SM]], %[[L]] : tensor<1x4x?x?xf32>, tensor<1x4x?xf32>)
// CHECK: ^bb0(%[[PS:.*]]: f32, %[[PL:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NO_KEY:.*]] = arith.cmpf oeq, %[[PL]], %{{.*}} : f32
// CHECK: %[[PDIFF:.*]] = arith.subf %[[PS]], %[[PL]] : f32
// CHECK: %[[PEXP:.*]] = math.exp %[[PDIFF]] : f32
// CHECK: %[[PSEL:.*]] = arith.select %[[NO_KEY]], %{{.*}}, %[[PEXP]] : f32
// CHECK: linalg.yield %[[PSEL]] : f32
//     D = rowsum(dO * O) in f32.
// CHECK: %[[D:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]], #[[$ROW4]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[DO]], %[[O]] : tensor<1x4x?x16xf16>, tensor<1x4x?x16xf16>)
//     dP = dO V^T, V at head h floordiv 2.
// CHECK: %[[DP:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$KMAP]], #[[$SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[DO]], %[[V]] : tensor<1x4x?x16xf16>, tensor<1x2x?x16xf16>)
//     dS = P * (dP - D) * (1 - (S / c)^2), 0 where S = -inf.
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DP]], %[[D]], %[[SM]] : tensor<1x4x?x?xf32>, tensor<1x4x?x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x?xf32>)
// CHECK: ^bb0(%[[GP:.*]]: f32, %[[GDP:.*]]: f32, %[[GD:.*]]: f32, %[[GS:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[CENTERED:.*]] = arith.subf %[[GDP]], %[[GD]] : f32
// CHECK: %[[GRAD:.*]] = arith.mulf %[[GP]], %[[CENTERED]] : f32
// CHECK: %[[GHIDDEN:.*]] = arith.cmpf oeq, %[[GS]], %{{.*}} : f32
// CHECK: %[[RATIO:.*]] = arith.divf %[[GS]], %{{.*}} : f32
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[RATIO]], %[[RATIO]] : f32
// CHECK: %[[DERIV:.*]] = arith.subf %{{.*}}, %[[SQUARE]] : f32
// CHECK: %[[CAPPED_GRAD:.*]] = arith.mulf %[[GRAD]], %[[DERIV]] : f32
// CHECK: %[[GSEL:.*]] = arith.select %[[GHIDDEN]], %{{.*}}, %[[CAPPED_GRAD]] : f32
// CHECK: linalg.yield %[[GSEL]] : f32
//     dQ (unscaled) = dS K.
// CHECK: %[[DQ:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$KTMAP]], #[[$SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[DS]], %[[K]] : tensor<1x4x?x?xf32>, tensor<1x2x?x8xf16>) outs(%{{.*}} : tensor<1x4x?x8xf32>)
//     dK (unscaled) = dS^T Q over the two query heads of each group.
// CHECK: %[[DS_SPLIT:.*]] = tensor.expand_shape %[[DS]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} : tensor<1x4x?x?xf32> into tensor<1x2x2x?x?xf32>
// CHECK: %[[Q_SPLIT:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} : tensor<1x4x?x8xf16> into tensor<1x2x2x?x8xf16>
// CHECK: %[[DK:.*]] = linalg.generic {indexing_maps = [#[[$GSCORE]], #[[$GROW]], #[[$GOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[DS_SPLIT]], %[[Q_SPLIT]] : tensor<1x2x2x?x?xf32>, tensor<1x2x2x?x8xf16>) outs(%{{.*}} : tensor<1x2x?x8xf32>)
//     dV = P^T dO, the same way.
// CHECK: %[[P_SPLIT:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} into tensor<1x2x2x?x?xf32>
// CHECK: %[[DO_SPLIT:.*]] = tensor.expand_shape %[[DO]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} into tensor<1x2x2x?x16xf16>
// CHECK: %[[DV:.*]] = linalg.generic {indexing_maps = [#[[$GSCORE]], #[[$GROW]], #[[$GOUT]]], {{.*}}} ins(%[[P_SPLIT]], %[[DO_SPLIT]] : tensor<1x2x2x?x?xf32>, tensor<1x2x2x?x16xf16>) outs(%{{.*}} : tensor<1x2x?x16xf32>)
//     dQ and dK take the scale 1/sqrt(8); all three are rounded to f16 into
//     their destinations.
// CHECK: %[[SCALE_Q:.*]] = arith.constant 0.353553385 : f32
// CHECK: %[[RQ:.*]] = linalg.generic {{.*}} ins(%[[DQ]] : tensor<1x4x?x8xf32>) outs(%[[DQ0]] : tensor<1x4x?x8xf16>)
// CHECK: arith.mulf %{{.*}}, %[[SCALE_Q]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[SCALE_K:.*]] = arith.constant 0.353553385 : f32
// CHECK: %[[RK:.*]] = linalg.generic {{.*}} ins(%[[DK]] : tensor<1x2x?x8xf32>) outs(%[[DK0]] : tensor<1x2x?x8xf16>)
// CHECK: arith.mulf %{{.*}}, %[[SCALE_K]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[RV:.*]] = linalg.generic {{.*}} ins(%[[DV]] : tensor<1x2x?x16xf32>) outs(%[[DV0]] : tensor<1x2x?x16xf16>)
// CHECK-NOT: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[RQ]], %[[RK]], %[[RV]]
func.func @gqa_causal_softcap(%q: tensor<1x4x?x8xf16>, %k: tensor<1x2x?x8xf16>, %v: tensor<1x2x?x16xf16>,
                              %o: tensor<1x4x?x16xf16>, %do: tensor<1x4x?x16xf16>, %l: tensor<1x4x?xf32>,
                              %dq: tensor<1x4x?x8xf16>, %dk: tensor<1x2x?x8xf16>, %dv: tensor<1x2x?x16xf16>)
    -> (tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>,
                                    tensor<1x4x?x16xf16>, tensor<1x4x?x16xf16>, tensor<1x4x?xf32>)
      outs(%dq, %dk, %dv : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>)
      causal softcap(20.0)
      -> tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>
  return %0#0, %0#1, %0#2 : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>
}

// -----

// f32, one query head per key/value head, no mask, no cap: S is only
// scaled, dS = P * (dP - D) with no guard, and nothing is rounded.
// CHECK-LABEL: func @plain_f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x5x7xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: linalg.index
// CHECK-NOT: arith.select
// CHECK: linalg.yield
// CHECK: math.exp
// CHECK: ^bb0(%[[GP:.*]]: f32, %[[GDP:.*]]: f32, %[[GD:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[CENTERED:.*]] = arith.subf %[[GDP]], %[[GD]] : f32
// CHECK-NEXT: %[[GRAD:.*]] = arith.mulf %[[GP]], %[[CENTERED]] : f32
// CHECK-NEXT: linalg.yield %[[GRAD]] : f32
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x1x5x7xf32>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @plain_f32(%q: tensor<2x3x5x4xf32>, %k: tensor<2x3x7x4xf32>, %v: tensor<2x3x7x4xf32>,
                     %o: tensor<2x3x5x4xf32>, %do: tensor<2x3x5x4xf32>, %l: tensor<2x3x5xf32>)
    -> (tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>) {
  %dq = tensor.empty() : tensor<2x3x5x4xf32>
  %dk = tensor.empty() : tensor<2x3x7x4xf32>
  %dv = tensor.empty() : tensor<2x3x7x4xf32>
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>,
                                    tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x5xf32>)
      outs(%dq, %dk, %dv : tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>)
      -> tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>
  return %0#0, %0#1, %0#2 : tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>
}
