//===- TileBackward.cpp - fa.attention_backward -> three tile loop nests --===//
//
// The GPU form of the FlashAttention-2 backward: the D preprocessing, the
// K/V-outer nest that accumulates dK and dV, and dQ either added into an
// f32 buffer by that nest (atomic; a last nest rounds it) or computed by a
// Q-outer nest of its own (deterministic), each an scf.forall of tile ops
// (one kernel each). See the pass description in Passes.td and
// docs/backward.md.
//
//===----------------------------------------------------------------------===//

#include "BackwardBuilders.h"
#include "TensorAttentionOps.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FATILEBACKWARD
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class BackwardTiler {
public:
  BackwardTiler(RewriterBase &rewriter, AttentionBackwardOp op, int64_t blockM,
                int64_t blockN, int64_t keyValueBlockM, StringRef dqMode,
                StringRef rotateMode, const ChipInfo &chip)
      : b(rewriter), loc(op.getLoc()), op(op), blockM(blockM),
        blockN(blockN), f32(rewriter.getF32Type()),
        elemTy(getElementTypeOrSelf(op.getQuery().getType())) {
    headDim = cast<ShapedType>(op.getQuery().getType()).getDimSize(3);
    valueDim = cast<ShapedType>(op.getValue().getType()).getDimSize(3);
    // The dK/dV nest's S^T and dP^T tiles are narrower than the dQ nest's:
    // its two [block-n, d] f32 accumulators and its per-column LSE and D
    // take the registers. Measured on the H200 (docs/performance.md,
    // "dK/dV tile width"): at d = 64, 16 columns (166 registers: 3 thread
    // blocks per SM instead of 2) beat 64 by 4-9 % (16-17 % causal); at
    // d = 128, 32 beat 16 by 5 % (2 blocks per SM either way) and 64
    // spills; above, 16 keep the spills small (ptxas-backward.mlir).
    int64_t d = std::max(headDim, valueDim);
    // auto: the atomic form only at d = 64, where its 128-key dK/dV tiles
    // (below) run 1.14-1.22x the deterministic form. Its dQ^T tile needs
    // head dims that are multiples of 64 (4 warps of 16 rows), and at d =
    // 128 it has the deterministic form's tiles and speed, while the
    // deterministic form's nests take swizzled K/V and Q/dO tiles
    // (--fa-map-warps) and then run 1.01-1.16x the atomic one on an H100
    // (docs/performance.md, "Swizzled tiles in the backward", 2026-12-06),
    // bitwise reproducible; above 128 the atomic form's registers make the
    // dK/dV kernel spill more (7 KB at 256 on sm_80).
    //
    // On Hopper, at d = 128 without a soft cap, auto takes the atomic form
    // on FlashAttention-2's d = 128 tiles instead: 128 keys by 64 query
    // columns in the dK/dV nest, on a [4, 2] warp grid (8 warps; recorded
    // for --fa-map-warps as fa.dkdv_groups). Measured on an H100 with
    // chip=sm_90 PTX (docs/performance.md, "2026-12-06 (session 11): a warp
    // grid for the dK/dV kernel"): 1.10x (full) and 1.04x (causal) the
    // deterministic form, geometric means over N = 1k-8k (0.94 causal at
    // 1k), spill-free; with a soft cap it spills, and
    // with a window but no causal mask (its bounds live through the loop)
    // 4 bytes (window(512, -1); scripts/spill-sweep.py). For sm_80 (A100's
    // ptxas) its GQA kernels spill.
    bool windowWithoutCausal = op.getWindowLeft() && !op.getCausal();
    warpGrid = dqMode == "auto" && chip.isHopper() && headDim == 128 &&
               valueDim == 128 && !op.getSoftcap() && !windowWithoutCausal;
    atomicQueryGrad = dqMode == "atomic" ||
                      (dqMode == "auto" && (headDim == 64 || warpGrid));
    // The atomic form up to d = 64 has no dQ nest to share block-n with:
    // 128 keys (32 rows per warp, two m-tiles: twice the independent MMA
    // chains of each product) by 32 query columns, 250 registers, measured
    // 1.19-1.25x faster than 64 x 16 (docs/performance.md, "Wider dK/dV
    // tiles for the atomic dQ"). Not with a soft cap, whose capped scores
    // (kept for dS) make that kernel spill (112-124 bytes).
    bool wideKeyBlocks = atomicQueryGrad && d <= 64 && !op.getSoftcap();
    kvBlockM = keyValueBlockM;
    if (kvBlockM == 0 && warpGrid)
      kvBlockM = 64;
    if (kvBlockM == 0)
      kvBlockM = std::max<int64_t>(
          (d > 64 && d <= 128) || wideKeyBlocks ? blockM / 2 : blockM / 4,
          std::min<int64_t>(blockM, 16));
    padWorkspaces = atomicQueryGrad && blockM % kvBlockM == 0;
    queryRowsDq = atomicQueryGrad && kvBlockM % 64 == 0;
    // The atomic dQ's staggered Q-block order (buildKeyValueNest). auto:
    // where the nest is on the warp grid, measured on an H100 (chip=sm_90,
    // docs/performance.md, "2026-12-06 (session 14)"): 1.04-1.05x at d =
    // 128, N = 1k-8k, without a mask; at d = 64 (rows of 4 warps) 0.95-0.99x.
    rotateQueryBlocks =
        atomicQueryGrad &&
        (rotateMode == "on" || (rotateMode == "auto" && warpGrid));
    // Above d = 192 the dQ nest's K/V ring does not fit 64-key blocks.
    if (this->blockN == 0)
      this->blockN = wideKeyBlocks || warpGrid ? 128 : d <= 192 ? 64 : 32;
  }

  /// Builds the three nests; returns dQ, dK, dV.
  SmallVector<Value> build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32Constant(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value minIndex(Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y);
  }
  Value maxIndex(Value x, Value y) {
    return arith::MaxSIOp::create(b, loc, x, y);
  }
  /// An f32 tile rounded to the element type (as the GPU's MMA operands and
  /// stores need it); unchanged for f32.
  Value rounded(Value tile) {
    if (elemTy == f32)
      return tile;
    auto ty = cast<RankedTensorType>(tile.getType());
    return arith::TruncFOp::create(
        b, loc, RankedTensorType::get(ty.getShape(), elemTy), tile);
  }
  /// min(block, total - start): the valid rows of the block at `start`.
  Value rowsOfBlock(int64_t block, Value total, Value start) {
    return minIndex(index(block), arith::SubIOp::create(b, loc, total, start));
  }

  /// Rows [start, start + count) of `source[batch, head]`, padded with `pad`
  /// to `tileRows` (BackwardBuilders.h).
  Value loadRows(Value source, Value batch, Value head, Value start,
                 Value count, int64_t tileRows, Value pad) {
    return loadPaddedRows(b, loc, source, batch, head, start, count, tileRows,
                          pad);
  }
  /// The first `count` rows of `tile` into rows [start, ...) of
  /// `dest[batch, head]`, in the forall's terminator.
  void storeRows(Value tile, Value dest, Value batch, Value head, Value start,
                 Value count);
  /// The forall over (batch, heads, ceil(rows / block)) with `outs`.
  scf::ForallOp makeForall(int64_t heads, Value rows, int64_t block,
                           ValueRange outs, Value batches = {});

  /// The forward's score ops on the raw product `s` (S or S^T) of one tile
  /// pair: the soft cap (which applies the scale), the mask. Returns the
  /// scores the softmax saw.
  Value scoreMods(Value s, Value rowStart, Value colStart, bool transposed);

  /// Heads, rows (dim 2) and batches (dim 0) of a [B, H, N, ...] tensor.
  struct RowSizes {
    int64_t heads;
    Value rows, batches;
  };
  RowSizes rowSizesOf(Value t);
  /// The D nest; with the atomic dQ also the zeroed f32 dQ buffer.
  std::pair<Value, Value> buildRowDot();
  /// The dK/dV nest; with `dqBuffer`, it adds dS K into it.
  std::pair<Value, Value> buildKeyValueNest(Value rowDot, Value dqBuffer);
  /// The deterministic dQ nest.
  Value buildQueryNest(Value rowDot);
  /// The atomic dQ's last nest: dQ = the f32 buffer, rounded.
  Value buildRoundingNest(Value dqSums);

  RewriterBase &b;
  Location loc;
  AttentionBackwardOp op;
  /// Query rows of the D and dQ nests' blocks; key rows of the dK/dV
  /// nest's blocks; query columns of the dK/dV nest's tiles.
  int64_t blockM, blockN, kvBlockM = 0, headDim = 0, valueDim = 0;
  /// FlashAttention-2's dQ: added into an f32 buffer by the dK/dV nest.
  bool atomicQueryGrad = false;
  /// Whether the dK/dV nest's tiles are sized for a [4, 2] warp grid.
  bool warpGrid = false;
  /// Whether K/V block j of an unmasked dK/dV nest visits the Q blocks from
  /// block j on, wrapping around, instead of from block 0.
  bool rotateQueryBlocks = false;
  /// Whether D and the dQ buffer are padded to whole D-nest blocks, which
  /// the dK/dV nest's query tiles divide (FlashAttention-2's
  /// seqlen_q_rounded): that nest then reads D and adds into the buffer by
  /// whole tiles, with no bounds check (no per-element guards around its
  /// atomics). Off when a query tile would straddle the padded end, and
  /// for the deterministic dQ, which has no atomics to unguard (and whose
  /// d = 128 soft-capped, windowed dK/dV kernel then spills 8 bytes:
  /// scripts/spill-sweep.py).
  bool padWorkspaces = false;
  /// Whether the atomic dQ's tile has query rows (dQ = dS K) rather than
  /// head-dim rows (dQ^T = K^T dS^T): when the dK/dV nest's query tiles
  /// have a multiple of 64 rows, 16 for each of 4 warps (the [4, 2] grid
  /// at d = 128). Its rows are then whole rows of the buffer, which the
  /// layouts can store in fragment order (fa.accumulate_rows).
  bool queryRowsDq = false;
  Type f32, elemTy;
  Value numQueries, numKeys, numBatches;
  /// The softmax scale (folded into dS), the exp2 scale of the scores
  /// (scale * log2(e), or log2(e) for capped scores, which include it),
  /// and the soft cap's fa.softcap scale and cap.
  Value scale, probScale, capScale, cap;
  semantics::MaskSpec mask;
};

