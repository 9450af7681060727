// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// Round trip of every form of fa.attention: the custom syntax must print back
// to itself, and the generic form must parse back into it.

// CHECK-LABEL: func @tensor_form_with_lse
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x128x64xf16>, %[[K:.*]]: tensor<2x2x128x64xf16>, %[[V:.*]]: tensor<2x2x128x64xf16>, %[[O:.*]]: tensor<2x8x128x64xf16>, %[[L:.*]]: tensor<2x8x128xf32>)
// CHECK: %[[R:.*]]:2 = fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
// CHECK-SAME: outs(%[[O]], %[[L]] : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) causal
// CHECK-SAME: -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @tensor_form_with_lse(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>,
                                %v: tensor<2x2x128x64xf16>, %o: tensor<2x8x128x64xf16>,
                                %l: tensor<2x8x128xf32>) -> (tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                        outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) causal
                        -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  return %0, %1 : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
}

// -----

// CHECK-LABEL: func @tensor_form_dynamic_no_lse
// CHECK: fa.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x?x128xbf16>, tensor<?x1x?x128xbf16>, tensor<?x1x?x96xbf16>)
// CHECK-SAME: outs(%{{.*}} : tensor<?x4x?x96xbf16>) scale(2.500000e-01) -> tensor<?x4x?x96xbf16>
// CHECK-NOT: causal
func.func @tensor_form_dynamic_no_lse(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x1x?x128xbf16>,
                                      %v: tensor<?x1x?x96xbf16>, %o: tensor<?x4x?x96xbf16>) -> tensor<?x4x?x96xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x1x?x128xbf16>, tensor<?x1x?x96xbf16>)
                    outs(%o : tensor<?x4x?x96xbf16>) scale(0.25) -> tensor<?x4x?x96xbf16>
  return %0 : tensor<?x4x?x96xbf16>
}

// -----

// CHECK-LABEL: func @memref_form
// CHECK-SAME: (%[[Q:.*]]: memref<1x4x?x32xf32>, %[[K:.*]]: memref<1x4x?x32xf32>, %[[V:.*]]: memref<1x4x?x32xf32>, %[[O:.*]]: memref<1x4x?x32xf32>, %[[L:.*]]: memref<1x4x?xf32>)
// CHECK: fa.attention ins(%[[Q]], %[[K]], %[[V]] : memref<1x4x?x32xf32>, memref<1x4x?x32xf32>, memref<1x4x?x32xf32>)
// CHECK-SAME: outs(%[[O]], %[[L]] : memref<1x4x?x32xf32>, memref<1x4x?xf32>) causal{{$}}
func.func @memref_form(%q: memref<1x4x?x32xf32>, %k: memref<1x4x?x32xf32>, %v: memref<1x4x?x32xf32>,
                       %o: memref<1x4x?x32xf32>, %l: memref<1x4x?xf32>) {
  fa.attention ins(%q, %k, %v : memref<1x4x?x32xf32>, memref<1x4x?x32xf32>, memref<1x4x?x32xf32>)
               outs(%o, %l : memref<1x4x?x32xf32>, memref<1x4x?xf32>) causal
  return
}

// -----

// Strided memrefs (for example a [B, N, H, D] buffer viewed as [B, H, N, D]).
// CHECK-LABEL: func @memref_form_strided
// CHECK: fa.attention ins({{.*}} : memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>, {{.*}}) outs({{.*}}) scale(1.250000e-01)
func.func @memref_form_strided(%q: memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>,
                               %k: memref<2x8x?x64xf16>, %v: memref<2x8x?x64xf16>,
                               %o: memref<2x8x?x64xf16>) {
  fa.attention ins(%q, %k, %v : memref<2x8x?x64xf16, strided<[?, 64, 512, 1]>>, memref<2x8x?x64xf16>, memref<2x8x?x64xf16>)
               outs(%o : memref<2x8x?x64xf16>) scale(0.125)
  return
}

// -----

