// examples/unfused_sliding_window_gqa_f16.mlir (the README main job compiles
// it with --fa-linalg-to-ptx) must keep raising to one fa.attention: the
// repeat_kv broadcast becomes GQA 32:8, the mask `causal window(511, 0)`,
// and nothing of the unfused program is left.
// RUN: fa-opt %S/../../examples/unfused_sliding_window_gqa_f16.mlir --fa-raise-attention | FileCheck %s
// RUN: fa-opt %S/../../examples/unfused_sliding_window_gqa_f16.mlir --fa-linalg-to-ptx | FileCheck %s --check-prefix=PTX
// CHECK-LABEL: func.func @unfused_sliding_window_gqa_f16
// CHECK-SAME: (%[[Q:.*]]: tensor<?x32x2048x128xf16>, %[[K:.*]]: tensor<?x8x2048x128xf16>, %[[V:.*]]: tensor<?x8x2048x128xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[O:.*]] = fa.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs({{.*}}) scale(0.0883883461) causal window(511, 0) -> tensor<?x32x2048x128xf16>
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
// PTX: gpu.launch_func @unfused_sliding_window_gqa_f16_kernel_module::@unfused_sliding_window_gqa_f16_kernel
// PTX: gpu.binary @unfused_sliding_window_gqa_f16_kernel_module
