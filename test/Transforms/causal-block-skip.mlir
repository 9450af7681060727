// RUN: fa-opt %s -split-input-file --fa-tile-q-outer --fa-causal-block-skip | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer --fa-causal-block-skip --canonicalize --cse | FileCheck %s --check-prefix=FOLDED

// Causal, Nq != Nk (dynamic): the inner loop splits into an unmasked loop over
// the blocks every row of the Q block sees and a masked loop that ends at the
// last block any row sees.

// CHECK-LABEL: func @causal_dynamic
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %arg0
// CHECK-DAG: %[[NK:.*]] = tensor.dim %arg1
// CHECK: %[[OFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: scf.forall
// CHECK: %[[Q0:.*]] = arith.muli %{{.*}}, %[[C128]]
//     full_end = floor(max(0, min(Nk, q0 + off + 1)) / 64) * 64
// CHECK: %[[A:.*]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[B:.*]] = arith.addi %[[A]], %{{.*}}
// CHECK: %[[C:.*]] = arith.minsi %[[NK]], %[[B]]
// CHECK: %[[FIRST_ROW_END:.*]] = arith.maxsi %[[C]], %{{.*}}
//     end = min(Nk, max(0, q0 + off + 128))
// CHECK: %[[D:.*]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[E:.*]] = arith.addi %[[D]], %{{.*}}
// CHECK: %[[F:.*]] = arith.maxsi %[[E]], %{{.*}}
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[F]]
// CHECK: %[[G:.*]] = arith.divui %[[FIRST_ROW_END]], %[[BLK:.*]] : index
// CHECK: %[[FULL_END:.*]] = arith.muli %[[G]], %[[BLK]]
//     Loop 1: [0, full_end), no mask.
// CHECK: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[C0]] to %[[FULL_END]] step %[[C64]]
// CHECK-NOT: fa.mask
// CHECK: fa.online_softmax
// CHECK: scf.yield
//     Loop 2: [full_end, end), masked, continuing loop 1's state.
// CHECK: %[[R2:.*]]:3 = scf.for %[[K0:.*]] = %[[FULL_END]] to %[[END]] step %[[C64]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[OFF]])
// CHECK: fa.online_softmax
// CHECK: scf.yield
// CHECK: fa.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1
func.func @causal_dynamic(%q: tensor<1x4x?x64xf16>, %k: tensor<1x4x?x64xf16>, %o: tensor<1x4x?x64xf16>) -> tensor<1x4x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>)
                    outs(%o : tensor<1x4x?x64xf16>) causal -> tensor<1x4x?x64xf16>
  return %0 : tensor<1x4x?x64xf16>
}

// -----

// Causal, Nq == Nk = 256 (offset 0): Q block q0 runs the unmasked loop over
// [0, q0) and the masked loop over the two diagonal blocks [q0, q0 + 128).
// FOLDED-LABEL: func @causal_square
// FOLDED-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLDED-DAG: %[[C1:.*]] = arith.constant 1 : index
// FOLDED-DAG: %[[C64:.*]] = arith.constant 64 : index
// FOLDED-DAG: %[[C128:.*]] = arith.constant 128 : index
// FOLDED-DAG: %[[C256:.*]] = arith.constant 256 : index
// FOLDED: scf.forall (%[[QB:.*]]) in (2)
// FOLDED: %[[Q0:.*]] = arith.muli %[[QB]], %[[C128]]
// FOLDED: %[[A:.*]] = arith.addi %[[Q0]], %[[C1]]
// FOLDED: %[[B:.*]] = arith.minsi %[[A]], %[[C256]]
// FOLDED: %[[C:.*]] = arith.maxsi %[[B]], %[[C0]]
// FOLDED: %[[D:.*]] = arith.addi %[[Q0]], %[[C128]]
// FOLDED: %[[E:.*]] = arith.maxsi %[[D]], %[[C0]]
// FOLDED: %[[END:.*]] = arith.minsi %[[E]], %[[C256]]
// FOLDED: %[[F:.*]] = arith.divui %[[C]], %[[C64]]
// FOLDED: %[[FULL_END:.*]] = arith.muli %[[F]], %[[C64]]
// FOLDED: scf.for %{{.*}} = %[[C0]] to %[[FULL_END]] step %[[C64]]
// FOLDED-NOT: fa.mask
// FOLDED: scf.for %[[K0:.*]] = %[[FULL_END]] to %[[END]] step %[[C64]]
// FOLDED: fa.mask %{{.*}}[%[[Q0]], %[[K0]]] key_limit(%[[C256]]) causal_offset(%[[C0]])
func.func @causal_square(%q: tensor<1x1x256x64xf16>, %k: tensor<1x1x256x64xf16>, %o: tensor<1x1x256x64xf16>) -> tensor<1x1x256x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16>)
                    outs(%o : tensor<1x1x256x64xf16>) causal -> tensor<1x1x256x64xf16>
  return %0 : tensor<1x1x256x64xf16>
}

