//===- DecomposeTiles.cpp - tile-level fa ops -> linalg on tensors --------===//
//
// The CPU lowering of L1-L3: layouts are erased (EraseLayouts.h), then each
// tile op becomes the linalg.generic ops that define its semantics, built
// from the one definition of each step in AttentionMath.h.
//
//===----------------------------------------------------------------------===//

#include "BackwardBuilders.h"
#include "EraseLayouts.h"
#include "LinalgBuilders.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FADECOMPOSETILES
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Builders for the 2-D tile ([rows, cols]) and 1-D row ([rows]) generics.
struct TileLinalg : LinalgBuilder {
  TileLinalg(OpBuilder &b, Location loc) : LinalgBuilder(b, loc) {
    AffineExpr r, c, k;
    bindDims(b.getContext(), r, c, k);
    tile2 = map(2, {r, c});
    row2 = map(2, {r});
    row1 = map(1, {r});
    // Matmul loops (r, c, k): A[r, k] * B(k, c) -> C[r, c].
    mmA = map(3, {r, k});
    mmBTransposed = map(3, {c, k});
    mmB = map(3, {k, c});
    mmC = map(3, {r, c});
  }

  /// A new f32 tensor with the static shape of `like`, filled with `value`.
  Value filledLike(Value like, double value) {
    auto ty = cast<RankedTensorType>(like.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : ty.getShape())
      sizes.push_back(builder().getIndexAttr(d));
    return filled(sizes, value);
  }

  /// An uninitialised f32 tensor shaped like `like`, for elementwise results.
  Value emptyLike(Value like) {
    auto ty = cast<RankedTensorType>(like.getType());
    return tensor::EmptyOp::create(builder(), location(), ty.getShape(),
                                   builder().getF32Type());
  }

  /// `C + A B` (or `C + A B^T`), accumulated in f32 into `acc`.
  Value matmulAcc(Value a, Value bMat, Value acc, bool transposeB) {
    return generic(acc, {a, bMat}, {mmA, transposeB ? mmBTransposed : mmB, mmC},
                   {kParallel, kParallel, kReduction},
                   [](OpBuilder &nb, Location l, ValueRange args) {
                     Value x = toF32(nb, l, args[0]);
                     Value y = toF32(nb, l, args[1]);
                     Value prod = arith::MulFOp::create(nb, l, x, y);
                     yield(nb, l, arith::AddFOp::create(nb, l, args[2], prod));
                   });
  }

  /// Row reduction of a [rows, cols] tile, seeded with `init`;
  /// `combine(accumulator, element)`.
  Value reduceRows(
      Value tile, double init,
      function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
    return generic(filledLike(emptyRows(tile), init), tile, {tile2, row2},
                   {kParallel, kReduction},
                   [&](OpBuilder &nb, Location l, ValueRange a) {
                     yield(nb, l, combine(nb, l, a[1], a[0]));
                   });
  }

  /// A [rows] f32 tensor for a [rows, cols] tile.
  Value emptyRows(Value tile) {
    auto ty = cast<RankedTensorType>(tile.getType());
    return tensor::EmptyOp::create(builder(), location(), {ty.getDimSize(0)},
                                   builder().getF32Type());
  }

  AffineMap tile2, row2, row1, mmA, mmBTransposed, mmB, mmC;
};

/// Pattern: fa.qk => S = Q K^T (a matmul with K transposed).
struct LowerQK : OpRewritePattern<QKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QKOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    rw.replaceOp(op, lb.matmulAcc(op.getQuery(), op.getKey(),
                                  lb.filledLike(op.getScores(), 0.0),
                                  /*transposeB=*/true));
    return success();
  }
};

