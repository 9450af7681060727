// Contractions whose operands and result keep their dims in any order (an
// einsum, or StableHLO's dot_general lowered to linalg.generic): Flax's
// `bqhd,bkhd->bhqk` then `bhqk,bkhd->bqhd` on [B, N, H, D] tensors. The
// raise transposes Q, K and V to [B, H, N, D] and O back.
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s

// CHECK-LABEL: func.func @flax_bshd
// CHECK-SAME: (%[[Q:.*]]: tensor<2x5x3x8xf32>, %[[K:.*]]: tensor<2x7x3x8xf32>, %[[V:.*]]: tensor<2x7x3x16xf32>)
// CHECK: %[[QT:.*]] = linalg.transpose ins(%[[Q]] : tensor<2x5x3x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<2x7x3x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[V]] : tensor<2x7x3x16xf32>) {{.*}} permutation = [0, 2, 1, 3]
// CHECK: %[[O:.*]] = fa.attention ins(%[[QT]], %[[KT]], %[[VT]] : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x16xf32>) {{.*}} scale(1.250000e-01) -> tensor<2x3x5x16xf32>
// CHECK: %[[OT:.*]] = linalg.transpose ins(%[[O]] : tensor<2x3x5x16xf32>) outs(%{{.*}} : tensor<2x5x3x16xf32>) permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.generic
// CHECK: return %[[OT]]
#q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>
#k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, i, h, e, j) -> (b, h, i, j)>
#v = affine_map<(b, i, h, e, j) -> (b, j, h, e)>
#o = affine_map<(b, i, h, e, j) -> (b, i, h, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @flax_bshd(%q: tensor<2x5x3x8xf32>, %k: tensor<2x7x3x8xf32>, %v: tensor<2x7x3x16xf32>) -> tensor<2x5x3x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5x7xf32>) -> tensor<2x3x5x7xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x5x3x8xf32>, tensor<2x7x3x8xf32>) outs(%z : tensor<2x3x5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x5x7xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x5x7xf32>) outs(%e : tensor<2x3x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x3x5x7xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x3x5x7xf32>) outs(%e : tensor<2x3x5x7xf32>) -> tensor<2x3x5x7xf32>
  %eo = tensor.empty() : tensor<2x5x3x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x5x3x16xf32>) -> tensor<2x5x3x16xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x5x7xf32>, tensor<2x7x3x16xf32>) outs(%zo : tensor<2x5x3x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x5x3x16xf32>
  return %o : tensor<2x5x3x16xf32>
}

// -----

