//===- DecomposeNaive.cpp - fa.attention -> unfused linalg ----------------===//
//
// The CPU oracle: attention computed the textbook way on whole tensors, with
// the full score matrix materialised. Every faster lowering is tested against
// the output of this pass.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "TensorAttentionOps.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FADECOMPOSENAIVE
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Returns the values replacing `op` (O, and LSE when present).
SmallVector<Value> decompose(RewriterBase &rewriter, AttentionOp op) {
  Location loc = op.getLoc();
  LinalgBuilder lb(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(rewriter, loc, q);
  OpFoldResult nk = tensor::getMixedSize(rewriter, loc, k, 2);
  OpFoldResult dv = tensor::getMixedSize(rewriter, loc, v, 3);
  SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};

  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  // Key/value head read by query head `h`: h floordiv (Hq / Hkv).
  int64_t group = op.getGroupSize();
  AffineExpr kvHead = group == 1 ? d1 : d1.floorDiv(group);
  AffineMap id4 = lb.map(4, {d0, d1, d2, d3});
  AffineMap rows4 = lb.map(4, {d0, d1, d2});
  Value zero = lb.f32Constant(0.0);
  Value negInf = lb.f32Constant(-kInf);

  // S[b, h, i, j] = sum_d Q[b, h, i, d] * K[b, h / g, j, d]   (loops b h i j d)
  Value scores = lb.generic(
      lb.filled({qSizes[0], qSizes[1], qSizes[2], nk}, 0.0), {q, k},
      {lb.map(5, {d0, d1, d2, d4}), lb.map(5, {d0, kvHead, d3, d4}),
       lb.map(5, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = LinalgBuilder::toF32(nb, l, args[0]);
        Value y = LinalgBuilder::toF32(nb, l, args[1]);
        Value prod = arith::MulFOp::create(nb, l, x, y);
        LinalgBuilder::yield(nb, l, arith::AddFOp::create(nb, l, args[2], prod));
      });

  // S *= scale (or the soft cap, which applies the scale inside), then the
  // mask: -inf for the keys row i does not see (AttentionMath.h).
  auto [left, right] = op.getVisibleWindow();
  semantics::MaskSpec mask;
  if (left || right) {
    Value numKeys = getValueOrCreateConstantIndexOp(rewriter, loc, nk);
    Value numQueries = getValueOrCreateConstantIndexOp(rewriter, loc, qSizes[2]);
    Value diag = arith::SubIOp::create(rewriter, loc, numKeys, numQueries);
    auto shifted = [&](int64_t by) -> Value {
      if (by == 0)
        return diag;
      return arith::AddIOp::create(
          rewriter, loc, diag, arith::ConstantIndexOp::create(rewriter, loc, by));
    };
    if (right)
      mask.causalOffset = shifted(*right);
    if (left)
      mask.windowOffset = shifted(-*left);
  }
  double scaleValue = op.getEffectiveScale();
  Value scale = lb.f32Constant(scaleValue), capScale, cap;
  if (std::optional<APFloat> c = op.getSoftcap()) {
    capScale = lb.f32Constant(scaleValue / c->convertToDouble());
    cap = lb.f32Constant(c->convertToDouble());
  }
  scores = lb.generic(
      scores, {}, {id4}, {kParallel, kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value scaled =
            cap ? semantics::softcap(nb, l, args[0], capScale, cap)
                : arith::MulFOp::create(nb, l, args[0], scale).getResult();
        if (mask.causalOffset || mask.windowOffset) {
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value hidden = semantics::isHidden(nb, l, i, j, mask);
          scaled = arith::SelectOp::create(nb, l, hidden, negInf, scaled);
        }
        LinalgBuilder::yield(nb, l, scaled);
      });

  // M = rowmax(S).
  Value rowMax = lb.generic(
      lb.filled(rowSizes, -kInf), scores, {id4, rows4},
      {kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l, semantics::maxOf(nb, l, args[0], args[1]));
      });

  // E = exp(S - M'), with M' = 0 for rows that see no key (M = -inf), so that
  // such rows give E = 0 instead of exp(-inf + inf) = NaN.
  Value expScores = lb.generic(
      scores, {rowMax}, {rows4, id4},
      {kParallel, kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            args[0], negInf);
        Value m = arith::SelectOp::create(nb, l, empty, zero, args[0]);
        Value diff = arith::SubFOp::create(nb, l, args[1], m);
        LinalgBuilder::yield(nb, l, math::ExpOp::create(nb, l, diff));
      });

  // L = rowsum(E).
  Value rowSum = lb.generic(
      lb.filled(rowSizes, 0.0), expScores, {id4, rows4},
      {kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l,
                             arith::AddFOp::create(nb, l, args[0], args[1]));
      });

  // U[b, h, i, e] = sum_j E[b, h, i, j] * V[b, h / g, j, e]   (loops b h i e j)
  Value unnormalized = lb.generic(
      lb.filled({qSizes[0], qSizes[1], qSizes[2], dv}, 0.0), {expScores, v},
      {lb.map(5, {d0, d1, d2, d4}), lb.map(5, {d0, kvHead, d4, d3}),
       lb.map(5, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value prod = arith::MulFOp::create(
            nb, l, args[0], LinalgBuilder::toF32(nb, l, args[1]));
        LinalgBuilder::yield(nb, l, arith::AddFOp::create(nb, l, args[2], prod));
      });

  // O = U / L (0 where L == 0), converted to the output element type.
  Type outElem = getElementTypeOrSelf(op.getOut().getType());
  SmallVector<Value> replacements;
  replacements.push_back(lb.generic(
      op.getOut(), {unnormalized, rowSum}, {id4, rows4, id4},
      {kParallel, kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            args[1], zero);
        Value quotient = arith::DivFOp::create(nb, l, args[0], args[1]);
        Value o = arith::SelectOp::create(nb, l, empty, zero, quotient);
        if (!outElem.isF32())
          o = arith::TruncFOp::create(nb, l, outElem, o);
        LinalgBuilder::yield(nb, l, o);
      }));

  // LSE = M + log(L): -inf for rows that see no key.
  if (Value lseInit = op.getLse()) {
    AffineMap id3 = lb.map(3, {d0, d1, d2});
    replacements.push_back(lb.generic(
        lseInit, {rowMax, rowSum}, {id3, id3, id3},
        {kParallel, kParallel, kParallel},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value logSum = math::LogOp::create(nb, l, args[1]);
          LinalgBuilder::yield(nb, l,
                               arith::AddFOp::create(nb, l, args[0], logSum));
        }));
  }
  return replacements;
}

struct FADecomposeNaivePass
    : fa::impl::FADecomposeNaiveBase<FADecomposeNaivePass> {
  void runOnOperation() override {
    // A plain walk rather than a greedy driver: each op is rewritten once and
    // the surrounding IR is left exactly as the user wrote it.
    FailureOr<SmallVector<AttentionOp>> ops =
        collectTensorAttentionOps(getOperation(), "fa-decompose-naive");
    if (failed(ops))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : *ops) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, decompose(rewriter, op));
    }
  }
};

} // namespace
