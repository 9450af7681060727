// The option is back to its previous value once --fa-gpu-module-to-ptx is done:
// an upstream gpu-module-to-binary that runs after it in the same process
// (here on @host_kernels, outside the nested module that ours serializes)
// gets the process-wide value, not ours. The same kernel in both modules.
// RUN: fa-opt %s --pass-pipeline='builtin.module(builtin.module(fa-gpu-module-to-ptx),gpu-module-to-binary{format=isa})' \
// RUN:   | FileCheck %s --check-prefixes=OURS-SHORT,HOST-LONG
// A host that sets the option itself keeps it after ours.
// RUN: fa-opt %s --nvptx-short-ptr --pass-pipeline='builtin.module(builtin.module(fa-gpu-module-to-ptx),gpu-module-to-binary{format=isa})' \
// RUN:   | FileCheck %s --check-prefixes=OURS-SHORT,HOST-SHORT
// short-shared-pointers=false touches nothing: both get LLVM's default.
// RUN: fa-opt %s --pass-pipeline='builtin.module(builtin.module(fa-gpu-module-to-ptx{short-shared-pointers=false}),gpu-module-to-binary{format=isa})' \
// RUN:   | FileCheck %s --check-prefixes=OURS-LONG,HOST-LONG

// OURS-SHORT-LABEL: module @ours
// OURS-SHORT: gpu.binary @ours_kernels
// OURS-SHORT-SAME: mov.b32 \09%r{{[0-9]+}}, tile;
// OURS-LONG-LABEL: module @ours
// OURS-LONG: gpu.binary @ours_kernels
// OURS-LONG-SAME: mov.b64 \09%rd{{[0-9]+}}, tile;

// HOST-LONG: gpu.binary @host_kernels
// HOST-LONG-SAME: mov.b64 \09%rd{{[0-9]+}}, tile;
// HOST-LONG-SAME: ld.shared.b32 \09%r{{[0-9]+}}, [%rd{{[0-9]+}}]
// HOST-SHORT: gpu.binary @host_kernels
// HOST-SHORT-SAME: mov.b32 \09%r{{[0-9]+}}, tile;
// HOST-SHORT-SAME: ld.shared.b32 \09%r{{[0-9]+}}, [%r{{[0-9]+}}]

module {
  module @ours {
    gpu.module @ours_kernels [#nvvm.target<chip = "sm_80">] {
      llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
      // out[tid] = out[tid ^ 1] through shared memory.
      llvm.func @swap(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
        %tid = nvvm.read.ptx.sreg.tid.x : i32
        %base = llvm.mlir.addressof @tile : !llvm.ptr<3>
        %q = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %in = llvm.load %q : !llvm.ptr<1> -> f32
        %p = llvm.getelementptr %base[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
        llvm.store %in, %p : f32, !llvm.ptr<3>
        nvvm.barrier0
        %c1 = llvm.mlir.constant(1 : i32) : i32
        %other = llvm.xor %tid, %c1 : i32
        %r = llvm.getelementptr %base[0, %other] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
        %x = llvm.load %r : !llvm.ptr<3> -> f32
        llvm.store %x, %q : f32, !llvm.ptr<1>
        llvm.return
      }
    }
  }
  gpu.module @host_kernels [#nvvm.target<chip = "sm_80">] {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
    // out[tid] = out[tid ^ 1] through shared memory.
    llvm.func @swap(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %base = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %q = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %in = llvm.load %q : !llvm.ptr<1> -> f32
      %p = llvm.getelementptr %base[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
      llvm.store %in, %p : f32, !llvm.ptr<3>
      nvvm.barrier0
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %other = llvm.xor %tid, %c1 : i32
      %r = llvm.getelementptr %base[0, %other] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
      %x = llvm.load %r : !llvm.ptr<3> -> f32
      llvm.store %x, %q : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
