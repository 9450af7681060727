// RUN: fa-opt %s -split-input-file --fa-warp-block-skip | FileCheck %s
// Running it again changes nothing (the rewritten loops have no fa.mask
// left in their bodies).
// RUN: fa-opt %s -split-input-file --fa-warp-block-skip -o %t
// RUN: fa-opt %t -split-input-file --fa-warp-block-skip | diff %t -

// Hand-written L3 (the K/V loops of --fa-pipeline-kv output, with the tiles
// as arguments): 64-row Q blocks on 2 warps of 32 rows, 32-key blocks.

// A causal edge: the step moves into an scf.if on "the warp's last row sees
// a key at or after k0": min(Nk, q0 + first + count - 1 + off + 1) > k0.
// The else branch yields the state unchanged.

// CHECK-LABEL: func @causal_edge
// CHECK-SAME: (%[[QA:[^:]*]]: tensor<64x16xf16, #opA_w2>, %[[K:[^:]*]]: tensor<32x16xf16, #shared>, %[[V:[^:]*]]: tensor<32x16xf16, #shared>, %[[Q0:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[OFF:[^:]*]]: index, %[[LO:[^:]*]]: index, %[[HI:[^:]*]]: index)
// CHECK: scf.for %[[K0:.*]] = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}})
// CHECK-NEXT: %[[FIRST:.*]], %[[COUNT:.*]] = fa.warp_row_range %[[M]] : tensor<64xf32, #rows_w2>
// CHECK: %[[R0:.*]] = arith.addi %[[Q0]], %[[FIRST]] : index
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %[[COUNT]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[R1]], %{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[LAST]], %[[OFF]] : index
// CHECK: %[[DEND:.*]] = arith.addi %[[DIAG]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[DEND]] : index
// CHECK: %[[SEES:.*]] = arith.cmpi sgt, %[[END]], %[[K0]] : index
// CHECK: %[[STEP:.*]]:3 = scf.if %[[SEES]] -> (tensor<64xf32, #rows_w2>, tensor<64xf32, #partial_w2>, tensor<64x16xf32, #acc_w2>) {
// CHECK-NEXT: %[[S:.*]] = fa.qk %[[QA]], %[[K]]
// CHECK-NEXT: %[[SM:.*]] = fa.mask %[[S]][%[[Q0]], %[[K0]]] key_limit(%[[NK]]) causal_offset(%[[OFF]])
// CHECK-NEXT: %[[P:.*]], %[[M2:.*]], %[[L2:.*]], %[[AL:.*]] = fa.online_softmax %[[SM]], %[[M]], %[[L]]
// CHECK-NEXT: %[[P16:.*]] = arith.truncf %[[P]]
// CHECK-NEXT: %[[PA:.*]] = fa.convert_layout %[[P16]]
// CHECK-NEXT: %[[ACC1:.*]] = fa.rescale %[[ACC]], %[[AL]]
// CHECK-NEXT: %[[ACC2:.*]] = fa.pv %[[PA]], %[[V]], %[[ACC1]]
// CHECK-NEXT: scf.yield %[[M2]], %[[L2]], %[[ACC2]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[M]], %[[L]], %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[STEP]]#0, %[[STEP]]#1, %[[STEP]]#2
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @causal_edge(%qa: tensor<64x16xf16, #opA>, %k: tensor<32x16xf16, #shared>, %v: tensor<32x16xf16, #shared>,
                       %q0: index, %nk: index, %off: index, %lo: index, %hi: index)
    -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>) {
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
  %acc0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %r:3 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>) {
    %s = fa.qk %qa, %k : tensor<64x16xf16, #opA>, tensor<32x16xf16, #shared> -> tensor<64x32xf32, #acc>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<64x32xf32, #acc>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %p16 = arith.truncf %p : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x32xf16, #acc> -> tensor<64x32xf16, #opA>
    %acc1 = fa.rescale %acc, %alpha : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %acc2 = fa.pv %pa, %v, %acc1 : tensor<64x32xf16, #opA>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
    scf.yield %m2, %l2, %acc2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>
  }
  return %r#0, %r#1, %r#2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>
}

// -----

// A window's left edge (the mask without the causal bound, as
// --fa-causal-block-skip leaves it there): "the warp's first row sees a key
// before k0 + 32": q0 + first + window_offset < k0 + 32, and the key limit:
// Nk > k0. Loads and waits stay before the branch; the soft cap moves in.

