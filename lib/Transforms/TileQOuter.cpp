//===- TileQOuter.cpp - fa.attention -> FlashAttention-2 loop nest --------===//
//
// Stage L0 -> L1: the Q-outer loop nest of FlashAttention-2. One scf.forall
// iteration per (batch, query head, Q block), an inner scf.for over K/V blocks
// that carries (m, l, acc), and one normalisation after the loop. A K/V
// cache (key_lengths, block_table) gives each sequence its own key count
// and, paged, its blocks' pages; packed sequences (cu_seqlens) give each
// Q block its sequence (fa.varlen_block) and sequence-local rows and keys.
//
//===----------------------------------------------------------------------===//

#include "TensorAttentionOps.h"
#include "fa/Dialect/FA/IR/Chips.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FATILEQOUTER
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {


/// Emits the L1 loop nest for one tensor-form fa.attention.
class QOuterTiler {
public:
  QOuterTiler(RewriterBase &rewriter, fa::AttentionOp op, int64_t blockM,
              int64_t blockN, bool packGqa)
      : b(rewriter), loc(op.getLoc()), op(op), blockM(blockM),
        blockN(blockN), packGqa(packGqa), f32(rewriter.getF32Type()),
        elemTy(getElementTypeOrSelf(op.getQuery().getType())) {
    auto qTy = cast<RankedTensorType>(op.getQuery().getType());
    headDim = qTy.getDimSize(3);
    valueDim = cast<RankedTensorType>(op.getValue().getType()).getDimSize(3);
    numHeads = qTy.getDimSize(1);
  }

  /// Builds the loop nest and returns the values replacing the op's results.
  SmallVector<Value> build();

private:
  /// Index constants, created once before the loop nest so that it reads
  /// like the algorithm rather than a list of constants.
  Value index(int64_t v) {
    Value &cst = indexConstants[v];
    if (!cst) {
      OpBuilder::InsertionGuard guard(b);
      if (firstConstant)
        b.setInsertionPoint(firstConstant);
      cst = arith::ConstantIndexOp::create(b, loc, v);
      if (!firstConstant)
        firstConstant = cst.getDefiningOp();
    }
    return cst;
  }

  /// rows [start, start + count) of `source[batch, head, :, :]`, padded with
  /// zeros to `tileRows` rows: the tile is static even for the last block.
  /// With `alongHeads`, rows [head, head + count) of `source[batch, :,
  /// start, :]` instead (GQA packing of a single query).
  Value loadTile(Value source, Value batch, Value head, Value start,
                 Value count, int64_t tileRows, int64_t cols,
                 bool alongHeads = false);
  /// The offsets and sizes of `count` rows of a [B, H, N, ...] tensor (rank
  /// 3 or 4), along the sequence or, with `alongHeads`, along the heads.
  void rowSlice(Value batch, Value head, Value start, OpFoldResult count,
                int64_t rank, int64_t cols, bool alongHeads,
                SmallVectorImpl<OpFoldResult> &offsets,
                SmallVectorImpl<OpFoldResult> &sizes);

  /// One step of the inner loop: returns the new (m, l, acc).
  SmallVector<Value> kvStep(Value qTile, Value batch, Value kvHead,
                            Value qStart, Value kStart, Value numKeys,
                            ValueRange state);
  /// The mask's diagonal offsets for `numKeys` keys (causalOffset,
  /// windowOffset).
  void buildMaskOffsets(Value numQueries, Value numKeys);

  RewriterBase &b;
  Location loc;
  fa::AttentionOp op;
  int64_t blockM, blockN;
  /// The Q block holds query heads of one group at query 0 (pack-gqa).
  bool packGqa;
  Type f32, elemTy;
  int64_t headDim, valueDim, numHeads;
  DenseMap<int64_t, Value> indexConstants;
  Operation *firstConstant = nullptr;
  /// The softmax scale times log2(e): scores live in the log2 domain so the
  /// softmax can use exp2. One f32 value outside the loop nest (a kernel
  /// parameter on the GPU). With a soft cap c, fa.softcap computes
  /// tanh(scale / c * s) (`capScale`, no cap operand) and the softmax's
  /// scale is c * log2(e).
  Value scaleLog2, capScale;
  /// The mask's diagonal offsets (null: that side unbounded).
  Value causalOffset, windowOffset;
  /// Packed sequences (cu_seqlens): the sequence's first key row, added to
  /// the K/V tiles' (sequence-local) row starts; null otherwise.
  Value kvRowBase;
};

void QOuterTiler::rowSlice(Value batch, Value head, Value start,
                           OpFoldResult count, int64_t rank, int64_t cols,
                           bool alongHeads,
                           SmallVectorImpl<OpFoldResult> &offsets,
                           SmallVectorImpl<OpFoldResult> &sizes) {
  OpFoldResult one = b.getIndexAttr(1);
  offsets.assign({batch, head, start});
  sizes.assign({one, alongHeads ? count : one, alongHeads ? one : count});
  if (rank == 4) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(cols));
  }
}

