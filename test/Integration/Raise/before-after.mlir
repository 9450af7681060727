// Each attention program below runs on the CPU twice: as written (upstream
// ops, lowered by --fa-lower-to-cpu, which has no fa op to decompose) and
// after --fa-raise-attention (the fa.attention it becomes lowered by the
// same pipeline: --fa-linalg-to-cpu). linalg.softmax has no CPU lowering
// of its own; the program as written gets upstream's decomposition first. The outputs must agree within the
// stated tolerance: the raise may change only the order and precision of
// the accumulation. A RAISED check makes sure each program was raised.
//
// Inputs are (h mod 17 - 8) / 8 for a hash h of the element's index: exact
// in f16. f32: 1e-5 + 1e-5 * |x| (printMemrefF32's 6 digits, summation
// order); f16: 2e-3 + 2e-3 * |x| (O rounded to f16 in both, P rounded to
// f16 before P V in the program but not in fa.attention).
//
// DEFINE: %{run} = mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_libs
// DEFINE: %{cmp} = %python %lit_utils/compare_memrefs.py -
// DEFINE: %{as_written} = mlir-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/decompose-softmax.mlir --transform-interpreter | fa-opt --fa-lower-to-cpu
//
// RUN: fa-opt %s --fa-raise-attention | FileCheck %s --check-prefix=RAISED
// RUN: mlir-opt %s --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=RAISED
//
// RUN: %{as_written} | %{run} -e main_bmm_softmax > %t.bmm
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_bmm_softmax | %{cmp} --expected-file %t.bmm --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_causal_generic > %t.causal
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_causal_generic | %{cmp} --expected-file %t.causal --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_gqa_collapsed > %t.gqa
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_gqa_collapsed | %{cmp} --expected-file %t.gqa --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_gqa_tiled > %t.tiled
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_gqa_tiled | %{cmp} --expected-file %t.tiled --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_f16_upcast > %t.f16
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_f16_upcast | %{cmp} --expected-file %t.f16 --atol 2e-3 --rtol 2e-3
//
// RUN: %{as_written} | %{run} -e main_reciprocal_keepdim > %t.recip
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_reciprocal_keepdim | %{cmp} --expected-file %t.recip --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_reciprocal_inline > %t.recip_inline
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_reciprocal_inline | %{cmp} --expected-file %t.recip_inline --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_exp2_scaled > %t.exp2
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_exp2_scaled | %{cmp} --expected-file %t.exp2 --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_sliding_window > %t.window
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_sliding_window | %{cmp} --expected-file %t.window --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_softcap_causal > %t.softcap
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_softcap_causal | %{cmp} --expected-file %t.softcap --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_einsum_bshd > %t.einsum
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_einsum_bshd | %{cmp} --expected-file %t.einsum --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_dyn_causal > %t.dyn
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_dyn_causal | %{cmp} --expected-file %t.dyn --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_grouped_einsum > %t.grouped
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_grouped_einsum | %{cmp} --expected-file %t.grouped --atol 1e-5 --rtol 1e-5
//
// RUN: %{as_written} | %{run} -e main_grouped_einsum_outer > %t.outer
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_grouped_einsum_outer | %{cmp} --expected-file %t.outer --atol 1e-5 --rtol 1e-5
//
// Not raised (an additive position bias, which fa.attention cannot
// express): --fa-linalg-to-cpu runs the program as written, its
// linalg.softmax decomposed by --fa-decompose-aggregates.
// RUN: %{as_written} | %{run} -e main_position_bias > %t.bias
// RUN: fa-opt %s --fa-linalg-to-cpu | %{run} -e main_position_bias | %{cmp} --expected-file %t.bias --atol 1e-6 --rtol 1e-6

// RAISED-LABEL: func.func @bmm_softmax
// RAISED: fa.attention
// RAISED-SAME: scale(1.250000e-01)
// RAISED-NOT: linalg.batch_matmul
// RAISED-LABEL: func.func @causal_generic
// RAISED: fa.attention
// RAISED-SAME: causal
// RAISED-LABEL: func.func @gqa_collapsed
// RAISED: fa.attention ins({{.*}} : tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>)
// RAISED-LABEL: func.func @gqa_tiled
// RAISED: fa.attention ins({{.*}} : tensor<2x6x5x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>)
// RAISED-LABEL: func.func @f16_upcast
// RAISED: fa.attention ins({{.*}} : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>)
// RAISED-LABEL: func.func @reciprocal_keepdim
// RAISED: fa.attention ins({{.*}} : tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32>)
// RAISED-SAME: scale(2.500000e-01)
// RAISED-NOT: linalg.generic
// RAISED-LABEL: func.func @reciprocal_inline
// RAISED: fa.attention ins({{.*}} : tensor<1x3x4x8xf32>, tensor<1x3x6x8xf32>, tensor<1x3x6x8xf32>)
// RAISED-NOT: linalg.reduce
// RAISED-LABEL: func.func @exp2_scaled
// RAISED: fa.attention ins({{.*}} : tensor<1x3x6x8xf32>, tensor<1x3x6x8xf32>, tensor<1x3x6x8xf32>) {{.*}} scale(0.353553{{[0-9]*}}) causal ->
// RAISED-NOT: math.exp2
// RAISED-LABEL: func.func @sliding_window
// RAISED: fa.attention {{.*}} causal window(2, 0) ->
// RAISED-LABEL: func.func @softcap_causal
// RAISED: fa.attention {{.*}} scale(0.353553{{[0-9]*}}) causal softcap(5.000000e-01) ->
// RAISED-LABEL: func.func @einsum_bshd
// RAISED: fa.attention ins({{.*}} : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x4xf32>) {{.*}} causal ->
// RAISED: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// RAISED-LABEL: func.func @dyn_causal
// RAISED: fa.attention {{.*}} : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) {{.*}} causal ->
// RAISED-LABEL: func.func @grouped_einsum
// RAISED: fa.attention ins({{.*}} : tensor<2x6x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) {{.*}} causal ->
// RAISED-LABEL: func.func @grouped_einsum_outer
// RAISED: fa.attention ins({{.*}} : tensor<2x6x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) {{.*}} causal ->
// RAISED-LABEL: func.func @position_bias
// RAISED-NOT: fa.attention
// RAISED: linalg.softmax

