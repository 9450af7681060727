// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=128 block-n=64" --fa-causal-block-skip --fa-map-warps | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=64 block-n=32" --fa-causal-block-skip --fa-map-warps="num-warps=2" | FileCheck %s --check-prefix=TWO

// Q-row-indexed tiles and the per-row state get #fa.warp_rows, K/V tiles
// #fa.block_shared, and the forall is mapped onto the grid.

// CHECK-LABEL: func @causal
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in
// CHECK: %[[Q:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32, #fa.warp_rows<num_warps = 4>>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32, #fa.warp_rows<num_warps = 4>>
// CHECK-DAG: %[[A0:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>
// CHECK: %[[R1:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[M0]], %{{.*}} = %[[L0]], %{{.*}} = %[[A0]]) -> (tensor<128xf32, #fa.warp_rows<num_warps = 4>>, tensor<128xf32, #fa.warp_rows<num_warps = 4>>, tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>)
// CHECK: %[[K:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #fa.block_shared>
// CHECK: %[[V:.*]] = tensor.pad
// CHECK: } : tensor<?x64xf16> to tensor<64x64xf16, #fa.block_shared>
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] {{.*}} : tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>, tensor<64x64xf16, #fa.block_shared> -> tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>
// CHECK: fa.online_softmax %[[S]], {{.*}} : tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>, tensor<128xf32, #fa.warp_rows<num_warps = 4>>
// CHECK: arith.truncf {{.*}} to tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>
// CHECK: fa.pv {{.*}}, %[[V]], {{.*}} : tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>, tensor<64x64xf16, #fa.block_shared>, tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>, tensor<128xf32, #fa.warp_rows<num_warps = 4>>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// CHECK: fa.mask {{.*}} : tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>
// CHECK: fa.finalize {{.*}} -> tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}

// TWO-LABEL: func @causal
// TWO: tensor<64x64xf16, #fa.warp_rows<num_warps = 2>>
// TWO: tensor<32x64xf16, #fa.block_shared>
func.func @causal(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>, %o: tensor<?x8x?x64xf16>) -> tensor<?x8x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>)
                    outs(%o : tensor<?x8x?x64xf16>) causal -> tensor<?x8x?x64xf16>
  return %0 : tensor<?x8x?x64xf16>
}

// -----

// A forall that is not a tiled fa.attention is left alone.
// CHECK-LABEL: func @other_forall
// CHECK: scf.forall
// CHECK-NOT: mapping
// CHECK-NOT: #fa.
func.func @other_forall(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> tensor<8xf32> {
    %x = tensor.extract_slice %o[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %x into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}
