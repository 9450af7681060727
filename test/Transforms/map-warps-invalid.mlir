// Nests whose split does not fit mma.sync.m16n8k16, element types without a
// GPU layout, a nest that is already mapped, and bad options are pass errors
// on the scf.forall that name the values. The inputs are hand-written L2
// nests (an unmasked and a masked K/V loop).

// RUN: fa-opt %s -split-input-file --fa-map-warps -verify-diagnostics

// The option is checked first, on the module (no nest needed).
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: fa-map-warps: option num-warps must be 1, 2, 4 or 8 (or 0 for the atom's default), got 3
// WARPS-NOT: error: fa-map-warps: block-m
// RUN: not fa-opt %s --fa-map-warps="num-warps=-1" 2>&1 | FileCheck %s --check-prefix=WARPS0
// WARPS0: error: fa-map-warps: option num-warps must be 1, 2, 4 or 8 (or 0 for the atom's default), got -1
// RUN: not fa-opt %s --fa-map-warps="num-warps=16" 2>&1 | FileCheck %s --check-prefix=WARPS16
// WARPS16: error: fa-map-warps: option num-warps must be 1, 2, 4 or 8 (or 0 for the atom's default), got 16
// RUN: not fa-opt %s --fa-map-warps="swizzle-shared=yes" 2>&1 | FileCheck %s --check-prefix=SWIZZLE
// SWIZZLE: error: fa-map-warps: option swizzle-shared must be auto, on or off, got 'yes'
// RUN: not fa-opt %s --fa-map-warps="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: fa-map-warps: option chip must be one of sm_80, sm_86, {{.*}}, got 'sm_70'
// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-map-warps{query-home=global})" 2>&1 | FileCheck %s --check-prefix=HOME
// HOME: for the --query-home option: Cannot find option named 'global'!

// With 8 warps, 64-row Q blocks (valid for 4 warps, last case) no longer
// split into whole 16-row tiles per warp.
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=8" 2>&1 | FileCheck %s --check-prefix=W8
// W8: error: fa-map-warps: block-m (96) must be a multiple of 16 * num-warps = 128
// W8: error: fa-map-warps: block-m (64) must be a multiple of 16 * num-warps = 128: each warp owns whole 16-row tiles of the Q block

// #fa.wgmma holds exactly 16 rows a warp in whole warpgroups: 4 warps
// cannot hold 96 or 128 rows, and the 64-row nest is fine.
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=4 atom=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA: error: fa-map-warps: #fa.wgmma holds 16 rows a warp in warpgroups of 4 warps: block-m must be 16 * num-warps with num-warps a multiple of 4 (64 rows on 4 warps, 128 on 8), got block-m = 96 on 4 warps
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=2 atom=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA2
// WGMMA2: got block-m = 64 on 2 warps
// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-map-warps{atom=hmma})" 2>&1 | FileCheck %s --check-prefix=ATOM
// ATOM: for the --atom option: Cannot find option named 'hmma'!

// block-m = 96 with 4 warps: 24 rows a warp.
func.func @block_m_96(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
    -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 96 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  // expected-error @+1 {{fa-map-warps: block-m (96) must be a multiple of 16 * num-warps = 64: each warp owns whole 16-row tiles of the Q block}}
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
    } : tensor<?x64xf16> to tensor<96x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<96xf32>
    %l0 = arith.constant dense<0.0> : tensor<96xf32>
    %acc0 = arith.constant dense<0.0> : tensor<96x64xf32>
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
        -> (tensor<96xf32>, tensor<96xf32>, tensor<96x64xf32>) {
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
      %s = fa.qk %qt, %kt : tensor<96x64xf16>, tensor<64x64xf16> -> tensor<96x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<96x64xf32>, tensor<96xf32>, tensor<96xf32>
      %p16 = arith.truncf %p : tensor<96x64xf32> to tensor<96x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<96x64xf32>, tensor<96xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<96x64xf16>, tensor<64x64xf16>, tensor<96x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<96xf32>, tensor<96xf32>, tensor<96x64xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<96xf32>, tensor<96xf32>, tensor<96x64xf32>) {
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
      %s = fa.qk %qt, %kt : tensor<96x64xf16>, tensor<64x64xf16> -> tensor<96x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<96x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<96x64xf32>, tensor<96xf32>, tensor<96xf32>
      %p16 = arith.truncf %p : tensor<96x64xf32> to tensor<96x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<96x64xf32>, tensor<96xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<96x64xf16>, tensor<64x64xf16>, tensor<96x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<96xf32>, tensor<96xf32>, tensor<96x64xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<96x64xf32>, tensor<96xf32>, tensor<96xf32> -> tensor<96x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<96x64xf16> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  }
  return %res : tensor<?x2x?x64xf16>
}

// -----

