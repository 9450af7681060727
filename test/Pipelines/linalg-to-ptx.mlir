// --fa-linalg-to-ptx: a frontend's linalg on tensors (torch-mlir's export of
// a Llama-style GQA attention in f16, test/Transforms/Inputs/torch) raised
// to fa.attention and compiled to a PTX kernel, with a launch over
// (Q blocks, Hq = 4, B = 1). No linalg op of the attention is left on the host.
// RUN: fa-opt %S/../Transforms/Inputs/torch/by_hand_gqa_f16.mlir --fa-linalg-to-ptx | FileCheck %s
// CHECK-LABEL: func.func @by_hand_gqa_f16
// CHECK-NOT: linalg.batch_matmul
// CHECK: gpu.launch_func @by_hand_gqa_f16_kernel_module::@by_hand_gqa_f16_kernel blocks in (%{{.*}}, %c4, %c1)
// CHECK-NOT: linalg.batch_matmul
// CHECK: gpu.binary @by_hand_gqa_f16_kernel_module
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// Nothing recognised (a feed-forward layer): the program comes out as it
// was, with a warning that no kernel was made. A raised program gets none.
// RUN: fa-opt %S/Inputs/no-attention.mlir --fa-linalg-to-ptx 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: no-attention.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: no attention recognised: nothing for the GPU pipeline to compile
// NONE: func.func @mlp
// NONE-NEXT: arith.constant
// NONE: linalg.matmul
// RUN: fa-opt %S/../Transforms/Inputs/torch/by_hand_gqa_f16.mlir --fa-linalg-to-ptx 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: warning
// Nor does a program whose fa ops were written by hand (a backward, which
// the raise never makes): its three kernels are compiled.
// RUN: fa-opt %S/../../examples/backward_gqa_causal_d128_bf16.mlir --fa-linalg-to-ptx 2>&1 | FileCheck %s --check-prefix=BACKWARD
// BACKWARD-NOT: warning
// BACKWARD: gpu.launch_func @backward_gqa_causal_d128_bf16_kernel_module::@backward_gqa_causal_d128_bf16_kernel
// BACKWARD: gpu.launch_func @backward_gqa_causal_d128_bf16_kernel_1_module::@backward_gqa_causal_d128_bf16_kernel_1
// BACKWARD: gpu.launch_func @backward_gqa_causal_d128_bf16_kernel_2_module::@backward_gqa_causal_d128_bf16_kernel_2

// A bad option is reported like --fa-to-ptx's.
// RUN: not fa-opt %S/../Transforms/Inputs/torch/by_hand_gqa_f16.mlir '--fa-linalg-to-ptx=chip=sm_70' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option chip must be one of sm_80, {{.*}}, got 'sm_70'

// A Gemma 2 / Mistral style layer in f16 (f32 scores): a soft cap of 50 and
// a causal mask 32 keys back, raised to `causal window(32, 0) softcap(50)`
// and compiled: the launch plan passes scale / cap (1/400) to the tanh and
// cap * log2(e) to the softmax, and the PTX has the hardware tanh.
// RUN: fa-opt %s -split-input-file --fa-linalg-to-ptx | FileCheck %s --check-prefix=WINDOW
// WINDOW-LABEL: func.func @window_softcap_f16
// WINDOW-NOT: linalg.generic
// WINDOW: gpu.launch_func @window_softcap_f16_kernel_module::@window_softcap_f16_kernel
// WINDOW-SAME: name = "softcap_scale", value = 2.500000e-03 : f32}, {dtype = "f32", name = "softmax_scale_log2", value = 72.13{{[0-9]*}} : f32}
// WINDOW: gpu.binary @window_softcap_f16_kernel_module
// WINDOW-SAME: tanh.approx.f32
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @window_softcap_f16(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x2x128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x128x128xf32>) -> tensor<1x2x128x128xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%z : tensor<1x2x128x128xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x128x128xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x128x128xf32>) outs(%e : tensor<1x2x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c32 = arith.constant 32 : index
    %scale = arith.constant 0.125 : f32
    %cap = arith.constant 50.0 : f32
    %scaled = arith.mulf %in, %scale : f32
    %t0 = arith.divf %scaled, %cap : f32
    %t = math.tanh %t0 : f32
    %capped = arith.mulf %t, %cap : f32
    %past = arith.cmpi ule, %j, %i : index
    %lo = arith.addi %j, %c32 : index
    %near = arith.cmpi uge, %lo, %i : index
    %vis = arith.andi %past, %near : i1
    %r = arith.select %vis, %capped, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<1x2x128x128xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x128x128xf32>) outs(%e : tensor<1x2x128x128xf32>) -> tensor<1x2x128x128xf32>
  %e16 = tensor.empty() : tensor<1x2x128x128xf16>
  %p16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pr : tensor<1x2x128x128xf32>) outs(%e16 : tensor<1x2x128x128xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x2x128x128xf16>
  %eo = tensor.empty() : tensor<1x2x128x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p16, %v : tensor<1x2x128x128xf16>, tensor<1x2x128x64xf16>) outs(%zo : tensor<1x2x128x64xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x128x64xf32>
  %eo16 = tensor.empty() : tensor<1x2x128x64xf16>
  %o16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : tensor<1x2x128x64xf32>) outs(%eo16 : tensor<1x2x128x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x2x128x64xf16>
  return %o16 : tensor<1x2x128x64xf16>
}
