//===- Backward.cpp - The backward's tile ops on fragments ----------------===//
//
// fa.probs_from_lse and fa.score_grad are elementwise on accumulator
// fragments, with one per-query value (LSE, D) per element: the row of the
// element's row value, or, for the dK/dV nest's transposed tiles, its
// column. Those vectors carry no layout: each thread reads the entries it
// needs from memory (they are slices of kernel arguments; the other warps
// of the block read the same lines, which the L1 cache serves). fa.row_dot
// reads its operands the same way, at the positions of the acc fragments of
// a tile of its shape, and sums over the lanes of each row.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Rows [start, start + valid) of `buffer[batch, head]` (a kernel argument
/// [B, H, N] or [B, H, N, D]) read as a tile padded with `pad`: what
/// --fa-tile-backward's tensor.pad of tensor.extract_slice denotes.
struct MemoryRows {
  Value buffer, batch, head, start, valid;
  Value pad; // Null: padding rows read the last valid row (never used).
  /// Whether every row of the tile is valid (a constant count that covers
  /// it, as in the padded workspaces): no clamp, no padding.
  bool whole = false;

  static FailureOr<MemoryRows> of(OpBuilder &b, Location loc, Value tile,
                                  Operation *user) {
    MemoryRows rows;
    int64_t tileRows = cast<ShapedType>(tile.getType()).getDimSize(0);
    if (auto pad = tile.getDefiningOp<tensor::PadOp>()) {
      rows.pad = pad.getConstantPaddingValue();
      tile = pad.getSource();
    }
    auto slice = tile.getDefiningOp<tensor::ExtractSliceOp>();
    rows.buffer = slice ? kernelBuffer(slice.getSource()) : Value();
    int64_t rank = slice ? slice.getSourceType().getRank() : 0;
    if (!rows.buffer || (rank != 3 && rank != 4) || !slice.hasUnitStride() ||
        slice.getType().getRank() != rank - 2)
      return user->emitOpError(
          "fa-lower-to-gpu: a tile read from memory must be rows of one "
          "head of a kernel argument (tensor.extract_slice, optionally "
          "padded with a constant by tensor.pad)");
    auto value = [&](OpFoldResult ofr) {
      return getValueOrCreateConstantIndexOp(b, loc, ofr);
    };
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    rows.batch = value(offsets[0]);
    rows.head = value(offsets[1]);
    rows.start = value(offsets[2]);
    rows.valid = value(slice.getMixedSizes()[2]);
    std::optional<int64_t> valid = getConstantIntValue(rows.valid);
    rows.whole = valid && *valid >= tileRows;
    return rows;
  }

  /// Elements (row, col ...) of the tile, `type` a vector of the element
  /// type no wider than 16 bytes starting at a multiple of its width (rows
  /// are 16-byte aligned: the launch record requires it), as f32.
  Value loadVector(OpBuilder &b, Location loc, Value row, Value col,
                   VectorType type) const {
    int64_t bytes = type.getNumElements() *
                    type.getElementType().getIntOrFloatBitWidth() / 8;
    Value v = vector::LoadOp::create(
        b, loc, type, buffer,
        ValueRange{batch, head, rowToRead(b, loc, row), col},
        /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    auto f32Ty = VectorType::get(type.getShape(), b.getF32Type());
    if (type != f32Ty)
      v = arith::ExtFOp::create(b, loc, f32Ty, v);
    return padded(b, loc, v, row);
  }

  /// Element (row, col) of the tile (col ignored for vectors), as f32.
  Value load(OpBuilder &b, Location loc, Value row, Value col = {}) const {
    SmallVector<Value> at = {batch, head, rowToRead(b, loc, row)};
    if (col)
      at.push_back(col);
    Value v = memref::LoadOp::create(b, loc, buffer, at);
    if (!v.getType().isF32())
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return padded(b, loc, v, row);
  }

private:
  /// The buffer row that tile row `row` reads: past the valid rows, the
  /// last valid one (replaced by the pad value, padded()).
  Value rowToRead(OpBuilder &b, Location loc, Value row) const {
    if (!whole)
      row = arith::MinUIOp::create(
          b, loc, row, arith::SubIOp::create(b, loc, valid, cidx(b, loc, 1)));
    return arith::AddIOp::create(b, loc, start, row);
  }
  /// `v` (f32 or a vector of f32) read for tile row `row`, or the pad value
  /// if that is a padding row.
  Value padded(OpBuilder &b, Location loc, Value v, Value row) const {
    if (whole || !pad)
      return v;
    Value padF32 = pad.getType().isF32()
                       ? pad
                       : arith::ExtFOp::create(b, loc, b.getF32Type(), pad)
                             .getResult();
    if (auto vecTy = dyn_cast<VectorType>(v.getType()))
      padF32 = vector::BroadcastOp::create(b, loc, vecTy, padF32);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, valid);
    return arith::SelectOp::create(b, loc, inside, v, padF32);
  }
};