#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (b, i)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>

func.func private @printMemrefF32(memref<*xf32>)

// Deterministic inputs on a 1/8 grid in [-1, 1].
func.func private @pattern(%t: tensor<?x?x?x?xf32>, %seed: index) -> tensor<?x?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%t : tensor<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %c = linalg.index 2 : index
    %d = linalg.index 3 : index
    %c131 = arith.constant 131 : index
    %c37 = arith.constant 37 : index
    %c11 = arith.constant 11 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c17 = arith.constant 17 : index
    %x0 = arith.muli %a, %c131 : index
    %x1 = arith.muli %b, %c37 : index
    %x2 = arith.muli %c, %c11 : index
    %x3 = arith.muli %d, %c7 : index
    %x4 = arith.muli %seed, %c13 : index
    %s0 = arith.addi %x0, %x1 : index
    %s1 = arith.addi %s0, %x2 : index
    %s2 = arith.addi %s1, %x3 : index
    %s3 = arith.addi %s2, %x4 : index
    %sq = arith.muli %s3, %s3 : index
    %h = arith.remui %sq, %c17 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %m = arith.subf %hf, %c8 : f32
    %v = arith.divf %m, %c8 : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

func.func private @input(%b: index, %h: index, %n: index, %d: index, %seed: index) -> tensor<?x?x?x?xf32> {
  %e = tensor.empty(%b, %h, %n, %d) : tensor<?x?x?x?xf32>
  %r = call @pattern(%e, %seed) : (tensor<?x?x?x?xf32>, index) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

func.func private @print4(%t: tensor<?x?x?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?x?x?xf32> to memref<?x?x?x?xf32>
  %u = memref.cast %m : memref<?x?x?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// 3-D [B*H, N, D]: batch_matmul with K transposed by linalg.transpose, a
// scale on the scores, linalg.softmax.
func.func @bmm_softmax(%q: tensor<6x7x8xf32>, %k: tensor<6x9x8xf32>, %v: tensor<6x9x8xf32>) -> tensor<6x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %e0 = tensor.empty() : tensor<6x8x9xf32>
  %kt = linalg.transpose ins(%k : tensor<6x9x8xf32>) outs(%e0 : tensor<6x8x9xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<6x7x9xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<6x7x8xf32>, tensor<6x8x9xf32>) outs(%f1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<6x7x9xf32>) outs(%e1 : tensor<6x7x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<6x7x9xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x7x9xf32>) outs(%e1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %e2 = tensor.empty() : tensor<6x7x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x7x8xf32>) -> tensor<6x7x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x7x9xf32>, tensor<6x9x8xf32>) outs(%f2 : tensor<6x7x8xf32>) -> tensor<6x7x8xf32>
  return %o : tensor<6x7x8xf32>
}

func.func @main_bmm_softmax() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %q4 = call @input(%c1, %c6, %c7, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c6, %c9, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c6, %c9, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x6x7x8xf32>
  %ks = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x6x9x8xf32>
  %vs = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x6x9x8xf32>
  %q = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<1x6x7x8xf32> into tensor<6x7x8xf32>
  %k = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<1x6x9x8xf32> into tensor<6x9x8xf32>
  %v = tensor.collapse_shape %vs [[0, 1], [2], [3]] : tensor<1x6x9x8xf32> into tensor<6x9x8xf32>
  %o = call @bmm_softmax(%q, %k, %v) : (tensor<6x7x8xf32>, tensor<6x9x8xf32>, tensor<6x9x8xf32>) -> tensor<6x7x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 6, 7, 8] : tensor<6x7x8xf32> into tensor<1x6x7x8xf32>
  %od = tensor.cast %o4 : tensor<1x6x7x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// 4-D, everything a linalg.generic: Q K^T reading K as [b, h, j, d], a
