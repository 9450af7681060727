// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=auto" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90 atom=auto" | FileCheck %s --check-prefix=SM90
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=32 block-n=64 chip=sm_90a atom=auto" | FileCheck %s --check-prefix=M32
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=128 block-n=64 chip=sm_90a atom=auto" | FileCheck %s --check-prefix=M128
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=auto" --fa-map-warps="num-warps=0 chip=sm_90a atom=auto" | FileCheck %s --check-prefix=WARPS
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=auto" --fa-map-warps="num-warps=1 chip=sm_90a atom=auto" | FileCheck %s --check-prefix=WARPS1

// atom=auto picks the MMA atom per loop nest (fa::chooseAtom) and records
// it as fa.mma_atom, which --fa-map-warps{atom=auto} names in the layouts
// (and then drops: from L3 on the layouts say it). #fa.wgmma on sm_90a
// where the Q block is whole warpgroups (64 rows a warpgroup) and the
// queries fill one; #fa.mma_sync on any other chip, for explicit Q blocks
// that are not a multiple of 64 rows, and for a few static query rows (a
// decode step), whose #fa.mma_sync Q block shrinks to 16 rows.

// Prefill, dynamic Nq, d = 128: #fa.wgmma's table (128 x 128 tiles, 8 warps).
// CHECK-LABEL: func @prefill
// CHECK: fa.qk %{{.*}}, %{{.*}} : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
// CHECK: } {{{.*}}fa.mma_atom = #fa.wgmma}
// SM90-LABEL: func @prefill
// SM90: fa.qk %{{.*}}, %{{.*}} : tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<128x64xf32>
// SM90: } {fa.mma_atom = #fa.mma_sync}
// M32-LABEL: func @prefill
// M32: fa.qk %{{.*}}, %{{.*}} : tensor<32x128xbf16>, tensor<64x128xbf16> -> tensor<32x64xf32>
// M32: } {fa.mma_atom = #fa.mma_sync}
// M128-LABEL: func @prefill
// M128: } {fa.mma_atom = #fa.wgmma}
// WARPS-DAG: #[[WACC:.*]] = #fa.warp_rows<acc, num_warps = 8, atom = #fa.wgmma>
// WARPS-LABEL: func @prefill
// WARPS: fa.qk {{.*}} -> tensor<128x128xf32, #[[WACC]]>
// WARPS-NOT: fa.mma_atom
// WARPS: return
//   (num-warps=1 is not a warpgroup: #fa.mma_sync names the layouts.)
// WARPS1-DAG: #[[ACC1:.*]] = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
// WARPS1-LABEL: func @prefill
// WARPS1: fa.qk {{.*}} -> tensor<128x128xf32, #[[ACC1]]>
func.func @prefill(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>,
                   %o: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>)
                    outs(%o : tensor<?x16x?x128xbf16>) causal -> tensor<?x16x?x128xbf16>
  return %0 : tensor<?x16x?x128xbf16>
}

// -----

// One query (a decode step): #fa.mma_sync's 16-row Q block with key groups.
// CHECK-LABEL: func @decode
// CHECK: fa.qk %{{.*}}, %{{.*}} : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
// CHECK: } {fa.key_groups = 4 : i64, fa.kv_stages = 3 : i64, fa.mma_atom = #fa.mma_sync}
// WARPS-DAG: #[[DACC:.*]] = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
// WARPS-LABEL: func @decode
// WARPS: fa.qk {{.*}} -> tensor<16x128xf32, #[[DACC]]>
func.func @decode(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>,
                  %o: tensor<?x32x1x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>)
                    outs(%o : tensor<?x32x1x128xbf16>) causal -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}

// -----

// 48 static queries: both atoms take a 64-row Q block; #fa.wgmma's.
// CHECK-LABEL: func @forty_eight_queries
// CHECK: fa.qk %{{.*}}, %{{.*}} : tensor<64x64xf16>, {{.*}} -> tensor<64x{{[0-9]+}}xf32>
// CHECK: } {{{.*}}fa.mma_atom = #fa.wgmma}
func.func @forty_eight_queries(%q: tensor<2x8x48x64xf16>, %k: tensor<2x8x?x64xf16>, %o: tensor<2x8x48x64xf16>) -> tensor<2x8x48x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<2x8x48x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>)
                    outs(%o : tensor<2x8x48x64xf16>) -> tensor<2x8x48x64xf16>
  return %0 : tensor<2x8x48x64xf16>
}
