// --fa-tensor-map-params: the last fa.tensor_map_params parameters of a
// kernel (after convert-gpu-to-nvvm) become 128-byte by-value
// __grid_constant__ parameters; a count the kernel cannot have, or a
// counted parameter that is not a pointer, is an error.

// RUN: fa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fa-tensor-map-params))' -verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @two_maps
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.struct<(array<16 x i64>)>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.struct<(array<16 x i64>)>, nvvm.grid_constant})
// CHECK-LABEL: llvm.func @no_maps
// CHECK-SAME: (%{{.*}}: !llvm.ptr)
// CHECK-NOT: byval
gpu.module @m {
  llvm.func @two_maps(%a: !llvm.ptr, %n: i32, %k: !llvm.ptr {llvm.align = 64 : i64}, %v: !llvm.ptr {llvm.align = 64 : i64})
      attributes {fa.tensor_map_params = 2 : i64, nvvm.kernel} {
    llvm.return
  }
  llvm.func @no_maps(%a: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'llvm.func' op fa-tensor-map-params: fa.tensor_map_params = 3 but the kernel has 2 parameters}}
  llvm.func @too_many(%a: !llvm.ptr, %k: !llvm.ptr) attributes {fa.tensor_map_params = 3 : i64, nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'llvm.func' op fa-tensor-map-params: parameter 1 is counted as a tensor map but is not a pointer: 'i32'}}
  llvm.func @not_a_pointer(%a: !llvm.ptr, %n: i32) attributes {fa.tensor_map_params = 1 : i64, nvvm.kernel} {
    llvm.return
  }
}