// A sliding window (both sides bounded) with a soft cap: `window(left,
// right)` prints back in that order (left first) and `softcap` after it, as
// an f32.
// CHECK-LABEL: func @window_and_softcap
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x64xbf16>, %[[K:.*]]: tensor<1x2x?x64xbf16>, %[[V:.*]]: tensor<1x2x?x64xbf16>, %[[O:.*]]: tensor<1x4x?x64xbf16>)
// CHECK: %[[R:.*]] = fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>)
// CHECK-SAME: outs(%[[O]] : tensor<1x4x?x64xbf16>) window(128, 7) softcap(5.000000e+01) -> tensor<1x4x?x64xbf16>
// CHECK: return %[[R]]
func.func @window_and_softcap(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>,
                              %o: tensor<1x4x?x64xbf16>) -> tensor<1x4x?x64xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>)
                    outs(%o : tensor<1x4x?x64xbf16>) window(128, 7) softcap(50.0) -> tensor<1x4x?x64xbf16>
  return %0 : tensor<1x4x?x64xbf16>
}

// -----

// Every optional part at once, in the order of the syntax: scale, causal,
// window, softcap. -1 (an unbounded side) is a valid size on either side,
// and with causal the right size is kept as written (the op, not the
// syntax, clamps it to 0).
// CHECK-LABEL: func @everything
// CHECK: fa.attention ins({{.*}}) outs({{.*}}) scale(1.250000e-01) causal window(-1, 5) softcap(3.000000e+01) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
// CHECK: fa.attention ins({{.*}}) outs({{.*}}) causal window(16, -1) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
// CHECK: fa.attention ins({{.*}}) outs({{.*}}) window(-1, -1) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
// CHECK: fa.attention ins({{.*}}) outs({{.*}}) window(0, 0) -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
func.func @everything(%q: tensor<2x8x128x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>,
                      %o: tensor<2x8x128x64xf16>, %l: tensor<2x8x128xf32>) {
  %0:2 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                      outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) scale(0.125) causal window(-1, 5) softcap(30.0)
                      -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  %1:2 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                      outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) causal window(16, -1)
                      -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  %2:2 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                      outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) window(-1, -1)
                      -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  %3:2 = fa.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>)
                      outs(%o, %l : tensor<2x8x128x64xf16>, tensor<2x8x128xf32>) window(0, 0)
                      -> tensor<2x8x128x64xf16>, tensor<2x8x128xf32>
  return
}

// -----

// The memref form takes the window and the cap too (no results).
// CHECK-LABEL: func @memref_window_softcap
// CHECK: fa.attention ins({{.*}} : memref<1x2x?x32xf16>, memref<1x2x?x32xf16>, memref<1x2x?x32xf16>) outs(%{{.*}} : memref<1x2x?x32xf16>) causal window(64, 0) softcap(2.500000e-01){{$}}
func.func @memref_window_softcap(%q: memref<1x2x?x32xf16>, %k: memref<1x2x?x32xf16>, %v: memref<1x2x?x32xf16>,
                                 %o: memref<1x2x?x32xf16>) {
  fa.attention ins(%q, %k, %v : memref<1x2x?x32xf16>, memref<1x2x?x32xf16>, memref<1x2x?x32xf16>)
               outs(%o : memref<1x2x?x32xf16>) causal window(64, 0) softcap(0.25)
  return
}

// -----

// A dense K/V cache with per-sequence key counts.
// CHECK-LABEL: func @key_lengths
// CHECK-SAME: %[[N:[a-z0-9]+]]: tensor<?xi32>
// CHECK: fa.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8x1x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
// CHECK-SAME: key_lengths(%[[N]] : tensor<?xi32>) outs(%{{.*}} : tensor<?x8x1x64xf16>) causal -> tensor<?x8x1x64xf16>
func.func @key_lengths(%q: tensor<?x8x1x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                       %n: tensor<?xi32>, %o: tensor<?x8x1x64xf16>) -> tensor<?x8x1x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x8x1x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                    key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x8x1x64xf16>) causal -> tensor<?x8x1x64xf16>
  return %0 : tensor<?x8x1x64xf16>
}

// -----

