// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_80" --fa-causal-block-skip --fa-map-warps="num-warps=0 chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90" --fa-causal-block-skip --fa-map-warps="num-warps=0 chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true for-split-kv=true chip=sm_90" --fa-causal-block-skip --fa-split-kv="splits=3" --fa-map-warps="num-warps=0 chip=sm_90" | FileCheck %s --check-prefix=SPLIT90

// swizzle-shared=auto (the default) depends on the chip: the swizzled K/V
// reads keep more addresses live, and the atom's register budget for them
// (MmaSyncAtom.cpp getSwizzledSharedBudget) is larger for sm_90's ptxas
// where the kernel keeps nothing else live beside the fragments: no window
// bound, soft cap or per-sequence bound (TileConfig's extra live values),
// and no split-KV chunk bounds.

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

//     A soft cap keeps its value live: padded for sm_90 too.
// SM90-LABEL: func.func @softcap
// SM90-NOT: , #shared_swz>
// SM90: fa.softcap
// SM90-NOT: , #shared_swz>
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
