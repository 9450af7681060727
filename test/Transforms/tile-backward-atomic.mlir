// RUN: fa-opt %s -split-input-file --fa-tile-backward="block-m=32 block-n=16 dkdv-block-m=16 dq=atomic" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-backward | FileCheck %s --check-prefix=AUTO
// RUN: fa-opt %s -split-input-file --fa-tile-backward="dq=deterministic" | FileCheck %s --check-prefix=DET
// RUN: fa-opt %s -split-input-file --fa-tile-backward="dq=atomic" | FileCheck %s --check-prefix=ATOMIC
// RUN: fa-opt %s -split-input-file --fa-tile-backward="chip=sm_90" | FileCheck %s --check-prefix=HOPPER
// RUN: fa-opt %s -split-input-file --fa-tile-backward="chip=sm_90a" | FileCheck %s --check-prefix=HOPPER
// RUN: fa-opt %s -split-input-file --fa-tile-backward="chip=sm_90 dq=deterministic" | FileCheck %s --check-prefix=DET
// RUN: not fa-opt %s --fa-tile-backward="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// RUN: fa-opt %s -split-input-file --fa-tile-backward="block-m=32 block-n=16 dkdv-block-m=64 dq=atomic" | FileCheck %s --check-prefix=UNPADDED
// RUN: fa-opt %s -split-input-file --fa-tile-backward="chip=sm_90 rotate-query-blocks=off" | FileCheck %s --check-prefix=NO-ROTATE
// RUN: fa-opt %s -split-input-file --fa-tile-backward="dq=atomic rotate-query-blocks=on" | FileCheck %s --check-prefix=ROTATE

// FlashAttention-2's dQ (dq=atomic): the D nest also zeroes an f32
// [B, Hq, Nq', D] buffer (its second shared output), D and the buffer
// padded to Nq' = ceil(Nq / block-m) * block-m rows, all written (whole
// blocks; FlashAttention-2's seqlen_q_rounded); the dK/dV nest, after
// dK += dS^T Q, multiplies dQ^T = K^T dS^T (fa.transpose of the K tile) and
// adds it into the buffer's rows of the Q block, through the memref of
// bufferization.to_buffer, all the tile's rows (the padding takes them: no
// bounds to check), and reads D by whole tiles too; a last nest over
// (batch, query head, Q block) reads whole blocks of the sums
// (fa.read_rows of bufferization.to_tensor) and rounds their valid rows
// into dQ.

// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x?x16xf16>, %[[K:[^:]*]]: tensor<2x2x?x16xf16>, %{{[^:]*}}: tensor<2x2x?x16xf16>, %{{[^:]*}}: tensor<2x4x?x16xf16>, %[[DO:[^:]*]]: tensor<2x4x?x16xf16>
// CHECK-SAME: %[[DQ0:[^:]*]]: tensor<2x4x?x16xf16>, %[[DK0:[^:]*]]: tensor<2x2x?x16xf16>, %[[DV0:[^:]*]]: tensor<2x2x?x16xf16>)
// CHECK: %[[NQ:.*]] = tensor.dim %[[DO]], %{{.*}}
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[NQB:.*]] = arith.ceildivui %[[NQ]], %{{.*}} : index
// CHECK: %[[PAD:.*]] = arith.muli %[[NQB]], %[[C32]] : index
// CHECK: %[[DINIT:.*]] = tensor.empty(%{{.*}}, %[[PAD]]) : tensor<?x4x?xf32>
// CHECK: %[[SINIT:.*]] = tensor.empty(%{{.*}}, %[[PAD]]) : tensor<?x4x?x16xf32>
// CHECK: %[[D:.*]]:2 = scf.forall ({{.*}}) shared_outs(%[[DOUT:.*]] = %[[DINIT]], %[[SOUT:.*]] = %[[SINIT]])
// CHECK: %[[DOT:.*]] = fa.row_dot
// CHECK: %[[DROWS:.*]] = tensor.extract_slice %[[DOT]][0] [%[[WHOLE:.*]]] [1]
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
// CHECK: %[[ZROWS:.*]] = tensor.extract_slice %[[ZEROS]][0, 0] [%[[WHOLE]], 16] [1, 1]
// CHECK: tensor.parallel_insert_slice %[[DROWS]] into %[[DOUT]]{{.*}} [1, 1, %[[WHOLE]]]
// CHECK: tensor.parallel_insert_slice %[[ZROWS]] into %[[SOUT]]
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[D]]#1 : tensor<?x4x?x16xf32> to memref<?x4x?x16xf32>
// CHECK: scf.forall ({{.*}}) shared_outs(%{{.*}} = %[[DK0]], %{{.*}} = %[[DV0]])
// CHECK: %[[KT:.*]] = tensor.pad
// CHECK: scf.for
// CHECK: %[[DT:.*]] = tensor.extract_slice %[[D]]#0[{{.*}}] [1, 1, %[[C16:.*]]] [1, 1, 1] : tensor<?x4x?xf32> to tensor<?xf32>
// CHECK: %[[DS:.*]] = fa.score_grad {{.*}} {transposed}
// CHECK: %[[DS16:.*]] = arith.truncf %[[DS]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK: fa.pv %[[DS16]], %{{.*}}, %{{.*}} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
// CHECK: %[[KTR:.*]] = fa.transpose %[[KT]] : tensor<16x16xf16> -> tensor<16x16xf16>
// CHECK: %[[DQT:.*]] = fa.pv %[[KTR]], %[[DS16]], %{{.*}} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
// CHECK: fa.accumulate_rows %[[DQT]] into %[[BUF]][%{{.*}}, %[[HEAD:.*]], %[[QSTART:.*]]] rows(%[[C16]]) {transposed} : tensor<16x16xf32>, memref<?x4x?x16xf32>
// CHECK: scf.yield
// CHECK: %[[SUMS:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<?x4x?x16xf32> to tensor<?x4x?x16xf32>
// CHECK: scf.forall ({{.*}}) shared_outs(%[[OUT:.*]] = %[[DQ0]])
// CHECK: %[[TILE:.*]] = fa.read_rows %[[SUMS]][%{{.*}}, %{{.*}}, %{{.*}}] rows(%c32{{(_[0-9]+)?}}) : tensor<?x4x?x16xf32> -> tensor<32x16xf32>
// CHECK: %[[DQ:.*]] = arith.truncf %[[TILE]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK: tensor.extract_slice %[[DQ]]
// CHECK: tensor.parallel_insert_slice {{.*}} into %[[OUT]]
// CHECK-NOT: fa.qk
// CHECK: return
//     rotate-query-blocks=on leaves a causal nest's Q ranges alone: they
//     start on each K/V block's diagonal, staggered already.
// ROTATE-LABEL: func @gqa_causal
// ROTATE: scf.for %[[STEP:[^ ]*]] =
// ROTATE: %[[QB:.*]] = arith.remui %[[STEP]], %{{.*}} : index
// ROTATE-NEXT: %{{.*}} = arith.constant 32 : index
// ROTATE-NEXT: arith.muli %[[QB]], %{{.*}} : index
// ROTATE: fa.accumulate_rows
// ROTATE-NOT: arith.remui
// ROTATE: return

// Query tiles (64) that do not divide the D nest's blocks (32) would
// straddle the padded end: D and the buffer keep Nq rows, and each tile
// adds its valid rows only.
// UNPADDED-LABEL: func @gqa_causal
// UNPADDED-SAME: %{{[^:]*}}: tensor<2x4x?x16xf16>, %{{[^:]*}}: tensor<2x2x?x16xf16>, %{{[^:]*}}: tensor<2x2x?x16xf16>, %{{[^:]*}}: tensor<2x4x?x16xf16>, %[[DO:[^:]*]]: tensor<2x4x?x16xf16>
// UNPADDED: %[[NQ:.*]] = tensor.dim %[[DO]]
// UNPADDED: tensor.empty(%{{.*}}, %[[NQ]]) : tensor<?x4x?xf32>
// UNPADDED: tensor.empty(%{{.*}}, %[[NQ]]) : tensor<?x4x?x16xf32>
// UNPADDED: fa.accumulate_rows {{.*}} rows(%{{[0-9]+}}) : tensor<64x16xf32>
// UNPADDED: fa.read_rows {{.*}} rows(%{{[0-9]+}}) : tensor<?x4x?x16xf32> -> tensor<32x16xf32>

