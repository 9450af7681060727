// Loop nests --fa-pipeline-kv cannot pipeline are errors on the offending
// K/V loop; a bad stages option is an error on the module. The inputs are
// hand-written L3 nests (after --fa-map-warps and --fa-schedule-softmax),
// each with one defect.

// RUN: fa-opt %s -split-input-file --fa-pipeline-kv -verify-diagnostics

// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="stages=1" 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: error: fa-pipeline-kv: option stages must be 2, 3 or 4 (or 0 for the atom's default), got 1
// ONE-NOT: error: fa-pipeline-kv: K/V loops
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="stages=5" 2>&1 | FileCheck %s --check-prefix=FIVE
// FIVE: error: fa-pipeline-kv: option stages must be 2, 3 or 4 (or 0 for the atom's default), got 5
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="stages=-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: fa-pipeline-kv: option stages must be 2, 3 or 4 (or 0 for the atom's default), got -2
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="l2-prefetch=100" 2>&1 | FileCheck %s --check-prefix=PREFETCH
// PREFETCH: error: fa-pipeline-kv: option l2-prefetch must be 0, 64, 128 or 256 (bytes), or -1 for the default, got 100
// PREFETCH-NOT: error: fa-pipeline-kv: K/V loops
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="copy=bulk" 2>&1 | FileCheck %s --check-prefix=COPY
// COPY: error: fa-pipeline-kv: option copy must be 'auto', 'cp-async' or 'tma', got 'bulk'
// COPY-NOT: error: fa-pipeline-kv: K/V loops
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="release=bulk" 2>&1 | FileCheck %s --check-prefix=RELEASE
// RELEASE: error: fa-pipeline-kv: option release must be 'auto', 'mbarrier' or 'barrier', got 'bulk'
// RELEASE-NOT: error: fa-pipeline-kv: K/V loops
// RUN: not fa-opt %s -split-input-file --fa-pipeline-kv="l2-prefetch=-2" 2>&1 | FileCheck %s --check-prefix=PREFETCH-NEG
// PREFETCH-NEG: error: fa-pipeline-kv: option l2-prefetch must be 0, 64, 128 or 256 (bytes), or -1 for the default, got -2

// Loop 2 does not start where loop 1 ends (it starts at the first row's
// visible end, not at full_end).

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @not_consecutive(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    // expected-error @+1 {{fa-pipeline-kv: this K/V loop does not start where the previous one ends}}
    %r2:3 = scf.for %k0 = %first_cl to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
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
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
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

// Loop 2 does not continue loop 1's state: its running max starts again
// from -inf.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @not_chained_state(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    // expected-error @+1 {{fa-pipeline-kv: this K/V loop does not start from the previous one's state}}
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %m0, %l = %r1#1, %acc = %r1#2)
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
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
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

// Loop 2 loads K and V of the query head h instead of the key/value head
// h / 2: it does not load the tiles loop 1 loads ahead for it.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @different_loads(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x4x?x64xf16>)
    -> tensor<?x4x?x64xf16> {
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
  %res = scf.forall (%b, %h, %qb) in (%nb, 4, %nqb) shared_outs(%os = %o) -> (tensor<?x4x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x4x?x64xf16> to tensor<?x64xf16>
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
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    // expected-error @+1 {{fa-pipeline-kv: this K/V loop loads its tiles differently from the previous one}}
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x4x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x4x?x64xf16>
}

// -----

// Loop 1 ends at the first row's visible end, not rounded down to whole
// blocks: the block after its last is not loop 2's first.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @not_block_boundary(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
    // expected-error @+1 {{fa-pipeline-kv: cannot prove that this K/V loop ends on a block boundary, so the next loop's blocks cannot be loaded ahead from it}}
    %r1:3 = scf.for %k0 = %c0 to %first_cl step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
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
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %r2:3 = scf.for %k0 = %first_cl to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
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
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
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

// K and V of one block loaded at different rows: they cannot be one copy
// group.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @kv_rows_differ(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>)
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
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    // expected-error @+1 {{fa-pipeline-kv: the shared tiles of a K/V loop must be loaded at the same batch, head and rows}}
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
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %kleft, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
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

// The step is not a constant: the slot of a block is unknown.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @dynamic_step(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %nstep: index, %o: tensor<?x2x?x64xf16>)
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
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    // expected-error @+1 {{fa-pipeline-kv: a K/V loop needs a constant positive step}}
    %r1:3 = scf.for %k0 = %c0 to %nk step %nstep iter_args(%m = %m0, %l = %l0, %acc = %acc0)
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
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
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

// The rows of a block are read from memory: they cannot be recomputed for
// the block loaded ahead.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @rows_from_memory(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %lens: memref<?xindex>, %o: tensor<?x2x?x64xf16>)
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
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    // expected-error @+1 {{fa-pipeline-kv: the tile indices of this K/V loop are not side-effect-free index arithmetic on its induction variable}}
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = memref.load %lens[%k0] : memref<?xindex>
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
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
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
