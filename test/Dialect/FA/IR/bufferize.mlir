// RUN: fa-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// One-shot bufferization turns the tensor form into the memref form: the
// destinations become the buffers that fa.attention writes.

// CHECK-LABEL: func @destinations_become_buffers
// CHECK-SAME: (%[[Q:.*]]: memref<1x4x?x64xf16>, %[[K:.*]]: memref<1x2x?x64xf16>, %[[V:.*]]: memref<1x2x?x64xf16>, %[[O:.*]]: memref<1x4x?x64xf16>, %[[L:.*]]: memref<1x4x?xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: fa.attention ins(%[[Q]], %[[K]], %[[V]] : memref<1x4x?x64xf16>, memref<1x2x?x64xf16>, memref<1x2x?x64xf16>)
// CHECK-SAME: outs(%[[O]], %[[L]] : memref<1x4x?x64xf16>, memref<1x4x?xf32>) scale(1.250000e-01) causal{{$}}
// CHECK: return %[[O]], %[[L]]
func.func @destinations_become_buffers(%q: tensor<1x4x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                                       %o: tensor<1x4x?x64xf16>, %l: tensor<1x4x?xf32>)
    -> (tensor<1x4x?x64xf16>, tensor<1x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                        outs(%o, %l : tensor<1x4x?x64xf16>, tensor<1x4x?xf32>) scale(0.125) causal
                        -> tensor<1x4x?x64xf16>, tensor<1x4x?xf32>
  return %0, %1 : tensor<1x4x?x64xf16>, tensor<1x4x?xf32>
}

// -----

// The destination is only written, never read: a tensor.empty destination
// becomes a fresh allocation with no copy into it.
// CHECK-LABEL: func @empty_destination_needs_no_copy
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<1x1x16x32xf32>
// CHECK-NOT: memref.copy
// CHECK: fa.attention ins({{.*}}) outs(%[[ALLOC]] : memref<1x1x16x32xf32>)
// CHECK: return %[[ALLOC]]
func.func @empty_destination_needs_no_copy(%q: tensor<1x1x16x32xf32>, %k: tensor<1x1x16x32xf32>, %v: tensor<1x1x16x32xf32>)
    -> tensor<1x1x16x32xf32> {
  %init = tensor.empty() : tensor<1x1x16x32xf32>
  %0 = fa.attention ins(%q, %k, %v : tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>)
                    outs(%init : tensor<1x1x16x32xf32>) -> tensor<1x1x16x32xf32>
  return %0 : tensor<1x1x16x32xf32>
}

// -----

// A destination that is still used afterwards gets a buffer of its own, so the
// original value survives; since fa.attention never reads its destination,
// nothing is copied into the new buffer.
// CHECK-LABEL: func @live_destination_is_copied
// CHECK-SAME: (%{{.*}}: memref<1x1x16x32xf32>, %{{.*}}: memref<1x1x16x32xf32>, %{{.*}}: memref<1x1x16x32xf32>, %[[INIT:.*]]: memref<1x1x16x32xf32>)
// CHECK: %[[ALLOC:.*]] = memref.alloc
// CHECK-NOT: memref.copy
// CHECK: fa.attention ins({{.*}}) outs(%[[ALLOC]] : memref<1x1x16x32xf32>)
// CHECK: return %[[ALLOC]], %[[INIT]]
func.func @live_destination_is_copied(%q: tensor<1x1x16x32xf32>, %k: tensor<1x1x16x32xf32>, %v: tensor<1x1x16x32xf32>,
                                      %init: tensor<1x1x16x32xf32>)
    -> (tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>) {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>)
                    outs(%init : tensor<1x1x16x32xf32>) -> tensor<1x1x16x32xf32>
  return %0, %init : tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>
}

// -----

