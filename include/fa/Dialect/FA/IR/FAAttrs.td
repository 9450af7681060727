//===- FAAttrs.td - FlashAttention dialect attributes ------*- tablegen -*-===//
//
// Layout encodings of tile tensors (stage L3, set by --fa-map-warps) and the
// MMA atoms they name. The encodings are what --fa-lower-to-gpu's type
// converter reads: the atom named by an encoding decides which per-thread
// fragments a tile becomes and how a shared tile is laid out.
//
//===----------------------------------------------------------------------===//

#ifndef FA_ATTRS_TD
#define FA_ATTRS_TD

include "fa/Dialect/FA/IR/FADialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Fragment roles
//===----------------------------------------------------------------------===//

def FA_FragmentRole : I32EnumAttr<"FragmentRole",
    "what the threads of a warp hold of a tile they own by rows", [
  I32EnumAttrCase<"Acc", 0, "acc">,
  I32EnumAttrCase<"OperandA", 1, "operand_a">,
  I32EnumAttrCase<"Rows", 2, "rows">,
  I32EnumAttrCase<"PartialRows", 3, "partial_rows">
]> {
  let cppNamespace = "::mlir::fa";
  let genSpecializedAttr = 0;
}

def FA_ReplicaShare : I32EnumAttr<"ReplicaShare",
    "what each group of warps of a replicated tile holds of it", [
  I32EnumAttrCase<"Whole", 0, "whole">,
  I32EnumAttrCase<"Columns", 1, "columns">,
  I32EnumAttrCase<"Sum", 2, "sum">
]> {
  let cppNamespace = "::mlir::fa";
  let genSpecializedAttr = 0;
}

def FA_MmaTurn : I32EnumAttr<"MmaTurn",
    "a step of the warpgroups' turns at issuing matmuls (fa.mma_turn)", [
  I32EnumAttrCase<"Open", 0, "open">,
  I32EnumAttrCase<"Take", 1, "take">,
  I32EnumAttrCase<"Pass", 2, "pass">,
  I32EnumAttrCase<"Close", 3, "close">
]> {
  let cppNamespace = "::mlir::fa";
}

def FA_ReplicaShareParameter : EnumParameter<FA_ReplicaShare> {
  let defaultValue = "::mlir::fa::ReplicaShare::Whole";
}

//===----------------------------------------------------------------------===//
// The MMA atom interface
//===----------------------------------------------------------------------===//