// division by sqrt(D), a causal mask selected on linalg.index, the softmax
// decomposed with keepdim reductions, P V.
func.func @causal_generic(%q: tensor<2x3x6x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt = arith.constant 2.828427 : f32
  %e = tensor.empty() : tensor<2x3x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) outs(%z : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x6x6xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %scaled = arith.divf %in, %sqrt : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %scaled, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %em = tensor.empty() : tensor<2x3x6x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x6x6xf32>) outs(%minit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x3x6x6xf32>) outs(%sinit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %l: f32, %out: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %eo = tensor.empty() : tensor<2x3x6x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x6x6xf32>, tensor<2x3x6x4xf32>) outs(%zo : tensor<2x3x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x4xf32>
  return %o : tensor<2x3x6x4xf32>
}

func.func @main_causal_generic() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c3, %c6, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c3, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c3, %c6, %c4, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x3x6x4xf32>
  %o = call @causal_generic(%q, %k, %v) : (tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %od = tensor.cast %o : tensor<2x3x6x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// GQA 4:2, torch-mlir's shape of repeat_kv: K/V [B, Hkv, N, D] expanded to
// [B, Hkv, 1, N, D], broadcast to [B, Hkv, 2, N, D], collapsed to
// [B*Hq, N, D]; Q collapsed to [B*Hq, N, D]; batch_matmul with transposed
// indexing maps for Q K^T; the scale multiplied in.
func.func @gqa_collapsed(%q4: tensor<2x4x6x8xf32>, %k4: tensor<2x2x6x8xf32>, %v4: tensor<2x2x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.35355339 : f32
  %k5 = tensor.expand_shape %k4 [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 6, 8] : tensor<2x2x6x8xf32> into tensor<2x2x1x6x8xf32>
  %v5 = tensor.expand_shape %v4 [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 6, 8] : tensor<2x2x6x8xf32> into tensor<2x2x1x6x8xf32>
  %eb = tensor.empty() : tensor<2x2x2x6x8xf32>
  %kb = linalg.generic {indexing_maps = [affine_map<(a, b, c, d, e) -> (a, b, 0, d, e)>, affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k5 : tensor<2x2x1x6x8xf32>) outs(%eb : tensor<2x2x2x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x2x6x8xf32>
  %vb = linalg.broadcast ins(%v4 : tensor<2x2x6x8xf32>) outs(%eb : tensor<2x2x2x6x8xf32>) dimensions = [2]
  %k = tensor.collapse_shape %kb [[0, 1, 2], [3], [4]] : tensor<2x2x2x6x8xf32> into tensor<8x6x8xf32>
  %v = tensor.collapse_shape %vb [[0, 1, 2], [3], [4]] : tensor<2x2x2x6x8xf32> into tensor<8x6x8xf32>
  %q = tensor.collapse_shape %q4 [[0, 1], [2], [3]] : tensor<2x4x6x8xf32> into tensor<8x6x8xf32>
  %e1 = tensor.empty() : tensor<8x6x6xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                            affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<8x6x8xf32>, tensor<8x6x8xf32>) outs(%f1 : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x6x6xf32>) outs(%e1 : tensor<8x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %c, %in : f32
    linalg.yield %m : f32
  } -> tensor<8x6x6xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<8x6x6xf32>) outs(%e1 : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %e2 = tensor.empty() : tensor<8x6x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x6x8xf32>) -> tensor<8x6x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x6x6xf32>, tensor<8x6x8xf32>) outs(%f2 : tensor<8x6x8xf32>) -> tensor<8x6x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 6, 8] : tensor<8x6x8xf32> into tensor<2x4x6x8xf32>
  return %o4 : tensor<2x4x6x8xf32>
}

func.func @main_gqa_collapsed() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c4, %c6, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c2, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c2, %c6, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x4x6x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x2x6x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x2x6x8xf32>
  %o = call @gqa_collapsed(%q, %k, %v) : (tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) -> tensor<2x4x6x8xf32>
  %od = tensor.cast %o : tensor<2x4x6x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// GQA with the K/V heads tiled (torch's k.repeat(1, 2, 1, 1)): query head h
// reads K/V head h mod 3. Raised with Q's heads regrouped and O's back.
func.func @gqa_tiled(%q: tensor<2x6x5x8xf32>, %k3: tensor<2x3x5x8xf32>, %v3: tensor<2x3x5x8xf32>) -> tensor<2x6x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<2x2x3x5x8xf32>
  %kb = linalg.broadcast ins(%k3 : tensor<2x3x5x8xf32>) outs(%eb : tensor<2x2x3x5x8xf32>) dimensions = [1]
  %vb = linalg.broadcast ins(%v3 : tensor<2x3x5x8xf32>) outs(%eb : tensor<2x2x3x5x8xf32>) dimensions = [1]
  %k = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<2x2x3x5x8xf32> into tensor<2x6x5x8xf32>
  %v = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<2x2x3x5x8xf32> into tensor<2x6x5x8xf32>
  %es = tensor.empty() : tensor<2x6x5x5xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x6x5x5xf32>) -> tensor<2x6x5x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x6x5x8xf32>, tensor<2x6x5x8xf32>) outs(%fs : tensor<2x6x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x6x5x5xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<2x6x5x5xf32>) outs(%es : tensor<2x6x5x5xf32>) -> tensor<2x6x5x5xf32>
  %eo = tensor.empty() : tensor<2x6x5x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x6x5x8xf32>) -> tensor<2x6x5x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x6x5x5xf32>, tensor<2x6x5x8xf32>) outs(%fo : tensor<2x6x5x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x6x5x8xf32>
  return %o : tensor<2x6x5x8xf32>
}
func.func @main_gqa_tiled() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c6, %c5, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c3, %c5, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c3, %c5, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x6x5x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x3x5x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x3x5x8xf32>
  %o = call @gqa_tiled(%q, %k, %v) : (tensor<2x6x5x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>) -> tensor<2x6x5x8xf32>
  %od = tensor.cast %o : tensor<2x6x5x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}