// -----

// Causal, Nq = 300 < Nk = 500: the offset is 200, so Q block q0 runs the
// unmasked loop up to floor(min(500, q0 + 201) / 64) * 64 and the masked loop
// up to min(500, q0 + 328).
// FOLDED-LABEL: func @causal_short_queries
// FOLDED-DAG: %[[C201:.*]] = arith.constant 201 : index
// FOLDED-DAG: %[[C328:.*]] = arith.constant 328 : index
// FOLDED-DAG: %[[C500:.*]] = arith.constant 500 : index
// FOLDED-DAG: %[[C200:.*]] = arith.constant 200 : index
// FOLDED: scf.forall (%[[QB:.*]]) in (3)
// FOLDED: %[[Q0:.*]] = arith.muli %[[QB]], %{{.*}}
// FOLDED: %[[A:.*]] = arith.addi %[[Q0]], %[[C201]]
// FOLDED: arith.minsi %[[A]], %[[C500]]
// FOLDED: %[[B:.*]] = arith.addi %[[Q0]], %[[C328]]
// FOLDED: %[[END:.*]] = arith.minsi %{{.*}}, %[[C500]]
// FOLDED: scf.for
// FOLDED-NOT: fa.mask
// FOLDED: scf.for %{{.*}} to %[[END]]
// FOLDED: fa.mask {{.*}} key_limit(%[[C500]]) causal_offset(%[[C200]])
func.func @causal_short_queries(%q: tensor<1x1x300x64xf16>, %k: tensor<1x1x500x64xf16>, %o: tensor<1x1x300x64xf16>) -> tensor<1x1x300x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x1x300x64xf16>, tensor<1x1x500x64xf16>, tensor<1x1x500x64xf16>)
                    outs(%o : tensor<1x1x300x64xf16>) causal -> tensor<1x1x300x64xf16>
  return %0 : tensor<1x1x300x64xf16>
}

// -----

// Not causal, Nk = 300: the four full 64-key blocks run unmasked, the
// 44-key tail block [256, 300) runs with the key limit only (canonicalize
// inlines that one-trip loop).
// FOLDED-LABEL: func @tail_only
// FOLDED-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLDED-DAG: %[[C64:.*]] = arith.constant 64 : index
// FOLDED-DAG: %[[C256:.*]] = arith.constant 256 : index
// FOLDED-DAG: %[[C300:.*]] = arith.constant 300 : index
// FOLDED: scf.for %{{.*}} = %[[C0]] to %[[C256]] step %[[C64]]
// FOLDED-NOT: fa.mask
// FOLDED: fa.mask %{{.*}}[%{{.*}}, %[[C256]]] key_limit(%[[C300]]) : tensor<128x64xf32>
func.func @tail_only(%q: tensor<1x1x300x64xf32>, %o: tensor<1x1x300x64xf32>) -> tensor<1x1x300x64xf32> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x1x300x64xf32>, tensor<1x1x300x64xf32>, tensor<1x1x300x64xf32>)
                    outs(%o : tensor<1x1x300x64xf32>) -> tensor<1x1x300x64xf32>
  return %0 : tensor<1x1x300x64xf32>
}