def FA_MmaAtomAttrInterface : AttrInterface<"MmaAtomAttrInterface"> {
  let cppNamespace = "::mlir::fa";
  let description = [{
    An MMA atom is an instruction family for the tile matmuls (QK^T, PV) and
    everything that has to agree with it: the per-thread fragments of tiles
    owned by a warp, where each matmul operand lives (registers or shared
    memory), and the shared-memory layout of tiles that all warps read. The
    layout encodings (`#fa.warp_rows`, `#fa.block_shared`) name an atom; the
    verifier, `--fa-map-warps`, `--fa-schedule-softmax` and the GPU lowering
    ask it these questions. The instructions themselves are emitted by the
    atom's lowering in `lib/Conversion/FAToGPU/Atoms/`.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks that a tile of `shape` and `elementType` can be held by
        `numWarps` warps in `role`; emits a diagnostic naming the rule if not.
      }], "::llvm::LogicalResult", "verifyFragment",
      (ins "::mlir::fa::FragmentRole":$role, "::llvm::ArrayRef<int64_t>":$shape,
           "::mlir::Type":$elementType, "int64_t":$numWarps,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{
        Checks that a tile of `shape` and `elementType` can live in shared
        memory in this atom's layout.
      }], "::llvm::LogicalResult", "verifySharedTile",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{
        The values one thread holds of a (verified) tile, in order: the type
        converter of the GPU lowering turns the tile into these.
      }], "::llvm::SmallVector<::mlir::Type>", "getFragmentTypes",
      (ins "::mlir::fa::FragmentRole":$role, "::llvm::ArrayRef<int64_t>":$shape,
           "::mlir::Type":$elementType, "int64_t":$numWarps)>,
    InterfaceMethod<[{
        32-bit registers one thread needs for a (verified) tile.
      }], "int64_t", "getFragmentRegisters",
      (ins "::mlir::fa::FragmentRole":$role, "::llvm::ArrayRef<int64_t>":$shape,
           "::mlir::Type":$elementType, "int64_t":$numWarps)>,
    InterfaceMethod<[{
        Bytes of shared memory a tile of `shape` takes in this atom's layout.
      }], "int64_t", "getSharedTileBytes",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType)>,
    InterfaceMethod<[{
        Register budget: the most registers per thread that the S and O
        accumulators (and Q, when it is kept in registers) may take before
        the kernel spills. Tiles over it are rejected by the GPU lowering.
      }], "int64_t", "getMaxFragmentRegisters">,
    InterfaceMethod<[{
        Register budget up to which Q is kept in registers across the K/V
        loop (`--fa-map-warps`) instead of being re-read from shared memory.
      }], "int64_t", "getQueryInRegistersBudget">,
    InterfaceMethod<[{
        Register budget up to which the accumulator is rescaled before the
        exponentials of the online softmax (`--fa-schedule-softmax`).
      }], "int64_t", "getEarlyRescaleBudget">,
    InterfaceMethod<[{
        Register budget up to which a forward nest's K/V tiles take the
        swizzled shared layout (`#fa.block_shared<..., swizzled = true>`,
        `--fa-map-warps{swizzle-shared=auto}`), whose reads keep more
        addresses live, for kernels compiled for `chip` that keep `extras`
        live (ExtraLiveValues); 0 where the atom has no swizzled layout.
      }], "int64_t", "getSwizzledSharedBudget",
      (ins "const ::mlir::fa::ChipInfo &":$chip,
           "const ::mlir::fa::ExtraLiveValues &":$extras)>,
    InterfaceMethod<[{
        Whether the atom's matmuls run asynchronously to the issuing threads
        (wgmma), so that deferring P V by one K/V block
        (`--fa-pipeline-mma`) overlaps it with the next block's softmax.
      }], "bool", "hasAsyncMatmuls">,
    InterfaceMethod<[{
        The default tiles (block-m, block-n, warps, K/V stages) for head dims
        `headDim` (Q, K) and `valueDim` (V, O): what `--fa-tile-q-outer`,
        `--fa-map-warps` and `--fa-pipeline-kv` pick when not told. Failure
        for head dims the atom has no entry for.
      }], "::mlir::FailureOr<::mlir::fa::TileConfig>", "getDefaultTiles",
      (ins "int64_t":$headDim, "int64_t":$valueDim)>,
    InterfaceMethod<[{
        `tiles`, made smaller where their shared tiles (Q, and `stages`
        K and V tiles of f16/bf16) need more than `sharedMemoryBytes`:
        K/V blocks first, then Q blocks (with fewer warps). Failure if no
        such tiles fit. `padded`: count every tile in the padded layout
        (`--fa-map-warps{swizzle-shared=off}`), else as the atom lays its
        tiles out by default.
      }], "::mlir::FailureOr<::mlir::fa::TileConfig>", "fitTiles",
      (ins "::mlir::fa::TileConfig":$tiles, "int64_t":$headDim,
           "int64_t":$valueDim, "int64_t":$sharedMemoryBytes,
           "bool":$padded)>
  ];
}

//===----------------------------------------------------------------------===//
// Atoms
//===----------------------------------------------------------------------===//

def FA_MmaSyncAtomAttr : FA_Attr<"MmaSyncAtom", "mma_sync",
    [DeclareAttrInterfaceMethods<FA_MmaAtomAttrInterface>]> {
  let summary = "the sm_80 atom: mma.sync.m16n8k16, ldmatrix, cp.async";
  let description = [{
    Warp-level `mma.sync.m16n8k16` with f32 accumulators (sm_80 and newer),
    operands brought from shared memory by `ldmatrix` (`.trans` for a B
    operand stored [k][n]), tiles filled by 16-byte `cp.async`.

    * `acc` fragments of an `[M, N]` tile held by `W` warps: each warp owns
      `M / W` rows, i.e. `M / W / 16` m-tiles; a thread holds, per m-tile
      and per 8-column n-tile, one `vector<2x2xT>`: rows `g` and `g + 8`,
      columns `2t` and `2t + 1` (`g = lane / 4`, `t = lane % 4`).
    * `operand_a` fragments of an `[M, K]` tile: per m-tile and per 16-wide
      k step one `vector<4x2xT>` (T = f16 or bf16).
    * `rows` / `partial_rows` of an `[M]` vector: per m-tile two f32 (rows
      `g` and `g + 8`); `rows` is the same in the 4 lanes of a quad,
      `partial_rows` is a per-lane share whose sum over the quad is the value.
    * Shared tiles are stored row by row, each row padded by 16 bytes, so
      the 8 rows one `ldmatrix` reads start 4 banks apart; or, with
      `#fa.block_shared<..., swizzled = true>`, unpadded with chunk `c` of
      row `r` at `c ^ (r % 8)`.

    An acc tile of f16/bf16 is register-for-register an `operand_a` tile
    (two neighbouring n-tiles are one k step), so P never goes through
    shared memory.
  }];
}

