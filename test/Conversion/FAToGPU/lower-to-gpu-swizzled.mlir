// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// The swizzled shared layout (#fa.block_shared<..., swizzled = true>, Atoms/
// SharedTiles.cpp and Atoms/MmaSyncFragments.cpp): K and V tiles of 16 x 64
// f16 (128-byte rows, one segment) are stored unpadded, chunk c of row r at
// chunk c ^ (r % 8); Q stays padded (72 columns). Hand-written L3, 2 warps
// (64 threads), 2 K/V stages: the nest of lower-to-gpu-memory.mlir at D = 64.

// Rings: Q 32 x 72 x 2 = 4608 bytes at 0, K 2 x 16 x 64 x 2 = 4096 at 4608,
// V at 8704: 12800 bytes (padded K/V would take 14336).
// CHECK-LABEL: func.func @swizzled_kv
// CHECK: gpu.launch_func {{.*}} dynamic_shared_memory_size %c12800_i32
// CHECK-LABEL: gpu.func @swizzled_kv_kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK: %[[LANE16:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: %[[LANE8:.*]] = arith.remui %[[LANE]], %c8 : index
// CHECK: %[[LANE_DIV8:.*]] = arith.divui %[[LANE]], %c8 : index
// CHECK: %[[LANE_DIV8_2:.*]] = arith.remui %[[LANE_DIV8]], %c2 : index
//     Q (padded): thread tid copies chunk tid % 8 of rows tid / 8 + 8 i at
//     the same column on both sides.
// CHECK: memref.view {{.*}} to memref<32x72xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c8 : index
// CHECK: %[[CHUNK:.*]] = arith.remui %[[TID]], %c8 : index
// CHECK: %[[COL:.*]] = arith.muli %[[CHUNK]], %c8 : index
// CHECK: memref.subview %{{.*}}[%[[ROW]], %[[COL]]] [%{{.*}}, 8] [1, 1] : memref<32x72xf16
//     K block 0 (swizzled): the source column is the thread's chunk, the
//     shared one that chunk XOR (row % 8); the thread's rows are 8 apart, so
//     one shared column serves every copy.
// CHECK: scf.if
// CHECK: %[[KV0:.*]] = memref.view {{.*}} to memref<16x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[RBITS:.*]] = arith.andi %[[ROW]], %c7 : index
// CHECK: %[[RCOL:.*]] = arith.muli %[[RBITS]], %c8 : index
// CHECK: %[[SCOL:.*]] = arith.xori %[[COL]], %[[RCOL]] : index
// CHECK: %[[KDST:.*]] = memref.subview %[[KV0]][%[[ROW]], %[[SCOL]]] [%{{.*}}, 8] [1, 1] : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<?x8xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: %[[KSRC:.*]] = memref.subview %{{.*}}[%[[ROW]], %[[COL]]] [%{{.*}}, 8] [1, 1] : memref<?x64xf16, strided<[?, 1], offset: ?>>
// CHECK: nvgpu.device_async_copy %[[KSRC]][%c0, %c0], %[[KDST]][%c0, %c0], 8, %{{.*}} {bypassL1, fa.l2_prefetch = 128 : i64}
// CHECK: nvgpu.device_async_copy %[[KSRC]][%c8, %c0], %[[KDST]][%c8, %c0], 8, %{{.*}} {bypassL1, fa.l2_prefetch = 128 : i64}
// CHECK: memref.view {{.*}} to memref<16x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.subview %{{.*}}[%[[ROW]], %[[SCOL]]] [%{{.*}}, 8] [1, 1] : memref<16x64xf16
// CHECK: nvvm.cp.async.commit.group
//     In the loop, Q K^T: the lane's view starts at its row, column 0; the
//     k step kk's chunk 2 kk + lane's (l / 8) % 2 is at
//     ((2 kk) ^ (l % 8 & 6)) + (((l / 8) % 2) ^ (l % 2)).
//     The next block's copies (in the loop) swizzle the same way.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: arith.xori %[[COL]], %{{.*}} : index
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[KT:.*]] = memref.view {{.*}} to memref<16x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[KLANE:.*]] = memref.subview %[[KT]][%{{.*}}, 0] [1, 64] [1, 1] : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<1x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: %[[HIGH:.*]] = arith.andi %[[LANE8]], %c6 : index
// CHECK: %[[ODD:.*]] = arith.andi %[[LANE8]], %c1 : index
// CHECK: %[[OWN:.*]] = arith.xori %[[LANE_DIV8_2]], %[[ODD]] : index
// CHECK: %[[P0:.*]] = arith.addi %[[HIGH]], %[[OWN]] : index
// CHECK: %[[C0:.*]] = arith.muli %[[P0]], %c8 : index
// CHECK: nvgpu.ldmatrix %[[KLANE]][%c0, %[[C0]]] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[X1:.*]] = arith.xori %[[HIGH]], %c2 : index
// CHECK: %[[P1:.*]] = arith.addi %[[X1]], %[[OWN]] : index
// CHECK: %[[C1:.*]] = arith.muli %[[P1]], %c8 : index
// CHECK: nvgpu.ldmatrix %[[KLANE]][%c0, %[[C1]]] {numTiles = 4 : i32, transpose = false}
// CHECK: arith.xori %[[HIGH]], %c4 : index
// CHECK: nvgpu.ldmatrix %[[KLANE]]
// CHECK: arith.xori %[[HIGH]], %c6 : index
// CHECK: nvgpu.ldmatrix %[[KLANE]]
//     P V: V's lanes address chunk l / 16 (ldmatrix.trans), the same
//     swizzle.
// CHECK: %[[VT:.*]] = memref.view {{.*}} to memref<16x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[VLANE:.*]] = memref.subview %[[VT]][%{{.*}}, 0] [1, 64] [1, 1]
// CHECK: %[[VOWN:.*]] = arith.xori %[[LANE16]], %[[ODD]] : index
// CHECK: %[[VP0:.*]] = arith.addi %[[HIGH]], %[[VOWN]] : index
// CHECK: %[[VC0:.*]] = arith.muli %[[VP0]], %c8 : index
// CHECK: nvgpu.ldmatrix %[[VLANE]][%c0, %[[VC0]]] {numTiles = 4 : i32, transpose = true}
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
!qf = !fa.future<tensor<32x64xf16, #shared>>
!kvf = !fa.future<tensor<16x64xf16, #swz>, tensor<16x64xf16, #swz>>
func.func @swizzled_kv(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                     %o: tensor<1x2x?x64xf16>, %lse: tensor<1x2x?xf32>) -> (tensor<1x2x?x64xf16>, tensor<1x2x?xf32>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.5 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x2x?x64xf16>, tensor<1x2x?xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qf = fa.async_load %q[%b, %h, %q0] rows(%qn) slot(%c0) of 1 : tensor<1x2x?x64xf16> -> !qf
    %nk = tensor.dim %k, %c2 : tensor<1x2x?x64xf16>
    %kn0 = arith.minsi %nk, %c16 : index
    %has0 = arith.cmpi slt, %c0, %nk : index
    %kv0 = fa.async_load %k, %v[%b, %h, %c0] rows(%kn0) slot(%c0) of 2 if(%has0) l2_prefetch(128) : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> !kvf
    %qt = fa.await %qf pending(1) : !qf
    %qa = fa.convert_layout %qt : tensor<32x64xf16, #shared> -> tensor<32x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x64xf32, #acc>
    %st:4 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0, %f = %kv0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x64xf32, #acc>, !kvf) {
      %kt, %vt = fa.await %f pending(0) : !kvf
      %k1 = arith.addi %k0, %c16 : index
      %kleft = arith.subi %nk, %k1 : index
      %kn1 = arith.minsi %kleft, %c16 : index
      %blk = arith.divui %k1, %c16 : index
      %slot = arith.remui %blk, %c2 : index
      %has = arith.cmpi slt, %k1, %nk : index
      %fn = fa.async_load %k, %v[%b, %h, %k1] rows(%kn1) slot(%slot) of 2 if(%has) : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> !kvf
      %s = fa.qk %qa, %kt : tensor<32x64xf16, #opA>, tensor<16x64xf16, #swz> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x64xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %vt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x64xf16, #swz>, tensor<32x64xf32, #acc>
      scf.yield %m2, %l2, %acc3, %fn : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x64xf32, #acc>, !kvf
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x64xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x64xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 64] [1, 1] : tensor<32x64xf16, #acc> to tensor<?x64xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<1x2x?x64xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x2x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x2x?x64xf16>, tensor<1x2x?xf32>
}

