// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-extern-dynamic-shared))' | FileCheck %s

// Dynamic shared memory (a zero-sized array in address space 3) becomes an
// external declaration; other globals keep their linkage.

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
}

// -----

// A kernel that asks for more (fa.shared_alignment: #fa.wgmma's 128-byte
// swizzle) raises the dynamic shared memory's alignment; other globals keep
// theirs.
// CHECK-LABEL: gpu.module @aligned
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
gpu.module @aligned {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.func @plain_kernel() {
    llvm.return
  }
  llvm.func @swizzled_kernel() attributes {fa.shared_alignment = 1024 : i64} {
    llvm.return
  }
}
