//===- DecomposeTiles.cpp - tile-level fa ops -> linalg on tensors --------===//
//
// The CPU lowering of L1/L2: each tile op becomes the linalg.generic ops that
// define its semantics (see the op descriptions in FAOps.td).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cmath>
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
                     Value prod = arith::MulFOp::create(
                         nb, l, toF32(nb, l, args[0]), toF32(nb, l, args[1]));
                     yield(nb, l, arith::AddFOp::create(nb, l, args[2], prod));
                   });
  }

  AffineMap tile2, row2, row1, mmA, mmBTransposed, mmB, mmC;
};

struct LowerQK : OpRewritePattern<QKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QKOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value s = lb.matmulAcc(op.getQuery(), op.getKey(),
                           lb.filledLike(op.getScores(), 0.0),
                           /*transposeB=*/true);
    Value scale = lb.f32Constant(op.getScale().convertToDouble());
    rw.replaceOp(op, lb.generic(s, {}, {lb.tile2}, {kParallel, kParallel},
                                [&](OpBuilder &nb, Location l, ValueRange a) {
                                  LinalgBuilder::yield(
                                      nb, l,
                                      arith::MulFOp::create(nb, l, a[0], scale));
                                }));
    return success();
  }
};

struct LowerMask : OpRewritePattern<MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value negInf = lb.f32Constant(-kInf);
    Value keyLimit = op.getKeyLimit(), causalOffset = op.getCausalOffset();
    Value rowStart = op.getRowStart(), colStart = op.getColStart();
    Value masked = lb.generic(
        op.getScores(), {}, {lb.tile2}, {kParallel, kParallel},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value row = arith::AddIOp::create(nb, l, rowStart,
                                            linalg::IndexOp::create(nb, l, 0));
          Value col = arith::AddIOp::create(nb, l, colStart,
                                            linalg::IndexOp::create(nb, l, 1));
          Value hidden;
          auto orHidden = [&](Value cond) {
            hidden = hidden ? arith::OrIOp::create(nb, l, hidden, cond)
                                  .getResult()
                            : cond;
          };
          if (keyLimit)
            orHidden(arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                           col, keyLimit));
          if (causalOffset) {
            Value last = arith::AddIOp::create(nb, l, row, causalOffset);
            orHidden(arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                           col, last));
          }
          LinalgBuilder::yield(
              nb, l, arith::SelectOp::create(nb, l, hidden, negInf, a[0]));
        });
    rw.replaceOp(op, masked);
    return success();
  }
};

struct LowerOnlineSoftmax : OpRewritePattern<OnlineSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OnlineSoftmaxOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Value s = op.getScores(), m = op.getMax(), l = op.getSum();
    Value zero = lb.f32Constant(0.0), negInf = lb.f32Constant(-kInf);

    // m_new = max(m, rowmax(S)): a row reduction seeded with m.
    Value newMax = lb.generic(m, s, {lb.tile2, lb.row2},
                              {kParallel, kReduction},
                              [](OpBuilder &nb, Location loc, ValueRange a) {
                                LinalgBuilder::yield(
                                    nb, loc,
                                    arith::MaximumFOp::create(nb, loc, a[0], a[1]));
                              });
    // base = m_new, or 0 while the row has seen no key (keeps exp2 finite).
    Value base = lb.generic(
        lb.emptyLike(m), newMax, {lb.row1, lb.row1}, {kParallel},
        [&](OpBuilder &nb, Location loc, ValueRange a) {
          Value none = arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OEQ,
                                             a[0], negInf);
          LinalgBuilder::yield(nb, loc,
                               arith::SelectOp::create(nb, loc, none, zero, a[0]));
        });
    auto exp2Diff = [](OpBuilder &nb, Location loc, ValueRange a) {
      LinalgBuilder::yield(
          nb, loc,
          math::Exp2Op::create(nb, loc, arith::SubFOp::create(nb, loc, a[0], a[1])));
    };
    // alpha = exp2(m - base); P = exp2(S - base).
    Value alpha = lb.generic(lb.emptyLike(m), {m, base},
                             {lb.row1, lb.row1, lb.row1}, {kParallel}, exp2Diff);
    Value probs = lb.generic(lb.emptyLike(s), {s, base},
                             {lb.tile2, lb.row2, lb.tile2},
                             {kParallel, kParallel}, exp2Diff);
    // l_new = alpha * l + rowsum(P).
    Value scaledSum = lb.generic(
        lb.emptyLike(l), {alpha, l}, {lb.row1, lb.row1, lb.row1},
        {kParallel}, [](OpBuilder &nb, Location loc, ValueRange a) {
          LinalgBuilder::yield(nb, loc, arith::MulFOp::create(nb, loc, a[0], a[1]));
        });
    Value newSum = lb.generic(scaledSum, probs, {lb.tile2, lb.row2},
                              {kParallel, kReduction},
                              [](OpBuilder &nb, Location loc, ValueRange a) {
                                LinalgBuilder::yield(
                                    nb, loc, arith::AddFOp::create(nb, loc, a[0], a[1]));
                              });
    rw.replaceOp(op, {probs, newMax, newSum, alpha});
    return success();
  }
};

