//===- FAAttrs.td - FlashAttention dialect attributes ------*- tablegen -*-===//
//
// Layout encodings of tile tensors, set by --fa-map-warps (stage L3) and read
// by --fa-lower-to-gpu.
//
//===----------------------------------------------------------------------===//

#ifndef FA_ATTRS_TD
#define FA_ATTRS_TD

include "fa/Dialect/FA/IR/FADialect.td"

def FA_WarpRowsAttr : FA_Attr<"WarpRows", "warp_rows"> {
  let summary = "tile rows split across the warps of a thread block";
  let description = [{
    Encoding of a Q-row-indexed tile (`Q_i`, `S`, `P`, `acc`, `O_i`) or
    per-row vector (`m`, `l`, `alpha`, `LSE_i`) with `R` rows: warp `w` of
    the `num_warps` warps owns rows `[w * R / num_warps, (w + 1) * R /
    num_warps)`, whole rows, so that no row reduction crosses a warp. Inside
    a warp, rows live in the registers of `mma.sync.m16n8k16` fragments: the
    4 lanes of a quad share a row.

    ```mlir
    tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>
    ```
  }];
  let parameters = (ins "int64_t":$numWarps);
  let assemblyFormat = "`<` `num_warps` `=` $numWarps `>`";
  let genVerifyDecl = 1;
}

def FA_BlockSharedAttr : FA_Attr<"BlockShared", "block_shared"> {
  let summary = "tile shared by all warps of a thread block";
  let description = [{
    Encoding of a K/V tile: every warp reads all of it, so it is copied into
    shared memory once, cooperatively, by the whole thread block.

    ```mlir
    tensor<64x128xf16, #fa.block_shared>
    ```
  }];
}

#endif // FA_ATTRS_TD
