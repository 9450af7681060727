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

// -----

// The tile form (--fa-tile-combine): one tile of rows, results held by warps.
#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
// CHECK-LABEL: func @tile
// CHECK: fa.combine_splits %{{.*}}, %{{.*}} : tensor<4x16x64xf32>, tensor<4x16xf32> -> tensor<16x64xbf16, #{{.*}}>, tensor<16xf32, #{{.*}}>
func.func @tile(%o: tensor<4x16x64xf32>, %l: tensor<4x16xf32>)
    -> (tensor<16x64xbf16, #acc>, tensor<16xf32, #rows>) {
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32>, tensor<4x16xf32>
      -> tensor<16x64xbf16, #acc>, tensor<16xf32, #rows>
  return %r#0, %r#1 : tensor<16x64xbf16, #acc>, tensor<16xf32, #rows>
}

// -----

func.func @out_rank3(%o: tensor<4x2x32x128xf32>, %l: tensor<4x2x32xf32>) {
  // expected-error @+1 {{output must have rank 4 ([B, H, Nq, Dv]) or 2 (a tile of rows [R, Dv]), got 'tensor<2x32x128xf16>'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x32x128xf32>, tensor<4x2x32xf32>
      -> tensor<2x32x128xf16>, tensor<2x32xf32>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
func.func @partial_with_layout(%o: tensor<4x16x64xf32>, %l: tensor<4x16xf32>) {
  // expected-error @+1 {{the output and LSE tiles are both held by warps (#fa.warp_rows) or both plain}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32>, tensor<4x16xf32>
      -> tensor<16x64xf16, #acc>, tensor<16xf32>
  return
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 1, atom = #fa.mma_sync>
func.func @out_operand_a(%o: tensor<4x16x64xf32>, %l: tensor<4x16xf32>) {
  // expected-error @+1 {{the output tile must be in the acc role and the LSE in the rows role of the same warps and atom}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32>, tensor<4x16xf32>
      -> tensor<16x64xf16, #opA>, tensor<16xf32, #rows>
  return
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#rows2 = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @warps_differ(%o: tensor<4x32x64xf32>, %l: tensor<4x32xf32>) {
  // expected-error @+1 {{the output tile must be in the acc role and the LSE in the rows role of the same warps and atom}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x32x64xf32>, tensor<4x32xf32>
      -> tensor<32x64xf16, #acc>, tensor<32xf32, #rows2>
  return
}

// -----

// Partial results are read from memory: any layout on them is refused.
func.func @partial_with_an_encoding(%o: tensor<4x16x64xf32, "somewhere">, %l: tensor<4x16xf32>) {
  // expected-error @+1 {{the partial results are read from memory and carry no layout, got 'tensor<4x16x64xf32, "somewhere">'}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32, "somewhere">, tensor<4x16xf32>
      -> tensor<16x64xf16>, tensor<16xf32>
  return
}

// -----

func.func @tile_rows_mismatch(%o: tensor<4x16x64xf32>, %l: tensor<4x32xf32>) {
  // expected-error @+1 {{partial LSE 'tensor<4x32xf32>' does not match the partial output 'tensor<4x16x64xf32>' in dim 1}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32>, tensor<4x32xf32>
      -> tensor<16x64xf16>, tensor<16xf32>
  return
}

// -----

func.func @out_foreign_encoding(%o: tensor<4x16x64xf32>, %l: tensor<4x16xf32>) {
  // expected-error @+1 {{the output and LSE tiles are both held by warps (#fa.warp_rows) or both plain}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x16x64xf32>, tensor<4x16xf32>
      -> tensor<16x64xf16, "somewhere">, tensor<16xf32, "somewhere">
  return
}
