// RUN: fa-opt %s -split-input-file --fa-schedule-softmax | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-schedule-softmax="rescale=before-exp" | FileCheck %s --check-prefix=BEFORE
// RUN: fa-opt %s -split-input-file --fa-schedule-softmax="rescale=after-exp" | FileCheck %s --check-prefix=AFTER

// The pass is idempotent: on its own output (every placement) it changes
// nothing.
// RUN: fa-opt %s -split-input-file --fa-schedule-softmax -o %t.auto
// RUN: fa-opt %t.auto -split-input-file --fa-schedule-softmax | diff %t.auto -
// RUN: fa-opt %s -split-input-file --fa-schedule-softmax="rescale=before-exp" -o %t.before
// RUN: fa-opt %t.before -split-input-file --fa-schedule-softmax="rescale=before-exp" | diff %t.before -
// RUN: fa-opt %s -split-input-file --fa-schedule-softmax="rescale=after-exp" -o %t.after
// RUN: fa-opt %t.after -split-input-file --fa-schedule-softmax="rescale=after-exp" | diff %t.after -

// Each fa.online_softmax becomes
//   %m_new, %alpha = fa.running_max %s, %m scale(%c)
//   %p, %l_new     = fa.softmax_exp %s, %m_new, %alpha, %l scale(%c)
// (the uses of its four results rewired to these), and fa.rescale of the
// accumulator by alpha goes between the two (before-exp) or stays after
// fa.softmax_exp (after-exp). auto: before-exp while S + acc (+ Q when it is
// an operand_a tile) take at most 160 registers a thread (#fa.mma_sync's
// early-rescale budget), after-exp otherwise.

// L3 (hand-written --fa-map-warps output), D = 64, Q in registers, two
// loops: S 64 + acc 64 + Q 32 = 160 registers: auto is before-exp.

// CHECK-LABEL: func @d64_q_registers
// CHECK: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK: %[[QA:.*]] = fa.convert_layout
// CHECK: scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x64xf32, #acc_w4>) {
// CHECK: %[[KT:.*]] = tensor.pad
// CHECK: %[[VT:.*]] = tensor.pad
// CHECK: %[[S:.*]] = fa.qk %[[QA]], %[[KT]]
// CHECK-NOT: fa.online_softmax
//     First half: the new max and alpha from S and the old max.
// CHECK: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[S]], %[[M]] scale(%[[SCALE]]) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>
//     The rescale right after it, before the exponentials.
// CHECK-NEXT: %[[RS:.*]] = fa.rescale %[[ACC]], %[[AL]] : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>
//     Second half: P and the new sum from S, the new max, alpha and the old sum.
// CHECK-NEXT: %[[P:.*]], %[[LN:.*]] = fa.softmax_exp %[[S]], %[[MN]], %[[AL]], %[[L]] scale(%[[SCALE]]) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>
// CHECK-NEXT: %[[P16:.*]] = arith.truncf %[[P]]
// CHECK-NEXT: %[[PA:.*]] = fa.convert_layout %[[P16]]
// CHECK-NEXT: %[[ACCN:.*]] = fa.pv %[[PA]], %[[VT]], %[[RS]]
// CHECK-NEXT: scf.yield %[[MN]], %[[LN]], %[[ACCN]]
//     The masked loop: the same, on the masked scores.
// CHECK: scf.for {{.*}} iter_args(%[[M2:.*]] = %{{.*}}, %[[L2:.*]] = %{{.*}}, %[[ACC2:.*]] = %{{.*}})
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN2:.*]], %[[AL2:.*]] = fa.running_max %[[SM]], %[[M2]] scale(%[[SCALE]])
// CHECK-NEXT: %[[RS2:.*]] = fa.rescale %[[ACC2]], %[[AL2]]
// CHECK-NEXT: %[[P2:.*]], %[[LN2:.*]] = fa.softmax_exp %[[SM]], %[[MN2]], %[[AL2]], %[[L2]] scale(%[[SCALE]])
// CHECK: fa.pv %{{.*}}, %{{.*}}, %[[RS2]]
// CHECK-NEXT: scf.yield %[[MN2]], %[[LN2]]
// CHECK-NOT: fa.online_softmax

