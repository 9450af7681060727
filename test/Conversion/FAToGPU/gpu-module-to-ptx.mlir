// --fa-gpu-module-to-ptx serializes like gpu-module-to-binary{format=isa}, with
// shared-memory addresses in 32-bit registers (LLVM's nvptx-short-ptr, on
// whatever the process-wide value) unless short-shared-pointers=false, which
// leaves the option as the process has it (LLVM's default: 64-bit).
// RUN: fa-opt %s --fa-gpu-module-to-ptx | FileCheck %s --check-prefix=SHORT
// RUN: fa-opt %s --nvptx-short-ptr=false --fa-gpu-module-to-ptx | FileCheck %s --check-prefix=SHORT
// RUN: fa-opt %s --fa-gpu-module-to-ptx=short-shared-pointers=false | FileCheck %s --check-prefix=LONG
// RUN: fa-opt %s --nvptx-short-ptr --fa-gpu-module-to-ptx=short-shared-pointers=false | FileCheck %s --check-prefix=SHORT

// SHORT-LABEL: gpu.binary @kernels
// SHORT-SAME: .target sm_80
// SHORT-SAME: mov.b32 \09%r{{[0-9]+}}, tile;
// SHORT-SAME: st.shared.b32 \09[%r{{[0-9]+}}]
// SHORT-SAME: ld.shared.b32 \09%r{{[0-9]+}}, [%r{{[0-9]+}}]

// LONG-LABEL: gpu.binary @kernels
// LONG-SAME: mov.b64 \09%rd{{[0-9]+}}, tile;
// LONG-SAME: st.shared.b32 \09[%rd{{[0-9]+}}]
// LONG-SAME: ld.shared.b32 \09%r{{[0-9]+}}, [%rd{{[0-9]+}}]

module {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
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
