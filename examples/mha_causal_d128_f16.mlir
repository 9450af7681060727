// Causal multi-head attention, head dim 128, f16, as in a decoder layer:
// batch and sequence length are dynamic, 16 heads.
func.func @mha_causal_d128_f16(%q: tensor<?x16x?x128xf16>, %k: tensor<?x16x?x128xf16>,
                               %v: tensor<?x16x?x128xf16>, %o: tensor<?x16x?x128xf16>,
                               %lse: tensor<?x16x?xf32>)
    -> (tensor<?x16x?x128xf16>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?x128xf16>, tensor<?x16x?x128xf16>, tensor<?x16x?x128xf16>)
                        outs(%o, %lse : tensor<?x16x?x128xf16>, tensor<?x16x?xf32>) causal
                        -> tensor<?x16x?x128xf16>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?x128xf16>, tensor<?x16x?xf32>
}