//     after-exp: the rescale stays after the exponentials (where fa.rescale
//     was: after the P conversion), still before fa.pv.
// AFTER-LABEL: func @d64_q_registers
// AFTER: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[S:[^,]*]], %[[M:[^ ]*]] scale
// AFTER-NEXT: %[[P:.*]], %[[LN:.*]] = fa.softmax_exp %[[S]], %[[MN]], %[[AL]], %{{.*}} scale
// AFTER-NEXT: %[[P16:.*]] = arith.truncf %[[P]]
// AFTER-NEXT: %[[PA:.*]] = fa.convert_layout %[[P16]]
// AFTER-NEXT: %[[RS:.*]] = fa.rescale %{{.*}}, %[[AL]]
// AFTER-NEXT: fa.pv %[[PA]], %{{.*}}, %[[RS]]
// AFTER: fa.running_max
// AFTER-NEXT: fa.softmax_exp
// AFTER: fa.rescale
// AFTER-NEXT: fa.pv

// BEFORE-LABEL: func @d64_q_registers
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @d64_q_registers(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>, %lse: tensor<?x2x?xf32>)
    -> (tensor<?x2x?x64xf16>, tensor<?x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res:2 = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o, %ls = %lse) -> (tensor<?x2x?x64xf16>, tensor<?x2x?xf32>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %diag = arith.addi %q0, %off : index
    %first_end = arith.addi %diag, %c1 : index
    %first_vis = arith.minsi %nk, %first_end : index
    %first_cl = arith.maxsi %first_vis, %c0 : index
    %full_blocks = arith.divui %first_cl, %cN : index
    %full_end = arith.muli %full_blocks, %cN : index
    %last_end = arith.addi %diag, %cM : index
    %last_cl = arith.maxsi %last_end, %c0 : index
    %end = arith.minsi %nk, %last_cl : index
    %r1:3 = scf.for %k0 = %c0 to %full_end step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    %lrows = tensor.extract_slice %lset[0] [%qrows] [1] : tensor<128xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
      tensor.parallel_insert_slice %lrows into %ls[%b, %h, %q0] [1, 1, %qrows] [1, 1, 1] : tensor<?xf32> into tensor<?x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res#0, %res#1 : tensor<?x2x?x64xf16>, tensor<?x2x?xf32>
}

// -----

// D = 128, bf16, Q in shared memory (as --fa-map-warps leaves it at D =
// 128): S 64 + acc 128 = 192 > 160: auto is after-exp; before-exp on request.
// CHECK-LABEL: func @d128_q_shared
// CHECK: %[[MN:.*]], %[[AL:.*]] = fa.running_max
// CHECK-NEXT: %[[P:.*]], %{{.*}} = fa.softmax_exp %{{.*}}, %[[MN]], %[[AL]],
// CHECK-NEXT: arith.truncf %[[P]]
// CHECK-NEXT: fa.convert_layout
// CHECK-NEXT: %[[RS:.*]] = fa.rescale %{{.*}}, %[[AL]] : tensor<128x128xf32, #acc_w4>, tensor<128xf32, #rows_w4>
// CHECK-NEXT: fa.pv %{{.*}}, %{{.*}}, %[[RS]]
// BEFORE-LABEL: func @d128_q_shared
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
// AFTER-LABEL: func @d128_q_shared
// AFTER: fa.softmax_exp
// AFTER: fa.rescale
// AFTER-NEXT: fa.pv
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @d128_q_shared(%q: tensor<?x2x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %o: tensor<?x2x?x128xbf16>)
    -> tensor<?x2x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x128xbf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x128xbf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x128xbf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x128xbf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %s = fa.qk %qt, %kt : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xbf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xbf16, #acc> -> tensor<128x64xbf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xbf16, #opA>, tensor<64x128xbf16, #shared>, tensor<128x128xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x128xbf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xbf16, #acc> to tensor<?x128xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x128xbf16> into tensor<?x2x?x128xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x128xbf16>
}

// -----

// D = 64, Q in shared memory: S 64 + acc 64 = 128 <= 160: before-exp.
// CHECK-LABEL: func @d64_q_shared
// CHECK: fa.running_max
// CHECK-NEXT: fa.rescale
// CHECK-NEXT: fa.softmax_exp
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @d64_q_shared(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
    -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<128x64xf16, #shared>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x64xf16>
}

