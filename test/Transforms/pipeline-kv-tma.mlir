// --fa-pipeline-kv{copy=auto} (the default, or tma) on #fa.wgmma nests:
// K/V tiles in the swizzled layout whose rows run to the tensor's end are
// TMA copies (fa.async_load ... tma, no L2 hint: the tensor map has it),
// and each await names its slot's mbarrier phase, ((k0 - first) / N /
// slots) mod 2 with `first` the chain's first block; Q (unswizzled) stays
// cp.async. copy=cp-async keeps every load as it was. A K/V cache's rows
// end at its key length and a packed sequence's at its own end, before
// the tensor's: their loads are TMA copies too, and each await zeroes the
// rows past the block's (zero_from(min(64, n - k0))), which the box brought
// from the next sequence or the cache's unused rows (not necessarily
// finite; cp.async zero-fills them).
//
// release=mbarrier: the warps free a TMA slot with fa.release instead of
// meeting at every await's barrier. The deferred P V reads
// block j - 1's V in iteration j, so the loop also carries the awaited
// future one iteration and releases it at the end of the next (not in the
// chain's first iteration, whose carried future is a placeholder); each
// load waits for the release of its slot's fill before,
// after_release(((k - first) / N / slots + 1) mod 2). Without the deferred
// P V (SYNC) each iteration releases its own block. release=barrier (the
// default, BARRIER) and cp.async loads release nothing.

// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=release=mbarrier --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv="copy=tma release=mbarrier" --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv="copy=cp-async release=mbarrier" --cse | FileCheck %s --check-prefix=CPASYNC
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv --cse | FileCheck %s --check-prefix=BARRIER
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=release=barrier --cse | FileCheck %s --check-prefix=BARRIER
// release=auto: mbarrier where the loops' K/V blocks have 128 keys or more
// (kTurnBlockKeys, where --fa-pingpong's auto takes turns), so barrier for
// these 64-key blocks and mbarrier for 128-key ones (AUTO128).
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=release=auto --cse | FileCheck %s --check-prefix=BARRIER
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=128 block-n=128 chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv="release=auto stages=2" --cse | FileCheck %s --check-prefix=AUTO128
// AUTO128-LABEL: func.func @dense
// AUTO128: fa.async_load %{{.*}} tma after_release(%{{.*}}) : {{.*}} -> !fa.future<tensor<128x64xbf16, #shared_swz_wgmma>, tensor<128x64xbf16, #shared_swz_wgmma>>
// AUTO128: scf.for
// AUTO128: fa.release
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=release=mbarrier --cse | FileCheck %s --check-prefix=SYNC