void BackwardTiler::storeRows(Value tile, Value dest, Value batch, Value head,
                              Value start, Value count) {
  auto tileTy = cast<RankedTensorType>(tile.getType());
  int64_t rank = cast<RankedTensorType>(dest.getType()).getRank();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<int64_t> validShape = {ShapedType::kDynamic};
  SmallVector<OpFoldResult> tileOffsets = {zero}, tileSizes = {count};
  SmallVector<OpFoldResult> offsets = {batch, head, start};
  SmallVector<OpFoldResult> sizes = {one, one, count};
  if (rank == 4) {
    int64_t cols = tileTy.getDimSize(1);
    validShape.push_back(cols);
    tileOffsets.push_back(zero);
    tileSizes.push_back(b.getIndexAttr(cols));
    offsets.push_back(zero);
    sizes.push_back(b.getIndexAttr(cols));
  }
  // The valid rows are cut in the body; the terminator only inserts.
  auto forall = cast<scf::ForallOp>(
      b.getInsertionBlock()->getParentOp());
  Value valid = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(validShape, tileTy.getElementType()), tile,
      tileOffsets, tileSizes, SmallVector<OpFoldResult>(tileOffsets.size(), one));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, valid, dest, offsets, sizes,
                                        SmallVector<OpFoldResult>(rank, one));
}

