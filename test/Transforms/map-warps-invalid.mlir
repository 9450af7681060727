// Splits that do not fit mma.sync.m16n8k16, and bad options, are pass errors
// that name the values.

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=96 block-n=64" --fa-map-warps 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: fa-map-warps: block-m (96) must be a multiple of 16 * num-warps = 64: each warp owns whole 16-row tiles of the Q block

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=128 block-n=40" --fa-map-warps 2>&1 | FileCheck %s --check-prefix=COLS
// COLS: error: fa-map-warps: block-n (40) must be a multiple of 16, the k of the P V mma

// RUN: not fa-opt %s --fa-tile-q-outer --fa-map-warps="num-warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: fa-map-warps: option num-warps must be 1, 2, 4 or 8, got 3

// RUN: sed -e 's/x64xf16/x40xf16/g' %s | not fa-opt --fa-tile-q-outer --fa-map-warps 2>&1 | FileCheck %s --check-prefix=HEAD-DIM
// HEAD-DIM: error: fa-map-warps: head dims (40, 40) must be multiples of 16

func.func @attention(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>, %o: tensor<?x8x?x64xf16>) -> tensor<?x8x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>)
                    outs(%o : tensor<?x8x?x64xf16>) causal -> tensor<?x8x?x64xf16>
  return %0 : tensor<?x8x?x64xf16>
}
