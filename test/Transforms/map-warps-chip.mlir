// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_80" --fa-causal-block-skip --fa-map-warps="num-warps=0 chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90" --fa-causal-block-skip --fa-map-warps="num-warps=0 chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true for-split-kv=true chip=sm_90" --fa-causal-block-skip --fa-split-kv="splits=3" --fa-map-warps="num-warps=0 chip=sm_90" | FileCheck %s --check-prefix=SPLIT90

// swizzle-shared=auto (the default) depends on the chip: the swizzled K/V
// reads keep more addresses live, and the atom's register budget for them
// (MmaSyncAtom.cpp getSwizzledSharedBudget) is larger for sm_90's ptxas
// where the kernel keeps no per-row or per-loop bounds live beside the
// fragments: no window bound, no per-sequence bound, no split-KV chunk
// bounds (a soft cap, one scalar, is allowed).
//
//     D = 128 (S + O + Q fragments of 256 registers): padded for sm_80,
//     swizzled for sm_90, padded again when split.
// SM80-LABEL: func.func @plain
// SM80-NOT: , #shared_swz>
// SM80: fa.qk {{.*}}, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc_w4>
// SM80-NOT: , #shared_swz>
// SM90-LABEL: func.func @plain
// SM90: fa.qk {{.*}} : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SM90: fa.pv {{.*}}, tensor<64x128xbf16, #shared_swz>, tensor<128x128xf32, #acc_w4>
// SPLIT90-LABEL: func.func @plain
// SPLIT90-NOT: , #shared_swz>
// SPLIT90: fa.qk {{.*}}, tensor<32x128xbf16, #shared> -> tensor<128x32xf32, #acc_w4>
// SPLIT90-NOT: , #shared_swz>
// SPLIT90: } {fa.split_kv, mapping =
func.func @plain(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>,
                 %o: tensor<?x8x?x128xbf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
                      outs(%o, %l : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>)
                      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %r#0, %r#1 : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

// -----

//     A soft cap (one scalar): swizzled for sm_90, padded for sm_80 and
//     when split.
// SM80-LABEL: func.func @softcap
// SM80-NOT: , #shared_swz>
// SM80: fa.softcap
// SM80-NOT: , #shared_swz>
// SM90-LABEL: func.func @softcap
// SM90: fa.qk {{.*}}, tensor<64x128xbf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SM90: fa.softcap
// SPLIT90-LABEL: func.func @softcap
// SPLIT90-NOT: , #shared_swz>
// SPLIT90: fa.softcap
// SPLIT90-NOT: , #shared_swz>
// SPLIT90: } {fa.split_kv, mapping =
func.func @softcap(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>,
                   %o: tensor<?x8x?x128xbf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
                      outs(%o, %l : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) causal softcap(30.0)
                      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %r#0, %r#1 : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

// -----

//     D = 192 (8 warps, 176 registers) and D = 256: swizzled for sm_90 only.
// SM80-LABEL: func.func @d192
// SM80-NOT: , #shared_swz>
// SM80: fa.pv {{.*}}, tensor<64x192xf16, #shared>
// SM90-LABEL: func.func @d192
// SM90: fa.pv {{.*}}, tensor<64x192xf16, #shared_swz>, tensor<128x192xf32, #acc_w8>
func.func @d192(%q: tensor<?x4x?x192xf16>, %k: tensor<?x4x?x192xf16>, %v: tensor<?x4x?x192xf16>,
                %o: tensor<?x4x?x192xf16>, %l: tensor<?x4x?xf32>) -> (tensor<?x4x?x192xf16>, tensor<?x4x?xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x4x?x192xf16>, tensor<?x4x?x192xf16>, tensor<?x4x?x192xf16>)
                      outs(%o, %l : tensor<?x4x?x192xf16>, tensor<?x4x?xf32>) causal
                      -> tensor<?x4x?x192xf16>, tensor<?x4x?xf32>
  return %r#0, %r#1 : tensor<?x4x?x192xf16>, tensor<?x4x?xf32>
}

// -----

//     A sliding window keeps two key bounds per row live: padded for sm_90
//     (at d = 192 the swizzled kernel spills 4-8 bytes).
// SM90-LABEL: func.func @window
// SM90-NOT: , #shared_swz>
// SM90: fa.mask
// SM90-NOT: , #shared_swz>
func.func @window(%q: tensor<?x4x?x192xf16>, %k: tensor<?x4x?x192xf16>, %v: tensor<?x4x?x192xf16>,
                  %o: tensor<?x4x?x192xf16>, %l: tensor<?x4x?xf32>) -> (tensor<?x4x?x192xf16>, tensor<?x4x?xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x4x?x192xf16>, tensor<?x4x?x192xf16>, tensor<?x4x?x192xf16>)
                      outs(%o, %l : tensor<?x4x?x192xf16>, tensor<?x4x?xf32>) causal window(1024, 0)
                      -> tensor<?x4x?x192xf16>, tensor<?x4x?xf32>
  return %r#0, %r#1 : tensor<?x4x?x192xf16>, tensor<?x4x?xf32>
}

// -----

//     Per-sequence key counts (a K/V cache) bound every K/V loop: padded for
//     sm_90 (d = 128 causal spills 8 bytes swizzled). (With a soft cap too,
//     the tiles shrink to 64 x 32 and fit sm_80's budget: swizzled for any
//     chip.)
// SM90-LABEL: func.func @key_lengths
// SM90-NOT: , #shared_swz>
// SM90: fa.qk {{.*}}, tensor<32x128xbf16, #shared> -> tensor<128x32xf32, #acc_w4>
// SM90-NOT: , #shared_swz>
// SM90-LABEL: func.func @key_lengths_softcap
// SM90: fa.qk {{.*}}, tensor<32x128xbf16, #shared_swz> -> tensor<64x32xf32, #acc_w4>
func.func @key_lengths(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>,
                       %n: tensor<?xi32>, %o: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
                    key_lengths(%n : tensor<?xi32>)
                    outs(%o : tensor<?x8x?x128xbf16>) causal -> tensor<?x8x?x128xbf16>
  return %r : tensor<?x8x?x128xbf16>
}

// -----

func.func @key_lengths_softcap(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>,
                               %n: tensor<?xi32>, %o: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>)
                    key_lengths(%n : tensor<?xi32>)
                    outs(%o : tensor<?x8x?x128xbf16>) causal softcap(30.0) -> tensor<?x8x?x128xbf16>
  return %r : tensor<?x8x?x128xbf16>
}