// Head dim 16 is not a multiple of 64: dq=auto keeps the deterministic
// Q-outer dQ nest (no buffer).
// AUTO-LABEL: func @gqa_causal
// AUTO-NOT: fa.accumulate_rows
// AUTO-NOT: bufferization.to_buffer
// AUTO: return
// DET-LABEL: func @gqa_causal
// DET-NOT: fa.accumulate_rows
// DET: return
func.func @gqa_causal(%q: tensor<2x4x?x16xf16>, %k: tensor<2x2x?x16xf16>, %v: tensor<2x2x?x16xf16>,
                      %o: tensor<2x4x?x16xf16>, %do: tensor<2x4x?x16xf16>, %lse: tensor<2x4x?xf32>,
                      %dq0: tensor<2x4x?x16xf16>, %dk0: tensor<2x2x?x16xf16>, %dv0: tensor<2x2x?x16xf16>)
    -> (tensor<2x4x?x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<2x4x?x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>,
                                   tensor<2x4x?x16xf16>, tensor<2x4x?x16xf16>, tensor<2x4x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<2x4x?x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>) causal
      -> tensor<2x4x?x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>
  return %0#0, %0#1, %0#2 : tensor<2x4x?x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>
}

// -----

// Head dim 128: dq=atomic adds dQ^T into the buffer from the dK/dV nest;
// dq=deterministic and dq=auto build the Q-outer nest (S and dP
// recomputed: two more fa.qk), which at this head dim runs faster on the
// GPU with the swizzled tiles --fa-map-warps gives it.
// ATOMIC-LABEL: func @mha_128
// ATOMIC: fa.row_dot
// ATOMIC: bufferization.to_buffer
// ATOMIC-COUNT-2: fa.qk
// ATOMIC: fa.transpose {{.*}} : tensor<64x128xf16> -> tensor<128x64xf16>
// ATOMIC: fa.pv {{.*}} : tensor<128x64xf16>, tensor<64x32xf16>, tensor<128x32xf32>
// ATOMIC: fa.accumulate_rows {{.*}} {transposed} : tensor<128x32xf32>, memref<?x8x?x128xf32>
// ATOMIC-NOT: fa.qk
// ATOMIC: return
// ROTATE-LABEL: func @mha_128
// ROTATE: scf.forall (%{{.*}}, %{{.*}}, %[[KVB:.*]]) in
// ROTATE: scf.for %[[STEP:[^ ]*]] =
// ROTATE: %[[INHEAD:.*]] = arith.remui %[[STEP]], %[[BLOCKS:.*]] : index
// ROTATE-NEXT: %[[SHIFTED:.*]] = arith.addi %[[INHEAD]], %[[KVB]] : index
// ROTATE-NEXT: arith.remui %[[SHIFTED]], %[[BLOCKS]] : index
// ROTATE: fa.accumulate_rows {{.*}} {transposed}
// NO-ROTATE-LABEL: func @mha_128
// NO-ROTATE: scf.for %[[STEP:[^ ]*]] =
// NO-ROTATE: %[[QB:.*]] = arith.remui %[[STEP]], %{{.*}} : index
// NO-ROTATE-NEXT: %{{.*}} = arith.constant 64 : index
// NO-ROTATE-NEXT: arith.muli %[[QB]], %{{.*}} : index
// NO-ROTATE: fa.accumulate_rows
// AUTO-LABEL: func @mha_128
// AUTO-NOT: fa.accumulate_rows
// AUTO-COUNT-4: fa.qk
// AUTO-NOT: fa.qk
// AUTO: return
// DET-LABEL: func @mha_128
// DET-NOT: fa.accumulate_rows
// DET-COUNT-4: fa.qk
// DET-NOT: fa.qk
// DET: return
//     On Hopper (chip=sm_90, sm_90a) auto takes the atomic form on
//     FlashAttention-2's d = 128 tiles: 128 keys by 64 query columns in
//     the dK/dV nest, which records the [4, 2] warp grid they are sized for
//     (fa.dkdv_groups, for --fa-map-warps). Its 64-row query tiles give
//     4 warps 16 rows each: dQ = dS K is a tile of query rows (the
//     transpose of dS^T times the K tile), added into the buffer by rows.
//     Without a mask every K/V block's Q range starts at block 0, and on
//     the grid (rotate-query-blocks=auto) K/V block j (the forall's third
//     index) walks it from Q block j on, wrapping around: the thread blocks
//     of a head add into different dQ rows at a time.
// HOPPER-LABEL: func @mha_128
// HOPPER: fa.row_dot
// HOPPER: %{{.*}} = bufferization.to_buffer
// HOPPER: scf.forall (%{{.*}}, %{{.*}}, %[[KVB:.*]]) in
// HOPPER: %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c64{{(_[0-9]+)?}} : index
// HOPPER: scf.for %[[STEP:[^ ]*]] =
// HOPPER: %[[INHEAD:.*]] = arith.remui %[[STEP]], %[[BLOCKS]] : index
// HOPPER-NEXT: %[[SHIFTED:.*]] = arith.addi %[[INHEAD]], %[[KVB]] : index
// HOPPER-NEXT: %[[QB:.*]] = arith.remui %[[SHIFTED]], %[[BLOCKS]] : index
// HOPPER: arith.muli %[[QB]], %c64{{(_[0-9]+)?}} : index
// HOPPER: fa.qk {{.*}} : tensor<128x128xf16>, tensor<64x128xf16> -> tensor<128x64xf32>
// HOPPER: fa.score_grad
// HOPPER: %[[DST:.*]] = arith.truncf %{{.*}} : tensor<128x64xf32> to tensor<128x64xf16>
// HOPPER: %[[KEYS:.*]] = fa.pv %[[DST]], %{{.*}}, %{{.*}} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
// HOPPER: %[[DS:.*]] = fa.transpose %[[DST]] : tensor<128x64xf16> -> tensor<64x128xf16>
// HOPPER: %[[DQ:.*]] = fa.pv %[[DS]], %[[K:.*]], %{{.*}} : tensor<64x128xf16>, tensor<128x128xf16>, tensor<64x128xf32>
// HOPPER: fa.accumulate_rows %[[DQ]] into %{{.*}} rows(%c64{{(_[0-9]+)?}}) : tensor<64x128xf32>, memref<?x8x?x128xf32>
// HOPPER: } {fa.dkdv_groups = 2 : i64}
// HOPPER-NOT: fa.qk
// HOPPER: return
func.func @mha_128(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                   %o: tensor<?x8x?x128xf16>, %do: tensor<?x8x?x128xf16>, %lse: tensor<?x8x?xf32>,
                   %dq0: tensor<?x8x?x128xf16>, %dk0: tensor<?x8x?x128xf16>, %dv0: tensor<?x8x?x128xf16>)
    -> (tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>,
                                   tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>)
      -> tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
  return %0#0, %0#1, %0#2 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
}