scf::ForallOp BackwardTiler::makeForall(int64_t heads, Value rows,
                                        int64_t block, ValueRange outs,
                                        Value batches) {
  Value blocks = arith::CeilDivUIOp::create(b, loc, rows, index(block));
  SmallVector<OpFoldResult> upper = {batches ? batches : numBatches,
                                     b.getIndexAttr(heads),
                                     blocks};
  auto forall = scf::ForallOp::create(b, loc, upper, outs,
                                      /*mapping=*/std::nullopt);
  b.setInsertionPoint(forall.getTerminator());
  return forall;
}

Value BackwardTiler::scoreMods(Value s, Value rowStart, Value colStart,
                               bool transposed) {
  auto scoresTy = cast<RankedTensorType>(s.getType());
  if (cap)
    s = SoftcapOp::create(b, loc, s, capScale, cap);
  // Keys past Nk: in the dQ nest they are columns and must be hidden (a
  // zero key row would get P = exp(-LSE)); in the dK/dV nest they are
  // padding rows whose gradients are never stored.
  Value keyLimit = transposed ? Value() : numKeys;
  if (!keyLimit && !mask.causalOffset && !mask.windowOffset)
    return s;
  auto maskOp = MaskOp::create(b, loc, scoresTy, s, rowStart, colStart,
                               keyLimit, mask.causalOffset,
                               mask.windowOffset, /*single_query=*/false);
  maskOp.setTransposed(transposed);
  return maskOp.getResult();
}

