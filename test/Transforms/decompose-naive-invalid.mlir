// The naive lowering builds tensors; the memref form (after bufferization) is
// an error that says so, for the pass and for the CPU pipeline that runs it,
// never an fa.attention left inside LLVM IR.

// RUN: fa-opt %s --fa-decompose-naive -split-input-file -verify-diagnostics
// RUN: not fa-opt %s --fa-lower-to-cpu -split-input-file 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: error: fa-decompose-naive needs the tensor form of fa.attention; run it before bufferization
// PIPELINE: error: fa-decompose-naive needs the tensor form of fa.attention_backward; run it before bufferization

func.func @memref_form(%q: memref<1x1x4x4xf32>, %o: memref<1x1x4x4xf32>) {
  // expected-error @+1 {{fa-decompose-naive needs the tensor form of fa.attention; run it before bufferization}}
  fa.attention ins(%q, %q, %q : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>)
               outs(%o : memref<1x1x4x4xf32>)
  return
}

// -----

// A memref-form op fails the pass even next to a tensor-form op it can lower.
func.func @tensor_form(%q: tensor<1x1x4x4xf32>, %o: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
                    outs(%o : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

func.func @memref_form(%q: memref<1x1x4x4xf32>, %o: memref<1x1x4x4xf32>) {
  // expected-error @+1 {{fa-decompose-naive needs the tensor form of fa.attention; run it before bufferization}}
  fa.attention ins(%q, %q, %q : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>)
               outs(%o : memref<1x1x4x4xf32>)
  return
}

// -----

// The same for fa.attention_backward.
func.func @backward_memref_form(%x: memref<1x1x4x4xf32>, %l: memref<1x1x4xf32>) {
  // expected-error @+1 {{fa-decompose-naive needs the tensor form of fa.attention_backward; run it before bufferization}}
  fa.attention_backward ins(%x, %x, %x, %x, %x, %l : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4xf32>)
                        outs(%x, %x, %x : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>)
  return
}