// The scores stored heads-first ([H, B, Nq, Nk]) and O as [Nq, B, H, Dv]:
// the scores' order makes [H, B] the batch (fa.attention's B and H), the
// result is permuted back.
// CHECK-LABEL: func.func @heads_first_scores
// CHECK: fa.attention ins({{.*}} : tensor<3x2x4x8xf32>, tensor<3x2x4x8xf32>, tensor<3x2x4x8xf32>) {{.*}} -> tensor<3x2x4x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<3x2x4x8xf32>) outs(%{{.*}} : tensor<4x2x3x8xf32>) permutation = [2, 1, 0, 3]
// CHECK-NOT: linalg.generic
#q2 = affine_map<(h, b, i, j, d) -> (b, i, h, d)>
#k2 = affine_map<(h, b, i, j, d) -> (b, h, j, d)>
#s2 = affine_map<(h, b, i, j, d) -> (h, b, i, j)>
#p2 = affine_map<(i, b, h, e, j) -> (h, b, i, j)>
#v2 = affine_map<(i, b, h, e, j) -> (b, h, j, e)>
#o2 = affine_map<(i, b, h, e, j) -> (i, b, h, e)>
func.func @heads_first_scores(%q: tensor<2x4x3x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>) -> tensor<4x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2x4x4xf32>) -> tensor<3x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#q2, #k2, #s2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x3x8xf32>, tensor<2x3x4x8xf32>) outs(%z : tensor<3x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<3x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<3x2x4x4xf32>) outs(%e : tensor<3x2x4x4xf32>) -> tensor<3x2x4x4xf32>
  %eo = tensor.empty() : tensor<4x2x3x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x2x3x8xf32>) -> tensor<4x2x3x8xf32>
  %o = linalg.generic {indexing_maps = [#p2, #v2, #o2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<3x2x4x4xf32>, tensor<2x3x4x8xf32>) outs(%zo : tensor<4x2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x2x3x8xf32>
  return %o : tensor<4x2x3x8xf32>
}

// -----

// P V reading P transposed ([B, H, Nk, Nq] as if it were [.., Nq, Nk]):
// the sum runs over the queries, not attention; left alone.
// CHECK-LABEL: func.func @p_read_transposed
// CHECK-NOT: fa.attention
// CHECK: linalg.softmax
#q3 = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k3 = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s3 = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p3 = affine_map<(b, h, i, e, j) -> (b, h, j, i)>
#v3 = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o3 = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
func.func @p_read_transposed(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#q3, #k3, #s3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) outs(%z : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %eo = tensor.empty() : tensor<1x2x4x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#p3, #v3, #o3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) outs(%zo : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// GQA as a loop the contractions do not give K and V (JAX's
// `BTKGH,BSKH->BKGTS` and `BKGTS,BSKH->BTKGH`): the group loop g (3) is
// the innermost of the scores' batch loops (b, k, g), so query head
// k * 3 + g reads K/V head k: fa.attention gets 6 query heads over 2.
// CHECK-LABEL: func.func @grouped_einsum
// CHECK: fa.attention ins({{.*}} : tensor<2x6x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) {{.*}} causal -> tensor<2x6x5x8xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 2, 3, 5, 8]
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2, 4]
// CHECK-NOT: linalg.generic
#gq = affine_map<(b, k, g, t, s, h) -> (b, t, k, g, h)>
#gk = affine_map<(b, k, g, t, s, h) -> (b, s, k, h)>
#gs = affine_map<(b, k, g, t, s, h) -> (b, k, g, t, s)>
#gp = affine_map<(b, t, k, g, h, s) -> (b, k, g, t, s)>
#gv = affine_map<(b, t, k, g, h, s) -> (b, s, k, h)>
#go = affine_map<(b, t, k, g, h, s) -> (b, t, k, g, h)>
func.func @grouped_einsum(%q: tensor<2x5x2x3x8xf32>, %k: tensor<2x5x2x8xf32>, %v: tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x3x5x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x3x5x5xf32>) -> tensor<2x2x3x5x5xf32>
  %sc = linalg.generic {indexing_maps = [#gq, #gk, #gs], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x5x2x3x8xf32>, tensor<2x5x2x8xf32>) outs(%z : tensor<2x2x3x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x5x5xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(a, b, c, i, j) -> (a, b, c, i, j)>, affine_map<(a, b, c, i, j) -> (a, b, c, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%sc : tensor<2x2x3x5x5xf32>) outs(%e : tensor<2x2x3x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 3 : index
    %j = linalg.index 4 : index
    %c = arith.constant 0.35355339 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi sle, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x2x3x5x5xf32>
  %p = linalg.softmax dimension(4) ins(%x : tensor<2x2x3x5x5xf32>) outs(%e : tensor<2x2x3x5x5xf32>) -> tensor<2x2x3x5x5xf32>
  %eo = tensor.empty() : tensor<2x5x2x3x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x5x2x3x8xf32>) -> tensor<2x5x2x3x8xf32>
  %o = linalg.generic {indexing_maps = [#gp, #gv, #go], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x2x3x5x5xf32>, tensor<2x5x2x8xf32>) outs(%zo : tensor<2x5x2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x5x2x3x8xf32>
  return %o : tensor<2x5x2x3x8xf32>
}

// -----

// The scores with the group loop outside the K/V head loop ((b, g, k)):
// fa.attention still lists Q's and O's head factors as (k, g), the group
// innermost, so that query head k * 3 + g reads K/V head k.
// CHECK-LABEL: func.func @grouped_einsum_group_outer
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x5x2x3x8xf32>) outs(%{{.*}} : tensor<2x2x3x5x8xf32>) permutation = [0, 2, 3, 1, 4]
// CHECK: fa.attention ins({{.*}} : tensor<2x6x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) {{.*}} causal -> tensor<2x6x5x8xf32>
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2, 4]
#gq = affine_map<(b, k, g, t, s, h) -> (b, t, k, g, h)>
#gk = affine_map<(b, k, g, t, s, h) -> (b, s, k, h)>
#gs = affine_map<(b, k, g, t, s, h) -> (b, g, k, t, s)>
#gp = affine_map<(b, t, k, g, h, s) -> (b, g, k, t, s)>
#gv = affine_map<(b, t, k, g, h, s) -> (b, s, k, h)>
#go = affine_map<(b, t, k, g, h, s) -> (b, t, k, g, h)>
func.func @grouped_einsum_group_outer(%q: tensor<2x5x2x3x8xf32>, %k: tensor<2x5x2x8xf32>, %v: tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x5x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x2x5x5xf32>) -> tensor<2x3x2x5x5xf32>
  %sc = linalg.generic {indexing_maps = [#gq, #gk, #gs], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x5x2x3x8xf32>, tensor<2x5x2x8xf32>) outs(%z : tensor<2x3x2x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x5x5xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(a, b, c, i, j) -> (a, b, c, i, j)>, affine_map<(a, b, c, i, j) -> (a, b, c, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%sc : tensor<2x3x2x5x5xf32>) outs(%e : tensor<2x3x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 3 : index
    %j = linalg.index 4 : index
    %c = arith.constant 0.35355339 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %m = arith.mulf %in, %c : f32
    %vis = arith.cmpi sle, %j, %i : index
    %r = arith.select %vis, %m, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x5x5xf32>
  %p = linalg.softmax dimension(4) ins(%x : tensor<2x3x2x5x5xf32>) outs(%e : tensor<2x3x2x5x5xf32>) -> tensor<2x3x2x5x5xf32>
  %eo = tensor.empty() : tensor<2x5x2x3x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x5x2x3x8xf32>) -> tensor<2x5x2x3x8xf32>
  %o = linalg.generic {indexing_maps = [#gp, #gv, #go], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x2x5x5xf32>, tensor<2x5x2x8xf32>) outs(%zo : tensor<2x5x2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x5x2x3x8xf32>
  return %o : tensor<2x5x2x3x8xf32>
}
