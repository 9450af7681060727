// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=KERNEL
// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_90 index-bitwidth=64" | FileCheck %s --check-prefix=OPTS

// The outliner of --fa-lower-to-gpu (Outline.cpp): a warp-mapped scf.forall
// (L3) becomes a gpu.func in a gpu.module of its own and a gpu.launch_func
// carrying the launch plan (LaunchPlan.cpp). Inputs are hand-written L3:
// 2 warps, 32-row Q blocks, head dim 16.

// A whole GQA kernel (2 query heads share 1 K/V head). The parameters are
// the tensors the body reads, q, k, v first (though K, whose size bounds the
// K/V loop, is used first), then the shared outputs, then the f32 scale: a
// parameter even though it is a constant, so one kernel serves every scale.
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x2x?x16xf16>, %[[K:[^:]*]]: tensor<?x1x?x16xf16>, %[[V:[^:]*]]: tensor<?x1x?x16xf16>, %[[O:[^:]*]]: tensor<?x2x?x16xf16>, %[[L:[^:]*]]: tensor<?x2x?xf32>)
// CHECK: %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[B:.*]] = tensor.dim %[[Q]], %c0
// CHECK: %[[NQ:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[NQB:.*]] = arith.ceildivui %[[NQ]], %c32
//     Each tensor is passed as its buffer, cast to the kernel's parameter
//     type (contiguous rows, any other strides).
// CHECK: %[[QB:.*]] = bufferization.to_buffer %[[Q]]
// CHECK: %[[QM:.*]] = memref.cast %[[QB]] : {{.*}} to memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK: %[[KB:.*]] = bufferization.to_buffer %[[K]]
// CHECK: %[[KM:.*]] = memref.cast %[[KB]]
// CHECK: %[[VB:.*]] = bufferization.to_buffer %[[V]]
// CHECK: %[[VM:.*]] = memref.cast %[[VB]]
// CHECK: %[[OB:.*]] = bufferization.to_buffer %[[O]]
// CHECK: %[[OM:.*]] = memref.cast %[[OB]]
// CHECK: %[[LB:.*]] = bufferization.to_buffer %[[L]]
// CHECK: %[[LM:.*]] = memref.cast %[[LB]] : {{.*}} to memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
//     The grid is the forall's upper bounds through the mapping (Q blocks on
//     x, heads on y, batch on z); 32 x num_warps threads; the shared memory
//     of the Q, K and V tiles (32x16, 16x16, 16x16 f16 with 16-byte padded
//     rows: 1536 + 768 + 768 bytes).
// CHECK: gpu.launch_func @gqa_kernel_module::@gqa_kernel blocks in (%[[NQB]], %c2, %[[B]]) threads in (%c64, %c1, %c1) dynamic_shared_memory_size %c3072_i32
// CHECK-SAME: args(%[[QM]] : memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[KM]] : {{.*}}, %[[VM]] : {{.*}}, %[[OM]] : {{.*}}, %[[LM]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[SCALE]] : f32)
//     The launch plan: the same facts for a runtime, the grid as expressions
//     of the tensor sizes (dim 2 of q = Nq, dim 0 of q = B), parameters in
//     the launch's order, dynamic dims as unit (JSON null), the scale's
//     compile-time value.
// CHECK-SAME: {fa.launch_plan = {chip = "sm_80", format = "fa-mlir-launch-plan", index_bitwidth = 32 : i64,
// CHECK-SAME: kernels = [{block = [64, 1, 1], dynamic_shared_memory = 3072 : i64,
// CHECK-SAME: grid = [{args = [{dim = ["q", 2]}, 32], op = "ceildivui"}, 2, {dim = ["q", 0]}],
// CHECK-SAME: name = "gqa_kernel", params = ["q", "k", "v", "o", "lse", "softmax_scale_log2"], ptx = "gqa_kernel.ptx"}],
// CHECK-SAME: name = "gqa_kernel",
// CHECK-SAME: scalars = [{dtype = "f32", name = "softmax_scale_log2", value = 5.000000e-01 : f32}],
// CHECK-SAME: tensors = [{dtype = "f16", name = "q", output = false, shape = [unit, 2, unit, 16]},
// CHECK-SAME: {dtype = "f16", name = "k", output = false, shape = [unit, 1, unit, 16]},
// CHECK-SAME: {dtype = "f16", name = "v", output = false, shape = [unit, 1, unit, 16]},
// CHECK-SAME: {dtype = "f16", name = "o", output = true, shape = [unit, 2, unit, 16]},
// CHECK-SAME: {dtype = "f32", name = "lse", output = true, shape = [unit, 2, unit]}],
// CHECK-SAME: version = 1 : i64, workspaces = []}}
//     The results are the output buffers the kernel wrote.
// CHECK: %[[OT:.*]] = bufferization.to_tensor %[[OB]] restrict writable
// CHECK: %[[LT:.*]] = bufferization.to_tensor %[[LB]] restrict writable
// CHECK: return %[[OT]], %[[LT]]

