// --fa-to-ptx has no kernels for fa.attention_backward: it says so instead
// of passing the op through with no kernel and no error.
// RUN: not fa-opt %s --fa-to-ptx 2>&1 | FileCheck %s
// RUN: fa-opt %s --fa-reject-backward-on-gpu -verify-diagnostics

// CHECK: error: fa.attention_backward has no GPU lowering yet (only the CPU path: --fa-lower-to-cpu, optionally after --fa-tile-kv-outer; docs/backward.md)
func.func @backward(%x: tensor<1x1x16x16xf16>, %l: tensor<1x1x16xf32>)
    -> (tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>) {
  // expected-error @+1 {{fa.attention_backward has no GPU lowering yet}}
  %0:3 = fa.attention_backward
      ins(%x, %x, %x, %x, %x, %l : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>,
                                   tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16xf32>)
      outs(%x, %x, %x : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>)
      -> tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
  return %0#0, %0#1, %0#2 : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
}