// block-n = 40: not a whole number of k = 16 steps of P V.
func.func @block_n_40(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
    -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 40 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  // expected-error @+1 {{fa-map-warps: block-n (40) must be a multiple of 16, the k of the P V mma}}
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
      } : tensor<?x64xf16> to tensor<40x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<40x64xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<40x64xf16> -> tensor<128x40xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x40xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x40xf32> to tensor<128x40xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x40xf16>, tensor<40x64xf16>, tensor<128x64xf32>
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
      } : tensor<?x64xf16> to tensor<40x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<40x64xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<40x64xf16> -> tensor<128x40xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x40xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x40xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x40xf32> to tensor<128x40xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x40xf16>, tensor<40x64xf16>, tensor<128x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  }
  return %res : tensor<?x2x?x64xf16>
}

// -----

// D = 40.
func.func @head_dim_40(%q: tensor<?x2x?x40xf16>, %k: tensor<?x2x?x40xf16>, %v: tensor<?x2x?x40xf16>, %o: tensor<?x2x?x40xf16>)
    -> tensor<?x2x?x40xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x40xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x40xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x40xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  // expected-error @+1 {{fa-map-warps: head dims (40, 40) must be multiples of 16}}
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x40xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x40xf16> to tensor<128x40xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x40xf32>
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
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %s = fa.qk %qt, %kt : tensor<128x40xf16>, tensor<64x40xf16> -> tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x40xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x40xf16>, tensor<128x40xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %s = fa.qk %qt, %kt : tensor<128x40xf16>, tensor<64x40xf16> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x40xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x40xf16>, tensor<128x40xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x40xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x40xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 40] [1, 1] : tensor<128x40xf16> to tensor<?x40xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 40] [1, 1, 1, 1] : tensor<?x40xf16> into tensor<?x2x?x40xf16>
    }
  }
  return %res : tensor<?x2x?x40xf16>
}

// -----

// D = 64 but Dv = 40.
func.func @value_dim_40(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x40xf16>, %o: tensor<?x2x?x40xf16>)
    -> tensor<?x2x?x40xf16> {
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
  // expected-error @+1 {{fa-map-warps: head dims (64, 40) must be multiples of 16}}
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x40xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x40xf32>
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
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x40xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x40xf16>, tensor<128x40xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 40] [1, 1, 1, 1] : tensor<?x2x?x40xf16> to tensor<?x40xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x40xf16> to tensor<64x40xf16>
      %s = fa.qk %qt, %kt : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x40xf32>, tensor<128xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<128x64xf16>, tensor<64x40xf16>, tensor<128x40xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x40xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x40xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x40xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 40] [1, 1] : tensor<128x40xf16> to tensor<?x40xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 40] [1, 1, 1, 1] : tensor<?x40xf16> into tensor<?x2x?x40xf16>
    }
  }
  return %res : tensor<?x2x?x40xf16>
}

// -----

// f32 tiles (valid at L1/L2 for the CPU) have no mma.sync layout.
func.func @f32(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %o: tensor<?x2x?x64xf32>)
    -> tensor<?x2x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf32>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf32>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf32>
  %nqb = arith.ceildivui %nq, %cM : index
  // expected-error @+1 {{fa-map-warps: element type 'f32' has no GPU layout: the #fa.mma_sync atom takes f16 or bf16}}
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x64xf32>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<?x64xf32>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<?x64xf32> to tensor<128x64xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.0> : tensor<128xf32>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<?x64xf32>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x64xf32> to tensor<64x64xf32>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<?x64xf32>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x64xf32> to tensor<64x64xf32>
      %s = fa.qk %qt, %kt : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
      %acc2 = fa.pv %p, %vt, %acc1 : tensor<128x64xf32>, tensor<64x64xf32>, tensor<128x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x64xf32>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf32> to tensor<?x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf32> into tensor<?x2x?x64xf32>
    }
  }
  return %res : tensor<?x2x?x64xf32>
}

// -----

// An L2 nest that already has the grid mapping.
func.func @mapping_only(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
  %off = arith.subi %nk, %nq : index
  // expected-error @+1 {{fa-map-warps: the loop nest already has GPU layouts or a grid mapping (run --fa-map-warps once)}}
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
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x64xf16>
}

// -----

// --fa-map-warps output (L3: encodings, converts, mapping) given again.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @already_l3(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
  %off = arith.subi %nk, %nq : index
  // expected-error @+1 {{fa-map-warps: the loop nest already has GPU layouts or a grid mapping (run --fa-map-warps once)}}
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
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
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
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x64xf16>
}

// -----

// Valid with 4 warps (64 = 16 * 4): no error here; the W8 run above fails on it.
func.func @block_m_64(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
    -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 64 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
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
    } : tensor<?x64xf16> to tensor<64x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
    %l0 = arith.constant dense<0.0> : tensor<64xf32>
    %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
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
        -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
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
      %s = fa.qk %qt, %kt : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<64x64xf32>, tensor<64xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
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
      %s = fa.qk %qt, %kt : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<64x64xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<64x64xf32>, tensor<64xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<64x64xf16> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  }
  return %res : tensor<?x2x?x64xf16>
}
