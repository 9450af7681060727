// --fa-pingpong on the pipelined L3 nest (--fa-pipeline-mma, then
// --fa-pipeline-kv): in each K/V loop whose products are async, the
// warpgroups take their turn before the block's first product (fa.qk) and
// pass it after the last (the deferred fa.pv); one `open` before the first
// loop, one `close` after the last (the masked loop of causal block
// skipping is the last). The loops' TMA loads are issued by thread 128, the
// first of the last warpgroup (issuer(128)); the loads before the loop stay
// thread 0's. issuer-last=false (NOISSUER) leaves the loads alone.

// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong=issuer-last=false | FileCheck %s --check-prefix=NOISSUER
//     Run twice: the second run finds the turns and adds none.
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong --fa-pingpong | FileCheck %s --check-prefix=TWICE
// min-block-keys (--fa-to-ptx{pingpong=auto}: 128): turns only in loops of
// K/V blocks that long: the same turns in the 128-key loops of @causal
// (the table's 128 x 128 at d = 128), none where 256 keys are asked for.
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong=min-block-keys=128 | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong=min-block-keys=256 | FileCheck %s --check-prefix=LONGER
// LONGER-NOT: fa.mma_turn
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-map-warps="num-warps=0 atom=wgmma" \
// RUN:   | not fa-opt -split-input-file --fa-pingpong=min-block-keys=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: fa-pingpong: option min-block-keys must be >= 0, got -1
//     Without --fa-pipeline-mma the products are synchronous: no turns.
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-kv=release=mbarrier \
// RUN:   | fa-opt -split-input-file --fa-pingpong | FileCheck %s --check-prefix=SYNC

// d = 128, causal: 128 x 64 tiles on 8 warps, two warpgroups.
// CHECK-LABEL: func @causal
// CHECK: fa.async_load %{{.*}}, %{{.*}}[{{.*}}] rows({{.*}}) slot({{.*}}) of 3 if({{.*}}) tma after_release({{.*}}) : tensor
// CHECK: fa.mma_turn open of 2
// CHECK-NEXT: %[[FULL:.*]]:8 = scf.for
// CHECK: fa.await %{{.*}} pending({{[0-9]}}) phase(
// CHECK: fa.async_load {{.*}} tma after_release(%{{.*}}) issuer(128) :
// CHECK-NEXT: fa.mma_turn take of 2
// CHECK-NEXT: %[[S:.*]] = fa.qk {{.*}} {async}
// CHECK-NEXT: %[[V:.*]] = arith.select
// CHECK-NEXT: %[[O:.*]] = fa.pv {{.*}} {async}
// CHECK-NEXT: fa.mma_turn pass of 2
// CHECK-NEXT: fa.mma_wait %[[S]] pending(1)
// CHECK: fa.release
// CHECK: scf.yield
//     The masked loop, the same way.
// CHECK: %[[MASKED:.*]]:8 = scf.for {{.*}} iter_args(%{{.*}} = %[[FULL]]#0
// CHECK: fa.async_load {{.*}} issuer(128) :
// CHECK-NEXT: fa.mma_turn take of 2
// CHECK-NEXT: fa.qk {{.*}} {async}
// CHECK: fa.pv {{.*}} {async}
// CHECK-NEXT: fa.mma_turn pass of 2
// CHECK: fa.mask
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: fa.mma_turn close of 2
//     The last block's P V follows, outside the turns.
// CHECK: fa.pv %[[MASKED]]#4
// CHECK-NOT: fa.mma_turn

// NOISSUER-LABEL: func @causal
// NOISSUER: fa.mma_turn open of 2
// NOISSUER-NOT: issuer(
// NOISSUER: fa.mma_turn take of 2
// NOISSUER: fa.mma_turn close of 2

// TWICE-LABEL: func @causal
// TWICE-COUNT-1: fa.mma_turn open
// TWICE-NOT: fa.mma_turn open
// TWICE-COUNT-2: fa.mma_turn take
// TWICE-NOT: fa.mma_turn take

// SYNC-LABEL: func @causal
// SYNC-NOT: fa.mma_turn
// SYNC-NOT: issuer(
// SYNC: fa.finalize
func.func @causal(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>,
                  %v: tensor<?x16x?x128xbf16>, %o: tensor<?x16x?x128xbf16>,
                  %l: tensor<?x16x?xf32>) -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>)
                        outs(%o, %l : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) causal
                        -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}

// -----

// One warpgroup (64-row Q blocks: a static Nq of 64 rows takes the table's
// 128-row block down to 64 on 4 warps): no one to take turns with.
// CHECK-LABEL: func @one_warpgroup
// CHECK-NOT: fa.mma_turn
// CHECK-NOT: issuer(
// CHECK: fa.finalize
func.func @one_warpgroup(%q: tensor<2x8x64x64xf16>, %k: tensor<2x8x?x64xf16>,
                         %v: tensor<2x8x?x64xf16>, %o: tensor<2x8x64x64xf16>)
    -> tensor<2x8x64x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<2x8x64x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>)
                    outs(%o : tensor<2x8x64x64xf16>) -> tensor<2x8x64x64xf16>
  return %0 : tensor<2x8x64x64xf16>
}
