//===- TileCombine.cpp - fa.combine_splits as a loop nest of row tiles ----===//
//
// Stage L2 -> L3 for split-KV's merge: one scf.forall iteration per tile of
// rows, the tile form of fa.combine_splits held by warps, and the same row
// stores as the attention loop nest, so --fa-lower-to-gpu makes it a kernel
// with the patterns it has (plus one for the tile op) and the CPU path runs
// it through --fa-decompose-tiles.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FATILECOMBINE
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr int64_t kRowsPerWarp = 16;
constexpr int64_t kMaxRows = 128;
/// Columns of a tile when block-dv is 0 (where they divide Dv): a thread of
/// the merge then holds 4 elements, not 64 (at Dv = 128), and there are
/// Dv / 8 times as many thread blocks. Every split costs a thread of the
/// merge about one memory latency whatever the unroll (ptxas interleaves
/// the loads with the arithmetic that uses them), so the more threads
/// share the splits' elements the better: 8 columns against 16 are
/// 1.00-1.15x the GB/s of a decode step, the most at B = 1 with many
/// splits; 16 against whole rows and 32, 1.5-2.3x (docs/performance.md,
/// "the merge in 8-column tiles", "split-KV's merge in column tiles"). 8 is
/// the MMA atom's accumulator fragment width, the narrowest tile.
constexpr int64_t kAutoCols = 8;

/// split-warps = 0: groups of warps per tile (#fa.warp_rows replicas). A
/// static split count gets one group per kSplitsPerGroup splits; a run-time
/// count kAutoGroupsDynamic groups (docs/performance.md, "the merge's warp
/// groups"); both at most kMaxAutoWarps warps in all per thread block.
constexpr int64_t kSplitsPerGroup = 4;
constexpr int64_t kAutoGroupsDynamic = 4;
constexpr int64_t kMaxAutoWarps = 16;
/// A thread block has at most 1024 threads.
constexpr int64_t kMaxWarps = 32;

/// Where the rows of one split come from: `source` is the rank-5 partial
/// result [S, B, H, Nq(, Dv)], or, looking through --fa-split-kv's
/// tensor.expand_shape, its rank-4 workspace [S * B, H, Nq(, Dv)], where
/// split s of batch b is at batch s * B + b.
struct PartialSource {
  Value source;
  bool flatSplits;
};

PartialSource partialSource(Value partial) {
  auto expand = partial.getDefiningOp<tensor::ExpandShapeOp>();
  if (expand) {
    SmallVector<ReassociationIndices> groups =
        expand.getReassociationIndices();
    bool splitsOfBatch = !groups.empty() && groups[0].size() == 2 &&
                         llvm::all_of(ArrayRef(groups).drop_front(),
                                      [](const ReassociationIndices &g) {
                                        return g.size() == 1;
                                      });
    if (splitsOfBatch)
      return {expand.getSrc(), true};
  }
  return {partial, false};
}

class CombineTiler {
public:
  CombineTiler(IRRewriter &rewriter, CombineSplitsOp op, int64_t blockM,
               int64_t blockDv, int64_t splitWarps)
      : b(rewriter), op(op), loc(op.getLoc()), requestedRows(blockM),
        requestedCols(blockDv), requestedGroups(splitWarps) {}

  LogicalResult tile();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// The rows [r0, r0 + n) of split results at (batch, head, query) of
  /// `partial` ([S, B, H, Nq] + the columns), as a tile [S, n] + `cols`
  /// columns from `col0` (none for the LSE), padded to [S, rows] + cols
  /// with `padValue`.
  Value readTile(Value partial, std::optional<int64_t> cols, Value col0,
                 Value batch, Value head, Value query, Value n,
                 double padValue);

  IRRewriter &b;
  CombineSplitsOp op;
  Location loc;
  int64_t requestedRows, requestedCols, requestedGroups;
  // Filled by tile(). The split count is static or a run-time value
  // (--fa-split-kv splits=0).
  OpFoldResult splits;
  int64_t rows = 0;
  bool alongHeads = false;
  Value batchSize;
};