BackwardTiler::RowSizes BackwardTiler::rowSizesOf(Value t) {
  auto size = [&](int64_t dim) {
    return getValueOrCreateConstantIndexOp(
        b, loc, tensor::getMixedSize(b, loc, t, dim));
  };
  return {cast<ShapedType>(t.getType()).getDimSize(1), size(2), size(0)};
}

std::pair<Value, Value> BackwardTiler::buildRowDot() {
  // Sizes from dO, which the nest reads (a kernel computes its bounds from
  // its own arguments).
  auto [numHeads, rowsTotal, batches] = rowSizesOf(op.getGradOut());
  // With padded workspaces (padWorkspaces), D and the dQ buffer have
  // ceil(Nq / block-m) * block-m rows, all written by this nest: D = 0 and
  // dQ = 0 in the padding rows.
  Value workspaceRows = rowsTotal;
  if (padWorkspaces)
    workspaceRows = arith::MulIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, rowsTotal, index(blockM)),
        index(blockM));
  SmallVector<OpFoldResult> sizes = {batches, b.getIndexAttr(numHeads),
                                     workspaceRows};
  SmallVector<Value> inits = {tensor::EmptyOp::create(b, loc, sizes, f32)};
  if (atomicQueryGrad) {
    sizes.push_back(b.getIndexAttr(headDim));
    inits.push_back(tensor::EmptyOp::create(b, loc, sizes, f32));
  }
  OpBuilder::InsertionGuard guard(b);
  scf::ForallOp forall =
      makeForall(numHeads, rowsTotal, blockM, inits, batches);
  Block *body = forall.getBody();
  Value batch = body->getArgument(0), head = body->getArgument(1);
  Value start = arith::MulIOp::create(b, loc, body->getArgument(2),
                                      index(blockM));
  Value rows = rowsOfBlock(blockM, rowsTotal, start);
  Value stored = padWorkspaces ? index(blockM) : rows;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));
  Value doTile =
      loadRows(op.getGradOut(), batch, head, start, rows, blockM, zero);
  Value oTile = loadRows(op.getOut(), batch, head, start, rows, blockM, zero);
  Value d = RowDotOp::create(b, loc, RankedTensorType::get({blockM}, f32),
                             doTile, oTile);
  storeRows(d, forall.getRegionIterArgs()[0], batch, head, start, stored);
  if (!atomicQueryGrad)
    return {forall.getResult(0), Value()};
  // The same rows of the dQ buffer, zeroed: the K/V blocks add into them.
  auto zerosTy = RankedTensorType::get({blockM, headDim}, f32);
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(zerosTy, APFloat(0.0f)));
  storeRows(zeros, forall.getRegionIterArgs()[1], batch, head, start, stored);
  return {forall.getResult(0), forall.getResult(1)};
}

