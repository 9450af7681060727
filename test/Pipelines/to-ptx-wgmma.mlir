// --fa-to-ptx{chip=sm_90a atom=wgmma}: the forward kernel on the #fa.wgmma
// atom through the same passes. The PTX targets sm_90a and multiplies with
// wgmma.mma_async (S = Q K^T m64n64k16 over the 64-key block, O += P V
// m64n64k16 over head dim 64), one warpgroup per 64 Q rows (8 warps, 256
// threads, for the table's 128 x 64 tiles); the merge and the backward stay
// on #fa.mma_sync. The options are checked first.

// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma" -o /dev/null && FileCheck %s --input-file=%t/attention_kernel.ptx && FileCheck %s --check-prefix=PLAN --input-file=%t/attention_kernel.json
// CHECK: .target sm_90a
// CHECK: .entry attention_kernel
// CHECK: cp.async.cg.shared.global
// CHECK: fence.proxy.async.shared::cta;
//     In each K/V loop (--fa-pipeline-mma, on by default for this atom):
//     S_j issued, P_{j-1} V_{j-1} issued, wait for all but one group (S_j
//     done), the softmax, wait for the last group before the rescale.
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: }
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: ex2.approx
// CHECK: wgmma.wait_group.sync.aligned 0;
//     The masked loop, the same way.
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
//     After the loops: the last block's P V, waited for at once.
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: mma.sync.aligned
// PLAN: "chip": "sm_90a"
// PLAN: "block": [
// PLAN-NEXT: 256,

// mma-pipeline=off: each product waited for in its own asm, as before.
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma mma-pipeline=off" -o /dev/null && FileCheck %s --check-prefix=OFF --input-file=%t/attention_kernel.ptx
// OFF: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// OFF: wgmma.commit_group.sync.aligned;
// OFF-NEXT: wgmma.wait_group.sync.aligned 0;
// OFF-NOT: wgmma.wait_group.sync.aligned 1;
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=wgmma mma-pipeline=yes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-PIPELINE
// BAD-PIPELINE: error: fa-to-ptx: option mma-pipeline must be auto, on or off, got 'yes'

