// --fa-raise-attention on what torch-mlir (torch_mlir.fx.export_and_import,
// output_type="linalg-on-tensors") makes of PyTorch attention; the inputs
// and the script that generated them are in Inputs/torch/.
//
// F.scaled_dot_product_attention: the scale is folded into Q and K^T
// (sqrt(scale) each), Q K^T and P V are 3-D batch_matmuls between
// collapse/expand_shape, the max reduction also computes an unused argmax,
// and rows whose scores are all -inf are set to zero by a select.
// RUN: fa-opt %S/Inputs/torch/sdpa.mlir --fa-raise-attention | FileCheck %s --check-prefix=SDPA
// RUN: mlir-opt %S/Inputs/torch/sdpa.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=SDPA
// SDPA-LABEL: func.func @sdpa(
// SDPA-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// SDPA-NOT: linalg.
// SDPA: %[[INIT:.*]] = tensor.empty() : tensor<1x2x8x16xf32>
// SDPA: %[[O:.*]] = fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%[[INIT]] : tensor<1x2x8x16xf32>) scale(2.500000e-01) -> tensor<1x2x8x16xf32>
// SDPA-NOT: causal
// SDPA-NOT: linalg.
// SDPA: %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]]
// SDPA: %[[E:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1], [2], [3]]
// SDPA: return %[[E]]

// is_causal=True: the mask is built from index tensors (j - i <= 0).
// RUN: fa-opt %S/Inputs/torch/sdpa_causal.mlir --fa-raise-attention | FileCheck %s --check-prefix=CAUSAL
// RUN: mlir-opt %S/Inputs/torch/sdpa_causal.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=CAUSAL
// CAUSAL-LABEL: func.func @sdpa_causal(
// CAUSAL-NOT: linalg.
// CAUSAL: fa.attention {{.*}} scale(2.500000e-01) causal
// CAUSAL-NOT: linalg.

// An explicit scale=0.5.
// RUN: fa-opt %S/Inputs/torch/sdpa_scale.mlir --fa-raise-attention | FileCheck %s --check-prefix=SCALE
// RUN: mlir-opt %S/Inputs/torch/sdpa_scale.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=SCALE
// SCALE: fa.attention {{.*}} scale(5.000000e-01) ->

// enable_gqa=True, 4 query heads on 2 key/value heads.
// RUN: fa-opt %S/Inputs/torch/sdpa_gqa.mlir --fa-raise-attention | FileCheck %s --check-prefix=SDPA-GQA
// RUN: mlir-opt %S/Inputs/torch/sdpa_gqa.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=SDPA-GQA
// SDPA-GQA-LABEL: func.func @sdpa_gqa(
// SDPA-GQA-SAME: %[[Q:.*]]: tensor<1x4x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// SDPA-GQA-NOT: linalg.
// SDPA-GQA: fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
// SDPA-GQA-NOT: linalg.

// By hand: q @ k.transpose(-2, -1) / sqrt(d), softmax, @ v.
// RUN: fa-opt %S/Inputs/torch/by_hand.mlir --fa-raise-attention | FileCheck %s --check-prefix=HAND
// RUN: mlir-opt %S/Inputs/torch/by_hand.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=HAND
// HAND-NOT: linalg.
// HAND: fa.attention {{.*}} scale(2.500000e-01) ->
// HAND-NOT: linalg.

// By hand with masked_fill(~tril(ones), -inf).
// RUN: fa-opt %S/Inputs/torch/by_hand_causal.mlir --fa-raise-attention | FileCheck %s --check-prefix=HAND-CAUSAL
// RUN: mlir-opt %S/Inputs/torch/by_hand_causal.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=HAND-CAUSAL
// HAND-CAUSAL-NOT: linalg.
// HAND-CAUSAL: fa.attention {{.*}} scale(2.500000e-01) causal ->
// HAND-CAUSAL-NOT: linalg.

// Llama's repeat_kv (expand + reshape) in f16, softmax upcast to f32 and P
// cast back to f16.
// RUN: fa-opt %S/Inputs/torch/by_hand_gqa_f16.mlir --fa-raise-attention | FileCheck %s --check-prefix=HAND-GQA
// RUN: mlir-opt %S/Inputs/torch/by_hand_gqa_f16.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=HAND-GQA
// HAND-GQA-LABEL: func.func @by_hand_gqa_f16(
// HAND-GQA-SAME: %[[Q:.*]]: tensor<1x4x8x16xf16>, %[[K:.*]]: tensor<1x2x8x16xf16>, %[[V:.*]]: tensor<1x2x8x16xf16>)
// HAND-GQA-NOT: linalg.
// HAND-GQA: fa.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%{{.*}} : tensor<1x4x8x16xf16>) scale(2.500000e-01) -> tensor<1x4x8x16xf16>
// HAND-GQA-NOT: linalg.

// repeat_interleave of K and V along the heads.
// RUN: fa-opt %S/Inputs/torch/by_hand_repeat_interleave.mlir --fa-raise-attention | FileCheck %s --check-prefix=HAND-RI
// RUN: mlir-opt %S/Inputs/torch/by_hand_repeat_interleave.mlir --linalg-generalize-named-ops | fa-opt --fa-raise-attention | FileCheck %s --check-prefix=HAND-RI
// HAND-RI: fa.attention ins({{.*}} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
// HAND-RI-NOT: linalg.