// f16 with the softmax upcast to f32 (autocast style): scores in f16, the
// softmax in f32 with a finfo(f32).min causal mask added, P truncated to f16.
func.func @f16_upcast(%q: tensor<1x2x5x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf16>) -> tensor<1x2x5x8xf16> {
  %zero = arith.constant 0.0 : f16
  %zero32 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.3535 : f16
  %mask = arith.constant dense<[[0.0, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38],
                                [0.0, 0.0, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38],
                                [0.0, 0.0, 0.0, -3.40282347E+38, -3.40282347E+38],
                                [0.0, 0.0, 0.0, 0.0, -3.40282347E+38],
                                [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x5xf32>
  %e0 = tensor.empty() : tensor<1x2x8x5xf16>
  %kt = linalg.transpose ins(%k : tensor<1x2x5x8xf16>) outs(%e0 : tensor<1x2x8x5xf16>) permutation = [0, 1, 3, 2]
  %e = tensor.empty() : tensor<1x2x5x5xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x2x5x5xf16>) -> tensor<1x2x5x5xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, d, j)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %kt : tensor<1x2x5x8xf16>, tensor<1x2x8x5xf16>) outs(%z : tensor<1x2x5x5xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %m = arith.mulf %a, %b : f16
    %r = arith.addf %acc, %m : f16
    linalg.yield %r : f16
  } -> tensor<1x2x5x5xf16>
  %e32 = tensor.empty() : tensor<1x2x5x5xf32>
  %x = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (i, j)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x5x5xf16>, tensor<5x5xf32>) outs(%e32 : tensor<1x2x5x5xf32>) {
  ^bb0(%in: f16, %mk: f32, %out: f32):
    %sc = arith.mulf %in, %c : f16
    %up = arith.extf %sc : f16 to f32
    %r = arith.addf %up, %mk : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x5xf32>
  %er = tensor.empty() : tensor<1x2x5xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  %mx = linalg.reduce ins(%x : tensor<1x2x5x5xf32>) outs(%minit : tensor<1x2x5xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %r = arith.maxnumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5xf32>) outs(%e32 : tensor<1x2x5x5xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<1x2x5x5xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sub : tensor<1x2x5x5xf32>) outs(%e32 : tensor<1x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x5xf32>
  %sinit = linalg.fill ins(%zero32 : f32) outs(%er : tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  %sum = linalg.reduce ins(%ex : tensor<1x2x5x5xf32>) outs(%sinit : tensor<1x2x5xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<1x2x5x5xf32>, tensor<1x2x5xf32>) outs(%e32 : tensor<1x2x5x5xf32>) {
  ^bb0(%a: f32, %l: f32, %out: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x5xf32>
  %p16 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x2x5x5xf32>) outs(%e : tensor<1x2x5x5xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<1x2x5x5xf16>
  %eo = tensor.empty() : tensor<1x2x5x8xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<1x2x5x8xf16>) -> tensor<1x2x5x8xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p16, %v : tensor<1x2x5x5xf16>, tensor<1x2x5x8xf16>) outs(%zo : tensor<1x2x5x8xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %m = arith.mulf %a, %b : f16
    %r = arith.addf %acc, %m : f16
    linalg.yield %r : f16
  } -> tensor<1x2x5x8xf16>
  return %o : tensor<1x2x5x8xf16>
}

func.func @main_f16_upcast() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c1, %c2, %c5, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c2, %c5, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c2, %c5, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x2x5x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x2x5x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x2x5x8xf32>
  %q16 = arith.truncf %q : tensor<1x2x5x8xf32> to tensor<1x2x5x8xf16>
  %k16 = arith.truncf %k : tensor<1x2x5x8xf32> to tensor<1x2x5x8xf16>
  %v16 = arith.truncf %v : tensor<1x2x5x8xf32> to tensor<1x2x5x8xf16>
  %o = call @f16_upcast(%q16, %k16, %v16) : (tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>) -> tensor<1x2x5x8xf16>
  %o32 = arith.extf %o : tensor<1x2x5x8xf16> to tensor<1x2x5x8xf32>
  %od = tensor.cast %o32 : tensor<1x2x5x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// torch's `e * e.sum(-1, keepdim=True).reciprocal()`: the row max and sum
// drop the reduced dim and are expanded back to [B, H, N, 1]; the
// reciprocal is an op of its own on that row tensor; Nq != Nk.
func.func @reciprocal_keepdim(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x7x8xf32>, %v: tensor<1x2x7x8xf32>) -> tensor<1x2x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<1x2x5x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>) outs(%z : tensor<1x2x5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x7xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x5x7xf32>) outs(%e : tensor<1x2x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x7xf32>
  %er = tensor.empty() : tensor<1x2x5xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  %mx = linalg.reduce ins(%x : tensor<1x2x5x7xf32>) outs(%minit : tensor<1x2x5xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %mx1 = tensor.expand_shape %mx [[0], [1], [2, 3]] output_shape [1, 2, 5, 1] : tensor<1x2x5xf32> into tensor<1x2x5x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mx1 : tensor<1x2x5x7xf32>, tensor<1x2x5x1xf32>) outs(%e : tensor<1x2x5x7xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x7xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%er : tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  %sum = linalg.reduce ins(%ex : tensor<1x2x5x7xf32>) outs(%sinit : tensor<1x2x5xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %sum1 = tensor.expand_shape %sum [[0], [1], [2, 3]] output_shape [1, 2, 5, 1] : tensor<1x2x5xf32> into tensor<1x2x5x1xf32>
  %e1 = tensor.empty() : tensor<1x2x5x1xf32>
  %rc = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sum1 : tensor<1x2x5x1xf32>) outs(%e1 : tensor<1x2x5x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %rc : tensor<1x2x5x7xf32>, tensor<1x2x5x1xf32>) outs(%e : tensor<1x2x5x7xf32>) {
  ^bb0(%a: f32, %r: f32, %out: f32):
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<1x2x5x7xf32>
  %eo = tensor.empty() : tensor<1x2x5x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<1x2x5x7xf32>, tensor<1x2x7x8xf32>) outs(%zo : tensor<1x2x5x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

func.func @main_reciprocal_keepdim() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c1, %c2, %c5, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c2, %c7, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c2, %c7, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x2x5x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x2x7x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x2x7x8xf32>
  %o = call @reciprocal_keepdim(%q, %k, %v) : (tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32>) -> tensor<1x2x5x8xf32>
  %od = tensor.cast %o : tensor<1x2x5x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// 3-D [B*H, N, D]: the reciprocal inside the product's body, the factors
// swapped (`(1 / l) * e`); Nk > Nq.
func.func @reciprocal_inline(%q: tensor<3x4x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<3x6x8xf32>) -> tensor<3x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<3x8x6xf32>
  %kt = linalg.transpose ins(%k : tensor<3x6x8xf32>) outs(%e0 : tensor<3x8x6xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<3x4x6xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<3x4x8xf32>, tensor<3x8x6xf32>) outs(%f1 : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  %er = tensor.empty() : tensor<3x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<3x4xf32>) -> tensor<3x4xf32>
  %mx = linalg.reduce ins(%s : tensor<3x4x6xf32>) outs(%fm : tensor<3x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<3x4x6xf32>, tensor<3x4xf32>) outs(%e1 : tensor<3x4x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<3x4x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<3x4xf32>) -> tensor<3x4xf32>
  %sm = linalg.reduce ins(%ex : tensor<3x4x6xf32>) outs(%fs : tensor<3x4xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<3x4x6xf32>, tensor<3x4xf32>) outs(%e1 : tensor<3x4x6xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %rc = arith.divf %one, %l : f32
    %y = arith.mulf %rc, %in : f32
    linalg.yield %y : f32
  } -> tensor<3x4x6xf32>
  %e2 = tensor.empty() : tensor<3x4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<3x4x6xf32>, tensor<3x6x8xf32>) outs(%f2 : tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  return %o : tensor<3x4x8xf32>
}

func.func @main_reciprocal_inline() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c1, %c3, %c4, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c3, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c3, %c6, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x3x4x8xf32>
  %ks = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x3x6x8xf32>
  %vs = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x3x6x8xf32>
  %q = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<1x3x4x8xf32> into tensor<3x4x8xf32>
  %k = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<1x3x6x8xf32> into tensor<3x6x8xf32>
  %v = tensor.collapse_shape %vs [[0, 1], [2], [3]] : tensor<1x3x6x8xf32> into tensor<3x6x8xf32>
  %o = call @reciprocal_inline(%q, %k, %v) : (tensor<3x4x8xf32>, tensor<3x6x8xf32>, tensor<3x6x8xf32>) -> tensor<3x4x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 3, 4, 8] : tensor<3x4x8xf32> into tensor<1x3x4x8xf32>
  %od = tensor.cast %o4 : tensor<1x3x4x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// The softmax as FlashAttention writes it: the max over the raw (masked)
// scores, exp2((s - max) * scale * log2(e)), here with the scale 1/sqrt(8)
// inside the exponential only. Causal by an index comparison.
func.func @exp2_scaled(%q: tensor<3x6x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<3x6x8xf32>) -> tensor<3x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<3x8x6xf32>
  %kt = linalg.transpose ins(%k : tensor<3x6x8xf32>) outs(%e0 : tensor<3x8x6xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<3x6x6xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<3x6x8xf32>, tensor<3x8x6xf32>) outs(%f1 : tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<3x6x6xf32>) outs(%e1 : tensor<3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %future = arith.cmpi ugt, %j, %i : index
    %r = arith.select %future, %ninf, %in : f32
    linalg.yield %r : f32
  } -> tensor<3x6x6xf32>
  %er = tensor.empty() : tensor<3x6xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<3x6xf32>) -> tensor<3x6xf32>
  %mx = linalg.reduce ins(%x : tensor<3x6x6xf32>) outs(%fm : tensor<3x6xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<3x6x6xf32>, tensor<3x6xf32>) outs(%e1 : tensor<3x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %scale_log2e = arith.constant 0.51006972 : f32
    %d = arith.subf %in, %m : f32
    %y = arith.mulf %d, %scale_log2e : f32
    %r = math.exp2 %y : f32
    linalg.yield %r : f32
  } -> tensor<3x6x6xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<3x6xf32>) -> tensor<3x6xf32>
  %sm = linalg.reduce ins(%ex : tensor<3x6x6xf32>) outs(%fs : tensor<3x6xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<3x6x6xf32>, tensor<3x6xf32>) outs(%e1 : tensor<3x6x6xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %y = arith.divf %in, %l : f32
    linalg.yield %y : f32
  } -> tensor<3x6x6xf32>
  %e2 = tensor.empty() : tensor<3x6x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x6x8xf32>) -> tensor<3x6x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<3x6x6xf32>, tensor<3x6x8xf32>) outs(%f2 : tensor<3x6x8xf32>) -> tensor<3x6x8xf32>
  return %o : tensor<3x6x8xf32>
}

