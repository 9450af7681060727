//===- FATypes.td - FlashAttention dialect types -----------*- tablegen -*-===//

#ifndef FA_TYPES_TD
#define FA_TYPES_TD

include "fa/Dialect/FA/IR/FADialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"

class FA_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<FA_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def FA_FutureType : FA_Type<"Future", "future"> {
  let summary = "tiles being loaded asynchronously";
  let description = [{
    What `fa.async_load` returns: one or more tiles whose copy has been
    issued but may not have landed. `fa.await` turns it into the tiles. On
    the GPU it is the shared-memory slot the tiles are copied into; on the
    CPU, the tiles themselves.

    ```mlir
    !fa.future<tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>,
               tensor<64x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::RankedTensorType">:$tiles);
  let assemblyFormat = "`<` $tiles `>`";
  let genVerifyDecl = 1;
}

#endif // FA_TYPES_TD
