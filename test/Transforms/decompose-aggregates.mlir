// RUN: fa-opt %s -split-input-file --fa-decompose-aggregates | FileCheck %s

// linalg.softmax (what an attention the raise leaves alone keeps) becomes
// upstream's four structured ops: a row max, exp(x - max), a row sum and
// the division, on the softmax's own dimension.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[S:[^:]*]]: tensor<2x5x7xf32>
// CHECK-NOT: linalg.softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[S]] : tensor<2x5x7xf32>) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[MAX]] : tensor<2x5x7xf32>, tensor<2x5xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<2x5x7xf32>) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: arith.addf
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x5x7xf32>, tensor<2x5xf32>)
// CHECK: arith.divf
// CHECK: return %[[P]]
func.func @softmax(%s: tensor<2x5x7xf32>) -> tensor<2x5x7xf32> {
  %e = tensor.empty() : tensor<2x5x7xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x5x7xf32>) outs(%e : tensor<2x5x7xf32>) -> tensor<2x5x7xf32>
  return %p : tensor<2x5x7xf32>
}

// -----

// Another dimension (the softmax over the rows): the reductions follow it.
// CHECK-LABEL: func.func @softmax_dim0(
// CHECK-SAME: %[[S:[^:]*]]: tensor<4x3xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[S]] : tensor<4x3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NOT: linalg.softmax
func.func @softmax_dim0(%s: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %p = linalg.softmax dimension(0) ins(%s : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}

// -----

// Nothing to decompose: the program is unchanged.
// CHECK-LABEL: func.func @no_aggregates(
// CHECK-NEXT: %[[R:.*]] = linalg.matmul
// CHECK-NEXT: return %[[R]]
func.func @no_aggregates(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
