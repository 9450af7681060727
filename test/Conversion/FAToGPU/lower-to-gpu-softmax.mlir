// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// The online-softmax step on fragments (Patterns/Softmax.cpp), in the log2
// domain with the f32 scale parameter %arg3 (= scale * log2(e)). A [32 x 16]
// S tile on 2 warps: each thread holds two fragments, 8 scores, of two rows
// (row value 0: elements [0, *], row value 1: elements [1, *]); the other
// parts of a row are in the 4 lanes of its quad.
// Hand-written L3: Q read from shared memory, one K/V block per iteration
// (the same tile serves as V), the op order of each case as written.

// Rescale before the exponentials (the order --fa-schedule-softmax picks
// when the fragments leave room for it).
// CHECK-LABEL: gpu.func @before_exp_kernel
// CHECK-SAME: %[[SCALE:[^:]*]]: f32) kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: scf.for {{.*}} iter_args(%[[M0:.*]] = %[[NEGINF]], %[[M1:.*]] = %[[NEGINF]], %[[L0:.*]] = %[[ZERO]], %[[L1:.*]] = %[[ZERO]], %[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}) -> (f32, f32, f32, f32, vector<2x2xf32>, vector<2x2xf32>)
// CHECK: %[[S0:.*]] = nvgpu.mma.sync
// CHECK: %[[S1:.*]] = nvgpu.mma.sync
// CHECK: %[[X0:.*]] = vector.extract %[[S0]][0, 0]
// CHECK: %[[X1:.*]] = vector.extract %[[S0]][0, 1]
// CHECK: %[[Y0:.*]] = vector.extract %[[S0]][1, 0]
// CHECK: %[[Y1:.*]] = vector.extract %[[S0]][1, 1]
// CHECK: %[[X2:.*]] = vector.extract %[[S1]][0, 0]
// CHECK: %[[X3:.*]] = vector.extract %[[S1]][0, 1]
//     fa.running_max, row value 0: the thread's max pairwise, then across
//     the quad (lanes xor 1, xor 2), scaled, with the old max.
// CHECK: %[[P01:.*]] = arith.maxnumf %[[X0]], %[[X1]] : f32
// CHECK: %[[P23:.*]] = arith.maxnumf %[[X2]], %[[X3]] : f32
// CHECK: %[[TMAX:.*]] = arith.maxnumf %[[P01]], %[[P23]] : f32
// CHECK: %[[SH1:.*]], %{{.*}} = gpu.shuffle xor %[[TMAX]], %c1_i32, %c32_i32 : f32
// CHECK: %[[Q1:.*]] = arith.maxnumf %[[TMAX]], %[[SH1]] : f32
// CHECK: %[[SH2:.*]], %{{.*}} = gpu.shuffle xor %[[Q1]], %c2_i32, %c32_i32 : f32
// CHECK: %[[RMAX:.*]] = arith.maxnumf %[[Q1]], %[[SH2]] : f32
// CHECK: %[[SMAX:.*]] = arith.mulf %[[RMAX]], %[[SCALE]] : f32
// CHECK: %[[NM0:.*]] = arith.maxnumf %[[M0]], %[[SMAX]] : f32
//     base = m_new, or 0 while the row has seen no key; alpha = exp2(m - base).
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[NM0]], %[[NEGINF]] : f32
// CHECK: %[[BASE0:.*]] = arith.select %[[NONE]], %[[ZERO]], %[[NM0]] : f32
// CHECK: %[[D0:.*]] = arith.subf %[[M0]], %[[BASE0]] : f32
// CHECK: %[[ALPHA0:.*]] = math.exp2 %[[D0]] : f32
//     Row value 1, the same from the elements [1, *].
// CHECK: arith.maxnumf %[[Y0]], %[[Y1]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: %[[NM1:.*]] = arith.maxnumf %[[M1]], %{{.*}} : f32
// CHECK: %[[BASE1:.*]] = arith.select %{{.*}}, %[[ZERO]], %[[NM1]] : f32
// CHECK: %[[ALPHA1:.*]] = math.exp2 %{{.*}} : f32
//     fa.rescale: one vote whether any lane holds an alpha != 1, the
//     accumulator fragments times alpha under that warp-uniform branch.
// CHECK: %[[C0:.*]] = arith.cmpf one, %[[ALPHA0]], %[[ONE]] : f32
// CHECK: %[[C1:.*]] = arith.cmpf one, %[[ALPHA1]], %[[ONE]] : f32
// CHECK: %[[MOVED:.*]] = arith.ori %[[C0]], %[[C1]] : i1
// CHECK: %[[AF:.*]] = vector.from_elements %[[ALPHA0]], %[[ALPHA0]], %[[ALPHA1]], %[[ALPHA1]] : vector<2x2xf32>
// CHECK: %[[ANY:.*]] = nvvm.vote.sync any %c-1_i32, %[[MOVED]] -> i1
// CHECK: %[[R:.*]]:2 = scf.if %[[ANY]] -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK: %[[RA0:.*]] = arith.mulf %[[A0]], %[[AF]] : vector<2x2xf32>
// CHECK: %[[RA1:.*]] = arith.mulf %[[A1]], %[[AF]] : vector<2x2xf32>
// CHECK: scf.yield %[[RA0]], %[[RA1]]
// CHECK: } else {
// CHECK: scf.yield %[[A0]], %[[A1]]
// CHECK: }
//     fa.softmax_exp: per score one FMA (s * scale - base) and one exp2; the
//     row sum stays the thread's share (l is partial_rows: no shuffle);
//     l_new = alpha * l + sum. The sum starts from the first P (no add of 0).
// CHECK: %[[NB0:.*]] = arith.negf %[[BASE0]] : f32
// CHECK: %[[F0:.*]] = math.fma %[[X0]], %[[SCALE]], %[[NB0]] : f32
// CHECK: %[[E0:.*]] = math.exp2 %[[F0]] : f32
// CHECK: %[[F1:.*]] = math.fma %[[X1]], %[[SCALE]], %[[NB0]] : f32
// CHECK: %[[E1:.*]] = math.exp2 %[[F1]] : f32
// CHECK: %[[SUM1:.*]] = arith.addf %[[E0]], %[[E1]] : f32
// CHECK: %[[F2:.*]] = math.fma %[[X2]], %[[SCALE]], %[[NB0]] : f32
// CHECK: %[[E2:.*]] = math.exp2 %[[F2]] : f32
// CHECK: %[[SUM2:.*]] = arith.addf %[[SUM1]], %[[E2]] : f32
// CHECK: %[[F3:.*]] = math.fma %[[X3]], %[[SCALE]], %[[NB0]] : f32
// CHECK: %[[E3:.*]] = math.exp2 %[[F3]] : f32
// CHECK: %[[SUM3:.*]] = arith.addf %[[SUM2]], %[[E3]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[NL0:.*]] = math.fma %[[ALPHA0]], %[[L0]], %[[SUM3]] : f32
// CHECK: %[[NB1:.*]] = arith.negf %[[BASE1]] : f32
// CHECK: %[[G0:.*]] = math.fma %[[Y0]], %[[SCALE]], %[[NB1]] : f32
// CHECK: %[[H0:.*]] = math.exp2 %[[G0]] : f32
// CHECK: %[[G1:.*]] = math.fma %[[Y1]], %[[SCALE]], %[[NB1]] : f32
// CHECK: %[[H1:.*]] = math.exp2 %[[G1]] : f32
// CHECK: %[[NL1:.*]] = math.fma %[[ALPHA1]], %[[L1]], %{{.*}} : f32
//     P: fragment 0 is the exponentials of elements [0, 0], [0, 1] (row 0)
//     and [1, 0], [1, 1] (row 1); it feeds P V with the rescaled accumulator.
// CHECK: %[[PF0:.*]] = vector.from_elements %[[E0]], %[[E1]], %[[H0]], %[[H1]] : vector<2x2xf32>
// CHECK: %[[PF1:.*]] = vector.from_elements %[[E2]], %[[E3]], %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK: %[[PH0:.*]] = arith.truncf %[[PF0]]
// CHECK: %[[PH1:.*]] = arith.truncf %[[PF1]]
// CHECK: %[[PA:.*]] = vector.shuffle %[[PH0]], %[[PH1]] [0, 1, 2, 3]
// CHECK: %[[O0:.*]] = nvgpu.mma.sync(%[[PA]], %{{.*}}, %[[R]]#0)
// CHECK: %[[O1:.*]] = nvgpu.mma.sync(%[[PA]], %{{.*}}, %[[R]]#1)
// CHECK: scf.yield %[[NM0]], %[[NM1]], %[[NL0]], %[[NL1]], %[[O0]], %[[O1]] : f32, f32, f32, f32, vector<2x2xf32>, vector<2x2xf32>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @before_exp(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %scale: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
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
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
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

