// RUN: rm -rf %t && not fa-opt %s --split-input-file --fa-to-ptx="output-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: FileCheck %s --input-file=%t/backward_kernel.json
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: not fa-opt %s --split-input-file --fa-to-ptx --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=L3
// RUN: not fa-opt %s --split-input-file --fa-to-ptx="block-m=128 block-n=32" --mlir-print-ir-after=fa-tile-backward -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKS

// block-m and block-n reach the backward's tiling: 32 key rows by 32 query
// columns (a quarter of block-m at d = 64) in the dK/dV nest, 128 queries
// by 32 keys in the dQ nest.
// BLOCKS-LABEL: func.func @backward
// BLOCKS: fa.row_dot {{.*}} -> tensor<128xf32>
// BLOCKS: fa.qk {{.*}} -> tensor<32x32xf32>
// BLOCKS: fa.qk {{.*}} -> tensor<128x32xf32>

// --fa-to-ptx compiles fa.attention_backward into one launch plan of three
// kernels, run in order: D = rowsum(dO * O) into a workspace the runtime
// allocates ([B, Hq, Nq] f32, in the sizes of do), then dK/dV (one thread
// block per batch, key/value head and 64-key block), then dQ (one per
// batch, query head and 64-query block). Both gradient kernels read the
// workspace; the caller passes q, k, v, o, do, lse and the three gradients.

// FILES: backward_kernel.json
// FILES-NEXT: backward_kernel.ptx
// FILES-NEXT: backward_kernel_1.ptx
// FILES-NEXT: backward_kernel_2.ptx

// CHECK: "kernels": [
// CHECK: "grid": [
// CHECK: "dim": [
// CHECK-NEXT: "do",
// CHECK: "name": "backward_kernel",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "do",
// CHECK-NEXT: "o",
// CHECK-NEXT: "delta"
// CHECK: "dim": [
// CHECK-NEXT: "k",
// CHECK: "name": "backward_kernel_1",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "do",
// CHECK-NEXT: "lse",
// CHECK-NEXT: "delta",
// CHECK-NEXT: "dk",
// CHECK-NEXT: "dv",
// CHECK-NEXT: "softmax_scale_log2",
// CHECK-NEXT: "softmax_scale"
// CHECK: "dim": [
// CHECK-NEXT: "q",
// CHECK: "name": "backward_kernel_2",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "lse",
// CHECK-NEXT: "delta",
// CHECK-NEXT: "do",
// CHECK-NEXT: "dq",
// CHECK-NEXT: "softmax_scale_log2",
// CHECK-NEXT: "softmax_scale"
// CHECK: "scalars": [
// CHECK: "name": "softmax_scale_log2",
// CHECK-NEXT: "value": 0.18033
// CHECK: "name": "softmax_scale",
// CHECK-NEXT: "value": 0.125
// CHECK: "workspaces": [
// CHECK: "dtype": "f32",
// CHECK-NEXT: "name": "delta",

// L3-LABEL: func.func @backward
// L3: fa.row_dot {{.*}} -> tensor<64xf32, #rows_w4>
// L3: fa.mask {{.*}} {transposed}
// L3-NOT: fa.async_load
// L3: fa.probs_from_lse {{.*}} {transposed}
// L3: scf.forall
// L3: fa.async_load
// L3: fa.probs_from_lse
func.func @backward(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                    %o: tensor<?x4x?x64xbf16>, %do: tensor<?x4x?x64xbf16>, %l: tensor<?x4x?xf32>,
                    %dq0: tensor<?x4x?x64xbf16>, %dk0: tensor<?x2x?x64xbf16>, %dv0: tensor<?x2x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>,
                                   tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>) causal
      -> tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
  return %0#0, %0#1, %0#2 : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
}

// -----

// A gradient's destination that is also an input: the dQ kernel would
// overwrite the query that the dK/dV kernel reads. Not one plan: an error.
// ALIAS: error: fa-lower-to-gpu: cannot make one launch plan of the kernels of this function: 'q' passes from one kernel to the next but is not a tensor.empty the runtime can allocate
func.func @aliasing(%x: tensor<1x1x16x16xf16>, %l: tensor<1x1x16xf32>)
    -> (tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>) {
  %0:3 = fa.attention_backward
      ins(%x, %x, %x, %x, %x, %l : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>,
                                   tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16xf32>)
      outs(%x, %x, %x : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>)
      -> tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
  return %0#0, %0#1, %0#2 : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
}