/// Pattern: fa.mask => select(isHidden(row, col), -inf, s) per element.
struct LowerMask : OpRewritePattern<MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value negInf = lb.f32Constant(-kInf);
    semantics::MaskSpec spec = semantics::MaskSpec::of(op);
    Value rowStart = op.getRowStart(), colStart = op.getColStart();
    rw.replaceOp(op, lb.generic(
                         op.getScores(), {}, {lb.tile2}, {kParallel, kParallel},
                         [&](OpBuilder &nb, Location l, ValueRange a) {
                           // Transposed tiles hold keys in rows and queries
                           // in columns.
                           unsigned queryDim = op.getTransposed() ? 1 : 0;
                           Value row = semantics::queryRow(
                               nb, l, queryDim ? colStart : rowStart,
                               linalg::IndexOp::create(nb, l, queryDim), spec);
                           Value col = arith::AddIOp::create(
                               nb, l, queryDim ? rowStart : colStart,
                               linalg::IndexOp::create(nb, l, 1 - queryDim));
                           Value hidden = semantics::isHidden(nb, l, row, col, spec);
                           LinalgBuilder::yield(
                               nb, l, arith::SelectOp::create(nb, l, hidden, negInf, a[0]));
                         }));
    return success();
  }
};

/// Pattern: fa.softcap => cap * tanh(scale * s) per element.
struct LowerSoftcap : OpRewritePattern<SoftcapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftcapOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value scale = op.getScale(), cap = op.getCap();
    rw.replaceOp(op, lb.generic(op.getScores(), {}, {lb.tile2},
                                {kParallel, kParallel},
                                [&](OpBuilder &nb, Location l, ValueRange a) {
                                  LinalgBuilder::yield(
                                      nb, l,
                                      semantics::softcap(nb, l, a[0], scale, cap));
                                }));
    return success();
  }
};

/// Pattern: fa.running_max => rowmax(S), m_new, alpha.
struct LowerRunningMax : OpRewritePattern<RunningMaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RunningMaxOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value scale = op.getScale(), m = op.getMax();
    Value rowMax = lb.reduceRows(op.getScores(), -kInf, semantics::maxOf);
    // m_new = max(m, scale * rowMax); alpha = exp2(m - base(m_new)).
    Value newMax = lb.generic(lb.emptyLike(m), {m, rowMax},
                              {lb.row1, lb.row1, lb.row1}, {kParallel},
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                LinalgBuilder::yield(
                                    nb, l,
                                    semantics::newRunningMax(nb, l, a[0], a[1], scale));
                              });
    Value alpha = lb.generic(
        lb.emptyLike(m), {m, newMax}, {lb.row1, lb.row1, lb.row1}, {kParallel},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value base = semantics::softmaxBase(nb, l, a[1]);
          LinalgBuilder::yield(nb, l, semantics::rescaleFactor(nb, l, a[0], base));
        });
    rw.replaceOp(op, {newMax, alpha});
    return success();
  }
};

/// Pattern: fa.softmax_exp => P = exp2(scale * S - base), l_new.
struct LowerSoftmaxExp : OpRewritePattern<SoftmaxExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxExpOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value scale = op.getScale(), s = op.getScores();
    Value probs = lb.generic(
        lb.emptyLike(s), {s, op.getNewMax()}, {lb.tile2, lb.row2, lb.tile2},
        {kParallel, kParallel}, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value negBase = arith::NegFOp::create(
              nb, l, semantics::softmaxBase(nb, l, a[1]));
          LinalgBuilder::yield(nb, l,
                               semantics::expScore(nb, l, a[0], scale, negBase));
        });
    Value rowSum = lb.reduceRows(
        probs, 0.0, [](OpBuilder &nb, Location l, Value acc, Value x) {
          return arith::AddFOp::create(nb, l, acc, x).getResult();
        });
    Value newSum = lb.generic(
        lb.emptyLike(op.getSum()), {op.getAlpha(), op.getSum(), rowSum},
        {lb.row1, lb.row1, lb.row1, lb.row1}, {kParallel},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          LinalgBuilder::yield(nb, l,
                               semantics::newRunningSum(nb, l, a[0], a[1], a[2]));
        });
    rw.replaceOp(op, {probs, newSum});
    return success();
  }
};

/// Pattern: fa.rescale => alpha[r] * acc[r, :].
struct LowerRescale : OpRewritePattern<RescaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RescaleOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    rw.replaceOp(op, lb.generic(op.getAcc(), op.getAlpha(),
                                {lb.row2, lb.tile2}, {kParallel, kParallel},
                                [](OpBuilder &nb, Location l, ValueRange a) {
                                  LinalgBuilder::yield(
                                      nb, l, arith::MulFOp::create(nb, l, a[0], a[1]));
                                }));
    return success();
  }
};

