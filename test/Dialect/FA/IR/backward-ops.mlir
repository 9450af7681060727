// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// Round trip of fa.attention_backward: the custom syntax prints back to
// itself, and the generic form parses back into it.

// GQA 8:2, causal: dK and dV are shaped like K and V.
// CHECK-LABEL: func @tensor_form_gqa_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x128x64xf16>, %[[K:.*]]: tensor<2x2x128x64xf16>, %[[V:.*]]: tensor<2x2x128x64xf16>, %[[O:.*]]: tensor<2x8x128x64xf16>, %[[DO:.*]]: tensor<2x8x128x64xf16>, %[[L:.*]]: tensor<2x8x128xf32>, %[[DQ:.*]]: tensor<2x8x128x64xf16>, %[[DK:.*]]: tensor<2x2x128x64xf16>, %[[DV:.*]]: tensor<2x2x128x64xf16>)
// CHECK: %[[R:.*]]:3 = fa.attention_backward ins(%[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[L]] : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128xf32>)
// CHECK-SAME: outs(%[[DQ]], %[[DK]], %[[DV]] : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) causal
// CHECK-SAME: -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @tensor_form_gqa_causal(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>,
                                  %o: tensor<2x8x128x64xf16>, %do: tensor<2x8x128x64xf16>, %l: tensor<2x8x128xf32>,
                                  %dq: tensor<2x8x128x64xf16>, %dk: tensor<2x2x128x64xf16>, %dv: tensor<2x2x128x64xf16>)
    -> (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>,
                                    tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128xf32>)
      outs(%dq, %dk, %dv : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) causal
      -> tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
  return %0#0, %0#1, %0#2 : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
}

// -----

// Dynamic B and N, Nq != Nk, Dv != D, every optional attribute in the order
// of the syntax.
// CHECK-LABEL: func @dynamic_everything
// CHECK: fa.attention_backward ins({{.*}} : tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>, tensor<?x4x?x32xbf16>, tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>)
// CHECK-SAME: outs({{.*}} : tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>) scale(1.250000e-01) causal window(16, -1) softcap(3.000000e+01) -> tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>
func.func @dynamic_everything(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x1x?x64xbf16>, %v: tensor<?x1x?x32xbf16>,
                              %o: tensor<?x4x?x32xbf16>, %do: tensor<?x4x?x32xbf16>, %l: tensor<?x4x?xf32>,
                              %dq: tensor<?x4x?x64xbf16>, %dk: tensor<?x1x?x64xbf16>, %dv: tensor<?x1x?x32xbf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>,
                                    tensor<?x4x?x32xbf16>, tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>)
      outs(%dq, %dk, %dv : tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>)
      scale(0.125) causal window(16, -1) softcap(30.0)
      -> tensor<?x4x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x32xbf16>
  return
}

// -----

// The memref form writes its destinations and returns nothing.
// CHECK-LABEL: func @memref_form
// CHECK-SAME: (%[[Q:.*]]: memref<1x2x?x32xf32>, %{{.*}}: memref<1x2x?x32xf32>, %{{.*}}: memref<1x2x?x32xf32>, %{{.*}}: memref<1x2x?x32xf32>, %{{.*}}: memref<1x2x?x32xf32>, %{{.*}}: memref<1x2x?xf32>, %[[DQ:.*]]: memref<1x2x?x32xf32>, %[[DK:.*]]: memref<1x2x?x32xf32>, %[[DV:.*]]: memref<1x2x?x32xf32>)
// CHECK: fa.attention_backward ins(%[[Q]], {{.*}}) outs(%[[DQ]], %[[DK]], %[[DV]] : memref<1x2x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?x32xf32>) window(64, 0){{$}}
func.func @memref_form(%q: memref<1x2x?x32xf32>, %k: memref<1x2x?x32xf32>, %v: memref<1x2x?x32xf32>,
                       %o: memref<1x2x?x32xf32>, %do: memref<1x2x?x32xf32>, %l: memref<1x2x?xf32>,
                       %dq: memref<1x2x?x32xf32>, %dk: memref<1x2x?x32xf32>, %dv: memref<1x2x?x32xf32>) {
  fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : memref<1x2x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?x32xf32>,
                                    memref<1x2x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?xf32>)
      outs(%dq, %dk, %dv : memref<1x2x?x32xf32>, memref<1x2x?x32xf32>, memref<1x2x?x32xf32>) window(64, 0)
  return
}