// -----

// Head dim 64: dq=auto is the atomic form, and its dK/dV nest takes 128
// keys by 32 query columns (no dQ nest shares block-n with it).
// AUTO-LABEL: func @mha_64
// AUTO: bufferization.to_buffer
// AUTO: fa.qk {{.*}} : tensor<128x64xbf16>, tensor<32x64xbf16> -> tensor<128x32xf32>
// AUTO: fa.accumulate_rows {{.*}} {transposed} : tensor<64x32xf32>, memref<?x8x?x64xf32>
// AUTO-NOT: fa.qk
// AUTO: return
// DET-LABEL: func @mha_64
// DET-NOT: fa.accumulate_rows
// DET: return
// HOPPER-LABEL: func @mha_64
// HOPPER: fa.qk {{.*}} : tensor<128x64xbf16>, tensor<32x64xbf16> -> tensor<128x32xf32>
// HOPPER-NOT: fa.dkdv_groups
// HOPPER: return
func.func @mha_64(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x8x?x64xbf16>, %v: tensor<?x8x?x64xbf16>,
                  %o: tensor<?x8x?x64xbf16>, %do: tensor<?x8x?x64xbf16>, %lse: tensor<?x8x?xf32>,
                  %dq0: tensor<?x8x?x64xbf16>, %dk0: tensor<?x8x?x64xbf16>, %dv0: tensor<?x8x?x64xbf16>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
                                   tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>) causal
      -> tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>
  return %0#0, %0#1, %0#2 : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>
}