/// Pattern: fa.pv => acc + P V.
struct LowerPV : OpRewritePattern<PVOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PVOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    rw.replaceOp(op, lb.matmulAcc(op.getProbs(), op.getValue(), op.getAcc(),
                                  /*transposeB=*/false));
    return success();
  }
};

/// Pattern: fa.finalize => O = acc * (1 / l), LSE = ln2 (m + log2 l).
struct LowerFinalize : OpRewritePattern<FinalizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FinalizeOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Location loc = op.getLoc();
    auto outTy = cast<RankedTensorType>(op.getOut().getType());
    Type outElem = outTy.getElementType();
    Value outInit = tensor::EmptyOp::create(rw, loc, outTy.getShape(), outElem);
    Value out = lb.generic(
        outInit, {op.getAcc(), op.getSum()}, {lb.tile2, lb.row2, lb.tile2},
        {kParallel, kParallel}, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value o = arith::MulFOp::create(nb, l, a[0],
                                          semantics::inverseSum(nb, l, a[1]));
          if (!outElem.isF32())
            o = arith::TruncFOp::create(nb, l, outElem, o);
          LinalgBuilder::yield(nb, l, o);
        });
    Value lse = lb.generic(
        lb.emptyLike(op.getMax()), {op.getMax(), op.getSum()},
        {lb.row1, lb.row1, lb.row1}, {kParallel},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          LinalgBuilder::yield(nb, l, semantics::logSumExp(nb, l, a[0], a[1]));
        });
    rw.replaceOp(op, {out, lse});
    return success();
  }
};

/// fa.combine_splits as reductions over the split dimension: the largest
/// split LSE, the weights' sum, the weighted sum of the partial outputs,
/// then O and LSE (AttentionMath.h, "Combining splits").
struct LowerCombineSplits : OpRewritePattern<CombineSplitsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CombineSplitsOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    LinalgBuilder lb(rw, loc);
    Value partialOut = op.getPartialOut(), partialLse = op.getPartialLse();
    // Rows ([B, H, Nq], or a tile's [R]) and the output's sizes, from the
    // partial output [S, rows..., Dv].
    int64_t outRank = cast<RankedTensorType>(op.getOut().getType()).getRank();
    int64_t rowRank = outRank - 1;
    SmallVector<OpFoldResult> outSizes;
    for (int64_t i = 1; i <= outRank; ++i)
      outSizes.push_back(tensor::getMixedSize(rw, loc, partialOut, i));
    ArrayRef<OpFoldResult> rowSizes = ArrayRef(outSizes).take_front(rowRank);

    MLIRContext *ctx = rw.getContext();
    auto dims = [&](int64_t from, int64_t count) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < count; ++i)
        exprs.push_back(getAffineDimExpr(from + i, ctx));
      return exprs;
    };
    auto prepend = [](AffineExpr first, SmallVector<AffineExpr> rest) {
      rest.insert(rest.begin(), first);
      return rest;
    };
    auto iterators = [&](int64_t parallel, bool reduction) {
      SmallVector<utils::IteratorType> its(parallel, kParallel);
      if (reduction)
        its.push_back(kReduction);
      return its;
    };
    // Rows with the split s innermost: (rows..., s).
    int64_t n = rowRank + 1;
    AffineExpr split = getAffineDimExpr(rowRank, ctx);
    AffineMap rowOf = lb.map(n, dims(0, rowRank));
    AffineMap splitLse = lb.map(n, prepend(split, dims(0, rowRank)));
    Value maxLse = lb.generic(
        lb.filled(rowSizes, -kInf), {partialLse}, {splitLse, rowOf},
        iterators(rowRank, true),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          LinalgBuilder::yield(nb, l, semantics::maxOf(nb, l, a[1], a[0]));
        });
    auto weight = [](OpBuilder &nb, Location l, Value lse, Value max) {
      return semantics::splitWeight(nb, l, lse,
                                    semantics::splitsBase(nb, l, max));
    };
    Value weightSum = lb.generic(
        lb.filled(rowSizes, 0.0), {partialLse, maxLse},
        {splitLse, rowOf, rowOf}, iterators(rowRank, true),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value w = weight(nb, l, a[0], a[1]);
          LinalgBuilder::yield(nb, l, arith::AddFOp::create(nb, l, a[2], w));
        });
    // (rows..., e, s): sum_s w_s O_s.
    AffineExpr splitO = getAffineDimExpr(outRank, ctx);
    Value weighted = lb.generic(
        lb.filled(outSizes, 0.0), {partialOut, partialLse, maxLse},
        {lb.map(outRank + 1, prepend(splitO, dims(0, outRank))),
         lb.map(outRank + 1, prepend(splitO, dims(0, rowRank))),
         lb.map(outRank + 1, dims(0, rowRank)),
         lb.map(outRank + 1, dims(0, outRank))},
        iterators(outRank, true),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value w = weight(nb, l, a[1], a[2]);
          LinalgBuilder::yield(nb, l, arith::AddFOp::create(
                                          nb, l, a[3],
                                          arith::MulFOp::create(nb, l, w, a[0])));
        });
    Type outElem = op.getOut().getType().getElementType();
    AffineMap tile = lb.map(outRank, dims(0, outRank));
    AffineMap rowOfTile = lb.map(outRank, dims(0, rowRank));
    Value out = lb.generic(
        tensor::EmptyOp::create(rw, loc, outSizes, outElem), {weighted, weightSum},
        {tile, rowOfTile, tile}, iterators(outRank, false),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value o = arith::MulFOp::create(nb, l, a[0],
                                          semantics::inverseSum(nb, l, a[1]));
          if (!outElem.isF32())
            o = arith::TruncFOp::create(nb, l, outElem, o);
          LinalgBuilder::yield(nb, l, o);
        });
    AffineMap row = lb.map(rowRank, dims(0, rowRank));
    Value lse = lb.generic(
        tensor::EmptyOp::create(rw, loc, rowSizes, rw.getF32Type()),
        {maxLse, weightSum}, {row, row, row}, iterators(rowRank, false),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          LinalgBuilder::yield(nb, l, semantics::combinedLse(
                                          nb, l, semantics::splitsBase(nb, l, a[0]),
                                          a[1]));
        });
    // The sizes came from the partial results, which may be more static
    // than the op's result types.
    auto castTo = [&](Value v, Type t) -> Value {
      return v.getType() == t ? v : tensor::CastOp::create(rw, loc, t, v);
    };
    rw.replaceOp(op, {castTo(out, op.getOut().getType()),
                      castTo(lse, op.getLse().getType())});
    return success();
  }
};

