// RUN: fa-opt %s -split-input-file --fa-map-warps | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-map-warps="query-home=shared" | FileCheck %s --check-prefix=SHARED
// RUN: fa-opt %s -split-input-file --fa-map-warps="query-home=registers" | FileCheck %s --check-prefix=REGS
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=8" | FileCheck %s --check-prefix=W8
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=0" | FileCheck %s --check-prefix=AUTO
// RUN: fa-opt %s -split-input-file --fa-map-warps="swizzle-shared=off" | FileCheck %s --check-prefix=PADDED
// RUN: fa-opt %s -split-input-file --fa-map-warps="swizzle-shared=on" | FileCheck %s --check-prefix=SWZ
// The sm_90a atom: the same nests, 16 rows a warp (8 warps for the
// 128-row Q blocks), every encoding naming #fa.wgmma; with
// swizzle-shared=off the K/V tiles keep #fa.wgmma's core matrices.
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=0 atom=wgmma swizzle-shared=off" | FileCheck %s --check-prefix=WGMMA
// WGMMA-DAG: #acc_w8_wgmma = #fa.warp_rows<acc, num_warps = 8, atom = #fa.wgmma>
// WGMMA-DAG: #opA_w8_wgmma = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.wgmma>
// WGMMA-DAG: #shared_wgmma = #fa.block_shared<atom = #fa.wgmma>
// WGMMA-LABEL: func @causal_d64
// WGMMA: fa.qk %{{.*}}, %{{.*}} : tensor<128x64xf16, #opA_w8_wgmma>, tensor<64x64xf16, #shared_wgmma> -> tensor<128x64xf32, #acc_w8_wgmma>
// WGMMA-NOT: #fa.mma_sync
// By default (auto) and with swizzle-shared=on the K/V tiles take
// #fa.wgmma's 128-byte-swizzled layout (1.4-1.7x the core matrices on an
// H100, docs/performance.md); Q, loaded once, keeps the core matrices.
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=0 atom=wgmma" | FileCheck %s --check-prefix=WGSWZ
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=0 atom=wgmma swizzle-shared=on" | FileCheck %s --check-prefix=WGSWZ
// WGSWZ-DAG: #shared_swz_wgmma = #fa.block_shared<atom = #fa.wgmma, swizzled = true>
// WGSWZ-DAG: #shared_wgmma = #fa.block_shared<atom = #fa.wgmma>
// WGSWZ-LABEL: func @causal_d64
// WGSWZ: } : tensor<?x64xf16> to tensor<128x64xf16, #shared_wgmma>
// WGSWZ: } : tensor<?x64xf16> to tensor<64x64xf16, #shared_swz_wgmma>
// WGSWZ: fa.qk %{{.*}}, %{{.*}} : tensor<128x64xf16, #opA_w8_wgmma>, tensor<64x64xf16, #shared_swz_wgmma> -> tensor<128x64xf32, #acc_w8_wgmma>
// WGSWZ: fa.pv %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xf16, #opA_w8_wgmma>, tensor<64x64xf16, #shared_swz_wgmma>

// Stage L2 -> L3: every value of the tiled loop nest gets the encoding of
// how a thread block of num-warps warps holds it (#fa.mma_sync atom):
//   Q, K, V tiles (read by every warp)      #fa.block_shared       (#shared)
//     K, V with swizzle-shared=auto (the default) where the S, O and Q
//     fragments take at most the atom's budget (160 registers a thread:
//     D = 64 here, not D = 128): swizzled        (#shared_swz)
//   S, P, the accumulator, O                 warp_rows<acc>          (#acc_w4)
//   m, alpha, LSE                            warp_rows<rows>         (#rows_w4)
//   l (per-lane shares until fa.finalize)    warp_rows<partial_rows> (#partial_w4)
//   matmul A operands in registers           warp_rows<operand_a>    (#opA_w4)
// and the forall is mapped onto the grid: batch z, head y, Q block x.

// Causal GQA 4:2, f16, D = 64, 128 x 64 tiles, with LSE: the L2 nest of
// --fa-causal-block-skip (written by hand), with an unmasked and a masked
// loop.

