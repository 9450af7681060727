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

// A bad option is reported like --fa-to-ptx's.
// RUN: not fa-opt %S/../Transforms/Inputs/torch/by_hand_gqa_f16.mlir '--fa-linalg-to-ptx=chip=sm_70' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option chip must be one of sm_80, {{.*}}, got 'sm_70'
