// The softmax's exponential in the forms hand-written programs use: the
// scale (or part of it) on the difference inside exp, the same factor on
// both sides of the difference, a division, and exp2 with log2(e) folded
// into the factor (FlashAttention's exp2((s - max) * scale * log2(e))). The
// factor is the last one applied to the scores: it multiplies the scale,
// and a soft cap before it. Each function is causal by an index comparison.
// RUN: fa-opt %s -split-input-file --fa-raise-attention | FileCheck %s

// exp((s - max) * c): softmax(c s).
// CHECK-LABEL: func.func @scale_inside_exp
// CHECK: %[[O:.*]] = fa.attention {{.*}} scale(1.250000e-01) causal ->
// CHECK-NOT: math.exp
// CHECK: return
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @scale_inside_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c = arith.constant 0.125 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %c, %d : f32
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

// exp(s * c - max * c), the factor written twice.
// CHECK-LABEL: func.func @same_factor_both_sides
// CHECK: fa.attention {{.*}} scale(2.500000e-01) causal ->
// CHECK-NOT: math.exp
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @same_factor_both_sides(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c = arith.constant 0.25 : f32
    %xs = arith.mulf %in, %c : f32
    %ms = arith.mulf %m, %c : f32
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

// exp((s - max) / sqrt(D)).
// CHECK-LABEL: func.func @divided_inside_exp
// CHECK: fa.attention {{.*}} scale(0.353553{{[0-9]*}}) causal ->
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @divided_inside_exp(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c = arith.constant 2.82842712 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.divf %d, %c : f32
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

// exp2((s - max) * scale * log2(e)), the scale 0.5.
// CHECK-LABEL: func.func @exp2_log2e
// CHECK: fa.attention {{.*}} scale(5.000000e-01) causal ->
// CHECK-NOT: math.exp2
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @exp2_log2e(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %c = arith.constant 0.72134752 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %d, %c : f32
    %r = math.exp2 %y : f32
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

// exp2(s - max): softmax(ln(2) s).
// CHECK-LABEL: func.func @exp2_plain
// CHECK: fa.attention {{.*}} scale(0.693147{{[0-9]*}}) causal ->
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @exp2_plain(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %r = math.exp2 %d : f32
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

// A soft cap 2 tanh(s / 16) before exp2((x - max) * log2(e)): the cap 2
// and the scale 2 / 16.
// CHECK-LABEL: func.func @exp2_after_softcap
// CHECK: fa.attention {{.*}} scale(1.250000e-01) causal softcap(2.000000e+00) ->
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @exp2_after_softcap(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
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
    %inner = arith.constant 0.0625 : f32
    %cap = arith.constant 2.0 : f32
    %a = arith.mulf %in, %inner : f32
    %t = math.tanh %a : f32
    %capped = arith.mulf %t, %cap : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %capped, %ninf : f32
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
    %c = arith.constant 1.44269504 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %d, %c : f32
    %r = math.exp2 %y : f32
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
