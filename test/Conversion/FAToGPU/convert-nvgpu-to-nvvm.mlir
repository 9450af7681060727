// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-convert-nvgpu-to-nvvm{index-bitwidth=32}))' | FileCheck %s --check-prefix=I32
// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-convert-nvgpu-to-nvvm))' | FileCheck %s --check-prefix=I64
// RUN: not fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-convert-nvgpu-to-nvvm{index-bitwidth=16}))' 2>&1 | FileCheck %s --check-prefix=BAD

// The upstream nvgpu -> nvvm patterns, with memref descriptors and address
// arithmetic of the chosen index width.

// I32-LABEL: gpu.func @ldmatrix_and_copy
// I32: builtin.unrealized_conversion_cast %{{.*}} : memref<64x72xf16, 3> to !llvm.struct<(ptr<3>, ptr<3>, i32, array<2 x i32>, array<2 x i32>)>
// I32: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// I32: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// I32: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
//     mma.sync (f16): the fragments' registers as nvvm.mma.sync operands.
// I32-LABEL: gpu.func @mma
// I32: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// I64-LABEL: gpu.func @ldmatrix_and_copy
// I64: !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
// BAD: error: fa-convert-nvgpu-to-nvvm: option index-bitwidth must be 32 or 64, got 16
gpu.module @kernels {
  gpu.func @ldmatrix_and_copy(%tile: memref<64x72xf16, 3>, %global: memref<?x64xf16>, %i: index, %out: memref<8xf16, 3>) {
    %c0 = arith.constant 0 : index
    %f = nvgpu.ldmatrix %tile[%i, %c0] {numTiles = 4 : i32, transpose = false} : memref<64x72xf16, 3> -> vector<4x2xf16>
    %t = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {bypassL1} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
  gpu.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %out: memref<2x2xf32>) {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %out[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
}

// -----

// A copy tagged fa.l2_prefetch (fa.async_load's l2_prefetch, carried by
// --fa-lower-to-gpu) becomes cp.async with PTX's prefetch-size qualifier,
// as inline PTX (NVVM's op has no such field): the shared address as a
// 32-bit window offset, the global one as 64 bits, src-size in bytes
// (elements x 16 bits / 8) when the copy has one.
// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-convert-nvgpu-to-nvvm{index-bitwidth=32}))' | FileCheck %s --check-prefix=HINT
// HINT-LABEL: gpu.func @copy_with_l2_prefetch
// HINT: %[[DST:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// HINT: %[[SRC:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr, i32) -> !llvm.ptr, f16
// HINT: %[[D32:.*]] = llvm.ptrtoint %[[DST]] : !llvm.ptr<3> to i32
// HINT: %[[G:.*]] = llvm.addrspacecast %[[SRC]] : !llvm.ptr to !llvm.ptr<1>
// HINT: %[[S64:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr<1> to i64
// HINT: %[[BITS:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// HINT: %[[BYTES:.*]] = llvm.lshr %[[BITS]], %{{.*}} : i32
// HINT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global.L2::128B [$0], [$1], 16, $2;", "r,l,r" %[[D32]], %[[S64]], %[[BYTES]] : (i32, i64, i32) -> ()
//     Without src-size, and another size; untagged copies keep NVVM's op.
// HINT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global.L2::256B [$0], [$1], 16;", "r,l"
// HINT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// HINT-NOT: L2::
gpu.module @kernels {
  gpu.func @copy_with_l2_prefetch(%global: memref<?x64xf16>, %out: memref<8xf16, 3>, %i: index, %n: index) {
    %c0 = arith.constant 0 : index
    %t0 = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8, %n {bypassL1, fa.l2_prefetch = 128 : i64} : memref<?x64xf16> to memref<8xf16, 3>
    %t1 = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {bypassL1, fa.l2_prefetch = 256 : i64} : memref<?x64xf16> to memref<8xf16, 3>
    %t2 = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {bypassL1} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
}

