// Near-misses --fa-raise-attention must leave exactly as they are: each is
// the first (raised) function with one change. Checked: no fa.attention, and
// for a few the untouched ops are still there.
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s
// With explain=true, each one whose softmax is recognised gets a remark
// at its P V saying what stopped it (the others are not attention).
// RUN: fa-opt %s -split-input-file --fa-raise-attention=explain=true -verify-diagnostics -o /dev/null

// The template itself raises (so the variants below fail for their one change).
// CHECK-LABEL: func.func @positive_control
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal
func.func @positive_control(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The scores are also returned: an extra use of an intermediate.
// CHECK-LABEL: func.func @extra_use_of_scores
// CHECK-NOT: fa.attention
// CHECK: linalg.batch_matmul
// CHECK: linalg.softmax
// CHECK: linalg.batch_matmul
func.func @extra_use_of_scores(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o, %s : tensor<2x4x8xf32>, tensor<2x4x4xf32>
}

// -----

// The softmax runs over the query axis.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: fa.attention
func.func @softmax_over_queries(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The scale is a function argument, not a constant.
// CHECK-LABEL: func.func @non_constant_scale
// CHECK-NOT: fa.attention
func.func @non_constant_scale(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %sc: f32) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %sc : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A negative scale would turn -inf into +inf after the mask.
// CHECK-LABEL: func.func @negative_scale
// CHECK-NOT: fa.attention
func.func @negative_scale(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %cneg = arith.constant -0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %cneg : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The mask keeps j < i: the diagonal is masked, row 0 sees nothing.
// CHECK-LABEL: func.func @strict_lower_mask
// CHECK-NOT: fa.attention
func.func @strict_lower_mask(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ult, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the mask hides the diagonal}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A lower-triangular (top-left) mask with Nq != Nk is not our bottom-right causal.
// CHECK-LABEL: func.func @tril_with_nq_ne_nk
// CHECK-NOT: fa.attention
func.func @tril_with_nq_ne_nk(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x5xf32>
  %kt = linalg.transpose ins(%k : tensor<2x5x8xf32>) outs(%e0 : tensor<2x8x5xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x3x8xf32>, tensor<2x8x5xf32>) outs(%f1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x5xf32>) outs(%e1 : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x5xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x3x5xf32>) outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<2x3x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // expected-remark @+1 {{attention not raised: a causal or window mask needs Nq == Nk}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x3x5xf32>, tensor<2x5x8xf32>) outs(%f2 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// -1e4 is a bias, not a mask.
// CHECK-LABEL: func.func @finite_mask_value
// CHECK-NOT: fa.attention
func.func @finite_mask_value(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant -1.0e+04 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Q K^T accumulates onto 1.0, not 0.
// CHECK-LABEL: func.func @nonzero_accumulator
// CHECK-NOT: fa.attention
func.func @nonzero_accumulator(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// P is multiplied by a keep mask (dropout) before P V.
// CHECK-LABEL: func.func @dropout_on_p
// CHECK-NOT: fa.attention
func.func @dropout_on_p(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %keep: tensor<2x4x4xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p0 = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p0, %keep : tensor<2x4x4xf32>, tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A softmax as a product whose divisor is 2 / rowsum, not 1 / rowsum.
// CHECK-LABEL: func.func @reciprocal_of_two
// CHECK-NOT: fa.attention
func.func @reciprocal_of_two(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%s : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32 }
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.addf %a, %b : f32
      linalg.yield %r : f32 }
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %z: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %rc = arith.divf %two, %z : f32
    %e = arith.mulf %in, %rc : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// E times rowsum(E): a product, but not by the reciprocal.
// CHECK-LABEL: func.func @product_without_reciprocal
// CHECK-NOT: fa.attention
func.func @product_without_reciprocal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%s : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32 }
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.addf %a, %b : f32
      linalg.yield %r : f32 }
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %z: f32, %out: f32):
    %e = arith.mulf %in, %z : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// E times 1 / rowmax: the reciprocal of the wrong reduction.
// CHECK-LABEL: func.func @reciprocal_of_row_max
// CHECK-NOT: fa.attention
func.func @reciprocal_of_row_max(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%s : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32 }
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.addf %a, %b : f32
      linalg.yield %r : f32 }
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %z: f32, %out: f32):
    %rc = arith.divf %one, %z : f32
    %e = arith.mulf %in, %rc : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// 1 / rowsum as a tensor of its own that the function also returns.
// CHECK-LABEL: func.func @reciprocal_returned
// CHECK-NOT: fa.attention
func.func @reciprocal_returned(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%s : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32 }
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) { %r = arith.addf %a, %b : f32
      linalg.yield %r : f32 }
  %rs = linalg.generic {indexing_maps = [affine_map<(b, i) -> (b, i)>, affine_map<(b, i) -> (b, i)>], iterator_types = ["parallel", "parallel"]}
      ins(%sm : tensor<2x4xf32>) outs(%er : tensor<2x4xf32>) {
  ^bb0(%z: f32, %out: f32):
    %rc = arith.divf %one, %z : f32
    linalg.yield %rc : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %rs : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %rc: f32, %out: f32):
    %e = arith.mulf %in, %rc : f32
    linalg.yield %e : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o, %rs : tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

