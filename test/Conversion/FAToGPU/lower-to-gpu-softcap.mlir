// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// fa.softcap on accumulator fragments (Patterns/Mask.cpp LowerSoftcap):
// per score cap * tanh(scale * s) (AttentionMath.h softcap), with the scale
// (the attention scale over the cap) and the cap as f32 kernel parameters,
// named softcap_scale and softcap in the launch plan. Hand-written L3: a
// [32 x 16] S tile on 2 warps (two fragments of 2 x 2 scores a thread), Q
// read from shared memory, one K/V block per iteration, fa.softcap between
// fa.qk and fa.mask as --fa-tile-q-outer places it.

//     The launch: the three constants of the host (scale / cap, cap, and
//     log2(e), the softmax scale once the scale is inside the cap) are
//     parameters, after the tensors, in the order the body first uses them;
//     the plan names each and records its value.
// CHECK-LABEL: func.func @softcap(
// CHECK-DAG: %[[X:.*]] = arith.constant 1.250000e-02 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 2.000000e+01 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: gpu.launch_func @softcap_kernel_module::@softcap_kernel
// CHECK-SAME: args(%{{.*}} : memref<{{.*}}>, %{{.*}} : memref<{{.*}}>, %{{.*}} : memref<{{.*}}>, %{{.*}} : memref<{{.*}}>, %[[X]] : f32, %[[CAP]] : f32, %[[LOG2E]] : f32)
// CHECK-SAME: params = ["q", "k", "v", "o", "softcap_scale", "softcap", "softmax_scale_log2"]
// CHECK-SAME: scalars = [{dtype = "f32", name = "softcap_scale", value = 1.250000e-02 : f32}, {dtype = "f32", name = "softcap", value = 2.000000e+01 : f32}, {dtype = "f32", name = "softmax_scale_log2", value = 1.44269502 : f32}]