/// The per-query values of an acc tile's elements: entry (frag, elem) is
/// `perQuery(q)` for the element's query q (its row, or its column when
/// `transposed`), computed once per distinct query of the thread.
class QueryValues {
public:
  QueryValues(OpBuilder &b, Location loc, AtomLowering &atom,
              RankedTensorType tile, bool transposed,
              std::function<Value(Value)> perQuery)
      : b(b), loc(loc), atom(atom), tile(groupTile(tile)),
        transposed(transposed), perQuery(perQuery) {
    // Column groups: the group's columns start at its share's first.
    if (transposed && dividesKeys(tile))
      firstColumn = arith::MulIOp::create(
          b, loc, atom.replica(b, loc),
          cidx(b, loc, this->tile.getDimSize(1)));
  }

  Value at(int64_t frag, int64_t elem) {
    int64_t key = transposed ? atom.accColumn(tile, frag, elem)
                             : atom.accRowValue(tile, frag, elem);
    Value &v = cache[key];
    if (!v) {
      Value q = transposed
                    ? arith::AddIOp::create(b, loc, atom.threadFirstColumn(b, loc),
                                            cidx(b, loc, key))
                          .getResult()
                    : atom.rowOfRowValue(b, loc, tile.getDimSize(0), key);
      if (firstColumn)
        q = arith::AddIOp::create(b, loc, q, firstColumn);
      v = perQuery(q);
    }
    return v;
  }

private:
  OpBuilder &b;
  Location loc;
  AtomLowering &atom;
  RankedTensorType tile;
  bool transposed;
  Value firstColumn; // Null: the tile's columns are not divided.
  std::function<Value(Value)> perQuery; // Owned: a lambda temporary.
  DenseMap<int64_t, Value> cache;
};

/// Applies `f(element, frag, elem)` to every element of the acc fragments
/// `frags`; the new fragments.
SmallVector<Value>
mapAccElements(OpBuilder &b, Location loc, AtomLowering &atom,
               ValueRange frags,
               function_ref<Value(Value, int64_t, int64_t)> f) {
  SmallVector<Value> out;
  for (auto [i, frag] : llvm::enumerate(frags)) {
    SmallVector<Value> elems;
    for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e)
      elems.push_back(f(atom.extractAccElement(b, loc, frag, e), i, e));
    out.push_back(atom.buildAccFragment(b, loc, frag.getType(), elems));
  }
  return out;
}