std::pair<Value, Value> BackwardTiler::buildKeyValueNest(Value rowDot,
                                                         Value dqBuffer) {
  int64_t numKVHeads = cast<ShapedType>(op.getKey().getType()).getDimSize(1);
  int64_t group = op.getGroupSize();
  OpBuilder::InsertionGuard guard(b);
  scf::ForallOp forall =
      makeForall(numKVHeads, numKeys, blockN,
                 ValueRange{op.getGradKey(), op.getGradValue()});
  if (warpGrid)
    forall->setAttr(kDkdvGroupsAttrName, b.getI64IntegerAttr(2));
  Block *body = forall.getBody();
  Value batch = body->getArgument(0), kvHead = body->getArgument(1);
  Value kStart =
      arith::MulIOp::create(b, loc, body->getArgument(2), index(blockN));
  Value kRows = rowsOfBlock(blockN, numKeys, kStart);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));
  Value kTile = loadRows(op.getKey(), batch, kvHead, kStart, kRows, blockN,
                         zero);
  Value vTile = loadRows(op.getValue(), batch, kvHead, kStart, kRows, blockN,
                         zero);

  // The Q blocks with a row that sees a key of [k0, k0 + rows)
  // (BackwardBuilders.h, shared with --fa-tile-kv-outer).
  Value zeroIdx = index(0);
  auto [qBegin, qEnd] = visibleQueryBlocks(
      b, loc, kStart, arith::AddIOp::create(b, loc, kStart, kRows),
      numQueries, kvBlockM, mask);

  auto dkTy = RankedTensorType::get({blockN, headDim}, f32);
  auto dvTy = RankedTensorType::get({blockN, valueDim}, f32);
  Value dk0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(dkTy, APFloat(0.0f)));
  Value dv0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(dvTy, APFloat(0.0f)));
  Value negInf = f32Constant(-kInf), zeroF32 = f32Constant(0.0);

  // One loop over the (query head of the group, Q block) pairs, heads
  // outermost: a fixed summation order for dK and dV, and a single loop
  // whose Q and dO tiles --fa-pipeline-kv can load ahead like the
  // forward's K and V.
  Value span = maxIndex(arith::SubIOp::create(b, loc, qEnd, qBegin), zeroIdx);
  Value blocksPerHead =
      arith::CeilDivUIOp::create(b, loc, span, index(kvBlockM));
  Value steps = arith::MulIOp::create(b, loc, blocksPerHead, index(group));
  // With the atomic dQ, the thread blocks of one head that all start at
  // Q block 0 (no causal or window lower bound) add into the same dQ rows
  // at the same time, step after step: with rotate-query-blocks, K/V block
  // j starts at Q block j instead and wraps around (dK and dV still sum in
  // a fixed order). Masked nests' ranges start on their diagonal,
  // staggered already.
  Value rotation;
  if (dqBuffer && rotateQueryBlocks && matchPattern(qBegin, m_Zero()))
    rotation = body->getArgument(2);
  auto groupLoop = scf::ForOp::create(
      b, loc, zeroIdx, steps, index(1), ValueRange{dk0, dv0},
      [&](OpBuilder &, Location, Value step, ValueRange st) {
        Value r = arith::DivUIOp::create(b, loc, step, blocksPerHead);
        Value head = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, kvHead, index(group)), r);
        Value qBlock = arith::RemUIOp::create(b, loc, step, blocksPerHead);
        if (rotation)
          qBlock = arith::RemUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, qBlock, rotation),
              blocksPerHead);
        Value qStart = arith::AddIOp::create(
            b, loc, qBegin,
            arith::MulIOp::create(b, loc, qBlock, index(kvBlockM)));
        Value qRows = rowsOfBlock(kvBlockM, numQueries, qStart);
        Value qTile = loadRows(op.getQuery(), batch, head, qStart, qRows,
                               kvBlockM, zero);
        Value doTile = loadRows(op.getGradOut(), batch, head, qStart, qRows,
                                kvBlockM, zero);
        Value lse = loadRows(op.getLse(), batch, head, qStart, qRows,
                             kvBlockM, negInf);
        // Whole tiles of the padded workspaces: no bounds to check.
        Value workspaceTileRows = padWorkspaces ? index(kvBlockM) : qRows;
        Value d = loadRows(rowDot, batch, head, qStart, workspaceTileRows,
                           kvBlockM, zeroF32);
        // Key rows, query columns. (Issuing dP^T right after S^T, for the
        // overlap of their MMA chains, measured 0-7 % slower on the H200.)
        auto tileTy = RankedTensorType::get({blockN, kvBlockM}, f32);
        Value sT = scoreMods(QKOp::create(b, loc, tileTy, kTile, qTile),
                             kStart, qStart, true);
        auto pT = ProbsFromLseOp::create(b, loc, sT, lse, probScale);
        pT.setTransposed(true);
        Value dv = PVOp::create(b, loc, dvTy, rounded(pT), doTile, st[1]);
        Value dpT = QKOp::create(b, loc, tileTy, vTile, doTile);
        auto dsT = ScoreGradOp::create(b, loc, pT, dpT, d, scale,
                                       cap ? sT : Value(), cap);
        dsT.setTransposed(true);
        Value dsTRounded = rounded(dsT);
        Value dk = PVOp::create(b, loc, dkTy, dsTRounded, qTile, st[0]);
        if (dqBuffer) {
          // The K/V block's share of dQ for these queries, added into the
          // buffer: dQ = dS K, dS the transpose of dS^T, a tile of query
          // rows (FlashAttention-2's form); or dQ^T = K^T dS^T on the key
          // rows' tiles, added transposed (the buffer's rows are its
          // columns).
          Value lhs = queryRowsDq ? dsTRounded : kTile;
          Value rhs = queryRowsDq ? kTile : dsTRounded;
          auto lhsTy = cast<RankedTensorType>(lhs.getType());
          Value lhsT = TransposeOp::create(
              b, loc,
              RankedTensorType::get({lhsTy.getDimSize(1), lhsTy.getDimSize(0)},
                                    elemTy),
              lhs);
          auto productTy = RankedTensorType::get(
              {lhsTy.getDimSize(1),
               cast<RankedTensorType>(rhs.getType()).getDimSize(1)},
              f32);
          Value zeros = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(productTy, APFloat(0.0f)));
          Value product = PVOp::create(b, loc, productTy, lhsT, rhs, zeros);
          auto accumulate = AccumulateRowsOp::create(
              b, loc, product, dqBuffer, batch, head, qStart,
              workspaceTileRows);
          accumulate.setTransposed(!queryRowsDq);
        }
        scf::YieldOp::create(b, loc, ValueRange{dk, dv});
      });

  ValueRange outs = forall.getRegionIterArgs();
  storeRows(rounded(groupLoop.getResult(0)), outs[0], batch, kvHead, kStart,
            kRows);
  storeRows(rounded(groupLoop.getResult(1)), outs[1], batch, kvHead, kStart,
            kRows);
  return {forall.getResult(0), forall.getResult(1)};
}

