// RUN: fa-opt %s --pass-pipeline='builtin.module(gpu.module(fa-lower-gpu-math))' | FileCheck %s

// f32 math of the kernel becomes PTX approximations and LLVM intrinsics, so
// that no libdevice call (and no CUDA toolkit) is needed.

// CHECK-LABEL: gpu.func @math
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %[[H:.*]]: f16
// CHECK: %[[E:.*]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK: %[[L:.*]] = llvm.inline_asm "lg2.approx.ftz.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK: %[[F:.*]] = llvm.intr.fma(%[[X]], %[[Y]], %[[Z]]) : (f32, f32, f32) -> f32
// CHECK: %[[M:.*]] = llvm.intr.maxnum(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK: %[[T:.*]] = llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[Y]] : (f32) -> f32
//     Natural exp and log (split-KV's merge of LSEs) through the base-2 ones.
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[XS:.*]] = arith.mulf %[[X]], %[[LOG2E]] : f32
// CHECK: %[[EN:.*]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[XS]] : (f32) -> f32
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: %[[L2:.*]] = llvm.inline_asm "lg2.approx.ftz.f32 $0, $1;", "=f,f" %[[Y]] : (f32) -> f32
// CHECK: %[[LN:.*]] = arith.mulf %[[L2]], %[[LN2]] : f32
//     Other types are left to the upstream lowering.
// CHECK: math.exp2 %[[H]] : f16
// CHECK: math.tanh %[[H]] : f16
// CHECK: memref.store %[[E]], %{{.*}}[%c0]
// CHECK: memref.store %[[L]], %{{.*}}[%c1]
// CHECK: memref.store %[[F]], %{{.*}}[%c2]
// CHECK: memref.store %[[M]], %{{.*}}[%c3]
// CHECK: memref.store %[[T]], %{{.*}}[%c0]
// CHECK: memref.store %[[EN]], %{{.*}}[%c1]
// CHECK: memref.store %[[LN]], %{{.*}}[%c2]
gpu.module @kernels {
  gpu.func @math(%x: f32, %y: f32, %z: f32, %h: f16, %out: memref<4xf32>, %out16: memref<1xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %e = math.exp2 %x : f32
    %l = math.log2 %x : f32
    %f = math.fma %x, %y, %z : f32
    %m = arith.maxnumf %x, %y : f32
    %t = math.tanh %y : f32
    %en = math.exp %x : f32
    %ln = math.log %y : f32
    %eh = math.exp2 %h : f16
    %th = math.tanh %h : f16
    memref.store %e, %out[%c0] : memref<4xf32>
    memref.store %l, %out[%c1] : memref<4xf32>
    memref.store %f, %out[%c2] : memref<4xf32>
    memref.store %m, %out[%c3] : memref<4xf32>
    memref.store %eh, %out16[%c0] : memref<1xf16>
    memref.store %th, %out16[%c0] : memref<1xf16>
    memref.store %t, %out[%c0] : memref<4xf32>
    memref.store %en, %out[%c1] : memref<4xf32>
    memref.store %ln, %out[%c2] : memref<4xf32>
    gpu.return
  }
}
