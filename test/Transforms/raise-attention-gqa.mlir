// GQA written as a broadcast of the K/V heads, in both orders: each head
// repeated (Llama's repeat_kv: query head h reads K/V head h / G, which is
// fa.attention's own rule) and the heads tiled (torch's k.repeat(1, G, 1, 1):
// query head h reads K/V head h mod Hkv). The tiled form keeps K and V at
// Hkv heads; Q's heads go in regrouped [Hkv, G] and O's come back [G, Hkv].
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s

// CHECK-LABEL: func.func @repeat_kv(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x4x8x16xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x8x16xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x8x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
// CHECK-NOT: linalg.broadcast
func.func @repeat_kv(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<1x2x2x8x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x8x16xf32>) outs(%eb : tensor<1x2x2x8x16xf32>) dimensions = [2]
  %vb = linalg.broadcast ins(%v : tensor<1x2x8x16xf32>) outs(%eb : tensor<1x2x2x8x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<1x4x8x16xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<1x4x8x16xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %kc = tensor.collapse_shape %kr [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %vc = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %e0 = tensor.empty() : tensor<4x16x8xf32>
  %kt = linalg.transpose ins(%kc : tensor<4x8x16xf32>) outs(%e0 : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%qc, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%f1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x8x8xf32>) outs(%e1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %e2 = tensor.empty() : tensor<4x8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %vc : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%f2 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 4, 8, 16] : tensor<4x8x16xf32> into tensor<1x4x8x16xf32>
  return %o4 : tensor<1x4x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @repeat_outer(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x4x8x16xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x8x16xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x8x16xf32>
// CHECK: %[[QS:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 16]
// CHECK: %[[QT:.*]] = linalg.transpose ins(%[[QS]] {{.*}} permutation = [0, 2, 1, 3, 4]
// CHECK: %[[QH:.*]] = tensor.collapse_shape %[[QT]] {{\[\[}}0], [1, 2], [3], [4]]
// CHECK: %[[O:.*]] = fa.attention ins(%[[QH]], %[[K]], %[[V]] : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
// CHECK: %[[OS:.*]] = tensor.expand_shape %[[O]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 16]
// CHECK: linalg.transpose ins(%[[OS]] {{.*}} permutation = [0, 2, 1, 3, 4]
// CHECK-NOT: linalg.broadcast
func.func @repeat_outer(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<1x2x2x8x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x8x16xf32>) outs(%eb : tensor<1x2x2x8x16xf32>) dimensions = [1]
  %vb = linalg.broadcast ins(%v : tensor<1x2x8x16xf32>) outs(%eb : tensor<1x2x2x8x16xf32>) dimensions = [1]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<1x4x8x16xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x2x8x16xf32> into tensor<1x4x8x16xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %kc = tensor.collapse_shape %kr [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %vc = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
  %e0 = tensor.empty() : tensor<4x16x8xf32>
  %kt = linalg.transpose ins(%kc : tensor<4x8x16xf32>) outs(%e0 : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%qc, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%f1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x8x8xf32>) outs(%e1 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %e2 = tensor.empty() : tensor<4x8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %vc : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%f2 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 4, 8, 16] : tensor<4x8x16xf32> into tensor<1x4x8x16xf32>
  return %o4 : tensor<1x4x8x16xf32>
}