// -----

// Head dim 256, a multiple of 64 but above 128: dq=auto is deterministic
// (the atomic form's dQ^T registers would make the dK/dV kernel spill
// more).
// AUTO-LABEL: func @mha_256
// AUTO-NOT: fa.accumulate_rows
// AUTO: return
// DET-LABEL: func @mha_256
// DET-NOT: fa.accumulate_rows
// DET: return
// CHECK-LABEL: func @mha_256
// CHECK: fa.accumulate_rows
func.func @mha_256(%q: tensor<?x2x?x256xbf16>, %k: tensor<?x2x?x256xbf16>, %v: tensor<?x2x?x256xbf16>,
                   %o: tensor<?x2x?x256xbf16>, %do: tensor<?x2x?x256xbf16>, %lse: tensor<?x2x?xf32>,
                   %dq0: tensor<?x2x?x256xbf16>, %dk0: tensor<?x2x?x256xbf16>, %dv0: tensor<?x2x?x256xbf16>)
    -> (tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>,
                                   tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>)
      -> tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>
  return %0#0, %0#1, %0#2 : tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16>
}

// -----

// With a soft cap the warp-grid tiles spill (the capped scores stay live
// for dS): on Hopper too, dq=auto keeps the deterministic form at d = 128.
// HOPPER-LABEL: func @softcap_128
// HOPPER-NOT: fa.accumulate_rows
// HOPPER-NOT: fa.dkdv_groups
// HOPPER: return
func.func @softcap_128(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                       %o: tensor<?x8x?x128xf16>, %do: tensor<?x8x?x128xf16>, %lse: tensor<?x8x?xf32>,
                       %dq0: tensor<?x8x?x128xf16>, %dk0: tensor<?x8x?x128xf16>, %dv0: tensor<?x8x?x128xf16>)
    -> (tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>,
                                   tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) softcap(30.0)
      -> tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
  return %0#0, %0#1, %0#2 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
}

// -----

// A window without a causal mask keeps its bounds live through the dK/dV
// loop (the grid kernel spilled 4 bytes at window(512, -1)): deterministic;
// with a causal mask, the grid.
// HOPPER-LABEL: func @window_128
// HOPPER-NOT: fa.accumulate_rows
// HOPPER: return
// HOPPER-LABEL: func @causal_window_128
// HOPPER: fa.accumulate_rows
// HOPPER: } {fa.dkdv_groups = 2 : i64}
// HOPPER: return
func.func @window_128(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                      %o: tensor<?x8x?x128xf16>, %do: tensor<?x8x?x128xf16>, %lse: tensor<?x8x?xf32>,
                      %dq0: tensor<?x8x?x128xf16>, %dk0: tensor<?x8x?x128xf16>, %dv0: tensor<?x8x?x128xf16>)
    -> (tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>,
                                   tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) window(512, -1)
      -> tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
  return %0#0, %0#1, %0#2 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
}
func.func @causal_window_128(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                             %o: tensor<?x8x?x128xf16>, %do: tensor<?x8x?x128xf16>, %lse: tensor<?x8x?xf32>,
                             %dq0: tensor<?x8x?x128xf16>, %dk0: tensor<?x8x?x128xf16>, %dv0: tensor<?x8x?x128xf16>)
    -> (tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>,
                                   tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>) causal window(1024, 0)
      -> tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
  return %0#0, %0#1, %0#2 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>
}

// BAD-CHIP: error: fa-tile-backward: option chip must be one of