/// The map that reads a per-query vector of a [rows, cols] tile: by row,
/// or by column for the backward's transposed tiles.
AffineMap queryVectorMap(TileLinalg &lb, bool transposed) {
  return transposed ? lb.map(2, {getAffineDimExpr(1, lb.builder().getContext())})
                    : lb.row2;
}

/// Pattern: fa.probs_from_lse => exp2(scale * s - log2(e) LSE) per element.
struct LowerProbsFromLse : OpRewritePattern<ProbsFromLseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ProbsFromLseOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value s = op.getScores(), scale = op.getScale();
    rw.replaceOp(op, lb.generic(
                         lb.emptyLike(s), {s, op.getLse()},
                         {lb.tile2, queryVectorMap(lb, op.getTransposed()),
                          lb.tile2},
                         {kParallel, kParallel},
                         [&](OpBuilder &nb, Location l, ValueRange a) {
                           Value lse2 = semantics::lseToLog2(nb, l, a[1]);
                           LinalgBuilder::yield(
                               nb, l,
                               semantics::probFromLseLog2(nb, l, a[0], scale,
                                                          lse2));
                         }));
    return success();
  }
};

/// Pattern: fa.score_grad => scale * P * (dP - D) (times the cap's
/// derivative) per element.
struct LowerScoreGrad : OpRewritePattern<ScoreGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScoreGradOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value p = op.getProbs(), scale = op.getScale(), cap = op.getCap();
    SmallVector<Value> ins = {p, op.getGradProbs(), op.getRowDot()};
    SmallVector<AffineMap> maps = {lb.tile2, lb.tile2,
                                   queryVectorMap(lb, op.getTransposed())};
    if (op.getCapped()) {
      ins.push_back(op.getCapped());
      maps.push_back(lb.tile2);
    }
    maps.push_back(lb.tile2);
    rw.replaceOp(op, lb.generic(lb.emptyLike(p), ins, maps,
                                {kParallel, kParallel},
                                [&](OpBuilder &nb, Location l, ValueRange a) {
                                  LinalgBuilder::yield(
                                      nb, l,
                                      semantics::rawScoreGrad(
                                          nb, l, a[0], a[1], a[2], scale,
                                          cap ? a[3] : Value(), cap));
                                }));
    return success();
  }
};

