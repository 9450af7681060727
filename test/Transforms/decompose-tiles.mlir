// RUN: fa-opt %s -split-input-file --fa-decompose-tiles | FileCheck %s

// Each tile op becomes the linalg.generic ops of its definition.

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @qk
// CHECK-SAME: (%[[Q:.*]]: tensor<4x16xf16>, %[[K:.*]]: tensor<8x16xf16>)
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[QK:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<4x16xf16>, tensor<8x16xf16>) outs(%[[ZERO]] : tensor<4x8xf32>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%[[QK]] : tensor<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: return %[[S]]
func.func @qk(%q: tensor<4x16xf16>, %k: tensor<8x16xf16>) -> tensor<4x8xf32> {
  %s = fa.qk %q, %k scale(0.25) : tensor<4x16xf16>, tensor<8x16xf16> -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @mask
// CHECK-SAME: (%[[S:.*]]: tensor<4x8xf32>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[LIMIT:.*]]: index, %[[OFF:.*]]: index)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}} outs(%[[S]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %[[I]]
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %[[J]]
// CHECK: %[[PAST_END:.*]] = arith.cmpi sge, %[[COL]], %[[LIMIT]]
// CHECK: %[[LAST:.*]] = arith.addi %[[ROW]], %[[OFF]]
// CHECK: %[[FUTURE:.*]] = arith.cmpi sgt, %[[COL]], %[[LAST]]
// CHECK: %[[HIDDEN:.*]] = arith.ori %[[PAST_END]], %[[FUTURE]]
// CHECK: %[[R:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[X]]
// CHECK: linalg.yield %[[R]]
func.func @mask(%s: tensor<4x8xf32>, %r0: index, %c0: index, %limit: index, %off: index) -> tensor<4x8xf32> {
  %m = fa.mask %s[%r0, %c0] key_limit(%limit) causal_offset(%off) : tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @key_limit_only
// CHECK: arith.cmpi sge
// CHECK-NOT: arith.cmpi sgt
// CHECK-NOT: arith.ori
// CHECK: arith.select
func.func @key_limit_only(%s: tensor<4x8xf32>, %r0: index, %c0: index, %limit: index) -> tensor<4x8xf32> {
  %m = fa.mask %s[%r0, %c0] key_limit(%limit) : tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @online_softmax
// CHECK-SAME: (%[[S:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
//     m_new: the row max, seeded with the old max.
// CHECK: %[[MNEW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<4x8xf32>) outs(%[[M]] : tensor<4xf32>)
// CHECK: arith.maximumf
//     base: m_new, or 0 while the row has seen no key.
// CHECK: %[[BASE:.*]] = linalg.generic {{.*}} ins(%[[MNEW]] : tensor<4xf32>)
// CHECK: arith.cmpf oeq
// CHECK: arith.select
//     alpha = exp2(m - base), P = exp2(S - base).
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[BASE]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: math.exp2
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[BASE]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: math.exp2
//     l_new = alpha * l + rowsum(P).
// CHECK: %[[AL:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<4x8xf32>) outs(%[[AL]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[P]], %[[MNEW]], %[[LNEW]], %[[ALPHA]]
// CHECK-NOT: arith.divf
func.func @online_softmax(%s: tensor<4x8xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l : tensor<4x8xf32>, tensor<4xf32>
  return %p, %m2, %l2, %a : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func @pv
// CHECK-SAME: (%[[P:.*]]: tensor<4x8xbf16>, %[[V:.*]]: tensor<8x32xbf16>, %[[ACC:.*]]: tensor<4x32xf32>, %[[ALPHA:.*]]: tensor<4xf32>)
// CHECK: %[[RESCALED:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<4xf32>) outs(%[[ACC]] : tensor<4x32xf32>)
// CHECK: arith.mulf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[V]] : tensor<4x8xbf16>, tensor<8x32xbf16>) outs(%[[RESCALED]] : tensor<4x32xf32>)
// CHECK: return %[[R]]
func.func @pv(%p: tensor<4x8xbf16>, %v: tensor<8x32xbf16>, %acc: tensor<4x32xf32>, %alpha: tensor<4xf32>) -> tensor<4x32xf32> {
  %r = fa.pv %p, %v, %acc, %alpha : tensor<4x8xbf16>, tensor<8x32xbf16>, tensor<4x32xf32>, tensor<4xf32>
  return %r : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func @finalize
// CHECK-SAME: (%[[ACC:.*]]: tensor<4x32xf32>, %[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[ACC]], %[[L]] : tensor<4x32xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x32xf16>)
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: arith.truncf
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[L]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: math.log2
// CHECK: arith.addf
// CHECK: arith.mulf %{{.*}}, %[[LN2]]
// CHECK: arith.select
// CHECK: return %[[O]], %[[LSE]]
func.func @finalize(%acc: tensor<4x32xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4x32xf16>, tensor<4xf32>) {
  %o, %lse = fa.finalize %acc, %m, %l : tensor<4x32xf32>, tensor<4xf32> -> tensor<4x32xf16>
  return %o, %lse : tensor<4x32xf16>, tensor<4xf32>
}