struct LowerPV : OpRewritePattern<PVOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PVOp op, PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    // alpha * acc, then + P V.
    Value rescaled = lb.generic(
        op.getAcc(), op.getAlpha(), {lb.row2, lb.tile2}, {kParallel, kParallel},
        [](OpBuilder &nb, Location l, ValueRange a) {
          LinalgBuilder::yield(nb, l, arith::MulFOp::create(nb, l, a[0], a[1]));
        });
    rw.replaceOp(op, lb.matmulAcc(op.getProbs(), op.getValue(), rescaled,
                                  /*transposeB=*/false));
    return success();
  }
};

struct LowerFinalize : OpRewritePattern<FinalizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FinalizeOp op,
                                PatternRewriter &rw) const override {
    TileLinalg lb(rw, op.getLoc());
    Location loc = op.getLoc();
    Value zero = lb.f32Constant(0.0), negInf = lb.f32Constant(-kInf);
    Value ln2 = lb.f32Constant(M_LN2);
    auto outTy = cast<RankedTensorType>(op.getOut().getType());
    Type outElem = outTy.getElementType();

    // O = acc / l, 0 for rows that saw no key.
    Value outInit = tensor::EmptyOp::create(rw, loc, outTy.getShape(), outElem);
    Value out = lb.generic(
        outInit, {op.getAcc(), op.getSum()}, {lb.tile2, lb.row2, lb.tile2},
        {kParallel, kParallel}, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value none = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                             a[1], zero);
          Value quotient = arith::DivFOp::create(nb, l, a[0], a[1]);
          Value o = arith::SelectOp::create(nb, l, none, zero, quotient);
          if (!outElem.isF32())
            o = arith::TruncFOp::create(nb, l, outElem, o);
          LinalgBuilder::yield(nb, l, o);
        });
    // LSE = ln(2) * (m + log2(l)), -inf for rows that saw no key.
    Value lse = lb.generic(
        lb.emptyLike(op.getMax()), {op.getMax(), op.getSum()},
        {lb.row1, lb.row1, lb.row1}, {kParallel},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value none = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                             a[1], zero);
          Value log2Sum = math::Log2Op::create(nb, l, a[1]);
          Value lse2 = arith::AddFOp::create(nb, l, a[0], log2Sum);
          Value lseE = arith::MulFOp::create(nb, l, lse2, ln2);
          LinalgBuilder::yield(nb, l,
                               arith::SelectOp::create(nb, l, none, negInf, lseE));
        });
    rw.replaceOp(op, {out, lse});
    return success();
  }
};

struct FADecomposeTilesPass
    : fa::impl::FADecomposeTilesBase<FADecomposeTilesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerQK, LowerMask, LowerOnlineSoftmax, LowerPV,
                 LowerFinalize>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