Value QOuterTiler::loadTile(Value source, Value batch, Value head, Value start,
                            Value count, int64_t tileRows, int64_t cols,
                            bool alongHeads) {
  auto sliceTy = RankedTensorType::get({ShapedType::kDynamic, cols}, elemTy);
  SmallVector<OpFoldResult> offsets, sizes;
  rowSlice(batch, head, start, count, 4, cols, alongHeads, offsets, sizes);
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value slice = tensor::ExtractSliceOp::create(b, loc, sliceTy, source,
                                               offsets, sizes, strides);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));
  auto tileTy = RankedTensorType::get({tileRows, cols}, elemTy);
  return tensor::createPadHighOp(tileTy, slice, zero, /*nofold=*/false, loc,
                                 b);
}

SmallVector<Value> QOuterTiler::kvStep(Value qTile, Value batch, Value kvHead,
                                       Value qStart, Value kStart,
                                       Value numKeys, ValueRange state) {
  Value m = state[0], l = state[1], acc = state[2];
  // The last K/V block may be partial: load min(block-n, Nk - k0) rows.
  Value remaining = arith::SubIOp::create(b, loc, numKeys, kStart);
  Value kRows = arith::MinSIOp::create(b, loc, index(blockN), remaining);
  Value kTile, vTile;
  if (op.isPaged()) {
    // A K/V block lies in one page (block-n divides the page size): rows
    // [row, row + kRows) of head kvHead of page `page` of the pools, a
    // slice along dim 1 like the packed GQA rows.
    auto [page, row] = fa::semantics::pageOfKey(
        b, loc, op.getBlockTable(), batch, kStart, op.getPageSize());
    // A block that is a whole page starts it (kStart is a multiple of
    // block-n): no row to carry.
    if (blockN == op.getPageSize())
      row = index(0);
    kTile = loadTile(op.getKey(), page, row, kvHead, kRows, blockN, headDim,
                     /*alongHeads=*/true);
    vTile = loadTile(op.getValue(), page, row, kvHead, kRows, blockN,
                     valueDim, /*alongHeads=*/true);
  } else {
    Value row = kvRowBase ? arith::AddIOp::create(b, loc, kvRowBase, kStart)
                                .getResult()
                          : kStart;
    kTile = loadTile(op.getKey(), batch, kvHead, row, kRows, blockN, headDim);
    vTile =
        loadTile(op.getValue(), batch, kvHead, row, kRows, blockN, valueDim);
  }

  auto scoresTy = RankedTensorType::get({blockM, blockN}, f32);
  Value s = fa::QKOp::create(b, loc, scoresTy, qTile, kTile);
  if (capScale)
    s = fa::SoftcapOp::create(b, loc, s, capScale, /*cap=*/Value());
  s = fa::MaskOp::create(b, loc, scoresTy, s, qStart, kStart, numKeys,
                         causalOffset, windowOffset, /*single_query=*/packGqa);
  auto softmax = fa::OnlineSoftmaxOp::create(
      b, loc, scoresTy, m.getType(), l.getType(), m.getType(), s, m, l,
      scaleLog2);
  Value p = softmax.getProbs();
  if (elemTy != f32)
    p = arith::TruncFOp::create(
        b, loc, RankedTensorType::get({blockM, blockN}, elemTy), p);
  Value rescaled =
      fa::RescaleOp::create(b, loc, acc.getType(), acc, softmax.getAlpha());
  Value newAcc = fa::PVOp::create(b, loc, acc.getType(), p, vTile, rescaled);
  return {softmax.getNewMax(), softmax.getNewSum(), newAcc};
}

