//===- TiledAttention.h - Recognise the tiled loop nest ---------*- C++ -*-===//
//
// The loop nest that --fa-tile-q-outer writes (L1), possibly split by
// --fa-causal-block-skip (L2) and annotated by --fa-map-warps (L3), read back
// into a struct. Passes after tiling (warp mapping, GPU lowering) work on this
// view instead of re-discovering the structure each time.
//
//===----------------------------------------------------------------------===//

#ifndef FA_TRANSFORMS_TILEDATTENTION_H
#define FA_TRANSFORMS_TILEDATTENTION_H

#include "fa/Dialect/FA/IR/FA.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace fa {

/// A tile read from a [B, H, N, D] tensor: `extract_slice` of rows
/// [rowStart, rowStart + rows) of head `head` of batch `batch`, zero-padded
/// to a static tile by `tensor.pad`; or, `alongHeads` (GQA packing of one
/// query position), of heads [head, head + rows) at position `rowStart`.
struct TileLoad {
  tensor::PadOp pad;
  tensor::ExtractSliceOp slice;
  bool alongHeads = false;
  Value source() { return slice.getSource(); }
  OpFoldResult batch() { return slice.getMixedOffsets()[0]; }
  OpFoldResult head() { return slice.getMixedOffsets()[1]; }
  OpFoldResult rowStart() { return slice.getMixedOffsets()[2]; }
  OpFoldResult rows() { return slice.getMixedSizes()[alongHeads ? 1 : 2]; }
};

/// One inner loop over K/V blocks.
struct KVLoop {
  scf::ForOp loop;
  TileLoad key, value;
  QKOp qk;
  MaskOp mask; // Null in the unmasked loop of L2.
  PVOp pv;
};

/// One tiled fa.attention: the scf.forall over (batch, head, Q block).
struct TiledAttention {
  scf::ForallOp forall;
  TileLoad query;
  SmallVector<KVLoop> kvLoops; // In program order, chained through iter_args.
  FinalizeOp finalize;
  tensor::ParallelInsertSliceOp storeOut;
  tensor::ParallelInsertSliceOp storeLse; // Null without an LSE output.

  int64_t blockM() { return shape(qkScores())[0]; }
  int64_t blockN() { return shape(qkScores())[1]; }
  int64_t headDim() { return shape(query.pad.getResult().getType())[1]; }
  int64_t valueDim() { return shape(finalize.getOut().getType())[1]; }
  Type elementType() {
    return cast<RankedTensorType>(query.pad.getResult().getType())
        .getElementType();
  }

private:
  Type qkScores() { return kvLoops.front().qk.getScores().getType(); }
  static ArrayRef<int64_t> shape(Type t) {
    return cast<RankedTensorType>(t).getShape();
  }
};

/// A discardable attribute of a tiled loop nest: the K/V stages the tiling
/// picked (`--fa-tile-q-outer{auto-blocks}`, when not the atom's table's),
/// which `--fa-pipeline-kv{stages=0}` applies.
inline constexpr llvm::StringLiteral kKVStagesAttrName = "fa.kv_stages";

/// A discardable attribute of a tiled loop nest: the MMA atom
/// `--fa-tile-q-outer` sized its tiles for (#fa.mma_sync or #fa.wgmma; with
/// atom=auto, the one chooseAtom picked for it), which
/// `--fa-map-warps{atom=auto}` names in the nest's layouts.
inline constexpr llvm::StringLiteral kMmaAtomAttrName = "fa.mma_atom";

/// A discardable attribute of a tiled loop nest: the groups of warps the
/// tiling picked to divide the keys of each K/V block (a decode step's
/// small Q block, `--fa-tile-q-outer{auto-blocks}`), which
/// `--fa-map-warps{key-groups=0}` applies.
inline constexpr llvm::StringLiteral kKeyGroupsAttrName = "fa.key_groups";

/// A discardable attribute of the backward's dK/dV loop nest: the groups
/// of warps `--fa-tile-backward{dq=auto}` sized its tiles for, which split
/// the columns of its accumulators (a [4, groups] warp grid), and which
/// `--fa-map-warps{dkdv-groups=0}` applies.
inline constexpr llvm::StringLiteral kDkdvGroupsAttrName = "fa.dkdv_groups";

