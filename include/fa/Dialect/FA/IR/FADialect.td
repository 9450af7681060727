//===- FADialect.td - FlashAttention dialect definition ----*- tablegen -*-===//
//
// The `fa` dialect: one high-level op (`fa.attention`) and the tile-level ops
// that the FlashAttention-2 passes rewrite it into.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_TD
#define FA_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def FA_Dialect : Dialect {
  let name = "fa";
  let cppNamespace = "::mlir::fa";
  let summary = "FlashAttention-2 as a sequence of compiler rewrites";
  let description = [{
    The `fa` dialect carries scaled dot-product attention from a single op,
    `fa.attention`, down to the tiled FlashAttention-2 algorithm:

    * `fa.attention` computes `O = softmax(scale * Q K^T [+ causal mask]) V`
      and, optionally, the per-row log-sum-exp, for batched multi-head,
      grouped-query and multi-query attention. It exists in a tensor form
      (destination passing style, like `linalg`) and a memref form; one-shot
      bufferization turns the first into the second.
    * The tile-level ops (`fa.qk`, `fa.mask`, `fa.online_softmax`, `fa.pv`,
      `fa.finalize`) are what `--fa-tile-q-outer` produces: each one is a step
      of the FlashAttention-2 inner loop on one Q block and one K/V block.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class FA_Op<string mnemonic, list<Trait> traits = []>
    : Op<FA_Dialect, mnemonic, traits>;

class FA_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FA_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // FA_DIALECT_TD
