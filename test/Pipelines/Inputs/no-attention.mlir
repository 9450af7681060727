// A feed-forward layer: no attention to raise.
func.func @mlp(%x: tensor<16x64xf16>, %w: tensor<64x256xf16>) -> tensor<16x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x256xf32>) -> tensor<16x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf16>, tensor<64x256xf16>) outs(%f : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}
