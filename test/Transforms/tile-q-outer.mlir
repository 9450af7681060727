// RUN: fa-opt %s -split-input-file --fa-tile-q-outer | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=32 block-n=16" | FileCheck %s --check-prefix=SMALL
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true block-m=32 block-n=16" | FileCheck %s --check-prefix=AUTO
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true block-m=0 block-n=4096" | FileCheck %s --check-prefix=AUTO
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_86" | FileCheck %s --check-prefix=SM86
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90" | FileCheck %s --check-prefix=AUTO

// Stage L0 -> L1: every tensor-form fa.attention becomes the FlashAttention-2
// loop nest: an scf.forall over (batch, query head, Q block) with an inner
// scf.for over K/V blocks carrying the online-softmax state (m, l, acc).

// GQA 8:2, causal, dynamic B, Nq and Nk, with LSE; default blocks 128 x 64.

//     The zero padding of the last (partial) Q and K/V blocks up to 128 and 64
//     rows.
// CHECK-DAG: #[[$PAD_M:.*]] = affine_map<(d0) -> (-d0 + 128)>
// CHECK-DAG: #[[$PAD_N:.*]] = affine_map<(d0) -> (-d0 + 64)>
// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>, %[[V:[^:]*]]: tensor<?x2x?x64xf16>, %[[O:[^:]*]]: tensor<?x8x?x64xf16>, %[[L:[^:]*]]: tensor<?x8x?xf32>)
//     Before the loop nest: the index constants, the softmax scale times
//     log2(e) as one f32 value (1/sqrt(64) * log2(e) = 0.180336878), and the
//     dynamic sizes B = dim 0 of Q, Nq = dim 2 of Q, Nk = dim 2 of K.
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[Q]], %c0{{[_0-9]*}} : tensor<?x8x?x64xf16>
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %c2{{[_0-9]*}} : tensor<?x8x?x64xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %c2{{[_0-9]*}} : tensor<?x2x?x64xf16>
//     One iteration per (batch, query head, Q block): ceil(Nq / 128) blocks;
//     the bottom-right causal offset Nk - Nq.
// CHECK-DAG: %[[NUM_QB:.*]] = arith.ceildivui %[[NQ]], %[[C128]] : index
// CHECK-DAG: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[RES:.*]]:2 = scf.forall (%[[BI:.*]], %[[H:.*]], %[[QB:.*]]) in (%[[B]], 8, %[[NUM_QB]]) shared_outs(%[[OS:.*]] = %[[O]], %[[LS:.*]] = %[[L]]) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
//     The Q block: rows [q0, q0 + min(128, Nq - q0)), zero-padded to 128.
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %[[C128]] : index
// CHECK: %[[QREM:.*]] = arith.subi %[[NQ]], %[[Q0]] : index
// CHECK: %[[QROWS:.*]] = arith.minsi %[[C128]], %[[QREM]] : index
//     GQA: query head h reads key/value head h / (8 / 2).
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %[[C4]] : index
// CHECK: %[[QSLICE:.*]] = tensor.extract_slice %[[Q]][%[[BI]], %[[H]], %[[Q0]], 0] [1, 1, %[[QROWS]], 64] [1, 1, 1, 1] : tensor<?x8x?x64xf16> to tensor<?x64xf16>
// CHECK: %[[QZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[QSLICE_ROWS:.*]] = tensor.dim %[[QSLICE]], %c0{{[_0-9]*}}
// CHECK: %[[QPAD:.*]] = affine.apply #[[$PAD_M]](%[[QSLICE_ROWS]])
// CHECK: %[[QTILE:.*]] = tensor.pad %[[QSLICE]] low[0, 0] high[%[[QPAD]], 0]
// CHECK: tensor.yield %[[QZERO]] : f16
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16>
//     The online-softmax state: m = -inf, l = 0, acc = 0 (f32, acc 128 x Dv).
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
//     The inner loop visits every K/V block [0, Nk) and carries exactly
//     (m, l, acc).
// CHECK: %[[STATE:.*]]:3 = scf.for %[[K0:.*]] = %[[C0]] to %[[NK]] step %[[C64]] iter_args(%[[M:.*]] = %[[M0]], %[[LSUM:.*]] = %[[L0]], %[[ACC:.*]] = %[[ACC0]]) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
//     K and V rows [k0, k0 + min(64, Nk - k0)) of key/value head h / 4,
//     zero-padded to 64.
// CHECK: %[[KREM:.*]] = arith.subi %[[NK]], %[[K0]] : index
// CHECK: %[[KROWS:.*]] = arith.minsi %[[C64]], %[[KREM]] : index
// CHECK: %[[KSLICE:.*]] = tensor.extract_slice %[[K]][%[[BI]], %[[KVH]], %[[K0]], 0] [1, 1, %[[KROWS]], 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
// CHECK: %[[KPAD:.*]] = affine.apply #[[$PAD_N]](
// CHECK: %[[KTILE:.*]] = tensor.pad %[[KSLICE]] low[0, 0] high[%[[KPAD]], 0]
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16>
// CHECK: %[[VSLICE:.*]] = tensor.extract_slice %[[V]][%[[BI]], %[[KVH]], %[[K0]], 0] [1, 1, %[[KROWS]], 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
// CHECK: %[[VTILE:.*]] = tensor.pad %[[VSLICE]] low[0, 0]
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16>
//     Raw scores (no scale on fa.qk), masked at the key limit and the
//     diagonal of this (Q block, K/V block) pair.
// CHECK: %[[S:.*]] = fa.qk %[[QTILE]], %[[KTILE]] : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[OFFSET]]) : tensor<128x64xf32>
//     The softmax step applies the scale (the f32 value before the forall)
//     to the running state.
// CHECK: %[[P:.*]], %[[MNEW:.*]], %[[LNEW:.*]], %[[ALPHA:.*]] = fa.online_softmax %[[SM]], %[[M]], %[[LSUM]] scale(%[[SCALE]]) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
//     P rounded to f16 for the P V matmul; acc rescaled by alpha, then
//     acc + P V.
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<128x64xf32> to tensor<128x64xf16>
// CHECK: %[[RESCALED:.*]] = fa.rescale %[[ACC]], %[[ALPHA]] : tensor<128x64xf32>, tensor<128xf32>
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[P16]], %[[VTILE]], %[[RESCALED]] : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>
// CHECK: scf.yield %[[MNEW]], %[[LNEW]], %[[ACCNEW]] : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
// CHECK-NEXT: }
//     The one normalisation, then only the valid rows of O and LSE are
//     written.
// CHECK: %[[OT:.*]], %[[LSET:.*]] = fa.finalize %[[STATE]]#2, %[[STATE]]#0, %[[STATE]]#1 : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xf16>
// CHECK: %[[OROWS:.*]] = tensor.extract_slice %[[OT]][0, 0] [%[[QROWS]], 64] [1, 1] : tensor<128x64xf16> to tensor<?x64xf16>
// CHECK: %[[LROWS:.*]] = tensor.extract_slice %[[LSET]][0] [%[[QROWS]]] [1] : tensor<128xf32> to tensor<?xf32>
// CHECK: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice %[[OROWS]] into %[[OS]][%[[BI]], %[[H]], %[[Q0]], 0] [1, 1, %[[QROWS]], 64] [1, 1, 1, 1]
// CHECK-NEXT: tensor.parallel_insert_slice %[[LROWS]] into %[[LS]][%[[BI]], %[[H]], %[[Q0]]] [1, 1, %[[QROWS]]] [1, 1, 1]
// CHECK-NEXT: }
// CHECK: return %[[RES]]#0, %[[RES]]#1
// CHECK-NOT: fa.attention

