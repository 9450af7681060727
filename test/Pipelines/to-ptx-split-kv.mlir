// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=4 output-dir=%t" -o /dev/null && FileCheck %s --input-file=%t/decode_kernel.json
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=4 output-dir=%t" -o /dev/null && ls %t | FileCheck %s --check-prefix=FILES
// RUN: fa-opt %s --fa-to-ptx="splits=4" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=L3
// RUN: fa-opt %s --fa-to-ptx="splits=1" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// RUN: not fa-opt %s --fa-to-ptx="splits=-2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: fa-opt %s --fa-to-ptx="splits=4 merge-dv=32" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=MERGE32
// RUN: not fa-opt %s --fa-to-ptx="splits=4 merge-dv=48" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-MERGE
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=0 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=RUNTIME --input-file=%t/decode_kernel.json
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=0 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=RUNTIME-PTX --input-file=%t/decode_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=0 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=MERGE-PTX --input-file=%t/decode_kernel_1.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="splits=0 merge-split-warps=1 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=ONE-GROUP --input-file=%t/decode_kernel.json
// RUN: not fa-opt %s --fa-to-ptx="splits=0 merge-split-warps=-2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-GROUPS
// RUN: sed -e 's/x1x128/x?x128/g; s/x1xf32/x?xf32/g' %s | fa-opt --fa-to-ptx="splits=2" --mlir-print-ir-after=fa-tile-q-outer -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREFILL
// RUN: sed -e 's/x1x128/x?x128/g; s/x1xf32/x?xf32/g' %s | fa-opt --fa-to-ptx="splits=1" --mlir-print-ir-after=fa-tile-q-outer -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREFILL-NOSPLIT

// Split-KV through --fa-to-ptx: a decode step (one static query, GQA 32:4,
// d = 128, bf16) in 4 chunks of keys. The launch plan has two kernels in
// order, the attention kernel writing f32 partial results into two
// workspaces the runtime allocates ([4 B, 32, 1, 128] and [4 B, 32, 1], in
// the sizes of q) and the merge kernel reading them and writing o and lse.
// The caller passes q, k, v, o and lse only.

// FILES: decode_kernel.json
// FILES-NEXT: decode_kernel.ptx
// FILES-NEXT: decode_kernel_1.ptx

// CHECK: "kernels": [
// CHECK:   "block": [
// CHECK-NEXT: 128,
// CHECK:   "grid": [
//     Q blocks of a group x 4 splits, the 4 K/V heads, the batch.
// CHECK:       "args": [
// CHECK:             8,
// CHECK-NEXT:        16
// CHECK:         "op": "ceildivui"
// CHECK:         4
// CHECK:       "op": "mul"
// CHECK:     4,
// CHECK:       "dim": [
// CHECK-NEXT:    "q",
// CHECK-NEXT:    0
// CHECK:   "name": "decode_kernel",
// CHECK:   "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "partial_o",
// CHECK-NEXT: "partial_lse",
// CHECK-NEXT: "softmax_scale_log2"
//     The merge: 32 heads in a tile of 2 warps and 8 of the 128 columns
//     (16 column tiles along x), per (position, batch).
// CHECK:   "block": [
// CHECK-NEXT: 64,
// CHECK:   "name": "decode_kernel_1",
// CHECK:   "params": [
// CHECK-NEXT: "partial_o",
// CHECK-NEXT: "partial_lse",
// CHECK-NEXT: "o",
// CHECK-NEXT: "lse"
// CHECK: "tensors": [
// CHECK-NOT: partial
// CHECK: "name": "q",
// CHECK: "name": "k",
// CHECK: "name": "v",
// CHECK: "name": "o",
// CHECK-NEXT: "output": true,
// CHECK: "name": "lse",
// CHECK-NEXT: "output": true,
// CHECK: "workspaces": [
// CHECK:   "dtype": "f32",
// CHECK:   "name": "partial_o",
// CHECK:   "shape": [
// CHECK:         "dim": [
// CHECK-NEXT:      "q",
// CHECK-NEXT:      0
// CHECK:         4
// CHECK:       "op": "mul"
// CHECK:     32,
// CHECK-NEXT: 1,
// CHECK-NEXT: 128
// CHECK:   "name": "partial_lse",

// Before the GPU lowering, the split attention nest (one warp in 4 key
// groups, fa.key_groups) stores f32 partials
// (at batch s * B + b) and the merge is its own loop nest mapped to the grid,
// its tiles 8 columns wide.
// L3-NOT: fa.kv_stages
// L3: scf.forall
// L3: fa.finalize {{.*}} -> tensor<16x128xf32, #acc_w1x4>
// L3: } {fa.key_groups = 4 : i64, fa.split_kv, mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
// L3: scf.forall
// L3: fa.combine_splits {{.*}} : tensor<4x32x8xf32>, tensor<4x32xf32> -> tensor<32x8xbf16, #acc_w2>, tensor<32xf32, #rows_w2>
// L3: } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}

// merge-dv sets the merge's tile width (--fa-tile-combine block-dv).
// MERGE32: fa.finalize
// MERGE32: %[[TILES:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// MERGE32: scf.forall (%{{.*}}, %[[X:.*]], %{{.*}}) in (%{{.*}}, %[[TILES]], 1)
// MERGE32: arith.remui %[[X]], %c4{{.*}} : index
// MERGE32: fa.combine_splits {{.*}} : tensor<4x32x32xf32>, tensor<4x32xf32> -> tensor<32x32xbf16, #acc_w2>, tensor<32xf32, #rows_w2>
// BAD-MERGE: error: fa-tile-combine: block-dv (48) must divide the value head dim, got 'tensor<?x32x1x128xbf16>'

