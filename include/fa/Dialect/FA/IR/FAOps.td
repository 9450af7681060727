//===- FAOps.td - FlashAttention dialect ops ---------------*- tablegen -*-===//

#ifndef FA_OPS_TD
#define FA_OPS_TD

include "fa/Dialect/FA/IR/FADialect.td"
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

#endif // FA_OPS_TD
