// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" -o /dev/null && FileCheck %s --input-file=%t/varlen_kernel.json
// RUN: fa-opt %s --fa-to-ptx --mlir-print-ir-after=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// REQUIRES: ptxas
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && sed -e 's/128x/64x/g; s/x128x/x64x/g' %s | fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && sed -e 's/x128x/x64x/g; s/) causal -> /) -> /' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: rm -rf %t && sed -e 's/) causal -> /) -> /' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: fa-opt %s --fa-to-ptx="chip=sm_90" --mlir-print-ir-after=fa-stage-block-scalars -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGED
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90 stage-block-scalars=off" -o /dev/null && %ptxas -arch=sm_90 -v %t/varlen_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLS

// Packed sequences (cu_seqlens) through --fa-to-ptx (GQA 32:8, d = 128,
// bf16, causal): one kernel; the grid's x is ceil(total_q / 128) + S, the
// sequences' Q blocks in order (S = entries of cu_seqlens_q - 1), y the
// query heads, z the batch of one; the caller passes both offset arrays
// (i32), named by how the kernel reads them. The kernel walks the
// sequences for its Q block (fa.varlen_block: 32 a round on a warp's
// lanes) and reads the offsets with plain loads. No spills (d = 64 and 128,
// sm_80 and sm_90, causal or not). On sm_90 the causal kernel has the
// dense kernel's tiles (128 x 64, 100352 bytes of swizzled tiles) and
// keeps its sequence's offsets and lengths in shared memory across the
// K/V loops (stage-block-scalars=auto, the default:
// --fa-stage-block-scalars, a workgroup buffer written before the loops,
// read where used); the other kernels, and this one with
// stage-block-scalars=off, take the table's window tiles (128 x 32) with
// the bounds in registers.

// CHECK: "grid": [
// CHECK-NEXT:  {
// CHECK-NEXT:    "args": [
// CHECK-NEXT:      {
// CHECK-NEXT:        "args": [
// CHECK-NEXT:          {
// CHECK-NEXT:            "dim": [
// CHECK-NEXT:              "q",
// CHECK-NEXT:              2
// CHECK:               128
// CHECK:             "op": "ceildivui"
// CHECK:                 "cu_seqlens_q",
// CHECK-NEXT:            0
// CHECK:             "op": "sub"
// CHECK:         "op": "add"
// CHECK:       32,
// CHECK-NEXT:  1
// CHECK:   "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "cu_seqlens_q",
// CHECK-NEXT: "cu_seqlens_k",
// CHECK-NEXT: "o",
// CHECK-NEXT: "lse",
// CHECK:     "dtype": "i32",
// CHECK-NEXT: "name": "cu_seqlens_q",

// KERNEL: gpu.func @varlen_kernel(%{{.*}}, %{{.*}}, %{{.*}}, %[[CUQ:.*]]: memref<?xi32, strided<[1], offset: ?>>, %[[CUK:.*]]: memref<?xi32, strided<[1], offset: ?>>,
// fa.varlen_block: 32 sequences a round on the lanes of a warp: each lane
// counts one sequence's Q blocks, a scan over the lanes gives their ends, a
// ballot of the ends at or before the block and its popcount the lane that
// holds it; that lane's first block and the round's total by shuffles.
// KERNEL: %[[DIM:.*]] = memref.dim %[[CUQ]]
// KERNEL: %[[NSEQ:.*]] = arith.subi %[[DIM]]
// KERNEL: %[[TID:.*]] = gpu.thread_id  x
// KERNEL: %[[LANE:.*]] = arith.remui %[[TID]], %{{.*}} : index
// KERNEL: %[[BLOCK:.*]] = arith.index_cast %block_id_x : index to i32
// KERNEL: %[[WALK:.*]]:4 = scf.for %[[BASE:.*]] = %{{.*}} to %[[NSEQ]] step %{{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %block_id_x, %[[FOUND:.*]] = %false) -> (i32, index, index, i1) {
// KERNEL:   %[[SEQ:.*]] = arith.addi %[[BASE]], %[[LANE]] : index
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   memref.load %[[CUQ]]
// KERNEL:   %[[BLOCKS:.*]] = arith.ceildivui
// KERNEL:   gpu.shuffle  up %[[BLOCKS]], %{{.*}}, %{{.*}} : i32
// KERNEL-COUNT-4: gpu.shuffle  up
// KERNEL:   %[[END:.*]] = arith.addi %[[FIRST]], %[[INCL:.*]] : i32
// KERNEL:   %[[BEFORE:.*]] = arith.cmpi ule, %[[END]], %[[BLOCK]] : i32
// KERNEL:   %[[MASK:.*]] = nvvm.vote.sync  ballot %{{.*}}, %[[BEFORE]] -> i32
// KERNEL:   %[[WINNER:.*]] = llvm.intr.ctpop(%[[MASK]]) : (i32) -> i32
// KERNEL:   %[[IN:.*]] = arith.andi
// KERNEL:   gpu.shuffle  idx
// KERNEL:   gpu.shuffle  idx %[[INCL]]
// KERNEL:   %[[NOW:.*]] = arith.ori %[[FOUND]], %[[IN]] : i1
// KERNEL:   scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[NOW]] : i32, index, index, i1
// KERNEL-NOT: fa.varlen_walk
// A block that no sequence holds has no row: its threads exit right after
// the walk (whose loads are the round trips), before the loads of the found
// sequence's four offsets and everything else.
// KERNEL: %[[FLAG:.*]] = arith.extui %[[WALK]]#3 : i1 to i32
// KERNEL-NEXT: llvm.inline_asm has_side_effects "{\0A.reg .pred %p;\0Asetp.eq.u32 %p, $0, 0;\0A@%p exit;\0A}", "r" %[[FLAG]] : (i32) -> ()
// KERNEL: memref.load %[[CUQ]][%[[WALK]]#1]
// KERNEL: memref.load %[[CUQ]]
// KERNEL: memref.load %[[CUK]][%[[WALK]]#1]
// KERNEL: memref.load %[[CUK]]
// KERNEL-NOT: memref.load %[[CUQ]]
// KERNEL-NOT: memref.load %[[CUK]]
// KERNEL: gpu.return

// SPILLS: 0 bytes spill stores, 0 bytes spill loads

func.func @varlen(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>,
                  %cq: tensor<?xi32>, %ck: tensor<?xi32>, %o: tensor<1x32x?x128xbf16>, %l: tensor<1x32x?xf32>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>)
               cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)
               outs(%o, %l : tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>) causal -> tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>
  return %r#0, %r#1 : tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>
}

// STAGED: gpu.launch_func @varlen_kernel_module::@varlen_kernel
// STAGED-SAME: dynamic_shared_memory_size %c100352_i32
// STAGED: gpu.func @varlen_kernel(
// STAGED-SAME: workgroup(%[[SLOTS:.*]] : memref<{{[0-9]+}}xindex, #gpu.address_space<workgroup>>)
// STAGED-SAME: kernel attributes {fa.stage_block_scalars
// STAGED: scf.if
// STAGED: memref.store %{{.*}}, %[[SLOTS]]
// STAGED: gpu.barrier
// STAGED: scf.for
// STAGED: memref.load %[[SLOTS]]
