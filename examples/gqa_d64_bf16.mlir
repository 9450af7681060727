// Grouped-query attention (32 query heads sharing 8 key/value heads), head dim
// 64, bf16, not causal (an encoder or a prefill over a full context).
func.func @gqa_d64_bf16(%q: tensor<?x32x?x64xbf16>, %k: tensor<?x8x?x64xbf16>,
                        %v: tensor<?x8x?x64xbf16>, %o: tensor<?x32x?x64xbf16>,
                        %lse: tensor<?x32x?xf32>)
    -> (tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x32x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>)
                        outs(%o, %lse : tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>)
                        -> tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>
  return %0, %1 : tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>
}
