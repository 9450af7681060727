// The gradient of causal grouped-query attention (32 query heads over 8
// key/value heads), head dim 128, bf16, for training: given Q, K, V, the
// forward's O and row log-sum-exp, and dO, it returns dQ, dK and dV (dK and
// dV summed over the query heads of each group). --fa-to-ptx makes three
// kernels (docs/backward.md): D = rowsum(dO * O); dK/dV with the K/V
// blocks outer; dQ (at this head dim its own bitwise-reproducible kernel).
func.func @backward_gqa_causal_d128_bf16(
    %q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>,
    %o: tensor<?x32x?x128xbf16>, %do: tensor<?x32x?x128xbf16>, %lse: tensor<?x32x?xf32>,
    %dq0: tensor<?x32x?x128xbf16>, %dk0: tensor<?x8x?x128xbf16>, %dv0: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) {
  %dq, %dk, %dv = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                                      tensor<?x8x?x128xbf16>, tensor<?x32x?x128xbf16>,
                                      tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                              tensor<?x8x?x128xbf16>) causal
      -> tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
  return %dq, %dk, %dv : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
}