def FA_WgmmaAtomAttr : FA_Attr<"WgmmaAtom", "wgmma",
    [DeclareAttrInterfaceMethods<FA_MmaAtomAttrInterface>]> {
  let summary = "the sm_90a atom: wgmma.mma_async on warpgroups";
  let description = [{
    Warpgroup-level `wgmma.mma_async.m64nNk16` (sm_90a) with f32
    accumulators in registers, the A operand in registers (Q, P) or in
    shared memory, the B operand (K, V) read by the instruction from shared
    memory through a matrix descriptor.

    * Each warp of a warpgroup (4 consecutive warps) owns 16 rows of the
      warpgroup's 64: a tile held by `W` warps (`W` a multiple of 4) has
      exactly `16 W` rows, and warp `w` owns rows `[16 w, 16 w + 16)`, as
      with `#fa.mma_sync` at 16 rows a warp. Within its 16 rows a warp's
      `acc`, `operand_a`, `rows` and `partial_rows` fragments are those of
      `#fa.mma_sync` (the wgmma accumulator and register-A layouts are,
      per warp, the mma.m16n8k16 ones), so the softmax and the stores are
      shared with that atom.
    * Shared tiles are stored as 8 x 8 core matrices, 128 contiguous bytes
      each (8 rows of one 16-byte chunk), row-major over the grid of core
      matrices: wgmma's canonical layout without swizzle, K-major for a tile
      stored [n][k] (K) and MN-major for one stored [k][n] (V). `ldmatrix`
      and `cp.async` address the same core matrices (8 lanes a matrix: no
      bank conflicts). A tile takes the bytes of the `#fa.mma_sync` layout
      (one padding chunk a row), rounded up to 1024, so both atoms plan
      about the same shared memory.
    * With `#fa.block_shared<atom = #fa.wgmma, swizzled = true>`, a tile is
      stored in wgmma's 128-byte-swizzled canonical layout instead: column
      blocks of 64 elements, each its rows of 128 bytes, 16-byte chunk `c`
      of row `r` at chunk `c ^ (r % 8)` (the hardware's XOR of address bits
      4-6 with bits 7-9). Every tile starts on 1024 bytes, and the kernel's
      dynamic shared memory is aligned to 1024 (`fa.shared_alignment`).

    Tiles are filled by `cp.async` (the generic proxy); a
    `fence.proxy.async` before the barrier that publishes them makes them
    visible to wgmma (the async proxy). TMA and warp specialization are
    not part of this atom yet.
  }];
}

//===----------------------------------------------------------------------===//
// Layout encodings
//===----------------------------------------------------------------------===//

def FA_WarpRowsAttr : FA_Attr<"WarpRows", "warp_rows",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "tile rows split across the warps of a thread block";
  let description = [{
    Encoding of a Q-row-indexed tile (`Q_i`, `S`, `P`, `acc`, `O_i`) or
    per-row vector (`m`, `l`, `alpha`, `LSE_i`) with `R` rows: warp `w` of
    the `num_warps` warps owns rows `[w * R / num_warps, (w + 1) * R /
    num_warps)`, whole rows, so that no row reduction crosses a warp. The
    role says which fragments of `atom` a thread holds:

    * `acc`: an accumulator (the C/D operand of the atom's MMA);
    * `operand_a`: the A operand of the atom's MMA, in registers;
    * `rows`: a per-row vector, each value held by every lane that owns a
      part of that row;
    * `partial_rows`: a per-row vector held as per-lane shares that sum to
      the value (the running softmax sum, reduced across lanes only once, in
      `fa.finalize`).

    With `replicas = C` (default 1) the thread block has `C` groups of
    `num_warps` warps, and every group holds the whole tile, warp `w` of
    group `c` the rows warp `w` of a one-group block would: the values are
    the same in every group. An op may divide its work among the groups as
    long as each of them ends with the whole result (split-KV's merge,
    `--fa-tile-combine{split-warps}`, gives each group a share of the
    splits and sums the shares in shared memory); stores and atomics are
    issued by group 0 only, cooperative copies by every thread.

    `share` (default `whole`, not printed) says what a group holds when the
    groups divide a tile between them instead (warps along the keys,
    `--fa-map-warps{key-groups}`; `#fa.mma_sync` only):

    * `columns`: group `c` holds columns `[c * N / C, (c + 1) * N / C)` of
      an `[M, N]` `acc` or `operand_a` tile (S and P of a K/V block whose
      keys the groups divide), in the fragments of an `[M, N / C]` tile;
    * `sum`: every group holds a whole `acc` or `partial_rows` tile, and
      the tile is the sum of the groups' (the P V accumulator and the
      running sum of groups that saw different keys); `fa.finalize` adds
      them up in group order.

    Reductions along a row of a `columns` tile cross the groups (the
    running max meets in shared memory).

    ```mlir
    tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>
    tensor<32x8xf32, #fa.warp_rows<acc, num_warps = 2, replicas = 8, atom = #fa.mma_sync>>
    tensor<16x128xf32, #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>>
    ```
  }];
  let parameters = (ins EnumParameter<FA_FragmentRole>:$role,
                        "int64_t":$numWarps,
                        "::mlir::fa::MmaAtomAttrInterface":$atom,
                        DefaultValuedParameter<"int64_t", "1">:$replicas,
                        FA_ReplicaShareParameter:$share);
  let builders = [
    AttrBuilder<(ins "::mlir::fa::FragmentRole":$role, "int64_t":$numWarps,
                     "::mlir::fa::MmaAtomAttrInterface":$atom), [{
      return $_get($_ctxt, role, numWarps, atom, 1,
                   ::mlir::fa::ReplicaShare::Whole);
    }]>,
    AttrBuilder<(ins "::mlir::fa::FragmentRole":$role, "int64_t":$numWarps,
                     "::mlir::fa::MmaAtomAttrInterface":$atom,
                     "int64_t":$replicas), [{
      return $_get($_ctxt, role, numWarps, atom, replicas,
                   ::mlir::fa::ReplicaShare::Whole);
    }]>
  ];
  let assemblyFormat =
      "`<` $role `,` `num_warps` `=` $numWarps `,` "
      "(`replicas` `=` $replicas^ `,`)? (`share` `=` $share^ `,`)? "
      "`atom` `=` $atom `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shape of the part of a tile of `shape` that one group holds
    /// (the columns of its share for `share = columns`, else `shape`).
    ::llvm::SmallVector<int64_t> groupShape(::llvm::ArrayRef<int64_t> shape) const {
      ::llvm::SmallVector<int64_t> held(shape.begin(), shape.end());
      if (getShare() == ::mlir::fa::ReplicaShare::Columns && held.size() == 2)
        held[1] /= getReplicas();
      return held;
    }
  }];
}

