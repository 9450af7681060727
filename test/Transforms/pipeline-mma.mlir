// RUN: fa-opt %s --fa-pipeline-mma --split-input-file | FileCheck %s
// RUN: fa-opt %s --fa-pipeline-mma --split-input-file | fa-opt --fa-pipeline-mma --split-input-file | FileCheck %s
// RUN: fa-opt %s --fa-pipeline-mma="all-atoms=true" --split-input-file | FileCheck %s --check-prefix=ALL

// --fa-pipeline-mma on warp-mapped L3 (the input --fa-schedule-softmax
// gives it): each K/V step issues S_j = Q K_j^T and the previous block's
// P_{j-1} V_{j-1} asynchronously, waits for S_j alone, and waits for the
// P V only where the accumulator is rescaled. Running it twice changes
// nothing (the second RUN line); #fa.mma_sync nests are left alone unless
// all-atoms=true.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.wgmma>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>

// CHECK-LABEL: func @unmasked_then_masked
// CHECK-SAME: (%[[Q:.*]]: tensor<64x16xf16, #opA_w4_wgmma>, %[[K:.*]]: tensor<16x16xf16, #shared_wgmma>, %[[V:.*]]: tensor<16x16xf16, #shared_wgmma>, %[[MID:.*]]: index, %[[END:.*]]: index
//     The deferred product's state before the first loop: no block seen, a
//     zero P and a placeholder V tile.
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[P0:.*]] = arith.constant dense<0.000000e+00> : tensor<64x16xf16, #opA_w4_wgmma>
// CHECK-DAG: %[[V0:.*]] = tensor.empty() : tensor<16x16xf16, #shared_wgmma>
// CHECK: %[[R1:.*]]:6 = scf.for %{{.*}} = %{{.*}} to %[[MID]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[SEEN:.*]] = %[[FALSE]], %[[PP:.*]] = %[[P0]], %[[VP:.*]] = %[[V0]])
//     S_j, then P_{j-1} V_{j-1} (this block's V in the first step, whose P
//     is zero), both in flight.
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] {async}
// CHECK: %[[VSEL:.*]] = arith.select %[[SEEN]], %[[VP]], %[[V]] : tensor<16x16xf16, #shared_wgmma>
// CHECK: %[[PV:.*]] = fa.pv %[[PP]], %[[VSEL]], %[[ACC]] {async}
//     S_j done, P_{j-1} V_{j-1} may still run: the softmax of block j.
// CHECK: %[[SD:.*]] = fa.mma_wait %[[S]] pending(1)
// CHECK: %[[NEWM:.*]], %[[ALPHA:.*]] = fa.running_max %[[SD]], %[[M]]
// CHECK: %[[P:.*]], %[[NEWL:.*]] = fa.softmax_exp %[[SD]], %[[NEWM]], %[[ALPHA]], %[[L]]
// CHECK: %[[PA:.*]] = fa.convert_layout
//     acc = alpha_j * (acc + P_{j-1} V_{j-1}): the sum of exp2(S_i - m_j) V_i
//     over the blocks before j.
// CHECK: %[[PVD:.*]] = fa.mma_wait %[[PV]] pending(0)
// CHECK: %[[RESC:.*]] = fa.rescale %[[PVD]], %[[ALPHA]]
// CHECK-NOT: fa.pv
// CHECK: scf.yield %[[NEWM]], %[[NEWL]], %[[RESC]], %true, %[[PA]], %[[V]]
//     The masked loop continues the same state.
// CHECK: %[[R2:.*]]:6 = scf.for %{{.*}} = %[[MID]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2, %{{.*}} = %[[R1]]#3, %{{.*}} = %[[R1]]#4, %{{.*}} = %[[R1]]#5)
// CHECK: fa.qk {{.*}} {async}
// CHECK: fa.pv {{.*}} {async}
// CHECK: fa.mma_wait {{.*}} pending(1)
// CHECK: fa.mask
// CHECK: fa.mma_wait {{.*}} pending(0)
// CHECK: scf.yield
//     The last block's P V, if there was a block.
// CHECK: %[[FINAL:.*]] = scf.if %[[R2]]#3 -> (tensor<64x16xf32, #acc_w4_wgmma>) {
// CHECK:   %[[LAST:.*]] = fa.pv %[[R2]]#4, %[[R2]]#5, %[[R2]]#2 :
// CHECK:   scf.yield %[[LAST]]
// CHECK: } else {
// CHECK:   scf.yield %[[R2]]#2
// CHECK: fa.finalize %[[FINAL]], %[[R2]]#0, %[[R2]]#1
func.func @unmasked_then_masked(%q: tensor<64x16xf16, #opA>, %k: tensor<16x16xf16, #shared>,
                                %v: tensor<16x16xf16, #shared>, %mid: index, %end: index)
    -> (tensor<64x16xf16, #acc>, tensor<64xf32, #rows>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 0.36 : f32
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
  %acc0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %r1:3 = scf.for %j = %c0 to %mid step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>) {
    %s = fa.qk %q, %k : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<64x16xf32, #acc>
    %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %acc1 = fa.rescale %acc, %alpha : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %p16 = arith.truncf %p : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x16xf16, #acc> -> tensor<64x16xf16, #opA>
    %acc2 = fa.pv %pa, %v, %acc1 : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<64x16xf32, #acc>
    scf.yield %m2, %l2, %acc2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>
  }
  %r2:3 = scf.for %j = %mid to %end step %c16 iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
      -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>) {
    %s = fa.qk %q, %k : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<64x16xf32, #acc>
    %sm = fa.mask %s[%c0, %j] key_limit(%end) causal_offset(%c0) : tensor<64x16xf32, #acc>
    %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %acc1 = fa.rescale %acc, %alpha : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
    %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %p16 = arith.truncf %p : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x16xf16, #acc> -> tensor<64x16xf16, #opA>
    %acc2 = fa.pv %pa, %v, %acc1 : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<64x16xf32, #acc>
    scf.yield %m2, %l2, %acc2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>
  }
  %o, %lse = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial> -> tensor<64x16xf16, #acc>
  return %o, %lse : tensor<64x16xf16, #acc>, tensor<64xf32, #rows>
}

