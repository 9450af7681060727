// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" -o /dev/null && FileCheck %s --input-file=%t/varlen_kernel.json
// RUN: %python %lit_utils/varlen_grid.py %t/varlen_kernel.json 512 512 512 512 512 | FileCheck %s --check-prefix=EQUAL
// RUN: %python %lit_utils/varlen_grid.py %t/varlen_kernel.json 2048 512 512 512 512 | FileCheck %s --check-prefix=BOUND
// RUN: %python %lit_utils/varlen_grid.py %t/varlen_kernel.json 4096 4096 256 256 256 256 256 | FileCheck %s --check-prefix=MIXED
// RUN: %python %lit_utils/varlen_grid.py %t/varlen_kernel.json 0 0 0 | FileCheck %s --check-prefix=EMPTY
// RUN: %python %lit_utils/varlen_grid.py %t/varlen_kernel.json 100 100 200 | FileCheck %s --check-prefix=SHORT
// RUN: fa-opt %s --fa-to-ptx --mlir-print-ir-after=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// REQUIRES: ptxas
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a" -o /dev/null && %ptxas -arch=sm_90a -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/varlen_kernel.ptx

// Packed sequences with FlashAttention's max_seqlen_q (GQA 32:8, d = 128,
// bf16, causal, 128-row Q blocks): the caller passes it as the plan's
// `max_seqlen_q` input; the grid's x is the fewer of the walk's
// ceil(total_q / 128) + S and p * S, p = max(ceil(max_seqlen_q / 128), 1),
// and a computed parameter tells the kernel which (p, or 0 for the walk;
// fa.varlen_block per_sequence). Evaluated as the runtime does, for 4 x
// 512 tokens (4 slots a sequence, no block without rows where the walk has
// 16 + 4), the same with a loose bound (the walk), 4096 + 5 x 256 (the
// walk: 42 + 6 against 32 x 6), two empty sequences (the walk's 2 blocks,
// which exit), and a bound below a length (1 slot a sequence: the kernel
// traps for the second, tests/gpu/test_varlen.py):
// EQUAL: grid.x=16 index0=4
// BOUND: grid.x=20 index0=0
// MIXED: grid.x=48 index0=0
// EMPTY: grid.x=2 index0=0
// SHORT: grid.x=2 index0=1

// CHECK:      "op": "minui"
// CHECK:   "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "cu_seqlens_q",
// CHECK-NEXT: "cu_seqlens_k",
// CHECK-NEXT: "o",
// CHECK-NEXT: "lse",
// CHECK-NEXT: "softmax_scale_log2",
// CHECK-NEXT: "index0"
// CHECK:      "name": "max_seqlen_q",
// CHECK-NEXT: "value": null

// In the kernel: the slots where the parameter is positive (a division,
// the sequence's four offsets loaded together, then a trap for a sequence
// longer than its slots and the exit for a slot without rows: one global
// round trip before the tiles' addresses), else the walk on the lanes, its
// exit, then the offsets.
// KERNEL: gpu.func @varlen_kernel(
// KERNEL-SAME: %[[CUQ:[a-z0-9]+]]: memref<?xi32, strided<[1], offset: ?>>, %[[CUK:[a-z0-9]+]]: memref<?xi32, strided<[1], offset: ?>>,
// KERNEL-SAME: %[[PER:[a-z0-9]+]]: index)
// KERNEL: %[[SLOTTED:.*]] = arith.cmpi ugt, %[[PER]], %{{.*}} : index
// KERNEL: scf.if %[[SLOTTED]] -> (index, index, index, index, index, index)
// KERNEL:   arith.divui %{{.*}}, %[[PER]] : index
// KERNEL:   arith.remui %{{.*}}, %[[PER]] : index
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   memref.load %[[CUK]]
// KERNEL:   memref.load %[[CUK]]
// KERNEL:   llvm.inline_asm has_side_effects {{.*}}@%p trap;
// KERNEL:   llvm.inline_asm has_side_effects {{.*}}@%p exit;
// KERNEL-NOT: memref.load
// KERNEL: } else {
// KERNEL:   scf.for
// KERNEL:     gpu.shuffle up
// KERNEL:   llvm.inline_asm has_side_effects {{.*}}@%p exit;
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   memref.load %[[CUK]]
// KERNEL:   memref.load %[[CUK]]
// KERNEL: }

// PTX: trap;
// PTX: exit;
// PTX: wgmma.mma_async

// SPILLS: 0 bytes spill stores, 0 bytes spill loads

func.func @varlen(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>,
                  %v: tensor<1x8x?x128xbf16>, %cu_q: tensor<?xi32>, %cu_k: tensor<?xi32>,
                  %max_q: index, %o: tensor<1x32x?x128xbf16>, %lse: tensor<1x32x?xf32>)
    -> (tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>,
                                         tensor<1x8x?x128xbf16>)
      cu_seqlens(%cu_q, %cu_k : tensor<?xi32>, tensor<?xi32>) max_seqlen_q(%max_q)
      outs(%o, %lse : tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>) causal
      -> tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>
  return %0, %1 : tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>
}