//     The kernel: parameters in the launch's order, the block size known.
// CHECK: gpu.module @gqa_kernel_module {
// CHECK: gpu.func @gqa_kernel(%[[AQ:[^:]*]]: memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[AK:[^:]*]]: memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[AV:[^:]*]]: memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[AO:[^:]*]]: memref<?x?x?x16xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[AL:[^:]*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[AS:[^:]*]]: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
//     The induction variables are the block ids the mapping names.
// CHECK: %[[BZ:.*]] = gpu.block_id z
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[BX:.*]] = gpu.block_id x
//     Nq, an index value of the host, is recomputed from Q's memref; the
//     tensor.dim of K in the body reads K's memref.
// CHECK: %[[NQK:.*]] = memref.dim %[[AQ]], %c2
// CHECK: %[[KVH:.*]] = arith.divui %[[BY]], %c2
// CHECK: %[[NKK:.*]] = memref.dim %[[AK]], %c2
// CHECK: %[[Q0:.*]] = arith.muli %[[BX]], %c32
// CHECK: memref.subview %[[AQ]][%[[BZ]], %[[BY]], 0, 0] [1, 1, %[[NQK]], 16]
// CHECK: scf.for %{{.*}} = %c0 to %[[NKK]] step %c16
// CHECK: memref.subview %[[AK]][%[[BZ]], %[[KVH]], 0, 0] [1, 1, %[[NKK]], 16]
// CHECK: memref.subview %[[AV]][%[[BZ]], %[[KVH]], 0, 0]
//     The scale is the f32 parameter.
// CHECK: arith.mulf %{{.*}}, %[[AS]] : f32
// CHECK: math.fma %{{.*}}, %[[AS]], %{{.*}} : f32
// CHECK: scf.yield
//     The stores of scf.forall.in_parallel, into the output parameters.
// CHECK: memref.subview %[[AO]][%[[BZ]], %[[BY]], 0, 0]
// CHECK: memref.subview %[[AL]][%[[BZ]], %[[BY]], 0]
// CHECK: gpu.return

//     Nothing of the tensor world is left in the kernel: the views the
//     outliner made of the parameters are dead once the loads are lowered.
// KERNEL-LABEL: gpu.func @gqa_kernel
// KERNEL-NOT: bufferization.
// KERNEL-NOT: tensor.
// KERNEL: gpu.return

