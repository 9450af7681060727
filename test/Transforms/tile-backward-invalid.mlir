// Bad options and the memref form are errors that name the problem.

// RUN: not fa-opt %s --fa-tile-backward="block-m=0" 2>&1 | FileCheck %s --check-prefix=BLOCK-M
// BLOCK-M: error: fa-tile-backward: option block-m must be in [1, 1024], got 0
// RUN: not fa-opt %s --fa-tile-backward="block-n=2000" 2>&1 | FileCheck %s --check-prefix=BLOCK-N
// BLOCK-N: error: fa-tile-backward: option block-n must be in [1, 1024], got 2000
// RUN: not fa-opt %s --fa-tile-backward="dkdv-block-m=-1" 2>&1 | FileCheck %s --check-prefix=DKDV
// DKDV: error: fa-tile-backward: option dkdv-block-m must be in [1, 1024], got -1
// RUN: not fa-opt %s --fa-tile-backward="dq=fast" 2>&1 | FileCheck %s --check-prefix=DQ
// DQ: error: fa-tile-backward: option dq must be 'auto', 'atomic' or 'deterministic', got 'fast'
// RUN: not fa-opt %s --fa-tile-backward="rotate-query-blocks=yes" 2>&1 | FileCheck %s --check-prefix=ROTATE
// ROTATE: error: fa-tile-backward: option rotate-query-blocks must be 'auto', 'on' or 'off', got 'yes'
// RUN: fa-opt %s --fa-tile-backward -verify-diagnostics

func.func @memref_form(%x: memref<1x1x4x4xf32>, %l: memref<1x1x4xf32>) {
  // expected-error @+1 {{fa-tile-backward needs the tensor form of fa.attention_backward; run it before bufferization}}
  fa.attention_backward ins(%x, %x, %x, %x, %x, %l : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4xf32>)
                        outs(%x, %x, %x : memref<1x1x4x4xf32>, memref<1x1x4x4xf32>, memref<1x1x4x4xf32>)
  return
}
