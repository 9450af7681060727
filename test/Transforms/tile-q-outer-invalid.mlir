// Bad options and unsupported input give a pass error that names the problem.

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: fa-tile-q-outer: option block-m must be in [1, 1024], got 0

// RUN: not fa-opt %s --fa-tile-q-outer="block-n=-16" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: fa-tile-q-outer: option block-n must be in [1, 1024], got -16

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=4096" 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// TOO-BIG: error: fa-tile-q-outer: option block-m must be in [1, 1024], got 4096

// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-tile-q-outer{block-m=big})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-A-NUMBER
// NOT-A-NUMBER: for the --block-m option: 'big' value invalid for long argument!
// NOT-A-NUMBER: failed to add `fa-tile-q-outer` with options `block-m=big`

// RUN: not fa-opt %s --fa-tile-q-outer 2>&1 | FileCheck %s --check-prefix=MEMREF
// MEMREF: error: fa-tile-q-outer needs the tensor form of fa.attention; run it before bufferization

func.func @memref_form(%q: memref<1x1x8x16xf32>, %o: memref<1x1x8x16xf32>) {
  fa.attention ins(%q, %q, %q : memref<1x1x8x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>)
               outs(%o : memref<1x1x8x16xf32>)
  return
}