// CHECK-DAG: #acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #opA_w4 = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #partial_w4 = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w4 = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-DAG: #shared_swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// CHECK-LABEL: func @causal_d64
// CHECK-SAME: -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>)
//     The function boundary and the forall's shared outputs keep plain types.
// CHECK: %[[RES:.*]]:2 = scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, 4, %{{.*}}) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) {
// CHECK: %[[Q0:.*]] = arith.muli
//     The Q tile is loaded into shared memory once, then (auto at D = 64:
//     S 64 + O 64 + Q 32 registers a thread <= 160) moved to A-operand
//     registers once, right after the load, before the loops.
// CHECK: %[[QT:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
// CHECK-NEXT: %[[QA:.*]] = fa.convert_layout %[[QT]] : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA_w4>
//     The initial state, re-created with the encodings of the loop state
//     (the plain constants are gone).
// CHECK-NOT: arith.constant dense<{{.*}}> : tensor<128xf32>
// CHECK-NOT: arith.constant dense<{{.*}}> : tensor<128x64xf32>
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32, #rows_w4>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32, #partial_w4>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #acc_w4>
//     Loop 1 (unmasked): (m, l, acc) are (rows, partial_rows, acc).
// CHECK: %[[R1:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[ACC:.*]] = %[[ACC0]]) -> (tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x64xf32, #acc_w4>) {
//     K and V tiles in shared memory.
// CHECK: %[[KT:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #shared_swz>
// CHECK: %[[VT:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #shared_swz>
//     S = Q K^T from the registers' Q and the shared K, into acc fragments.
// CHECK: %[[S:.*]] = fa.qk %[[QA]], %[[KT]] : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// CHECK: %[[P:.*]], %[[MN:.*]], %[[LN:.*]], %[[AL:.*]] = fa.online_softmax %[[S]], %[[M]], %[[L]] scale(%{{.*}}) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>
//     P rounded in its acc fragments, then (free for mma_sync) converted to
//     A fragments for P V: the convert comes right after the truncf and
//     fa.pv reads it.
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<128x64xf32, #acc_w4> to tensor<128x64xf16, #acc_w4>
// CHECK-NEXT: %[[PA:.*]] = fa.convert_layout %[[P16]] : tensor<128x64xf16, #acc_w4> -> tensor<128x64xf16, #opA_w4>
// CHECK: %[[RS:.*]] = fa.rescale %[[ACC]], %[[AL]] : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>
// CHECK: %[[ACCN:.*]] = fa.pv %[[PA]], %[[VT]], %[[RS]] : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared_swz>, tensor<128x64xf32, #acc_w4>
// CHECK: scf.yield %[[MN]], %[[LN]], %[[ACCN]] : tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x64xf32, #acc_w4>
//     Loop 2 (masked): the same encodings, from loop 1's results; the mask
//     keeps the acc encoding of S; Q comes from the same single convert.
// CHECK: %[[R2:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2) -> (tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x64xf32, #acc_w4>) {
// CHECK: %[[S2:.*]] = fa.qk %[[QA]], %{{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// CHECK: %[[SM2:.*]] = fa.mask %[[S2]][%[[Q0]], %{{.*}}] key_limit(%{{.*}}) causal_offset(%{{.*}}) : tensor<128x64xf32, #acc_w4>
// CHECK: fa.online_softmax %[[SM2]], {{.*}} : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>
// CHECK: %[[P16B:.*]] = arith.truncf {{.*}} to tensor<128x64xf16, #acc_w4>
// CHECK-NEXT: %[[PAB:.*]] = fa.convert_layout %[[P16B]] : tensor<128x64xf16, #acc_w4> -> tensor<128x64xf16, #opA_w4>
// CHECK: fa.pv %[[PAB]], {{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared_swz>, tensor<128x64xf32, #acc_w4>
//     O in acc fragments, LSE in rows; the stored slices are plain again.
// CHECK: %[[OT:.*]], %[[LSE:.*]] = fa.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1 : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4> -> tensor<128x64xf16, #acc_w4>
// CHECK: tensor.extract_slice %[[OT]][0, 0] [%{{.*}}, 64] [1, 1] : tensor<128x64xf16, #acc_w4> to tensor<?x64xf16>
// CHECK: tensor.extract_slice %[[LSE]][0] [%{{.*}}] [1] : tensor<128xf32, #rows_w4> to tensor<?xf32>
//     The grid mapping: (b, h, qb) on (z, y, x).
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
// CHECK: return %[[RES]]#0, %[[RES]]#1

