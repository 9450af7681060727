// RUN: fa-opt %s --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64" | fa-opt --fa-map-warps | FileCheck %s
// RUN: fa-opt %s --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64" | fa-opt --fa-map-warps="num-warps=2" | FileCheck %s --check-prefix=W2
// RUN: fa-opt %s --fa-tile-backward="block-m=32 block-n=32" | not fa-opt --fa-map-warps 2>&1 | FileCheck %s --check-prefix=BAD-ROWS
// RUN: sed -e 's/x16xf16/x40xf16/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64" | not fa-opt --fa-map-warps 2>&1 | FileCheck %s --check-prefix=D40
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=16 dq=atomic" | fa-opt --fa-map-warps | FileCheck %s --check-prefix=ATOMIC
// RUN: fa-opt %s --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=16 dq=atomic" | not fa-opt --fa-map-warps="num-warps=4" 2>&1 | FileCheck %s --check-prefix=ATOMIC-ROWS
// RUN: sed -e 's/x16xf16/x16xf32/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64" | not fa-opt --fa-map-warps 2>&1 | FileCheck %s --check-prefix=F32
// RUN: fa-opt %s --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64" | fa-opt --fa-map-warps="query-home=shared" | FileCheck %s --check-prefix=HOME-SHARED
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=16 dq=atomic" | fa-opt --fa-map-warps="swizzle-shared=on" | FileCheck %s --check-prefix=SWIZZLED-ATOMIC
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64 dq=deterministic" | fa-opt --fa-map-warps="swizzle-shared=on" | FileCheck %s --check-prefix=SWIZZLED-DET
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="block-m=64 block-n=64 dkdv-block-m=64 dq=deterministic" | fa-opt --fa-map-warps="swizzle-shared=off" | FileCheck %s --check-prefix=PADDED
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="dq=deterministic" | fa-opt --fa-map-warps="chip=sm_80" | FileCheck %s --check-prefix=PADDED
// RUN: sed -e 's/x16xf16/x64xf16/g' %s | fa-opt --fa-tile-backward="dq=deterministic" | fa-opt --fa-map-warps="chip=sm_90" | FileCheck %s --check-prefix=AUTO-SWIZZLED
// RUN: sed -e 's/x16xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="dq=deterministic" | fa-opt --fa-map-warps | FileCheck %s --check-prefix=AUTO-SWIZZLED
// RUN: sed -e 's/x16xf16/x128xf16/g' %s | fa-opt --fa-tile-backward="dq=atomic" | fa-opt --fa-map-warps="chip=sm_90" | FileCheck %s --check-prefix=PADDED
// RUN: sed -e 's/x16xf16/x256xf16/g' %s | fa-opt --fa-tile-backward="dq=deterministic" | fa-opt --fa-map-warps="chip=sm_90 num-warps=0" | FileCheck %s --check-prefix=PADDED

// --fa-map-warps on the three nests of --fa-tile-backward (input: that
// pass's output). Warps own whole rows of every tile of a nest: query rows
// in the D and dQ nests, key rows in the dK/dV nest (transposed tiles). The
// matmul tiles loaded from memory are shared; the tiles loaded once per
// thread block (K and V in the dK/dV nest, Q and dO in the dQ nest) become
// A-operand registers; P^T, dS^T, dS become A operands through their
// accumulators; LSE and D and fa.row_dot's operands keep no layout.