//     The kernel: 4 tensors, then the three f32 parameters in that order.
// CHECK: gpu.func @softcap_kernel(%{{[^:]*}}: memref<{{.*}}>, %{{[^:]*}}: memref<{{.*}}>, %{{[^:]*}}: memref<{{.*}}>, %{{[^:]*}}: memref<{{.*}}>, %[[AX:[^:]*]]: f32, %[[ACAP:[^:]*]]: f32, %[[ASCALE:[^:]*]]: f32) kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for
// CHECK: %[[S0:.*]] = nvgpu.mma.sync
// CHECK: %[[S1:.*]] = nvgpu.mma.sync
//     Each of the 8 scores: times the scale parameter, tanh, times the cap
//     parameter (cap first, as AttentionMath.h builds it).
// CHECK: %[[E00:.*]] = vector.extract %[[S0]][0, 0]
// CHECK-NEXT: %[[X00:.*]] = arith.mulf %[[E00]], %[[AX]] : f32
// CHECK-NEXT: %[[T00:.*]] = math.tanh %[[X00]] : f32
// CHECK-NEXT: %[[C00:.*]] = arith.mulf %[[ACAP]], %[[T00]] : f32
// CHECK-NEXT: %[[E01:.*]] = vector.extract %[[S0]][0, 1]
// CHECK-NEXT: %[[X01:.*]] = arith.mulf %[[E01]], %[[AX]] : f32
// CHECK-NEXT: %[[T01:.*]] = math.tanh %[[X01]] : f32
// CHECK-NEXT: %[[C01:.*]] = arith.mulf %[[ACAP]], %[[T01]] : f32
// CHECK-NEXT: %[[E10:.*]] = vector.extract %[[S0]][1, 0]
// CHECK-NEXT: %[[X10:.*]] = arith.mulf %[[E10]], %[[AX]] : f32
// CHECK-NEXT: %[[T10:.*]] = math.tanh %[[X10]] : f32
// CHECK-NEXT: %[[C10:.*]] = arith.mulf %[[ACAP]], %[[T10]] : f32
// CHECK-NEXT: %[[E11:.*]] = vector.extract %[[S0]][1, 1]
// CHECK-NEXT: arith.mulf %[[E11]], %[[AX]] : f32
// CHECK-NEXT: math.tanh
// CHECK-NEXT: %[[C11:.*]] = arith.mulf %[[ACAP]], %{{.*}} : f32
// CHECK-NEXT: %[[E20:.*]] = vector.extract %[[S1]][0, 0]
// CHECK-NEXT: arith.mulf %[[E20]], %[[AX]] : f32
// CHECK-COUNT-4: math.tanh
// CHECK-NOT: math.tanh
//     The mask then selects on the capped scores.
// CHECK: arith.select %{{.*}}, %[[NEGINF]], %[[C00]] : f32
// CHECK: arith.select %{{.*}}, %[[NEGINF]], %[[C01]] : f32
// CHECK: arith.select %{{.*}}, %[[NEGINF]], %[[C10]] : f32
// CHECK: arith.select %{{.*}}, %[[NEGINF]], %[[C11]] : f32
//     The softmax scales by its own parameter, not by the cap's.
// CHECK: arith.mulf %{{.*}}, %[[ASCALE]] : f32
// CHECK: math.fma %{{.*}}, %[[ASCALE]], %{{.*}} : f32
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @softcap(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %x = arith.constant 0.0125 : f32
  %cap = arith.constant 20.0 : f32
  %scale = arith.constant 1.44269502 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<32x16xf32, #acc>
      %sm = fa.mask %sc[%q0, %k0] key_limit(%nk) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// The scale and the cap from the function's arguments (one kernel for any
// cap): still parameters with their roles' names; the plan has no value for
// them (unit), and fa.softcap alone (no mask) feeds the softmax.
// CHECK-LABEL: func.func @softcap_runtime(
// CHECK-SAME: %[[X:[^:]*]]: f32, %[[CAP:[^:]*]]: f32)
// CHECK: gpu.launch_func @softcap_runtime_kernel_module::@softcap_runtime_kernel
// CHECK-SAME: %[[X]] : f32, %[[CAP]] : f32, %{{.*}} : f32)
// CHECK-SAME: params = ["q", "k", "v", "o", "softcap_scale", "softcap", "softmax_scale_log2"]
// CHECK-SAME: scalars = [{dtype = "f32", name = "softcap_scale", value}, {dtype = "f32", name = "softcap", value}, {dtype = "f32", name = "softmax_scale_log2", value = 1.44269502 : f32}]
// CHECK: gpu.func @softcap_runtime_kernel({{.*}}, %[[AX:[^:]*]]: f32, %[[ACAP:[^:]*]]: f32, %[[ASCALE:[^:]*]]: f32) kernel
// CHECK: %[[S0:.*]] = nvgpu.mma.sync
// CHECK: %[[E00:.*]] = vector.extract %[[S0]][0, 0]
// CHECK-NEXT: %[[X00:.*]] = arith.mulf %[[E00]], %[[AX]] : f32
// CHECK-NEXT: %[[T00:.*]] = math.tanh %[[X00]] : f32
// CHECK-NEXT: %[[C00:.*]] = arith.mulf %[[ACAP]], %[[T00]] : f32
// CHECK-COUNT-7: math.tanh
// CHECK-NOT: arith.select
// CHECK: arith.maxnumf %[[C00]], %{{.*}} : f32
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @softcap_runtime(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>,
                           %x: f32, %cap: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 1.44269502 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sc, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sc, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// The form --fa-tile-q-outer emits: fa.softcap without a cap (tanh alone)
// and the cap, 20, in the softmax scale (20 * log2(e) = 28.8539...): per
// score a multiply and a tanh, and no multiply by a cap; two f32
// parameters.
// CHECK-LABEL: func.func @softcap_in_softmax(
// CHECK: gpu.launch_func @softcap_in_softmax_kernel_module::@softcap_in_softmax_kernel
// CHECK-SAME: params = ["q", "k", "v", "o", "softcap_scale", "softmax_scale_log2"]
// CHECK: gpu.func @softcap_in_softmax_kernel({{.*}}, %[[AX:[^:]*]]: f32, %[[ASCALE:[^:]*]]: f32) kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[S0:.*]] = nvgpu.mma.sync
// CHECK: %[[E00:.*]] = vector.extract %[[S0]][0, 0]
// CHECK-NEXT: %[[X00:.*]] = arith.mulf %[[E00]], %[[AX]] : f32
// CHECK-NEXT: %[[T00:.*]] = math.tanh %[[X00]] : f32
// CHECK-NEXT: %[[E01:.*]] = vector.extract %[[S0]][0, 1]
// CHECK-NEXT: %[[X01:.*]] = arith.mulf %[[E01]], %[[AX]] : f32
// CHECK-NEXT: math.tanh %[[X01]] : f32
// CHECK-COUNT-6: math.tanh
// CHECK-NOT: math.tanh
// CHECK: arith.select %{{.*}}, %[[NEGINF]], %[[T00]] : f32
// CHECK: arith.mulf %{{.*}}, %[[ASCALE]] : f32
// CHECK: math.fma %{{.*}}, %[[ASCALE]], %{{.*}} : f32
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @softcap_in_softmax(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %x = arith.constant 0.0125 : f32
  %scale = arith.constant 28.8539009 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sc = fa.softcap %s scale(%x) : tensor<32x16xf32, #acc>
      %sm = fa.mask %sc[%q0, %k0] key_limit(%nk) : tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}