//     Smaller blocks: 32-row Q blocks, 16-row K/V blocks.
// SMALL-LABEL: func @gqa_causal
// SMALL-DAG: %[[C32:.*]] = arith.constant 32 : index
// SMALL-DAG: %[[C16:.*]] = arith.constant 16 : index
// SMALL: arith.ceildivui %{{.*}}, %[[C32]]
// SMALL: scf.for {{.*}} step %[[C16]] iter_args({{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>)
// SMALL: fa.qk {{.*}} : tensor<32x64xf16>, tensor<16x64xf16> -> tensor<32x16xf32>
// SMALL: fa.pv {{.*}} : tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32>

//     auto-blocks ignores block-m/block-n (even out-of-range ones) and picks
//     128 x 64.
// AUTO-LABEL: func @gqa_causal
// AUTO-DAG: %[[C128:.*]] = arith.constant 128 : index
// AUTO-DAG: %[[C64:.*]] = arith.constant 64 : index
// AUTO: arith.ceildivui %{{.*}}, %[[C128]]
// AUTO: scf.for {{.*}} step %[[C64]]
// AUTO: fa.qk {{.*}} : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
func.func @gqa_causal(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                        outs(%o, %l : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// -----

// Not causal, f32, static shapes, MHA (no head division beyond 1), no LSE,
// Dv = 32 != D = 16, explicit scale 5.0: the sizes are constants, the mask
// has only the key limit (100 is not a multiple of 64: the last block is
// partial), P is not rounded, and only O is written.

// CHECK-LABEL: func @static_f32_no_lse
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x200x16xf32>, %[[K:[^:]*]]: tensor<2x4x100x16xf32>, %[[V:[^:]*]]: tensor<2x4x100x32xf32>, %[[O:[^:]*]]: tensor<2x4x200x32xf32>)
//     5.0 * log2(e) = 7.21347522.
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 7.21347522 : f32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[NQ:.*]] = arith.constant 200 : index
// CHECK-DAG: %[[NK:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[NUM_QB:.*]] = arith.ceildivui %[[NQ]], %[[C128]] : index
// CHECK-NOT: tensor.dim
// CHECK: scf.forall (%{{.*}}, %[[H:.*]], %{{.*}}) in (2, 4, %[[NUM_QB]]) shared_outs(%{{.*}} = %[[O]]) -> (tensor<2x4x200x32xf32>)
// CHECK: arith.divui %[[H]], %[[C1]]
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[NK]] step {{.*}} -> (tensor<128xf32>, tensor<128xf32>, tensor<128x32xf32>)
// CHECK: %[[S:.*]] = fa.qk {{.*}} : tensor<128x16xf32>, tensor<64x16xf32> -> tensor<128x64xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%{{.*}}, %[[K0]]] key_limit(%[[NK]]) : tensor<128x64xf32>
// CHECK: %[[P:.*]], %{{.*}}, %{{.*}}, %[[ALPHA:.*]] = fa.online_softmax %[[SM]], %{{.*}}, %{{.*}} scale(%[[SCALE]])
// CHECK-NOT: arith.truncf
// CHECK: %[[RESCALED:.*]] = fa.rescale %{{.*}}, %[[ALPHA]] : tensor<128x32xf32>, tensor<128xf32>
// CHECK: fa.pv %[[P]], %{{.*}}, %[[RESCALED]] : tensor<128x64xf32>, tensor<64x32xf32>, tensor<128x32xf32>
// CHECK: fa.finalize {{.*}} -> tensor<128x32xf32>
// CHECK: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice
// CHECK-NEXT: }
func.func @static_f32_no_lse(%q: tensor<2x4x200x16xf32>, %k: tensor<2x4x100x16xf32>, %v: tensor<2x4x100x32xf32>,
                             %o: tensor<2x4x200x32xf32>) -> tensor<2x4x200x32xf32> {
  %0 = fa.attention ins(%q, %k, %v : tensor<2x4x200x16xf32>, tensor<2x4x100x16xf32>, tensor<2x4x100x32xf32>)
                    outs(%o : tensor<2x4x200x32xf32>) scale(5.0) -> tensor<2x4x200x32xf32>
  return %0 : tensor<2x4x200x32xf32>
}