func.func @main_exp2_scaled() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c1, %c3, %c6, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c3, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c3, %c6, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x3x6x8xf32>
  %ks = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x3x6x8xf32>
  %vs = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x3x6x8xf32>
  %q = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<1x3x6x8xf32> into tensor<3x6x8xf32>
  %k = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<1x3x6x8xf32> into tensor<3x6x8xf32>
  %v = tensor.collapse_shape %vs [[0, 1], [2], [3]] : tensor<1x3x6x8xf32> into tensor<3x6x8xf32>
  %o = call @exp2_scaled(%q, %k, %v) : (tensor<3x6x8xf32>, tensor<3x6x8xf32>, tensor<3x6x8xf32>) -> tensor<3x6x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 3, 6, 8] : tensor<3x6x8xf32> into tensor<1x3x6x8xf32>
  %od = tensor.cast %o4 : tensor<1x3x6x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// The 4-D program of causal_generic with a sliding window: masked where
// j > i or i - j > 2 (Mistral's mask, 3 keys visible at most).
func.func @sliding_window(%q: tensor<2x3x6x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt = arith.constant 2.828427 : f32
  %e = tensor.empty() : tensor<2x3x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) outs(%z : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x6x6xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c2 = arith.constant 2 : index
    %scaled = arith.divf %in, %sqrt : f32
    %future = arith.cmpi sgt, %j, %i : index
    %d = arith.subi %i, %j : index
    %far = arith.cmpi sgt, %d, %c2 : index
    %masked = arith.ori %future, %far : i1
    %r = arith.select %masked, %ninf, %scaled : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %em = tensor.empty() : tensor<2x3x6x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x6x6xf32>) outs(%minit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x3x6x6xf32>) outs(%sinit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %l: f32, %out: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %eo = tensor.empty() : tensor<2x3x6x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x6x6xf32>, tensor<2x3x6x4xf32>) outs(%zo : tensor<2x3x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x4xf32>
  return %o : tensor<2x3x6x4xf32>
}

