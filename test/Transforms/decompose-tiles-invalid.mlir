// --fa-decompose-tiles (and so --fa-lower-to-cpu) on GPU-stage IR: a
// diagnostic that names the stage, not upstream bufferization's message
// about the launch's memory effects.
// RUN: not fa-opt %s --fa-decompose-tiles 2>&1 | FileCheck %s
// RUN: not fa-opt %s --fa-lower-to-cpu 2>&1 | FileCheck %s

// CHECK: error: fa-decompose-tiles: 'gpu.module' is GPU-stage IR (the output of --fa-lower-to-gpu); the CPU path (--fa-lower-to-cpu) runs the IR before it (L0-L3)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @host(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}