// The causal mask before the soft cap: tanh turns -inf into a finite -c,
// so the program does not mask.
// CHECK-LABEL: func.func @mask_before_cap
// CHECK-NOT: fa.attention
func.func @mask_before_cap(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %cap = arith.constant 30.0 : f32
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    %x = arith.divf %r, %cap : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %cap : f32
    linalg.yield %capped : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Two soft caps in a row.
// CHECK-LABEL: func.func @two_caps
// CHECK-NOT: fa.attention
func.func @two_caps(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %t = math.tanh %m : f32
    %t2 = math.tanh %t : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %t2, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A window that leaves out the diagonal (1 <= i - j <= 2): row 0 sees
// nothing.
// CHECK-LABEL: func.func @window_without_diagonal
// CHECK-NOT: fa.attention
func.func @window_without_diagonal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %m = arith.mulf %in, %c : f32
    %past = arith.cmpi slt, %j, %i : index
    %lo = arith.subi %i, %c2 : index
    %near = arith.cmpi sge, %j, %lo : index
    %vis = arith.andi %past, %near : i1
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the mask hides the diagonal}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Visible where either edge allows (j <= i or j >= i - 2): everything, but
// written as a union, which is not read as a band.
// CHECK-LABEL: func.func @union_of_edges
// CHECK-NOT: fa.attention
func.func @union_of_edges(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %m = arith.mulf %in, %c : f32
    %past = arith.cmpi sle, %j, %i : index
    %lo = arith.subi %i, %c2 : index
    %near = arith.cmpi sge, %j, %lo : index
    %vis = arith.ori %past, %near : i1
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A band of slope 2 (j <= 2 i) is not a window.
// CHECK-LABEL: func.func @window_off_diagonal_slope
// CHECK-NOT: fa.attention
func.func @window_off_diagonal_slope(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %i2 = arith.addi %i, %i : index
    %vis = arith.cmpi sle, %j, %i2 : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the ops between Q K^T and the softmax are not read as}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// O's batch factors cannot be split back from B * H when one is dynamic and
// another is 0 (here H = 0): left alone rather than divide by zero.
// CHECK-LABEL: func.func @zero_heads_dynamic_batch
// CHECK-NOT: fa.attention
func.func @zero_heads_dynamic_batch(%q: tensor<?x0x4x8xf32>, %k: tensor<?x0x4x8xf32>, %v: tensor<?x0x4x8xf32>) -> tensor<?x0x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %b = tensor.dim %q, %c0 : tensor<?x0x4x8xf32>
  %e = tensor.empty(%b) : tensor<?x0x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x0x4x4xf32>) -> tensor<?x0x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x0x4x8xf32>, tensor<?x0x4x8xf32>) outs(%z : tensor<?x0x4x4xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x0x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<?x0x4x4xf32>) outs(%e : tensor<?x0x4x4xf32>) -> tensor<?x0x4x4xf32>
  %eo = tensor.empty(%b) : tensor<?x0x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x0x4x8xf32>) -> tensor<?x0x4x8xf32>
  // expected-remark @+1 {{attention not raised: its batch dims do not split}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<?x0x4x4xf32>, tensor<?x0x4x8xf32>) outs(%zo : tensor<?x0x4x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x0x4x8xf32>
  return %o : tensor<?x0x4x8xf32>
}

// -----

// exp(s * 0.5 - max * 0.25): the max of other scores than the ones
// exponentiated; not a softmax of the scores.
// CHECK-LABEL: func.func @unequal_factors_in_exp
// CHECK-NOT: fa.attention
// CHECK: math.exp
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @unequal_factors_in_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%x : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %c2 = arith.constant 0.25 : f32
    %xs = arith.mulf %in, %c : f32
    %ms = arith.mulf %m, %c2 : f32
    %d = arith.subf %xs, %ms : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %y = arith.divf %in, %l : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// exp((s - max) * -1): a softmax of -s would need the row min.
// CHECK-LABEL: func.func @negative_factor_in_exp
// CHECK-NOT: fa.attention
// CHECK: math.exp
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @negative_factor_in_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%x : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %c = arith.constant -1.0 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %d, %c : f32
    %r = math.exp %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %y = arith.divf %in, %l : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// exp((s - max) * s): not a constant factor.
// CHECK-LABEL: func.func @variable_factor_in_exp
// CHECK-NOT: fa.attention
// CHECK: math.exp
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @variable_factor_in_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%x : tensor<2x4x4xf32>) outs(%fm : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %d, %in : f32
    %r = math.exp %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<2x4x4xf32>) outs(%fs : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %y = arith.divf %in, %l : f32
    linalg.yield %y : f32
  } -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The buffer sliced at rows 0, keys 4: j <= i - 4, a band without the
