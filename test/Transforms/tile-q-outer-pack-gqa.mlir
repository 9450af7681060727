// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="pack-gqa=true block-m=16 block-n=16" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="pack-gqa=true block-m=4 block-n=16" | FileCheck %s --check-prefix=SPLIT
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="pack-gqa=true auto-blocks=true" | FileCheck %s --check-prefix=AUTO
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" | FileCheck %s --check-prefix=OFF

// GQA packing of a single query (a decode step): 8 query heads over 2
// key/value heads, G = 4. The forall runs over (batch, key/value head, Q
// block of heads); the Q tile is query 0 of heads [kvh * 4, kvh * 4 + 4),
// rows along the heads, padded to the block; every row of the mask is query
// 0 (single_query); O and LSE go back along the heads.

// CHECK-LABEL: func @decode
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x1x16xf16>, %[[K:[^:]*]]: tensor<2x2x?x16xf16>, %[[V:[^:]*]]: tensor<2x2x?x16xf16>, %[[O:[^:]*]]: tensor<2x8x1x16xf16>, %[[L:[^:]*]]: tensor<2x8x1xf32>)
// CHECK: scf.forall (%[[B:.*]], %[[KVH:.*]], %[[BLK:.*]]) in (2, 2, %{{.*}}) shared_outs(%[[OO:.*]] = %[[O]], %[[LO:.*]] = %[[L]])
// CHECK: %[[G0:.*]] = arith.muli %[[BLK]], %c16
// CHECK: %[[ROWS:.*]] = arith.minsi %c16{{.*}}, %{{.*}}
// CHECK: %[[H0:.*]] = arith.muli %[[KVH]], %c4
// CHECK: %[[HEAD:.*]] = arith.addi %[[H0]], %[[G0]]
// CHECK: tensor.extract_slice %[[Q]][%[[B]], %[[HEAD]], %c0{{.*}}, 0] [1, %[[ROWS]], 1, 16] [1, 1, 1, 1] : tensor<2x8x1x16xf16> to tensor<?x16xf16>
// CHECK: scf.for %[[K0:[^ ]*]] =
// CHECK: tensor.extract_slice %[[K]][%[[B]], %[[KVH]], %[[K0]], 0]
// CHECK: fa.mask %{{.*}}[%c0{{.*}}, %[[K0]]] key_limit(%{{.*}}) causal_offset(%{{.*}}) {single_query} : tensor<16x16xf32>
// CHECK: fa.finalize
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OO]][%[[B]], %[[HEAD]], %c0{{.*}}, 0] [1, %[[ROWS]], 1, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<2x8x1x16xf16>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[LO]][%[[B]], %[[HEAD]], %c0{{.*}}] [1, %[[ROWS]], 1] [1, 1, 1] : tensor<?xf32> into tensor<2x8x1xf32>

//     Q blocks of 4 rows: one block holds the whole group of 4.
// SPLIT-LABEL: func @decode
// SPLIT: scf.forall ({{.*}}) in (2, 2, %{{.*}})
// SPLIT: fa.mask {{.*}} {single_query} : tensor<4x16xf32>

//     auto-blocks: a Q block of 16 rows (the smallest mma block) for G = 4,
//     the table's 128-key blocks at d = 16.
// AUTO-LABEL: func @decode
// AUTO: fa.mask {{.*}} {single_query} : tensor<16x128xf32>

//     Without the option: one Q block per query head.
// OFF-LABEL: func @decode
// OFF: scf.forall ({{.*}}) in (2, 8, %{{.*}})
// OFF-NOT: single_query
func.func @decode(%q: tensor<2x8x1x16xf16>, %k: tensor<2x2x?x16xf16>, %v: tensor<2x2x?x16xf16>,
                  %o: tensor<2x8x1x16xf16>, %l: tensor<2x8x1xf32>) -> (tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<2x8x1x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>)
                        outs(%o, %l : tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) causal
                        -> tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
  return %0, %1 : tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
}

// -----

// MQA with 8 query heads: with 4-row blocks, two Q blocks per group (heads
// 0-3 and 4-7 of key/value head 0).
// SPLIT-LABEL: func @mqa
// SPLIT: %[[NB:.*]] = arith.ceildivui %c8{{.*}}, %c4
// SPLIT: scf.forall (%{{.*}}, %[[KVH:.*]], %[[BLK:.*]]) in (1, 1, %[[NB]])
// SPLIT: %[[G0:.*]] = arith.muli %[[BLK]], %c4
// SPLIT: %[[H0:.*]] = arith.muli %[[KVH]], %c8
// SPLIT: arith.addi %[[H0]], %[[G0]]
func.func @mqa(%q: tensor<1x8x1x32xbf16>, %k: tensor<1x1x?x32xbf16>, %v: tensor<1x1x?x32xbf16>,
               %o: tensor<1x8x1x32xbf16>) -> tensor<1x8x1x32xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x8x1x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>)
                    outs(%o : tensor<1x8x1x32xbf16>) window(64, 0) -> tensor<1x8x1x32xbf16>
  return %0 : tensor<1x8x1x32xbf16>
}

// -----

// Left as without the option: two queries, a dynamic Nq, no GQA.
// CHECK-LABEL: func @not_packed
// CHECK-NOT: single_query
// CHECK: return
func.func @not_packed(%q2: tensor<1x8x2x16xf16>, %qd: tensor<1x8x?x16xf16>, %q1: tensor<1x2x1x16xf16>,
                      %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
                      %o2: tensor<1x8x2x16xf16>, %od: tensor<1x8x?x16xf16>, %o1: tensor<1x2x1x16xf16>)
    -> (tensor<1x8x2x16xf16>, tensor<1x8x?x16xf16>, tensor<1x2x1x16xf16>) {
  %0 = fa.attention ins(%q2, %k, %v : tensor<1x8x2x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>)
                    outs(%o2 : tensor<1x8x2x16xf16>) causal -> tensor<1x8x2x16xf16>
  %1 = fa.attention ins(%qd, %k, %v : tensor<1x8x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>)
                    outs(%od : tensor<1x8x?x16xf16>) causal -> tensor<1x8x?x16xf16>
  %2 = fa.attention ins(%q1, %k, %v : tensor<1x2x1x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>)
                    outs(%o1 : tensor<1x2x1x16xf16>) causal -> tensor<1x2x1x16xf16>
  return %0, %1, %2 : tensor<1x8x2x16xf16>, tensor<1x8x?x16xf16>, tensor<1x2x1x16xf16>
}
