// XFAIL: *
// KNOWN UPSTREAM PROBLEM (MLIR 22.1.8, Debian): linalg.transpose's custom
// parser segfaults when its `permutation` array does not parse (here `2%`);
// upstream mlir-opt crashes on this file the same way, in
// linalg::TransposeOp::parse before any fa pass runs. Found by the long
// fuzz run (test/fuzz/, docs/reliability.md). This test checks that fa-opt
// reports the syntax error and exits normally; it is expected to fail until
// upstream's parser is fixed, and lit reports XPASS then.
// RUN: not fa-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid SSA name
// CHECK-NOT: Stack dump

func.func @f(%k: tensor<2x4x8xf32>, %e0: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %kt = linalg.transpose ins(%k : tensor<2x4x8xf32>) outs(%e0 : tensor<2x8x4xf32>) permutation = [0, 2%, 1]
  return %kt : tensor<2x8x4xf32>
}