//     The options are recorded in the plan.
// OPTS-LABEL: func.func @gqa
// OPTS: fa.launch_plan = {chip = "sm_90", format = "fa-mlir-launch-plan", index_bitwidth = 64 : i64
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @gqa(%q: tensor<?x2x?x16xf16>, %k: tensor<?x1x?x16xf16>, %v: tensor<?x1x?x16xf16>,
               %o: tensor<?x2x?x16xf16>, %lse: tensor<?x2x?xf32>) -> (tensor<?x2x?x16xf16>, tensor<?x2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.5 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x16xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<?x2x?x16xf16>, tensor<?x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %kvh = arith.divui %h, %c2 : index
    %nk = tensor.dim %k, %c2 : tensor<?x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf16> to tensor<?x16xf16>
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
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<?x1x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %kn, 16] [1, 1, 1, 1] : tensor<?x1x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<32x16xf32, #acc>
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
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<?x2x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<?x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<?x2x?x16xf16>, tensor<?x2x?xf32>
}

// -----

// The mapping decides which block id runs which loop: reversed, the batch
// is on x and the Q blocks on z, in the grid, in the plan and in the kernel.
// A scale that is not a compile-time constant is a parameter with no value
// in the plan; an output that is not fa.finalize's is named out<i>. (The
// kernel: the row max of one Q K^T block, Q read from shared memory.)
// CHECK-LABEL: func.func @row_max(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x2x?x16xf16>, %{{[^:]*}}: tensor<?x2x?x16xf16>, %[[SC:[^:]*]]: f32,
// CHECK: %[[B:.*]] = tensor.dim %[[Q]], %c0
// CHECK: %[[NQ:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[NQB:.*]] = arith.ceildivui %[[NQ]], %c32
// CHECK: gpu.launch_func @row_max_kernel_module::@row_max_kernel blocks in (%[[B]], %c2, %[[NQB]]) threads in (%c64, %c1, %c1)
// CHECK-SAME: %[[SC]] : f32)
// CHECK-SAME: grid = [{dim = ["q", 0]}, 2, {args = [{dim = ["q", 2]}, 32], op = "ceildivui"}]
// CHECK-SAME: params = ["q", "k", "out0", "softmax_scale_log2"]
// CHECK-SAME: scalars = [{dtype = "f32", name = "softmax_scale_log2", value}]
// CHECK-SAME: {dtype = "f32", name = "out0", output = true, shape = [unit, 2, unit]}
// CHECK: gpu.func @row_max_kernel(%[[AQ:[^:]*]]: memref<?x?x?x16xf16, {{.*}}, %[[AS:[^:]*]]: f32) kernel
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[BZ:.*]] = gpu.block_id z
// CHECK: %[[Q0:.*]] = arith.muli %[[BZ]], %c32
// CHECK: memref.subview %[[AQ]][%[[BX]], %[[BY]], 0, 0]
// CHECK: arith.mulf %{{.*}}, %[[AS]] : f32
// CHECK: gpu.return
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @row_max(%q: tensor<?x2x?x16xf16>, %k: tensor<?x2x?x16xf16>, %scale: f32,
                   %m: tensor<?x2x?xf32>) -> tensor<?x2x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x16xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%mo = %m) -> (tensor<?x2x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf16> to tensor<16x16xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
    %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %m1, %alpha = fa.running_max %s, %m0 scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
    %ms = tensor.extract_slice %m1[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<?x2x?xf32>
    }
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return %r : tensor<?x2x?xf32>
}

// -----