/// Pattern: fa.probs_from_lse => per element exp2(scale * s - log2(e) LSE)
/// (AttentionMath.h's probFromLseLog2), LSE read once per query.
struct LowerProbsFromLse : OpConversionPattern<ProbsFromLseOp> {
  LowerProbsFromLse(const TypeConverter &converter, MLIRContext *ctx,
                    KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(ProbsFromLseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    FailureOr<MemoryRows> lse = MemoryRows::of(b, loc, op.getLse(), op);
    if (failed(lse))
      return failure();
    Value scale = adaptor.getScale().front();
    QueryValues lseLog2(b, loc, kernel.atom,
                        cast<RankedTensorType>(op.getScores().getType()),
                        op.getTransposed(), [&](Value q) {
                          return semantics::lseToLog2(b, loc, lse->load(b, loc, q));
                        });
    b.replaceOpWithMultiple(
        op, {mapAccElements(b, loc, kernel.atom, adaptor.getScores(),
                            [&](Value s, int64_t f, int64_t e) {
                              return semantics::probFromLseLog2(
                                  b, loc, s, scale, lseLog2.at(f, e));
                            })});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.score_grad => per element scale * P * (dP - D) (times the
/// cap's derivative), D read once per query.
struct LowerScoreGrad : OpConversionPattern<ScoreGradOp> {
  LowerScoreGrad(const TypeConverter &converter, MLIRContext *ctx,
                 KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(ScoreGradOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    FailureOr<MemoryRows> rowDot = MemoryRows::of(b, loc, op.getRowDot(), op);
    if (failed(rowDot))
      return failure();
    Value scale = adaptor.getScale().front();
    Value cap = op.getCap() ? adaptor.getCap().front() : Value();
    ValueRange dp = adaptor.getGradProbs();
    ValueRange capped = op.getCapped() ? adaptor.getCapped() : ValueRange();
    QueryValues d(b, loc, kernel.atom,
                  cast<RankedTensorType>(op.getProbs().getType()),
                  op.getTransposed(),
                  [&](Value q) { return rowDot->load(b, loc, q); });
    AtomLowering &atom = kernel.atom;
    b.replaceOpWithMultiple(
        op, {mapAccElements(
                b, loc, atom, adaptor.getProbs(),
                [&](Value p, int64_t f, int64_t e) {
                  Value c = cap ? atom.extractAccElement(b, loc, capped[f], e)
                                : Value();
                  return semantics::rawScoreGrad(
                      b, loc, p, atom.extractAccElement(b, loc, dp[f], e),
                      d.at(f, e), scale, c, cap);
                })});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.row_dot (result held by warps) => per row value of the
/// thread the sum of dO * O over a share of the row's columns, then over
/// the lanes that hold the row (the lanes the acc layout gives it). The
/// shares are interleaved vectors of up to 16 bytes: lane l of the row
/// reads vectors l, l + lanes, ..., so the lanes of a row read contiguous
/// bytes (D's kernel is bound by reading dO and O; loads at the acc
/// fragments' 2-element positions reached 1.6 TB/s on an H100).
struct LowerRowDot : OpConversionPattern<RowDotOp> {
  LowerRowDot(const TypeConverter &converter, MLIRContext *ctx,
              KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(RowDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    if (!isa_and_nonnull<WarpRowsAttr>(
            cast<RankedTensorType>(op.getRowDot().getType()).getEncoding()))
      return op.emitOpError("fa-lower-to-gpu: the result of fa.row_dot must "
                            "be held by warps (--fa-map-warps)");
    FailureOr<MemoryRows> gradOut = MemoryRows::of(b, loc, op.getGradOut(), op);
    FailureOr<MemoryRows> out = MemoryRows::of(b, loc, op.getOut(), op);
    if (failed(gradOut) || failed(out))
      return failure();
    AtomLowering &atom = kernel.atom;
    auto tileTy = cast<RankedTensorType>(op.getGradOut().getType());
    SmallVector<Type> rowTypes;
    if (failed(getTypeConverter()->convertType(op.getRowDot().getType(),
                                               rowTypes)))
      return failure();
    int64_t rowValues = rowTypes.size();
    int64_t rows = tileTy.getDimSize(0), cols = tileTy.getDimSize(1);
    int64_t lanes = atom.lanesPerRow();
    Type elemTy = tileTy.getElementType();
    int64_t width = 128 / elemTy.getIntOrFloatBitWidth();
    while (width > 1 && cols % (lanes * width) != 0)
      width /= 2;
    if (cols % (lanes * width) != 0)
      return op.emitOpError("fa-lower-to-gpu: fa.row_dot's columns (")
             << cols << ") must divide among the " << lanes
             << " lanes of a row";
    int64_t vectorsPerLane = cols / (lanes * width);
    auto vecTy = VectorType::get({width}, elemTy);
    Value lane = atom.laneInRow(b, loc);
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    SmallVector<Value> sums;
    for (int64_t r = 0; r < rowValues; ++r) {
      Value row = atom.rowOfRowValue(b, loc, rows, r);
      Value sum = zero;
      for (int64_t i = 0; i < vectorsPerLane; ++i) {
        Value col = arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, lane, cidx(b, loc, i * lanes)),
            cidx(b, loc, width));
        Value x = gradOut->loadVector(b, loc, row, col, vecTy);
        Value y = out->loadVector(b, loc, row, col, vecTy);
        for (int64_t e = 0; e < width; ++e)
          sum = math::FmaOp::create(
              b, loc, vector::ExtractOp::create(b, loc, x, e),
              vector::ExtractOp::create(b, loc, y, e), sum);
      }
      sums.push_back(atom.reduceAcrossRowLanes(b, loc, sum, /*isMax=*/false));
    }
    b.replaceOpWithMultiple(op, {sums});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.accumulate_rows (an acc tile into a kernel argument) => one
/// atomic f32 add per element of the thread's fragments in the valid rows.
struct LowerAccumulateRows : OpConversionPattern<AccumulateRowsOp> {
  LowerAccumulateRows(const TypeConverter &converter, MLIRContext *ctx,
                      KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(AccumulateRowsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    if (!rows || rows.getRole() != FragmentRole::Acc)
      return op.emitOpError("fa-lower-to-gpu: accumulates an acc tile held "
                            "by warps, got ")
             << tile;
    if (!isa<BlockArgument>(op.getBuffer()))
      return op.emitOpError("fa-lower-to-gpu: accumulates into a kernel "
                            "argument");
    // (The tile may be held by a warp grid of its own: a product's.)
    kernel.atom.withTileGeometry(b, op.getLoc(), tile, [&] {
      kernel.atom.accumulateAccTile(
          b, op.getLoc(), tile, adaptor.getTile(), op.getBuffer(),
          TileRows{adaptor.getBatch().front(), adaptor.getHead().front(),
                   adaptor.getRowStart().front(), adaptor.getRows().front()},
          op.getTransposed(), op.getFragmentOrder());
    });
    b.eraseOp(op);
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.read_rows (sums of a kernel argument) => the tile's acc
/// fragments, loaded in the writer's fragment order or by rows (zeros past
/// the valid ones).
struct LowerReadRows : OpConversionPattern<ReadRowsOp> {
  LowerReadRows(const TypeConverter &converter, MLIRContext *ctx,
                KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(ReadRowsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    RankedTensorType tile = op.getTile().getType();
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    if (!rows || rows.getRole() != FragmentRole::Acc)
      return op.emitOpError("fa-lower-to-gpu: reads into an acc tile held "
                            "by warps, got ")
             << tile;
    Value source = kernelBuffer(op.getSums());
    if (!source)
      return op.emitOpError("fa-lower-to-gpu: reads the sums of a kernel "
                            "argument (bufferization.to_tensor of it)");
    if (cast<ShapedType>(source.getType()).isDynamicDim(3))
      return op.emitOpError("fa-lower-to-gpu: the last dimension of sums "
                            "(the tile's columns) must be static, got ")
             << op.getSums().getType();
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    b.replaceOpWithMultiple(
        op, {kernel.atom.loadAccTile(
                b, loc, source,
                TileRows{adaptor.getBatch().front(), adaptor.getHead().front(),
                         adaptor.getRowStart().front(),
                         adaptor.getRows().front()},
                tile, zero, op.getFragmentOrder())});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateBackwardPatterns(const TypeConverter &converter,
                                        KernelContext &kernel,
                                        RewritePatternSet &patterns) {
  patterns.add<LowerProbsFromLse, LowerScoreGrad, LowerRowDot,
               LowerAccumulateRows, LowerReadRows>(
      converter, patterns.getContext(), kernel);
}