// -----

// D = 128, Q in registers: S 64 + acc 128 + Q 64 = 256 > 160: after-exp.
// CHECK-LABEL: func @d128_q_registers
// CHECK: fa.running_max
// CHECK-NEXT: fa.softmax_exp
// CHECK: fa.rescale
// CHECK-NEXT: fa.pv
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @d128_q_registers(%q: tensor<?x2x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>, %o: tensor<?x2x?x128xf16>)
    -> tensor<?x2x?x128xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x128xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x128xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x128xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x128xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x128xf16> to tensor<128x128xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<128x128xf16, #shared> -> tensor<128x128xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x128xf16> to tensor<64x128xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x128xf16> to tensor<64x128xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x128xf16, #opA>, tensor<64x128xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x128xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xf16, #acc> to tensor<?x128xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x128xf16> into tensor<?x2x?x128xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x128xf16>
}

// -----

// The same D = 128, Q in registers, held by 8 warps: S 32 + acc 64 + Q 32 =
// 128 <= 160: before-exp.
// CHECK-LABEL: func @d128_q_registers_8_warps
// CHECK: fa.running_max {{.*}} : tensor<128x64xf32, #acc_w8>, tensor<128xf32, #rows_w8>
// CHECK-NEXT: fa.rescale
// CHECK-NEXT: fa.softmax_exp
#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @d128_q_registers_8_warps(%q: tensor<?x2x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>, %o: tensor<?x2x?x128xf16>)
    -> tensor<?x2x?x128xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x128xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x128xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x128xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x128xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x128xf16> to tensor<128x128xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<128x128xf16, #shared> -> tensor<128x128xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x128xf16> to tensor<64x128xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xf16> to tensor<?x128xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x128xf16> to tensor<64x128xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x128xf16, #opA>, tensor<64x128xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x128xf16, #shared>, tensor<128x128xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x128xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xf16, #acc> to tensor<?x128xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x128xf16> into tensor<?x2x?x128xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x128xf16>
}

// -----

// No layouts (an L1/L2 nest for the CPU, f32): there is no atom to ask,
// auto is after-exp; the split is the same.
// CHECK-LABEL: func @no_layouts
// CHECK: scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]], %[[M]] scale(%{{.*}}) : tensor<32x16xf32>, tensor<32xf32>
// CHECK-NEXT: %[[P:.*]], %[[LN:.*]] = fa.softmax_exp %[[SM]], %[[MN]], %[[AL]], %[[L]] scale(%{{.*}}) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
// CHECK-NEXT: %[[RS:.*]] = fa.rescale %[[ACC]], %[[AL]] : tensor<32x16xf32>, tensor<32xf32>
// CHECK-NEXT: %[[ACCN:.*]] = fa.pv %[[P]], %{{.*}}, %[[RS]]
// CHECK-NEXT: scf.yield %[[MN]], %[[LN]], %[[ACCN]]
// BEFORE-LABEL: func @no_layouts
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
func.func @no_layouts(%q: tensor<?x2x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>, %o: tensor<?x2x?x16xf32>)
    -> tensor<?x2x?x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 32 : index
  %cN = arith.constant 16 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x16xf32>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x16xf32>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x16xf32>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x16xf32>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<?x16xf32> to tensor<32x16xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
    %l0 = arith.constant dense<0.0> : tensor<32xf32>
    %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x16xf32> to tensor<16x16xf32>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x16xf32> to tensor<16x16xf32>
      %s = fa.qk %qt, %kt : tensor<32x16xf32>, tensor<16x16xf32> -> tensor<32x16xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
      %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
      %acc2 = fa.pv %p, %vt, %acc1 : tensor<32x16xf32>, tensor<16x16xf32>, tensor<32x16xf32>
      scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x16xf32>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 16] [1, 1] : tensor<32x16xf32> to tensor<?x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x16xf32> into tensor<?x2x?x16xf32>
    }
  }
  return %res : tensor<?x2x?x16xf32>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// Soft-capping (one K/V step, L3, D = 64, Q in registers): fa.running_max