// Two loop nests, two kernels, each in its own gpu.module (its own PTX),
// named after the function (as a PTX identifier) and made unique. A 1-D
// loop nest runs on grid x; static sizes stay in the plan; no shared tiles,
// no shared memory.
// CHECK-LABEL: func.func @two.nests(
// CHECK: gpu.launch_func @two_nests_kernel_module::@two_nests_kernel blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) dynamic_shared_memory_size %c0_i32
// CHECK-SAME: grid = [2, 1, 1]
// CHECK-SAME: scalars = [], tensors = [{dtype = "f32", name = "out0", output = true, shape = [1, 1, 32]}]
// CHECK: gpu.launch_func @two_nests_kernel_1_module::@two_nests_kernel_1 blocks in (%c2, %c1, %c1)
// CHECK-SAME: name = "two_nests_kernel_1"
// CHECK: gpu.module @two_nests_kernel_module
// CHECK: gpu.func @two_nests_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: arith.muli %[[BX]], %c16
// CHECK: gpu.module @two_nests_kernel_1_module
// CHECK: gpu.func @two_nests_kernel_1(
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @"two.nests"(%m: tensor<1x1x32xf32>, %m2: tensor<1x1x32xf32>) -> (tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
  %r = scf.forall (%qb) in (2) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %q0 = arith.muli %qb, %c16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  %r2 = scf.forall (%qb) in (2) shared_outs(%mo = %m2) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %q0 = arith.muli %qb, %c16 : index
    %m0 = arith.constant dense<2.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r, %r2 : tensor<1x1x32xf32>, tensor<1x1x32xf32>
}

// -----

// Two loop nests where the second reads what the first writes into a
// tensor.empty: one launch plan of two kernels in order (on both launches),
// that tensor a workspace the runtime allocates (named after its reader's
// view of it), the caller passing only the other tensor.
// CHECK-LABEL: func.func @chained(
// CHECK: gpu.launch_func @chained_kernel_module::@chained_kernel
// CHECK-SAME: name = "chained_kernel", params = ["in0"]
// CHECK-SAME: name = "chained_kernel_1", params = ["in0", "out0"]
// CHECK-SAME: tensors = [{dtype = "f32", name = "out0", output = true, shape = [1, 1, 32]}], version = 1 : i64, workspaces = [{dtype = "f32", name = "in0", shape = [1, 1, 32]}]
// CHECK: gpu.launch_func @chained_kernel_1_module::@chained_kernel_1
// CHECK-SAME: workspaces = [{dtype = "f32", name = "in0", shape = [1, 1, 32]}]
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @chained(%m2: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %ws = tensor.empty() : tensor<1x1x32xf32>
  %r = scf.forall (%qb) in (2) shared_outs(%mo = %ws) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %q0 = arith.muli %qb, %c16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  %r2 = scf.forall (%qb) in (2) shared_outs(%mo = %m2) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %q0 = arith.muli %qb, %c16 : index
    %read = tensor.extract_slice %r[0, 0, 0] [1, 1, 16] [1, 1, 1] : tensor<1x1x32xf32> to tensor<16xf32>
    %m0 = arith.constant dense<2.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r2 : tensor<1x1x32xf32>
}

// -----

// Integer arguments of the host function: the plan's inputs (value null:
// the caller passes them), named by role (fa.num_splits) or input<i>. One
// used as is in the kernel (%n, a row count) is a parameter of that name;
// one the grid is computed from (%g) is only named by the grid's
// expression.
// CHECK-LABEL: func.func @integer_inputs
// CHECK: gpu.launch_func @integer_inputs_kernel_module::@integer_inputs_kernel blocks in (%[[G:.*]], %c1, %c1)
// CHECK-SAME: grid = [{args = [{scalar = "input1"}, 2], op = "mul"}, 1, 1]
// CHECK-SAME: params = ["out0", "input0"]
// CHECK-SAME: scalars = [{dtype = "index", name = "input0", value}, {dtype = "index", name = "input1", value}]
// KERNEL-LABEL: gpu.func @integer_inputs_kernel
// KERNEL-SAME: %[[N:[a-z0-9]*]]: index)
//     The rows stored are those below %n.
// KERNEL: arith.cmpi ult, %{{.*}}, %[[N]] : index
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @integer_inputs(%m: tensor<1x1x?xf32>, %n: index, %g: index) -> tensor<1x1x?xf32> {
  %c2 = arith.constant 2 : index
  %blocks = arith.muli %g, %c2 : index
  %r = scf.forall (%i) in (%blocks) shared_outs(%mo = %m) -> (tensor<1x1x?xf32>) {
    %c0 = arith.constant 0 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%n] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %n] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}