Value CombineTiler::readTile(Value partial, std::optional<int64_t> cols,
                             Value col0, Value batch, Value head, Value query,
                             Value n, double padValue) {
  SmallVector<int64_t> trailing;
  if (cols)
    trailing.push_back(*cols);
  PartialSource src = partialSource(partial);
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  OpFoldResult nRows = getAsOpFoldResult(n);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  // (b, h, q) with the row line's size n, the other two 1.
  SmallVector<OpFoldResult> at = {batch, head, query};
  SmallVector<OpFoldResult> extent = {one, alongHeads ? nRows : one,
                                      alongHeads ? one : nRows};
  if (src.flatSplits) {
    // Split s of batch b at batch s * B + b: S rows of stride B.
    offsets = at;
    sizes = extent;
    sizes[0] = splits;
    strides = {batchSize, one, one};
  } else {
    offsets = {zero};
    sizes = {splits};
    llvm::append_range(offsets, at);
    llvm::append_range(sizes, extent);
    strides.assign(offsets.size(), one);
  }
  if (cols) {
    offsets.push_back(getAsOpFoldResult(col0));
    sizes.push_back(b.getIndexAttr(*cols));
    strides.push_back(one);
  }
  std::optional<int64_t> staticN = getConstantIntValue(nRows);
  int64_t staticSplits =
      getConstantIntValue(splits).value_or(ShapedType::kDynamic);
  SmallVector<int64_t> sliceShape = {staticSplits,
                                     staticN.value_or(ShapedType::kDynamic)};
  llvm::append_range(sliceShape, trailing);
  auto f32 = b.getF32Type();
  auto sliceTy = RankedTensorType::get(sliceShape, f32);
  Value slice = tensor::ExtractSliceOp::create(b, loc, sliceTy, src.source,
                                               offsets, sizes, strides);
  SmallVector<int64_t> tileShape = {staticSplits, rows};
  llvm::append_range(tileShape, trailing);
  Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(padValue));
  // rows - n more rows, nothing else.
  SmallVector<OpFoldResult> low(tileShape.size(), zero), high = low;
  high[1] = getAsOpFoldResult(
      arith::SubIOp::create(b, loc, index(rows), n).getResult());
  return tensor::PadOp::create(b, loc, RankedTensorType::get(tileShape, f32),
                               slice, low, high, pad, /*nofold=*/false);
}

