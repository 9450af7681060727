// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/backward_kernel.json
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --input-file=%t/backward_kernel_1.ptx --check-prefix=ATOMS
// RUN: rm -rf %t.det && fa-opt %s --fa-to-ptx="output-dir=%t.det dq=deterministic" -o /dev/null
// RUN: FileCheck %s --input-file=%t.det/backward_kernel.json --check-prefix=DET
// RUN: fa-opt %s --fa-to-ptx --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=L3
// RUN: fa-opt %s --fa-to-ptx="block-m=128 block-n=32" --mlir-print-ir-after=fa-tile-backward -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not fa-opt %s --split-input-file --fa-to-ptx="dq=sometimes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-DQ
// RUN: not fa-opt %s --fa-to-ptx="splits=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-SPLITS
// RUN: rm -rf %t.grid && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t.grid chip=sm_90" -o /dev/null
// RUN: FileCheck %s --input-file=%t.grid/backward_kernel.json --check-prefix=GRID
// RUN: FileCheck %s --input-file=%t.grid/backward_kernel_1.ptx --check-prefix=GRID-ATOMS
// RUN: FileCheck %s --input-file=%t.grid/backward_kernel_2.ptx --check-prefix=GRID-SUMS
// RUN: sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="chip=sm_90" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=GRID-L3
// RUN: rm -rf %t.rows && sed -e 's/x64xbf16/x128xbf16/g' %s | fa-opt --fa-to-ptx="output-dir=%t.rows chip=sm_80" -o /dev/null
// RUN: FileCheck %s --input-file=%t.rows/backward_kernel.json --check-prefix=ROWS128

// Head dim 128 for Hopper (chip=sm_90): dq=auto's atomic form whose dK/dV
// kernel runs on a [4, 2] warp grid (--fa-tile-backward records it,
// --fa-map-warps applies it): 8 warps on 128-key blocks, Q/dO swizzled,
// P^T and dS^T in one shared tile (150 KB in all); for sm_80 the
// deterministic form on 4 warps (ROWS128).
// GRID: "name": "backward_kernel",
// GRID: "dq_accum"
// GRID: "block": [
// GRID-NEXT: 256,
// GRID: "dynamic_shared_memory": 153600,
// GRID-NEXT: "grid": [
// GRID-NEXT: {
// GRID-NEXT: "args": [
// GRID-NEXT: {
// GRID-NEXT: "dim": [
// GRID-NEXT: "k",
// GRID-NEXT: 2
// GRID-NEXT: ]
// GRID-NEXT: },
// GRID-NEXT: 128
// GRID: "name": "backward_kernel_1",
//     The rounding kernel runs on the dK/dV kernel's [4, 2] grid: it reads
//     the sums in that kernel's fragment order.
// GRID: "block": [
// GRID-NEXT: 256,
// GRID: "name": "backward_kernel_2",
// GRID-NEXT: "params": [
// GRID-NEXT: "dq_accum",
// GRID-NEXT: "dq"

//     The atomic dQ = dS K (64 queries x 128 columns) is on a [2, 4] grid of
//     its own (32 x 32 a warp: --fa-map-warps), and so is the rounding
//     kernel that reads it back.
// GRID-L3: fa.qk {{.*}} -> tensor<128x64xf32, #acc_w4x2_cols>
// GRID-L3: %[[DQ:.*]] = fa.pv {{.*}} : tensor<64x128xbf16, #shared_t>, tensor<128x128xbf16, #shared>, tensor<64x128xf32, #acc_w2x4_cols>
// GRID-L3-NEXT: fa.accumulate_rows %[[DQ]] {{.*}} {fragment_order} : tensor<64x128xf32, #acc_w2x4_cols>
// GRID-L3: fa.read_rows {{.*}} {fragment_order} : tensor<?x4x?x128xf32> -> tensor<64x128xf32, #acc_w2x4_cols>
//     dQ's 32 adds a thread makes per step are in fragment order: element i
//     of the 256 threads at i * 256 + t of the 64 x 128 block, 1024 bytes
//     apart (each warp's 32 adds of one i are 128 contiguous bytes), from
//     one base; the rounding kernel reads them back the same way.
// GRID-ATOMS: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE:rd[0-9]+]]], %r
// GRID-ATOMS-NEXT: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+1024], %r
// GRID-ATOMS-NEXT: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+2048], %r
// GRID-ATOMS-COUNT-29: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+{{[0-9]+}}], %r
// GRID-ATOMS-NOT: atom.global
// GRID-SUMS: ld.global.b32 %r{{[0-9]+}}, [%[[BASE:rd[0-9]+]]+1024];
// GRID-SUMS-NEXT: ld.global.b32 %r{{[0-9]+}}, [%[[BASE]]+2048];
// GRID-SUMS-COUNT-29: ld.global.b32 %r{{[0-9]+}}, [%[[BASE]]+{{[0-9]+}}];
// GRID-SUMS-NOT: ld.global
// ROWS128: "name": "backward_kernel",
// ROWS128: "block": [
// ROWS128-NEXT: 128,
// ROWS128: "name": "backward_kernel_1",
// ROWS128: "name": "backward_kernel_2",
// ROWS128-NOT: dq_accum