// CHECK-DAG: #[[ACC:.*]] = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #[[OPA:.*]] = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #[[ROWS:.*]] = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #[[SH:.*]] = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-LABEL: func @gqa_causal
//     1. D: the rows vector held by warps, its operands in memory.
// CHECK: scf.forall
// CHECK: fa.row_dot %{{.*}}, %{{.*}} : tensor<64x16xf16>, tensor<64x16xf16> -> tensor<64xf32, #[[ROWS]]>
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
//     2. dK/dV.
// CHECK: scf.forall
// CHECK: %[[K:.*]] = tensor.pad
// CHECK: } : tensor<?x16xf16> to tensor<64x16xf16, #[[SH]]>
// CHECK: %[[KA:.*]] = fa.convert_layout %[[K]] : tensor<64x16xf16, #[[SH]]> -> tensor<64x16xf16, #[[OPA]]>
// CHECK: %[[V:.*]] = tensor.pad
// CHECK: %[[VA:.*]] = fa.convert_layout %[[V]]
// CHECK: scf.for {{.*}} -> (tensor<64x16xf32, #[[ACC]]>, tensor<64x16xf32, #[[ACC]]>)
// CHECK: } : tensor<?xf32> to tensor<64xf32>
// CHECK: %[[ST:.*]] = fa.qk %[[KA]], %[[Q:.*]] : tensor<64x16xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]> -> tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[STM:.*]] = fa.mask %[[ST]]{{.*}} {transposed} : tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[PT:.*]] = fa.probs_from_lse %[[STM]], %{{.*}} scale(%{{.*}}) {transposed} : tensor<64x64xf32, #[[ACC]]>, tensor<64xf32>
// CHECK: %[[PT16:.*]] = arith.truncf %[[PT]] : tensor<64x64xf32, #[[ACC]]> to tensor<64x64xf16, #[[ACC]]>
// CHECK: %[[PTA:.*]] = fa.convert_layout %[[PT16]] : tensor<64x64xf16, #[[ACC]]> -> tensor<64x64xf16, #[[OPA]]>
// CHECK: fa.pv %[[PTA]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]>, tensor<64x16xf32, #[[ACC]]>
// CHECK: fa.qk %[[VA]], %{{.*}} : tensor<64x16xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]>
// CHECK: fa.score_grad {{.*}} {transposed} : tensor<64x64xf32, #[[ACC]]>, tensor<64xf32>
// CHECK: fa.pv %{{.*}}, %[[Q]], %{{.*}} : tensor<64x64xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]>, tensor<64x16xf32, #[[ACC]]>
// CHECK: arith.truncf %{{.*}} : tensor<64x16xf32, #[[ACC]]> to tensor<64x16xf16, #[[ACC]]>
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
//     3. dQ: Q and dO in registers, K and V shared.
// CHECK: scf.forall
// CHECK: fa.convert_layout %{{.*}} : tensor<64x16xf16, #[[SH]]> -> tensor<64x16xf16, #[[OPA]]>
// CHECK: fa.convert_layout %{{.*}} : tensor<64x16xf16, #[[SH]]> -> tensor<64x16xf16, #[[OPA]]>
// CHECK: scf.for {{.*}} -> (tensor<64x16xf32, #[[ACC]]>)
// CHECK: fa.qk %{{.*}}, %{{.*}} : tensor<64x16xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]> -> tensor<64x64xf32, #[[ACC]]>
// CHECK: fa.probs_from_lse %{{.*}}, %{{.*}} scale(%{{.*}}) : tensor<64x64xf32, #[[ACC]]>, tensor<64xf32>
// CHECK: fa.score_grad
// CHECK: fa.pv {{.*}} : tensor<64x64xf16, #[[OPA]]>, tensor<64x16xf16, #[[SH]]>, tensor<64x16xf32, #[[ACC]]>
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}

// swizzle-shared=on: the tiles a nest loads inside its loops (Q and dO in
// the dK/dV nest, K and V in the dQ nest: a new tile every step) take the
// swizzled shared layout; the tiles loaded once per thread block (K, V in
// the dK/dV nest, also the transposed view of K) and dS^T, written from
// registers, stay padded.
// SWIZZLED-ATOMIC-DAG: #[[SH:.*]] = #fa.block_shared<atom = #fa.mma_sync>
// SWIZZLED-ATOMIC-DAG: #[[SWZ:.*]] = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// SWIZZLED-ATOMIC-LABEL: func.func @gqa_causal
// SWIZZLED-ATOMIC: %[[K:.*]] = tensor.pad
// SWIZZLED-ATOMIC: } : tensor<?x64xf16> to tensor<64x64xf16, #[[SH]]>
// SWIZZLED-ATOMIC: scf.for
// SWIZZLED-ATOMIC: %[[Q:.*]] = tensor.pad
// SWIZZLED-ATOMIC: } : tensor<?x64xf16> to tensor<16x64xf16, #[[SWZ]]>
// SWIZZLED-ATOMIC: %[[DO:.*]] = tensor.pad
// SWIZZLED-ATOMIC: } : tensor<?x64xf16> to tensor<16x64xf16, #[[SWZ]]>
// SWIZZLED-ATOMIC: fa.qk %{{.*}}, %[[Q]] : tensor<64x64xf16, #opA_w4>, tensor<16x64xf16, #[[SWZ]]>
// SWIZZLED-ATOMIC: fa.pv %{{.*}}, %[[DO]], %{{.*}} : tensor<64x16xf16, #opA_w4>, tensor<16x64xf16, #[[SWZ]]>
// SWIZZLED-ATOMIC: fa.pv %{{.*}}, %[[Q]], %{{.*}} : tensor<64x16xf16, #opA_w4>, tensor<16x64xf16, #[[SWZ]]>
// SWIZZLED-ATOMIC: fa.transpose %[[K]] : tensor<64x64xf16, #[[SH]]>
// SWIZZLED-ATOMIC: fa.pv {{.*}} : tensor<64x64xf16, #shared_t>, tensor<64x16xf16, #[[SH]]>

