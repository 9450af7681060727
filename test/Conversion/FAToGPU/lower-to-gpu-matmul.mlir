// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// fa.qk and fa.pv (Patterns/Matmul.cpp) on the #fa.mma_sync atom: B
// fragments by ldmatrix.x4 from the shared tiles (two n-tiles, or one
// 16-deep k step, per ldmatrix), mma.sync.m16n8k16 with f32 accumulators.
// Hand-written L3 kernels: the operands are loaded, multiplied once and
// the product stored.

// Q in A-operand registers (head dim 32: two k steps, loaded once by the
// convert_layout), K [16 x 32] in shared memory: per k step one ldmatrix
// (not transposed: K is stored [n][k]) gives the B fragments of both n-tiles;
// two mma.sync per k step and warp (one 16-row m-tile per warp). S starts
// at zero and the second k step accumulates onto the first.
// CHECK-LABEL: gpu.func @qk_q_in_registers_kernel
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[QA0:.*]] = nvgpu.ldmatrix %[[QV:.*]][%[[ROW:.*]], %c0] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x2xf16>
// CHECK: %[[QA1:.*]] = nvgpu.ldmatrix %[[QV]][%[[ROW]], %c16] {numTiles = 4 : i32, transpose = false}
//     k step 0.
// CHECK: %[[K0:.*]] = nvgpu.ldmatrix %[[KV:.*]][%c0, %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[B00:.*]] = vector.shuffle %[[K0]], %[[K0]] [0, 1] : vector<4x2xf16>, vector<4x2xf16>
// CHECK: %[[B01:.*]] = vector.shuffle %[[K0]], %[[K0]] [2, 3] : vector<4x2xf16>, vector<4x2xf16>
// CHECK: %[[S0:.*]] = nvgpu.mma.sync(%[[QA0]], %[[B00]], %[[ZERO]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: %[[S1:.*]] = nvgpu.mma.sync(%[[QA0]], %[[B01]], %[[ZERO]])
//     k step 1.
// CHECK: %[[K1:.*]] = nvgpu.ldmatrix %[[KV]][%c0, %c16] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[B10:.*]] = vector.shuffle %[[K1]], %[[K1]] [0, 1]
// CHECK: %[[B11:.*]] = vector.shuffle %[[K1]], %[[K1]] [2, 3]
// CHECK: %[[T0:.*]] = nvgpu.mma.sync(%[[QA1]], %[[B10]], %[[S0]])
// CHECK: %[[T1:.*]] = nvgpu.mma.sync(%[[QA1]], %[[B11]], %[[S1]])
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.truncf %[[T0]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: arith.truncf %[[T1]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @qk_q_in_registers(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %s: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%so = %s) -> (tensor<1x1x?x16xf16>) {
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
    %qa = fa.convert_layout %qt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<16x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x32xf16> to tensor<16x32xf16, #shared>
    %sc = fa.qk %qa, %kt : tensor<32x32xf16, #opA>, tensor<16x32xf16, #shared> -> tensor<32x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// Q read from shared memory by fa.qk itself (no convert_layout), 64-row Q
// block on 2 warps: two m-tiles per warp, rows warp * 32 and warp * 32 + 16;
// K [32 x 16]: two ldmatrix (n-tiles 0-1, 2-3), each B fragment used by both
// m-tiles: 8 mma.sync for the one k step. Fragment mt * 4 + nt of S.
// CHECK-LABEL: gpu.func @qk_q_in_shared_kernel
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[R0:.*]] = arith.muli %[[WARP]], %c32 : index
// CHECK: %[[A0:.*]] = nvgpu.ldmatrix %[[QV:.*]][%[[R0]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %c16 : index
// CHECK: %[[A1:.*]] = nvgpu.ldmatrix %[[QV]][%[[R1]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[K0:.*]] = nvgpu.ldmatrix %[[KV:.*]][%c0, %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[B0:.*]] = vector.shuffle %[[K0]], %[[K0]] [0, 1]
// CHECK: %[[B1:.*]] = vector.shuffle %[[K0]], %[[K0]] [2, 3]
// CHECK: %[[S00:.*]] = nvgpu.mma.sync(%[[A0]], %[[B0]], %[[ZERO]])
// CHECK: %[[S01:.*]] = nvgpu.mma.sync(%[[A0]], %[[B1]], %[[ZERO]])
// CHECK: %[[S10:.*]] = nvgpu.mma.sync(%[[A1]], %[[B0]], %[[ZERO]])
// CHECK: %[[S11:.*]] = nvgpu.mma.sync(%[[A1]], %[[B1]], %[[ZERO]])
// CHECK: %[[K1:.*]] = nvgpu.ldmatrix %[[KV]][%c16, %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[B2:.*]] = vector.shuffle %[[K1]], %[[K1]] [0, 1]
// CHECK: %[[B3:.*]] = vector.shuffle %[[K1]], %[[K1]] [2, 3]
// CHECK: %[[S02:.*]] = nvgpu.mma.sync(%[[A0]], %[[B2]], %[[ZERO]])
// CHECK: %[[S03:.*]] = nvgpu.mma.sync(%[[A0]], %[[B3]], %[[ZERO]])
// CHECK: %[[S12:.*]] = nvgpu.mma.sync(%[[A1]], %[[B2]], %[[ZERO]])
// CHECK: %[[S13:.*]] = nvgpu.mma.sync(%[[A1]], %[[B3]], %[[ZERO]])
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.truncf %[[S00]]
// CHECK: arith.truncf %[[S01]]
// CHECK: arith.truncf %[[S02]]
// CHECK: arith.truncf %[[S03]]
// CHECK: arith.truncf %[[S10]]
// CHECK: arith.truncf %[[S11]]
// CHECK: arith.truncf %[[S12]]
// CHECK: arith.truncf %[[S13]]
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @qk_q_in_shared(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %s: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%so = %s) -> (tensor<1x1x?x32xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<64x16xf16, #shared>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<32x16xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %sc = fa.qk %qt, %kt : tensor<64x16xf16, #shared>, tensor<32x16xf16, #shared> -> tensor<64x32xf32, #acc>
    %s16 = arith.truncf %sc : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%qn, 32] [1, 1] : tensor<64x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// fa.pv: P [32 x 32] in A registers, V [32 x 16] in shared memory stored
// [k][n]: ldmatrix.trans, one per k step (rows 0 and 16), two mma.sync per
// k step onto the accumulator, P's fragment kk for k step kk.
// CHECK-LABEL: gpu.func @pv_kernel
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[P0:.*]] = nvgpu.ldmatrix %[[PV:.*]][%[[ROW:.*]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[P1:.*]] = nvgpu.ldmatrix %[[PV]][%[[ROW]], %c16] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[V0:.*]] = nvgpu.ldmatrix %[[VV:.*]][%c0, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[B00:.*]] = vector.shuffle %[[V0]], %[[V0]] [0, 1]
// CHECK: %[[B01:.*]] = vector.shuffle %[[V0]], %[[V0]] [2, 3]
// CHECK: %[[O0:.*]] = nvgpu.mma.sync(%[[P0]], %[[B00]], %[[ZERO]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[O1:.*]] = nvgpu.mma.sync(%[[P0]], %[[B01]], %[[ZERO]])
// CHECK: %[[V1:.*]] = nvgpu.ldmatrix %[[VV]][%c16, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[B10:.*]] = vector.shuffle %[[V1]], %[[V1]] [0, 1]
// CHECK: %[[B11:.*]] = vector.shuffle %[[V1]], %[[V1]] [2, 3]
// CHECK: %[[O2:.*]] = nvgpu.mma.sync(%[[P1]], %[[B10]], %[[O0]])
// CHECK: %[[O3:.*]] = nvgpu.mma.sync(%[[P1]], %[[B11]], %[[O1]])
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.truncf %[[O2]]
// CHECK: arith.truncf %[[O3]]
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @pv(%p: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %p, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %ps = tensor.extract_slice %p[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %pt = tensor.pad %ps low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %pa = fa.convert_layout %pt : tensor<32x32xf16, #shared> -> tensor<32x32xf16, #opA>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<32x16xf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %acc = fa.pv %pa, %vt, %a0 : tensor<32x32xf16, #opA>, tensor<32x16xf16, #shared>, tensor<32x16xf32, #acc>
    %o16 = arith.truncf %acc : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// bf16: nvgpu.mma.sync has no bf16 form; nvvm.mma.sync takes the
// fragments as packed i32 registers (A: 4, B: 2) and the accumulator as 4
// f32, and returns a struct of 4 f32 that becomes the next accumulator.
// CHECK-LABEL: gpu.func @pv_bf16_kernel
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P0:.*]] = nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// CHECK: %[[P1:.*]] = nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// CHECK: %[[V0:.*]] = nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} {{.*}} -> vector<4x2xbf16>
// CHECK: %[[B00:.*]] = vector.shuffle %[[V0]], %[[V0]] [0, 1]
// CHECK: %[[BI:.*]] = vector.bitcast %[[B00]] : vector<2x2xbf16> to vector<2x1xi32>
// CHECK: %[[BR0:.*]] = vector.extract %[[BI]][0, 0] : i32 from vector<2x1xi32>
// CHECK: %[[BR1:.*]] = vector.extract %[[BI]][1, 0] : i32 from vector<2x1xi32>
// CHECK: %[[AI:.*]] = vector.bitcast %[[P0]] : vector<4x2xbf16> to vector<4x1xi32>
// CHECK: %[[AR0:.*]] = vector.extract %[[AI]][0, 0]
// CHECK: %[[AR1:.*]] = vector.extract %[[AI]][1, 0]
// CHECK: %[[AR2:.*]] = vector.extract %[[AI]][2, 0]
// CHECK: %[[AR3:.*]] = vector.extract %[[AI]][3, 0]
// CHECK: %[[M0:.*]] = nvvm.mma.sync A[%[[AR0]], %[[AR1]], %[[AR2]], %[[AR3]]] B[%[[BR0]], %[[BR1]]] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-SAME: {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-SAME: -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[C0:.*]] = llvm.extractvalue %[[M0]][0]
// CHECK: %[[C1:.*]] = llvm.extractvalue %[[M0]][1]
// CHECK: %[[C2:.*]] = llvm.extractvalue %[[M0]][2]
// CHECK: %[[C3:.*]] = llvm.extractvalue %[[M0]][3]
//     k step 1 accumulates onto k step 0's first n-tile.
// CHECK: %[[V1:.*]] = nvgpu.ldmatrix {{.*}}[%c16, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[A1I:.*]] = vector.bitcast %[[P1]] : vector<4x2xbf16> to vector<4x1xi32>
// CHECK: %[[M2:.*]] = nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[M2]][0]
// CHECK: %[[D1:.*]] = llvm.extractvalue %[[M2]][1]
// CHECK: %[[D2:.*]] = llvm.extractvalue %[[M2]][2]
// CHECK: %[[D3:.*]] = llvm.extractvalue %[[M2]][3]
// CHECK: %[[O:.*]] = vector.from_elements %[[D0]], %[[D1]], %[[D2]], %[[D3]] : vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.truncf %[[O]] : vector<2x2xf32> to vector<2x2xbf16>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @pv_bf16(%p: tensor<1x1x?x32xbf16>, %v: tensor<1x1x?x16xbf16>, %o: tensor<1x1x?x16xbf16>) -> tensor<1x1x?x16xbf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %p, %c2 : tensor<1x1x?x32xbf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xbf16>) {
    %zero = arith.constant 0.0 : bf16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %ps = tensor.extract_slice %p[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xbf16> to tensor<?x32xbf16>
    %pt = tensor.pad %ps low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x32xbf16> to tensor<32x32xbf16, #shared>
    %pa = fa.convert_layout %pt : tensor<32x32xbf16, #shared> -> tensor<32x32xbf16, #opA>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x?x16xbf16> to tensor<32x16xbf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<32x16xbf16> to tensor<32x16xbf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %acc = fa.pv %pa, %vt, %a0 : tensor<32x32xbf16, #opA>, tensor<32x16xbf16, #shared>, tensor<32x16xf32, #acc>
    %o16 = arith.truncf %acc : tensor<32x16xf32, #acc> to tensor<32x16xbf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xbf16, #acc> to tensor<?x16xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xbf16> into tensor<1x1x?x16xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xbf16>
}
