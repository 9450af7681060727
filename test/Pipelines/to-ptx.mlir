// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=PTX < %t/gqa_causal_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON --strict-whitespace < %t/gqa_causal_kernel.json
// RUN: %python -c "import json, sys; json.load(open(sys.argv[1]))" %t/gqa_causal_kernel.json
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t block-m=64 block-n=32 num-warps=2 kv-stages=3 chip=sm_90 index-bitwidth=64" -o /dev/null
// RUN: FileCheck %s --check-prefix=CUSTOM < %t/gqa_causal_kernel.json
// RUN: FileCheck %s --check-prefix=CUSTOM-PTX < %t/gqa_causal_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t l2-prefetch=0" -o /dev/null
// RUN: FileCheck %s --check-prefix=NO-PREFETCH < %t/gqa_causal_kernel.ptx
// RUN: not fa-opt %s --fa-to-ptx="l2-prefetch=48" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-PREFETCH
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t swizzle-shared=off" -o /dev/null
// RUN: FileCheck %s --check-prefix=PADDED < %t/gqa_causal_kernel.json
// RUN: not fa-opt %s --fa-to-ptx="swizzle-shared=maybe" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-SWIZZLE
// At D = 128 swizzle-shared=auto leaves K/V padded for sm_80 (the atom's
// register budget) and swizzles them for sm_90, whose ptxas has the
// registers, unless the kernel keeps a window bound (or a cap, or sequence
// bounds) live; swizzle-shared=on swizzles them everywhere.
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-to-ptx --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO-D128
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-to-ptx="chip=sm_90" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90-D128
// RUN: sed -e 's/x64xf16/x128xf16/g; s/) causal$/) causal window(1024, 0)/' %s | fa-opt --fa-to-ptx="chip=sm_90" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=WINDOW90-D128
// RUN: sed -e 's/x64xf16/x128xf16/g' %s | fa-opt --fa-to-ptx="chip=sm_90 swizzle-shared=on" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON-D128
// RUN: not fa-opt %s --fa-to-ptx="query-home=sideways" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-HOME
// RUN: not fa-opt %s --fa-to-ptx="rescale=sideways" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-RESCALE
// RUN: not fa-opt %s --fa-to-ptx="block-m=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HALF-BLOCKS
// RUN: not fa-opt %s --fa-to-ptx="block-n=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HALF-BLOCKS-N
// RUN: not fa-opt %s --fa-to-ptx="block-m=-1 block-n=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK-M
// RUN: not fa-opt %s --fa-to-ptx="block-m=64 block-n=2048" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK-N
// RUN: rm -rf %t && sed -e 's/) causal$/) causal softcap(50.0)/' %s | fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=SOFTCAP --strict-whitespace < %t/gqa_causal_kernel.json
// RUN: %python -c "import json, sys; json.load(open(sys.argv[1]))" %t/gqa_causal_kernel.json
// RUN: FileCheck %s --check-prefix=SOFTCAP-PTX < %t/gqa_causal_kernel.ptx
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="output-dir=%t short-shared-pointers=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=LONG-PTX < %t/gqa_causal_kernel.ptx
// The opt-in per-warp block skip: in the L3 the GPU lowering receives, the
// masked loop's step is under an scf.if on the warp's rows; by default not.
// RUN: fa-opt %s --fa-to-ptx="warp-block-skip=true" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARP-SKIP
// RUN: fa-opt %s --fa-to-ptx --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-WARP-SKIP

// The whole pipeline, L0 -> L5: fa.attention to PTX, written to files with
// the launch plan (docs/launch-plan.md).

//     The launch stays in the IR, the kernel module becomes a gpu.binary of
//     PTX for sm_80.
// IR: gpu.launch_func @gqa_causal_kernel_module::@gqa_causal_kernel
// IR-SAME: fa.launch_plan = {chip = "sm_80", format = "fa-mlir-launch-plan"
// IR: gpu.binary @gqa_causal_kernel_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">