// block-m and block-n reach the backward's tiling: 32 key rows by 64 query
// columns (half of block-m: the atomic form's width at d = 64) in the dK/dV
// nest, 128 queries in the D and rounding nests.
// BLOCKS-LABEL: func.func @backward
// BLOCKS: fa.row_dot {{.*}} -> tensor<128xf32>
// BLOCKS: fa.qk {{.*}} -> tensor<32x64xf32>
// BLOCKS: fa.pv {{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
// BLOCKS-NOT: fa.qk
// BLOCKS: fa.read_rows {{.*}} -> tensor<128x64xf32>

// BAD-DQ: error: fa-tile-backward: option dq must be 'auto', 'atomic' or 'deterministic', got 'sometimes'

// Split-KV is a forward transformation: asked for with a backward op, it
// says so (it once told the user to run the pass elsewhere in the pipeline).
// BAD-SPLITS: error: fa-split-kv: split-KV splits the K/V loop of a forward attention; this loop nest is a kernel of fa.attention_backward, which has no split form (leave splits at 1)

// --fa-to-ptx compiles fa.attention_backward into one launch plan of three
// kernels, run in order. At d = 64 the default dQ is FlashAttention-2's
// atomic one: (1) D = rowsum(dO * O) into a workspace ([B, Hq, Nq'] f32, in
// the sizes of do, Nq' = ceil(Nq / 64) * 64), which also zeroes the
// dq_accum workspace ([B, Hq, Nq', 64] f32); (2) dK/dV, one thread block per batch, key/value head and
// 128-key block, which also adds every block's dS K into dq_accum; (3) dQ =
// dq_accum rounded, one thread block per batch, query head and 64-query
// block. (The dK/dV kernel's blocks are 128 keys by 32 query columns:
// the atomic form's default at head dims up to 64.) The caller passes q, k, v, o, do, lse and the three gradients.

// FILES: backward_kernel.json
// FILES-NEXT: backward_kernel.ptx
// FILES-NEXT: backward_kernel_1.ptx
// FILES-NEXT: backward_kernel_2.ptx

// CHECK: "kernels": [
// CHECK: "dim": [
// CHECK-NEXT: "do",
// CHECK: "name": "backward_kernel",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "do",
// CHECK-NEXT: "o",
// CHECK-NEXT: "delta",
// CHECK-NEXT: "dq_accum"
// CHECK: "dim": [
// CHECK-NEXT: "k",
// CHECK: "name": "backward_kernel_1",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "q",
// CHECK-NEXT: "k",
// CHECK-NEXT: "v",
// CHECK-NEXT: "do",
// CHECK-NEXT: "lse",
// CHECK-NEXT: "delta",
// CHECK-NEXT: "dq_accum",
// CHECK-NEXT: "dk",
// CHECK-NEXT: "dv",
// CHECK-NEXT: "softmax_scale_log2",
// CHECK-NEXT: "softmax_scale"
// CHECK: "dim": [
// CHECK-NEXT: "dq",
// CHECK: "name": "backward_kernel_2",
// CHECK-NEXT: "params": [
// CHECK-NEXT: "dq_accum",
// CHECK-NEXT: "dq"
// CHECK-NEXT: ],
// CHECK: "tensors": [
// CHECK-NOT: "name": "dq_accum"
// CHECK: "workspaces": [
// CHECK: "name": "delta",
// CHECK: "dtype": "f32",
// CHECK-NEXT: "name": "dq_accum",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: {
// CHECK-NEXT: "dim": [
// CHECK-NEXT: "do",
// CHECK-NEXT: 0
// CHECK: 4,
// CHECK-NEXT: {
// CHECK-NEXT: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "dim": [
// CHECK-NEXT: "do",
// CHECK-NEXT: 2
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: 64
// CHECK-NEXT: ],
// CHECK-NEXT: "op": "ceildivui"
// CHECK-NEXT: },
// CHECK-NEXT: 64
// CHECK-NEXT: ],
// CHECK-NEXT: "op": "mul"
// CHECK-NEXT: },
// CHECK-NEXT: 64
// CHECK-NEXT: ]

// The dK/dV kernel's 16 atomic adds a step (a 64 x 32 dQ^T tile on 4 warps)
// into the padded, contiguous dq_accum: no guard, one address, the rest
// immediate offsets (row stride 64 f32 = 256 bytes, 8 columns = 32 bytes).
// ATOMS: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE:rd[0-9]+]]], %r
// ATOMS-NEXT: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+256], %r
// ATOMS-NEXT: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+32], %r
// ATOMS-COUNT-13: atom.global.add.f32 %r{{[0-9]+}}, [%[[BASE]]+{{[0-9]+}}], %r
// ATOMS-NOT: atom.global

