// The worked example of the seed document 003 (N = 6, d = 2, scale 1), run
// through the naive lowering on the CPU.
//
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e full -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=FULL
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e full -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --atol 1e-5 --rtol 1e-5
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e causal -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --tag EXPECTED-CAUSAL --atol 1e-5 --rtol 1e-5
//
// Expected values: test/lit_utils/attention_reference.py (double precision,
// written independently of the compiler), compared element by element with
// |actual - expected| <= 1e-5 + 1e-5 * |expected|.
//
// Rows 1-2 of O are the seed's hand computation, [[3.173, 0.270],
// [1.190, 1.763]] (the seed rounds its intermediates to 4 digits, hence 3.173
// against the exact 3.1766):
// FULL: sizes = [1, 1, 6, 2]
// FULL-NEXT: {{\[\[\[\[}}3.17{{[0-9]*}}, 0.26{{[0-9]*}}],
// FULL-NEXT: [1.18{{[0-9]*}}, 1.76{{[0-9]*}}],
//
// O, all six rows (row-major), then LSE:
// EXPECTED: 3.176591 0.2698371 1.189703 1.762871 3.715444 0.04742616
// EXPECTED: 1.427201 1.394521 3.714886 0.04765563 -0.9957421 1.997929
// EXPECTED: 10.17194 15.04859 20.04859 6.145118 15.04871 14.00104

// With `causal`, row i sees keys j <= i:
// EXPECTED-CAUSAL: 3 0 1 2 -1.999996 1.000001
// EXPECTED-CAUSAL: 1.421675 1.397517 3.71544 0.04742612 -0.9957421 1.997929
// EXPECTED-CAUSAL: 4 15 17 6.142971 15.04859 14.00104

func.func private @printMemrefF32(memref<*xf32>)

func.func @print4(%t: tensor<1x1x6x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x1x6x2xf32> to memref<1x1x6x2xf32>
  %u = memref.cast %m : memref<1x1x6x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print3(%t: tensor<1x1x6xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x1x6xf32> to memref<1x1x6xf32>
  %u = memref.cast %m : memref<1x1x6xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @inputs() -> (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>) {
  // Q, K (the rows of the seed's K^T columns) and V.
  %q = arith.constant dense<[[[[2.0, -1.0], [-2.0, 5.0], [4.0, 1.0], [0.0, 2.0], [3.0, 0.0], [1.0, -3.0]]]]> : tensor<1x1x6x2xf32>
  %k = arith.constant dense<[[[[1.0, -2.0], [0.0, 3.0], [4.0, 1.0], [-1.0, 2.0], [5.0, 0.0], [2.0, -4.0]]]]> : tensor<1x1x6x2xf32>
  %v = arith.constant dense<[[[[3.0, 0.0], [1.0, 2.0], [-2.0, 1.0], [5.0, -3.0], [4.0, 0.0], [-1.0, 2.0]]]]> : tensor<1x1x6x2xf32>
  return %q, %k, %v : tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>
}

func.func @full() {
  %q, %k, %v = call @inputs() : () -> (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>)
  %oi = tensor.empty() : tensor<1x1x6x2xf32>
  %li = tensor.empty() : tensor<1x1x6xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>)
                          outs(%oi, %li : tensor<1x1x6x2xf32>, tensor<1x1x6xf32>) scale(1.0)
                          -> tensor<1x1x6x2xf32>, tensor<1x1x6xf32>
  call @print4(%o) : (tensor<1x1x6x2xf32>) -> ()
  call @print3(%lse) : (tensor<1x1x6xf32>) -> ()
  return
}

func.func @causal() {
  %q, %k, %v = call @inputs() : () -> (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>)
  %oi = tensor.empty() : tensor<1x1x6x2xf32>
  %li = tensor.empty() : tensor<1x1x6xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>)
                          outs(%oi, %li : tensor<1x1x6x2xf32>, tensor<1x1x6xf32>) scale(1.0) causal
                          -> tensor<1x1x6x2xf32>, tensor<1x1x6xf32>
  call @print4(%o) : (tensor<1x1x6x2xf32>) -> ()
  call @print3(%lse) : (tensor<1x1x6xf32>) -> ()
  return
}