// PTX: .version 8.0
// PTX: .target sm_80
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: .visible .entry gqa_causal_kernel(
//     Each memref parameter is 64-bit pointers and 32-bit offset, sizes and
//     strides (index-bitwidth 32): 2 + 1 + 4 + 4 words; 5 tensors, then the
//     f32 scale (parameter 5 * 11 = 55th: index 53 as Q's first is 0).
// PTX-NEXT: .param .u64 .ptr .align 1 gqa_causal_kernel_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 gqa_causal_kernel_param_1,
// PTX-NEXT: .param .u32 gqa_causal_kernel_param_2,
// PTX: .param .u32 gqa_causal_kernel_param_52,
// PTX-NEXT: .param .f32 gqa_causal_kernel_param_53
// PTX-NEXT: )
// PTX-NEXT: .maxntid 128, 1, 1
//     Shared-memory addresses in 32-bit registers (short-shared-pointers,
//     on by default; docs/design.md, L5).
// PTX: mov.b32 %r{{[0-9]+}}, __dynamic_shmem__0;
//     The prologue: Q and the first K/V block, then Q's wait (one group may
//     stay in flight). Each copy asks L2 for the 128 bytes around it
//     (--fa-pipeline-kv's l2-prefetch).
// PTX: cp.async.cg.shared.global.L2::128B [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
//     The scale parameter is read once and used by the exponentials.
// PTX: ld.param.b32 %[[SCALE:r[0-9]+]], [gqa_causal_kernel_param_53];
// PTX: cp.async.wait_group 1;
// PTX: bar.sync 0;
// PTX: cp.async.wait_group 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: vote.sync.any.pred
// PTX: fma.rn.f32 %[[X:r[0-9]+]], %r{{[0-9]+}}, %[[SCALE]], %r{{[0-9]+}};
// PTX: ex2.approx.ftz.f32 %r{{[0-9]+}}, %[[X]];
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: lg2.approx.ftz.f32
// PTX: st.global.v4.b32

//     l2-prefetch=0: the copies without the prefetch-size qualifier.
// NO-PREFETCH-NOT: L2::
// NO-PREFETCH: cp.async.cg.shared.global [%r{{[0-9]+}}{{.*}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// NO-PREFETCH-NOT: L2::
// BAD-PREFETCH: error: fa-pipeline-kv: option l2-prefetch must be 0, 64, 128 or 256 (bytes), or -1 for the default, got 48

//     short-shared-pointers=false: the same kernel with 64-bit shared
//     addresses (the copies, inline PTX for their L2 prefetch size, take the
//     32-bit shared window offset either way).
// LONG-PTX: .entry gqa_causal_kernel(
// LONG-PTX: mov.b64 %rd{{[0-9]+}}, __dynamic_shmem__0;
// LONG-PTX: cp.async.cg.shared.global.L2::128B [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// LONG-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, [%rd{{[0-9]+}}

//     The launch plan in JSON (sorted keys, 2-space indent); dynamic dims
//     are null, grid entries expressions of the tensor sizes.
// JSON:      {{^}}{
// JSON-NEXT: {{^}}  "chip": "sm_80",
// JSON-NEXT: {{^}}  "format": "fa-mlir-launch-plan",
// JSON-NEXT: {{^}}  "index_bitwidth": 32,
// JSON-NEXT: {{^}}  "kernels": [
// JSON-NEXT: {{^}}    {
// JSON-NEXT: {{^}}      "block": [
// JSON-NEXT: {{^}}        128,
// JSON-NEXT: {{^}}        1,
// JSON-NEXT: {{^}}        1
// JSON-NEXT: {{^}}      ],
//     Q 128 x (64 + 8) x 2 bytes (padded rows), then 2 K/V stages of
//     64 x 64 x 2 bytes each for K and V (swizzled, swizzle-shared=auto:
//     no padding).
// JSON-NEXT: {{^}}      "dynamic_shared_memory": 51200,
//     grid x = ceildivui(dim 2 of q, 128), y = 8 heads, z = dim 0 of q.
// JSON-NEXT: {{^}}      "grid": [
// JSON-NEXT: {{^}}        {
// JSON-NEXT: {{^}}          "args": [
// JSON-NEXT: {{^}}            {
// JSON-NEXT: {{^}}              "dim": [
// JSON-NEXT: {{^}}                "q",
// JSON-NEXT: {{^}}                2
// JSON-NEXT: {{^}}              ]
// JSON-NEXT: {{^}}            },
// JSON-NEXT: {{^}}            128
// JSON-NEXT: {{^}}          ],
// JSON-NEXT: {{^}}          "op": "ceildivui"
// JSON-NEXT: {{^}}        },
// JSON-NEXT: {{^}}        8,
// JSON-NEXT: {{^}}        {
// JSON-NEXT: {{^}}          "dim": [
// JSON-NEXT: {{^}}            "q",
// JSON-NEXT: {{^}}            0
// JSON-NEXT: {{^}}          ]
// JSON-NEXT: {{^}}        }
// JSON-NEXT: {{^}}      ],
// JSON-NEXT: {{^}}      "name": "gqa_causal_kernel",
// JSON-NEXT: {{^}}      "params": [
// JSON-NEXT: {{^}}        "q",
// JSON-NEXT: {{^}}        "k",
// JSON-NEXT: {{^}}        "v",
// JSON-NEXT: {{^}}        "o",
// JSON-NEXT: {{^}}        "lse",
// JSON-NEXT: {{^}}        "softmax_scale_log2"
// JSON-NEXT: {{^}}      ],
// JSON-NEXT: {{^}}      "ptx": "gqa_causal_kernel.ptx"
// JSON-NEXT: {{^}}    }
// JSON-NEXT: {{^}}  ],
// JSON-NEXT: {{^}}  "name": "gqa_causal_kernel",
//     scale * log2(e) for head dim 64: 0.125 * 1.4427 (the f32 value, as a
//     double).
// JSON-NEXT: {{^}}  "scalars": [
// JSON-NEXT: {{^}}    {
// JSON-NEXT: {{^}}      "dtype": "f32",
// JSON-NEXT: {{^}}      "name": "softmax_scale_log2",
// JSON-NEXT: {{^}}      "value": 0.18033687{{[0-9]*}}
// JSON-NEXT: {{^}}    }
// JSON-NEXT: {{^}}  ],
// JSON-NEXT: {{^}}  "tensors": [
// JSON-NEXT: {{^}}    {
// JSON-NEXT: {{^}}      "dtype": "f16",
// JSON-NEXT: {{^}}      "name": "q",
// JSON-NEXT: {{^}}      "output": false,
// JSON-NEXT: {{^}}      "shape": [
// JSON-NEXT: {{^}}        null,
// JSON-NEXT: {{^}}        8,
// JSON-NEXT: {{^}}        null,
// JSON-NEXT: {{^}}        64
// JSON-NEXT: {{^}}      ]
// JSON-NEXT: {{^}}    },
// JSON-NEXT: {{^}}    {
// JSON-NEXT: {{^}}      "dtype": "f16",
// JSON-NEXT: {{^}}      "name": "k",
// JSON-NEXT: {{^}}      "output": false,
// JSON-NEXT: {{^}}      "shape": [
// JSON-NEXT: {{^}}        null,
// JSON-NEXT: {{^}}        2,
// JSON-NEXT: {{^}}        null,
// JSON-NEXT: {{^}}        64
// JSON-NEXT: {{^}}      ]
// JSON-NEXT: {{^}}    },
// JSON-NEXT: {{^}}    {
// JSON-NEXT: {{^}}      "dtype": "f16",
// JSON-NEXT: {{^}}      "name": "v",
// JSON-NEXT: {{^}}      "output": false,
// JSON:      {{^}}      "name": "o",
// JSON-NEXT: {{^}}      "output": true,
// JSON:      {{^}}      "dtype": "f32",
// JSON-NEXT: {{^}}      "name": "lse",
// JSON-NEXT: {{^}}      "output": true,
// JSON-NEXT: {{^}}      "shape": [
// JSON-NEXT: {{^}}        null,
// JSON-NEXT: {{^}}        8,
// JSON-NEXT: {{^}}        null
// JSON-NEXT: {{^}}      ]
// JSON-NEXT: {{^}}    }
// JSON-NEXT: {{^}}  ],
// JSON-NEXT: {{^}}  "version": 1,
// JSON-NEXT: {{^}}  "workspaces": []
// JSON-NEXT: {{^}}}

//     swizzle-shared=off: K and V rows padded by 16 bytes too,
//     18432 + 2 x 2 x 64 x 72 x 2 bytes.
// PADDED: "dynamic_shared_memory": 55296,
// AUTO-D128-NOT: swizzled
// AUTO-D128: fa.qk {{.*}}, tensor<64x128xf16, #shared> -> tensor<128x64xf32, #acc_w4>
// AUTO-D128-NOT: swizzled
// ON-D128: fa.qk {{.*}}, tensor<64x128xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
//     (The window kernel's table tiles: 32-key blocks.)
// WINDOW90-D128-NOT: swizzled
// WINDOW90-D128: fa.qk {{.*}}, tensor<32x128xf16, #shared> -> tensor<128x32xf32, #acc_w4>
// WINDOW90-D128-NOT: swizzled
//     (Q, loaded once, stays padded.)
// SM90-D128: fa.async_load {{.*}} -> !fa.future<tensor<128x128xf16, #shared>>
// SM90-D128: fa.async_load {{.*}} -> !fa.future<tensor<64x128xf16, #shared_swz>, tensor<64x128xf16, #shared_swz>>
// SM90-D128: fa.qk {{.*}} : tensor<128x128xf16, #shared>, tensor<64x128xf16, #shared_swz> -> tensor<128x64xf32, #acc_w4>
// SM90-D128: fa.pv {{.*}}, tensor<64x128xf16, #shared_swz>, tensor<128x128xf32, #acc_w4>
// BAD-SWIZZLE: error: fa-to-ptx: option swizzle-shared must be auto, on or off, got 'maybe'

//     Other options: the plan follows them.
// CUSTOM: "chip": "sm_90",
// CUSTOM: "index_bitwidth": 64,
// CUSTOM: "block": [
// CUSTOM-NEXT: 64,
//     Q (64 + 8) x 64 x 2 bytes, then 3 K/V stages of 64 x 32 x 2 bytes
//     each for K and V (swizzled).
// CUSTOM: "dynamic_shared_memory": 33792,
// CUSTOM: "args": [
// CUSTOM: "dim": [
// CUSTOM-NEXT: "q",
// CUSTOM-NEXT: 2
// CUSTOM: 64
// CUSTOM-NEXT: ],
// CUSTOM-NEXT: "op": "ceildivui"
//     Three stages: block j may be waited for while block j + 1 still loads;
//     64-bit sizes and strides.
// CUSTOM-PTX: .target sm_90
// CUSTOM-PTX: .param .u64 gqa_causal_kernel_param_2,
// CUSTOM-PTX: .param .f32 gqa_causal_kernel_param_53
// CUSTOM-PTX: .maxntid 64, 1, 1
// CUSTOM-PTX: cp.async.wait_group 2;
// CUSTOM-PTX: cp.async.wait_group 1;

//     A bad query-home or rescale fails the pipeline with the option, the
//     valid values and the value given (not silently the default).
// BAD-HOME: fa-to-ptx: option query-home must be auto, registers or shared, got 'sideways'
// BAD-RESCALE: fa-to-ptx: option rescale must be auto, before-exp or after-exp, got 'sideways'
// HALF-BLOCKS: fa-to-ptx: options block-m and block-n go together: give both, or neither for the atom's tiles per head dim (got block-m=64, block-n=0)
// HALF-BLOCKS-N: fa-to-ptx: options block-m and block-n go together{{.*}}(got block-m=0, block-n=32)
// Checked by the pipeline itself, not by the first pass that reads them
// (the backward's tiling, whose name would puzzle a forward-only input).
// BAD-BLOCK-M: error: fa-to-ptx: option block-m must be in [1, 1024] (or 0 for the atom's tiles), got -1
// BAD-BLOCK-N: error: fa-to-ptx: option block-n must be in [1, 1024] (or 0 for the atom's tiles), got 2048

//     The same kernel with softcap(50): the kernel computes tanh(scale /
//     cap * s), softcap_scale = 0.125 / 50 after the tensors, and the cap
//     is in the softmax scale, 50 * log2(e) = 72.13...
// SOFTCAP:      {{^}}      "params": [
// SOFTCAP-NEXT: {{^}}        "q",
// SOFTCAP-NEXT: {{^}}        "k",
// SOFTCAP-NEXT: {{^}}        "v",
// SOFTCAP-NEXT: {{^}}        "o",
// SOFTCAP-NEXT: {{^}}        "lse",
// SOFTCAP-NEXT: {{^}}        "softcap_scale",
// SOFTCAP-NEXT: {{^}}        "softmax_scale_log2"
// SOFTCAP-NEXT: {{^}}      ],
// SOFTCAP:      {{^}}  "scalars": [
// SOFTCAP-NEXT: {{^}}    {
// SOFTCAP-NEXT: {{^}}      "dtype": "f32",
// SOFTCAP-NEXT: {{^}}      "name": "softcap_scale",
// SOFTCAP-NEXT: {{^}}      "value": 0.00249999{{[0-9]*}}
// SOFTCAP-NEXT: {{^}}    },
// SOFTCAP-NEXT: {{^}}    {
// SOFTCAP-NEXT: {{^}}      "dtype": "f32",
// SOFTCAP-NEXT: {{^}}      "name": "softmax_scale_log2",
// SOFTCAP-NEXT: {{^}}      "value": 72.13475{{[0-9]*}}
// SOFTCAP-NEXT: {{^}}    }
// SOFTCAP-NEXT: {{^}}  ],
//     The PTX has two f32 parameters (53, 54 after the 5 tensors of 11
//     words each) and the hardware tanh.
// SOFTCAP-PTX: .param .f32 gqa_causal_kernel_param_53,
// SOFTCAP-PTX-NEXT: .param .f32 gqa_causal_kernel_param_54
// SOFTCAP-PTX-NEXT: )
// SOFTCAP-PTX: tanh.approx.f32

func.func @gqa_causal(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                        outs(%o, %l : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// WARP-SKIP-NOT: fa.mask
// WARP-SKIP: %[[FIRST:.*]], %[[COUNT:.*]] = fa.warp_row_range
// WARP-SKIP: scf.if
// WARP-SKIP-NEXT: fa.qk
// WARP-SKIP: fa.mask
// WARP-SKIP: fa.pv
// WARP-SKIP: } else {
// NO-WARP-SKIP-NOT: fa.warp_row_range
