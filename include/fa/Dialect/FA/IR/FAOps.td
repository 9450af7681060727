//===- FAOps.td - FlashAttention dialect ops ---------------*- tablegen -*-===//

#ifndef FA_OPS_TD
#define FA_OPS_TD

include "fa/Dialect/FA/IR/FAAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// fa.attention
//===----------------------------------------------------------------------===//

def FA_AttentionOp : FA_Op<"attention", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "scaled dot-product attention: O = softmax(scale * Q K^T) V";
  let description = [{
    Batched multi-head attention with grouped-query (GQA) and multi-query (MQA)
    support. With `Q : [B, Hq, Nq, D]`, `K : [B, Hkv, Nk, D]` and
    `V : [B, Hkv, Nk, Dv]`, for every batch `b`, query head `h` and query row
    `i`, with `g = h / (Hq / Hkv)` the key/value head it reads:

    ```
    s[j]          = scale * sum_d Q[b, h, i, d] * K[b, g, j, d]
    O[b, h, i, :] = sum_j softmax(s)[j] * V[b, g, j, :]
    LSE[b, h, i]  = log(sum_j exp(s[j]))            (natural log, f32)
    ```

    * `scale` defaults to `1/sqrt(D)` when absent.
    * `causal` masks keys in the future. When `Nq != Nk` the mask is aligned
      to the bottom-right corner, as FlashAttention-2 (>= 2.1) does: query row
      `i` sees key `j` iff `j <= i + Nk - Nq`. A row that sees no key at all
      (possible when `Nq > Nk`) produces `O = 0` and `LSE = -inf`.
    * Element types: `f16`, `bf16` or `f32`, the same for Q, K, V and O;
      accumulation is f32. LSE is always f32.
    * `B`, `Nq` and `Nk` may be dynamic; the head counts and head dims `D`,
      `Dv` must be static.

    The op follows destination-passing style: `outs` holds `O` and,
    optionally, `LSE`. In tensor form the op returns one tensor per output; in
    memref form it writes the buffers and returns nothing. One-shot
    bufferization turns the tensor form into the memref form.

    Example (tensor form, GQA 8:2, causal, with LSE):

    ```mlir
    %o, %lse = fa.attention
        ins(%q, %k, %v : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>,
                         tensor<2x2x?x64xf16>)
        outs(%o_init, %lse_init : tensor<2x8x?x64xf16>, tensor<2x8x?xf32>)
        causal -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
    ```

    Memref form, explicit scale, no LSE:

    ```mlir
    fa.attention ins(%q, %k, %v : memref<1x4x128x64xf32>,
                     memref<1x4x128x64xf32>, memref<1x4x128x64xf32>)
                 outs(%o : memref<1x4x128x64xf32>) scale(0.125)
    ```
  }];

  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                       Variadic<AnyShaped>:$outputs,
                       OptionalAttr<F32Attr>:$scale,
                       UnitAttr:$causal);
  let results = (outs Variadic<AnyRankedTensor>:$results);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
              type($value) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    (`scale` `(` $scale^ `)`)? (`causal` $causal^)?
    attr-dict (`->` type($results)^)?
  }];

  let extraClassDeclaration = [{
    /// The `O` destination (tensor or memref).
    ::mlir::Value getOut() { return getOutputs()[0]; }
    /// The optional `LSE` destination, or null.
    ::mlir::Value getLse() {
      return getOutputs().size() > 1 ? getOutputs()[1] : ::mlir::Value();
    }
    /// The scale actually applied: the attribute, or 1/sqrt(D) when absent.
    double getEffectiveScale();
    /// Hq / Hkv: how many query heads share one key/value head.
    int64_t getGroupSize();
    /// True for the tensor (value-semantic) form, false for the memref form.
    bool hasTensorSemantics() {
      return ::llvm::isa<::mlir::RankedTensorType>(getQuery().getType());
    }

    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];

  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Tile-level ops
//
// What `--fa-tile-q-outer` produces: each op is one step of the
// FlashAttention-2 inner loop, on one Q block of M rows and one K/V block of
// N rows, as value-semantic 2-D (or 1-D, per row) tensors. Scores live in the
// log2 domain (the softmax scale times log2(e) is folded into `fa.qk`), so
// every exponential is an `exp2`. On the CPU they lower to linalg
// (`--fa-decompose-tiles`); on the GPU to tensor-core fragments.
//===----------------------------------------------------------------------===//

class FA_TileOp<string mnemonic, list<Trait> traits = []>
    : FA_Op<mnemonic, !listconcat(traits, [Pure])>;

def FA_QKOp : FA_TileOp<"qk"> {
  let summary = "S = scale * Q_i K_j^T for one Q block and one K block";
  let description = [{
    `S[r, c] = scale * sum_d Q[r, d] * K[c, d]`, accumulated in f32. `scale`
    is the attention scale times `log2(e)`: S is in the log2 domain, ready
    for `exp2`.

    ```mlir
    %s = fa.qk %q_tile, %k_tile scale(0.180336878)
        : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       F32Attr:$scale);
  let results = (outs AnyRankedTensor:$scores);
  let assemblyFormat = [{
    $query `,` $key `scale` `(` $scale `)` attr-dict `:` type($query) `,`
    type($key) `->` type($scores)
  }];
  let hasVerifier = 1;
}

def FA_MaskOp : FA_TileOp<"mask", [AllTypesMatch<["scores", "result"]>,
                                   AttrSizedOperandSegments]> {
  let summary = "set to -inf the scores a query row must not see";
  let description = [{
    The tile's element `(r, c)` is query row `row_start + r` against key
    `col_start + c`. It becomes `-inf` when

    * `key_limit` is given and `col_start + c >= key_limit` (keys past the
      end of the sequence, in the last partial K/V block), or
    * `causal_offset` is given and
      `col_start + c > row_start + r + causal_offset` (causal attention;
      `causal_offset = Nk - Nq` aligns the mask to the bottom-right corner).

    At least one of the two must be present. Other elements pass through.

    ```mlir
    %masked = fa.mask %s[%q_start, %k_start] key_limit(%nk)
                  causal_offset(%offset) : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, Index:$row_start,
                       Index:$col_start, Optional<Index>:$key_limit,
                       Optional<Index>:$causal_offset);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `[` $row_start `,` $col_start `]`
    (`key_limit` `(` $key_limit^ `)`)?
    (`causal_offset` `(` $causal_offset^ `)`)?
    attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
}

def FA_OnlineSoftmaxOp : FA_TileOp<"online_softmax", [
    AllTypesMatch<["scores", "probs"]>,
    AllTypesMatch<["max", "sum", "new_max", "new_sum", "alpha"]>]> {
  let summary = "one online-softmax step: new running max and sum, P, alpha";
  let description = [{
    Folds one block of log2-domain scores `S [M, N]` into the running row
    max `m [M]` and row sum `l [M]`:

    ```
    m_new[r] = max(m[r], max_c S[r, c])
    base[r]  = m_new[r] == -inf ? 0 : m_new[r]   (row has seen no key yet)
    P[r, c]  = exp2(S[r, c] - base[r])            (unnormalised)
    alpha[r] = exp2(m[r] - base[r])               (rescales the old state)
    l_new[r] = alpha[r] * l[r] + sum_c P[r, c]
    ```

    No division: normalisation happens once, in `fa.finalize`. The `base`
    guard keeps fully masked rows at `P = 0`, `alpha = 0` instead of NaN.

    ```mlir
    %p, %m_new, %l_new, %alpha = fa.online_softmax %s, %m, %l
        : tensor<128x64xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$max,
                       AnyRankedTensor:$sum);
  let results = (outs AnyRankedTensor:$probs, AnyRankedTensor:$new_max,
                      AnyRankedTensor:$new_sum, AnyRankedTensor:$alpha);
  let assemblyFormat = [{
    $scores `,` $max `,` $sum attr-dict `:` type($scores) `,` type($max)
  }];
  let hasVerifier = 1;
}

def FA_PVOp : FA_TileOp<"pv", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc_new = alpha * acc + P V_j (rescale and accumulate)";
  let description = [{
    `acc_new[r, e] = alpha[r] * acc[r, e] + sum_c P[r, c] * V[c, e]`, in f32.
    `P` has the element type of `V` (the tiling pass rounds P with
    `arith.truncf` first, as the GPU kernel does before its P V matmul).

    ```mlir
    %acc_new = fa.pv %p, %v_tile, %acc, %alpha
        : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>,
          tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$probs, AnyRankedTensor:$value,
                       AnyRankedTensor:$acc, AnyRankedTensor:$alpha);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $probs `,` $value `,` $acc `,` $alpha attr-dict `:` type($probs) `,`
    type($value) `,` type($acc) `,` type($alpha)
  }];
  let hasVerifier = 1;
}

def FA_FinalizeOp : FA_TileOp<"finalize", [
    AllTypesMatch<["max", "sum", "lse"]>]> {
  let summary = "the one normalisation: O = acc / l, LSE = ln(2) * (m + log2 l)";
  let description = [{
    After the last K/V block:

    ```
    O[r, e] = l[r] == 0 ? 0 : acc[r, e] / l[r]      (in O's element type)
    LSE[r]  = l[r] == 0 ? -inf : ln(2) * (m[r] + log2(l[r]))
    ```

    `m` and `l` are the log2-domain running max and sum, so LSE comes out as
    the natural-log log-sum-exp of the scaled scores, as PyTorch and
    FlashAttention-2 report it. Rows that saw no key give `O = 0`,
    `LSE = -inf`.

    ```mlir
    %o, %lse = fa.finalize %acc, %m, %l
        : tensor<128x128xf32>, tensor<128xf32> -> tensor<128x128xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$max,
                       AnyRankedTensor:$sum);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $acc `,` $max `,` $sum attr-dict `:` type($acc) `,` type($max) `->`
    type($out)
  }];
  let hasVerifier = 1;
}

#endif // FA_OPS_TD