// By default (swizzle-shared=auto, as =on): K and V in wgmma's
// 128-byte-swizzled layout (at L3 #shared_swz_wgmma), the dynamic shared
// memory aligned to 1024 bytes, and the descriptors' layout type 1 (bit
// 62): K-major K with SBO = 1024 ((1 << 16) | (64 << 32) | (1 << 62)),
// MN-major V with LBO = 64 rows of 128 bytes ((512 << 16) | (64 << 32) |
// (1 << 62)).
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma" -o /dev/null && FileCheck %s --check-prefix=SWZ --input-file=%t/attention_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma swizzle-shared=on" -o /dev/null && FileCheck %s --check-prefix=SWZ --input-file=%t/attention_kernel.ptx
// SWZ: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// SWZ: or.b64 {{.*}}, 4611686293305360384;
// SWZ: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// SWZ: or.b64 {{.*}}, 4611686293338849280;
// SWZ: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// By default (copy=auto) the swizzled K/V tiles come by TMA, with two 128-byte
// by-value tensor-map parameters (K, V) after the others, three mbarriers
// (one per slot) after the shared tiles, one cp.async.bulk.tensor per tile
// and block, waits on the slot's phase; Q (core matrices) by cp.async. The
// plan names the maps. copy=cp-async keeps cp.async for K and V too.
// With release=mbarrier (TMA) three more mbarriers free the slots: in the
// K/V loop no bar.sync, each warp arrives on the slot's release mbarrier
// (bar.warp.sync, then lane 0) and the issuing thread waits for it before
// the next copy into the slot; release=barrier, and the default auto for
// these 64-key blocks (REL-BARRIER), keep the await's bar.sync and have no
// release mbarriers.
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma release=mbarrier" -o /dev/null && FileCheck %s --check-prefix=TMA --input-file=%t/attention_kernel.ptx && FileCheck %s --check-prefix=TMA-PLAN --input-file=%t/attention_kernel.json
// TMA: .param .align 64 .b8 attention_kernel_param_[[KMAP:[0-9]+]][128],
// TMA-NEXT: .param .align 64 .b8 attention_kernel_param_[[VMAP:[0-9]+]][128]
// TMA-NEXT: )
// TMA: cvta.param.u64 {{.*}}
// TMA: mbarrier.init.shared.b64 [__dynamic_shmem__0+67584], %r[[ONE:[0-9]+]];
// TMA-NEXT: mbarrier.init.shared.b64 [__dynamic_shmem__0+67592], %r[[ONE]];
// TMA-NEXT: mbarrier.init.shared.b64 [__dynamic_shmem__0+67600], %r[[ONE]];
// TMA: mbarrier.init.shared.b64 [__dynamic_shmem__0+67608], %r[[WARPS:[0-9]+]];
// TMA-NEXT: mbarrier.init.shared.b64 [__dynamic_shmem__0+67616], %r[[WARPS]];
// TMA-NEXT: mbarrier.init.shared.b64 [__dynamic_shmem__0+67624], %r[[WARPS]];
// TMA: fence.mbarrier_init.release.cluster;
// TMA: cp.async.cg.shared.global.L2::128B
// TMA: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
// TMA: fence.proxy.async.shared::cta;
// TMA: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [__dynamic_shmem__0+67584], %r{{[0-9]+}};
// TMA: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [__dynamic_shmem__0+67584];
//     The Q tile's wait (cp.async) ends with the block's barrier; in the
//     loop, the slot's phase, the next copy after its release, the
//     matmuls, the release, and no barrier.
// TMA: bar.sync 0;
// TMA: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
// TMA-NEXT: @!p bra.uni fa_wait;
// TMA-NOT: bar.sync
// TMA: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
// TMA-NOT: bar.sync
// TMA: mbarrier.arrive.expect_tx.shared.b64
// TMA-NOT: bar.sync
// TMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// TMA-NOT: bar.sync
// TMA: bar.warp.sync -1;
// TMA-NOT: bar.sync
// TMA: mbarrier.arrive.shared.b64 {{.*}}, [%r{{[0-9]+}}];
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma" -o /dev/null && FileCheck %s --check-prefix=REL-BARRIER --input-file=%t/attention_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma release=barrier" -o /dev/null && FileCheck %s --check-prefix=REL-BARRIER --input-file=%t/attention_kernel.ptx
// REL-BARRIER: mbarrier.init.shared.b64 [__dynamic_shmem__0+67600]
// REL-BARRIER-NOT: mbarrier.init
// REL-BARRIER: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
// REL-BARRIER-NEXT: @!p bra.uni fa_wait;
// REL-BARRIER-NEXT: }
// REL-BARRIER-NEXT: // end inline asm
// REL-BARRIER-NEXT: bar.sync 0;
// REL-BARRIER-NOT: bar.warp.sync
// REL-BARRIER-NOT: mbarrier.arrive.shared.b64
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=wgmma release=never" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-RELEASE
// BAD-RELEASE: error: fa-to-ptx: option release must be auto, mbarrier or barrier, got 'never'
// TMA-PLAN: "dynamic_shared_memory": 67632,
// TMA-PLAN: "k_map",
// TMA-PLAN-NEXT: "v_map"
// TMA-PLAN: "tensor_maps": [
// TMA-PLAN-NEXT: {
// TMA-PLAN-NEXT: "box": [
// TMA-PLAN-NEXT: 1,
// TMA-PLAN-NEXT: 1,
// TMA-PLAN-NEXT: 64,
// TMA-PLAN-NEXT: 64
// TMA-PLAN-NEXT: ],
// TMA-PLAN-NEXT: "l2_promotion": 128,
// TMA-PLAN-NEXT: "name": "k_map",
// TMA-PLAN-NEXT: "swizzle": 128,
// TMA-PLAN-NEXT: "tensor": "k"
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma copy=cp-async" -o /dev/null && FileCheck %s --check-prefix=CPASYNC --input-file=%t/attention_kernel.ptx
// CPASYNC-NOT: cp.async.bulk.tensor
// CPASYNC-NOT: mbarrier
// CPASYNC-NOT: [128]
// CPASYNC: wgmma.mma_async
// mbarrier-timeout-ms (test builds): each wait reads %globaltimer and
// traps after the bound (2000 ms = 2e9 ns); 0 (the default) has no bound.
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma mbarrier-timeout-ms=2000" -o /dev/null && FileCheck %s --check-prefix=BOUNDED --input-file=%t/attention_kernel.ptx
// BOUNDED: mov.u64 t0, %globaltimer;
// BOUNDED-NEXT: fa_wait:
// BOUNDED-NEXT: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
// BOUNDED-NEXT: @p bra.uni fa_done;
// BOUNDED-NEXT: mov.u64 t, %globaltimer;
// BOUNDED-NEXT: sub.u64 t, t, t0;
// BOUNDED-NEXT: setp.gt.u64 p, t, 2000000000;
// BOUNDED-NEXT: @p trap;
// TMA-NOT: globaltimer
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=wgmma mbarrier-timeout-ms=-5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-TIMEOUT
// BAD-TIMEOUT: error: fa-lower-to-gpu: option mbarrier-timeout-ms must be >= 0 (0: no bound), got -5
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=wgmma copy=bulk" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-COPY
// BAD-COPY: error: fa-to-ptx: option copy must be auto, cp-async or tma, got 'bulk'
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=mma_sync copy=tma" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TMA-ATOM
// TMA-ATOM: error: fa-to-ptx: option copy=tma needs chip=sm_90a and atom wgmma or auto (TMA writes #fa.wgmma's swizzled tiles), got chip=sm_90a atom=mma_sync
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90 copy=tma" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TMA-CHIP
// TMA-CHIP: error: fa-to-ptx: option copy=tma needs chip=sm_90a and atom wgmma or auto (TMA writes #fa.wgmma's swizzled tiles), got chip=sm_90 atom=auto