Value BackwardTiler::buildQueryNest(Value rowDot) {
  int64_t numHeads = cast<ShapedType>(op.getQuery().getType()).getDimSize(1);
  int64_t group = op.getGroupSize();
  OpBuilder::InsertionGuard guard(b);
  scf::ForallOp forall =
      makeForall(numHeads, numQueries, blockM, op.getGradQuery());
  Block *body = forall.getBody();
  Value batch = body->getArgument(0), head = body->getArgument(1);
  Value kvHead = arith::DivUIOp::create(b, loc, head, index(group));
  Value qStart =
      arith::MulIOp::create(b, loc, body->getArgument(2), index(blockM));
  Value qRows = rowsOfBlock(blockM, numQueries, qStart);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));
  Value qTile =
      loadRows(op.getQuery(), batch, head, qStart, qRows, blockM, zero);
  Value doTile =
      loadRows(op.getGradOut(), batch, head, qStart, qRows, blockM, zero);
  Value lse = loadRows(op.getLse(), batch, head, qStart, qRows, blockM,
                       f32Constant(-kInf));
  Value d = loadRows(rowDot, batch, head, qStart, qRows, blockM,
                     f32Constant(0.0));

  // The K/V blocks some row of [q0, q0 + rows) sees: from the window's
  // left bound of the first row (rounded down to a block) to the causal
  // bound of the last.
  Value zeroIdx = index(0);
  Value kBegin = zeroIdx, kEnd = numKeys;
  if (Value first = semantics::visibleKeysBegin(b, loc, qStart, mask)) {
    Value clamped = minIndex(maxIndex(first, zeroIdx), numKeys);
    kBegin = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, clamped, index(blockN)),
        index(blockN));
  }
  Value lastRow = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, qStart, qRows), index(1));
  if (Value end = semantics::visibleKeysEnd(b, loc, lastRow, mask))
    kEnd = minIndex(maxIndex(end, zeroIdx), numKeys);

  auto dqTy = RankedTensorType::get({blockM, headDim}, f32);
  Value dq0 = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(dqTy, APFloat(0.0f)));
  auto kvLoop = scf::ForOp::create(
      b, loc, kBegin, kEnd, index(blockN), ValueRange{dq0},
      [&](OpBuilder &, Location, Value kStart, ValueRange st) {
        Value kRows = rowsOfBlock(blockN, numKeys, kStart);
        Value kTile = loadRows(op.getKey(), batch, kvHead, kStart, kRows,
                               blockN, zero);
        Value vTile = loadRows(op.getValue(), batch, kvHead, kStart, kRows,
                               blockN, zero);
        auto tileTy = RankedTensorType::get({blockM, blockN}, f32);
        Value s = scoreMods(QKOp::create(b, loc, tileTy, qTile, kTile),
                            qStart, kStart, false);
        Value p = ProbsFromLseOp::create(b, loc, s, lse, probScale);
        Value dp = QKOp::create(b, loc, tileTy, doTile, vTile);
        Value ds = ScoreGradOp::create(b, loc, p, dp, d, scale,
                                       cap ? s : Value(), cap);
        Value dq = PVOp::create(b, loc, dqTy, rounded(ds), kTile, st[0]);
        scf::YieldOp::create(b, loc, dq);
      });
  storeRows(rounded(kvLoop.getResult(0)), forall.getRegionIterArgs()[0], batch, head, qStart, qRows);
  return forall.getResult(0);
}

