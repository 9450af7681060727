// RUN: fa-opt %s --fa-tile-q-outer="block-m=16 block-n=16 pack-gqa=true" --fa-causal-block-skip --fa-map-warps=num-warps=1 --fa-schedule-softmax \
// RUN:   | fa-opt --fa-pipeline-kv --cse | FileCheck %s

// --fa-pipeline-kv on a paged K/V cache (the input is L3 of a decode step,
// from the passes before it): the K and V tiles are rows along dim 1 of the
// pools, one fa.async_load {along_heads}; the load of block j + 16 issued
// in iteration j finds its page in the block table with the same index
// arithmetic (cloned for j + 16, the table column clamped to the table),
// under the predicate j + 16 < end.

// CHECK-LABEL: func @paged
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<?x32x2x16xf16>, %[[V:[a-z0-9]+]]: tensor<?x32x2x16xf16>, %{{.*}}: tensor<?xi32>, %[[TABLE:[a-z0-9]+]]: tensor<?x?xi32>
// CHECK: scf.forall (%[[B:[a-z0-9]+]], %[[G:[a-z0-9]+]], %{{.*}}) in
//     The prologue: the Q tile, then block 0.
// CHECK: fa.async_load %{{.*}} slot(%c0) of 1 l2_prefetch(128) {along_heads}
// CHECK: tensor.extract %[[TABLE]][%[[B]], %{{.*}}]
// CHECK: %[[FIRST:.*]] = fa.async_load %[[K]], %[[V]][%{{.*}}, %{{.*}}, %[[G]]] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%{{.*}}) l2_prefetch(128) {along_heads}
// CHECK: scf.for %[[J:[a-z0-9]+]] = {{.*}} iter_args({{.*}}, %[[F:.*]] = %[[FIRST]])
// CHECK: fa.await %[[F]] pending(0)
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %c16 : index
// CHECK: %[[COL0:.*]] = arith.divui %[[NEXT]], %c32 : index
// CHECK: %[[COL:.*]] = arith.minui %[[COL0]], %{{.*}} : index
// CHECK: %[[ENTRY:.*]] = tensor.extract %[[TABLE]][%[[B]], %[[COL]]] : tensor<?x?xi32>
// CHECK: %[[PAGE:.*]] = arith.index_cast %[[ENTRY]] : i32 to index
// CHECK: %[[ROW:.*]] = arith.remui %[[NEXT]], %c32 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : index
// CHECK: fa.async_load %[[K]], %[[V]][%[[PAGE]], %[[ROW]], %[[G]]] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%[[IN]]) l2_prefetch(128) {along_heads}
func.func @paged(%q: tensor<?x8x1x16xf16>, %k: tensor<?x32x2x16xf16>, %v: tensor<?x32x2x16xf16>,
                 %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x8x1x16xf16>) -> tensor<?x8x1x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x1x16xf16>, tensor<?x32x2x16xf16>, tensor<?x32x2x16xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x8x1x16xf16>) causal -> tensor<?x8x1x16xf16>
  return %r : tensor<?x8x1x16xf16>
}