void QOuterTiler::buildMaskOffsets(Value numQueries, Value numKeys) {
  // Bottom-right alignment: query row i sees keys j with
  // i + (Nk - Nq) - left <= j <= i + (Nk - Nq) + right.
  auto [left, right] = op.getVisibleWindow();
  fa::semantics::MaskSpec mask = fa::semantics::MaskSpec::forWindow(
      b, loc, numQueries, numKeys, left, right,
      [&](int64_t v) { return index(v); });
  causalOffset = mask.causalOffset;
  windowOffset = mask.windowOffset;
}

SmallVector<Value> QOuterTiler::build() {
  Value q = op.getQuery(), k = op.getKey();
  index(0); // Anchors the index constants before the loop nest.
  double scale = op.getEffectiveScale();
  if (std::optional<APFloat> c = op.getSoftcap()) {
    // c * tanh(scale * s / c) enters the softmax as tanh(scale * s / c) with
    // the softmax scale c: the online softmax multiplies every score by its
    // scale anyway (one FFMA with the running max), so the cap costs no
    // multiply of its own per score (measured: docs/performance.md). The
    // running max is that of the capped scores over c, and the LSE the
    // same as with the cap in fa.softcap.
    double capValue = c->convertToDouble();
    capScale =
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale / capValue));
    scale = capValue;
  }
  scaleLog2 =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale * M_LOG2E));
  // Static sizes become constants, dynamic ones tensor.dim.
  auto size = [&](Value t, int64_t dim) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           tensor::getMixedSize(b, loc, t, dim));
  };
  OpFoldResult batchSize = tensor::getMixedSize(b, loc, q, 0);
  Value numQueries = size(q, 2);
  // The keys: Nk, or with a K/V cache each sequence's own count (computed
  // per batch in the loop nest) of at most the cache's capacity.
  Value numKeys =
      op.isPaged()
          ? arith::MulIOp::create(b, loc, size(op.getBlockTable(), 1),
                                  index(op.getPageSize()))
                .getResult()
          : size(k, 2);
  Value capacity = numKeys;
  // The rows the Q blocks cover: the queries of one head, or with pack-gqa
  // the heads of one group (at the single query).
  int64_t groupSize = op.getGroupSize();
  Value numRows = packGqa ? index(groupSize) : numQueries;
  Value numQBlocks, numSeqs, perSequence;
  if (!op.isVarlen()) {
    numQBlocks = arith::CeilDivUIOp::create(b, loc, numRows, index(blockM));
  } else {
    // Packed sequences: the Q blocks of all sequences, in order, fewer than
    // ceil(total_q / block-m) + S (fa.varlen_block finds each one's), or
    // with max_seqlen_q where fewer, p slots a sequence.
    numSeqs = arith::SubIOp::create(b, loc, size(op.getCuSeqlensQ(), 0),
                                    index(1));
    fa::semantics::VarlenGrid grid = fa::semantics::varlenGrid(
        b, loc, numRows, numSeqs, op.getMaxSeqlenQ(), blockM);
    numQBlocks = grid.blocks;
    perSequence = grid.perSequence;
  }
  if (!op.getKeyLengths() && !op.isVarlen())
    buildMaskOffsets(numQueries, numKeys);

  // The forall's heads: query heads, or with pack-gqa key/value heads.
  int64_t gridHeads = packGqa ? numHeads / groupSize : numHeads;
  SmallVector<OpFoldResult> upperBounds = {
      batchSize, b.getIndexAttr(gridHeads), numQBlocks};
  auto forall = scf::ForallOp::create(b, loc, upperBounds, op.getOutputs(),
                                      /*mapping=*/std::nullopt);
  Block *body = forall.getBody();
  Value batch = body->getArgument(0), qBlock = body->getArgument(2);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  if (Value lengths = op.getKeyLengths()) {
    // This sequence's keys, and its own diagonal.
    numKeys =
        fa::semantics::sequenceKeyCount(b, loc, lengths, batch, capacity);
    buildMaskOffsets(numQueries, numKeys);
  }
  // Packed sequences: this iteration's sequence and its Q block; rows and
  // keys are counted from the sequence's start (qRowBase, kvRowBase), the
  // diagonal is its own.
  Value qRowBase;
  if (op.isVarlen()) {
    auto block = fa::VarlenBlockOp::create(
        b, loc, op.getCuSeqlensQ(), op.getCuSeqlensK(), qBlock,
        b.getI64IntegerAttr(blockM), perSequence);
    qBlock = block.getBlock();
    qRowBase = block.getQueryStart();
    kvRowBase = block.getKeyStart();
    numQueries = numRows = block.getNumQueries();
    numKeys = block.getNumKeys();
    buildMaskOffsets(numQueries, numKeys);
  }
  // Row r of the block is query row qStart + r of query head `head`, or with
  // pack-gqa query 0 of query head `head` + r.
  Value rowStart = arith::MulIOp::create(b, loc, qBlock, index(blockM));
  Value qRows = arith::MinSIOp::create(
      b, loc, index(blockM), arith::SubIOp::create(b, loc, numRows, rowStart));
  // A Q block past its sequence (or past the last one) has no row and
  // visits no K/V block.
  Value loopEnd = numKeys;
  if (op.isVarlen()) {
    qRows = arith::MaxSIOp::create(b, loc, qRows, index(0));
    Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          qRows, index(0));
    loopEnd = arith::SelectOp::create(b, loc, hasRows, numKeys, index(0));
  }
  Value head, kvHead, qStart;
  if (packGqa) {
    kvHead = body->getArgument(1);
    head = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, kvHead, index(groupSize)),
        rowStart);
    qStart = index(0);
  } else {
    head = body->getArgument(1);
    kvHead = arith::DivUIOp::create(b, loc, head, index(groupSize));
    qStart = rowStart;
  }
  // Where the block's rows are in Q and O.
  Value qTensorStart =
      qRowBase ? arith::AddIOp::create(b, loc, qRowBase, qStart).getResult()
               : qStart;
  Value qTile =
      loadTile(q, batch, head, qTensorStart, qRows, blockM, headDim, packGqa);

  // The online-softmax state: m = -inf, l = 0, acc = 0.
  auto rowsTy = RankedTensorType::get({blockM}, f32);
  auto accTy = RankedTensorType::get({blockM, valueDim}, f32);
  Value m0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(
                  rowsTy, APFloat(-std::numeric_limits<float>::infinity())));
  Value l0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(rowsTy, APFloat(0.0f)));
  Value acc0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accTy, APFloat(0.0f)));

  auto kvLoop = scf::ForOp::create(
      b, loc, index(0), loopEnd, index(blockN), ValueRange{m0, l0, acc0},
      [&](OpBuilder &, Location, Value kStart, ValueRange state) {
        scf::YieldOp::create(b, loc,
                             kvStep(qTile, batch, kvHead, qStart, kStart,
                                    numKeys, state));
      });
  Value m = kvLoop.getResult(0), l = kvLoop.getResult(1),
        acc = kvLoop.getResult(2);

  auto outTileTy = RankedTensorType::get({blockM, valueDim}, elemTy);
  auto finalize = fa::FinalizeOp::create(b, loc, outTileTy, rowsTy, acc, m, l);

  // Only the valid rows of the last Q block are written back.
  OpFoldResult zeroIdx = b.getIndexAttr(0), oneIdx = b.getIndexAttr(1);
  Value oRows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({ShapedType::kDynamic, valueDim}, elemTy),
      finalize.getOut(), ArrayRef<OpFoldResult>{zeroIdx, zeroIdx},
      ArrayRef<OpFoldResult>{qRows, b.getIndexAttr(valueDim)},
      ArrayRef<OpFoldResult>{oneIdx, oneIdx});
  Value lseRows;
  if (op.getLse())
    lseRows = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, f32),
        finalize.getLse(), ArrayRef<OpFoldResult>{zeroIdx},
        ArrayRef<OpFoldResult>{qRows}, ArrayRef<OpFoldResult>{oneIdx});

  b.setInsertionPointToStart(forall.getTerminator().getBody());
  ValueRange sharedOuts = forall.getRegionIterArgs();
  SmallVector<OpFoldResult> offsets, sizes;
  rowSlice(batch, head, qTensorStart, qRows, 4, valueDim, packGqa, offsets,
           sizes);
  tensor::ParallelInsertSliceOp::create(
      b, loc, oRows, sharedOuts[0], offsets, sizes,
      ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(4, oneIdx)));
  if (lseRows) {
    rowSlice(batch, head, qTensorStart, qRows, 3, 0, packGqa, offsets, sizes);
    tensor::ParallelInsertSliceOp::create(
        b, loc, lseRows, sharedOuts[1], offsets, sizes,
        ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(3, oneIdx)));
  }
  return forall.getResults();
}

