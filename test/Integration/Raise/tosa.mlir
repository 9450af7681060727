// Attention written in TOSA runs on the CPU twice after upstream's
// tosa-to-linalg pipeline and elementwise fusion (the form
// test/Transforms/raise-attention-tosa.mlir raises): as written, lowered by
// --fa-lower-to-cpu, and raised, by --fa-linalg-to-cpu. The outputs must
// agree: f32 within 1e-5 + 1e-5 * |x| (printMemrefF32's digits, summation
// order); f16 within 2e-3 + 2e-3 * |x| (P rounded to f16 before P V in the
// program, not in fa.attention). A RAISED check makes sure each was raised.
//
// DEFINE: %{linalg} = mlir-opt %s --tosa-to-linalg-pipeline --tosa-to-arith --linalg-fuse-elementwise-ops
// DEFINE: %{run} = mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_libs
// DEFINE: %{cmp} = %python %lit_utils/compare_memrefs.py -
//
// RUN: %{linalg} | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=RAISED
//
// RUN: %{linalg} | fa-opt --fa-lower-to-cpu | %{run} -e main_scaled_f32 > %t.f32
// RUN: %{linalg} | fa-opt --fa-linalg-to-cpu | %{run} -e main_scaled_f32 | %{cmp} --expected-file %t.f32 --atol 1e-5 --rtol 1e-5
//
// RUN: %{linalg} | fa-opt --fa-lower-to-cpu | %{run} -e main_causal_f16 > %t.f16
// RUN: %{linalg} | fa-opt --fa-linalg-to-cpu | %{run} -e main_causal_f16 | %{cmp} --expected-file %t.f16 --atol 2e-3 --rtol 2e-3

// RAISED-LABEL: func.func @scaled_f32
// RAISED: fa.attention {{.*}} scale(0.353553385) ->
// RAISED-LABEL: func.func @causal_f16
// RAISED: fa.attention {{.*}} scale(0.353553385) causal ->

func.func private @printMemrefF32(memref<*xf32>)

// Inputs on a 1/8 grid in [-1, 1]: ((7 a + 3 b + 5 c + 11 seed)^2 mod 17 - 8) / 8.
func.func private @input(%seed: index) -> tensor<3x6x8xf32> {
  %e = tensor.empty() : tensor<3x6x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<3x6x8xf32>) {
  ^bb0(%o: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %c = linalg.index 2 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c11 = arith.constant 11 : index
    %c17 = arith.constant 17 : index
    %x0 = arith.muli %a, %c7 : index
    %x1 = arith.muli %b, %c3 : index
    %x2 = arith.muli %c, %c5 : index
    %x3 = arith.muli %seed, %c11 : index
    %s0 = arith.addi %x0, %x1 : index
    %s1 = arith.addi %s0, %x2 : index
    %s2 = arith.addi %s1, %x3 : index
    %sq = arith.muli %s2, %s2 : index
    %h = arith.remui %sq, %c17 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %m = arith.subf %hf, %c8 : f32
    %v = arith.divf %m, %c8 : f32
    linalg.yield %v : f32
  } -> tensor<3x6x8xf32>
  return %r : tensor<3x6x8xf32>
}

func.func private @print3(%t: tensor<?x?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?x?xf32> to memref<?x?x?xf32>
  %u = memref.cast %m : memref<?x?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// [B*H = 2, Nq = 4, D = 8] against [2, Nk = 6, 8]: a scale, the softmax
// as exp(x - max) times the reciprocal of the sum.
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

func.func @main_scaled_f32() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %q0 = call @input(%c1) : (index) -> tensor<3x6x8xf32>
  %k0 = call @input(%c2) : (index) -> tensor<3x6x8xf32>
  %v0 = call @input(%c3) : (index) -> tensor<3x6x8xf32>
  %q = tensor.extract_slice %q0[0, 0, 0] [2, 4, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<2x4x8xf32>
  %k = tensor.extract_slice %k0[0, 0, 0] [2, 6, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<2x6x8xf32>
  %v = tensor.extract_slice %v0[0, 0, 0] [2, 6, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<2x6x8xf32>
  %o = call @scaled_f32(%q, %k, %v) : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x8xf32>
  %od = tensor.cast %o : tensor<2x4x8xf32> to tensor<?x?x?xf32>
  call @print3(%od) : (tensor<?x?x?xf32>) -> ()
  return
}

// f16 operands with f32 accumulation, an additive causal mask constant
// (Nq = Nk = 5), P rounded to f16 for P V, O rounded at the end.
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

func.func @main_causal_f16() {
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %q0 = call @input(%c4) : (index) -> tensor<3x6x8xf32>
  %k0 = call @input(%c5) : (index) -> tensor<3x6x8xf32>
  %v0 = call @input(%c6) : (index) -> tensor<3x6x8xf32>
  %q = tensor.extract_slice %q0[0, 0, 0] [3, 5, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<3x5x8xf32>
  %k = tensor.extract_slice %k0[0, 0, 0] [3, 5, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<3x5x8xf32>
  %v = tensor.extract_slice %v0[0, 0, 0] [3, 5, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<3x5x8xf32>
  %q16 = arith.truncf %q : tensor<3x5x8xf32> to tensor<3x5x8xf16>
  %k16 = arith.truncf %k : tensor<3x5x8xf32> to tensor<3x5x8xf16>
  %v16 = arith.truncf %v : tensor<3x5x8xf32> to tensor<3x5x8xf16>
  %o = call @causal_f16(%q16, %k16, %v16) : (tensor<3x5x8xf16>, tensor<3x5x8xf16>, tensor<3x5x8xf16>) -> tensor<3x5x8xf16>
  %o32 = arith.extf %o : tensor<3x5x8xf16> to tensor<3x5x8xf32>
  %od = tensor.cast %o32 : tensor<3x5x8xf32> to tensor<?x?x?xf32>
  call @print3(%od) : (tensor<?x?x?xf32>) -> ()
  return
}
