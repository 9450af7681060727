// RUN: fa-opt %s -split-input-file --fa-tile-combine -verify-diagnostics

func.func @dynamic_value_dim(%po: tensor<2x2x8x?x?xf32>, %pl: tensor<2x2x8x?xf32>) {
  // expected-error @+1 {{fa-tile-combine: the value head dim must be static, got 'tensor<2x8x?x?xf16>'}}
  %o, %l = fa.combine_splits %po, %pl : tensor<2x2x8x?x?xf32>, tensor<2x2x8x?xf32>
      -> tensor<2x8x?x?xf16>, tensor<2x8x?xf32>
  return
}

// -----

// A tile the MMA atom cannot hold (its accumulator tiles are 8 columns wide).
func.func @value_dim_not_multiple_of_8(%po: tensor<2x2x8x?x12xf32>, %pl: tensor<2x2x8x?xf32>) {
  // expected-error @+1 {{fa-tile-combine: }}
  %o, %l = fa.combine_splits %po, %pl : tensor<2x2x8x?x12xf32>, tensor<2x2x8x?xf32>
      -> tensor<2x8x?x12xf16>, tensor<2x8x?xf32>
  return
}
