// --fa-lower-to-gpu on fa.async_load {tma} (the swizzled #fa.wgmma K/V
// tiles of --fa-pipeline-kv's default copy=auto), for a causal d = 64
// bf16 nest: 128 x 64 tiles on 8 warps, a 3-slot K/V ring (2 stages, one
// more for the deferred P V).
//
//   host    one tensor map per source (nvgpu.tma.create.descriptor of its
//           buffer: box [1, 1, 64 rows, 64 columns], 128-byte swizzle, L2
//           promotion 128 B, zero fill), passed as !llvm.ptr parameters
//           after the others, and named in the plan (tensor_maps, params);
//   kernel  the parameters counted in fa.tensor_map_params (made by-value
//           __grid_constant__ ones by --fa-tensor-map-params); one mbarrier
//           per slot after every other shared byte, initialised by thread
//           0; a load: thread 0 fences the proxies, arrives on the slot's
//           mbarrier expecting the K and V bytes (0 when the block is past
//           the end), and issues one cp.async.bulk.tensor per tile and
//           64-column block (coordinates column, row, head, batch); an
//           await: every thread waits for the slot's phase.
//   release (--fa-pipeline-kv{release=mbarrier}) a second mbarrier
//           per slot, expecting one arrival per warp (8); before a load,
//           thread 0 waits for the slot's release phase (parity 1 for a
//           slot's first fill, which passes at once); fa.release: the
//           warp's lanes meet, lane 0 arrives. No bar.sync in the loop.
//   BARRIER (release=barrier, the default) the await's bar.sync instead,
//           and no release mbarriers.

// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv \
// RUN:   | fa-opt --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s --check-prefix=BARRIER

// A loop-carried future's await must name the phase exactly when its loads
// are TMA copies (the verifier cannot see through the iter_args): each
// mismatch, made by editing the pipelined IR, is a diagnostic.
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv \
// RUN:   | sed -e 's/ phase(%[0-9a-z_]*)//' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=NO-PHASE
// NO-PHASE: error: 'fa.await' op fa-lower-to-gpu: awaits tma loads without a phase(%p)
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=copy=cp-async \
// RUN:   | sed -e 's/\(fa.await .*\) pending(0) :/\1 pending(0) phase(%c0) :/' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=STRAY-PHASE
// STRAY-PHASE: error: 'fa.await' op fa-lower-to-gpu: has a phase but awaits cp.async loads
// The loads of one ring complete one way: the loop's loads made cp.async
// while the first one stays TMA is a diagnostic.
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv \
// RUN:   | sed -e '0,/) tma :/! s/) tma :/) :/' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: error: 'fa.async_load' op fa-lower-to-gpu: loads into the same ring of shared tiles must all be tma copies or all cp.async
// Releases go with loads that wait for them, and all loads of a ring wait
// or none: the loop's loads stripped of after_release, then every load.
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | sed -e '0,/ after_release(/! s/ after_release(%[0-9a-z_]*)//' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=MIXED-RELEASE
// MIXED-RELEASE: error: 'fa.async_load' op fa-lower-to-gpu: loads into the same ring of shared tiles must all wait for releases (after_release) or none
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | sed -e 's/ after_release(%[0-9a-z_]*)//' | not fa-opt --fa-lower-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=NO-RELEASE
// NO-RELEASE: error: 'fa.release' op fa-lower-to-gpu: releases a future whose loads do not wait for releases

// CHECK-LABEL: func.func @dense
// CHECK: %[[KD:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c64, %c64] : memref<*xbf16> -> <tensor = memref<1x1x64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
// CHECK: %[[KP:.*]] = builtin.unrealized_conversion_cast %[[KD]] : {{.*}} to !llvm.ptr
// CHECK: %[[VD:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c64, %c64] : memref<*xbf16> -> <tensor = memref<1x1x64x64xbf16, 3>
// CHECK: %[[VP:.*]] = builtin.unrealized_conversion_cast %[[VD]] : {{.*}} to !llvm.ptr
// CHECK: gpu.launch_func @dense_kernel_module::@dense_kernel {{.*}} dynamic_shared_memory_size %c67632_i32 args({{.*}}, %[[KP]] : !llvm.ptr, %[[VP]] : !llvm.ptr)
// CHECK-SAME: params = ["q", "k", "v", "o", "lse", "softmax_scale_log2", "k_map", "v_map"]
// CHECK-SAME: tensor_maps = [{box = [1, 1, 64, 64], l2_promotion = 128 : i64, name = "k_map", swizzle = 128 : i64, tensor = "k"}, {box = [1, 1, 64, 64], l2_promotion = 128 : i64, name = "v_map", swizzle = 128 : i64, tensor = "v"}]

