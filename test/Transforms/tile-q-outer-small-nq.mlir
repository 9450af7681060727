// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true" --fa-map-warps="num-warps=0" | FileCheck %s --check-prefix=WARPS
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true" --fa-map-warps="num-warps=0" --fa-pipeline-kv="stages=0" | FileCheck %s --check-prefix=STAGES
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="auto-blocks=true chip=sm_86" | FileCheck %s --check-prefix=SM86

// auto-blocks with a static Nq below the table's 128-row Q block (a decode
// step): the Q block is the smallest of 16, 32 and 64 rows that holds Nq,
// and --fa-map-warps gives it one warp per 16 rows. A Q block of one or two
// warps gets 128-key K/V blocks (head dims up to 128) that groups of warps
// divide, 4 warps in all, at least 32 keys a group (fa.key_groups on the
// loop nest, which --fa-map-warps{key-groups=0} applies). The shared memory
// the smaller Q tile leaves goes to a third K/V stage where the chip has
// room for it (fa.kv_stages = 3, which --fa-pipeline-kv{stages=0} applies:
// d = 64 on sm_80's 163 KB, not d = 128's 128-key blocks nor sm_86's 99 KB,
// where d = 128 falls back to 64-key blocks and 2 groups), and the loop
// nests of the table's Q block keep the table's 2.

// One query (decode), GQA 32:4, d = 128: 16-row Q tiles.
// CHECK-LABEL: func @decode_one_query
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, 32, %{{.*}})
// CHECK: fa.qk %{{.*}}, %{{.*}} : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
// CHECK: } {fa.key_groups = 4 : i64, fa.mma_atom = #fa.mma_sync}
// STAGES-LABEL: func @decode_one_query
// STAGES: fa.async_load %{{.*}}, %{{.*}}[{{.*}}] rows({{.*}}) slot({{.*}}) of 2
// SM86-LABEL: func @decode_one_query
// SM86-NOT: fa.kv_stages
// SM86: } {fa.key_groups = 2 : i64, fa.mma_atom = #fa.mma_sync}
// SM86-LABEL: func @seventeen_queries
// WARPS-DAG: #[[ACC1:.*]] = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
// WARPS-LABEL: func @decode_one_query
// WARPS: fa.qk {{.*}} -> tensor<16x128xf32, #[[ACC1]]>
func.func @decode_one_query(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>,
                            %o: tensor<?x32x1x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>)
                    outs(%o : tensor<?x32x1x128xbf16>) causal -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}

// -----

// 17 queries (speculative decoding, a short chunk): 32 rows, two warps.
// CHECK-LABEL: func @seventeen_queries
// CHECK: fa.qk {{.*}} -> tensor<32x128xf32>
// CHECK: } {fa.key_groups = 2 : i64, fa.kv_stages = 3 : i64, fa.mma_atom = #fa.mma_sync}
//     (sm_86: no third stage of 128-key blocks.)
// SM86: } {fa.key_groups = 2 : i64, fa.mma_atom = #fa.mma_sync}
// WARPS-DAG: #[[ACC2:.*]] = #fa.warp_rows<acc, num_warps = 2, replicas = 2, share = columns, atom = #fa.mma_sync>
// WARPS-LABEL: func @seventeen_queries
// WARPS: fa.qk {{.*}} -> tensor<32x128xf32, #[[ACC2]]>
func.func @seventeen_queries(%q: tensor<2x8x17x64xf16>, %k: tensor<2x8x?x64xf16>, %o: tensor<2x8x17x64xf16>) -> tensor<2x8x17x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<2x8x17x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>)
                    outs(%o : tensor<2x8x17x64xf16>) -> tensor<2x8x17x64xf16>
  return %0 : tensor<2x8x17x64xf16>
}

// -----

// 64 queries: a 64-row block on four warps; 65 and more, or a dynamic Nq,
// keep the table's 128 rows.
// CHECK-LABEL: func @sixty_four_queries
// CHECK: fa.qk {{.*}} -> tensor<64x64xf32>
// CHECK-LABEL: func @sixty_five_queries
// CHECK: fa.qk {{.*}} -> tensor<128x64xf32>
// CHECK-LABEL: func @dynamic_queries
// CHECK: fa.qk {{.*}} -> tensor<128x64xf32>
// CHECK-NOT: fa.kv_stages
// WARPS: #[[ACC4:.*]] = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// WARPS-LABEL: func @sixty_four_queries
// WARPS: fa.qk {{.*}} -> tensor<64x64xf32, #[[ACC4]]>
func.func @sixty_four_queries(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x?x64xf16>, %o: tensor<1x4x64x64xf16>) -> tensor<1x4x64x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x4x64x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>)
                    outs(%o : tensor<1x4x64x64xf16>) -> tensor<1x4x64x64xf16>
  return %0 : tensor<1x4x64x64xf16>
}
func.func @sixty_five_queries(%q: tensor<1x4x65x64xf16>, %k: tensor<1x4x?x64xf16>, %o: tensor<1x4x65x64xf16>) -> tensor<1x4x65x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x4x65x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>)
                    outs(%o : tensor<1x4x65x64xf16>) -> tensor<1x4x65x64xf16>
  return %0 : tensor<1x4x65x64xf16>
}
func.func @dynamic_queries(%q: tensor<1x4x?x64xf16>, %k: tensor<1x4x?x64xf16>, %o: tensor<1x4x?x64xf16>) -> tensor<1x4x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>)
                    outs(%o : tensor<1x4x?x64xf16>) -> tensor<1x4x?x64xf16>
  return %0 : tensor<1x4x?x64xf16>
}
