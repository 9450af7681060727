// The seed document's worked example (003: N = 6, d = 2, scale 1, blocks of
// 2 x 2), written as the L1 inner loop for the first Q block (rows 1-2) with
// the tile ops, run on the CPU. Prints the online-softmax state after the
// loop and the normalised output, and checks them against the seed's
// hand computation, recomputed exactly in double precision:
//
//   m (natural log) = [10, 15]
//   l               = [1 + e^-2 + e^-3 + e^-6 + e^-13 + e^-14,
//                      1 + e^-3 + e^-18 + e^-25 + e^-27 + e^-39]
//                   ~ [1.1876, 1.0498]
//   acc (unnormalised O) ~ [[3.7725, 0.3205], [1.2489, 1.8506]]
//     (the seed rounds intermediates and prints 3.768 for 3.7725)
//   O = acc / l     ~ [[3.1766, 0.2698], [1.1897, 1.7629]]
//
// Tolerance: |actual - expected| <= 1e-5 + 1e-5 * |expected|.
//
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e first_q_block -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --atol 1e-5 --rtol 1e-5
//
// The same example through --fa-tile-q-outer with 2 x 2 blocks (three Q
// blocks, three K/V blocks each) gives all six rows of O and the LSE:
// RUN: fa-opt %S/../Naive/seed_example.mlir --fa-tile-q-outer="block-m=2 block-n=2" --fa-lower-to-cpu \
// RUN:   | mlir-runner -e full -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %S/../Naive/seed_example.mlir --atol 1e-5 --rtol 1e-5
// RUN: fa-opt %S/../Naive/seed_example.mlir --fa-tile-q-outer="block-m=2 block-n=2" --fa-causal-block-skip --fa-lower-to-cpu \
// RUN:   | mlir-runner -e causal -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %S/../Naive/seed_example.mlir --tag EXPECTED-CAUSAL --atol 1e-5 --rtol 1e-5

// m (natural log), l, acc, O:
// EXPECTED: 10 15
// EXPECTED: 1.187604 1.049787
// EXPECTED: 3.772533 0.3204597 1.248935 1.850639
// EXPECTED: 3.176591 0.2698371 1.189703 1.762871

func.func private @printMemrefF32(memref<*xf32>)

func.func @print1(%t: tensor<2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2xf32> to memref<2xf32>
  %u = memref.cast %m : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2(%t: tensor<2x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @first_q_block() {
  %q_i = arith.constant dense<[[2.0, -1.0], [-2.0, 5.0]]> : tensor<2x2xf32>
  %k = arith.constant dense<[[1.0, -2.0], [0.0, 3.0], [4.0, 1.0], [-1.0, 2.0], [5.0, 0.0], [2.0, -4.0]]> : tensor<6x2xf32>
  %v = arith.constant dense<[[3.0, 0.0], [1.0, 2.0], [-2.0, 1.0], [5.0, -3.0], [4.0, 0.0], [-1.0, 2.0]]> : tensor<6x2xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  // scale 1, times log2(e): the softmax works in the log2 domain.
  %scale = arith.constant 1.44269504 : f32
  // m = -inf, l = 0, acc = 0.
  %m0 = arith.constant dense<0xFF800000> : tensor<2xf32>
  %l0 = arith.constant dense<0.0> : tensor<2xf32>
  %acc0 = arith.constant dense<0.0> : tensor<2x2xf32>
  %m, %l, %acc = scf.for %k0 = %c0 to %c6 step %c2 iter_args(%m_i = %m0, %l_i = %l0, %acc_i = %acc0)
      -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) {
    %k_j = tensor.extract_slice %k[%k0, 0] [2, 2] [1, 1] : tensor<6x2xf32> to tensor<2x2xf32>
    %v_j = tensor.extract_slice %v[%k0, 0] [2, 2] [1, 1] : tensor<6x2xf32> to tensor<2x2xf32>
    %s = fa.qk %q_i, %k_j : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
    %p, %m_new, %l_new, %alpha = fa.online_softmax %s, %m_i, %l_i scale(%scale) : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>
    %acc_r = fa.rescale %acc_i, %alpha : tensor<2x2xf32>, tensor<2xf32>
    %acc_new = fa.pv %p, %v_j, %acc_r : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>
  }
  %o, %lse = fa.finalize %acc, %m, %l : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<2x2xf32>
  %ln2 = arith.constant dense<0.693147182> : tensor<2xf32>
  %m_natural = arith.mulf %m, %ln2 : tensor<2xf32>
  call @print1(%m_natural) : (tensor<2xf32>) -> ()
  call @print1(%l) : (tensor<2xf32>) -> ()
  call @print2(%acc) : (tensor<2x2xf32>) -> ()
  call @print2(%o) : (tensor<2x2xf32>) -> ()
  return
}
