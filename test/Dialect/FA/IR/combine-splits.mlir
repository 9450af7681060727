// RUN: fa-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @combine
// CHECK: fa.combine_splits %{{.*}}, %{{.*}} : tensor<4x?x32x1x128xf32>, tensor<4x?x32x1xf32> -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
func.func @combine(%o: tensor<4x?x32x1x128xf32>, %l: tensor<4x?x32x1xf32>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %r:2 = fa.combine_splits %o, %l : tensor<4x?x32x1x128xf32>, tensor<4x?x32x1xf32>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %r#0, %r#1 : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}

// -----

func.func @rank(%o: tensor<4x2x32x128xf32>, %l: tensor<4x2x32x1xf32>) {
  // expected-error @+1 {{partial output must have rank 5, got 'tensor<4x2x32x128xf32>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x128xf32>, tensor<4x2x32x1xf32>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return
}

// -----

func.func @partial_f16(%o: tensor<4x2x32x1x128xf16>, %l: tensor<4x2x32x1xf32>) {
  // expected-error @+1 {{partial output must have f32 elements, got 'tensor<4x2x32x1x128xf16>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x1x128xf16>, tensor<4x2x32x1xf32>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return
}

// -----

func.func @out_i8(%o: tensor<4x2x32x1x128xf32>, %l: tensor<4x2x32x1xf32>) {
  // expected-error @+1 {{output must have f16, bf16 or f32 elements, got 'tensor<2x32x1x128xi8>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x1x128xf32>, tensor<4x2x32x1xf32>
      -> tensor<2x32x1x128xi8>, tensor<2x32x1xf32>
  return
}

// -----

func.func @splits_mismatch(%o: tensor<4x2x32x1x128xf32>, %l: tensor<3x2x32x1xf32>) {
  // expected-error @+1 {{partial LSE 'tensor<3x2x32x1xf32>' does not match the partial output 'tensor<4x2x32x1x128xf32>' in dim 0}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x1x128xf32>, tensor<3x2x32x1xf32>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return
}

// -----

func.func @head_dim_mismatch(%o: tensor<4x2x32x1x128xf32>, %l: tensor<4x2x32x1xf32>) {
  // expected-error @+1 {{output 'tensor<2x32x1x64xf16>' does not match the partial output 'tensor<4x2x32x1x128xf32>' in dim 3}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x1x128xf32>, tensor<4x2x32x1xf32>
      -> tensor<2x32x1x64xf16>, tensor<2x32x1xf32>
  return
}

// -----

func.func @lse_rank(%o: tensor<4x2x32x1x128xf32>, %l: tensor<4x2x32x1xf32>) {
  // expected-error @+1 {{LSE must have rank 3, got 'tensor<2x32xf32>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x1x128xf32>, tensor<4x2x32x1xf32>
      -> tensor<2x32x1x128xf16>, tensor<2x32xf32>
  return
}

// -----

func.func @no_splits(%o: tensor<0x2x32x1x128xf32>, %l: tensor<0x2x32x1xf32>) {
  // expected-error @+1 {{needs at least one split, got 'tensor<0x2x32x1x128xf32>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<0x2x32x1x128xf32>, tensor<0x2x32x1xf32>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return
}