func.func @main_sliding_window() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c3, %c6, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c3, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c3, %c6, %c4, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x3x6x4xf32>
  %o = call @sliding_window(%q, %k, %v) : (tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %od = tensor.cast %o : tensor<2x3x6x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// The 4-D program of causal_generic with Gemma 2's soft cap, c = 0.5 (small
// enough to bind on these scores), between the scale and the mask.
func.func @softcap_causal(%q: tensor<2x3x6x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrt = arith.constant 2.828427 : f32
  %e = tensor.empty() : tensor<2x3x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) outs(%z : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x6x6xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %cap = arith.constant 0.5 : f32
    %scaled = arith.divf %in, %sqrt : f32
    %x = arith.divf %scaled, %cap : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %cap, %t : f32
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %capped, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %em = tensor.empty() : tensor<2x3x6x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x6x6xf32>) outs(%minit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %ex = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mx : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%em : tensor<2x3x6x1xf32>) -> tensor<2x3x6x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x3x6x6xf32>) outs(%sinit : tensor<2x3x6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, affine_map<(b, h, i, j) -> (b, h, i, 0)>, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x3x6x6xf32>, tensor<2x3x6x1xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %l: f32, %out: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %eo = tensor.empty() : tensor<2x3x6x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
                                        affine_map<(b, h, i, e, j) -> (b, h, i, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x6x6xf32>, tensor<2x3x6x4xf32>) outs(%zo : tensor<2x3x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x4xf32>
  return %o : tensor<2x3x6x4xf32>
}

func.func @main_softcap_causal() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c3, %c6, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c3, %c6, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c3, %c6, %c4, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x3x6x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x3x6x4xf32>
  %o = call @softcap_causal(%q, %k, %v) : (tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x6x4xf32>
  %od = tensor.cast %o : tensor<2x3x6x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// Flax's einsums on [B, N, H, D] tensors (`bqhd,bkhd->bhqk`, then
// `bhqk,bkhd->bqhd`), a causal mask: the raise transposes Q, K, V and O.
func.func @einsum_bshd(%q: tensor<2x6x3x8xf32>, %k: tensor<2x6x3x8xf32>, %v: tensor<2x6x3x4xf32>) -> tensor<2x6x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x3x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, j, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x6x3x8xf32>, tensor<2x6x3x8xf32>) outs(%z : tensor<2x3x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x6x6xf32>) outs(%e : tensor<2x3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c = arith.constant 0.35355339 : f32
    %scaled = arith.mulf %in, %c : f32
    %vis = arith.cmpi sle, %j, %i : index
    %r = arith.select %vis, %scaled, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6x6xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x3x6x6xf32>) outs(%e : tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %eo = tensor.empty() : tensor<2x6x3x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x6x3x4xf32>) -> tensor<2x6x3x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, h, e, j) -> (b, h, i, j)>,
                                        affine_map<(b, i, h, e, j) -> (b, j, h, e)>,
                                        affine_map<(b, i, h, e, j) -> (b, i, h, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x6x6xf32>, tensor<2x6x3x4xf32>) outs(%zo : tensor<2x6x3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x6x3x4xf32>
  return %o : tensor<2x6x3x4xf32>
}