LogicalResult CombineTiler::tile() {
  auto outTy = cast<RankedTensorType>(op.getOut().getType());
  if (outTy.getRank() != 4)
    return success(); // The tile form already.
  auto error = [&]() {
    return op.emitError("fa-tile-combine: ");
  };
  int64_t valueDim = outTy.getDimSize(3);
  if (ShapedType::isDynamic(valueDim))
    return error() << "the value head dim must be static, got " << outTy;

  b.setInsertionPoint(op);
  // The split count: static, or the size --fa-split-kv gave the
  // tensor.expand_shape, or read off the partial output.
  auto partialTy = cast<RankedTensorType>(op.getPartialOut().getType());
  auto expand = op.getPartialOut().getDefiningOp<tensor::ExpandShapeOp>();
  if (!partialTy.isDynamicDim(0))
    splits = b.getIndexAttr(partialTy.getDimSize(0));
  else if (expand)
    splits = expand.getMixedOutputShape()[0];
  else
    splits = tensor::getMixedSize(b, loc, op.getPartialOut(), 0);
  // [B, H, Nq] from what the tiles read: the workspace [S * B, H, Nq, Dv]
  // or the partial output [S, B, H, Nq, Dv] (so that a kernel's grid is
  // arithmetic on the sizes of its own arguments).
  PartialSource src = partialSource(op.getPartialOut());
  auto size = [&](int64_t dim) {
    return getValueOrCreateConstantIndexOp(
        b, loc, tensor::getMixedSize(b, loc, src.source, dim));
  };
  Value heads, queries;
  if (src.flatSplits) {
    Value splitRows = size(0);
    Value count = getValueOrCreateConstantIndexOp(b, loc, splits);
    batchSize = arith::DivUIOp::create(b, loc, splitRows, count);
    heads = size(1);
    queries = size(2);
  } else {
    batchSize = size(1);
    heads = size(2);
    queries = size(3);
  }
  std::optional<int64_t> staticQueries = getConstantIntValue(queries);
  // A decode step has one row per head: tile along the heads instead.
  alongHeads = staticQueries == 1;
  Value lineExtent = alongHeads ? heads : queries;
  std::optional<int64_t> staticExtent = getConstantIntValue(lineExtent);

  // Auto: the fewest whole warps that hold a short static line of rows in
  // one tile, else 64 rows on 4 warps.
  rows = requestedRows;
  if (rows == 0)
    rows = staticExtent && *staticExtent <= 64
               ? std::max<int64_t>(kRowsPerWarp,
                                   llvm::alignTo(*staticExtent, kRowsPerWarp))
               : 64;
  int64_t numWarps = rows / kRowsPerWarp;
  int64_t cols = requestedCols;
  if (cols == 0)
    cols = valueDim % kAutoCols == 0 ? kAutoCols : valueDim;
  if (valueDim % cols != 0)
    return error() << "block-dv (" << cols
                   << ") must divide the value head dim, got " << outTy;
  int64_t colTiles = valueDim / cols;
  // Groups of warps that each merge a share of the splits of the same tile.
  int64_t groups = requestedGroups;
  if (groups == 0) {
    std::optional<int64_t> staticSplits = getConstantIntValue(splits);
    groups = staticSplits ? llvm::divideCeil(*staticSplits, kSplitsPerGroup)
                          : kAutoGroupsDynamic;
    groups = std::clamp<int64_t>(groups, 1, kMaxAutoWarps / numWarps);
  } else if (groups > kMaxWarps / numWarps) {
    return error() << "split-warps (" << groups << ") groups of " << numWarps
                   << " warps (" << rows << "-row tiles) are more than the "
                   << kMaxWarps << " warps of a thread block";
  }
  MLIRContext *ctx = b.getContext();
  auto atom = MmaSyncAtomAttr::get(ctx);
  auto accLayout =
      WarpRowsAttr::get(ctx, FragmentRole::Acc, numWarps, atom, groups);
  auto rowsLayout =
      WarpRowsAttr::get(ctx, FragmentRole::Rows, numWarps, atom, groups);
  auto outTileTy = RankedTensorType::get({rows, cols},
                                         outTy.getElementType(), accLayout);
  auto lseTileTy = RankedTensorType::get({rows}, b.getF32Type(), rowsLayout);
  // The tiles must be ones the atom can hold (e.g. Dv a multiple of 8).
  auto diag = [&]() { return error(); };
  if (failed(accLayout.verifyEncoding(outTileTy.getShape(),
                                      outTileTy.getElementType(), diag)) ||
      failed(rowsLayout.verifyEncoding(lseTileTy.getShape(),
                                       lseTileTy.getElementType(), diag)))
    return failure();

  // Destinations and the loop nest: (b, h, row tile) or, along the heads,
  // (b, head tile, q).
  // (Static where the results' types are, so the loop nest's results
  // have those types.)
  SmallVector<OpFoldResult> outSizes = {batchSize, heads, queries,
                                        b.getIndexAttr(valueDim)};
  for (int64_t i = 0; i < 4; ++i)
    if (!outTy.isDynamicDim(i))
      outSizes[i] = b.getIndexAttr(outTy.getDimSize(i));
  Value outInit =
      tensor::EmptyOp::create(b, loc, outSizes, outTy.getElementType());
  auto lseTy = cast<RankedTensorType>(op.getLse().getType());
  SmallVector<OpFoldResult> lseSizes(outSizes.begin(), outSizes.begin() + 3);
  for (int64_t i = 0; i < 3; ++i)
    if (!lseTy.isDynamicDim(i))
      lseSizes[i] = b.getIndexAttr(lseTy.getDimSize(i));
  Value lseInit = tensor::EmptyOp::create(b, loc, lseSizes, b.getF32Type());
  // Row tiles times column tiles along one grid dimension (x).
  Value tiles = arith::CeilDivUIOp::create(b, loc, lineExtent, index(rows));
  if (colTiles > 1)
    tiles = arith::MulIOp::create(b, loc, tiles, index(colTiles));
  SmallVector<OpFoldResult> ubs = {
      getAsOpFoldResult(batchSize), getAsOpFoldResult(alongHeads ? tiles : heads),
      getAsOpFoldResult(alongHeads ? queries : tiles)};
  auto block = [&](gpu::MappingId id) {
    return gpu::GPUBlockMappingAttr::get(ctx, id);
  };
  // The row tiles run on x, as in the attention kernel's grid.
  ArrayAttr mapping =
      alongHeads ? b.getArrayAttr({block(gpu::MappingId::DimZ),
                                   block(gpu::MappingId::DimX),
                                   block(gpu::MappingId::DimY)})
                 : b.getArrayAttr({block(gpu::MappingId::DimZ),
                                   block(gpu::MappingId::DimY),
                                   block(gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(
      b, loc, ubs, ValueRange{outInit, lseInit}, mapping);

  Block *body = forall.getBody();
  b.setInsertionPointToStart(body);
  Value bi = body->getArgument(0), hi = body->getArgument(1),
        qi = body->getArgument(2);
  Value tileIndex = alongHeads ? hi : qi;
  // Column tile c of row tile t at t * colTiles + c.
  Value colTile = index(0), col0 = index(0);
  if (colTiles > 1) {
    colTile = arith::RemUIOp::create(b, loc, tileIndex, index(colTiles));
    tileIndex = arith::DivUIOp::create(b, loc, tileIndex, index(colTiles));
    col0 = arith::MulIOp::create(b, loc, colTile, index(cols));
  }
  Value r0 = arith::MulIOp::create(b, loc, tileIndex, index(rows));
  Value left = arith::SubIOp::create(b, loc, lineExtent, r0);
  Value n = arith::MinSIOp::create(b, loc, index(rows), left);
  Value head = alongHeads ? r0 : hi;
  Value query = alongHeads ? qi : r0;
  Value outPartial =
      readTile(op.getPartialOut(), cols, col0, bi, head, query, n, 0.0);
  Value lsePartial =
      readTile(op.getPartialLse(), std::nullopt, Value(), bi, head, query, n,
               -std::numeric_limits<double>::infinity());
  auto merged = CombineSplitsOp::create(b, loc, outTileTy, lseTileTy,
                                        outPartial, lsePartial);
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  OpFoldResult nRows = getAsOpFoldResult(n);
  std::optional<int64_t> staticN = getConstantIntValue(nRows);
  int64_t nDim = staticN.value_or(ShapedType::kDynamic);
  Value outRows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({nDim, cols}, outTy.getElementType()),
      merged.getOut(), ArrayRef<OpFoldResult>{zero, zero},
      ArrayRef<OpFoldResult>{nRows, b.getIndexAttr(cols)},
      ArrayRef<OpFoldResult>{one, one});
  // Every column tile merges the LSE; the first one stores it (the others
  // insert no rows, so no two iterations write one element).
  OpFoldResult lseCount = nRows;
  if (colTiles > 1) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        colTile, index(0));
    Value none = index(0);
    lseCount =
        getAsOpFoldResult(arith::SelectOp::create(b, loc, first, n, none));
  }
  Value lseRows = tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(
          {getConstantIntValue(lseCount).value_or(ShapedType::kDynamic)},
          b.getF32Type()),
      merged.getLse(), ArrayRef<OpFoldResult>{zero},
      ArrayRef<OpFoldResult>{lseCount}, ArrayRef<OpFoldResult>{one});

  b.setInsertionPointToStart(&forall.getTerminator().getRegion().front());
  SmallVector<OpFoldResult> at = {bi, head, query, getAsOpFoldResult(col0)};
  SmallVector<OpFoldResult> extent = {one, alongHeads ? nRows : one,
                                      alongHeads ? one : nRows,
                                      b.getIndexAttr(cols)};
  tensor::ParallelInsertSliceOp::create(b, loc, outRows,
                                        body->getArgument(3), at, extent,
                                        SmallVector<OpFoldResult>(4, one));
  SmallVector<OpFoldResult> lseExtent = {one, alongHeads ? lseCount : one,
                                         alongHeads ? one : lseCount};
  tensor::ParallelInsertSliceOp::create(
      b, loc, lseRows, body->getArgument(4),
      ArrayRef<OpFoldResult>(at).take_front(3), lseExtent,
      SmallVector<OpFoldResult>(3, one));

  Value oldLse = op.getLse();
  b.replaceAllUsesWith(op.getOut(), forall.getResult(0));
  b.replaceAllUsesWith(oldLse, forall.getResult(1));
  b.eraseOp(op);
  return success();
}

struct FATileCombinePass : fa::impl::FATileCombineBase<FATileCombinePass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockM != 0 && (blockM < kRowsPerWarp || blockM > kMaxRows ||
                        blockM % kRowsPerWarp != 0)) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-tile-combine: option block-m must be 0 (pick from the "
             "shapes) or a multiple of "
          << kRowsPerWarp << " up to " << kMaxRows << ", got "
          << blockM.getValue();
      return signalPassFailure();
    }
    if (blockDv < 0) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-tile-combine: option block-dv must be 0 (8 where it "
             "divides the value head dim, else all of it) or a column count "
             "that divides it, got "
          << blockDv.getValue();
      return signalPassFailure();
    }
    if (splitWarps < 0) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-tile-combine: option split-warps must be 0 (pick from the "
             "split count) or a number of warp groups per tile, got "
          << splitWarps.getValue();
      return signalPassFailure();
    }
    SmallVector<CombineSplitsOp> ops;
    getOperation()->walk([&](CombineSplitsOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (CombineSplitsOp op : ops)
      if (failed(CombineTiler(rewriter, op, blockM, blockDv, splitWarps)
                     .tile()))
        return signalPassFailure();
  }
};

} // namespace