// -----

// The same step on the sm_80 atom, whose mma.sync returns its result to the
// warp: nothing to overlap, the loop stays as it is unless all-atoms=true.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @mma_sync
// CHECK: scf.for {{.*}} -> (tensor<64xf32, #rows_w4>, tensor<64xf32, #partial_w4>, tensor<64x64xf32, #acc_w4>)
// CHECK-NOT: async
// CHECK-NOT: fa.mma_wait
// CHECK: fa.pv
// CHECK-NOT: scf.if
// ALL-LABEL: func @mma_sync
// ALL: scf.for {{.*}} -> (tensor<64xf32, #rows_w4>, tensor<64xf32, #partial_w4>, tensor<64x64xf32, #acc_w4>, i1, tensor<64x64xf16, #opA_w4>, tensor<64x64xf16, #shared>)
// ALL: fa.qk {{.*}} {async}
// ALL: fa.pv {{.*}} {async}
// ALL: fa.mma_wait {{.*}} pending(1)
// ALL: fa.mma_wait {{.*}} pending(0)
// ALL: scf.if
func.func @mma_sync(%q: tensor<64x64xf16, #opA>, %k: tensor<64x64xf16, #shared>,
                    %v: tensor<64x64xf16, #shared>, %end: index) -> tensor<64x64xf32, #acc> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 0.18 : f32
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r:3 = scf.for %j = %c0 to %end step %c64 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x64xf32, #acc>) {
    %s = fa.qk %q, %k : tensor<64x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<64x64xf32, #acc>
    %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<64x64xf32, #acc>, tensor<64xf32, #rows>
    %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<64x64xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
    %acc1 = fa.rescale %acc, %alpha : tensor<64x64xf32, #acc>, tensor<64xf32, #rows>
    %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x64xf16, #acc> -> tensor<64x64xf16, #opA>
    %acc2 = fa.pv %pa, %v, %acc1 : tensor<64x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<64x64xf32, #acc>
    scf.yield %m2, %l2, %acc2 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x64xf32, #acc>
  }
  return %r#2 : tensor<64x64xf32, #acc>
}

// -----

// Not a forward step: P V without the online softmax's rescale (the
// backward's dV += P^T dO) is left alone whatever the atom.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>

// CHECK-LABEL: func @no_rescale
// CHECK-NOT: async
// CHECK-NOT: scf.if
// ALL-LABEL: func @no_rescale
// ALL-NOT: async
// ALL-NOT: scf.if
func.func @no_rescale(%p: tensor<64x16xf16, #opA>, %v: tensor<16x16xf16, #shared>,
                      %end: index) -> tensor<64x16xf32, #acc> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %acc0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %r = scf.for %j = %c0 to %end step %c16 iter_args(%acc = %acc0) -> (tensor<64x16xf32, #acc>) {
    %acc2 = fa.pv %p, %v, %acc : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<64x16xf32, #acc>
    scf.yield %acc2 : tensor<64x16xf32, #acc>
  }
  return %r : tensor<64x16xf32, #acc>
}
