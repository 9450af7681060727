// RUN: sed -e 's/HD/64/g; s/NQ/?/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" | FileCheck %s --check-prefix=D64
// RUN: sed -e 's/HD/128/g; s/NQ/?/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" | FileCheck %s --check-prefix=D128
// RUN: sed -e 's/HD/128/g; s/NQ/?/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma padded-shared=true" | FileCheck %s --check-prefix=PADDED
// RUN: sed -e 's/HD/256/g; s/NQ/?/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" | FileCheck %s --check-prefix=D256
// RUN: sed -e 's/HD/128/g; s/NQ/1/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a atom=wgmma" | FileCheck %s --check-prefix=DECODE
// RUN: sed -e 's/HD/128/g; s/NQ/1/g' %s | fa-opt --fa-tile-q-outer="auto-blocks=true chip=sm_90a" | FileCheck %s --check-prefix=SM80-DECODE
// RUN: sed -e "s/HD/64/g; s/NQ/?/g" %s | not fa-opt --pass-pipeline="builtin.module(fa-tile-q-outer{auto-blocks=true atom=mma})" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --atom option: Cannot find option named 'mma'!

// With auto-blocks, the tiles come from the atom's table: #fa.wgmma's
// (WgmmaAtom.cpp) holds 16 rows a warp, so its Q blocks are 64 or 128 rows
// (4 or 8 warps) and a decode step's Q block shrinks to 64 rows, never to
// the 16 of #fa.mma_sync. The tiles must fit one K/V slot more than the
// stages (--fa-pipeline-mma keeps the previous block's V), counted as the
// lowering lays them out (swizzled rows of 128 bytes unpadded): at d = 128
// 128 x 128 with 2 stages (3 slots, 224 KB) fits sm_90a's 227 KB; at
// d = 256 the table has 64 x 32.
// D64-DAG: tensor<128x64xf16>
// D64-DAG: %[[STEP:.*]] = arith.constant 64 : index
// D64: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// D128-DAG: tensor<128x128xf16>
// D128-DAG: %[[STEP:.*]] = arith.constant 128 : index
// D128: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// D128: fa.qk %{{.*}}, %{{.*}} : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
// padded-shared (--fa-map-warps{swizzle-shared=off}): counted padded, 3
// slots of 128 x 128 do not fit; 128 x 64.
// PADDED-DAG: %[[STEP:.*]] = arith.constant 64 : index
// PADDED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// PADDED: fa.qk %{{.*}}, %{{.*}} : tensor<128x128xf16>, tensor<64x128xf16> -> tensor<128x64xf32>
// D256-DAG: tensor<64x256xf16>
// D256-DAG: %[[STEP:.*]] = arith.constant 32 : index
// D256: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// DECODE: tensor<64x128xf16>
// DECODE-NOT: tensor<16x128xf16>
// SM80-DECODE: tensor<16x128xf16>

func.func @attention(%q: tensor<?x8xNQxHDxf16>, %k: tensor<?x8x?xHDxf16>, %v: tensor<?x8x?xHDxf16>,
                     %o: tensor<?x8xNQxHDxf16>) -> tensor<?x8xNQxHDxf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x8xNQxHDxf16>, tensor<?x8x?xHDxf16>, tensor<?x8x?xHDxf16>)
                    outs(%o : tensor<?x8xNQxHDxf16>) causal -> tensor<?x8xNQxHDxf16>
  return %0 : tensor<?x8xNQxHDxf16>
}