def FA_BlockSharedAttr : FA_Attr<"BlockShared", "block_shared",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "tile in shared memory, readable by every warp of the block";
  let description = [{
    Encoding of a tile that all warps of a thread block read (the K and V
    tiles, and Q when it is re-read for every K/V block): it is copied into
    shared memory once, cooperatively, in the layout of `atom`.

    With `transposed = true` an `[R, C]` tile is the transpose of the
    `[C, R]` tile stored there: element `(r, c)` is where element `(c, r)` of
    the stored tile is (`fa.transpose` of a shared tile is a view, not a
    copy). The atom reads it with transposing loads (`#fa.mma_sync`:
    `ldmatrix.trans` for an A operand).

    With `swizzled = true` the stored rows are not padded: the 16-byte
    chunk `c` of stored row `r` sits at chunk `c ^ (r % 8)`, an XOR within
    each 128-byte segment of the row (as in FlashAttention-2 and CUTLASS;
    `#fa.wgmma` stores each 128-byte column block of the rows as its own
    sub-tile, wgmma's 128-byte swizzle). The 8 rows one `ldmatrix` reads then meet
    no bank twice, as with padding, and every 128-byte segment of a source
    row is copied into one aligned 128-byte segment of shared memory, which
    the padded layout's 16-byte shift per row does not give (there, `cp.async`
    splits its L2 requests: 1.5x the sectors, measured). Stored rows must be
    multiples of 128 bytes, and the stored tile at least 8 rows.

    ```mlir
    tensor<64x128xf16, #fa.block_shared<atom = #fa.mma_sync>>
    tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync, transposed = true>>
    tensor<64x128xf16, #fa.block_shared<atom = #fa.mma_sync, swizzled = true>>
    tensor<64x128xf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>
    ```
  }];
  let parameters = (ins "::mlir::fa::MmaAtomAttrInterface":$atom,
                        DefaultValuedParameter<"bool", "false">:$transposed,
                        DefaultValuedParameter<"bool", "false">:$swizzled);
  let builders = [
    AttrBuilder<(ins "::mlir::fa::MmaAtomAttrInterface":$atom), [{
      return $_get($_ctxt, atom, false, false);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// Whether a tile stored as `stored` x `elementType` can take the
    /// swizzled layout: 2-D, rows of a multiple of 128 bytes, a multiple of
    /// 8 rows.
    static bool isSwizzlable(::llvm::ArrayRef<int64_t> stored,
                             ::mlir::Type elementType) {
      return stored.size() == 2 && elementType.isIntOrFloat() &&
             stored[1] * elementType.getIntOrFloatBitWidth() / 8 % 128 == 0 &&
             stored[0] % 8 == 0;
    }
    /// The shape of the tile as stored: `shape`, or reversed when transposed.
    ::llvm::SmallVector<int64_t> storedShape(::llvm::ArrayRef<int64_t> shape) const {
      ::llvm::SmallVector<int64_t> stored(shape.begin(), shape.end());
      if (getTransposed())
        std::reverse(stored.begin(), stored.end());
      return stored;
    }
  }];
}

#endif // FA_ATTRS_TD
