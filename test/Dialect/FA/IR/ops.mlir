// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// Round trip of every form of fa.attention: the custom syntax must print back
// to itself, and the generic form must parse back into it.

// CHECK-LABEL: func @tensor_form_with_lse
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x128x64xf16>, %[[K:.*]]: tensor<2x2x128x64xf16>, %[[V:.*]]: tensor<2x2x128x64xf16>, %[[O:.*]]: tensor<2x8x128x64xf16>, %[[L:.*]]: tensor<2x8x128xf32>)
// CHECK: %[[R:.*]]:2 = fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
// CHECK-SAME: outs(%[[O]], %[[L]] : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) causal
// CHECK-SAME: -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @tensor_form_with_lse(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>,
                                %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>,
                                %l: tensor<2x8x128xf32>) -> (tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                        outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) causal
                        -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  return %0, %1 : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
}

// -----

// CHECK-LABEL: func @tensor_form_dynamic_no_lse
// CHECK: fa.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x?x128xbf16>, tensor<?x1x?x128xbf16>, tensor<?x1x?x96xbf16>)
// CHECK-SAME: outs(%{{.*}} : tensor<?x4x?x96xbf16>) scale(2.500000e-01) -> tensor<?x4x?x96xbf16>
// CHECK-NOT: causal
func.func @tensor_form_dynamic_no_lse(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x1x?x128xbf16>,
                                      %v: tensor<?x1x?x96xbf16>, %o: tensor<?x4x?x96xbf16>) -> tensor<?x4x?x96xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x1x?x128xbf16>, tensor<?x1x?x96xbf16>)
                    outs(%o : tensor<?x4x?x96xbf16>) scale(0.25) -> tensor<?x4x?x96xbf16>
  return %0 : tensor<?x4x?x96xbf16>
}

// -----

// CHECK-LABEL: func @memref_form
// CHECK-SAME: (%[[Q:.*]]: memref<1x4x?x32xf32>, %[[K:.*]]: memref<1x4x?x32xf32>, %[[V:.*]]: memref<1x4x?x32xf32>, %[[O:.*]]: memref<1x4x?x32xf32>, %[[L:.*]]: memref<1x4x?xf32>)
// CHECK: fa.attention ins(%[[Q]], %[[K]], %[[V]] : memref<1x4x?x32xf32>, memref<1x4x?x32xf32>, memref<1x4x?x32xf32>)
// CHECK-SAME: outs(%[[O]], %[[L]] : memref<1x4x?x32xf32>, memref<1x4x?xf32>) causal{{$}}
func.func @memref_form(%q: memref<1x4x?x32xf32>, %k: memref<1x4x?x32xf32>, %v: memref<1x4x?x32xf32>,
                       %o: memref<1x4x?x32xf32>, %l: memref<1x4x?xf32>) {
  fa.attention ins(%q, %k, %v : memref<1x4x?x32xf32>, memref<1x4x?x32xf32>, memref<1x4x?x32xf32>)
               outs(%o, %l : memref<1x4x?x32xf32>, memref<1x4x?xf32>) causal
  return
}

// -----

// Strided memrefs (for example a [B, N, H, D] buffer viewed as [B, H, N, D]).
// CHECK-LABEL: func @memref_form_strided
// CHECK: fa.attention ins({{.*}} : memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>, {{.*}}) outs({{.*}}) scale(1.250000e-01)
func.func @memref_form_strided(%q: memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>,
                               %k: memref<2x8x?x64xf16>, %v: memref<2x8x?x64xf16>,
                               %o: memref<2x8x?x64xf16>) {
  fa.attention ins(%q, %k, %v : memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>, memref<2x8x?x64xf16>, memref<2x8x?x64xf16>)
               outs(%o : memref<2x8x?x64xf16>) scale(0.125)
  return
}
