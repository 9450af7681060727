// RUN: fa-opt %s -split-input-file --fa-tile-backward="block-m=32 block-n=16 dkdv-block-m=32" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-backward="block-m=64 block-n=16" | FileCheck %s --check-prefix=DEFAULT

// The GPU form of the backward: three scf.forall loop nests of tile ops.
// 1. D = rowsum(dO * O) per block of query rows; 2. dK/dV, K/V-outer, on
// transposed tiles (key rows, query columns); 3. dQ, Q-outer.

// Without dkdv-block-m, the dK/dV nest's tiles are a quarter of block-m
// wide up to head dim 64 (16 query columns here), half of it to 128.
// DEFAULT-LABEL: func @gqa_causal
// DEFAULT: fa.row_dot {{.*}} : tensor<64x16xf16>, tensor<64x16xf16> -> tensor<64xf32>
// DEFAULT: fa.qk {{.*}} : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
// DEFAULT: scf.forall
// DEFAULT: fa.qk {{.*}} : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>

// Causal GQA 2:1, f16, dynamic Nq and Nk.
// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x?x16xf16>, %[[K:[^:]*]]: tensor<1x1x?x16xf16>, %[[V:[^:]*]]: tensor<1x1x?x16xf16>, %[[O:[^:]*]]: tensor<1x2x?x16xf16>, %[[DO:[^:]*]]: tensor<1x2x?x16xf16>, %[[L:[^:]*]]: tensor<1x2x?xf32>, %[[DQ0:[^:]*]]: tensor<1x2x?x16xf16>, %[[DK0:[^:]*]]: tensor<1x1x?x16xf16>, %[[DV0:[^:]*]]: tensor<1x1x?x16xf16>)
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]]
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]]
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[SCALE2:.*]] = arith.constant 0.360673755 : f32
// CHECK: %[[OFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
//     1. D, into an f32 [B, Hq, Nq] tensor.
// CHECK: %[[DINIT:.*]] = tensor.empty({{.*}}) : tensor<?x2x?xf32>
// CHECK: %[[D:.*]] = scf.forall (%[[B0:.*]], %[[H0:.*]], %{{.*}}) in (%{{.*}}, 2, %{{.*}}) shared_outs(%[[DD:.*]] = %[[DINIT]])
// CHECK: %[[DOT:.*]] = fa.row_dot %{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<32x16xf16> -> tensor<32xf32>
// CHECK: %[[DROWS:.*]] = tensor.extract_slice %[[DOT]][0] [%[[DN:.*]]] [1]
// CHECK: tensor.parallel_insert_slice %[[DROWS]] into %[[DD]][%[[B0]], %[[H0]], %{{.*}}] [1, 1, %[[DN]]]
//     2. dK/dV: one iteration per (batch, key/value head, K/V block).
// CHECK: %[[KV:.*]]:2 = scf.forall (%[[B1:.*]], %[[G:.*]], %[[KB:.*]]) in (%{{.*}}, 1, %{{.*}}) shared_outs(%[[DKO:.*]] = %[[DK0]], %[[DVO:.*]] = %[[DV0]])
// CHECK: %[[K0:.*]] = arith.muli %[[KB]], %c16
// CHECK: %[[KTILE:.*]] = tensor.pad
// CHECK: } : tensor<?x16x{{.*}}> to tensor<16x16xf16>
// CHECK: %[[VTILE:.*]] = tensor.pad
// CHECK: } : tensor<?x16x{{.*}}> to tensor<16x16xf16>
//     The first Q block that sees key k0: row k0 - (Nk - Nq), rounded down.
// CHECK: %[[FIRST:.*]] = arith.subi %[[K0]], %[[OFF]]
// CHECK: %[[FIRSTC:.*]] = arith.maxsi %[[FIRST]]
// CHECK: arith.divui
// CHECK: %[[QBEGIN:.*]] = arith.muli
//     One loop over (query head of the group, Q block) pairs, heads
//     outermost: ceil((Nq - q_begin) / 32) blocks per head, times 2 heads.
// CHECK: %[[SPAN:.*]] = arith.subi %[[NQ]], %[[QBEGIN]]
// CHECK: %[[SPAN0:.*]] = arith.maxsi %[[SPAN]], %c0
// CHECK: %[[PER:.*]] = arith.ceildivui %[[SPAN0]], %c32
// CHECK: %[[STEPS:.*]] = arith.muli %[[PER]], %c2
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %[[STEPS]] step %c1{{.*}} iter_args(%[[DKT:.*]] = %{{.*}}, %[[DVT:.*]] = %{{.*}})
// CHECK: %[[R:.*]] = arith.divui %[[I]], %[[PER]]
// CHECK: %[[HEAD:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK: %[[QB:.*]] = arith.remui %[[I]], %[[PER]]
// CHECK: %[[QOFF:.*]] = arith.muli %[[QB]], %c32
// CHECK: %[[Q0:.*]] = arith.addi %[[QBEGIN]], %[[QOFF]]
// CHECK: %[[QTILE:.*]] = tensor.pad
// CHECK: } : tensor<?x16x{{.*}}> to tensor<32x16xf16>
// CHECK: %[[DOTILE:.*]] = tensor.pad
// CHECK: } : tensor<?x16x{{.*}}> to tensor<32x16xf16>
//     LSE padded with -inf (P = 0 for padding queries), D with 0; D from
//     the first nest.
// CHECK: tensor.extract_slice %[[L]][%[[B1]], %[[HEAD]], %[[Q0]]]
// CHECK: %[[LSET:.*]] = tensor.pad
// CHECK: tensor.yield %cst{{.*}} : f32
// CHECK: tensor.extract_slice %[[D]][%[[B1]], %[[HEAD]], %[[Q0]]]
// CHECK: %[[DT:.*]] = tensor.pad
//     S^T = K Q^T, masked with the causal bound only (padding key rows are
//     never stored), P^T, dV, dP^T = V dO^T, dS^T, dK.
// CHECK: %[[ST:.*]] = fa.qk %[[KTILE]], %[[QTILE]] : tensor<16x16xf16>, tensor<32x16xf16> -> tensor<16x32xf32>
// CHECK: %[[STM:.*]] = fa.mask %[[ST]][%[[K0]], %[[Q0]]] causal_offset(%[[OFF]]) {transposed} : tensor<16x32xf32>
// CHECK: %[[PT:.*]] = fa.probs_from_lse %[[STM]], %[[LSET]] scale(%[[SCALE2]]) {transposed}
// CHECK: %[[PT16:.*]] = arith.truncf %[[PT]] : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK: %[[DVN:.*]] = fa.pv %[[PT16]], %[[DOTILE]], %[[DVT]] : tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf32>
// CHECK: %[[DPT:.*]] = fa.qk %[[VTILE]], %[[DOTILE]]
// CHECK: %[[DST:.*]] = fa.score_grad %[[PT]], %[[DPT]], %[[DT]] scale(%[[SCALE]]) {transposed}
// CHECK: %[[DST16:.*]] = arith.truncf %[[DST]]
// CHECK: %[[DKN:.*]] = fa.pv %[[DST16]], %[[QTILE]], %[[DKT]]
// CHECK: scf.yield %[[DKN]], %[[DVN]]
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[DKO]][%[[B1]], %[[G]], %[[K0]], 0]
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[DVO]][%[[B1]], %[[G]], %[[K0]], 0]
//     3. dQ: one iteration per (batch, query head, Q block); K/V head h / 2.
// CHECK: %[[DQ:.*]] = scf.forall (%[[B2:.*]], %[[H2:.*]], %[[QB:.*]]) in (%{{.*}}, 2, %{{.*}}) shared_outs(%[[DQO:.*]] = %[[DQ0]])
// CHECK: %[[KVH:.*]] = arith.divui %[[H2]], %c2
// CHECK: %[[QS:.*]] = arith.muli %[[QB]], %c32
//     Keys up to the causal bound of the block's last row.
// CHECK: %[[END:.*]] = arith.addi %[[QS]], %{{.*}}
// CHECK: %[[LAST:.*]] = arith.subi %[[END]], %c1
// CHECK: %[[LASTOFF:.*]] = arith.addi %[[LAST]], %[[OFF]]
// CHECK: scf.for %[[KS:.*]] = %c0{{.*}} to %{{.*}} step %c16{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<32x16xf32>)
// CHECK: tensor.extract_slice %[[K]][%[[B2]], %[[KVH]], %[[KS]], 0]
// CHECK: %[[S:.*]] = fa.qk %{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[QS]], %[[KS]]] key_limit(%[[NK]]) causal_offset(%[[OFF]]) : tensor<32x16xf32>
// CHECK: %[[P:.*]] = fa.probs_from_lse %[[SM]], %{{.*}} scale(%[[SCALE2]]) : tensor<32x16xf32>, tensor<32xf32>
// CHECK: %[[DP:.*]] = fa.qk
// CHECK: %[[DS:.*]] = fa.score_grad %[[P]], %[[DP]], %{{.*}} scale(%[[SCALE]]) : tensor<32x16xf32>, tensor<32xf32>
// CHECK: %[[DS16:.*]] = arith.truncf %[[DS]]
// CHECK: fa.pv %[[DS16]], %{{.*}}, %[[ACC]] : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[DQO]][%[[B2]], %[[H2]], %[[QS]], 0]
// CHECK: return %[[DQ]], %[[KV]]#0, %[[KV]]#1
func.func @gqa_causal(%q: tensor<1x2x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x2x?x16xf16>, %do: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>, %dq0: tensor<1x2x?x16xf16>, %dk0: tensor<1x1x?x16xf16>, %dv0: tensor<1x1x?x16xf16>) -> (tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>) {
  %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) outs(%dq0, %dk0, %dv0 : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>) causal -> tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
  return %dq, %dk, %dv : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
}

