// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s

// #fa.wgmma's swizzled shared tiles (#fa.block_shared<atom = #fa.wgmma,
// swizzled = true>, Atoms/Wgmma.cpp): wgmma's 128-byte-swizzled canonical
// layout, a 4-D view [column block][row][stored chunk][element] with
// 16-byte chunk c of row r at c ^ (r % 8); every tile on 1024 bytes and the
// kernel marked fa.shared_alignment = 1024 (--fa-extern-dynamic-shared
// aligns the dynamic shared memory); descriptors with layout type 1 (bits
// 62-63) and SBO = 1024 bytes (8 rows of 128 bytes).

// S = Q K^T at head dim 128: Q [64 x 128] and K [16 x 128] swizzled, two
// column blocks each. The copy: 16 chunks a row, chunk q of thread q at row
// q / 16, column block (q % 16) / 8, stored chunk (q % 8) ^ (row % 8). Q to
// A registers: ldmatrix.x4 per k step from column block kk / 4, chunk
// (lane / 16 + 2 (kk % 4)) ^ (lane % 8). K by descriptor: K-major, LBO
// unused (1), SBO 1024: (1 << 16) | (64 << 32) | (1 << 62); k step kk
// starts (kk / 4) x 2048 (K's column block) + (kk % 4) x 32 bytes in.
// CHECK-LABEL: gpu.func @qk_swizzled_kernel
// CHECK-SAME: fa.shared_alignment = 1024 : i64
// CHECK-DAG: %[[KMAJOR:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: %[[QV:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = arith.divui %thread_id_x, %c16 : index
// CHECK: %[[CHUNK:.*]] = arith.remui %thread_id_x, %c16 : index
// CHECK: %[[BLOCK:.*]] = arith.divui %[[CHUNK]], %c8 : index
// CHECK: %[[ROW8:.*]] = arith.remui %[[ROW]], %c8 : index
// CHECK: %[[CHUNK8:.*]] = arith.remui %[[CHUNK]], %c8 : index
// CHECK: %[[STORED:.*]] = arith.xori %[[CHUNK8]], %[[ROW8]] : index
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[QV]][%[[BLOCK]], %[[ROW]], %[[STORED]], %c0], 8
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
// CHECK: %[[QV2:.*]] = memref.view %{{.*}}[%c0][] : {{.*}} to memref<2x64x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: %[[LROW:.*]] = arith.addi
// CHECK: %[[LCHUNK:.*]] = arith.divui %[[LANE:.*]], %c16 : index
// CHECK: %[[LANE8:.*]] = arith.remui %[[LANE]], %c8 : index
// CHECK: %[[S0:.*]] = arith.xori %[[LCHUNK]], %[[LANE8]] : index
// CHECK: nvgpu.ldmatrix %[[QV2]][%c0, %[[LROW]], %[[S0]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[C1:.*]] = arith.addi %[[LCHUNK]], %c2 : index
// CHECK: %[[S1:.*]] = arith.xori %[[C1]], %[[LANE8]] : index
// CHECK: nvgpu.ldmatrix %[[QV2]][%c0, %[[LROW]], %[[S1]], %c0]
// CHECK: nvgpu.ldmatrix %[[QV2]][%c0,
// CHECK: nvgpu.ldmatrix %[[QV2]][%c0,
// CHECK: nvgpu.ldmatrix %[[QV2]][%c1, %[[LROW]], %[[S0]], %c0]
//     K sits after Q's 16384 bytes.
// CHECK: memref.view %{{.*}}[%{{.*}}][] : {{.*}} to memref<2x16x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: arith.addi %[[BASE]], %c16384 : index
// CHECK: arith.ori %{{.*}}, %[[KMAJOR]] : i64
// CHECK: arith.addi %[[BASE]], %c16416 : index
// CHECK: arith.addi %[[BASE]], %c16448 : index
// CHECK: arith.addi %[[BASE]], %c16480 : index
// CHECK: arith.addi %[[BASE]], %c18432 : index
// CHECK: arith.addi %[[BASE]], %c18464 : index
//     Eight k steps in one asm statement.
// CHECK: llvm.inline_asm has_side_effects "{{(.*wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 [^;]*, p, 1, 1, 0;){8} ?}}\0Awgmma.commit_group
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>
func.func @qk_swizzled(%q: tensor<1x1x?x128xf16>, %k: tensor<1x1x?x128xf16>, %s: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x128xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%so = %s) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 128] [1, 1, 1, 1] : tensor<1x1x?x128xf16> to tensor<?x128xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x128xf16> to tensor<64x128xf16, #swz>
    %qa = fa.convert_layout %qt : tensor<64x128xf16, #swz> -> tensor<64x128xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 128] [1, 1, 1, 1] : tensor<1x1x?x128xf16> to tensor<16x128xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x128xf16> to tensor<16x128xf16, #swz>
    %sc = fa.qk %qa, %kt : tensor<64x128xf16, #opA>, tensor<16x128xf16, #swz> -> tensor<64x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// O = P V at head dim 128, bf16: V [32 x 128] swizzled, read MN-major
