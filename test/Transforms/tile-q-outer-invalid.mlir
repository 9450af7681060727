// Bad options are a pass error that names the option, the valid range and
// the value; the memref form of fa.attention is an error on the op.

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: fa-tile-q-outer: option block-m must be in [1, 1024], got 0

// RUN: not fa-opt %s --fa-tile-q-outer="block-n=-16" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: fa-tile-q-outer: option block-n must be in [1, 1024], got -16

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=4096" 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// TOO-BIG: error: fa-tile-q-outer: option block-m must be in [1, 1024], got 4096

//     1024 is the largest valid block: only block-n is reported.
// RUN: not fa-opt %s --fa-tile-q-outer="block-m=1024 block-n=1025" 2>&1 | FileCheck %s --check-prefix=EDGE
// EDGE-NOT: option block-m
// EDGE: error: fa-tile-q-outer: option block-n must be in [1, 1024], got 1025
// EDGE-NOT: option block-m

// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-tile-q-outer{block-m=big})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-A-NUMBER
// NOT-A-NUMBER: for the --block-m option: 'big' value invalid for long argument!
// NOT-A-NUMBER: failed to add `fa-tile-q-outer` with options `block-m=big`

// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-tile-q-outer{auto-blocks=maybe})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-A-BOOL
// NOT-A-BOOL: for the --auto-blocks option: 'maybe' is invalid value for boolean argument!

// RUN: not fa-opt %s --fa-tile-q-outer="auto-blocks=true chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fa-opt %s --fa-tile-q-outer="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: fa-tile-q-outer: option chip must be one of sm_80, {{.*}}, got 'sm_75'

// The memref form (after bufferization) cannot be tiled into tensors: an error
// on the op, also when a tensor-form op next to it could be rewritten.
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer -verify-diagnostics

func.func @memref_form(%q: memref<1x1x8x16xf32>, %o: memref<1x1x8x16xf32>) {
  // expected-error @+1 {{fa-tile-q-outer needs the tensor form of fa.attention; run it before bufferization}}
  fa.attention ins(%q, %q, %q : memref<1x1x8x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>)
               outs(%o : memref<1x1x8x16xf32>)
  return
}

// -----

func.func @tensor_form(%q: tensor<1x1x8x16xf32>, %o: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>)
                    outs(%o : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return %0 : tensor<1x1x8x16xf32>
}

func.func @memref_form_after_tensor_form(%q: memref<1x1x8x16xf32>, %o: memref<1x1x8x16xf32>) {
  // expected-error @+1 {{fa-tile-q-outer needs the tensor form of fa.attention; run it before bufferization}}
  fa.attention ins(%q, %q, %q : memref<1x1x8x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>)
               outs(%o : memref<1x1x8x16xf32>) causal
  return
}