// CHECK: gpu.func @dense_kernel({{.*}}, %[[KMAP:.*]]: !llvm.ptr {llvm.align = 64 : i64}, %[[VMAP:.*]]: !llvm.ptr {llvm.align = 64 : i64}) kernel attributes {{{.*}}fa.tensor_map_params = 2
//     Three mbarriers at 67584 (after the rings), one arrival each, then
//     the three release mbarriers at 67608, one arrival per warp.
// CHECK: scf.if
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32 : !llvm.ptr<3>, i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: gpu.barrier
//     The first K/V block (slot 0): its release phase 1 passes at once;
//     2 x 64 x 64 x 2 = 16384 bytes expected.
// CHECK: %[[IN:.*]] = arith.cmpi sgt
// CHECK: scf.if %[[LEADER:.*]] {
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: arith.addi %[[BASE]], %c67608 : index
// CHECK: %[[REL0:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Afa_wait:\0Ambarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A@!p bra.uni fa_wait;\0A}", "r,r" %[[REL0]], %c1_i32
// CHECK: %[[B0:.*]] = arith.addi %[[BASE]], %c67584 : index
// CHECK: %[[BAR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[TX:.*]] = arith.select %[[IN]], %c16384_i32, %c0_i32 : i32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[TX]] : !llvm.ptr<3>, i32
// CHECK: scf.if %[[IN]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]], %[[BAR]], box[%c0_i32, %c0_i32, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]], %[[BAR]], box[%c0_i32, %c0_i32, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: }
// CHECK: }
//     The K/V loop: wait for the slot's phase (no barrier); thread 0 waits
//     for the next slot's release, (fill + 1) mod 2, and loads; at the
//     end, from the second iteration, each warp releases the previous
//     block's slot (the carried future).
// CHECK: scf.for %[[K0:.*]] = %c0 to {{.*}} iter_args({{.*}}, %[[PREV:.*]] = %c0) ->
// CHECK: %[[PHASE:.*]] = arith.remui %{{.*}}, %c2 : index
// CHECK: %[[SLOTBAR:.*]] = arith.muli %{{.*}}, %c8 : index
// CHECK: arith.addi %[[SLOTBAR]], %c67584 : index
// CHECK: %[[P32:.*]] = arith.index_cast %[[PHASE]] : index to i32
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Afa_wait:\0Ambarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A@!p bra.uni fa_wait;\0A}", "r,r" %[[ADDR]], %[[P32]]
// CHECK-NOT: gpu.barrier
// CHECK: %[[FILL:.*]] = arith.divui %{{.*}}, %c3 : index
// CHECK: %[[BEFORE:.*]] = arith.addi %[[FILL]], %c1 : index
// CHECK: %[[RPHASE:.*]] = arith.remui %[[BEFORE]], %c2 : index
// CHECK: scf.if %[[LEADER]] {
// CHECK: arith.addi %{{.*}}, %c67608 : index
// CHECK: %[[RP32:.*]] = arith.index_cast %[[RPHASE]] : index to i32
// CHECK: %[[RADDR:.*]] = llvm.ptrtoint
// CHECK: llvm.inline_asm has_side_effects "{{.*}}try_wait.parity{{.*}}", "r,r" %[[RADDR]], %[[RP32]]
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]]
// CHECK-NOT: gpu.barrier
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[K0]], %c0 : index
// CHECK: scf.if %[[LATER]] {
// CHECK-NEXT: nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK-NEXT: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0_i32 : i32
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: %[[PREVBAR:.*]] = arith.muli %[[PREV]], %c8 : index
// CHECK-NEXT: arith.addi %[[PREVBAR]], %c67608 : index
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: scf.yield

// BARRIER-LABEL: func.func @dense
// BARRIER: dynamic_shared_memory_size %c67608_i32
// BARRIER: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// BARRIER-NOT: %c8_i32 : !llvm.ptr<3>, i32
// BARRIER: fence.mbarrier_init.release.cluster;
// BARRIER-NOT: %c1_i32 : (i32, i32) -> ()
// BARRIER: scf.for
// BARRIER: llvm.inline_asm has_side_effects "{{.*}}try_wait.parity{{.*}}", "r,r"
// BARRIER-NEXT: gpu.barrier
// BARRIER-NOT: nvvm.mbarrier.arrive %
// BARRIER: nvvm.mbarrier.arrive.expect_tx
// BARRIER-NOT: nvvm.mbarrier.arrive %
// BARRIER: scf.yield
func.func @dense(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                 %o: tensor<?x4x?x64xbf16>, %lse: tensor<?x4x?xf32>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
               outs(%o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) causal -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