// (trans-b = 1): LBO = the next 64-column block, 32 rows of 128 bytes =
// 4096; SBO 1024: (256 << 16) | (64 << 32) | (1 << 62). P [64 x 32] keeps
// the core matrices (5120 bytes, padded, a multiple of 1024), so V starts at
// 5120; k step kk starts kk x 16 rows x 128 bytes = 2048 kk further.
// CHECK-LABEL: gpu.func @pv_swizzled_kernel
// CHECK-SAME: fa.shared_alignment = 1024 : i64
// CHECK-DAG: %[[MNMAJOR:.*]] = arith.constant 4611686293322072064 : i64
// CHECK: memref.view {{.*}} to memref<8x4x8x8xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2x32x8x8xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: arith.addi %[[BASE]], %c5120 : index
// CHECK: arith.ori %{{.*}}, %[[MNMAJOR]] : i64
// CHECK: arith.addi %[[BASE]], %c7168 : index
// CHECK: arith.ori %{{.*}}, %[[MNMAJOR]] : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;\0Awgmma.commit_group
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>
#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>
func.func @pv_swizzled(%p: tensor<1x1x?x32xbf16>, %v: tensor<1x1x?x128xbf16>, %o: tensor<1x1x?x128xbf16>) -> tensor<1x1x?x128xbf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %p, %c2 : tensor<1x1x?x32xbf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x128xbf16>) {
    %zero = arith.constant 0.0 : bf16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %ps = tensor.extract_slice %p[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xbf16> to tensor<?x32xbf16>
    %pt = tensor.pad %ps low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x32xbf16> to tensor<64x32xbf16, #shared>
    %pa = fa.convert_layout %pt : tensor<64x32xbf16, #shared> -> tensor<64x32xbf16, #opA>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 32, 128] [1, 1, 1, 1] : tensor<1x1x?x128xbf16> to tensor<32x128xbf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<32x128xbf16> to tensor<32x128xbf16, #swz>
    %a0 = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
    %acc = fa.pv %pa, %vt, %a0 : tensor<64x32xbf16, #opA>, tensor<32x128xbf16, #swz>, tensor<64x128xf32, #acc>
    %o16 = arith.truncf %acc : tensor<64x128xf32, #acc> to tensor<64x128xbf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 128] [1, 1] : tensor<64x128xbf16, #acc> to tensor<?x128xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 128] [1, 1, 1, 1] : tensor<?x128xbf16> into tensor<1x1x?x128xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x128xbf16>
}

// -----

// Q read by descriptor from a swizzled tile (A from shared memory), 128
// rows on two warpgroups: warpgroup w (warp / 4) starts at row 64 w, i.e.
// 64 w x 128 = 8192 w bytes into each column block; its k steps as K's
// (kk / 4 x 16384, Q's column block, + kk % 4 x 32). K follows Q's 32768
// bytes.
// CHECK-LABEL: gpu.func @qk_swizzled_q_in_shared_kernel
// CHECK-DAG: %[[KMAJOR:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[K0:.*]] = arith.addi %[[BASE]], %c32768 : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[WARP]], %c4 : index
// CHECK: %[[GROUPBYTES:.*]] = arith.muli %[[GROUP]], %c8192 : index
// CHECK: %[[Q0:.*]] = arith.addi %[[BASE]], %[[GROUPBYTES]] : index
// CHECK: arith.index_castui %[[Q0]]
// CHECK: arith.ori %{{.*}}, %[[KMAJOR]] : i64
// CHECK: arith.addi %[[Q0]], %c32 : index
// CHECK: arith.addi %[[Q0]], %c64 : index
// CHECK: arith.addi %[[Q0]], %c96 : index
// CHECK: arith.addi %[[Q0]], %c16384 : index
//     A and B by descriptor: `$desc, $desc, p, 1, 1, 0, 0`.
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, $17, $18, p, 1, 1, 0, 0;
#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.wgmma>
#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>
func.func @qk_swizzled_q_in_shared(%q: tensor<1x1x?x128xf16>, %k: tensor<1x1x?x128xf16>, %s: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 128 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x128xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%so = %s) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 128] [1, 1, 1, 1] : tensor<1x1x?x128xf16> to tensor<?x128xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x128xf16> to tensor<128x128xf16, #swz>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 128] [1, 1, 1, 1] : tensor<1x1x?x128xf16> to tensor<16x128xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x128xf16> to tensor<16x128xf16, #swz>
    %sc = fa.qk %qt, %kt : tensor<128x128xf16, #swz>, tensor<16x128xf16, #swz> -> tensor<128x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<128x16xf32, #acc> to tensor<128x16xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<128x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}