// -----

// MQA (8 query heads, one key/value head) and two ops in one function: each
// gets its own loop nest and its own scale value; the second one reads the
// first one's result as its destination.

// CHECK-LABEL: func @mqa_two_ops
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x8x100x32xbf16>, %[[K:[^:]*]]: tensor<1x1x?x32xbf16>, %[[O:[^:]*]]: tensor<1x8x100x32xbf16>)
//     First op: default scale 1/sqrt(32) * log2(e) = 0.255034864, causal.
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[SCALE1:.*]] = arith.constant 0.255034864 : f32
// CHECK: %[[R1:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[O]])
// CHECK: arith.divui %{{.*}}, %[[C8]]
// CHECK: fa.mask {{.*}} causal_offset
// CHECK: fa.online_softmax {{.*}} scale(%[[SCALE1]])
// CHECK: arith.truncf {{.*}} to tensor<128x64xbf16>
//     Second op: scale(0.5) * log2(e) = 0.72134751, not causal.
// CHECK: %[[SCALE2:.*]] = arith.constant 0.72134751 : f32
// CHECK: %[[R2:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[R1]])
// CHECK-NOT: causal_offset
// CHECK: fa.online_softmax {{.*}} scale(%[[SCALE2]])
// CHECK: return %[[R1]], %[[R2]]
func.func @mqa_two_ops(%q: tensor<1x8x100x32xbf16>, %k: tensor<1x1x?x32xbf16>, %o: tensor<1x8x100x32xbf16>)
    -> (tensor<1x8x100x32xbf16>, tensor<1x8x100x32xbf16>) {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x8x100x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>)
                    outs(%o : tensor<1x8x100x32xbf16>) causal -> tensor<1x8x100x32xbf16>
  %1 = fa.attention ins(%q, %k, %k : tensor<1x8x100x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>)
                    outs(%0 : tensor<1x8x100x32xbf16>) scale(0.5) -> tensor<1x8x100x32xbf16>
  return %0, %1 : tensor<1x8x100x32xbf16>, tensor<1x8x100x32xbf16>
}

