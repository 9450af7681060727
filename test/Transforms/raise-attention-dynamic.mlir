// Dynamic sequence lengths with a causal (or window) mask: the top-left
// mask equals fa.attention's bottom-right one only when Nq == Nk, which the
// raise proves with upstream's value-bounds analysis from the ops that sized
// the scores (self-attention: Q and K projected from one input), or leaves
// alone (cross-attention over two inputs of unknown lengths).
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s

// CHECK-LABEL: func.func @dyn_causal
// CHECK: fa.attention {{.*}} : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) {{.*}} causal ->
// CHECK-NOT: linalg.softmax
func.func @dyn_causal(%x: tensor<2x?x16xf32>, %wq: tensor<2x16x8xf32>, %wk: tensor<2x16x8xf32>, %wv: tensor<2x16x8xf32>) -> tensor<2x?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?x16xf32>
  %ep = tensor.empty(%n) : tensor<2x?x8xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %q = linalg.batch_matmul ins(%x, %wq : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fp : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %k = linalg.batch_matmul ins(%x, %wk : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fp : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %v = linalg.batch_matmul ins(%x, %wv : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fp : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %nq = tensor.dim %q, %c1 : tensor<2x?x8xf32>
  %nk = tensor.dim %k, %c1 : tensor<2x?x8xf32>
  %es = tensor.empty(%nq, %nk) : tensor<2x?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x?x8xf32>, tensor<2x?x8xf32>) outs(%zs : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %xm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%xm : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %eo = tensor.empty(%nq) : tensor<2x?x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x?x?xf32>, tensor<2x?x8xf32>) outs(%fo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  return %o : tensor<2x?x8xf32>
}

// -----

// CHECK-LABEL: func.func @dyn_cross
// CHECK-NOT: fa.attention
// CHECK: linalg.softmax
func.func @dyn_cross(%x: tensor<2x?x16xf32>, %wq: tensor<2x16x8xf32>, %wk: tensor<2x16x8xf32>, %wv: tensor<2x16x8xf32>, %y: tensor<2x?x16xf32>) -> tensor<2x?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?x16xf32>
  %ep = tensor.empty(%n) : tensor<2x?x8xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %q = linalg.batch_matmul ins(%x, %wq : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fp : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %m = tensor.dim %y, %c1 : tensor<2x?x16xf32>
  %ek = tensor.empty(%m) : tensor<2x?x8xf32>
  %fk = linalg.fill ins(%zero : f32) outs(%ek : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %k = linalg.batch_matmul ins(%y, %wk : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fk : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %v = linalg.batch_matmul ins(%y, %wv : tensor<2x?x16xf32>, tensor<2x16x8xf32>) outs(%fk : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %nq = tensor.dim %q, %c1 : tensor<2x?x8xf32>
  %nk = tensor.dim %k, %c1 : tensor<2x?x8xf32>
  %es = tensor.empty(%nq, %nk) : tensor<2x?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x?x8xf32>, tensor<2x?x8xf32>) outs(%zs : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %xm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%xm : tensor<2x?x?xf32>) outs(%es : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %eo = tensor.empty(%nq) : tensor<2x?x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x?x?xf32>, tensor<2x?x8xf32>) outs(%fo : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  return %o : tensor<2x?x8xf32>
}