/// A discardable unit attribute of a tiled loop nest: its per-block scalars
/// read from memory (a packed sequence's offsets and lengths) are to be
/// kept in shared memory across the K/V loops rather than in registers
/// (`--fa-tile-q-outer{auto-blocks}` asks for it where it keeps the table's
/// tiles for them; `--fa-lower-to-gpu` copies it onto the kernel, where
/// `--fa-stage-block-scalars` applies it). Those scalars then no longer
/// count among the extra live values.
inline constexpr llvm::StringLiteral kStageBlockScalarsAttrName =
    "fa.stage_block_scalars";

/// A discardable unit attribute of a tiled loop nest that --fa-split-kv
/// wrote: each iteration runs over one chunk of the keys, whose clamped
/// bounds stay live in the K/V loops like a window's left bound.
inline constexpr llvm::StringLiteral kSplitKVAttrName = "fa.split_kv";

/// Which rows the sizes of a slice of a [B, H, N, ...] tensor or memref
/// (rank 3 or more) take: false for rows of one head ([1, 1, n, ...]), true
/// for one position of consecutive heads ([1, n, 1, ...]; a constant n = 1
/// reads as the former, the same element); nullopt for any other slice.
std::optional<bool> sliceRowsAlongHeads(ArrayRef<OpFoldResult> sizes);

/// A tile load: `tensor.pad` (high, of zeros) of a `tensor.extract_slice` of
/// rows of one head of a 4-D tensor, or of one position of several heads;
/// failure for anything else.
FailureOr<TileLoad> matchTileLoad(Value tile);

/// The one fa.qk and the one fa.pv directly in `body` (a K/V loop's: one
/// block's step); nullopt where either is missing or appears twice.
std::optional<std::pair<QKOp, PVOp>> findBlockProducts(Block *body);

/// The keys of a K/V loop's blocks (the rows of the key tile of the one
/// fa.qk of its body), or 0 where there is no one fa.qk.
int64_t blockKeys(scf::ForOp loop);

/// FlashAttention-3's ping-pong pays where a warpgroup's turn covers the
/// softmax of a block of at least this many keys: 128 x 128 blocks at
/// d = 128 gain 2-7 % with the turns (H100), 128 x 64 ones lose 4-5 %
/// (H200; docs/performance.md, sessions 23 and 22). The
/// `auto` of --fa-pingpong{min-block-keys} and --fa-pipeline-kv{release}.
constexpr int64_t kTurnBlockKeys = 128;

/// Whether the index `v` is a multiple of `n` by construction: a constant
/// multiple, a product with one, or the sum, difference, min, max or select
/// of two (the K/V loop bounds that the tiling, --fa-causal-block-skip and
/// --fa-split-kv write).
bool isMultipleOf(Value v, int64_t n);

/// The extra live values (TileConfig) of the kernel around `op`: a sliding
/// window's left bound (an fa.mask with `window_offset`), a soft cap (an
/// fa.softcap), per-sequence bounds read from memory (scalars extracted
/// from an integer tensor: packed sequences' offsets, K/V-cache lengths,
/// page tables). The K/V loops of a kernel (the masked edges and the
/// unmasked middle) share its registers, so one loop's values count for
/// all of them. Used by --fa-map-warps (the shared layout) and
/// --fa-schedule-softmax (the rescale's place). Split-KV's chunk bounds
/// (kSplitKVAttrName) are not counted here: --fa-map-warps adds them;
/// counted for the rescale they would move it in the decode kernels, which
/// have the registers (docs/reliability.md, "Split-KV prefill").
int64_t countExtraLiveValues(Operation *op);

/// The same values by kind (`split` false: read kSplitKVAttrName).
ExtraLiveValues collectExtraLiveValues(Operation *op);

/// The same count read off an untiled fa.attention (its window's left
/// bound, soft cap, key lengths or packed sequences), for the tiling's
/// choice of tiles before the kernel exists.
int64_t countExtraLiveValues(AttentionOp op);

/// Reads `forall` as a tiled fa.attention. Returns failure, with a remark on
/// the op naming what did not match, when it is some other loop nest (for
/// those, `diagnose` false keeps quiet).
FailureOr<TiledAttention> matchTiledAttention(scf::ForallOp forall,
                                              bool diagnose);

} // namespace fa
} // namespace mlir

#endif // FA_TRANSFORMS_TILEDATTENTION_H
