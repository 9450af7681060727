// RUN: fa-opt %s --split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90" | FileCheck %s --check-prefix=HOPPER
// RUN: fa-opt %s --split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_80" | FileCheck %s --check-prefix=AMPERE
// RUN: fa-opt %s --split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90 stage-block-scalars=false" | FileCheck %s --check-prefix=AMPERE

// The tiles of packed sequences at d = 128 (auto-blocks). With
// stage-block-scalars=true (the default), on Hopper a causal packed nest keeps the
// table's tiles (128 x 64, as the dense kernel) and asks for its
// sequences' bounds to be kept in shared memory (fa.stage_block_scalars,
// for --fa-stage-block-scalars); on sm_80, or with false, it takes
// the table's window tiles (128 x 32) with the bounds in registers. Non-causal nests take the
// window tiles on every chip.

// HOPPER-LABEL: func @causal
// HOPPER: scf.forall
// HOPPER: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// HOPPER: } {fa.mma_atom = #fa.mma_sync, fa.stage_block_scalars}
// AMPERE-LABEL: func @causal
// AMPERE-NOT: fa.stage_block_scalars
// AMPERE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// AMPERE-NOT: fa.stage_block_scalars
// AMPERE: return
func.func @causal(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>,
                  %cq: tensor<?xi32>, %ck: tensor<?xi32>, %o: tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>)
               cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)
               outs(%o : tensor<1x32x?x128xbf16>) causal -> tensor<1x32x?x128xbf16>
  return %r : tensor<1x32x?x128xbf16>
}

// -----

// HOPPER-LABEL: func @full
// HOPPER-NOT: fa.stage_block_scalars
// HOPPER: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// HOPPER-NOT: fa.stage_block_scalars
// HOPPER: return
// AMPERE-LABEL: func @full
// AMPERE-NOT: fa.stage_block_scalars
// AMPERE: return
func.func @full(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>,
                %cq: tensor<?xi32>, %ck: tensor<?xi32>, %o: tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>)
               cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)
               outs(%o : tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return %r : tensor<1x32x?x128xbf16>
}