// CHECK-LABEL: func.func @dense
// CHECK: fa.async_load %{{.*}} slot(%{{.*}}) of 1 l2_prefetch(128) : tensor<?x4x?x64xbf16> -> !fa.future<tensor<128x64xbf16, #shared_wgmma>>
// CHECK: %[[F0:.*]] = fa.async_load %[[K:.*]], %[[V:.*]][%{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 3 if(%{{.*}}) tma after_release(%{{.*}}) : {{.*}} -> !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>, tensor<64x64xbf16, #shared_swz_wgmma>>
// CHECK: scf.for %[[K0:.*]] = %[[FIRST:.*]] to {{.*}} iter_args({{.*}}, %[[NEXT:.*]] = %[[F0]], %[[PREV:.*]] = %[[F0]]) ->
// CHECK: %[[REL:.*]] = arith.subi %[[K0]], %[[FIRST]] : index
// CHECK: %[[BLOCK:.*]] = arith.divui %[[REL]], %c64 : index
// CHECK: %[[FILL:.*]] = arith.divui %[[BLOCK]], %c3 : index
// CHECK: %[[PHASE:.*]] = arith.remui %[[FILL]], %c2 : index
// CHECK: fa.await %[[NEXT]] pending(0) phase(%[[PHASE]])
// CHECK: %[[K1:.*]] = arith.addi %[[K0]], %c64 : index
// CHECK: %[[REL1:.*]] = arith.subi %[[K1]], %[[FIRST]] : index
// CHECK: %[[BLOCK1:.*]] = arith.divui %[[REL1]], %c64 : index
// CHECK: %[[FILL1:.*]] = arith.divui %[[BLOCK1]], %c3 : index
// CHECK: %[[BEFORE:.*]] = arith.addi %[[FILL1]], %c1 : index
// CHECK: %[[RPHASE:.*]] = arith.remui %[[BEFORE]], %c2 : index
// CHECK: %[[ISSUED:.*]] = fa.async_load %[[K]], %[[V]]{{.*}} tma after_release(%[[RPHASE]]) :
// CHECK: fa.mma_wait %{{.*}} pending(0)
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[K0]], %[[FIRST]] : index
// CHECK: fa.release %[[PREV]] if(%[[LATER]])
// CHECK-NEXT: scf.yield {{.*}}, %[[ISSUED]], %[[NEXT]] :
//     The masked loop continues the chain: its first release is block
//     first_end - 1's (K0 is not FIRST there).
// CHECK: scf.for {{.*}} iter_args(
// CHECK: fa.release
// CHECK-NEXT: scf.yield
// BARRIER-LABEL: func.func @dense
// BARRIER-NOT: after_release
// BARRIER-NOT: fa.release
// BARRIER: fa.await %{{.*}} pending(0) phase(
// BARRIER-NOT: after_release
// BARRIER-NOT: fa.release
// BARRIER: return
// SYNC-LABEL: func.func @dense
// SYNC: tma after_release(
// SYNC: scf.for {{.*}} iter_args({{.*}}, %[[F:[a-z0-9_]*]] = %{{[a-z0-9_]*}}) ->
// SYNC: fa.await %[[F]] pending(0) phase(
// SYNC: fa.release %[[F]] :
// SYNC-NEXT: scf.yield
// CPASYNC-LABEL: func.func @dense
// CPASYNC-NOT: {{\) tma :}}
// CPASYNC-NOT: phase(
// CPASYNC: return
func.func @dense(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                 %o: tensor<?x4x?x64xbf16>, %lse: tensor<?x4x?xf32>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
               outs(%o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) causal -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

// -----

// A sliding window: the chain starts at the window's first block, not 0,
// and the phases count from there.
// CHECK-LABEL: func.func @window
// CHECK: fa.async_load {{.*}} tma after_release(
// CHECK: scf.for %[[K0:.*]] = %[[FIRST:.*]] to
// CHECK-NOT: %c0 to
// CHECK: arith.subi %[[K0]], %[[FIRST]] : index
// CHECK: fa.await %{{.*}} pending(0) phase(%{{.*}})
// CHECK: arith.cmpi ne, %[[K0]], %[[FIRST]] : index
func.func @window(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>,
                  %o: tensor<?x4x?x128xf16>, %lse: tensor<?x4x?xf32>) -> (tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>)
               outs(%o, %lse : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) causal window(256, 0) -> tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
}

// -----

// CHECK-LABEL: func.func @cache
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c64 iter_args(
// CHECK: %[[LEFT:.*]] = arith.subi %[[LEN:.*]], %[[K0]] : index
// CHECK: %[[ROWS:.*]] = arith.minsi %c64, %[[LEFT]] : index
// CHECK: fa.await %{{.*}} pending({{[0-9]+}}) phase(%{{.*}}) zero_from(%[[ROWS]])
// CHECK: fa.async_load {{.*}} if(%{{.*}}) tma
// CHECK: return
// CPASYNC-LABEL: func.func @cache
// CPASYNC-NOT: zero_from
// CPASYNC: return
func.func @cache(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                 %n: tensor<?xi32>, %o: tensor<?x8x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
           key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x8x?x64xbf16>) causal -> tensor<?x8x?x64xbf16>
  return %r : tensor<?x8x?x64xbf16>
}

// -----

// A static N: rows is min(64, 150 - k0) with the constant the sources'
// extent, so the K/V tiles are TMA copies as with a dynamic N.
// CHECK-LABEL: func.func @static_n
// CHECK: fa.async_load %{{.*}}, %{{.*}}[%{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 3 if(%{{.*}}) tma after_release(
// CHECK: fa.release
func.func @static_n(%q: tensor<1x2x100x64xf16>, %k: tensor<1x1x150x64xf16>, %v: tensor<1x1x150x64xf16>,
                    %o: tensor<1x2x100x64xf16>, %lse: tensor<1x2x100xf32>) -> (tensor<1x2x100x64xf16>, tensor<1x2x100xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x2x100x64xf16>, tensor<1x1x150x64xf16>, tensor<1x1x150x64xf16>)
               outs(%o, %lse : tensor<1x2x100x64xf16>, tensor<1x2x100xf32>) causal -> tensor<1x2x100x64xf16>, tensor<1x2x100xf32>
  return %0, %1 : tensor<1x2x100x64xf16>, tensor<1x2x100xf32>
}