// CHECK-LABEL: func @window_edge
// CHECK-SAME: %[[Q0:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[WOFF:[^:]*]]: index,
// CHECK: scf.for %[[K0:[^ ]*]] =
// CHECK: %[[KT:.*]]:2 = fa.await
// CHECK: fa.async_load
// CHECK-NEXT: %[[FIRST:.*]], %{{.*}} = fa.warp_row_range
// CHECK: %[[R0:.*]] = arith.addi %[[Q0]], %[[FIRST]] : index
// CHECK: %[[KEND:.*]] = arith.addi %[[K0]], %c32{{.*}} : index
// CHECK: %[[INLIMIT:.*]] = arith.cmpi sgt, %[[NK]], %[[K0]] : index
// CHECK: %[[BEGIN:.*]] = arith.addi %[[R0]], %[[WOFF]] : index
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[BEGIN]], %[[KEND]] : index
// CHECK: %[[SEES:.*]] = arith.andi %[[INLIMIT]], %[[BEFORE]] : i1
// CHECK: scf.if %[[SEES]]
// CHECK-NEXT: fa.qk %{{.*}}, %[[KT]]#0
// CHECK-NEXT: fa.softcap
// CHECK-NEXT: fa.mask %{{.*}} key_limit(%[[NK]]) window_offset(%[[WOFF]])
// CHECK: fa.pv %{{.*}}, %[[KT]]#1
// CHECK: } else {
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @window_edge(%K: tensor<1x1x?x16xf16>, %V: tensor<1x1x?x16xf16>, %qa: tensor<64x16xf16, #opA>,
                       %q0: index, %nk: index, %woff: index, %lo: index, %hi: index,
                       %f0: !fa.future<tensor<32x16xf16, #shared>, tensor<32x16xf16, #shared>>)
    -> tensor<64x16xf32, #acc> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %cap = arith.constant 0.02 : f32
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
  %acc0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %r:4 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %m0, %l = %l0, %acc = %acc0, %f = %f0)
      -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>,
          !fa.future<tensor<32x16xf16, #shared>, tensor<32x16xf16, #shared>>) {
    %kt:2 = fa.await %f pending(0) : !fa.future<tensor<32x16xf16, #shared>, tensor<32x16xf16, #shared>>
    %k1 = arith.addi %k0, %c32 : index
    %fn = fa.async_load %K, %V[%c0, %c0, %k1] rows(%c32) slot(%c0) of 2 : tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16> -> !fa.future<tensor<32x16xf16, #shared>, tensor<32x16xf16, #shared>>
    %s = fa.qk %qa, %kt#0 : tensor<64x16xf16, #opA>, tensor<32x16xf16, #shared> -> tensor<64x32xf32, #acc>
    %sc = fa.softcap %s scale(%cap) : tensor<64x32xf32, #acc>
    %sm = fa.mask %sc[%q0, %k0] key_limit(%nk) window_offset(%woff) : tensor<64x32xf32, #acc>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %p16 = arith.truncf %p : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x32xf16, #acc> -> tensor<64x32xf16, #opA>
    %acc1 = fa.rescale %acc, %alpha : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %acc2 = fa.pv %pa, %kt#1, %acc1 : tensor<64x32xf16, #opA>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
    scf.yield %m2, %l2, %acc2, %fn : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>,
        !fa.future<tensor<32x16xf16, #shared>, tensor<32x16xf16, #shared>>
  }
  return %r#2 : tensor<64x16xf32, #acc>
}

// -----

// Left alone: a mask with only the key limit (it hides the same keys from
// every row), a loop without a mask, tiles without warp layouts (L1/L2),
// and a step whose value is used by another op than the yield.

// CHECK-LABEL: func @left_alone
// CHECK-NOT: fa.warp_row_range
// CHECK-NOT: scf.if
// CHECK: return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
func.func @left_alone(%s: tensor<64x32xf32, #acc>, %sp: tensor<64x32xf32>, %q0: index, %nk: index, %off: index,
                      %lo: index, %hi: index) -> (f32, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
  %pm0 = arith.constant dense<0xFF800000> : tensor<64xf32>
  %pl0 = arith.constant dense<0.0> : tensor<64xf32>
  %a:2 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %m0, %l = %l0) -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>) {
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<64x32xf32, #acc>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    scf.yield %m2, %l2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>
  }
  %b:2 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %a#0, %l = %a#1) -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>) {
    %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    scf.yield %m2, %l2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>
  }
  %c:2 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %pm0, %l = %pl0) -> (tensor<64xf32>, tensor<64xf32>) {
    %sm = fa.mask %sp[%q0, %k0] causal_offset(%off) : tensor<64x32xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
    scf.yield %m2, %l2 : tensor<64xf32>, tensor<64xf32>
  }
  %d:3 = scf.for %k0 = %lo to %hi step %c32 iter_args(%m = %b#0, %l = %b#1, %x = %scale) -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, f32) {
    %sm = fa.mask %s[%q0, %k0] causal_offset(%off) : tensor<64x32xf32, #acc>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %x2 = tensor.extract %m2[%c0] : tensor<64xf32, #rows>
    scf.yield %m2, %l2, %x2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, f32
  }
  return %d#2, %c#1 : f32, tensor<64xf32>
}