/// The GPU kernel's tiles for `op`'s head dims, from the table of the sm_80
/// atom (MmaSyncAtom.cpp), which the rest of the GPU pipeline uses too (with
/// the table's K/V block for kernels with a sliding window), shrunk to fit
/// `chip`'s shared memory. A static Nq smaller than the table's Q block (a
/// decode step: one or a few queries against a long K/V cache) gets the
/// smallest Q block of 16, 32 or 64 rows that holds it: a 128-row block
/// would compute 127 padded rows for one query (measured on the H200 at
/// Nq = 1: 16 rows 1.8x faster than 128, docs/performance.md, "Decode").
/// --fa-map-warps then gives it one warp per 16 rows. Entries with more than
/// four warps (d = 160, 192) keep their Q block: one or two warps would
/// then copy the whole K/V tiles alone, and ptxas spills (20-460 bytes).
/// The blocks, and the K/V stages when they differ from the table's (0).
/// The most K/V stages --fa-pipeline-kv takes.
constexpr int64_t kMaxKVStages = 4;

struct AutoTiles {
  int64_t blockM, blockN, stages;
  /// Groups of warps dividing each K/V block's keys (1: none).
  int64_t keyGroups = 1;
  /// Keep the per-block scalars in shared memory (kStageBlockScalarsAttrName).
  bool stageBlockScalars = false;
};

