// RUN: fa-opt %s | fa-opt | FileCheck %s
// RUN: fa-opt %s -mlir-print-op-generic | fa-opt | FileCheck %s

// Round trip of the tile-level ops, as --fa-tile-q-outer writes them.

// CHECK-LABEL: func @one_kv_step
// CHECK-SAME: (%[[Q:.*]]: tensor<128x64xf16>, %[[K:.*]]: tensor<64x64xf16>, %[[V:.*]]: tensor<64x64xf16>, %[[M:.*]]: tensor<128xf32>, %[[L:.*]]: tensor<128xf32>, %[[ACC:.*]]: tensor<128x64xf32>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[N:.*]]: index, %[[OFF:.*]]: index)
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] scale(0.180336878) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[R0]], %[[C0]]] key_limit(%[[N]]) causal_offset(%[[OFF]]) : tensor<128x64xf32>
// CHECK: %[[SK:.*]] = fa.mask %[[SM]][%[[R0]], %[[C0]]] key_limit(%[[N]]) : tensor<128x64xf32>
// CHECK: %[[SC:.*]] = fa.mask %[[SK]][%[[R0]], %[[C0]]] causal_offset(%[[OFF]]) : tensor<128x64xf32>
// CHECK: %[[P:.*]], %[[MNEW:.*]], %[[LNEW:.*]], %[[ALPHA:.*]] = fa.online_softmax %[[SC]], %[[M]], %[[L]] : tensor<128x64xf32>, tensor<128xf32>
// CHECK: %[[P16:.*]] = arith.truncf %[[P]]
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[P16]], %[[V]], %[[ACC]], %[[ALPHA]] : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>, tensor<128xf32>
// CHECK: %[[O:.*]], %[[LSE:.*]] = fa.finalize %[[ACCNEW]], %[[MNEW]], %[[LNEW]] : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xf16>
// CHECK: return %[[O]], %[[LSE]]
func.func @one_kv_step(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x64xf16>,
                       %m: tensor<128xf32>, %l: tensor<128xf32>, %acc: tensor<128x64xf32>,
                       %r0: index, %c0: index, %n: index, %off: index) -> (tensor<128x64xf16>, tensor<128xf32>) {
  %s = fa.qk %q, %k scale(0.180336878) : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  %s1 = fa.mask %s[%r0, %c0] key_limit(%n) causal_offset(%off) : tensor<128x64xf32>
  %s2 = fa.mask %s1[%r0, %c0] key_limit(%n) : tensor<128x64xf32>
  %s3 = fa.mask %s2[%r0, %c0] causal_offset(%off) : tensor<128x64xf32>
  %p, %m2, %l2, %alpha = fa.online_softmax %s3, %m, %l : tensor<128x64xf32>, tensor<128xf32>
  %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
  %acc2 = fa.pv %p16, %v, %acc, %alpha : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>, tensor<128xf32>
  %o, %lse = fa.finalize %acc2, %m2, %l2 : tensor<128x64xf32>, tensor<128xf32> -> tensor<128x64xf16>
  return %o, %lse : tensor<128x64xf16>, tensor<128xf32>
}