// SWIZZLED-DET-DAG: #[[SH:.*]] = #fa.block_shared<atom = #fa.mma_sync>
// SWIZZLED-DET-DAG: #[[SWZ:.*]] = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// SWIZZLED-DET-LABEL: func.func @gqa_causal
//     The dK/dV nest: K and V loaded once, Q and dO every step.
// SWIZZLED-DET: fa.convert_layout %{{.*}} : tensor<64x64xf16, #[[SH]]> -> tensor<64x64xf16, #opA_w4>
// SWIZZLED-DET: scf.for
// SWIZZLED-DET: fa.qk %{{.*}}, %{{.*}} : tensor<64x64xf16, #opA_w4>, tensor<64x64xf16, #[[SWZ]]>
// SWIZZLED-DET: } {mapping
//     The dQ nest: Q and dO loaded once, K and V every step.
// SWIZZLED-DET: fa.convert_layout %{{.*}} : tensor<64x64xf16, #[[SH]]> -> tensor<64x64xf16, #opA_w4>
// SWIZZLED-DET: fa.convert_layout %{{.*}} : tensor<64x64xf16, #[[SH]]> -> tensor<64x64xf16, #opA_w4>
// SWIZZLED-DET: scf.for
// SWIZZLED-DET: fa.qk %{{.*}}, %[[K:.*]] : tensor<64x64xf16, #opA_w4>, tensor<64x64xf16, #[[SWZ]]>
// SWIZZLED-DET: fa.qk %{{.*}}, %[[V:.*]] : tensor<64x64xf16, #opA_w4>, tensor<64x64xf16, #[[SWZ]]>
// SWIZZLED-DET: fa.pv %{{.*}}, %[[K]], %{{.*}} : tensor<64x64xf16, #opA_w4>, tensor<64x64xf16, #[[SWZ]]>

// swizzle-shared=auto (the default) swizzles the streamed tiles of the
// deterministic form's nests up to head dim 128 (at 64 only for sm_90,
// whose ptxas keeps the causal dQ kernel spill-free with them), never
// those of a dK/dV nest that adds into the atomic dQ's buffer (measured
// slower), nor above head dim 128 (more spills). Both nests' streamed
// tiles, every step:
// AUTO-SWIZZLED: #[[SWZ:.*]] = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// AUTO-SWIZZLED-LABEL: func.func @gqa_causal
// AUTO-SWIZZLED: scf.for %
// AUTO-SWIZZLED: fa.qk %{{.*}}, %{{.*}} : tensor<64x{{[0-9]+}}xf16, #{{[a-zA-Z_0-9]+}}>, tensor<{{[0-9x]+}}xf16, #[[SWZ]]>
// AUTO-SWIZZLED: } {mapping
// AUTO-SWIZZLED: scf.for %
// AUTO-SWIZZLED: fa.qk %{{.*}}, %{{.*}} : tensor<64x{{[0-9]+}}xf16, #{{[a-zA-Z_0-9]+}}>, tensor<{{[0-9x]+}}xf16, #[[SWZ]]>
// AUTO-SWIZZLED: } {mapping

// swizzle-shared=off, and auto where its rule says padded:
// PADDED-NOT: swizzled = true
// PADDED-LABEL: func.func @gqa_causal
// PADDED-NOT: _swz

// W2: fa.row_dot {{.*}} -> tensor<64xf32, #rows_w2>
// W2: fa.qk {{.*}} -> tensor<64x64xf32, #acc_w2>