// diagonal (rows 0-3 see no key): left alone.
// CHECK-LABEL: func.func @sliced_bias_without_diagonal
// CHECK-NOT: fa.attention
// CHECK: tensor.extract_slice
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m4 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
func.func @sliced_bias_without_diagonal(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %c = arith.constant 2.82842708 : f32
  %bias = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %mask = tensor.extract_slice %bias[0, 0, 0, 4] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<1x1x16x16xi1> to tensor<1x1x8x8xi1>
  %e0 = tensor.empty() : tensor<1x2x8x8xf32>
  %kt = linalg.transpose ins(%k : tensor<1x2x8x8xf32>) outs(%e0 : tensor<1x2x8x8xf32>) permutation = [0, 1, 3, 2]
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, d, j)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%f1 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [#id4, #m4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x8x8xf32>, tensor<1x1x8x8xi1>) outs(%e0 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %mk: i1, %out: f32):
    %d = arith.divf %in, %c : f32
    %r = arith.select %mk, %d, %lowest : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%e0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @+1 {{attention not raised: the mask hides the diagonal}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%f2 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// The probabilities are also returned (a model's output_attentions).
// CHECK-LABEL: func.func @probabilities_returned
// CHECK-NOT: fa.attention
// CHECK: linalg.softmax
func.func @probabilities_returned(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the probabilities P are used elsewhere too}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o, %p : tensor<2x4x8xf32>, tensor<2x4x4xf32>
}

// -----

// f64 attention: an element type fa.attention does not take.
// CHECK-LABEL: func.func @f64_attention
// CHECK-NOT: fa.attention
// CHECK: linalg.softmax
func.func @f64_attention(%q: tensor<2x4x8xf64>, %k: tensor<2x4x8xf64>, %v: tensor<2x4x8xf64>) -> tensor<2x4x8xf64> {
  %zero = arith.constant 0.0 : f64
  %c = arith.constant 0.125 : f64
  %ninf = arith.constant 0xFF800000 : f64
  %e0 = tensor.empty() : tensor<2x8x4xf64>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf64>) outs(%e0 : tensor<2x8x4xf64>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf64>
  %f1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf64>, tensor<2x8x4xf64>) outs(%f1 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf64>) outs(%e1 : tensor<2x4x4xf64>) {
  ^bb0(%in: f64, %out: f64):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f64
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f64
    linalg.yield %r : f64
  } -> tensor<2x4x4xf64>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf64>) outs(%e1 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
  %e2 = tensor.empty() : tensor<2x4x8xf64>
  %f2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2x4x8xf64>) -> tensor<2x4x8xf64>
  // expected-remark @+1 {{attention not raised: fa.attention takes f16, bf16 or f32}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf64>, tensor<2x4x8xf64>) outs(%f2 : tensor<2x4x8xf64>) -> tensor<2x4x8xf64>
  return %o : tensor<2x4x8xf64>
}

// -----

// A scale too small for the kernels' f32 exp2 argument (subnormal after
// log2(e)): the attention fa.attention would hold is invalid, so nothing is
// raised, and explain names the verifier's rule (it used to blame the batch
// dims).
// CHECK-LABEL: func.func @tiny_scale
// CHECK-NOT: fa.attention
// CHECK: linalg.softmax
func.func @tiny_scale(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 1.0e-45 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{attention not raised: the fa.attention it would become is invalid: 'fa.attention' op scale * log2(e) must be a normal f32 number}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A band 2^40 keys wide to the left (j + 2^40 >= i) with causal, on
// dynamic lengths proven equal: fa.attention's window takes sides below
// 2^30 (FA.h, kWindowSideLimit), so this one stays as written.
// CHECK-LABEL: func.func @window_side_too_wide
// CHECK-NOT: fa.attention
func.func @window_side_too_wide(%x: tensor<2x?x8xf32>, %v: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %wide = arith.constant 1099511627776 : index
  %n = tensor.dim %x, %c1 : tensor<2x?x8xf32>
  %es = tensor.empty(%n, %n) : tensor<2x?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%x, %x : tensor<2x?x8xf32>, tensor<2x?x8xf32>) outs(%zs : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %xm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %past = arith.cmpi ule, %j, %i : index
    %jw = arith.addi %j, %wide : index
    %near = arith.cmpi sge, %jw, %i : index
    %vis = arith.andi %past, %near : i1
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%xm : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %eo = tensor.empty(%n) : tensor<2x?x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  // expected-remark @+1 {{attention not raised: a mask's band is 2^30 keys wide or more on one side}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x?x?xf32>, tensor<2x?x8xf32>) outs(%fo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  return %o : tensor<2x?x8xf32>
}
