// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=4 output-dir=%t" -o /dev/null && FileCheck %s --input-file=%t/decode_paged_kernel.json
// RUN: fa-opt %s --fa-to-ptx="splits=1" --mlir-print-ir-after=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=1 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/decode_paged_kernel.ptx

// A paged decode step through --fa-to-ptx (one static query, GQA 32:8,
// d = 128, bf16, 64-key pages, 4 splits). The launch plan lists the two
// cache operands as i32 tensors the caller passes, named by how the
// kernel reads them (an element per sequence: key_lengths; per sequence
// and page: block_table); K and V are the pools [num_pages, 64, 8, 128].
// The kernel reads both with plain loads (memref.load of the parameters).

// CHECK: "kernels": [
// CHECK:   "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "key_lengths",
// CHECK-NEXT: "block_table",
// CHECK-NEXT: "partial_o",
// CHECK-NEXT: "partial_lse",
// CHECK-NEXT: "softmax_scale_log2"
// CHECK:   "params": [
// CHECK-NEXT: "partial_o",
// CHECK-NEXT: "partial_lse",
// CHECK-NEXT: "o",
// CHECK-NEXT: "lse"
// CHECK: "tensors": [
// CHECK:     "name": "k",
// CHECK-NEXT: "output": false,
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   null,
// CHECK-NEXT:   64,
// CHECK-NEXT:   8,
// CHECK-NEXT:   128
// CHECK:     "dtype": "i32",
// CHECK-NEXT: "name": "key_lengths",
// CHECK-NEXT: "output": false,
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   null
// CHECK-NEXT: ]
// CHECK:     "dtype": "i32",
// CHECK-NEXT: "name": "block_table",
// CHECK-NEXT: "output": false,
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   null,
// CHECK-NEXT:   null
// CHECK-NEXT: ]

// KERNEL: gpu.func @decode_paged_kernel(%{{.*}}, %{{.*}}, %{{.*}}, %[[LENS:.*]]: memref<?xi32, strided<[1], offset: ?>>, %[[TABLE:.*]]: memref<?x?xi32, strided<[?, 1], offset: ?>>,
// KERNEL: %[[B:.*]] = gpu.block_id  z
// KERNEL: memref.load %[[LENS]][%[[B]]] : memref<?xi32, strided<[1], offset: ?>>
// KERNEL: memref.load %[[TABLE]][%[[B]], %{{.*}}] : memref<?x?xi32, strided<[?, 1], offset: ?>>
// KERNEL: scf.for
// KERNEL: memref.load %[[TABLE]][%[[B]], %{{.*}}] : memref<?x?xi32, strided<[?, 1], offset: ?>>
// KERNEL: nvgpu.device_async_copy

// PTX: .entry decode_paged_kernel(
// PTX: ld.global.b32
// PTX: cp.async.cg.shared.global

func.func @decode_paged(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x64x8x128xbf16>, %v: tensor<?x64x8x128xbf16>,
                        %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x32x1x128xbf16>, %l: tensor<?x32x1xf32>) -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>)
               key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
               outs(%o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) causal -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %r#0, %r#1 : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}