// Rescale after the exponentials: the same arithmetic, the vote and its
// branch after the last exp2 (the ops are emitted in the order of the IR).
// CHECK-LABEL: gpu.func @after_exp_kernel
// CHECK: scf.for
// CHECK: %[[ALPHA0:.*]] = math.exp2
// CHECK: %[[ALPHA1:.*]] = math.exp2
// CHECK-NOT: nvvm.vote.sync
// CHECK-COUNT-8: math.exp2
// CHECK-NOT: math.exp2
// CHECK: %[[C0:.*]] = arith.cmpf one, %[[ALPHA0]], %{{.*}} : f32
// CHECK: %[[C1:.*]] = arith.cmpf one, %[[ALPHA1]], %{{.*}} : f32
// CHECK: %[[MOVED:.*]] = arith.ori %[[C0]], %[[C1]] : i1
// CHECK: %[[ANY:.*]] = nvvm.vote.sync any %c-1_i32, %[[MOVED]] -> i1
// CHECK: %[[R:.*]]:2 = scf.if %[[ANY]]
// CHECK-NOT: math.exp2
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[R]]#0)
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @after_exp(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %scale: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
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
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
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

// l held whole by each lane (#rows rather than #partial_rows): the row sum
// is completed across the quad in the loop, and fa.finalize has nothing
// left to add.
// CHECK-LABEL: gpu.func @rows_sum_kernel
// CHECK: scf.for {{.*}} iter_args(%{{.*}}, %{{.*}}, %[[L0:[^ ]*]] = {{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[ALPHA0:.*]] = math.exp2
// CHECK: math.exp2
// CHECK-COUNT-2: arith.addf
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: %[[SH1:.*]], %{{.*}} = gpu.shuffle xor %[[SUM]], %c1_i32, %c32_i32 : f32
// CHECK: %[[Q1:.*]] = arith.addf %[[SUM]], %[[SH1]] : f32
// CHECK: %[[SH2:.*]], %{{.*}} = gpu.shuffle xor %[[Q1]], %c2_i32, %c32_i32 : f32
// CHECK: %[[ROW:.*]] = arith.addf %[[Q1]], %[[SH2]] : f32
// CHECK: math.fma %[[ALPHA0]], %[[L0]], %[[ROW]] : f32
// CHECK: scf.yield
// CHECK-NOT: gpu.shuffle
// CHECK: arith.divf
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @rows_sum(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %scale: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
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
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #rows>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #rows>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #rows>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #rows>, tensor<32x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #rows> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// fa.online_softmax (not split by --fa-schedule-softmax) lowers as
// fa.running_max then fa.softmax_exp: every exp2, then the rescale that
// follows it in the IR.
// CHECK-LABEL: gpu.func @online_softmax_kernel
// CHECK: scf.for
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: %[[SMAX:.*]] = arith.mulf %{{.*}}, %arg3 : f32
// CHECK: %[[NM0:.*]] = arith.maxnumf %{{.*}}, %[[SMAX]] : f32
// CHECK: %[[ALPHA0:.*]] = math.exp2
// CHECK-NOT: nvvm.vote.sync
// CHECK-COUNT-8: math.fma %{{.*}}, %arg3, %{{.*}}
// CHECK: %[[ANY:.*]] = nvvm.vote.sync any
// CHECK: scf.if %[[ANY]]
// CHECK: scf.yield %[[NM0]],
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @online_softmax(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %scale: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
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
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
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