// The atomic dQ (head dim 64): the D nest's zero rows of the buffer are an
// acc constant; dS^T, an A operand of dK += dS^T Q, is also converted into a
// shared tile, the B operand of dQ^T = K^T dS^T, whose A operand is the
// transposed view of the shared K tile (K itself stays in A registers for
// S^T = K Q^T); the dQ^T accumulator is an acc constant; the rounding nest
// reads the f32 sums into acc fragments, by rows (a transposed writer has
// no fragment order a reader could share).
// ATOMIC: #shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
// ATOMIC-LABEL: func.func @gqa_causal
// ATOMIC: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #acc_w4>
// ATOMIC: tensor.extract_slice %[[Z]]
// ATOMIC: %[[K:.*]] = tensor.pad
// ATOMIC: } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
// ATOMIC: fa.convert_layout %[[K]] : tensor<64x64xf16, #shared> -> tensor<64x64xf16, #opA_w4>
// ATOMIC: fa.score_grad
// ATOMIC-NEXT: %[[DS:.*]] = arith.truncf {{.*}} : tensor<64x16xf32, #acc_w4> to tensor<64x16xf16, #acc_w4>
// ATOMIC: %[[DSS:.*]] = fa.convert_layout %[[DS]] : tensor<64x16xf16, #acc_w4> -> tensor<64x16xf16, #shared>
// ATOMIC: %[[DSA:.*]] = fa.convert_layout %[[DS]] : tensor<64x16xf16, #acc_w4> -> tensor<64x16xf16, #opA_w4>
// ATOMIC: fa.pv %[[DSA]]
// ATOMIC: %[[KT:.*]] = fa.transpose %[[K]] : tensor<64x64xf16, #shared> -> tensor<64x64xf16, #shared_t>
// ATOMIC: %[[Z2:.*]] = arith.constant dense<0.000000e+00> : tensor<64x16xf32, #acc_w4>
// ATOMIC: %[[DQT:.*]] = fa.pv %[[KT]], %[[DSS]], %[[Z2]] : tensor<64x64xf16, #shared_t>, tensor<64x16xf16, #shared>, tensor<64x16xf32, #acc_w4>
// ATOMIC: fa.accumulate_rows %[[DQT]] into {{.*}} {transposed} : tensor<64x16xf32, #acc_w4>
// ATOMIC-NOT: fragment_order
// ATOMIC: %[[SUMS:.*]] = fa.read_rows {{.*}} : tensor<?x2x?x64xf32> -> tensor<64x64xf32, #acc_w4>
// ATOMIC-NEXT: arith.truncf %[[SUMS]] : tensor<64x64xf32, #acc_w4> to tensor<64x64xf16, #acc_w4>

// At head dim 16 the dQ^T tile has 16 rows: one warp's worth.
// ATOMIC-ROWS: error: fa-map-warps: the nest's tile 'tensor<16x16xf32>' has 16 rows, which must be a multiple of 16 * num-warps = 64: each warp owns whole 16-row tiles

// BAD-ROWS: error: fa-map-warps: the nest's tile 'tensor<32xf32>' has 32 rows, which must be a multiple of 16 * num-warps = 64: each warp owns whole 16-row tiles
// D40: error: fa-map-warps: tile 'tensor<64x40xf16>' must have sizes that are multiples of 16 (the backward's head dims and blocks; the atom's m16n8k16 tiles)
// F32: error: fa-map-warps: element type 'f32' has no GPU layout: the #fa.mma_sync atom takes f16 or bf16

func.func @gqa_causal(%q: tensor<1x2x?x16xf16>, %k: tensor<1x1x?x16xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x2x?x16xf16>, %do: tensor<1x2x?x16xf16>, %lse: tensor<1x2x?xf32>, %dq0: tensor<1x2x?x16xf16>, %dk0: tensor<1x1x?x16xf16>, %dv0: tensor<1x1x?x16xf16>) -> (tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>) {
  %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?xf32>) outs(%dq0, %dk0, %dv0 : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>) causal -> tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
  return %dq, %dk, %dv : tensor<1x2x?x16xf16>, tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
}

// query-home reaches the backward nests too: `shared` leaves K and V (dK/dV
// nest) and Q and dO (dQ nest) in shared memory, read by fa.qk directly
// (no fa.convert_layout to A-operand registers before the loops).
// HOME-SHARED-LABEL: func @gqa_causal
// HOME-SHARED: scf.forall
// HOME-SHARED: scf.forall
// HOME-SHARED-NOT: fa.convert_layout {{.*}}#shared{{.*}} -> {{.*}}#opA
// HOME-SHARED: scf.for
// HOME-SHARED: fa.qk %{{.*}}, %{{.*}} : tensor<64x16xf16, #shared>, tensor<64x16xf16, #shared> -> tensor<64x64xf32, #acc_w4>
// HOME-SHARED: scf.forall
// HOME-SHARED-NOT: fa.convert_layout {{.*}}#shared{{.*}} -> {{.*}}#opA
// HOME-SHARED: scf.for
// HOME-SHARED: fa.qk %{{.*}}, %{{.*}} : tensor<64x16xf16, #shared>, tensor<64x16xf16, #shared> -> tensor<64x64xf32, #acc_w4>