// A paged cache: pools of 64-key pages, read through a block table.
// CHECK-LABEL: func @paged
// CHECK-SAME: %[[N:[a-z0-9]+]]: memref<?xi32>, %[[T:[a-z0-9]+]]: memref<?x?xi32>
// CHECK: fa.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x32x1x128xbf16>, memref<?x64x8x128xbf16>, memref<?x64x8x128xbf16>)
// CHECK-SAME: key_lengths(%[[N]] : memref<?xi32>) block_table(%[[T]] : memref<?x?xi32>) outs(%{{.*}}, %{{.*}} : memref<?x32x1x128xbf16>, memref<?x32x1xf32>){{$}}
func.func @paged(%q: memref<?x32x1x128xbf16>, %k: memref<?x64x8x128xbf16>, %v: memref<?x64x8x128xbf16>,
                 %n: memref<?xi32>, %t: memref<?x?xi32>, %o: memref<?x32x1x128xbf16>, %l: memref<?x32x1xf32>) {
  fa.attention ins(%q, %k, %v : memref<?x32x1x128xbf16>, memref<?x64x8x128xbf16>, memref<?x64x8x128xbf16>)
               key_lengths(%n : memref<?xi32>) block_table(%t : memref<?x?xi32>)
               outs(%o, %l : memref<?x32x1x128xbf16>, memref<?x32x1xf32>)
  return
}

// -----

// Sequences packed along N (cu_seqlens).
// CHECK-LABEL: func @varlen
// CHECK-SAME: %[[CQ:[a-z0-9]+]]: tensor<?xi32>, %[[CK:[a-z0-9]+]]: tensor<?xi32>
// CHECK: fa.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
// CHECK-SAME: cu_seqlens(%[[CQ]], %[[CK]] : tensor<?xi32>, tensor<?xi32>) outs(%{{.*}} : tensor<1x8x?x64xf16>) causal
func.func @varlen(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                  %cq: tensor<?xi32>, %ck: tensor<?xi32>, %o: tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>) outs(%o : tensor<1x8x?x64xf16>) causal -> tensor<1x8x?x64xf16>
  return %0 : tensor<1x8x?x64xf16>
}

// -----

// With FlashAttention's max_seqlen_q (an index), printed after cu_seqlens.
// CHECK-LABEL: func @varlen_max_seqlen
// CHECK-SAME: %[[M:[a-z0-9]+]]: index
// CHECK: cu_seqlens(%{{.*}}, %{{.*}} : tensor<?xi32>, tensor<?xi32>) max_seqlen_q(%[[M]]) outs(
func.func @varlen_max_seqlen(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                             %cq: tensor<?xi32>, %ck: tensor<?xi32>, %m: index, %o: tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>) max_seqlen_q(%m) outs(%o : tensor<1x8x?x64xf16>) causal -> tensor<1x8x?x64xf16>
  return %0 : tensor<1x8x?x64xf16>
}

// -----

// The clauses parse in any order and print in one: scale, causal, window,
// softcap (tensor and memref forms, the backward op too).
// CHECK-LABEL: func @clauses_any_order
// CHECK: fa.attention ins({{.*}}) outs(%{{.*}} : tensor<1x4x128x64xf16>) scale(5.000000e-01) causal window(16, 0) softcap(3.000000e+01) {note = 1 : i64} -> tensor<1x4x128x64xf16>
// CHECK: fa.attention ins({{.*}}) outs(%{{.*}} : memref<1x4x128x64xf16>) causal window(8, -1){{$}}
// CHECK: fa.attention_backward ins({{.*}}) outs({{.*}}) scale(2.500000e-01) causal softcap(5.000000e+01) ->
func.func @clauses_any_order(%q: tensor<1x4x128x64xf16>, %o: tensor<1x4x128x64xf16>, %m: memref<1x4x128x64xf16>,
                             %l: tensor<1x4x128xf32>) -> tensor<1x4x128x64xf16> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>)
                    outs(%o : tensor<1x4x128x64xf16>) softcap(30.0) window(16, 0) causal scale(0.5) {note = 1} -> tensor<1x4x128x64xf16>
  fa.attention ins(%m, %m, %m : memref<1x4x128x64xf16>, memref<1x4x128x64xf16>, memref<1x4x128x64xf16>)
               outs(%m : memref<1x4x128x64xf16>) window(8, -1) causal
  %1:3 = fa.attention_backward ins(%q, %q, %q, %0, %o, %l : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128xf32>)
                                 outs(%o, %o, %o : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>) softcap(50.0) causal scale(0.25)
                                 -> tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>
  return %1#0 : tensor<1x4x128x64xf16>
}
