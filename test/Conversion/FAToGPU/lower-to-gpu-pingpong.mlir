// --fa-lower-to-gpu on fa.mma_turn (--fa-pingpong's turns, d = 128 causal
// bf16: 128 x 64 tiles on 8 warps, two warpgroups; release=mbarrier). The
// warpgroup is thread x / 128; each turn is one named barrier per
// warpgroup, met by the two warpgroups of a hand-over (256 threads), with
// its id an immediate (one branch per warpgroup):
//   open   warpgroup 1 arrives on barrier 1 (warpgroup 0's first turn);
//   take   warpgroup 0 waits on barrier 1, warpgroup 1 on barrier 2;
//   pass   warpgroup 0 arrives on barrier 2, warpgroup 1 on barrier 1
//          (bar.arrive as inline PTX: MLIR 22's nvvm.barrier.arrive is
//          expanded only by --convert-nvvm-to-llvm);
//   close  warpgroup 0 waits on barrier 1 (the last pass of warpgroup 1).
// The loops' TMA loads (issuer(128)) are issued, and their slots' releases
// waited for, by thread 128; the loads before the loops by thread 0.

// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier --fa-pingpong \
// RUN:   | fa-opt --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s

// A turn count that is not the block's warpgroups, and an issuer outside
// the block, made by editing the IR, are diagnostics.
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier --fa-pingpong \
// RUN:   | sed -e 's/fa.mma_turn take of 2/fa.mma_turn take of 4/' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: 'fa.mma_turn' op fa-lower-to-gpu: turns between 4 warpgroups need a block of 512 threads, got 256
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier --fa-pingpong \
// RUN:   | sed -e 's/issuer(128)/issuer(256)/' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=ISSUER
// ISSUER: error: 'fa.async_load' op fa-lower-to-gpu: issuer(256) is not a thread of the block (256 threads)

// CHECK-LABEL: gpu.func @causal_kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0 : index
//     Before the loops, thread 0 copies (the first K/V blocks).
// CHECK: scf.if %[[FIRST]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[TID32:.*]] = arith.index_castui %[[TID]] : index to i32
// CHECK-NEXT: %[[WG:.*]] = arith.divui %[[TID32]], %c128_i32 : i32
// CHECK-NEXT: %[[WG1:.*]] = arith.cmpi eq, %[[WG]], %c1_i32 : i32
// CHECK-NEXT: scf.if %[[WG1]] {
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 1, 256;", ""
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
//     In the loop: thread 128 waits for the slot's release and copies.
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %c128 : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK: mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[WG0:.*]] = arith.cmpi eq, %[[WG]], %c0_i32 : i32
// CHECK-NEXT: scf.if %[[WG0]] {
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[WG1]] {
// CHECK-NEXT: nvvm.barrier id = %c2_i32 number_of_threads = %c256_i32
// CHECK-NEXT: }
// CHECK: wgmma.mma_async
// CHECK: wgmma.mma_async
// CHECK: scf.if %[[WG0]] {
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 2, 256;", ""
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[WG1]] {
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 1, 256;", ""
// CHECK-NEXT: }
// CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
//     The masked loop takes and passes the same way.
// CHECK: scf.for
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: nvvm.barrier id = %c2_i32 number_of_threads = %c256_i32
// CHECK: "bar.arrive 2, 256;"
// CHECK: "bar.arrive 1, 256;"
// CHECK: scf.yield
//     After the loops: close.
// CHECK: %[[AFTER0:.*]] = arith.cmpi eq, %[[WG]], %c0_i32 : i32
// CHECK-NEXT: scf.if %[[AFTER0]] {
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: }
// CHECK-NOT: bar.arrive
// CHECK-NOT: nvvm.barrier id
// CHECK: gpu.return
func.func @causal(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>,
                  %v: tensor<?x16x?x128xbf16>, %o: tensor<?x16x?x128xbf16>,
                  %l: tensor<?x16x?xf32>) -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>)
                        outs(%o, %l : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) causal
                        -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
