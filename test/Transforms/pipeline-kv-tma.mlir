// --fa-pipeline-kv{copy=auto} (the default, or tma) on #fa.wgmma nests:
// K/V tiles in the swizzled layout whose rows run to the tensor's end are
// TMA copies (fa.async_load ... tma, no L2 hint: the tensor map has it),
// and each await names its slot's mbarrier phase, ((k0 - first) / N /
// slots) mod 2 with `first` the chain's first block; Q (unswizzled) stays
// cp.async. copy=cp-async keeps every load as it was; a K/V cache's rows
// end at its key length, so its loads stay cp.async (TMA would bring the
// rows past it, which need not be finite).

// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=copy=tma --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" --fa-causal-block-skip --fa-map-warps="num-warps=0 atom=wgmma" --fa-schedule-softmax --fa-pipeline-mma \
// RUN:   | fa-opt -split-input-file --fa-pipeline-kv=copy=cp-async --cse | FileCheck %s --check-prefix=CPASYNC

// CHECK-LABEL: func.func @dense
// CHECK: fa.async_load %{{.*}} slot(%{{.*}}) of 1 l2_prefetch(128) : tensor<?x4x?x64xbf16> -> !fa.future<tensor<128x64xbf16, #shared_wgmma>>
// CHECK: fa.async_load %[[K:.*]], %[[V:.*]][%{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 3 if(%{{.*}}) tma : {{.*}} -> !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>, tensor<64x64xbf16, #shared_swz_wgmma>>
// CHECK: scf.for %[[K0:.*]] = %[[FIRST:.*]] to
// CHECK: %[[REL:.*]] = arith.subi %[[K0]], %[[FIRST]] : index
// CHECK: %[[BLOCK:.*]] = arith.divui %[[REL]], %c64 : index
// CHECK: %[[FILL:.*]] = arith.divui %[[BLOCK]], %c3 : index
// CHECK: %[[PHASE:.*]] = arith.remui %[[FILL]], %c2 : index
// CHECK: fa.await %{{.*}} pending(0) phase(%[[PHASE]])
// CHECK: fa.async_load %[[K]], %[[V]]{{.*}} tma :
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
// CHECK: fa.async_load {{.*}} tma :
// CHECK: scf.for %[[K0:.*]] = %[[FIRST:.*]] to
// CHECK-NOT: %c0 to
// CHECK: arith.subi %[[K0]], %[[FIRST]] : index
// CHECK: fa.await %{{.*}} pending(0) phase(%{{.*}})
func.func @window(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>,
                  %o: tensor<?x4x?x128xf16>, %lse: tensor<?x4x?xf32>) -> (tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>)
               outs(%o, %lse : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) causal window(256, 0) -> tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
}

// -----

// CHECK-LABEL: func.func @cache
// CHECK-NOT: {{\) tma :}}
// CHECK-NOT: phase(
// CHECK: fa.async_load {{.*}} if(%{{.*}}) l2_prefetch(128) : {{.*}} #shared_swz_wgmma>
// CHECK-NOT: {{\) tma :}}
// CHECK-NOT: phase(
// CHECK: return
func.func @cache(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                 %n: tensor<?xi32>, %o: tensor<?x8x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>)
           key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x8x?x64xbf16>) causal -> tensor<?x8x?x64xbf16>
  return %r : tensor<?x8x?x64xbf16>
}