// dq=deterministic: the dK/dV kernel leaves dQ alone; the third kernel
// computes it Q-outer (recomputing S and dP), no dq_accum.
// DET: "kernels": [
// DET: "grid": [
// DET: "dim": [
// DET-NEXT: "do",
// DET: "name": "backward_kernel",
// DET-NEXT: "params": [
// DET-NEXT: "do",
// DET-NEXT: "o",
// DET-NEXT: "delta"
// DET-NEXT: ],
// DET: "dim": [
// DET-NEXT: "k",
// DET: "name": "backward_kernel_1",
// DET-NEXT: "params": [
// DET-NEXT: "q",
// DET-NEXT: "k",
// DET-NEXT: "v",
// DET-NEXT: "do",
// DET-NEXT: "lse",
// DET-NEXT: "delta",
// DET-NEXT: "dk",
// DET-NEXT: "dv",
// DET-NEXT: "softmax_scale_log2",
// DET-NEXT: "softmax_scale"
// DET: "dim": [
// DET-NEXT: "q",
// DET: "name": "backward_kernel_2",
// DET-NEXT: "params": [
// DET-NEXT: "q",
// DET-NEXT: "k",
// DET-NEXT: "v",
// DET-NEXT: "lse",
// DET-NEXT: "delta",
// DET-NEXT: "do",
// DET-NEXT: "dq",
// DET-NEXT: "softmax_scale_log2",
// DET-NEXT: "softmax_scale"
// DET: "scalars": [
// DET: "name": "softmax_scale_log2",
// DET-NEXT: "value": 0.18033
// DET: "name": "softmax_scale",
// DET-NEXT: "value": 0.125
// DET: "workspaces": [
// DET: "dtype": "f32",
// DET-NEXT: "name": "delta",
// DET-NOT: dq_accum

// The atomic dQ in the IR before fa-lower-to-gpu: the D nest stores zero rows of the buffer (an acc
// constant), the dK/dV nest multiplies K^T (a transposed view of the
// shared K tile) by dS^T (acc fragments converted into a shared tile) and
// adds the product into the buffer; the rounding nest loads the sums
// straight into acc fragments.
// L3-LABEL: func.func @backward
// L3: fa.row_dot {{.*}} -> tensor<64xf32, #rows_w4>
// L3: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #acc_w4>
// L3: tensor.extract_slice %[[ZEROS]]
// L3: %[[BUF:.*]] = bufferization.to_buffer
//     The dK/dV nest's loads (K, V once; Q and dO per step) ask for no L2
//     prefetch: --fa-pipeline-kv's default leaves it out of nests that
//     recompute P from the LSE (it cost the backward 0-5 %).
// L3: fa.async_load {{.*}} of 1 : tensor<?x2x?x64xbf16>
// L3: fa.async_load {{.*}} of 2 if(%{{.*}}) : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
// L3: fa.mask {{.*}} {transposed}
// L3-NOT: fa.async_load
// L3: fa.probs_from_lse {{.*}} {transposed}
// L3: %[[DS:.*]] = fa.score_grad {{.*}} {transposed}
// L3: %[[DS16:.*]] = arith.truncf %[[DS]]
// L3: %[[DSS:.*]] = fa.convert_layout %[[DS16]] : tensor<128x32xbf16, #acc_w4> -> tensor<128x32xbf16, #shared>
// L3: %[[KT:.*]] = fa.transpose %{{.*}} : tensor<128x64xbf16, #shared> -> tensor<64x128xbf16, #shared_t>
// L3: %[[DQT:.*]] = fa.pv %[[KT]], %[[DSS]], %{{.*}} : tensor<64x128xbf16, #shared_t>, tensor<128x32xbf16, #shared>, tensor<64x32xf32, #acc_w4>
// L3: fa.accumulate_rows %[[DQT]] into %[[BUF]][{{.*}}] rows(%{{.*}}) {transposed} : tensor<64x32xf32, #acc_w4>
// L3: %[[SUMS:.*]] = bufferization.to_tensor %[[BUF]]
// L3: fa.read_rows %[[SUMS]][{{.*}}] rows(%{{.*}}) : tensor<?x4x?x64xf32> -> tensor<64x64xf32, #acc_w4>
// L3-NOT: fa.qk
// L3: return
func.func @backward(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>,
                    %o: tensor<?x4x?x64xbf16>, %do: tensor<?x4x?x64xbf16>, %l: tensor<?x4x?xf32>,
                    %dq0: tensor<?x4x?x64xbf16>, %dk0: tensor<?x2x?x64xbf16>, %dv0: tensor<?x2x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>) {
  %0:3 = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %l : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>,
                                   tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>) causal
      -> tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
  return %0#0, %0#1, %0#2 : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
}
