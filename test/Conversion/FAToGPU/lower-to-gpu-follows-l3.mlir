// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// The kernel follows the L3 it is given: each case below is the first one
// with one semantic change, and its CHECK lines fail on the first case's
// output (and the first case's on each of the others). Hand-written L3:
// causal GQA-free attention, 32-row Q blocks on 2 warps, head dim 16, K/V
// blocks of 16, Q in registers.

// The reference kernel.
// CHECK-LABEL: func.func @base
// CHECK: %[[SCALE:.*]] = arith.constant 0.360673755 : f32
// CHECK: %[[NQB:.*]] = arith.ceildivui
// CHECK: gpu.launch_func @base_kernel_module::@base_kernel blocks in (%[[NQB]], %c2, %c1) threads in (%c64, %c1, %c1)
// CHECK-SAME: %{{.*}} : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[SCALE]] : f32)
// CHECK-SAME: params = ["q", "k", "v", "o", "lse", "softmax_scale_log2"]
// CHECK-SAME: scalars = [{dtype = "f32", name = "softmax_scale_log2", value = 0.360673755 : f32}]
// CHECK: gpu.func @base_kernel({{.*}}, %{{.*}}: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[S:.*]]: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK: %[[OFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[Q0:.*]] = arith.muli %[[BX]], %c32 : index
//     One Q m-tile per warp: rows 16 w.
// CHECK: %[[QROW:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[QROW]], %c0]
// CHECK-NOT: nvgpu.ldmatrix
//     2 rows x (m, l) and 2 accumulator fragments per thread.
// CHECK: scf.for {{.*}} iter_args(%[[M0:[^ ]*]] = %{{[^,]*}}, %[[M1:[^ ]*]] = %{{[^,]*}}, %[[L0:[^ ]*]] = %{{[^,]*}}, %[[L1:[^ ]*]] = %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) -> (f32, f32, f32, f32, vector<2x2xf32>, vector<2x2xf32>)
//     The causal limit of row value 0: q0 + 16 w + g + (Nk - Nq) + 1.
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %{{.*}} : index
// CHECK: %[[ROFF:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[END:.*]] = arith.addi %[[ROFF]], %c1 : index
// CHECK: arith.minsi %[[NK]], %[[END]] : index
//     The scale parameter scales the row max and the exponents.
// CHECK: arith.mulf %{{.*}}, %[[S]] : f32
// CHECK: %[[NM0:.*]] = arith.maxnumf %[[M0]], %{{.*}} : f32
// CHECK: %[[ALPHA0:.*]] = math.exp2
// CHECK: %[[NM1:.*]] = arith.maxnumf %[[M1]], %{{.*}} : f32
// CHECK: %[[ALPHA1:.*]] = math.exp2
//     The accumulator is rescaled by alpha.
// CHECK: %[[AF:.*]] = vector.from_elements %[[ALPHA0]], %[[ALPHA0]], %[[ALPHA1]], %[[ALPHA1]] : vector<2x2xf32>
// CHECK: scf.if
// CHECK: arith.mulf %{{.*}}, %[[AF]] : vector<2x2xf32>
// CHECK: math.fma %{{.*}}, %[[S]], %{{.*}} : f32
// CHECK: %[[NL0:.*]] = math.fma %[[ALPHA0]], %[[L0]], %{{.*}} : f32
// CHECK: %[[NL1:.*]] = math.fma %[[ALPHA1]], %[[L1]], %{{.*}} : f32
// CHECK: scf.yield %[[NM0]], %[[NM1]], %[[NL0]], %[[NL1]],
//     The LSE is computed and stored.
// CHECK: math.log2
// CHECK: memref.store
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @base(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// Another scale: the launch passes it and the plan records it; the kernel
// is the same (the scale is its parameter).
// CHECK-LABEL: func.func @other_scale
// CHECK: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK: gpu.launch_func @other_scale_kernel_module::@other_scale_kernel
// CHECK-SAME: %[[SCALE]] : f32)
// CHECK-SAME: scalars = [{dtype = "f32", name = "softmax_scale_log2", value = 0.180336878 : f32}]
// CHECK: gpu.func @other_scale_kernel({{.*}}, %[[S:.*]]: f32) kernel
// CHECK: arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NOT: 0.360673755
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @other_scale(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.180336878 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// A constant causal offset (5) instead of Nk - Nq: the limit is row + 6.
// CHECK-LABEL: gpu.func @other_offset_kernel
// CHECK: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK-NOT: arith.subi %[[NK]], %{{.*}} : index
// CHECK: %[[Q0:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %[[ROW]], %c6 : index
// CHECK: arith.minsi %[[NK]], %[[END]] : index
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @other_offset(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.constant 5 : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// No LSE output: no lse parameter, no log2, no per-row store.
// CHECK-LABEL: func.func @no_lse
// CHECK: gpu.launch_func @no_lse_kernel_module::@no_lse_kernel
// CHECK-SAME: args(%{{.*}} : memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %{{.*}} : memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %{{.*}} : memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %{{.*}} : memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %{{.*}} : f32)
// CHECK-SAME: params = ["q", "k", "v", "o", "softmax_scale_log2"]
// CHECK: gpu.func @no_lse_kernel(%{{.*}}: memref<?x?x?x16xf16, {{.*}}>, %{{.*}}: memref<?x?x?x16xf16, {{.*}}>, %{{.*}}: memref<?x?x?x16xf16, {{.*}}>, %{{.*}}: memref<?x?x?x16xf16, {{.*}}>, %{{.*}}: f32) kernel
// CHECK-NOT: math.log2
// CHECK-NOT: memref.store
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @no_lse(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>) -> tensor<1x2x?x16xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o) -> (tensor<1x2x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x2x?x16xf16>
}

// -----

// One warp instead of two: 32 threads, and the warp holds both m-tiles of
// the 32 rows: two Q ldmatrix (rows 32 w, 32 w + 16), 4 row values of m and
// l, 4 accumulator fragments.
// CHECK-LABEL: func.func @one_warp
// CHECK: gpu.launch_func @one_warp_kernel_module::@one_warp_kernel blocks in (%{{.*}}, %c2, %c1) threads in (%c32, %c1, %c1)
// CHECK-SAME: block = [32, 1, 1]
// CHECK: gpu.func @one_warp_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[R0:.*]] = arith.muli %[[WARP]], %c32 : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[R0]], %c0]
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %c16 : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[R1]], %c0]
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK: nvvm.vote.sync
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 1, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 1, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @one_warp(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// fa.rescale by the new running max instead of alpha: the accumulator is
// multiplied by the max values, and the vote asks whether a max is != 1.
// CHECK-LABEL: gpu.func @rescale_by_max_kernel
// CHECK: scf.for {{.*}} iter_args(%[[M0:[^ ]*]] = %{{[^,]*}}, %[[M1:[^ ]*]] = %{{[^,]*}}, %{{.*}}) ->
// CHECK: %[[NM0:.*]] = arith.maxnumf %[[M0]], %{{.*}} : f32
// CHECK: %[[NM1:.*]] = arith.maxnumf %[[M1]], %{{.*}} : f32
// CHECK: %[[C0:.*]] = arith.cmpf one, %[[NM0]], %{{.*}} : f32
// CHECK: %[[C1:.*]] = arith.cmpf one, %[[NM1]], %{{.*}} : f32
// CHECK: %[[MF:.*]] = vector.from_elements %[[NM0]], %[[NM0]], %[[NM1]], %[[NM1]] : vector<2x2xf32>
// CHECK: scf.if
// CHECK: arith.mulf %{{.*}}, %[[MF]] : vector<2x2xf32>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @rescale_by_max(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %m2 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// fa.softmax_exp's new sum not yielded: l stays at its initial 0 (the loop
// no longer carries it), so fa.finalize divides by the quad sum of 0.
// CHECK-LABEL: gpu.func @sum_not_yielded_kernel
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[R:.*]]:4 = scf.for {{.*}} -> (f32, f32, vector<2x2xf32>, vector<2x2xf32>)
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, vector<2x2xf32>, vector<2x2xf32>
// CHECK: gpu.shuffle xor %[[ZERO]], %c1_i32, %c32_i32 : f32
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @sum_not_yielded(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}

// -----

// The mapping reversed: batch on x, Q blocks on z.
// CHECK-LABEL: func.func @reversed_mapping
// CHECK: %[[NQB:.*]] = arith.ceildivui
// CHECK: gpu.launch_func @reversed_mapping_kernel_module::@reversed_mapping_kernel blocks in (%c1, %c2, %[[NQB]])
// CHECK-SAME: grid = [1, 2, {args = [{dim = ["q", 2]}, 32], op = "ceildivui"}]
// CHECK: gpu.func @reversed_mapping_kernel
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK-DAG: %[[BY:.*]] = gpu.block_id y
// CHECK-DAG: %[[BZ:.*]] = gpu.block_id z
// CHECK: arith.muli %[[BZ]], %c32 : index
// CHECK: memref.subview %arg0[%[[BX]], %[[BY]], 0, 0]
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @reversed_mapping(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
           %o: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %off = arith.subi %nk, %nq : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qn : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %kn = arith.minsi %kleft, %c16 : index
      %kpad = arith.subi %c16, %kn : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return %r#0, %r#1 : tensor<1x2x?x16xf16>, tensor<1x2x?xf32>
}