// -----

// A sliding window with soft-capping, not causal, window(100, 7),
// softcap(50), D = 64. Before the loop nest: the mask's two diagonal
// offsets, causal_offset = Nk - Nq + 7 (the right side) and window_offset =
// Nk - Nq - 100 (the left side), and the cap's f32 values: fa.softcap
// computes tanh(0.0025 * s) (scale / cap = 0.125 / 50; no cap operand), and
// the cap 50 moves into the softmax scale, 50 * log2(e) (72.1347... as an f32):
// the attention scale is inside the tanh, and the cap costs no multiply of
// its own per score (the softmax scales every score anyway).
// CHECK-LABEL: func @window_softcap
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x?x64xf16>, %[[K:[^:]*]]: tensor<1x2x?x64xf16>, %[[O:[^:]*]]: tensor<1x2x?x64xf16>)
// CHECK-DAG: %[[RIGHT:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[LEFT:.*]] = arith.constant -100 : index
// CHECK-DAG: %[[X_SCALE:.*]] = arith.constant 2.500000e-03 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 72.13475{{[0-9]*}} : f32
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %c2{{[_0-9]*}} : tensor<1x2x?x64xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %c2{{[_0-9]*}} : tensor<1x2x?x64xf16>
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[CAUSAL_OFF:.*]] = arith.addi %[[OFFSET]], %[[RIGHT]] : index
// CHECK: %[[WINDOW_OFF:.*]] = arith.addi %[[OFFSET]], %[[LEFT]] : index
// CHECK: scf.forall
// CHECK: %[[Q0:.*]] = arith.muli
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[NK]] step
//     Raw scores, capped, then masked: the cap comes first so that the
//     masked scores stay -inf.
// CHECK: %[[S:.*]] = fa.qk %{{.*}}, %{{.*}} : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK-NEXT: %[[SC:.*]] = fa.softcap %[[S]] scale(%[[X_SCALE]]) : tensor<128x64xf32>
// CHECK-NEXT: %[[SM:.*]] = fa.mask %[[SC]][%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[CAUSAL_OFF]]) window_offset(%[[WINDOW_OFF]]) : tensor<128x64xf32>
// CHECK-NEXT: fa.online_softmax %[[SM]], %{{.*}}, %{{.*}} scale(%[[SCALE]])
// CHECK-NOT: fa.softcap
// CHECK: fa.finalize
func.func @window_softcap(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %o: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) window(100, 7) softcap(50.0) -> tensor<1x2x?x64xf16>
  return %0 : tensor<1x2x?x64xf16>
}

// -----