// pingpong=on (--fa-pingpong; here with release=mbarrier, which frees the
// warpgroups to drift): warpgroup 1 gives warpgroup 0 the first turn
// (bar.arrive 1), each K/V block's products are issued between the
// warpgroup's own barrier (bar.sync 1 or 2, 256 threads) and the arrival
// on the other's, in both loops; warpgroup 0 takes the last turn back
// after them. 3 named barriers, no spill (%ptxas in ptxas-wgmma.mlir).
// The default, pingpong=auto, takes turns only where the K/V blocks have
// 128 keys or more (kTurnBlockKeys): none in this d = 64 kernel (64-key
// blocks); at d = 128 (the table's 128 x 128 blocks, AUTO-D128) the turns
// and, by release=auto, the slots released by mbarrier (no bar.sync 0 in
// the loops), with m64n128k16 products; pingpong=off or release=barrier
// there: no turns, or turns with the await's barrier. On an sm_80 kernel
// the pass finds no warpgroups: nothing changes.
// RUN: rm -rf %t && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a" -o /dev/null && FileCheck %s --check-prefix=AUTO-D128 --input-file=%t/attention_kernel.ptx
// AUTO-D128: .target sm_90a
// AUTO-D128: bar.arrive 1, 256;
// AUTO-D128: bar.warp.sync -1;
// AUTO-D128: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// AUTO-D128: bar.arrive {{[12]}}, 256;
// AUTO-D128: mbarrier.arrive.shared.b64
// RUN: rm -rf %t && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a pingpong=off" -o /dev/null && FileCheck %s --check-prefixes=NO-PINGPONG,REL-OFF --input-file=%t/attention_kernel.ptx
// REL-OFF: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// REL-OFF-NOT: mbarrier.arrive.shared.b64
// RUN: rm -rf %t && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a release=barrier" -o /dev/null && FileCheck %s --check-prefix=TURNS-BARRIER --input-file=%t/attention_kernel.ptx
// swizzle-shared=off at d = 128: the tiling counts the padded tiles
// (fa-tile-q-outer{padded-shared}) and keeps 64-key blocks, which fit.
// RUN: rm -rf %t && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a swizzle-shared=off" -o /dev/null && FileCheck %s --check-prefixes=NO-PINGPONG,UNSWIZZLED --input-file=%t/attention_kernel.ptx
// UNSWIZZLED: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// TURNS-BARRIER: bar.arrive 1, 256;
// TURNS-BARRIER: bar.sync 0;
// TURNS-BARRIER-NOT: mbarrier.arrive.shared.b64
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a pingpong=on release=mbarrier" -o /dev/null && FileCheck %s --check-prefix=PINGPONG --input-file=%t/attention_kernel.ptx
// PINGPONG: .target sm_90a
// PINGPONG: bar.arrive 1, 256;
// PINGPONG-DAG: bar.sync {{.*}}1, 256;
// PINGPONG-DAG: bar.sync {{.*}}2, 256;
// PINGPONG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// PINGPONG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// PINGPONG-DAG: bar.arrive 1, 256;
// PINGPONG-DAG: bar.arrive 2, 256;
// PINGPONG: wgmma.wait_group.sync.aligned 1;
// PINGPONG-DAG: bar.sync {{.*}}1, 256;
// PINGPONG-DAG: bar.sync {{.*}}2, 256;
// PINGPONG-DAG: bar.arrive 1, 256;
// PINGPONG-DAG: bar.arrive 2, 256;
// PINGPONG: wgmma.wait_group.sync.aligned 1;
// PINGPONG: bar.sync {{.*}}1, 256;
// PINGPONG-NOT: bar.arrive
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a" -o /dev/null && FileCheck %s --check-prefix=NO-PINGPONG --input-file=%t/attention_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t pingpong=on" -o /dev/null && FileCheck %s --check-prefix=NO-PINGPONG --input-file=%t/attention_kernel.ptx
// NO-PINGPONG-NOT: bar.arrive
// NO-PINGPONG-NOT: bar.sync {{.*}}, 256;
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a pingpong=yes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-PINGPONG
// BAD-PINGPONG: error: fa-to-ptx: option pingpong must be auto, on or off, got 'yes'