// fa.attention_backward bufferizes the same way: its three destinations
// become the buffers it writes, and since it never reads them, tensor.empty
// destinations need no copy.
// CHECK-LABEL: func @backward_destinations_become_buffers
// CHECK-SAME: (%[[Q:.*]]: memref<1x4x?x64xf16>, %[[K:.*]]: memref<1x2x?x64xf16>, %[[V:.*]]: memref<1x2x?x64xf16>, %[[O:.*]]: memref<1x4x?x64xf16>, %[[DO:.*]]: memref<1x4x?x64xf16>, %[[L:.*]]: memref<1x4x?xf32>, %[[DQ:.*]]: memref<1x4x?x64xf16>)
// CHECK-DAG: %[[DK:.*]] = memref.alloc({{.*}}) {{.*}} : memref<1x2x?x64xf16>
// CHECK-DAG: %[[DV:.*]] = memref.alloc({{.*}}) {{.*}} : memref<1x2x?x64xf16>
// CHECK-NOT: memref.copy
// CHECK: fa.attention_backward ins(%[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[L]] : memref<1x4x?x64xf16>, memref<1x2x?x64xf16>, memref<1x2x?x64xf16>, memref<1x4x?x64xf16>, memref<1x4x?x64xf16>, memref<1x4x?xf32>)
// CHECK-SAME: outs(%[[DQ]], %[[DK]], %[[DV]] : memref<1x4x?x64xf16>, memref<1x2x?x64xf16>, memref<1x2x?x64xf16>) scale(1.250000e-01) causal softcap(2.000000e+01){{$}}
// CHECK-NOT: memref.copy
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @backward_destinations_become_buffers(
    %q: tensor<1x4x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
    %o: tensor<1x4x?x64xf16>, %do: tensor<1x4x?x64xf16>, %l: tensor<1x4x?xf32>, %dq: tensor<1x4x?x64xf16>)
    -> (tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) {
  %c2 = arith.constant 2 : index
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x64xf16>
  %dk = tensor.empty(%nk) : tensor<1x2x?x64xf16>
  %dv = tensor.empty(%nk) : tensor<1x2x?x64xf16>
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>,
                                    tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?xf32>)
      outs(%dq, %dk, %dv : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
      scale(0.125) causal softcap(20.0)
      -> tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
  return %0#0, %0#1, %0#2 : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
}

// -----

// The K/V cache operands are read-only inputs: plain buffers of the
// function's arguments, no copies.
// CHECK-LABEL: func @paged
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: memref<?x4x?x16xf16>, %[[K:[a-z0-9]+]]: memref<?x32x2x16xf16>, %[[V:[a-z0-9]+]]: memref<?x32x2x16xf16>, %[[N:[a-z0-9]+]]: memref<?xi32>, %[[T:[a-z0-9]+]]: memref<?x?xi32>, %[[O:[a-z0-9]+]]: memref<?x4x?x16xf16>)
// CHECK-NOT: memref.copy
// CHECK: fa.attention ins(%[[Q]], %[[K]], %[[V]] : memref<?x4x?x16xf16>, memref<?x32x2x16xf16>, memref<?x32x2x16xf16>) key_lengths(%[[N]] : memref<?xi32>) block_table(%[[T]] : memref<?x?xi32>) outs(%[[O]] : memref<?x4x?x16xf16>) causal
func.func @paged(%q: tensor<?x4x?x16xf16>, %k: tensor<?x32x2x16xf16>, %v: tensor<?x32x2x16xf16>,
                 %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x16xf16>) -> tensor<?x4x?x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x16xf16>, tensor<?x32x2x16xf16>, tensor<?x32x2x16xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x16xf16>) causal -> tensor<?x4x?x16xf16>
  return %r : tensor<?x4x?x16xf16>
}

// -----

// Packed sequences: cu_seqlens become buffers like the other inputs; the
// max_seqlen_q scalar stays the function's index argument.
// CHECK-LABEL: func @varlen_scalar_stays
// CHECK-SAME: %[[CQ:[a-z0-9]+]]: memref<?xi32>, %[[CK:[a-z0-9]+]]: memref<?xi32>, %[[M:[a-z0-9]+]]: index
// CHECK: fa.attention ins({{.*}}) cu_seqlens(%[[CQ]], %[[CK]] : memref<?xi32>, memref<?xi32>) max_seqlen_q(%[[M]]) outs(
func.func @varlen_scalar_stays(%q: tensor<1x4x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                               %cq: tensor<?xi32>, %ck: tensor<?xi32>, %m: index, %o: tensor<1x4x?x64xf16>)
    -> tensor<1x4x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x4x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>) max_seqlen_q(%m)
                    outs(%o : tensor<1x4x?x64xf16>) causal -> tensor<1x4x?x64xf16>
  return %0 : tensor<1x4x?x64xf16>
}