/// Pattern: fa.row_dot => D[r] = sum_e dO[r, e] * O[r, e] in f32.
struct LowerRowDot : OpRewritePattern<RowDotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RowDotOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value init = lb.filledLike(op.getRowDot(), 0.0);
    rw.replaceOp(op, lb.generic(init, {op.getGradOut(), op.getOut()},
                                {lb.tile2, lb.tile2, lb.row2},
                                {kParallel, kReduction},
                                [](OpBuilder &nb, Location l, ValueRange a) {
                                  Value x = LinalgBuilder::toF32(nb, l, a[0]);
                                  Value y = LinalgBuilder::toF32(nb, l, a[1]);
                                  LinalgBuilder::yield(nb, l,
                                        math::FmaOp::create(nb, l, x, y, a[2]));
                                }));
    return success();
  }
};

/// Pattern: fa.transpose => linalg.transpose.
struct LowerTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    Value init = tensor::EmptyOp::create(rw, op.getLoc(), type.getShape(),
                                         type.getElementType());
    rw.replaceOp(op, linalg::TransposeOp::create(rw, op.getLoc(),
                                                 op.getSource(), init,
                                                 ArrayRef<int64_t>{1, 0})
                         ->getResults());
    return success();
  }
};

/// Pattern: fa.accumulate_rows => for r < rows, for each column c:
/// memref.atomic_rmw addf of tile[r, c] (tile[c, r] transposed) into
/// buffer[batch, head, row_start + r, c].
struct LowerAccumulateRows : OpRewritePattern<AccumulateRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AccumulateRowsOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    bool transposed = op.getTransposed();
    int64_t cols = tile.getDimSize(transposed ? 0 : 1);
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    Value colCount = arith::ConstantIndexOp::create(rw, loc, cols);
    scf::ForOp::create(
        rw, loc, zero, op.getRows(), one, ValueRange(),
        [&](OpBuilder &b, Location l, Value r, ValueRange) {
          Value row = arith::AddIOp::create(b, l, op.getRowStart(), r);
          scf::ForOp::create(
              b, l, zero, colCount, one, ValueRange(),
              [&](OpBuilder &nb, Location nl, Value c, ValueRange) {
                Value x = tensor::ExtractOp::create(
                    nb, nl, op.getTile(),
                    transposed ? ValueRange{c, r} : ValueRange{r, c});
                memref::AtomicRMWOp::create(
                    nb, nl, arith::AtomicRMWKind::addf, x, op.getBuffer(),
                    ValueRange{op.getBatch(), op.getHead(), row, c});
                scf::YieldOp::create(nb, nl);
              });
          scf::YieldOp::create(b, l);
        });
    rw.eraseOp(op);
    return success();
  }
};

/// Pattern: fa.read_rows => tensor.pad of tensor.extract_slice (rows
/// [row_start, row_start + rows) of sums[batch, head], zeros below). The
/// fragment order is a GPU storage order: on the CPU both ends use rows.
struct LowerReadRows : OpRewritePattern<ReadRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReadRowsOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(0.0f));
    rw.replaceOp(op, loadPaddedRows(rw, loc, op.getSums(), op.getBatch(),
                                    op.getHead(), op.getRowStart(),
                                    op.getRows(),
                                    op.getTile().getType().getDimSize(0),
                                    zero));
    return success();
  }
};