//     query-home=shared: no convert of Q; every fa.qk reads the shared tile.
//     P is still converted before fa.pv.
// SHARED-LABEL: func @causal_d64
// SHARED: %[[QT:.*]] = tensor.pad
// SHARED: } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
// SHARED-NOT: fa.convert_layout %[[QT]]
// SHARED: fa.qk %[[QT]], %{{.*}} : tensor<128x64xf16, #shared>, tensor<64x64xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SHARED: %[[PA:.*]] = fa.convert_layout %{{.*}} : tensor<128x64xf16, #acc_w4> -> tensor<128x64xf16, #opA_w4>
// SHARED: fa.pv %[[PA]],
// SHARED: fa.qk %[[QT]], %{{.*}} : tensor<128x64xf16, #shared>, tensor<64x64xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SHARED-NOT: fa.convert_layout %[[QT]]
// SHARED: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}

//     swizzle-shared=off: every loaded tile padded.
// PADDED-LABEL: func @causal_d64
// PADDED-NOT: swizzled
// PADDED: fa.qk %{{.*}}, %{{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc_w4>
// PADDED-NOT: swizzled
// PADDED-LABEL: func @d128_bf16

//     num-warps=8: every warp_rows encoding names 8 warps; Q in registers.
// W8-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// W8-DAG: #opA_w8 = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.mma_sync>
// W8-LABEL: func @causal_d64
// W8-NOT: _w4
// W8: fa.convert_layout %{{.*}} : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA_w8>
// W8: scf.for {{.*}} -> (tensor<128xf32, #rows_w8>, tensor<128xf32, #partial_w8>, tensor<128x64xf32, #acc_w8>)
// W8-NOT: _w4
func.func @causal_d64(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x4x?x64xf16>, %lse: tensor<?x4x?xf32>)
    -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 2 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x4x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x4x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res:2 = scf.forall (%b, %h, %qb) in (%nb, 4, %nqb) shared_outs(%os = %o, %ls = %lse) -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x4x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
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
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16> to tensor<?x64xf16>
    %lrows = tensor.extract_slice %lset[0] [%qrows] [1] : tensor<128xf32> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x4x?x64xf16>
      tensor.parallel_insert_slice %lrows into %ls[%b, %h, %q0] [1, 1, %qrows] [1, 1, 1] : tensor<?xf32> into tensor<?x4x?xf32>
    }
  }
  return %res#0, %res#1 : tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
}

// -----

// Not causal, MQA 4:1, bf16, D = 128, 128 x 64 tiles, no LSE. auto with 4
// warps: S 64 + O 128 + Q 64 registers a thread > 160, so Q stays in shared
// memory and is re-read for every K/V block; with 8 warps (32 + 64 + 32 =
// 128) it fits and moves to registers.

// CHECK-LABEL: func @d128_bf16
// CHECK: %[[QT:.*]] = tensor.pad
// CHECK: } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
// CHECK-NOT: fa.convert_layout %[[QT]]
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x128xf32, #acc_w4>)
// CHECK: fa.qk %[[QT]], %{{.*}} : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc_w4>
// CHECK-NOT: fa.mask
// CHECK: %[[PA:.*]] = fa.convert_layout %{{.*}} : tensor<128x64xbf16, #acc_w4> -> tensor<128x64xbf16, #opA_w4>
// CHECK: fa.pv %[[PA]], %{{.*}}, %{{.*}} : tensor<128x64xbf16, #opA_w4>, tensor<64x128xbf16, #shared>, tensor<128x128xf32, #acc_w4>
// CHECK: fa.qk %[[QT]], %{{.*}} : tensor<128x128xbf16, #shared>
// CHECK: fa.mask {{.*}} key_limit(%{{.*}}) : tensor<128x64xf32, #acc_w4>
// CHECK: fa.finalize {{.*}} -> tensor<128x128xbf16, #acc_w4>
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}

//     swizzle-shared=on: the K and V tiles swizzled whatever the registers
//     (Q, loaded once, stays padded); auto leaves them padded here (S + O +
//     Q = 256 registers > 160).
// SWZ-LABEL: func @d128_bf16
// SWZ: %[[QT:.*]] = tensor.pad
// SWZ: } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
// SWZ: fa.qk %[[QT]], %{{.*}} : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SWZ: fa.pv %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16, #opA_w4>, tensor<64x128xbf16, #shared_swz>, tensor<128x128xf32, #acc_w4>