// swizzle-shared=off: the core matrices (layout type 0: K-major K with
// LBO = 2 core matrices, 256 bytes, and SBO = 8 core matrices, 1024 bytes:
// (16 << 16) | (64 << 32)).
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma swizzle-shared=off" -o /dev/null && FileCheck %s --check-prefix=CORE --input-file=%t/attention_kernel.ptx
// CORE-NOT: 4611686293305360384
// CORE: or.b64 {{.*}}, 274878431232;
// CORE: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// CORE-NOT: 4611686293305360384

// The stages show the atom: #fa.wgmma encodings at L3, the K/V tiles
// swizzled by default.
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" | FileCheck %s --check-prefix=L3
// L3: #acc_w8_wgmma = #fa.warp_rows<acc, num_warps = 8, atom = #fa.wgmma>
// L3: fa.qk {{.*}} -> tensor<128x64xf32, #acc_w8_wgmma>
// L3: fa.pv {{.*}} : tensor<128x64xbf16, #opA_w8_wgmma>, tensor<64x64xbf16, #shared_swz_wgmma>, tensor<128x64xf32, #acc_w8_wgmma>
// RUN: fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma swizzle-shared=off" | FileCheck %s --check-prefix=L3CORE
// L3CORE: fa.pv {{.*}} : tensor<128x64xbf16, #opA_w8_wgmma>, tensor<64x64xbf16, #shared_wgmma>, tensor<128x64xf32, #acc_w8_wgmma>

// RUN: not fa-opt %s --fa-to-ptx="atom=wgmma" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: fa-to-ptx: option atom=wgmma needs chip=sm_90a (wgmma is an sm_90a instruction), got chip=sm_80
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90 atom=wgmma" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP90
// CHIP90: got chip=sm_90
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=tcgen05" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATOM
// ATOM: error: fa-to-ptx: option atom must be auto, mma_sync or wgmma, got 'tcgen05'
// Explicit tiles that do not fill whole warpgroups are a diagnostic.
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90a atom=wgmma block-m=32 block-n=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: fa-map-warps: #fa.wgmma holds 16 rows a warp in warpgroups of 4 warps: block-m must be 16 * num-warps with num-warps a multiple of 4 (64 rows on 4 warps, 128 on 8), got block-m = 32 on 2 warps

func.func @attention(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                     %o: tensor<?x8x?x64xbf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
                        outs(%o, %l : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}