// Windows with causal and with one side unbounded, one op each:
//   causal window(100, 7): causal clamps right to 0, so causal_offset is
//     Nk - Nq itself (no + 7) and window_offset = Nk - Nq - 100;
//   window(-1, 3): only causal_offset = Nk - Nq + 3 (no window_offset);
//   window(5, -1): only window_offset = Nk - Nq - 5 (no causal_offset).
// Without softcap the scale is 1/sqrt(64) * log2(e) and fa.mask follows
// fa.qk directly.
// CHECK-LABEL: func @window_sides
// CHECK-DAG: %[[LEFT:.*]] = arith.constant -100 : index
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK: %[[OFFSET:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[WINDOW_OFF:.*]] = arith.addi %[[OFFSET]], %[[LEFT]] : index
// CHECK-NEXT: scf.forall
// CHECK: fa.qk
// CHECK-NEXT: fa.mask %{{.*}} key_limit(%{{.*}}) causal_offset(%[[OFFSET]]) window_offset(%[[WINDOW_OFF]]) : tensor<128x64xf32>
// CHECK-NEXT: fa.online_softmax {{.*}} scale(%[[SCALE]])
//     window(-1, 3).
// CHECK: %[[RIGHT2:.*]] = arith.constant 3 : index
// CHECK: %[[OFFSET2:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[CAUSAL_OFF2:.*]] = arith.addi %[[OFFSET2]], %[[RIGHT2]] : index
// CHECK-NEXT: scf.forall
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) causal_offset(%[[CAUSAL_OFF2]]) : tensor<128x64xf32>
//     window(5, -1).
// CHECK: %[[LEFT3:.*]] = arith.constant -5 : index
// CHECK: %[[OFFSET3:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[WINDOW_OFF3:.*]] = arith.addi %[[OFFSET3]], %[[LEFT3]] : index
// CHECK-NEXT: scf.forall
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) window_offset(%[[WINDOW_OFF3]]) : tensor<128x64xf32>
// CHECK: return
func.func @window_sides(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %o: tensor<1x2x?x64xf16>)
    -> (tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) causal window(100, 7) -> tensor<1x2x?x64xf16>
  %1 = fa.attention ins(%q, %k, %k : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) window(-1, 3) -> tensor<1x2x?x64xf16>
  %2 = fa.attention ins(%q, %k, %k : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) window(5, -1) -> tensor<1x2x?x64xf16>
  return %0, %1, %2 : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
}

// -----

// auto-blocks takes the blocks from the #fa.mma_sync head-dim table
// (MmaSyncAtom.cpp getDefaultTiles), by max(D, Dv): d <= 32: 128 x 128,
// d <= 96: 128 x 32, d <= 256: 64 x 32 (the tests above: d = 64 -> 128 x
// 64). D = 32 with Dv = 96 is a d = 96 kernel.
// AUTO-LABEL: func @head_dim_table
// AUTO: fa.qk {{.*}} : tensor<128x32xf16>, tensor<128x32xf16> -> tensor<128x128xf32>
// AUTO: fa.pv {{.*}} : tensor<128x128xf16>, tensor<128x32xf16>, tensor<128x32xf32>
// AUTO: fa.qk {{.*}} : tensor<128x96xbf16>, tensor<32x96xbf16> -> tensor<128x32xf32>
// AUTO: fa.pv {{.*}} : tensor<128x32xbf16>, tensor<32x96xbf16>, tensor<128x96xf32>
// AUTO: fa.qk {{.*}} : tensor<64x256xf16>, tensor<32x256xf16> -> tensor<64x32xf32>
// AUTO: fa.pv {{.*}} : tensor<64x32xf16>, tensor<32x256xf16>, tensor<64x256xf32>
// AUTO: fa.qk {{.*}} : tensor<128x32xf16>, tensor<32x32xf16> -> tensor<128x32xf32>
// AUTO: fa.pv {{.*}} : tensor<128x32xf16>, tensor<32x96xf16>, tensor<128x96xf32>
func.func @head_dim_table(%q32: tensor<1x1x?x32xf16>, %q96: tensor<1x1x?x96xbf16>, %q256: tensor<1x1x?x256xf16>,
                          %v96: tensor<1x1x?x96xf16>, %o96: tensor<1x1x?x96xf16>)
    -> (tensor<1x1x?x32xf16>, tensor<1x1x?x96xbf16>, tensor<1x1x?x256xf16>, tensor<1x1x?x96xf16>) {
  %0 = fa.attention ins(%q32, %q32, %q32 : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>)
                    outs(%q32 : tensor<1x1x?x32xf16>) causal -> tensor<1x1x?x32xf16>
  %1 = fa.attention ins(%q96, %q96, %q96 : tensor<1x1x?x96xbf16>, tensor<1x1x?x96xbf16>, tensor<1x1x?x96xbf16>)
                    outs(%q96 : tensor<1x1x?x96xbf16>) -> tensor<1x1x?x96xbf16>
  %2 = fa.attention ins(%q256, %q256, %q256 : tensor<1x1x?x256xf16>, tensor<1x1x?x256xf16>, tensor<1x1x?x256xf16>)
                    outs(%q256 : tensor<1x1x?x256xf16>) causal -> tensor<1x1x?x256xf16>
  %3 = fa.attention ins(%q32, %q32, %v96 : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x96xf16>)
                    outs(%o96 : tensor<1x1x?x96xf16>) -> tensor<1x1x?x96xf16>
  return %0, %1, %2, %3 : tensor<1x1x?x32xf16>, tensor<1x1x?x96xbf16>, tensor<1x1x?x256xf16>, tensor<1x1x?x96xf16>
}

