// RUN: fa-opt %s --pass-pipeline='builtin.module(gpu.module(fa-extern-dynamic-shared))' | FileCheck %s

// Dynamic shared memory (a zero-sized array in address space 3) becomes an
// external declaration; other globals keep their linkage.

// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
}