// -----

// No mask, f32: no fa.mask in the dK/dV nest (nothing to hide there), the
// key limit alone in the dQ nest; every Q block and K/V block is visited;
// f32 accumulators are stored without rounding.
// CHECK-LABEL: func @plain_f32
// CHECK: fa.row_dot
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1
// CHECK-NOT: fa.mask
// CHECK: fa.probs_from_lse %{{.*}}, %{{.*}} scale(%{{.*}}) {transposed}
// CHECK-NOT: arith.truncf
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) : tensor<32x16xf32>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @plain_f32(%q: tensor<1x1x32x16xf32>, %l: tensor<1x1x32xf32>) -> (tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>) {
  %dq, %dk, %dv = fa.attention_backward ins(%q, %q, %q, %q, %q, %l : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32xf32>) outs(%q, %q, %q : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>
  return %dq, %dk, %dv : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>
}

// -----

// A window (4 left, causal) with a soft cap: both bounds skip blocks in
// both nests; the capped scores feed the score gradient and P's scale is
// log2(e) (the capped scores include the attention scale).
// CHECK-LABEL: func @window_softcap
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 5.000000e+00 : f32
// CHECK: %[[WOFF:.*]] = arith.addi %{{.*}}, %c-4
// CHECK: scf.forall
// CHECK: arith.subi %{{.*}}, %[[WOFF]]
// CHECK: %[[ST:.*]] = fa.softcap %{{.*}} scale(%{{.*}}) cap(%[[CAP]])
// CHECK: %[[STM:.*]] = fa.mask %[[ST]][{{.*}}] causal_offset(%{{.*}}) window_offset(%[[WOFF]]) {transposed}
// CHECK: fa.probs_from_lse %[[STM]], %{{.*}} scale(%[[LOG2E]]) {transposed}
// CHECK: fa.score_grad {{.*}} softcap(%[[STM]], %[[CAP]]) {transposed}
// CHECK: scf.forall
// CHECK: arith.addi %{{.*}}, %[[WOFF]]
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) causal_offset(%{{.*}}) window_offset(%[[WOFF]])
// CHECK: fa.score_grad {{.*}} softcap(
func.func @window_softcap(%q: tensor<1x1x64x16xbf16>, %l: tensor<1x1x64xf32>) -> (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) {
  %dq, %dk, %dv = fa.attention_backward ins(%q, %q, %q, %q, %q, %l : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64xf32>) outs(%q, %q, %q : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) causal window(4, 0) softcap(5.0) -> tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>
  return %dq, %dk, %dv : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>
}
