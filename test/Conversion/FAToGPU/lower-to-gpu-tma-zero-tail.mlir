// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv \
// RUN:   | fa-opt --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s --check-prefix=RELEASED

// fa.await ... zero_from(%rows) (a K/V cache, whose rows end at each
// sequence's key count before the tensor's end, so a TMA box brings rows
// of the cache's unused part) on the GPU: once the slot's phase has
// completed, where the block is shorter than the tile (the same for every
// thread; rows clamped at 0), every thread zeroes its share of rows
// [rows, 64) of each tile of the slot, one 16-byte store per chunk (the
// swizzled tile's column
// block is 64 lines of 128 bytes: rows past `rows` are one byte range),
// then fence.proxy.async hands the zeros to the async proxy wgmma reads
// through; the await's barrier follows. A released ring's await has no
// barrier of its own: the zeroing branch meets in one.

// CHECK-LABEL: gpu.func @cache_kernel
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c64 iter_args(
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[K0]] : index
// CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %c64 : index
// CHECK: mbarrier.try_wait.parity
// CHECK: %[[FROM:.*]] = arith.maxsi %[[ROWS]], %c0 : index
// CHECK: %[[SHORT:.*]] = arith.cmpi slt, %[[FROM]], %c64 : index
// CHECK-NEXT: scf.if %[[SHORT]] {
// CHECK: %[[PAST:.*]] = arith.subi %c64, %[[FROM]] : index
// CHECK: %[[CHUNKS:.*]] = arith.muli %[[PAST]], %c8 : index
// CHECK: scf.for %{{.*}} = %thread_id_x to %[[CHUNKS]] step %c256 {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: scf.for %{{.*}} = %thread_id_x to %[[CHUNKS]] step %c256 {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier

// RELEASED-LABEL: gpu.func @cache_kernel
// RELEASED: mbarrier.try_wait.parity
// RELEASED: %[[SHORT:.*]] = arith.cmpi slt, %{{.*}}, %c64 : index
// RELEASED-NEXT: scf.if %[[SHORT]] {
// RELEASED: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// RELEASED: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
// RELEASED-NEXT: gpu.barrier
// RELEASED-NEXT: }

func.func @cache(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                 %n: tensor<?xi32>, %o: tensor<?x8x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
           key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x8x?x64xbf16>) causal -> tensor<?x8x?x64xbf16>
  return %r : tensor<?x8x?x64xbf16>
}