// Unsplit, the decode kernel has the same 4 key groups and no third stage
// of its 128-key blocks on sm_80 (fa.kv_stages absent: 2).
// NOSPLIT-NOT: fa.combine_splits
// NOSPLIT: } {fa.key_groups = 4 : i64, mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
// NOSPLIT-NOT: fa.combine_splits

// BAD: fa-split-kv: option splits must be in [0, 1024] (0: a run-time count), got -2

// splits=0: the count is the plan's integer input num_splits (no compiled
// value), which the attention kernel's grid and the workspaces' shapes name
// (as max(S, 1)); the kernels take what the host computes from it: the
// chunk of keys, ceil(ceil(Nk / 64) / S) * 64 (index0), and for the merge
// S and B = [S * B] / S (index1, index2), which the runtime computes.
// RUNTIME: "kernels": [
// RUNTIME:   "grid": [
// RUNTIME:         "op": "ceildivui"
// RUNTIME:             "scalar": "num_splits"
// RUNTIME:           "op": "maxsi"
// RUNTIME:       "op": "mul"
// RUNTIME:   "name": "decode_kernel",
// RUNTIME:   "params": [
// RUNTIME-NEXT: "q",
// RUNTIME-NEXT: "k",
// RUNTIME-NEXT: "v",
// RUNTIME-NEXT: "partial_o",
// RUNTIME-NEXT: "partial_lse",
// RUNTIME-NEXT: "softmax_scale_log2",
// RUNTIME-NEXT: "index0"
//     The merge: 32-row tiles on 2 warps, 4 groups of them (merge-split-warps
//     = 0 with a run-time count), which exchange 4 x 6 values x 64 threads
//     of f32 through shared memory.
// RUNTIME:   "block": [
// RUNTIME-NEXT: 256,
// RUNTIME:   "dynamic_shared_memory": 6144,
// RUNTIME:   "name": "decode_kernel_1",
// RUNTIME:   "params": [
// RUNTIME-NEXT: "partial_o",
// RUNTIME-NEXT: "partial_lse",
// RUNTIME-NEXT: "o",
// RUNTIME-NEXT: "lse",
// RUNTIME-NEXT: "index1",
// RUNTIME-NEXT: "index2"
// RUNTIME: "scalars": [
// RUNTIME:   "dtype": "index",
// RUNTIME-NEXT: "name": "num_splits",
// RUNTIME-NEXT: "value": null
// RUNTIME:   "dtype": "f32",
// RUNTIME-NEXT: "name": "softmax_scale_log2",
// RUNTIME:   "dtype": "index",
// RUNTIME-NEXT: "name": "index0",
// RUNTIME-NEXT: "value": {
// RUNTIME:                 "dim": [
// RUNTIME-NEXT:              "k",
// RUNTIME-NEXT:              2
// RUNTIME:             128
// RUNTIME:             "op": "ceildivui"
// RUNTIME:                 "scalar": "num_splits"
// RUNTIME:             "op": "maxsi"
// RUNTIME:           "op": "ceildivui"
// RUNTIME:         128
// RUNTIME:       "op": "mul"
// RUNTIME:   "name": "index1",
// RUNTIME:   "name": "index2",
// RUNTIME: "workspaces": [
// RUNTIME:   "name": "partial_o",
// RUNTIME:   "shape": [
// RUNTIME:           "dim": [
// RUNTIME-NEXT:        "q",
// RUNTIME-NEXT:        0
// RUNTIME:             "scalar": "num_splits"
// RUNTIME:           "op": "maxsi"
// RUNTIME:       "op": "mul"
// RUNTIME:     32,
// The chunk arrives as a 32-bit kernel parameter (index-bitwidth 32): no
// division in the kernel.
// ONE-GROUP: "name": "decode_kernel",
// ONE-GROUP: "block": [
// ONE-GROUP-NEXT: 64,
// ONE-GROUP: "dynamic_shared_memory": 1024,
// ONE-GROUP: "name": "decode_kernel_1",
// BAD-GROUPS: fa-tile-combine: option split-warps must be 0 (pick from the split count) or a number of warp groups per tile, got -2

// The merge kernel's two exchanges between the groups: barrier, each
// thread's values into shared memory, barrier, every group's values back.
// MERGE-PTX: .entry decode_kernel_1(
// MERGE-PTX: bar.sync 0;
// MERGE-PTX: st.shared.b32
// MERGE-PTX: bar.sync 0;
// MERGE-PTX: ld.shared.b32
// MERGE-PTX: max.f32
// MERGE-PTX: bar.sync 0;
// MERGE-PTX: st.shared.b32
// MERGE-PTX: bar.sync 0;
// MERGE-PTX: ld.shared.b32
// MERGE-PTX: add.rn.f32

// RUNTIME-PTX: .entry decode_kernel(
// RUNTIME-PTX: .param .f32 decode_kernel_param_{{[0-9]+}},
// RUNTIME-PTX-NEXT: .param .u32 decode_kernel_param_{{[0-9]+}}
// RUNTIME-PTX-NEXT: )
// RUNTIME-PTX-NOT: div.u32

// With a dynamic Nq at d = 128 the split kernel takes the table's window
// K/V block (32 keys; the chunk bounds stay live like a window's), the
// unsplit one its 64.
// PREFILL: fa.qk {{.*}} -> tensor<128x32xf32>
// PREFILL-NOSPLIT: fa.qk {{.*}} -> tensor<128x64xf32>

func.func @decode(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>,
                  %o: tensor<?x32x1x128xbf16>, %lse: tensor<?x32x1xf32>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>)
                      outs(%o, %lse : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) causal
                      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %r#0, %r#1 : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}