//     query-home=registers overrides the budget: one convert before the loops.
// REGS-LABEL: func @d128_bf16
// REGS: %[[QT:.*]] = tensor.pad
// REGS: } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
// REGS-NEXT: %[[QA:.*]] = fa.convert_layout %[[QT]] : tensor<128x128xbf16, #shared> -> tensor<128x128xbf16, #opA_w4>
// REGS: scf.for
// REGS: fa.qk %[[QA]], %{{.*}} : tensor<128x128xbf16, #opA_w4>
// REGS: scf.for
// REGS: fa.qk %[[QA]], %{{.*}} : tensor<128x128xbf16, #opA_w4>

// W8-LABEL: func @d128_bf16
// W8: %[[QT:.*]] = tensor.pad
// W8: } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
// W8-NEXT: %[[QA:.*]] = fa.convert_layout %[[QT]] : tensor<128x128xbf16, #shared> -> tensor<128x128xbf16, #opA_w8>
// W8: fa.qk %[[QA]], %{{.*}} : tensor<128x128xbf16, #opA_w8>
func.func @d128_bf16(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x1x?x128xbf16>, %v: tensor<?x1x?x128xbf16>, %o: tensor<?x4x?x128xbf16>)
    -> tensor<?x4x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 4 : index
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x4x?x128xbf16>
  %nq = tensor.dim %q, %c2 : tensor<?x4x?x128xbf16>
  %nk = tensor.dim %k, %c2 : tensor<?x1x?x128xbf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 4, %nqb) shared_outs(%os = %o) -> (tensor<?x4x?x128xbf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x4x?x128xbf16> to tensor<?x128xbf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x128xbf16> to tensor<128x128xbf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
    %full_blocks = arith.divui %nk, %cN : index
    %full_end = arith.muli %full_blocks, %cN : index
    %end = arith.addi %nk, %c0 : index
    %r1:3 = scf.for %k0 = %c0 to %full_end step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x1x?x128xbf16> to tensor<?x128xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x1x?x128xbf16> to tensor<?x128xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16>
      %s = fa.qk %qt, %kt : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x1x?x128xbf16> to tensor<?x128xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x1x?x128xbf16> to tensor<?x128xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16>
      %s = fa.qk %qt, %kt : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x128xbf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xbf16> to tensor<?x128xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x128xbf16> into tensor<?x4x?x128xbf16>
    }
  }
  return %res : tensor<?x4x?x128xbf16>
}

// -----

// Soft-capping and a sliding window (L1 of --fa-tile-q-outer, one K/V loop,
// D = 64, 128 x 64 tiles): fa.softcap's result gets the encoding of the
// scores it caps (acc), fa.mask with window_offset keeps it, and the softmax
// reads that. num-warps=0 picks the table's 4 warps for d = 64.
// CHECK-LABEL: func @softcap_window_d64
// CHECK: %[[S:.*]] = fa.qk %{{.*}}, %{{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// CHECK-NEXT: %[[SC:.*]] = fa.softcap %[[S]] scale(%{{.*}}) cap(%{{.*}}) : tensor<128x64xf32, #acc_w4>
// CHECK-NEXT: %[[SM:.*]] = fa.mask %[[SC]][%{{.*}}, %{{.*}}] key_limit(%{{.*}}) causal_offset(%{{.*}}) window_offset(%{{.*}}) : tensor<128x64xf32, #acc_w4>
// CHECK-NEXT: fa.online_softmax %[[SM]], %{{.*}}, %{{.*}} scale(%{{.*}}) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>
//     8 warps on request: the same, held by 8 warps.
// W8-LABEL: func @softcap_window_d64
// W8: %[[S:.*]] = fa.qk {{.*}} -> tensor<128x64xf32, #acc_w8>
// W8-NEXT: fa.softcap %[[S]] {{.*}} : tensor<128x64xf32, #acc_w8>
// AUTO-DAG: #acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// AUTO-LABEL: func @softcap_window_d64
// AUTO-NOT: _w8
// AUTO: fa.softcap %{{.*}} : tensor<128x64xf32, #acc_w4>
// AUTO-NOT: _w8
// AUTO: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @softcap_window_d64(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>) -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 1.44269502 : f32
  %x = arith.constant 2.500000e-03 : f32
  %cap = arith.constant 5.000000e+01 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %cl = arith.constant -100 : index
  %win = arith.addi %off, %cl : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
      %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x64xf32>
      %sm = fa.mask %sc[%q0, %k0] key_limit(%nk) causal_offset(%off) window_offset(%win) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    %ot, %lset = fa.finalize %r#2, %r#0, %r#1 : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  }
  return %res : tensor<?x2x?x64xf16>
}