// -----

// A transposed view of a swizzled tile (the atomic dQ's K^T, read with
// ldmatrix.trans as the A operand of dQ^T = K^T dS^T; written by hand: the
// backward's own nests keep their tiles padded). K (32 keys x 64, swizzled)
// is also Q K^T's A operand. The view's m rows start at the warp's row0
// (32 w), a run-time even chunk offset E = 32 w / 8: the chunk of lane l at
// k step kk is ((E + 2 kk') ^ (l % 8 & 6)) + (((l / 8) % 2) ^ (l % 2)).
// CHECK-LABEL: gpu.func @dq_step_swizzled_kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: %[[LANE8:.*]] = arith.remui %[[LANE]], %c8 : index
// CHECK: %[[LANE_DIV8_2:.*]] = arith.remui %{{.*}}, %c2 : index
//     K's copy: swizzled.
// CHECK: memref.view {{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: arith.andi %{{.*}}, %c7 : index
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy
//     Q K^T with K as A (laneViewA), swizzled columns.
// CHECK: %[[HIGH:.*]] = arith.andi %[[LANE8]], %c6 : index
// CHECK: %[[ODD:.*]] = arith.andi %[[LANE8]], %c1 : index
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<17x64xf16, strided<[64, 1], offset: ?>
//     dQ^T = K^T dS^T: K^T's lanes.
// CHECK: %[[ROW0:.*]] = arith.muli %[[WARP]], %c32 : index
// CHECK: %[[KT:.*]] = memref.view {{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[KTV:.*]] = memref.subview %[[KT]][%{{.*}}, 0] [17, 64] [1, 1]
// CHECK: %[[OWN:.*]] = arith.xori %[[LANE_DIV8_2]], %[[ODD]] : index
// CHECK: %[[E:.*]] = arith.divui %[[ROW0]], %c8 : index
// CHECK: %[[X0:.*]] = arith.xori %[[E]], %[[HIGH]] : index
// CHECK: %[[P0:.*]] = arith.addi %[[X0]], %[[OWN]] : index
// CHECK: %[[C0:.*]] = arith.muli %[[P0]], %c8 : index
// CHECK: nvgpu.ldmatrix %[[KTV]][%c0, %[[C0]]] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[E2:.*]] = arith.addi %[[E]], %c2 : index
// CHECK: %[[X2:.*]] = arith.xori %[[E2]], %[[HIGH]] : index
// CHECK: %[[P2:.*]] = arith.addi %[[X2]], %[[OWN]] : index
// CHECK: %[[C2:.*]] = arith.muli %[[P2]], %c8 : index
// CHECK: nvgpu.ldmatrix %[[KTV]][%c0, %[[C2]]] {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix %[[KTV]][%c16, %[[C0]]] {numTiles = 4 : i32, transpose = true}
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
#swz_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true, swizzled = true>
func.func @dq_step_swizzled(%k: tensor<1x1x?x64xf16>, %q: tensor<1x1x?x64xf16>, %ws: memref<1x1x?x64xf32>,
                   %dk: tensor<1x1x?x64xf16>) -> tensor<1x1x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nk = tensor.dim %k, %c2 : tensor<1x1x?x64xf16>
  %nkb = arith.ceildivui %nk, %c32 : index
  %r = scf.forall (%b, %h, %kb) in (1, 1, %nkb) shared_outs(%out = %dk) -> (tensor<1x1x?x64xf16>) {
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %k0 = arith.muli %kb, %c32 : index
    %kleft = arith.subi %nk, %k0 : index
    %kn = arith.minsi %kleft, %c32 : index
    %kpad = arith.subi %c32, %kn : index
    %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %kn, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<?x64xf16>
    %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<32x64xf16, #swz>
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x64xf16>
    %qleft = arith.subi %nq, %k0 : index
    %qn = arith.minsi %qleft, %c16 : index
    %qpad = arith.subi %c16, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %k0, 0] [1, 1, %qn, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<?x64xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<16x64xf16, #shared>
    %st = fa.qk %kt, %qt : tensor<32x64xf16, #swz>, tensor<16x64xf16, #shared> -> tensor<32x16xf32, #acc>
    %st16 = arith.truncf %st : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %sts = fa.convert_layout %st16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #shared>
    %ktt = fa.transpose %kt : tensor<32x64xf16, #swz> -> tensor<64x32xf16, #swz_t>
    %z = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %dqt = fa.pv %ktt, %sts, %z : tensor<64x32xf16, #swz_t>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
    fa.accumulate_rows %dqt into %ws[%b, %h, %k0] rows(%qn) {transposed} : tensor<64x16xf32, #acc>, memref<1x1x?x64xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x64xf16>
}

