// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=PTX < %t/gqa_causal_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/gqa_causal_kernel.json
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t block-m=64 block-n=32 num-warps=2 kv-stages=3 chip=sm_90" -o /dev/null
// RUN: FileCheck %s --check-prefix=CUSTOM < %t/gqa_causal_kernel.json
// RUN: FileCheck %s --check-prefix=CUSTOM-PTX < %t/gqa_causal_kernel.ptx

// The whole pipeline, L0 -> L5: fa.attention to PTX for sm_80, written to
// files with the launch record.

// IR: gpu.launch_func @gqa_causal_kernel_module::@gqa_causal_kernel
// IR: gpu.binary @gqa_causal_kernel_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">

// PTX: .version 8.0
// PTX: .target sm_80
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: .visible .entry gqa_causal_kernel(
//     64-bit pointers, 32-bit sizes and strides.
// PTX: .param .u64 .ptr .align 1 gqa_causal_kernel_param_0,
// PTX: .param .u64 .ptr .align 1 gqa_causal_kernel_param_1,
// PTX: .param .u32 gqa_causal_kernel_param_2,
// PTX: .maxntid 128, 1, 1
// PTX: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX: bar.sync 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: ex2.approx.ftz.f32
// PTX: vote.sync.any.pred
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: lg2.approx.ftz.f32
// PTX: st.global.v4.b32

// JSON: "block": [
// JSON-NEXT: 128,
// JSON: "block_m": 128,
// JSON-NEXT: "block_n": 64,
// JSON-NEXT: "causal": true,
// JSON-NEXT: "chip": "sm_80",
// JSON-NEXT: "dtype": "f16",
// JSON-NEXT: "dynamic_shared_memory": 55296,
// JSON-NEXT: "grid": [
// JSON-NEXT: "ceildiv(Nq, 128)",
// JSON-NEXT: "Hq",
// JSON-NEXT: "B"
// JSON: "head_dim": 64,
// JSON-NEXT: "index_bitwidth": 32,
// JSON-NEXT: "kernel": "gqa_causal_kernel",
// JSON-NEXT: "kv_stages": 2,
// JSON-NEXT: "num_heads": 8,
// JSON-NEXT: "num_kv_heads": 2,
// JSON-NEXT: "num_warps": 4,
// JSON: "params": [
// JSON-NEXT: "q",
// JSON-NEXT: "k",
// JSON-NEXT: "v",
// JSON-NEXT: "o",
// JSON-NEXT: "lse"

// CUSTOM: "block": [
// CUSTOM-NEXT: 64,
// CUSTOM: "block_m": 64,
// CUSTOM-NEXT: "block_n": 32,
// CUSTOM: "chip": "sm_90",
// CUSTOM: "ceildiv(Nq, 64)",
// CUSTOM: "kv_stages": 3,
// CUSTOM: "num_warps": 2,
//     Three stages: block j may be waited for while block j + 1 still loads.
// CUSTOM-PTX: .target sm_90
// CUSTOM-PTX: .maxntid 64, 1, 1
// CUSTOM-PTX: cp.async.wait_group 1;

func.func @gqa_causal(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                        outs(%o, %l : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}
