// Attention written in TOSA (a TFLite/ONNX frontend's output) and lowered by
// upstream's own pipeline, fused or not, raises: the reductions come out
// of tosa-to-linalg over [.., N] expanded to [.., 1, N], and the softmax's
// division as a product with `tosa.reciprocal` (1 / l, inline after
// elementwise fusion).
// RUN: mlir-opt %s --tosa-to-linalg-pipeline | fa-opt --fa-raise-attention | FileCheck %s
// RUN: mlir-opt %s --tosa-to-linalg-pipeline --linalg-fuse-elementwise-ops | fa-opt --fa-raise-attention | FileCheck %s

// CHECK-LABEL: func.func @scaled_f32
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x8xf32>)
// CHECK-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{.*}} into tensor<1x2x4x8xf32>
// CHECK-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{.*}} into tensor<1x2x6x8xf32>
// CHECK-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{.*}} into tensor<1x2x6x8xf32>
// CHECK: %[[O:.*]] = fa.attention ins(%[[Q4]], %[[K4]], %[[V4]] : {{.*}}) outs({{.*}}) scale(0.353553385) -> tensor<1x2x4x8xf32>
// CHECK-NOT: linalg.
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[O]]
// CHECK: return %[[R]]
func.func @scaled_f32(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x6xf32>
  %c = "tosa.const"() <{values = dense<0.35355339> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %x = tosa.mul %s, %c, %shift : (tensor<2x4x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x6xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %e = tosa.exp %d : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %r = tosa.reciprocal %l : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x6xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x6xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x6xf32>, tensor<2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// f16 operands with f32 accumulation, an additive causal mask constant, P
// rounded to f16 for P V, O rounded at the end.
// CHECK-LABEL: func.func @causal_f16
// CHECK: fa.attention ins({{.*}} : tensor<1x3x5x8xf16>, tensor<1x3x5x8xf16>, tensor<1x3x5x8xf16>) outs({{.*}}) scale(0.353553385) causal -> tensor<1x3x5x8xf16>
// CHECK-NOT: linalg.
// CHECK: return
func.func @causal_f16(%q: tensor<3x5x8xf16>, %k: tensor<3x5x8xf16>, %v: tensor<3x5x8xf16>) -> tensor<3x5x8xf16> {
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<3x5x8xf16>) -> tensor<3x8x5xf16>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<3x5x8xf16>, tensor<3x8x5xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<3x5x5xf32>
  %c = "tosa.const"() <{values = dense<0.35355339> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %x0 = tosa.mul %s, %c, %shift : (tensor<3x5x5xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<3x5x5xf32>
  %mask = "tosa.const"() <{values = dense<[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<1x5x5xf32>}> : () -> tensor<1x5x5xf32>
  %x = tosa.add %x0, %mask : (tensor<3x5x5xf32>, tensor<1x5x5xf32>) -> tensor<3x5x5xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<3x5x5xf32>) -> tensor<3x5x1xf32>
  %d = tosa.sub %x, %m : (tensor<3x5x5xf32>, tensor<3x5x1xf32>) -> tensor<3x5x5xf32>
  %e = tosa.exp %d : (tensor<3x5x5xf32>) -> tensor<3x5x5xf32>
  %l = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<3x5x5xf32>) -> tensor<3x5x1xf32>
  %r = tosa.reciprocal %l : (tensor<3x5x1xf32>) -> tensor<3x5x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<3x5x5xf32>, tensor<3x5x1xf32>, tensor<1xi8>) -> tensor<3x5x5xf32>
  %ph = tosa.cast %p : (tensor<3x5x5xf32>) -> tensor<3x5x5xf16>
  %o = tosa.matmul %ph, %v, %zp, %zp : (tensor<3x5x5xf16>, tensor<3x5x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<3x5x8xf32>
  %oh = tosa.cast %o : (tensor<3x5x8xf32>) -> tensor<3x5x8xf16>
  return %oh : tensor<3x5x8xf16>
}

// The softmax over the queries (axis 1): left alone.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: fa.attention
// CHECK: return
func.func @softmax_over_queries(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %s {axis = 1 : i32} : (tensor<2x4x4xf32>) -> tensor<2x1x4xf32>
  %d = tosa.sub %s, %m : (tensor<2x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
  %e = tosa.exp %d : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<2x4x4xf32>) -> tensor<2x1x4xf32>
  %r = tosa.reciprocal %l : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x4xf32>, tensor<2x1x4xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x4xf32>, tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
