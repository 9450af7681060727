// --fa-raise-attention on sliding-window masks and soft caps (the op's
// window(left, right) and softcap(c)): the template of
// raise-attention-negative.mlir (Nq = Nk = 4, scale 1/8) with other masks
// and caps. Masks are bands around the diagonal: row i sees key j iff
// i - j <= left and j - i <= right; several masks intersect.
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s

// The mask keeps j >= i (the upper triangle): a window with no left context
// and an unbounded right one.
// CHECK-LABEL: func.func @upper_triangular
// CHECK: fa.attention {{.*}} scale(1.250000e-01) window(0, -1) ->
// CHECK-NOT: linalg.
func.func @upper_triangular(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %vis = arith.cmpi sge, %j, %i : index
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

// Mistral's mask: causal and at most 2 keys back (j <= i and j >= i - 2),
// one select on the conjunction.
// CHECK-LABEL: func.func @causal_sliding_window
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal window(2, 0) ->
// CHECK-NOT: linalg.
func.func @causal_sliding_window(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %vis = arith.andi %past, %near : i1
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

// The same window written as what is masked: j > i or i - j > 2, selecting
// -inf when true.
// CHECK-LABEL: func.func @masked_when_either
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal window(2, 0) ->
// CHECK-NOT: linalg.
func.func @masked_when_either(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %future = arith.cmpi sgt, %j, %i : index
    %d = arith.subi %i, %j : index
    %far = arith.cmpi sgt, %d, %c2 : index
    %masked = arith.ori %future, %far : i1
    %r = arith.select %masked, %ninf, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A window on both sides (i - j <= 1 and j - i <= 2), no causal mask.
// CHECK-LABEL: func.func @two_sided_window
// CHECK: fa.attention {{.*}} scale(1.250000e-01) window(1, 2) ->
// CHECK-NOT: linalg.
func.func @two_sided_window(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %m = arith.mulf %in, %c : f32
    %a = arith.subi %i, %j : index
    %left = arith.cmpi sle, %a, %c1 : index
    %b = arith.subi %j, %i : index
    %right = arith.cmpi sle, %b, %c2 : index
    %vis = arith.andi %left, %right : i1
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

// Two masks, one after the other: causal (a select) then the window edge
// (an additive 0 / -inf term): both apply.
// CHECK-LABEL: func.func @two_masks
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal window(1, 0) ->
// CHECK-NOT: linalg.
func.func @two_masks(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c1 = arith.constant 1 : index
    %zero0 = arith.constant 0.0 : f32
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    %lo = arith.subi %i, %c1 : index
    %near = arith.cmpi sge, %j, %lo : index
    %bias = arith.select %near, %zero0, %ninf : f32
    %r2 = arith.addf %r, %bias : f32
    linalg.yield %r2 : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A window wider than the sequence (8 keys back, N = 4) bounds nothing:
// plain causal.
// CHECK-LABEL: func.func @window_wider_than_n
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal ->
// CHECK-NOT: linalg.
func.func @window_wider_than_n(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c8 = arith.constant 8 : index
    %m = arith.mulf %in, %c : f32
    %past = arith.cmpi sle, %j, %i : index
    %far = arith.addi %j, %c8 : index
    %near = arith.cmpi sge, %far, %i : index
    %vis = arith.andi %near, %past : i1
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

// Gemma 2's soft cap after the scale, before the causal mask: 30 * tanh(S / 30).
// fa.attention's cap applies to scale * Q K^T.
// CHECK-LABEL: func.func @gemma_softcap
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal softcap(3.000000e+01) ->
// CHECK-NOT: linalg.
func.func @gemma_softcap(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %x = arith.divf %m, %cap : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %cap : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %capped, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// tanh(scale S) with no factor after it: a cap of 1, the scale unchanged.
// CHECK-LABEL: func.func @tanh_alone
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal softcap(1.000000e+00) ->
// CHECK-NOT: linalg.
func.func @tanh_alone(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %t, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x4x4xf32>) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f2 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// j <= i + 2: a right edge past the diagonal and no left edge, window(-1, 2)
// (not causal: keys up to two ahead are visible).
// CHECK-LABEL: func.func @right_edge_past_diagonal
// CHECK: fa.attention {{.*}} scale(1.250000e-01) window(-1, 2) ->
// CHECK-NOT: linalg.
func.func @right_edge_past_diagonal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %c2 = arith.constant 2 : index
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
    %i2 = arith.addi %i, %c2 : index
    %vis = arith.cmpi ule, %j, %i2 : index
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

// GPT-2's causal mask: its `bias` buffer (a 16 x 16 lower triangle)
// sliced to the scores, rows and keys from 4 (self-attention at an offset),
// selecting the scores over /sqrt(D) or the lowest f32.
// CHECK-LABEL: func.func @gpt2_sliced_bias
// CHECK: fa.attention {{.*}} scale(0.353553{{[0-9]*}}) causal ->
// CHECK-NOT: tensor.extract_slice
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m4 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
func.func @gpt2_sliced_bias(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %c = arith.constant 2.82842708 : f32
  %bias = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %mask = tensor.extract_slice %bias[0, 0, 4, 4] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<1x1x16x16xi1> to tensor<1x1x8x8xi1>
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

// The same buffer sliced at rows 4, keys 0: j <= i + 4, a right edge past
// the diagonal and no left edge.
// CHECK-LABEL: func.func @sliced_bias_right_edge
// CHECK: fa.attention {{.*}} scale(0.353553{{[0-9]*}}) window(-1, 4) ->
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m4 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
func.func @sliced_bias_right_edge(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %c = arith.constant 2.82842708 : f32
  %bias = arith.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %mask = tensor.extract_slice %bias[0, 0, 4, 0] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<1x1x16x16xi1> to tensor<1x1x8x8xi1>
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

// The buffer as torch-mlir writes a model's tensors: a dense_resource blob
// (one byte per i1).
// CHECK-LABEL: func.func @resource_bias
// CHECK: fa.attention {{.*}} scale(0.353553{{[0-9]*}}) causal ->
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m4 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
func.func @resource_bias(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %c = arith.constant 2.82842708 : f32
  %bias = arith.constant dense_resource<gpt2_bias> : tensor<1x1x16x16xi1>
  %mask = tensor.extract_slice %bias[0, 0, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<1x1x16x16xi1> to tensor<1x1x8x8xi1>
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
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%f2 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      gpt2_bias: "0x0100000001000000000000000000000000000000010100000000000000000000000000000101010000000000000000000000000001010101000000000000000000000000010101010100000000000000000000000101010101010000000000000000000001010101010101000000000000000000010101010101010100000000000000000101010101010101010000000000000001010101010101010101000000000000010101010101010101010100000000000101010101010101010101010000000001010101010101010101010101000000010101010101010101010101010100000101010101010101010101010101010001010101010101010101010101010101"
    }
  }
#-}