Value BackwardTiler::buildRoundingNest(Value dqSums) {
  // Sizes from dQ, which the nest writes (its grid is then the caller's
  // sizes, not the workspace's).
  auto [numHeads, rowsTotal, batches] = rowSizesOf(op.getGradQuery());
  OpBuilder::InsertionGuard guard(b);
  scf::ForallOp forall = makeForall(numHeads, rowsTotal, blockM,
                                    op.getGradQuery(), batches);
  Block *body = forall.getBody();
  Value batch = body->getArgument(0), head = body->getArgument(1);
  Value start = arith::MulIOp::create(b, loc, body->getArgument(2),
                                      index(blockM));
  Value rows = rowsOfBlock(blockM, rowsTotal, start);
  // The padded buffer has whole blocks: read them whole (the rows past
  // dQ's are never stored).
  auto sumsTy = cast<RankedTensorType>(dqSums.getType());
  Value sums = ReadRowsOp::create(
      b, loc, RankedTensorType::get({blockM, sumsTy.getDimSize(3)}, f32),
      dqSums, batch, head, start, padWorkspaces ? index(blockM) : rows);
  storeRows(rounded(sums), forall.getRegionIterArgs()[0], batch, head, start,
            rows);
  return forall.getResult(0);
}

SmallVector<Value> BackwardTiler::build() {
  Value q = op.getQuery(), k = op.getKey();
  index(0); // Anchors the index constants before the loop nests.
  auto size = [&](Value t, int64_t dim) {
    return getValueOrCreateConstantIndexOp(
        b, loc, tensor::getMixedSize(b, loc, t, dim));
  };
  numBatches = size(q, 0);
  numQueries = size(q, 2);
  numKeys = size(k, 2);

  double scaleValue = op.getEffectiveScale();
  scale = f32Constant(scaleValue);
  probScale = f32Constant(scaleValue * M_LOG2E);
  if (std::optional<APFloat> c = op.getSoftcap()) {
    double capValue = c->convertToDouble();
    capScale = f32Constant(scaleValue / capValue);
    cap = f32Constant(capValue);
    probScale = f32Constant(M_LOG2E);
  }
  auto [left, right] = op.getVisibleWindow();
  mask = semantics::MaskSpec::forWindow(b, loc, numQueries, numKeys, left,
                                        right);

  auto [rowDot, dqZeros] = buildRowDot();
  if (!atomicQueryGrad) {
    auto [dk, dv] = buildKeyValueNest(rowDot, Value());
    return {buildQueryNest(rowDot), dk, dv};
  }
  // The dK/dV nest adds into the zeroed buffer through memory (its thread
  // blocks all add into the same rows); the rounding nest reads the sums.
  auto sumsTy = cast<RankedTensorType>(dqZeros.getType());
  Value buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(sumsTy.getShape(), f32), dqZeros);
  auto [dk, dv] = buildKeyValueNest(rowDot, buffer);
  Value sums = bufferization::ToTensorOp::create(b, loc, sumsTy, buffer,
                                                 /*restrict=*/true,
                                                 /*writable=*/true);
  return {buildRoundingNest(sums), dk, dv};
}

