// Programs at the edges of what --fa-to-ptx compiles: each one either gives
// a correct kernel (or none, when there is nothing to compute) or a
// diagnostic that names the problem.

// RUN: fa-opt %s -split-input-file --fa-to-ptx -verify-diagnostics | FileCheck %s
// RUN: sed -n '/^func.func @too_big_for_i32/,/^}/p' %s | sed '/expected-error/d' | fa-opt --fa-to-ptx="index-bitwidth=64" | FileCheck %s --check-prefix=WIDE

// No query rows (Nq = 0, with an LSE): the outputs are empty and returned as
// they are; no kernel is built.
// CHECK-LABEL: func.func @no_queries(
// CHECK-SAME: %{{.*}}: tensor<1x4x0x64xf16>, %{{.*}}: tensor<1x4x128x64xf16>, %{{.*}}: tensor<1x4x128x64xf16>, %[[O:.*]]: tensor<1x4x0x64xf16>, %[[L:.*]]: tensor<1x4x0xf32>)
// CHECK-NEXT: return %[[O]], %[[L]]
func.func @no_queries(%q: tensor<1x4x0x64xf16>, %k: tensor<1x4x128x64xf16>, %v: tensor<1x4x128x64xf16>,
                      %o: tensor<1x4x0x64xf16>, %l: tensor<1x4x0xf32>) -> (tensor<1x4x0x64xf16>, tensor<1x4x0xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x4x0x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>)
                        outs(%o, %l : tensor<1x4x0x64xf16>, tensor<1x4x0xf32>) causal
                        -> tensor<1x4x0x64xf16>, tensor<1x4x0xf32>
  return %0, %1 : tensor<1x4x0x64xf16>, tensor<1x4x0xf32>
}

// -----

// No keys (Nk = 0): every row sees nothing; the kernel runs no K/V block and
// writes O = 0, LSE = -inf.
// CHECK-LABEL: func.func @no_keys(
// CHECK: gpu.launch_func @no_keys_kernel_module::@no_keys_kernel
func.func @no_keys(%q: tensor<2x4x100x64xf16>, %k: tensor<2x4x0x64xf16>, %v: tensor<2x4x0x64xf16>,
                   %o: tensor<2x4x100x64xf16>, %l: tensor<2x4x100xf32>) -> (tensor<2x4x100x64xf16>, tensor<2x4x100xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<2x4x100x64xf16>, tensor<2x4x0x64xf16>, tensor<2x4x0x64xf16>)
                        outs(%o, %l : tensor<2x4x100x64xf16>, tensor<2x4x100xf32>)
                        -> tensor<2x4x100x64xf16>, tensor<2x4x100xf32>
  return %0, %1 : tensor<2x4x100x64xf16>, tensor<2x4x100xf32>
}

// -----

// 2^31 query rows x 64 exceed 32-bit offsets: the pipeline says so instead
// of building a kernel whose offsets wrap. With index-bitwidth=64 it compiles.
// WIDE-LABEL: func.func @too_big_for_i32(
// WIDE: gpu.launch_func @too_big_for_i32_kernel_module::@too_big_for_i32_kernel
func.func @too_big_for_i32(%q: tensor<1x1x33554432x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>,
                           %o: tensor<1x1x33554432x64xf16>) -> tensor<1x1x33554432x64xf16> {
  // expected-error @+1 {{fa-lower-to-gpu: tensor 'q' ('tensor<1x1x33554432x64xf16>') has 2^31 or more elements, more than 32-bit indices address; use index-bitwidth=64}}
  %0 = fa.attention ins(%q, %k, %v : tensor<1x1x33554432x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>)
                    outs(%o : tensor<1x1x33554432x64xf16>) -> tensor<1x1x33554432x64xf16>
  return %0 : tensor<1x1x33554432x64xf16>
}

// -----

// Dynamic sizes count as 1: 2^25 static rows x 64 are already too many.
func.func @too_big_partly_dynamic(%q: tensor<?x1x33554432x64xf16>, %k: tensor<?x1x?x64xf16>, %v: tensor<?x1x?x64xf16>,
                                  %o: tensor<?x1x33554432x64xf16>) -> tensor<?x1x33554432x64xf16> {
  // expected-error @+1 {{fa-lower-to-gpu: tensor 'q' ('tensor<?x1x33554432x64xf16>') has 2^31 or more elements}}
  %0 = fa.attention ins(%q, %k, %v : tensor<?x1x33554432x64xf16>, tensor<?x1x?x64xf16>, tensor<?x1x?x64xf16>)
                    outs(%o : tensor<?x1x33554432x64xf16>) -> tensor<?x1x33554432x64xf16>
  return %0 : tensor<?x1x33554432x64xf16>
}

// -----

// Just below: 2^31 - 64 elements compile with 32-bit indices.
// CHECK-LABEL: func.func @largest_for_i32(
// CHECK: gpu.launch_func
func.func @largest_for_i32(%q: tensor<1x1x33554431x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>,
                           %o: tensor<1x1x33554431x64xf16>) -> tensor<1x1x33554431x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x1x33554431x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>)
                    outs(%o : tensor<1x1x33554431x64xf16>) -> tensor<1x1x33554431x64xf16>
  return %0 : tensor<1x1x33554431x64xf16>
}

// -----

// An fa.attention in a nested module: the pipeline compiles the module it
// runs on; the message says how to run it on the nested one.
module @outer {
  module @inner {
    func.func @nested(%q: tensor<?x4x?x64xf16>, %k: tensor<?x4x?x64xf16>, %v: tensor<?x4x?x64xf16>,
                      %o: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
      // expected-error @+1 {{fa-lower-to-gpu: the loop nest is inside a nested builtin.module; run the pass (or --fa-to-ptx) on that module}}
      %0 = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>)
                        outs(%o : tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16>
      return %0 : tensor<?x4x?x64xf16>
    }
  }
}