// -----

// On a chip with 99 KB of shared memory per thread block (sm_86) the table's
// tiles are shrunk until Q plus two stages of K and V fit: d = 128 (128 x 64,
// 104448 bytes) halves the K/V block; d = 192 (128 x 64) needs a 64 x 32
// block. d = 64 fits as it is. With chip=sm_90 (227 KB) the AUTO prefix
// checks that they stay as the table says.
// SM86-LABEL: func @fit_shared_memory
// SM86: fa.qk {{.*}} : tensor<128x128xf16>, tensor<32x128xf16> -> tensor<128x32xf32>
// SM86: fa.qk {{.*}} : tensor<64x192xf16>, tensor<32x192xf16> -> tensor<64x32xf32>
// SM86: fa.qk {{.*}} : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// AUTO-LABEL: func @fit_shared_memory
// AUTO: fa.qk {{.*}} : tensor<128x128xf16>, tensor<64x128xf16> -> tensor<128x64xf32>
// AUTO: fa.qk {{.*}} : tensor<128x192xf16>, tensor<64x192xf16> -> tensor<128x64xf32>
// AUTO: fa.qk {{.*}} : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
func.func @fit_shared_memory(%q128: tensor<1x1x?x128xf16>, %q192: tensor<1x1x?x192xf16>, %q64: tensor<1x1x?x64xf16>)
    -> (tensor<1x1x?x128xf16>, tensor<1x1x?x192xf16>, tensor<1x1x?x64xf16>) {
  %0 = fa.attention ins(%q128, %q128, %q128 : tensor<1x1x?x128xf16>, tensor<1x1x?x128xf16>, tensor<1x1x?x128xf16>)
                    outs(%q128 : tensor<1x1x?x128xf16>) -> tensor<1x1x?x128xf16>
  %1 = fa.attention ins(%q192, %q192, %q192 : tensor<1x1x?x192xf16>, tensor<1x1x?x192xf16>, tensor<1x1x?x192xf16>)
                    outs(%q192 : tensor<1x1x?x192xf16>) -> tensor<1x1x?x192xf16>
  %2 = fa.attention ins(%q64, %q64, %q64 : tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>)
                    outs(%q64 : tensor<1x1x?x64xf16>) -> tensor<1x1x?x64xf16>
  return %0, %1, %2 : tensor<1x1x?x128xf16>, tensor<1x1x?x192xf16>, tensor<1x1x?x64xf16>
}

// -----

// No query rows (Nq statically 0): nothing to compute; the results are the
// outputs as they are, and no loop nest is built.
// CHECK-LABEL: func @no_query_rows
// CHECK-SAME: %[[O:[a-z0-9]+]]: tensor<2x4x0x64xf16>, %[[L:[a-z0-9]+]]: tensor<2x4x0xf32>
// CHECK-NEXT: return %[[O]], %[[L]]
func.func @no_query_rows(%q: tensor<2x4x0x64xf16>, %k: tensor<2x4x?x64xf16>, %o: tensor<2x4x0x64xf16>, %l: tensor<2x4x0xf32>)
    -> (tensor<2x4x0x64xf16>, tensor<2x4x0xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %k : tensor<2x4x0x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>)
                        outs(%o, %l : tensor<2x4x0x64xf16>, tensor<2x4x0xf32>) causal
                        -> tensor<2x4x0x64xf16>, tensor<2x4x0xf32>
  return %0, %1 : tensor<2x4x0x64xf16>, tensor<2x4x0xf32>
}

// -----

// IR without fa.attention passes through unchanged.
// CHECK-LABEL: func @no_attention
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @no_attention(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