struct FATileBackwardPass : fa::impl::FATileBackwardBase<FATileBackwardPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"block-m", blockM},
                               {"block-n", blockN},
                               {"dkdv-block-m", keyValueBlockM}}) {
      if (value == 0 && name != "block-m")
        continue; // Picked from the head dim.
      if (value < 1 || value > kMaxTileBlock) {
        mlir::emitError(getOperation()->getLoc())
            << "fa-tile-backward: option " << name << " must be in [1, "
            << kMaxTileBlock << "], got " << value;
        return signalPassFailure();
      }
    }
    if (rotateQueryBlocks != "auto" && rotateQueryBlocks != "on" &&
        rotateQueryBlocks != "off") {
      mlir::emitError(getOperation()->getLoc())
          << "fa-tile-backward: option rotate-query-blocks must be 'auto', "
             "'on' or 'off', got '"
          << rotateQueryBlocks << "'";
      return signalPassFailure();
    }
    if (dqMode != "auto" && dqMode != "atomic" && dqMode != "deterministic") {
      mlir::emitError(getOperation()->getLoc())
          << "fa-tile-backward: option dq must be 'auto', 'atomic' or "
             "'deterministic', got '"
          << dqMode << "'";
      return signalPassFailure();
    }
    const ChipInfo *chipInfo =
        lookupChipOption(chip, getOperation()->getLoc(), "fa-tile-backward");
    if (!chipInfo)
      return signalPassFailure();
    FailureOr<SmallVector<AttentionBackwardOp>> ops =
        collectTensorOps<AttentionBackwardOp>(getOperation(),
                                              "fa-tile-backward");
    if (failed(ops))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (AttentionBackwardOp op : *ops) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op,
                         BackwardTiler(rewriter, op, blockM, blockN, keyValueBlockM,
                                       dqMode, rotateQueryBlocks, *chipInfo)
                             .build());
    }
  }
};

} // namespace