// -----

// num-warps=0 past d = 128 (the #fa.mma_sync table, MmaSyncAtom.cpp): 8
// warps at d = 160 (128 x 32 tiles), every warp_rows encoding of the nest.
// AUTO-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// AUTO-DAG: #rows_w8 = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
// AUTO-DAG: #partial_w8 = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
// AUTO-LABEL: func @d160_auto_warps
// AUTO-NOT: _w4
// AUTO: scf.for {{.*}} -> (tensor<128xf32, #rows_w8>, tensor<128xf32, #partial_w8>, tensor<128x160xf32, #acc_w8>)
// AUTO: fa.qk {{.*}} -> tensor<128x32xf32, #acc_w8>
// AUTO-NOT: _w4
// AUTO: fa.finalize {{.*}} -> tensor<128x160xf16, #acc_w8>
func.func @d160_auto_warps(%q: tensor<?x2x?x160xf16>, %k: tensor<?x2x?x160xf16>, %v: tensor<?x2x?x160xf16>, %o: tensor<?x2x?x160xf16>) -> tensor<?x2x?x160xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 32 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x160xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x160xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x160xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x160xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x160xf16> to tensor<128x160xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x160xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x160xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x160xf16> to tensor<32x160xf16>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x160xf16> to tensor<32x160xf16>
      %s = fa.qk %qt, %kt : tensor<128x160xf16>, tensor<32x160xf16> -> tensor<128x32xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x32xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x32xf32> to tensor<128x32xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x160xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x32xf16>, tensor<32x160xf16>, tensor<128x160xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x160xf32>
    }
    %ot, %lset = fa.finalize %r#2, %r#0, %r#1 : tensor<128x160xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x160xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 160] [1, 1] : tensor<128x160xf16> to tensor<?x160xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 160] [1, 1, 1, 1] : tensor<?x160xf16> into tensor<?x2x?x160xf16>
    }
  }
  return %res : tensor<?x2x?x160xf16>
}

// -----

// d = 192 (bf16, 128 x 64 tiles): 8 warps too.
// AUTO-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// AUTO-LABEL: func @d192_auto_warps
// AUTO-NOT: _w4
// AUTO: fa.qk {{.*}} -> tensor<128x64xf32, #acc_w8>
// AUTO-NOT: _w4
// AUTO: fa.finalize {{.*}} -> tensor<128x192xbf16, #acc_w8>
func.func @d192_auto_warps(%q: tensor<?x2x?x192xbf16>, %k: tensor<?x2x?x192xbf16>, %v: tensor<?x2x?x192xbf16>, %o: tensor<?x2x?x192xbf16>) -> tensor<?x2x?x192xbf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x192xbf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x192xbf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x192xbf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x192xbf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 192] [1, 1, 1, 1] : tensor<?x2x?x192xbf16> to tensor<?x192xbf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x192xbf16> to tensor<128x192xbf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x192xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x192xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 192] [1, 1, 1, 1] : tensor<?x2x?x192xbf16> to tensor<?x192xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x192xbf16> to tensor<64x192xbf16>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 192] [1, 1, 1, 1] : tensor<?x2x?x192xbf16> to tensor<?x192xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x192xbf16> to tensor<64x192xbf16>
      %s = fa.qk %qt, %kt : tensor<128x192xbf16>, tensor<64x192xbf16> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x192xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xbf16>, tensor<64x192xbf16>, tensor<128x192xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x192xf32>
    }
    %ot, %lset = fa.finalize %r#2, %r#0, %r#1 : tensor<128x192xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x192xbf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 192] [1, 1] : tensor<128x192xbf16> to tensor<?x192xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 192] [1, 1, 1, 1] : tensor<?x192xbf16> into tensor<?x2x?x192xbf16>
    }
  }
  return %res : tensor<?x2x?x192xbf16>
}

// -----

// A forall that is not a tiled fa.attention is left alone: no mapping, no
// encodings (and no error).
// CHECK-LABEL: func @other_forall
// CHECK: scf.forall
// CHECK-NOT: mapping
// CHECK-NOT: #fa.
// CHECK: return
func.func @other_forall(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> tensor<8xf32> {
    %x = tensor.extract_slice %o[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %x into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}
