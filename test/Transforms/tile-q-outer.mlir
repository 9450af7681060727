// RUN: fa-opt %s -split-input-file --fa-tile-q-outer | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=32 block-n=16" | FileCheck %s --check-prefix=SMALL
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer --fa-decompose-tiles | FileCheck %s --check-prefix=NODIV

// GQA 8:2, causal, dynamic B and N, with LSE; default blocks 128 x 64.

// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>, %[[V:[^:]*]]: tensor<?x2x?x64xf16>, %[[O:[^:]*]]: tensor<?x8x?x64xf16>, %[[L:[^:]*]]: tensor<?x8x?xf32>)
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<?x8x?x64xf16>
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<?x8x?x64xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x2x?x64xf16>
//     One iteration per (batch, query head, Q block): ceil(Nq / 128) blocks.
// CHECK: %[[NUM_QB:.*]] = arith.ceildivui %[[NQ]], %[[C128]]
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]]
// CHECK: %[[RES:.*]]:2 = scf.forall (%[[BI:.*]], %[[H:.*]], %[[QB:.*]]) in (%[[B]], 8, %[[NUM_QB]]) shared_outs(%[[OS:.*]] = %[[O]], %[[LS:.*]] = %[[L]])
//     The Q block: rows [q0, q0 + min(128, Nq - q0)), zero-padded to 128.
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %[[C128]]
// CHECK: %[[QREM:.*]] = arith.subi %[[NQ]], %[[Q0]]
// CHECK: %[[QROWS:.*]] = arith.minsi %[[C128]], %[[QREM]]
//     GQA: query head h reads key/value head h / 4.
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %[[C4]]
// CHECK: %[[QSLICE:.*]] = tensor.extract_slice %[[Q]][%[[BI]], %[[H]], %[[Q0]], 0] [1, 1, %[[QROWS]], 64] [1, 1, 1, 1]
// CHECK: %[[QTILE:.*]] = tensor.pad %[[QSLICE]] low[0, 0] high[%{{.*}}, 0]
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16>
//     The online-softmax state: m = -inf, l = 0, acc = 0.
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
//     The inner loop over K/V blocks carries exactly (m, l, acc).
// CHECK: %[[STATE:.*]]:3 = scf.for %[[K0:.*]] = %[[C0]] to %[[NK]] step %[[C64]] iter_args(%[[M:.*]] = %[[M0]], %[[LSUM:.*]] = %[[L0]], %[[ACC:.*]] = %[[ACC0]]) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>)
// CHECK: %[[KREM:.*]] = arith.subi %[[NK]], %[[K0]]
// CHECK: %[[KROWS:.*]] = arith.minsi %[[C64]], %[[KREM]]
// CHECK: tensor.extract_slice %[[K]][%[[BI]], %[[KVH]], %[[K0]], 0] [1, 1, %[[KROWS]], 64]
// CHECK: %[[KTILE:.*]] = tensor.pad
// CHECK: tensor.extract_slice %[[V]][%[[BI]], %[[KVH]], %[[K0]], 0] [1, 1, %[[KROWS]], 64]
// CHECK: %[[VTILE:.*]] = tensor.pad
//     1/sqrt(64) * log2(e) = 0.18033688.
// CHECK: %[[S:.*]] = fa.qk %[[QTILE]], %[[KTILE]] scale(0.180336878) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[OFFSET]]) : tensor<128x64xf32>
// CHECK: %[[P:.*]], %[[MNEW:.*]], %[[LNEW:.*]], %[[ALPHA:.*]] = fa.online_softmax %[[SM]], %[[M]], %[[LSUM]]
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<128x64xf32> to tensor<128x64xf16>
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[P16]], %[[VTILE]], %[[ACC]], %[[ALPHA]]
// CHECK: scf.yield %[[MNEW]], %[[LNEW]], %[[ACCNEW]]
//     The one normalisation, then only the valid rows are written.
// CHECK: %[[OT:.*]], %[[LSET:.*]] = fa.finalize %[[STATE]]#2, %[[STATE]]#0, %[[STATE]]#1 : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xf16>
// CHECK: %[[OROWS:.*]] = tensor.extract_slice %[[OT]][0, 0] [%[[QROWS]], 64] [1, 1]
// CHECK: %[[LROWS:.*]] = tensor.extract_slice %[[LSET]][0] [%[[QROWS]]] [1]
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[OROWS]] into %[[OS]][%[[BI]], %[[H]], %[[Q0]], 0] [1, 1, %[[QROWS]], 64]
// CHECK: tensor.parallel_insert_slice %[[LROWS]] into %[[LS]][%[[BI]], %[[H]], %[[Q0]]] [1, 1, %[[QROWS]]]
// CHECK: return %[[RES]]#0, %[[RES]]#1

// SMALL-LABEL: func @gqa_causal
// SMALL: arith.ceildivui %{{.*}}, %c32
// SMALL: scf.for {{.*}} step %c16
// SMALL: fa.qk {{.*}} : tensor<32x64xf16>, tensor<16x64xf16> -> tensor<32x16xf32>

//     After the tile ops are decomposed, the loop still divides nothing: the
//     only division is the normalisation after it.
// NODIV-LABEL: func @gqa_causal
// NODIV: scf.for
// NODIV-NOT: arith.divf
// NODIV: scf.yield
// NODIV: arith.divf
// NODIV: math.log2
func.func @gqa_causal(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                        outs(%o, %l : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// -----

// Not causal, f32, static shapes, no LSE, Dv != D, explicit scale: the mask
// only has the key limit (a partial last block: 100 is not a multiple of 64),
// P is not rounded, and only O is written.

// CHECK-LABEL: func @static_f32_no_lse
// CHECK-DAG: %[[NK:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[NUM_QB:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 4, %[[NUM_QB]]) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<2x4x200x32xf32>)
// CHECK: arith.divui %{{.*}}, %c1
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[NK]] step
// CHECK: fa.qk {{.*}} scale(7.21347522) : tensor<128x16xf32>, tensor<64x16xf32> -> tensor<128x64xf32>
// CHECK: fa.mask %{{.*}}[%{{.*}}, %[[K0]]] key_limit(%[[NK]]) : tensor<128x64xf32>
// CHECK-NOT: arith.truncf
// CHECK: fa.pv {{.*}} : tensor<128x64xf32>, tensor<64x32xf32>, tensor<128x32xf32>, tensor<128xf32>
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

// IR without fa.attention passes through unchanged.
// CHECK-LABEL: func @no_attention
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @no_attention(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