/// Pattern: fa.varlen_block => the walk over the sequences, or with
/// per_sequence the slots (AttentionMath.h, varlenBlock), reading cu_seqlens
/// with tensor.extract; a sequence longer than its slots fails a cf.assert.
struct LowerVarlenBlock : OpRewritePattern<VarlenBlockOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VarlenBlockOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto reader = [](Value cuSeqlens) {
      return [cuSeqlens](OpBuilder &b, Location l, Value i) -> Value {
        return arith::IndexCastOp::create(
            b, l, b.getIndexType(),
            tensor::ExtractOp::create(b, l, cuSeqlens, i));
      };
    };
    auto readQ = reader(op.getCuSeqlensQ()), readK = reader(op.getCuSeqlensK());
    Value numSeqs = arith::SubIOp::create(
        rw, loc, tensor::DimOp::create(rw, loc, op.getCuSeqlensQ(), 0),
        arith::ConstantIndexOp::create(rw, loc, 1));
    semantics::VarlenBlock found = semantics::varlenBlock(
        rw, loc, readQ, readK, numSeqs, op.getIndex(), op.getBlockRows(),
        op.getBlocksPerSequence());
    if (op.getBlocksPerSequence()) {
      Value fits = arith::XOrIOp::create(
          rw, loc, found.tooLong,
          arith::ConstantIntOp::create(rw, loc, rw.getI1Type(), 1));
      cf::AssertOp::create(rw, loc, fits,
                           "fa.varlen_block: a sequence has more Q blocks "
                           "than per_sequence (max_seqlen_q below its "
                           "length)");
    }
    rw.replaceOp(op, ValueRange{found.sequence, found.block,
                                found.queries.start, found.queries.length,
                                found.keys.start, found.keys.length});
    return success();
  }
};

struct FADecomposeTilesPass
    : fa::impl::FADecomposeTilesBase<FADecomposeTilesPass> {
  void runOnOperation() override {
    // GPU-stage IR (after --fa-lower-to-gpu) has nothing this pass lowers,
    // and upstream's bufferization would stop at the launch with a message
    // about memory effects instead.
    WalkResult gpuStage = getOperation()->walk([](Operation *op) {
      StringRef name = op->getName().getStringRef();
      if (name != "gpu.launch_func" && name != "gpu.module")
        return WalkResult::advance();
      op->emitError("fa-decompose-tiles: '")
          << name << "' is GPU-stage IR (the output of --fa-lower-to-gpu); "
          << "the CPU path (--fa-lower-to-cpu) runs the IR before it "
             "(L0-L3)";
      return WalkResult::interrupt();
    });
    if (gpuStage.wasInterrupted())
      return signalPassFailure();
    if (failed(eraseLayouts(getOperation())))
      return signalPassFailure();
    // The online-softmax step is its two halves.
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](OnlineSoftmaxOp op) {
      splitOnlineSoftmax(rewriter, op);
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerQK, LowerSoftcap, LowerMask, LowerRunningMax, LowerSoftmaxExp,
                 LowerRescale, LowerPV, LowerFinalize, LowerCombineSplits,
                 LowerProbsFromLse, LowerScoreGrad, LowerRowDot, LowerTranspose,
                 LowerAccumulateRows, LowerReadRows, LowerVarlenBlock>(
        &getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    reshapeMultiDynamicExpands(getOperation());
  }

  /// A run-time split count with a dynamic batch gives --fa-split-kv's
  /// [S * B, ...] -> [S, B, ...] expand_shape two dynamic sizes in one
  /// group, and upstream MLIR 22's --expand-strided-metadata crashes on the
  /// memref.expand_shape that bufferizes from it (found by differential
  /// testing; the GPU path tiles the merge and never bufferizes it). On
  /// the CPU path such an expand is the same tensor.reshape.
  static void reshapeMultiDynamicExpands(Operation *root) {
    SmallVector<tensor::ExpandShapeOp> expands;
    root->walk([&](tensor::ExpandShapeOp op) {
      ArrayRef<int64_t> shape = op.getResultType().getShape();
      for (const ReassociationIndices &group : op.getReassociationIndices())
        if (llvm::count_if(group, [&](int64_t d) {
              return ShapedType::isDynamic(shape[d]);
            }) > 1) {
          expands.push_back(op);
          return;
        }
    });
    for (tensor::ExpandShapeOp op : expands) {
      IRRewriter rw(op);
      Location loc = op.getLoc();
      SmallVector<Value> sizes;
      for (OpFoldResult size : op.getMixedOutputShape())
        sizes.push_back(getValueOrCreateConstantIndexOp(rw, loc, size));
      Value shape = tensor::FromElementsOp::create(rw, loc, sizes);
      rw.replaceOpWithNewOp<tensor::ReshapeOp>(op, op.getResultType(),
                                               op.getSrc(), shape);
    }
  }
};

} // namespace