/// Keys a group of warps takes of a K/V block, at least, when the groups
/// divide it (a decode step: --fa-map-warps{key-groups}).
constexpr int64_t kMinKeysPerGroup = 32;
/// Warps a decode step's thread block gets with its key groups.
constexpr int64_t kDecodeWarps = 4;
/// The K/V block of a decode step that key groups divide (head dims up to
/// 128, #fa.mma_sync): 4 groups of 32 keys.
constexpr int64_t kDecodeKVBlock = 128;

FailureOr<AutoTiles>
blocksForHeadDim(fa::AttentionOp op, const fa::ChipInfo &chip, bool packGqa,
                 bool forSplitKV, fa::MmaAtomKind atomKind,
                 bool mayStageBlockScalars, bool paddedShared) {
  int64_t d = cast<ShapedType>(op.getQuery().getType()).getDimSize(3);
  int64_t dv = cast<ShapedType>(op.getValue().getType()).getDimSize(3);
  fa::MmaAtomAttrInterface atom = fa::getMmaAtom(op.getContext(), atomKind);
  FailureOr<fa::TileConfig> tiles = atom.getDefaultTiles(d, dv);
  if (failed(tiles))
    return op.emitError("fa-tile-q-outer: no default tiles for head dims ")
           << d << " and " << dv << " (auto-blocks covers up to 256): give "
           << "block-m and block-n";
  std::optional<int64_t> left = op.getWindowLeft();
  bool windowed = left && *left >= 0;
  bool sequenceBounds = op.getKeyLengths() || op.isVarlen();
  // The extra live values of TileConfig (as --fa-schedule-softmax counts
  // them in the kernel).
  int64_t extraLive = fa::countExtraLiveValues(op);
  // A causal packed nest on Hopper whose window tiles differ from the
  // table's in the K/V block alone (d = 128: 32 keys against 64) keeps the
  // table's tiles and its sequences' offsets and lengths in shared memory
  // across the K/V loops (--fa-stage-block-scalars): ptxas for sm_90 then
  // spills nothing, where with the bounds in registers the table's tiles
  // (128 x 64, swizzled) spill 4 bytes. Not at d = 96, whose window tiles
  // have 64-row Q blocks (its 128-row ones spill 8 bytes with the bounds
  // staged), nor where the window tiles are the table's (nothing to gain).
  // Not without the causal mask: the tail block's mask then needs more
  // registers than staging frees (d = 128 spills 36 bytes), nor with a
  // window or a soft cap, which stay live themselves. On by default
  // (stage-block-scalars=true); docs/performance.md has its timing.
  bool onlyKVBlockDiffers =
      tiles->windowBlockN && tiles->windowBlockN != tiles->blockN &&
      (!tiles->windowBlockM || tiles->windowBlockM == tiles->blockM);
  bool stageBlockScalars = mayStageBlockScalars && op.isVarlen() &&
                           !op.getKeyLengths() && op.getCausal() &&
                           !windowed && !op.getSoftcap() &&
                           onlyKVBlockDiffers && chip.isHopper() &&
                           atomKind == fa::MmaAtomKind::MmaSync;
  if (stageBlockScalars) {
    sequenceBounds = false;
    --extraLive;
  }
  auto useWindowTiles = [&] {
    if (tiles->windowBlockM)
      tiles->blockM = tiles->windowBlockM;
    if (tiles->windowBlockN)
      tiles->blockN = tiles->windowBlockN;
    if (tiles->windowStages)
      tiles->stages = tiles->windowStages;
  };
  if (windowed)
    useWindowTiles();
  // The rows of a Q block: queries, or with pack-gqa the heads of a group.
  int64_t numQueries = packGqa
                           ? op.getGroupSize()
                           : cast<ShapedType>(op.getQuery().getType()).getDimSize(2);
  int64_t tableBlockM = tiles->blockM;
  // (#fa.wgmma holds 16 rows a warp in warpgroups of 4: 64 rows at least.)
  bool wholeWarpgroups = atomKind == fa::MmaAtomKind::Wgmma;
  if (!ShapedType::isDynamic(numQueries) &&
      (tiles->numWarps <= 4 || wholeWarpgroups))
    for (int64_t rows : {16, 32, 64})
      if (numQueries <= rows && rows < tiles->blockM &&
          (!wholeWarpgroups || rows == 64)) {
        tiles->blockM = rows;
        break;
      }
  // A K/V cache's per-sequence key count (and page lookups), or a packed
  // sequence's offsets and counts, are live like a window's left bound
  // (152 bytes of spills at d = 128 on sm_80 with the table's tiles, for
  // packed sequences): with the table's Q block, the table's window
  // tiles (with the others, 8 bytes of spills at d = 96 on sm_80, at
  // d = 128 with 256-key pages on sm_90 and with a dense cache on sm_80;
  // none with these). A shrunk Q
  // block (a decode step) has the registers to spare and keeps its K/V
  // block (64 keys at d = 128: 1.06-1.16x the GB/s of 32 on H200 decode
  // steps, docs/performance.md, "Paged K/V caches").
  // A soft cap where the table says so (d = 96: its 128-row blocks spill
  // with a cap, MmaSyncAtom.cpp) likewise.
  // (#fa.wgmma nests keep theirs: 128 x 128 packed d = 128 kernels
  // assemble without spills, 239 registers, test/Pipelines/ptxas-wgmma.mlir.)
  bool capTight = op.getSoftcap() && tiles->windowTilesWithSoftcap;
  if ((sequenceBounds || capTight) && !windowed &&
      tiles->blockM == tableBlockM && atomKind == fa::MmaAtomKind::MmaSync) {
    useWindowTiles();
    tableBlockM = tiles->blockM;
  }
  // Two extra live values or more: the table's smaller Q block, if any.
  if (extraLive >= 2 && tiles->crowdedBlockM &&
      tiles->blockM > tiles->crowdedBlockM) {
    tiles->blockM = tiles->crowdedBlockM;
    tableBlockM = tiles->blockM;
  }
  // Split-KV's clamped loop bounds are live like a window's left bound: the
  // table's window K/V block where the Q block is the table's (a small Q
  // block has the registers to spare: test/Pipelines/ptxas-split-kv.mlir).
  if (forSplitKV && tiles->blockM == tableBlockM && tiles->windowBlockN)
    tiles->blockN = tiles->windowBlockN;
  // A shrunk Q block of one or two warps (a decode step) has too few warps
  // to ask for the K/V bytes fast enough (docs/performance.md, "where a
  // full-GPU decode step loses to cuDNN"): 128-key blocks whose keys groups
  // of warps divide (below), as cuDNN's 4 warps along the keys. Not with a
  // window (its bounds are live: the window tiles stay) and not above head
  // dim 128 (the shared memory of two stages).
  bool decodeStep = tiles->blockM < tableBlockM &&
                    tiles->blockM < 16 * kDecodeWarps;
  if (decodeStep && !windowed && atomKind == fa::MmaAtomKind::MmaSync &&
      d <= 128 && dv <= 128 && tiles->blockN < kDecodeKVBlock)
    tiles->blockN = kDecodeKVBlock;
  FailureOr<fa::TileConfig> fitted =
      atom.fitTiles(*tiles, d, dv, chip.maxSharedMemoryPerBlock, paddedShared);
  if (failed(fitted))
    return op.emitError("fa-tile-q-outer: no tiles for head dims ")
           << d << " and " << dv << " fit the "
           << chip.maxSharedMemoryPerBlock << " bytes of shared memory of "
           << chip.name;
  // A shrunk Q block (a decode step) leaves the shared memory for a third
  // K/V stage: 1.02-1.27x on H200 decode steps, the most with many thread
  // blocks; split-KV kernels gain nothing from it (0.97-1.04), so they keep
  // the table's (docs/performance.md, "split-KV decode steps"). Only where
  // the tiles then still fit the chip as they are.
  int64_t stages = 0;
  if (!forSplitKV && fitted->blockM < tableBlockM && fitted->stages < 3) {
    fa::TileConfig deeper = *fitted;
    deeper.stages = 3;
    FailureOr<fa::TileConfig> fits =
        atom.fitTiles(deeper, d, dv, chip.maxSharedMemoryPerBlock,
                      paddedShared);
    if (succeeded(fits) && fits->blockM == deeper.blockM &&
        fits->blockN == deeper.blockN)
      stages = 3;
  }
  // A paged K/V block is read from one page: the largest K/V block of at
  // most the table's that divides the page size (the atom's blocks are
  // multiples of 16).
  int64_t kvBlock = fitted->blockN;
  if (op.isPaged()) {
    int64_t pageSize = op.getPageSize();
    while (kvBlock > 16 && pageSize % kvBlock != 0)
      kvBlock /= 2;
    if (pageSize % kvBlock != 0)
      return op.emitError("fa-tile-q-outer: page size ")
             << pageSize << " is not a multiple of 16, the smallest K/V "
             << "block of the " << atom
             << " atom (a K/V block is read from one page)";
  }
  // A decode step's K/V block shrunk to a small page: more stages keep
  // about as many keys in flight as the table's block would (at most
  // fa-pipeline-kv's 4; the same shared memory or less). A shrunk Q block
  // has the registers for them.
  if (kvBlock < fitted->blockN && fitted->blockM < tableBlockM) {
    int64_t base = stages ? stages : fitted->stages;
    stages = std::min<int64_t>(kMaxKVStages, base * (fitted->blockN / kvBlock));
  }
  // Key groups: 4 warps a thread block, each group at least 32 keys of the
  // block (none for the table's Q blocks, or #fa.wgmma).
  int64_t keyGroups = 1;
  int64_t warps = std::max<int64_t>(1, fitted->blockM / 16);
  if (decodeStep && atomKind == fa::MmaAtomKind::MmaSync && warps < kDecodeWarps)
    keyGroups = std::min(kDecodeWarps / warps, kvBlock / kMinKeysPerGroup);
  return AutoTiles{fitted->blockM, kvBlock, stages, std::max<int64_t>(1, keyGroups),
                   stageBlockScalars};
}

} // namespace