// reads the capped scores, and the register count still finds the fa.qk
// behind fa.softcap (and fa.mask) to count Q's operand_a fragments.
//   @softcap_d64: S 64 + acc 64 + Q 32 = 160: before-exp.
//   @softcap_n80: 80-key blocks, S 80 + acc 64 + Q 32 = 176 > 160:
//   after-exp (without Q, 144, it would be before-exp).
// CHECK-LABEL: func @softcap_d64
// CHECK: %[[S:.*]] = fa.qk
// CHECK-NEXT: %[[SC:.*]] = fa.softcap %[[S]]
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SC]], %{{.*}} scale(%{{.*}})
// CHECK-NEXT: %[[RS:.*]] = fa.rescale %{{.*}}, %[[AL]]
// CHECK-NEXT: %[[P:.*]], %{{.*}} = fa.softmax_exp %[[SC]], %[[MN]], %[[AL]], %{{.*}} scale(%{{.*}})
// CHECK: fa.pv %{{.*}}, %{{.*}}, %[[RS]]
func.func @softcap_d64(%qa: tensor<128x64xf16, #opA>, %kt: tensor<64x64xf16, #shared>, %vt: tensor<64x64xf16, #shared>,
                       %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                       %x: f32, %cap: f32, %scale: f32)
    -> (tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sc, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @softcap_n80
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]], %{{.*}} scale(%{{.*}})
// CHECK-NEXT: %[[P:.*]], %{{.*}} = fa.softmax_exp %[[SM]], %[[MN]], %[[AL]], %{{.*}} scale(%{{.*}})
// CHECK-NEXT: arith.truncf %[[P]]
// CHECK-NEXT: fa.convert_layout
// CHECK-NEXT: %[[RS:.*]] = fa.rescale %{{.*}}, %[[AL]]
// CHECK-NEXT: fa.pv %{{.*}}, %{{.*}}, %[[RS]]
// BEFORE-LABEL: func @softcap_n80
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
func.func @softcap_n80(%qa: tensor<128x64xf16, #opA>, %kt: tensor<80x64xf16, #shared>, %vt: tensor<80x64xf16, #shared>,
                       %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                       %x: f32, %cap: f32, %scale: f32, %r0: index, %c0: index, %w: index)
    -> (tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<80x64xf16, #shared> -> tensor<128x80xf32, #acc>
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x80xf32, #acc>
  %sm = fa.mask %sc[%r0, %c0] window_offset(%w) : tensor<128x80xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x80xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x80xf32, #acc> to tensor<128x80xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x80xf16, #acc> -> tensor<128x80xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x80xf16, #opA>, tensor<80x64xf16, #shared>, tensor<128x64xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

// A sliding window (an fa.mask with window_offset in the kernel) at head dim
// 192 (128 x 64 tiles, 8 warps, Q in shared memory): S 32 + acc 96 = 128
// registers is within the budget, but the atom's tile table lets the early
// rescale keep no extra live value at d = 192 (ptxas spills there): auto is
// after-exp. The unmasked middle loop of the same kernel follows the masked
// one.

#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @window_d192
// CHECK: %[[SM:.*]] = fa.mask %{{.*}} window_offset
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
// CHECK: fa.rescale %{{.*}}, %[[AL]]
// CHECK: %[[MN2:.*]], %[[AL2:.*]] = fa.running_max %[[S2:.*]], %
// CHECK-NEXT: fa.softmax_exp %[[S2]], %[[MN2]], %[[AL2]]
// CHECK: fa.rescale %{{.*}}, %[[AL2]]
// BEFORE-LABEL: func @window_d192
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
// BEFORE-NEXT: fa.softmax_exp
func.func @window_d192(%qs: tensor<128x192xf16, #shared>, %kt: tensor<64x192xf16, #shared>, %vt: tensor<64x192xf16, #shared>,
                      %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x192xf32, #acc>,
                      %scale: f32, %r0: index, %c0: index, %w: index)
    -> (tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qs, %kt : tensor<128x192xf16, #shared>, tensor<64x192xf16, #shared> -> tensor<128x64xf32, #acc>
  %sm = fa.mask %s[%r0, %c0] window_offset(%w) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x192xf16, #shared>, tensor<128x192xf32, #acc>
  // The unmasked middle block.
  %s2 = fa.qk %qs, %kt : tensor<128x192xf16, #shared>, tensor<64x192xf16, #shared> -> tensor<128x64xf32, #acc>
  %p2, %m3, %l3, %alpha2 = fa.online_softmax %s2, %m2, %l2 scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p216 = arith.truncf %p2 : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa2 = fa.convert_layout %p216 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc3 = fa.rescale %acc2, %alpha2 : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>
  %acc4 = fa.pv %pa2, %vt, %acc3 : tensor<128x64xf16, #opA>, tensor<64x192xf16, #shared>, tensor<128x192xf32, #acc>
  return %acc4, %m3, %l3 : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

// The same kernel without a window: auto is before-exp (128 <= 160).

#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @causal_d192
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.rescale %{{.*}}, %[[AL]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
func.func @causal_d192(%qs: tensor<128x192xf16, #shared>, %kt: tensor<64x192xf16, #shared>, %vt: tensor<64x192xf16, #shared>,
                      %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x192xf32, #acc>,
                      %scale: f32, %r0: index, %c0: index, %d: index)
    -> (tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qs, %kt : tensor<128x192xf16, #shared>, tensor<64x192xf16, #shared> -> tensor<128x64xf32, #acc>
  %sm = fa.mask %s[%r0, %c0] causal_offset(%d) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x192xf16, #shared>, tensor<128x192xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

// Extra live values (TileConfig): a window's left bound, a soft cap, and
// per-sequence bounds read from memory (a scalar extracted from an integer
// tensor) each count; the early rescale is taken while the count is within
// what the atom's tile table allows for the head dims and tiles (#fa.mma_sync:
// 1 at d = 64, 0 at d = 192, 1 with d = 96's 64-row window tiles).
//   @window_softcap_d64: S 64 + acc 64 + Q 32 = 160 (within the budget), a
//     window and a soft cap: 2 > 1, after-exp.
//   @lengths_d64: per-sequence bounds alone: 1, before-exp.
//   @lengths_window_d64: per-sequence bounds and a window: 2, after-exp.
//   @softcap_d192: a soft cap alone: 1 > 0, after-exp.
//   @window_d96_window_tiles: 64 x 32 (d = 96's window tiles), a window: 1,
//     before-exp; @window_softcap_d96_window_tiles: and a soft cap: after-exp.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @window_softcap_d64
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
// CHECK: fa.rescale %{{.*}}, %[[AL]]
// BEFORE-LABEL: func @window_softcap_d64
// BEFORE: fa.running_max
// BEFORE-NEXT: fa.rescale
func.func @window_softcap_d64(%qa: tensor<128x64xf16, #opA>, %kt: tensor<64x64xf16, #shared>, %vt: tensor<64x64xf16, #shared>,
                              %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                              %x: f32, %cap: f32, %scale: f32, %r0: index, %c0: index, %w: index)
    -> (tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x64xf32, #acc>
  %sm = fa.mask %sc[%r0, %c0] window_offset(%w) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// CHECK-LABEL: func @lengths_d64
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.rescale %{{.*}}, %[[AL]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
func.func @lengths_d64(%qa: tensor<128x64xf16, #opA>, %kt: tensor<64x64xf16, #shared>, %vt: tensor<64x64xf16, #shared>,
                       %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                       %scale: f32, %r0: index, %c0: index, %lengths: tensor<?xi32>, %b: index)
    -> (tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %n = tensor.extract %lengths[%b] : tensor<?xi32>
  %nk = arith.index_cast %n : i32 to index
  %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  %sm = fa.mask %s[%r0, %c0] key_limit(%nk) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// CHECK-LABEL: func @lengths_window_d64
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
// CHECK: fa.rescale %{{.*}}, %[[AL]]
func.func @lengths_window_d64(%qa: tensor<128x64xf16, #opA>, %kt: tensor<64x64xf16, #shared>, %vt: tensor<64x64xf16, #shared>,
                              %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                              %scale: f32, %r0: index, %c0: index, %w: index, %lengths: tensor<?xi32>, %b: index)
    -> (tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %n = tensor.extract %lengths[%b] : tensor<?xi32>
  %nk = arith.index_cast %n : i32 to index
  %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
  %sm = fa.mask %s[%r0, %c0] key_limit(%nk) window_offset(%w) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @softcap_d192
// CHECK: %[[SC:.*]] = fa.softcap
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SC]]
// CHECK-NEXT: fa.softmax_exp %[[SC]], %[[MN]], %[[AL]]
// CHECK: fa.rescale %{{.*}}, %[[AL]]
func.func @softcap_d192(%qs: tensor<128x192xf16, #shared>, %kt: tensor<64x192xf16, #shared>, %vt: tensor<64x192xf16, #shared>,
                        %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x192xf32, #acc>,
                        %x: f32, %cap: f32, %scale: f32)
    -> (tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>) {
  %s = fa.qk %qs, %kt : tensor<128x192xf16, #shared>, tensor<64x192xf16, #shared> -> tensor<128x64xf32, #acc>
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x64xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sc, %m, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x192xf16, #shared>, tensor<128x192xf32, #acc>
  return %acc2, %m2, %l2 : tensor<128x192xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-LABEL: func @window_d96_window_tiles
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.rescale %{{.*}}, %[[AL]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
func.func @window_d96_window_tiles(%qa: tensor<64x96xf16, #opA>, %kt: tensor<32x96xf16, #shared>, %vt: tensor<32x96xf16, #shared>,
                                   %m: tensor<64xf32, #rows>, %l: tensor<64xf32, #partial>, %acc: tensor<64x96xf32, #acc>,
                                   %scale: f32, %r0: index, %c0: index, %w: index)
    -> (tensor<64x96xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>) {
  %s = fa.qk %qa, %kt : tensor<64x96xf16, #opA>, tensor<32x96xf16, #shared> -> tensor<64x32xf32, #acc>
  %sm = fa.mask %s[%r0, %c0] window_offset(%w) : tensor<64x32xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
  %p16 = arith.truncf %p : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<64x32xf16, #acc> -> tensor<64x32xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<64x96xf32, #acc>, tensor<64xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<64x32xf16, #opA>, tensor<32x96xf16, #shared>, tensor<64x96xf32, #acc>
  return %acc2, %m2, %l2 : tensor<64x96xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
}

// CHECK-LABEL: func @window_softcap_d96_window_tiles
// CHECK: %[[SM:.*]] = fa.mask
// CHECK-NEXT: %[[MN:.*]], %[[AL:.*]] = fa.running_max %[[SM]]
// CHECK-NEXT: fa.softmax_exp %[[SM]], %[[MN]], %[[AL]]
// CHECK: fa.rescale %{{.*}}, %[[AL]]
func.func @window_softcap_d96_window_tiles(%qa: tensor<64x96xf16, #opA>, %kt: tensor<32x96xf16, #shared>, %vt: tensor<32x96xf16, #shared>,
                                           %m: tensor<64xf32, #rows>, %l: tensor<64xf32, #partial>, %acc: tensor<64x96xf32, #acc>,
                                           %x: f32, %cap: f32, %scale: f32, %r0: index, %c0: index, %w: index)
    -> (tensor<64x96xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>) {
  %s = fa.qk %qa, %kt : tensor<64x96xf16, #opA>, tensor<32x96xf16, #shared> -> tensor<64x32xf32, #acc>
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<64x32xf32, #acc>
  %sm = fa.mask %sc[%r0, %c0] window_offset(%w) : tensor<64x32xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
  %p16 = arith.truncf %p : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<64x32xf16, #acc> -> tensor<64x32xf16, #opA>
  %acc1 = fa.rescale %acc, %alpha : tensor<64x96xf32, #acc>, tensor<64xf32, #rows>
  %acc2 = fa.pv %pa, %vt, %acc1 : tensor<64x32xf16, #opA>, tensor<32x96xf16, #shared>, tensor<64x96xf32, #acc>
  return %acc2, %m2, %l2 : tensor<64x96xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
}

// -----

// IR without fa.online_softmax is left alone.
// CHECK-LABEL: func @nothing_to_split
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @nothing_to_split(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
