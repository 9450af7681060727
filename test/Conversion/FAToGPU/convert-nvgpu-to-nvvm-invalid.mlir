// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-convert-nvgpu-to-nvvm))' -verify-diagnostics

// A copy's fa.l2_prefetch (set by --fa-lower-to-gpu from fa.async_load's
// l2_prefetch) must be a size PTX's cp.async prefetches, on the one copy form
// that takes it: 16 bytes, L1 bypassed (.cg).

gpu.module @bad_size {
  gpu.func @bad_size(%global: memref<?x64xf16>, %out: memref<8xf16, 3>, %i: index) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'nvgpu.device_async_copy' op fa-convert-nvgpu-to-nvvm: fa.l2_prefetch must be 64, 128 or 256, got 96}}
    %t = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {bypassL1, fa.l2_prefetch = 96 : i64} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @small_copy {
  gpu.func @small_copy(%global: memref<?x64xf16>, %out: memref<8xf16, 3>, %i: index) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'nvgpu.device_async_copy' op fa-convert-nvgpu-to-nvvm: an L2 prefetch hint needs a 16-byte copy that bypasses L1, got 8 bytes}}
    %t = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 4 {fa.l2_prefetch = 128 : i64} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @cached_copy {
  gpu.func @cached_copy(%global: memref<?x64xf16>, %out: memref<8xf16, 3>, %i: index) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'nvgpu.device_async_copy' op fa-convert-nvgpu-to-nvvm: an L2 prefetch hint needs a 16-byte copy that bypasses L1, got 16 bytes}}
    %t = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {fa.l2_prefetch = 128 : i64} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @not_a_size {
  gpu.func @not_a_size(%global: memref<?x64xf16>, %out: memref<8xf16, 3>, %i: index) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'nvgpu.device_async_copy' op fa-convert-nvgpu-to-nvvm: fa.l2_prefetch must be 64, 128 or 256, got "lots"}}
    %t = nvgpu.device_async_copy %global[%i, %c0], %out[%c0], 8 {bypassL1, fa.l2_prefetch = "lots"} : memref<?x64xf16> to memref<8xf16, 3>
    gpu.return
  }
}