fa::MmaAtomKind fa::chooseAtom(const fa::ChipInfo &chip, int64_t blockM,
                               int64_t queryRows) {
  // wgmma's m64 tiles: 64 rows a warpgroup (blockM 0: the atom's table,
  // whose #fa.wgmma blocks are 64 or 128 rows).
  constexpr int64_t kWarpgroupRows = 64;
  if (!chip.hasWgmma() || blockM % kWarpgroupRows != 0)
    return fa::MmaAtomKind::MmaSync;
  // A few static query rows (a decode step, or a GQA group's heads): the
  // #fa.mma_sync block shrinks to 16 or 32 rows with key groups where the
  // #fa.wgmma one stays 64.
  if (!ShapedType::isDynamic(queryRows) && queryRows <= kWarpgroupRows / 2)
    return fa::MmaAtomKind::MmaSync;
  return fa::MmaAtomKind::Wgmma;
}

namespace {

struct FATileQOuterPass : fa::impl::FATileQOuterBase<FATileQOuterPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"block-m", blockM},
                               {"block-n", blockN}}) {
      if (!autoBlocks && (value < 1 || value > fa::kMaxTileBlock)) {
        // On the location only: printing the whole module helps nobody.
        mlir::emitError(getOperation()->getLoc())
            << "fa-tile-q-outer: option " << name << " must be in [1, "
            << fa::kMaxTileBlock << "], got " << value;
        return signalPassFailure();
      }
    }

    const fa::ChipInfo *chipInfo = fa::lookupChipOption(
        chip, getOperation()->getLoc(), "fa-tile-q-outer");
    if (!chipInfo)
      return signalPassFailure();

    FailureOr<SmallVector<fa::AttentionOp>> ops =
        fa::collectTensorAttentionOps(getOperation(), "fa-tile-q-outer");
    if (failed(ops))
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (fa::AttentionOp op : *ops) {
      // No query rows (B, Hq or Nq statically 0): O and LSE are empty, the
      // outputs are the results as they are; a loop nest over no Q block
      // would only give later stages empty slices to trip on.
      ArrayRef<int64_t> q = cast<ShapedType>(op.getQuery().getType()).getShape();
      if (llvm::is_contained(q.take_front(3), 0)) {
        rewriter.replaceOp(op, op.getOutputs());
        continue;
      }
      // The launch plan names the host function's argument by its role
      // (Outline.cpp, indexArgumentRole): the caller passes it.
      if (auto arg = dyn_cast_or_null<BlockArgument>(op.getMaxSeqlenQ()))
        if (auto func = dyn_cast<FunctionOpInterface>(
                arg.getOwner()->getParentOp()))
          func.setArgAttr(arg.getArgNumber(), "fa.max_seqlen_q",
                          rewriter.getUnitAttr());
      // pack-gqa applies to single-query GQA/MQA ops only.
      bool pack = packGqa && q[2] == 1 && op.getGroupSize() > 1 &&
                  !op.isVarlen();
      // The rows of a Q block that hold queries: with pack-gqa the heads of
      // a group, else Nq (dynamic for most ops).
      int64_t queryRows = pack ? op.getGroupSize() : q[2];
      fa::MmaAtomKind atomKind = atom;
      if (atomKind == fa::MmaAtomKind::Auto)
        atomKind = fa::chooseAtom(*chipInfo, autoBlocks ? 0 : blockM.getValue(),
                                  queryRows);
      AutoTiles tiles{blockM, blockN, 0};
      if (autoBlocks) {
        FailureOr<AutoTiles> picked =
            blocksForHeadDim(op, *chipInfo, pack, forSplitKV, atomKind,
                             stageBlockScalars, paddedShared);
        if (failed(picked))
          return signalPassFailure();
        tiles = *picked;
      }
      if (op.isPaged() && op.getPageSize() % tiles.blockN != 0) {
        op.emitError("fa-tile-q-outer: block-n (")
            << tiles.blockN << ") must divide the page size ("
            << op.getPageSize() << "): a K/V block is read from one page";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      SmallVector<Value> results =
          QOuterTiler(rewriter, op, tiles.blockM, tiles.blockN, pack).build();
      // The stages are --fa-pipeline-kv's (stages=0) to apply: recorded on
      // the loop nest, where the L1 IR shows them.
      if (auto forall = results.front().getDefiningOp<scf::ForallOp>()) {
        // The atom the tiles are for, --fa-map-warps's (atom=auto) to name.
        forall->setAttr(fa::kMmaAtomAttrName,
                        fa::getMmaAtom(&getContext(), atomKind));
        if (tiles.stages)
          forall->setAttr(fa::kKVStagesAttrName,
                          rewriter.getI64IntegerAttr(tiles.stages));
        // And the key groups, --fa-map-warps's (key-groups=0) to apply.
        if (tiles.keyGroups > 1)
          forall->setAttr(fa::kKeyGroupsAttrName,
                          rewriter.getI64IntegerAttr(tiles.keyGroups));
        // And the block scalars' home, --fa-stage-block-scalars's to apply.
        if (tiles.stageBlockScalars)
          forall->setAttr(fa::kStageBlockScalarsAttrName,
                          rewriter.getUnitAttr());
      }
      rewriter.replaceOp(op, results);
    }
  }
};

} // namespace
