// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// The backward's tile ops on fragments (Patterns/Backward.cpp, and the
// transposed fa.mask in Patterns/Mask.cpp). Hand-written L3 on 2 warps:
// thread (warp w, lane = 4 g + t) holds rows 16 w + g and 16 w + g + 8 and
// columns 2 t + {0, 1} (+ 8) of a [32 x 16] accumulator tile. The per-query
// vectors (LSE, D) have no layout: each thread loads the entries of its rows
// (or, transposed, its columns) from the kernel argument, clamped to the
// valid rows and replaced by the pad value past them.

// Rows: one LSE and one D load per row value (2 per thread), reused by the
// 4 scores of the row; P = exp2(s * scale - log2(e) LSE), 0 where LSE = -inf;
// dS = scale * P * (dP - D).
// CHECK-LABEL: gpu.func @probs_rows_kernel
// CHECK-SAME: (%{{.*}}, %[[LSE:[^:]*]]: memref<?x?x?xf32, {{.*}}>, %[[D:[^:]*]]: memref<?x?x?xf32, {{.*}}>, %{{.*}}, %[[SL2:[^:]*]]: f32, %[[SCALE:[^:]*]]: f32)
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK-DAG: %[[WARP:.*]] = arith.divui %thread_id_x, %c32
// CHECK-DAG: %[[G:.*]] = arith.divui %[[LANE]], %c4
// CHECK: %[[Q0:.*]] = arith.muli %block_id_x, %c32
// CHECK: %[[VALID:.*]] = arith.minsi %{{.*}}, %c32
// CHECK: scf.for {{.*}} iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}})
// CHECK: %[[S00:.*]] = vector.extract %[[F0]][0, 0]
// CHECK: %[[W16:.*]] = arith.muli %[[WARP]], %c16
// CHECK: %[[ROW0:.*]] = arith.addi %[[W16]], %[[G]]
// CHECK: %[[LAST:.*]] = arith.subi %[[VALID]], %c1
// CHECK: %[[CL:.*]] = arith.minui %[[ROW0]], %[[LAST]]
// CHECK: %[[AT:.*]] = arith.addi %[[Q0]], %[[CL]]
// CHECK: %[[L0:.*]] = memref.load %[[LSE]][%block_id_z, %block_id_y, %[[AT]]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW0]], %[[VALID]]
// CHECK: %[[LP:.*]] = arith.select %[[IN]], %[[L0]], %[[NEGINF]]
// CHECK: %[[L2:.*]] = arith.mulf %[[LP]], %[[LOG2E]]
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[L2]], %[[NEGINF]]
// CHECK: %[[NEG:.*]] = arith.negf %[[L2]]
// CHECK: %[[X:.*]] = math.fma %[[S00]], %[[SL2]], %[[NEG]]
// CHECK: %[[E:.*]] = math.exp2 %[[X]]
// CHECK: %[[P00:.*]] = arith.select %[[NONE]], %cst{{.*}}, %[[E]]
// CHECK: math.fma %{{.*}}, %[[SL2]], %[[NEG]]
// CHECK: memref.load %[[LSE]]
// CHECK-NOT: memref.load %[[LSE]]
// CHECK: %[[D0:.*]] = memref.load %[[D]][%block_id_z, %block_id_y, %[[AT]]]
// CHECK: %[[DP:.*]] = arith.select %[[IN]], %[[D0]], %cst
// CHECK: %[[C:.*]] = arith.subf %[[S00]], %[[DP]]
// CHECK: %[[PC:.*]] = arith.mulf %[[P00]], %[[C]]
// CHECK: arith.mulf %[[PC]], %[[SCALE]]
// CHECK: memref.load %[[D]]
// CHECK-NOT: memref.load
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @probs_rows(%lse: tensor<1x1x?xf32>, %d: tensor<1x1x?xf32>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.5 : f32
  %sl2 = arith.constant 0.72134752 : f32
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %nq = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %pad = arith.subi %c32, %qn : index
    %ls = tensor.extract_slice %lse[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %lt = tensor.pad %ls low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %ninf : f32
    } : tensor<?xf32> to tensor<32xf32>
    %ds_ = tensor.extract_slice %d[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %dt = tensor.pad %ds_ low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<?xf32> to tensor<32xf32>
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nq step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %p = fa.probs_from_lse %si, %lt scale(%sl2) : tensor<32x16xf32, #acc>, tensor<32xf32>
      %g = fa.score_grad %p, %si, %dt scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32>
      scf.yield %g : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// Transposed (rows are keys, columns queries): the causal mask hides, per
// key row, the query columns before that key (column < key - offset,
// relative to the thread's first column q0 + 2 t), and LSE and D are loaded
// per column: 4 distinct columns per thread (2 t, 2 t + 1, 8 + 2 t, 9 + 2 t).
// CHECK-LABEL: gpu.func @probs_columns_kernel
// CHECK-SAME: (%{{.*}}, %[[LSE:[^:]*]]: memref<?x?x?xf32, {{.*}}>, %[[D:[^:]*]]: memref<?x?x?xf32, {{.*}}>,
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK-DAG: %[[T:.*]] = arith.remui %[[LANE]], %c4
// CHECK: %[[Q0:.*]] = arith.muli %block_id_x, %c32
// CHECK: scf.for %[[K0:[^ ]*]] = {{.*}} iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}})
// CHECK: %[[T2:.*]] = arith.muli %[[T]], %c2
// CHECK: %[[COL0:.*]] = arith.addi %[[Q0]], %[[T2]]
// CHECK: %[[KEY:.*]] = arith.addi %[[K0]], %{{.*}}
// CHECK: %[[REL:.*]] = arith.subi %[[KEY]], %[[COL0]]
// CHECK: %[[LO:.*]] = arith.maxsi %[[REL]], %c0
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %c16
// CHECK: %[[START:.*]] = arith.index_cast %[[HI]] : index to i32
// CHECK: %[[H:.*]] = arith.cmpi sgt, %[[START]], %c0_i32
// CHECK: arith.select %[[H]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[CL:.*]] = arith.minui %[[T2]], %{{.*}}
// CHECK: %[[AT:.*]] = arith.addi %[[Q0]], %[[CL]]
// CHECK: memref.load %[[LSE]][%block_id_z, %block_id_y, %[[AT]]]
// CHECK: memref.load %[[LSE]]
// CHECK: memref.load %[[LSE]]
// CHECK: memref.load %[[LSE]]
// CHECK-NOT: memref.load %[[LSE]]
// CHECK: memref.load %[[D]]
// CHECK: memref.load %[[D]]
// CHECK: memref.load %[[D]]
// CHECK: memref.load %[[D]]
// CHECK-NOT: memref.load
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @probs_columns(%lse: tensor<1x1x?xf32>, %d: tensor<1x1x?xf32>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.5 : f32
  %sl2 = arith.constant 0.72134752 : f32
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %nq = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qn16 = arith.minsi %qn, %c16 : index
    %pad = arith.subi %c16, %qn16 : index
    %ls = tensor.extract_slice %lse[%b, %h, %q0] [1, 1, %qn16] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %lt = tensor.pad %ls low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %ninf : f32
    } : tensor<?xf32> to tensor<16xf32>
    %ds_ = tensor.extract_slice %d[%b, %h, %q0] [1, 1, %qn16] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %dt = tensor.pad %ds_ low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<?xf32> to tensor<16xf32>
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nq step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %sm = fa.mask %si[%k0, %q0] causal_offset(%c0) {transposed} : tensor<32x16xf32, #acc>
      %p = fa.probs_from_lse %sm, %lt scale(%sl2) {transposed} : tensor<32x16xf32, #acc>, tensor<16xf32>
      %g = fa.score_grad %p, %si, %dt scale(%scale) {transposed} : tensor<32x16xf32, #acc>, tensor<16xf32>
      scf.yield %g : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// fa.row_dot: per row value, dO * O over the thread's share of the row,
// one vector of at most 16 bytes from column 4 t (16 f16 columns over the
// 4 lanes of the row), padding rows read as 0; then the sum over the 4
// lanes (two shuffles); the rows are stored like an LSE.
// CHECK-LABEL: gpu.func @row_dot_kernel
// CHECK-SAME: (%[[O:[^:]*]]: memref<?x?x?x16xf16, {{.*}}>, %[[DO:[^:]*]]: memref<?x?x?x16xf16, {{.*}}>, %[[DD:[^:]*]]: memref<?x?x?xf32, {{.*}}>)
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK: %[[COL:.*]] = arith.muli %[[LANE]], %c4 : index
// CHECK: %[[A:.*]] = vector.load %[[DO]][%block_id_z, %block_id_y, %[[R:.*]], %[[COL]]] {alignment = 8 : i64} : memref<?x?x?x16xf16, {{.*}}>, vector<4xf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A]] : vector<4xf16> to vector<4xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult
// CHECK: arith.select %[[IN]], %[[AF]], %cst : vector<4xf32>
// CHECK: vector.load %[[O]][%block_id_z, %block_id_y, %[[R]], %[[COL]]] {alignment = 8 : i64}
// CHECK-COUNT-4: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: vector.load %[[DO]][%block_id_z, %block_id_y, %{{.*}}, %[[COL]]]
// CHECK: vector.load %[[O]][%block_id_z, %block_id_y, %{{.*}}, %[[COL]]]
// CHECK-COUNT-4: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32
// CHECK: gpu.return
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @row_dot(%do: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %d: tensor<1x1x?xf32>) -> tensor<1x1x?xf32> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%dd = %d) -> (tensor<1x1x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %nq = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %pad = arith.subi %c32, %qn : index
    %dos = tensor.extract_slice %do[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %dot = tensor.pad %dos low[0, 0] high[%pad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16>
    %os = tensor.extract_slice %o[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %ot = tensor.pad %os low[0, 0] high[%pad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16>
    %t = fa.row_dot %dot, %ot : tensor<32x16xf16>, tensor<32x16xf16> -> tensor<32xf32, #rows>
    %ts = tensor.extract_slice %t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ts into %dd[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}

// -----

// fa.row_dot of whole tiles (static rows, no padding: no clamp, no select),
// 64 bf16 columns over the 4 lanes of a row: two 16-byte vectors a lane,
// from columns 8 t and 8 t + 32 (the lanes of a row read 64 contiguous
// bytes a load).
// CHECK-LABEL: gpu.func @row_dot_whole_kernel
// CHECK-NOT: arith.minui
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK: %[[COL:.*]] = arith.muli %[[LANE]], %c8 : index
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: vector.load %[[A:.*]][%block_id_z, %block_id_y, %[[ROW]], %[[COL]]] {alignment = 16 : i64} : {{.*}}, vector<8xbf16>
// CHECK: vector.load %[[B:.*]][%block_id_z, %block_id_y, %[[ROW]], %[[COL]]] {alignment = 16 : i64} : {{.*}}, vector<8xbf16>
// CHECK-COUNT-8: math.fma
// CHECK: %[[LANE2:.*]] = arith.addi %[[LANE]], %c4 : index
// CHECK: %[[COL2:.*]] = arith.muli %[[LANE2]], %c8 : index
// CHECK: vector.load %[[A]][%block_id_z, %block_id_y, %[[ROW]], %[[COL2]]] {alignment = 16 : i64}
// CHECK: vector.load %[[B]][%block_id_z, %block_id_y, %[[ROW]], %[[COL2]]]
// CHECK-COUNT-8: math.fma
// CHECK: gpu.shuffle  xor
// CHECK-NOT: arith.select
// CHECK: gpu.return
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @row_dot_whole(%do: tensor<1x1x?x64xbf16>, %o: tensor<1x1x?x64xbf16>, %d: tensor<1x1x?xf32>) -> tensor<1x1x?xf32> {
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x64xbf16>
  %nqb = arith.ceildivui %nq0, %c16 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%dd = %d) -> (tensor<1x1x?xf32>) {
    %q0 = arith.muli %qb, %c16 : index
    %dot = tensor.extract_slice %do[%b, %h, %q0, 0] [1, 1, 16, 64] [1, 1, 1, 1] : tensor<1x1x?x64xbf16> to tensor<16x64xbf16>
    %ot = tensor.extract_slice %o[%b, %h, %q0, 0] [1, 1, 16, 64] [1, 1, 1, 1] : tensor<1x1x?x64xbf16> to tensor<16x64xbf16>
    %t = fa.row_dot %dot, %ot : tensor<16x64xbf16>, tensor<16x64xbf16> -> tensor<16xf32, #rows>
    %ts = tensor.extract_slice %t[0] [16] [1] : tensor<16xf32, #rows> to tensor<16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ts into %dd[%b, %h, %q0] [1, 1, 16] [1, 1, 1] : tensor<16xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}

// -----

// The atomic dQ's step (hand-written L3 on 2 warps, 32-key blocks, head dim
// 32, 16 query columns): dS^T (here an S^T) goes from acc fragments into
// its own shared tile (32 x (16 + 8) f16) between two barriers; K^T is the
// K tile read with ldmatrix.trans (A operand of a [k][m] store), dS^T the
// B operand (ldmatrix.trans of a [k][n] store); each of the thread's 8
// dQ^T elements (d row r, query column c) is one atomic add into
// dq_accum[b, h, q0 + c, r] when c < rows.
// CHECK: gpu.launch_func {{.*}}params = ["q", "k", "dq_accum", "out0"]
// CHECK-SAME: {dtype = "f32", name = "dq_accum", output = true
// CHECK-LABEL: gpu.func @dq_step_kernel
// CHECK-SAME: %[[WS:[^:]*]]: memref<?x?x?x32xf32, {{.*}}>, %{{[^:]*}}: memref<?x?x?x32xf16
// CHECK: nvgpu.mma.sync
// CHECK: gpu.barrier
// CHECK: %[[DSS:.*]] = memref.view {{.*}} to memref<32x24xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: vector.store %{{.*}}, %[[DSS]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[BV:.*]] = memref.subview {{.*}} to memref<17x16xf16, strided<[24, 1], {{.*}}>
// CHECK: %[[AV:.*]] = memref.subview {{.*}} to memref<17x16xf16, strided<[40, 1], {{.*}}>
// CHECK: nvgpu.ldmatrix %[[AV]][%c0, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix %[[BV]][%c0, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK: nvgpu.ldmatrix %[[AV]][%c16, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix %[[BV]][%c16, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[COL:.*]], %[[ROWS:.*]] : index
// CHECK: scf.if %[[OK]]
// CHECK-NEXT: %[[AT:.*]] = arith.addi %{{.*}}, %[[COL]]
// CHECK-NEXT: memref.atomic_rmw addf %{{.*}}, %[[WS]][%block_id_z, %block_id_y, %[[AT]], %{{.*}}]
// CHECK-COUNT-7: memref.atomic_rmw addf
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @dq_step(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %ws: memref<1x1x?x32xf32>,
                   %dk: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nk = tensor.dim %k, %c2 : tensor<1x1x?x32xf16>
  %nkb = arith.ceildivui %nk, %c32 : index
  %r = scf.forall (%b, %h, %kb) in (1, 1, %nkb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %k0 = arith.muli %kb, %c32 : index
    %kleft = arith.subi %nk, %k0 : index
    %kn = arith.minsi %kleft, %c32 : index
    %kpad = arith.subi %c32, %kn : index
    %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
    %qleft = arith.subi %nq, %k0 : index
    %qn = arith.minsi %qleft, %c16 : index
    %qpad = arith.subi %c16, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %k0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<16x32xf16, #shared>
    %st = fa.qk %kt, %qt : tensor<32x32xf16, #shared>, tensor<16x32xf16, #shared> -> tensor<32x16xf32, #acc>
    %st16 = arith.truncf %st : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %sts = fa.convert_layout %st16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #shared>
    %ktt = fa.transpose %kt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %dqt = fa.pv %ktt, %sts, %z : tensor<32x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<32x16xf32, #acc>
    fa.accumulate_rows %dqt into %ws[%b, %h, %k0] rows(%qn) {transposed} : tensor<32x16xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// The same step into a buffer padded to whole query tiles (rows(16), a
// constant that covers the tile: what --fa-tile-backward emits with its
// padded workspaces): the 8 atomic adds without a guard.
// CHECK-LABEL: gpu.func @dq_step_whole_kernel
// CHECK-SAME: %[[WS:[^:]*]]: memref<?x?x?x32xf32, {{.*}}>, %{{[^:]*}}: memref<?x?x?x32xf16
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK-NOT: scf.if
// CHECK-COUNT-8: memref.atomic_rmw addf %{{.*}}, %[[WS]][%block_id_z, %block_id_y, %{{.*}}, %{{.*}}]
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: scf.if
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @dq_step_whole(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %ws: memref<1x1x?x32xf32>,
                   %dk: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nk = tensor.dim %k, %c2 : tensor<1x1x?x32xf16>
  %nkb = arith.ceildivui %nk, %c32 : index
  %r = scf.forall (%b, %h, %kb) in (1, 1, %nkb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %k0 = arith.muli %kb, %c32 : index
    %kleft = arith.subi %nk, %k0 : index
    %kn = arith.minsi %kleft, %c32 : index
    %kpad = arith.subi %c32, %kn : index
    %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
    %qleft = arith.subi %nq, %k0 : index
    %qn = arith.minsi %qleft, %c16 : index
    %qpad = arith.subi %c16, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %k0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<16x32xf16, #shared>
    %st = fa.qk %kt, %qt : tensor<32x32xf16, #shared>, tensor<16x32xf16, #shared> -> tensor<32x16xf32, #acc>
    %st16 = arith.truncf %st : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %sts = fa.convert_layout %st16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #shared>
    %ktt = fa.transpose %kt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %dqt = fa.pv %ktt, %sts, %z : tensor<32x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<32x16xf32, #acc>
    fa.accumulate_rows %dqt into %ws[%b, %h, %k0] rows(%c16) {transposed} : tensor<32x16xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// The buffer the step adds into is a workspace (the buffer of a
// tensor.empty that a later loop nest reads): the runtime allocates it
// contiguous, and the kernel takes it with the identity layout (constant
// row stride: one address for the tile's atomics, docs/launch-plan.md).
// CHECK-LABEL: gpu.func @dq_workspace_kernel
// CHECK-SAME: %{{[^:]*}}: memref<?x?x?x32xf32>,
// CHECK-LABEL: gpu.func @dq_workspace_kernel_1
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @dq_workspace(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %dk: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> (tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>, tensor<1x1x?x32xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nk = tensor.dim %k, %c2 : tensor<1x1x?x32xf16>
  %nkb = arith.ceildivui %nk, %c32 : index
  %nqo = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %e = tensor.empty(%nqo) : tensor<1x1x?x32xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  %r = scf.forall (%b, %h, %kb) in (1, 1, %nkb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %k0 = arith.muli %kb, %c32 : index
    %kleft = arith.subi %nk, %k0 : index
    %kn = arith.minsi %kleft, %c32 : index
    %kpad = arith.subi %c32, %kn : index
    %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
    %qleft = arith.subi %nq, %k0 : index
    %qn = arith.minsi %qleft, %c16 : index
    %qpad = arith.subi %c16, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %k0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<16x32xf16, #shared>
    %st = fa.qk %kt, %qt : tensor<32x32xf16, #shared>, tensor<16x32xf16, #shared> -> tensor<32x16xf32, #acc>
    %st16 = arith.truncf %st : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %sts = fa.convert_layout %st16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #shared>
    %ktt = fa.transpose %kt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %dqt = fa.pv %ktt, %sts, %z : tensor<32x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<32x16xf32, #acc>
    fa.accumulate_rows %dqt into %ws[%b, %h, %k0] rows(%c16) {transposed} : tensor<32x16xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  %sums = bufferization.to_tensor %ws restrict writable : memref<1x1x?x32xf32> to tensor<1x1x?x32xf32>
  %nqd = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb2 = arith.ceildivui %nqd, %c32 : index
  %r2 = scf.forall (%b_r, %h_r, %qb_r) in (1, 1, %nqb2) shared_outs(%out_r = %dq) -> (tensor<1x1x?x32xf16>) {
    %zero_r = arith.constant 0.0 : f32
    %q0_r = arith.muli %qb_r, %c32 : index
    %left_r = arith.subi %nqd, %q0_r : index
    %n_r = arith.minsi %left_r, %c32 : index
    %pad_r = arith.subi %c32, %n_r : index
    %s_r = tensor.extract_slice %sums[%b_r, %h_r, %q0_r, 0] [1, 1, %n_r, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf32> to tensor<?x32xf32>
    %t_r = tensor.pad %s_r low[0, 0] high[%pad_r, 0] {
    ^bb0(%i_r: index, %j_r: index):
      tensor.yield %zero_r : f32
    } : tensor<?x32xf32> to tensor<32x32xf32, #acc>
    %t16_r = arith.truncf %t_r : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os_r = tensor.extract_slice %t16_r[0, 0] [%n_r, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os_r into %out_r[%b_r, %h_r, %q0_r, 0] [1, 1, %n_r, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r, %sums, %r2 : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>, tensor<1x1x?x32xf16>
}

// -----

// No later nest reads it: it stays a buffer of the plan that the caller
// could pass with any strides, and keeps the general parameter type.
// CHECK-LABEL: gpu.func @dq_unread_kernel
// CHECK-SAME: %{{[^:]*}}: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>,
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @dq_unread(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %dk: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> (tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nk = tensor.dim %k, %c2 : tensor<1x1x?x32xf16>
  %nkb = arith.ceildivui %nk, %c32 : index
  %nqo = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %e = tensor.empty(%nqo) : tensor<1x1x?x32xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  %r = scf.forall (%b, %h, %kb) in (1, 1, %nkb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %k0 = arith.muli %kb, %c32 : index
    %kleft = arith.subi %nk, %k0 : index
    %kn = arith.minsi %kleft, %c32 : index
    %kpad = arith.subi %c32, %kn : index
    %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
    %qleft = arith.subi %nq, %k0 : index
    %qn = arith.minsi %qleft, %c16 : index
    %qpad = arith.subi %c16, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %k0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<16x32xf16, #shared>
    %st = fa.qk %kt, %qt : tensor<32x32xf16, #shared>, tensor<16x32xf16, #shared> -> tensor<32x16xf32, #acc>
    %st16 = arith.truncf %st : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %sts = fa.convert_layout %st16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #shared>
    %ktt = fa.transpose %kt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %dqt = fa.pv %ktt, %sts, %z : tensor<32x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<32x16xf32, #acc>
    fa.accumulate_rows %dqt into %ws[%b, %h, %k0] rows(%c16) {transposed} : tensor<32x16xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  %sums = bufferization.to_tensor %ws restrict writable : memref<1x1x?x32xf32> to tensor<1x1x?x32xf32>
  return %r, %sums : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>
}

// -----

// The rounding nest of the atomic dQ: the f32 sums are read straight into
// acc fragments, two neighbouring f32 per vector.load, at the clamped row
// (a row past the valid ones reads the last one and is replaced by the
// pad value), then rounded and stored like any output tile.
// CHECK-LABEL: gpu.func @round_sums_kernel
// CHECK-SAME: (%[[SUMS:[^:]*]]: memref<?x?x?x32xf32
// CHECK: %[[LINE:.*]] = memref.subview %[[SUMS]][%block_id_z, %block_id_y, 0, 0]
// CHECK: %[[LAST:.*]] = arith.subi %[[N:.*]], %c1
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c2
// CHECK: %[[CL:.*]] = arith.minui %[[ROW]], %[[LAST]]
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[CL]]
// CHECK: %[[V:.*]] = vector.load %[[LINE]][%[[AT]], %[[COL]]] : {{.*}}, vector<2xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[N]]
// CHECK: arith.select %[[IN]], %[[V]], %cst
// CHECK-COUNT-7: vector.load %[[LINE]]
// CHECK-NOT: vector.load %[[LINE]]
// CHECK: arith.truncf
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @round_sums(%sums: tensor<1x1x?x32xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %zero = arith.constant 0.0 : f32
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    %pad = arith.subi %c32, %n : index
    %s = tensor.extract_slice %sums[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf32> to tensor<?x32xf32>
    %t = tensor.pad %s low[0, 0] high[%pad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<?x32xf32> to tensor<32x32xf32, #acc>
    %t16 = arith.truncf %t : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// The atomic dQ in fragment order (what --fa-map-warps gives a dK/dV nest
// whose dQ tiles are the rounding nest's blocks): element i of thread t's
// fragments is added at position i * 64 + t of the 32 x 32 block (2 warps,
// 64 threads: row (i * 64 + t) / 32, column (i * 64 + t) % 32), the 16 adds
// with no guard (whole tiles); the rounding nest reads the same positions
// into the same fragments. The workspace is contiguous on both sides.
// CHECK-LABEL: gpu.func @fragment_order_kernel(
// CHECK-SAME: %{{[^:]*}}: memref<?x?x?x32xf16, {{.*}}>, %[[WS:[^:]*]]: memref<?x?x?x32xf32>,
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK: %[[WROW:.*]] = arith.divui %[[T]], %c32 : index
// CHECK: %[[R0:.*]] = arith.addi %[[Q0:.*]], %[[WROW]] : index
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[WS]][%block_id_z, %block_id_y, %[[R0]], %[[LANE]]]
// CHECK: %[[AT1:.*]] = arith.addi %[[T]], %c64 : index
// CHECK: %[[ROW1:.*]] = arith.divui %[[AT1]], %c32 : index
// CHECK: %[[COL1:.*]] = arith.remui %[[AT1]], %c32 : index
// CHECK: %[[R1:.*]] = arith.addi %[[Q0]], %[[ROW1]] : index
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[WS]][%block_id_z, %block_id_y, %[[R1]], %[[COL1]]]
// CHECK: arith.addi %[[T]], %c128 : index
// CHECK-COUNT-14: memref.atomic_rmw addf
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: scf.if
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @fragment_order_kernel_1(
// CHECK-SAME: %[[SUMS:[^:]*]]: memref<?x?x?x32xf32>,
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK: %[[WROW:.*]] = arith.divui %[[T]], %c32 : index
// CHECK: %[[R0:.*]] = arith.addi %[[Q0:.*]], %[[WROW]] : index
// CHECK: memref.load %[[SUMS]][%block_id_z, %block_id_y, %[[R0]], %[[LANE]]]
// CHECK: %[[AT1:.*]] = arith.addi %[[T]], %c64 : index
// CHECK: %[[ROW1:.*]] = arith.divui %[[AT1]], %c32 : index
// CHECK: %[[COL1:.*]] = arith.remui %[[AT1]], %c32 : index
// CHECK: %[[R1:.*]] = arith.addi %[[Q0]], %[[ROW1]] : index
// CHECK: memref.load %[[SUMS]][%block_id_z, %block_id_y, %[[R1]], %[[COL1]]]
// CHECK-COUNT-14: memref.load %[[SUMS]]
// CHECK-NOT: memref.load %[[SUMS]]
// CHECK: arith.truncf
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @fragment_order(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %dk: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> (tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %rows = arith.muli %nqb, %c32 : index
  %e = tensor.empty(%rows) : tensor<1x1x?x32xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %s = fa.qk %qt, %qt : tensor<32x32xf16, #shared>, tensor<32x32xf16, #shared> -> tensor<32x32xf32, #acc>
    fa.accumulate_rows %s into %ws[%b, %h, %q0] rows(%c32) {fragment_order} : tensor<32x32xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  %sums = bufferization.to_tensor %ws restrict writable : memref<1x1x?x32xf32> to tensor<1x1x?x32xf32>
  %nqd = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb2 = arith.ceildivui %nqd, %c32 : index
  %r2 = scf.forall (%b_r, %h_r, %qb_r) in (1, 1, %nqb2) shared_outs(%out_r = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0_r = arith.muli %qb_r, %c32 : index
    %left_r = arith.subi %nqd, %q0_r : index
    %n_r = arith.minsi %left_r, %c32 : index
    %t_r = fa.read_rows %sums[%b_r, %h_r, %q0_r] rows(%c32) {fragment_order} : tensor<1x1x?x32xf32> -> tensor<32x32xf32, #acc>
    %t16_r = arith.truncf %t_r : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os_r = tensor.extract_slice %t16_r[0, 0] [%n_r, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os_r into %out_r[%b_r, %h_r, %q0_r, 0] [1, 1, %n_r, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r, %r2 : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>
}

// -----

// fa.read_rows without fragment_order reads by rows, as a padded tile load
// does (@round_sums): neighbouring f32 pairs at the clamped row, rows past
// the valid ones replaced by zeros.
// CHECK-LABEL: gpu.func @read_rows_by_rows_kernel
// CHECK-SAME: (%[[SUMS:[^:]*]]: memref<?x?x?x32xf32
// CHECK: %[[LINE:.*]] = memref.subview %[[SUMS]][%block_id_z, %block_id_y, 0, 0]
// CHECK: %[[LAST:.*]] = arith.subi %[[N:.*]], %c1
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[CL:.*]] = arith.minui %[[ROW]], %[[LAST]]
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[CL]]
// CHECK: %[[V:.*]] = vector.load %[[LINE]][%[[AT]], %{{.*}}] : {{.*}}, vector<2xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[N]]
// CHECK: arith.select %[[IN]], %[[V]], %cst
// CHECK-COUNT-7: vector.load %[[LINE]]
// CHECK-NOT: vector.load %[[LINE]]
// CHECK: arith.truncf
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @read_rows_by_rows(%sums: tensor<1x1x?x32xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    %t = fa.read_rows %sums[%b, %h, %q0] rows(%n) : tensor<1x1x?x32xf32> -> tensor<32x32xf32, #acc>
    %t16 = arith.truncf %t : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A product on a warp grid of its own (what --fa-map-warps gives the atomic
// dQ = dS K when another split of the kernel's warps reads less): the
// kernel's tiles are on 4 warps by rows (fa.qk reads A rows from warp * 16),
// the 32 x 32 product on [2, 2] (#own: warp % 2 on its 16-row halves, warp
// / 2 on its 16-column halves, 1 x 2 MMA tiles a warp over 4 k steps), and
// its atomics add at the positions of that grid.
// CHECK-LABEL: gpu.func @own_grid_kernel(
// CHECK-SAME: %[[WS2:[^:]*]]: memref<?x?x?x32xf32, {{.*}}>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32 : index
// CHECK: %[[QKROW:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[QKROW]], %c0]
// CHECK: %[[GROUP:.*]] = arith.divui %[[WARP]], %c2 : index
// CHECK: %[[INGROUP:.*]] = arith.remui %[[WARP]], %c2 : index
// CHECK: %[[GCOL:.*]] = arith.muli %[[GROUP]], %c16 : index
// CHECK: arith.addi %[[GCOL]], %{{.*}} : index
// CHECK: %[[WROW:.*]] = arith.muli %[[INGROUP]], %c16 : index
// CHECK: arith.addi %[[WROW]], %{{.*}} : index
// CHECK-COUNT-8: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: %[[T2:.*]] = arith.index_cast
// CHECK: %[[W2:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK: %[[G2:.*]] = arith.divui %[[W2]], %c2 : index
// CHECK: %[[I2:.*]] = arith.remui %[[W2]], %c2 : index
// CHECK: arith.muli %[[I2]], %c16 : index
// CHECK: arith.muli %[[G2]], %c16 : index
// CHECK-COUNT-8: memref.atomic_rmw addf %{{.*}}, %[[WS2]]
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#own = #fa.warp_rows<acc, num_warps = 2, replicas = 2, share = columns, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @own_grid(%q: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %rows = arith.muli %nqb, %c64 : index
  %e = tensor.empty(%rows) : tensor<1x1x?x64xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x64xf32> to memref<1x1x?x64xf32>
  %e2 = tensor.empty(%rows) : tensor<1x1x?x32xf32>
  %ws2 = bufferization.to_buffer %e2 : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<64x32xf16, #shared>
    %s = fa.qk %qt, %qt : tensor<64x32xf16, #shared>, tensor<64x32xf16, #shared> -> tensor<64x64xf32, #acc>
    fa.accumulate_rows %s into %ws[%b, %h, %q0] rows(%qn) : tensor<64x64xf32, #acc>, memref<1x1x?x64xf32>
    %qtt = fa.transpose %qt : tensor<64x32xf16, #shared> -> tensor<32x64xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x32xf32, #own>
    %p = fa.pv %qtt, %qt, %z : tensor<32x64xf16, #shared_t>, tensor<64x32xf16, #shared>, tensor<32x32xf32, #own>
    fa.accumulate_rows %p into %ws2[%b, %h, %q0] rows(%c32) : tensor<32x32xf32, #own>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}