func.func @main_einsum_bshd() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q4 = call @input(%c2, %c6, %c3, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c6, %c3, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c6, %c3, %c4, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x6x3x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x6x3x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x6x3x4xf32>
  %o = call @einsum_bshd(%q, %k, %v) : (tensor<2x6x3x8xf32>, tensor<2x6x3x8xf32>, tensor<2x6x3x4xf32>) -> tensor<2x6x3x4xf32>
  %od = tensor.cast %o : tensor<2x6x3x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// Self-attention over a dynamic sequence (Q, K, V projected from one x,
// Nq = Nk = ? in the IR, 7 at run time) with a causal mask: the raise
// proves Nq == Nk from the ops that sized the scores.
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

func.func @main_dyn_causal() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x4 = call @input(%c1, %c2, %c7, %c16, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q4 = call @input(%c1, %c2, %c16, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c2, %c16, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c2, %c16, %c8, %c4) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %xs = tensor.cast %x4 : tensor<?x?x?x?xf32> to tensor<1x2x?x16xf32>
  %x = tensor.collapse_shape %xs [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
  %wqs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x2x16x8xf32>
  %wks = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x2x16x8xf32>
  %wvs = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x2x16x8xf32>
  %wq = tensor.collapse_shape %wqs [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %wk = tensor.collapse_shape %wks [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %wv = tensor.collapse_shape %wvs [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %o = call @dyn_causal(%x, %wq, %wk, %wv) : (tensor<2x?x16xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x?x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, %c7, 8] : tensor<2x?x8xf32> into tensor<1x2x?x8xf32>
  %od = tensor.cast %o4 : tensor<1x2x?x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// JAX's GQA einsums (`BTKGH,BSKH->BKGTS`, `BKGTS,BSKH->BTKGH`): 2 K/V heads,
// groups of 3 query heads as a loop K and V do not have; causal, Nq = Nk = 5.
#jq = affine_map<(b, k, g, t, s, h) -> (b, t, k, g, h)>
#jk = affine_map<(b, k, g, t, s, h) -> (b, s, k, h)>
#js = affine_map<(b, k, g, t, s, h) -> (b, k, g, t, s)>
#jp = affine_map<(b, t, k, g, h, s) -> (b, k, g, t, s)>
#jv = affine_map<(b, t, k, g, h, s) -> (b, s, k, h)>
#jo = affine_map<(b, t, k, g, h, s) -> (b, t, k, g, h)>
func.func @grouped_einsum(%q: tensor<2x5x2x3x8xf32>, %k: tensor<2x5x2x8xf32>, %v: tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x3x5x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x3x5x5xf32>) -> tensor<2x2x3x5x5xf32>
  %sc = linalg.generic {indexing_maps = [#jq, #jk, #js], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
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
  %o = linalg.generic {indexing_maps = [#jp, #jv, #jo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x2x3x5x5xf32>, tensor<2x5x2x8xf32>) outs(%zo : tensor<2x5x2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x5x2x3x8xf32>
  return %o : tensor<2x5x2x3x8xf32>
}

func.func @main_grouped_einsum() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c24 = arith.constant 24 : index
  %q4 = call @input(%c2, %c5, %c2, %c24, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c5, %c2, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c5, %c2, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x5x2x24xf32>
  %q = tensor.expand_shape %qs [[0], [1], [2], [3, 4]] output_shape [2, 5, 2, 3, 8] : tensor<2x5x2x24xf32> into tensor<2x5x2x3x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x5x2x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x5x2x8xf32>
  %o = call @grouped_einsum(%q, %k, %v) : (tensor<2x5x2x3x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32>
  %o4 = tensor.collapse_shape %o [[0], [1], [2], [3, 4]] : tensor<2x5x2x3x8xf32> into tensor<2x5x2x24xf32>
  %od = tensor.cast %o4 : tensor<2x5x2x24xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// The same with the scores' group loop outside the K/V head loop
// (`BTKGH,BSKH->BGKTS`).
#uq = affine_map<(b, k, g, t, s, h) -> (b, t, k, g, h)>
#uk = affine_map<(b, k, g, t, s, h) -> (b, s, k, h)>
#us = affine_map<(b, k, g, t, s, h) -> (b, g, k, t, s)>
#up = affine_map<(b, t, k, g, h, s) -> (b, g, k, t, s)>
#uv = affine_map<(b, t, k, g, h, s) -> (b, s, k, h)>
#uo = affine_map<(b, t, k, g, h, s) -> (b, t, k, g, h)>
func.func @grouped_einsum_outer(%q: tensor<2x5x2x3x8xf32>, %k: tensor<2x5x2x8xf32>, %v: tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x5x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x2x5x5xf32>) -> tensor<2x3x2x5x5xf32>
  %sc = linalg.generic {indexing_maps = [#uq, #uk, #us], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
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
  %o = linalg.generic {indexing_maps = [#up, #uv, #uo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x2x5x5xf32>, tensor<2x5x2x8xf32>) outs(%zo : tensor<2x5x2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x5x2x3x8xf32>
  return %o : tensor<2x5x2x3x8xf32>
}

func.func @main_grouped_einsum_outer() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c24 = arith.constant 24 : index
  %q4 = call @input(%c2, %c5, %c2, %c24, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c2, %c5, %c2, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c2, %c5, %c2, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<2x5x2x24xf32>
  %q = tensor.expand_shape %qs [[0], [1], [2], [3, 4]] output_shape [2, 5, 2, 3, 8] : tensor<2x5x2x24xf32> into tensor<2x5x2x3x8xf32>
  %k = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<2x5x2x8xf32>
  %v = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<2x5x2x8xf32>
  %o = call @grouped_einsum_outer(%q, %k, %v) : (tensor<2x5x2x3x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>) -> tensor<2x5x2x3x8xf32>
  %o4 = tensor.collapse_shape %o [[0], [1], [2], [3, 4]] : tensor<2x5x2x3x8xf32> into tensor<2x5x2x24xf32>
  %od = tensor.cast %o4 : tensor<2x5x2x24xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// bmm_softmax with a bias of 0.1 (j - i) added to the scores (ALiBi-like):
// left as written by the raise.
func.func @position_bias(%q: tensor<6x7x8xf32>, %k: tensor<6x9x8xf32>, %v: tensor<6x9x8xf32>) -> tensor<6x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %slope = arith.constant 0.1 : f32
  %e0 = tensor.empty() : tensor<6x8x9xf32>
  %kt = linalg.transpose ins(%k : tensor<6x9x8xf32>) outs(%e0 : tensor<6x8x9xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<6x7x9xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<6x7x8xf32>, tensor<6x8x9xf32>) outs(%f1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<6x7x9xf32>) outs(%e1 : tensor<6x7x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b = arith.mulf %df, %slope : f32
    %m = arith.mulf %in, %c : f32
    %r = arith.addf %m, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x7x9xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x7x9xf32>) outs(%e1 : tensor<6x7x9xf32>) -> tensor<6x7x9xf32>
  %e2 = tensor.empty() : tensor<6x7x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x7x8xf32>) -> tensor<6x7x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x7x9xf32>, tensor<6x9x8xf32>) outs(%f2 : tensor<6x7x8xf32>) -> tensor<6x7x8xf32>
  return %o : tensor<6x7x8xf32>
}

func.func @main_position_bias() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %q4 = call @input(%c1, %c6, %c7, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %k4 = call @input(%c1, %c6, %c9, %c8, %c2) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v4 = call @input(%c1, %c6, %c9, %c8, %c3) : (index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %qs = tensor.cast %q4 : tensor<?x?x?x?xf32> to tensor<1x6x7x8xf32>
  %ks = tensor.cast %k4 : tensor<?x?x?x?xf32> to tensor<1x6x9x8xf32>
  %vs = tensor.cast %v4 : tensor<?x?x?x?xf32> to tensor<1x6x9x8xf32>
  %q = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<1x6x7x8xf32> into tensor<6x7x8xf32>
  %k = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<1x6x9x8xf32> into tensor<6x9x8xf32>
  %v = tensor.collapse_shape %vs [[0, 1], [2], [3]] : tensor<1x6x9x8xf32> into tensor<6x9x8xf32>
  %o = call @position_bias(%q, %k, %v) : (tensor<6x7x8xf32>, tensor<6x9x8xf32>, tensor<6x9x8xf32>) -> tensor<6x7x8xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 6, 7, 8] : tensor<6x7x8xf32> into tensor<1x6x7x8xf32>
  %od = tensor.cast %o4 : tensor<1x6x7x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%od) : (tensor<?x?x?x?xf32>) -> ()
  return
}
