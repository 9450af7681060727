//===- DecomposeNaive.cpp - fa.attention -> unfused linalg ----------------===//
//
// The CPU oracle: attention, and its gradient, computed the textbook way on
// whole tensors, with the full score matrix materialised. Every faster
// lowering is tested against the output of this pass.
//
//===----------------------------------------------------------------------===//

#include "BackwardBuilders.h"
#include "LinalgBuilders.h"
#include "TensorAttentionOps.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The scores of fa.attention and fa.attention_backward, one definition for
/// both: S = scale * Q K^T, or the soft cap c * tanh(scale * Q K^T / c),
/// with -inf for the keys a row does not see (AttentionMath.h). f32,
/// [B, Hq, Nq, Nk]. `qSizes` are Q's sizes, `k` the keys [B, Hkv, Nk, D],
/// `nk` is Nk, `negInf` an f32 -inf constant, all the caller's. With
/// `lengths` (fa.attention's key_lengths), sequence b sees only its first
/// n_b keys, and the diagonal is its own.
/// With `cuQ` and `cuK` (fa.attention's cu_seqlens), rows and keys are
/// packed sequences: a row sees only keys of its own sequence, counted from
/// the sequence's start, with the sequence's own diagonal.
template <typename OpTy>
Value buildScores(RewriterBase &rewriter, LinalgBuilder &lb, OpTy op,
                  Value k, ArrayRef<OpFoldResult> qSizes, OpFoldResult nk,
                  Value negInf, Value lengths = Value(), Value cuQ = Value(),
                  Value cuK = Value()) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value q = op.getQuery();

  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  // Key/value head read by query head `h`: h floordiv (Hq / Hkv).
  int64_t group = op.getGroupSize();
  AffineExpr kvHead = group == 1 ? d1 : d1.floorDiv(group);

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
  Value numQueries = getValueOrCreateConstantIndexOp(rewriter, loc, qSizes[2]);
  Value numKeys = getValueOrCreateConstantIndexOp(rewriter, loc, nk);
  semantics::MaskSpec mask;
  if ((left || right) && !lengths && !cuQ)
    mask = semantics::MaskSpec::forWindow(rewriter, loc, numQueries, numKeys,
                                          left, right);
  Value numSeqs;
  if (cuQ)
    numSeqs = arith::SubIOp::create(
        rewriter, loc, tensor::DimOp::create(rewriter, loc, cuQ, 0),
        arith::ConstantIndexOp::create(rewriter, loc, 1));
  double scaleValue = op.getEffectiveScale();
  Value scale = lb.f32Constant(scaleValue), capScale, cap;
  if (std::optional<APFloat> c = op.getSoftcap()) {
    capScale = lb.f32Constant(scaleValue / c->convertToDouble());
    cap = lb.f32Constant(c->convertToDouble());
  }
  return lb.generic(
      scores, {}, {lb.map(4, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value scaled =
            cap ? semantics::softcap(nb, l, args[0], capScale, cap)
                : arith::MulFOp::create(nb, l, args[0], scale).getResult();
        semantics::MaskSpec rowMask = mask;
        if (lengths) {
          // Sequence b's own key count and diagonal.
          Value n = semantics::sequenceKeyCount(
              nb, l, lengths, linalg::IndexOp::create(nb, l, 0), numKeys);
          rowMask = semantics::MaskSpec::forWindow(nb, l, numQueries, n, left,
                                                   right);
          rowMask.keyLimit = n;
        }
        if (cuQ) {
          // The row's sequence, and the key's: a key of another sequence
          // (or past the last one) is hidden; within the sequence, the
          // mask on sequence-local rows and keys.
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          auto reader = [](Value cu) {
            return [cu](OpBuilder &rb, Location rl, Value t) -> Value {
              return arith::IndexCastOp::create(
                  rb, rl, rb.getIndexType(),
                  tensor::ExtractOp::create(rb, rl, cu, t));
            };
          };
          auto readQ = reader(cuQ), readK = reader(cuK);
          Value seq = semantics::sequenceOfRow(nb, l, readQ, numSeqs, i);
          Value keySeq = semantics::sequenceOfRow(nb, l, readK, numSeqs, j);
          Value next =
              arith::AddIOp::create(nb, l, seq, arith::ConstantIndexOp::create(nb, l, 1));
          Value qBase = readQ(nb, l, seq);
          Value kBase = readK(nb, l, seq);
          Value qEnd = readQ(nb, l, next);
          Value nq = arith::SubIOp::create(nb, l, qEnd, qBase);
          Value kEnd = readK(nb, l, next);
          Value n = arith::SubIOp::create(nb, l, kEnd, kBase);
          rowMask = semantics::MaskSpec::forWindow(nb, l, nq, n, left, right);
          rowMask.keyLimit = n;
          Value otherSeq = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::ne, seq, keySeq);
          Value localRow = arith::SubIOp::create(nb, l, i, qBase);
          Value localKey = arith::SubIOp::create(nb, l, j, kBase);
          Value hidden = arith::OrIOp::create(
              nb, l, otherSeq,
              semantics::isHidden(nb, l, localRow, localKey, rowMask));
          scaled = arith::SelectOp::create(nb, l, hidden, negInf, scaled);
        } else if (rowMask.keyLimit || rowMask.causalOffset ||
                   rowMask.windowOffset) {
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value hidden = semantics::isHidden(nb, l, i, j, rowMask);
          scaled = arith::SelectOp::create(nb, l, hidden, negInf, scaled);
        }
        LinalgBuilder::yield(nb, l, scaled);
      });
}

/// The keys (or values) of a paged fa.attention as a dense [B, Hkv,
/// max_pages * page_size, D] tensor: row j of sequence b is row
/// j mod page_size of page table[b, j / page_size] of `pool`, for the
/// sequence's keys (j < n_b); 0 past them, where the table is not read.
Value gatherPages(RewriterBase &rewriter, LinalgBuilder &lb, AttentionOp op,
                  Value pool, OpFoldResult batchSize, Value capacity) {
  Location loc = op.getLoc();
  auto poolTy = cast<RankedTensorType>(pool.getType());
  Type elemTy = poolTy.getElementType();
  SmallVector<OpFoldResult> sizes = {
      batchSize, rewriter.getIndexAttr(poolTy.getDimSize(2)), capacity,
      rewriter.getIndexAttr(poolTy.getDimSize(3))};
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elemTy);
  Value table = op.getBlockTable(), lengths = op.getKeyLengths();
  int64_t pageSize = op.getPageSize();
  AffineExpr d0, d1, d2, d3;
  bindDims(rewriter.getContext(), d0, d1, d2, d3);
  return lb.generic(
      init, {}, {lb.map(4, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange) {
        // (linalg.index only directly in the body, not in the scf.if.)
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value head = linalg::IndexOp::create(nb, l, 1);
        Value key = linalg::IndexOp::create(nb, l, 2);
        Value col = linalg::IndexOp::create(nb, l, 3);
        Value n =
            semantics::sequenceKeyCount(nb, l, lengths, batch, capacity);
        Value inSequence =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, key, n);
        auto read = scf::IfOp::create(
            nb, l, inSequence,
            [&](OpBuilder &tb, Location tl) {
              auto [page, row] =
                  semantics::pageOfKey(tb, tl, table, batch, key, pageSize);
              Value x = tensor::ExtractOp::create(
                  tb, tl, pool,
                  ValueRange{page, row, head, col});
              scf::YieldOp::create(tb, tl, x);
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(
                  eb, el,
                  arith::ConstantOp::create(eb, el, eb.getZeroAttr(elemTy))
                      .getResult());
            });
        LinalgBuilder::yield(nb, l, read.getResult(0));
      });
}

/// Returns the values replacing `op` (O, and LSE when present).
SmallVector<Value> decompose(RewriterBase &rewriter, AttentionOp op) {
  Location loc = op.getLoc();
  LinalgBuilder lb(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Value k = op.getKey(), v = op.getValue();
  SmallVector<OpFoldResult> qSizes =
      tensor::getMixedSizes(rewriter, loc, op.getQuery());
  OpFoldResult nk;
  if (op.isPaged()) {
    // The paged cache as dense keys and values: the textbook computation
    // below then reads them like any other.
    Value pages = getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, op.getBlockTable(), 1));
    Value capacity = arith::MulIOp::create(
        rewriter, loc, pages,
        arith::ConstantIndexOp::create(rewriter, loc, op.getPageSize()));
    k = gatherPages(rewriter, lb, op, k, qSizes[0], capacity);
    v = gatherPages(rewriter, lb, op, v, qSizes[0], capacity);
    nk = capacity;
  } else {
    nk = tensor::getMixedSize(rewriter, loc, k, 2);
  }
  OpFoldResult dv = tensor::getMixedSize(rewriter, loc, v, 3);
  SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};

  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  int64_t group = op.getGroupSize();
  AffineExpr kvHead = group == 1 ? d1 : d1.floorDiv(group);
  AffineMap id4 = lb.map(4, {d0, d1, d2, d3});
  AffineMap rows4 = lb.map(4, {d0, d1, d2});
  Value zero = lb.f32Constant(0.0);
  Value negInf = lb.f32Constant(-kInf);

  Value scores =
      buildScores(rewriter, lb, op, k, qSizes, nk, negInf, op.getKeyLengths(),
                  op.getCuSeqlensQ(), op.getCuSeqlensK());

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

/// Returns dQ, dK, dV replacing the backward `op`: the textbook gradient of
/// softmax attention on whole tensors, in f32, with P recomputed from LSE.
SmallVector<Value> decompose(RewriterBase &rewriter, AttentionBackwardOp op) {
  Location loc = op.getLoc();
  LinalgBuilder lb(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value o = op.getOut(), dO = op.getGradOut(), lse = op.getLse();
  SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(rewriter, loc, q);
  SmallVector<OpFoldResult> kSizes = tensor::getMixedSizes(rewriter, loc, k);
  SmallVector<OpFoldResult> vSizes = tensor::getMixedSizes(rewriter, loc, v);
  SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};
  OpFoldResult nk = kSizes[2];
  SmallVector<OpFoldResult> scoreSizes = {qSizes[0], qSizes[1], qSizes[2], nk};

  AffineExpr d0, d1, d2, d3, d4, d5;
  bindDims(ctx, d0, d1, d2, d3, d4, d5);
  int64_t group = op.getGroupSize();
  AffineExpr kvHead = group == 1 ? d1 : d1.floorDiv(group);
  AffineMap id4 = lb.map(4, {d0, d1, d2, d3});
  AffineMap rows4 = lb.map(4, {d0, d1, d2});
  auto parallel = [](unsigned n) {
    return SmallVector<utils::IteratorType>(n, kParallel);
  };
  // S: the forward's scores, capped and masked exactly as fa.attention's.
  Value negInf = lb.f32Constant(-kInf);
  Value scores = buildScores(rewriter, lb, op, k, qSizes, nk, negInf);

  // P = exp(S - LSE): 0 for hidden keys (S = -inf) and for rows that see no
  // key (LSE = -inf).
  Value probs = lb.generic(
      lb.filled(scoreSizes, 0.0), {scores, lse}, {id4, rows4, id4},
      parallel(4), [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l,
                             semantics::probFromLse(nb, l, args[0], args[1]));
      });

  // D[b, h, i] = sum_e dO[b, h, i, e] * O[b, h, i, e]   (loops b h i e)
  Value rowDot = buildRowDot(lb, dO, o, rowSizes);

  // dP[b, h, i, j] = sum_e dO[b, h, i, e] * V[b, h / g, j, e]
  //                                                      (loops b h i j e)
  Value gradProbs = lb.generic(
      lb.filled(scoreSizes, 0.0), {dO, v},
      {lb.map(5, {d0, d1, d2, d4}), lb.map(5, {d0, kvHead, d3, d4}),
       lb.map(5, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel, kReduction}, mulAddBody);

  // dS = P * (dP - D), times the soft cap's derivative 1 - (S / c)^2: the
  // gradient with respect to the scaled score before the cap; 0 for hidden
  // keys (BackwardBuilders.h).
  Value cap;
  if (std::optional<APFloat> c = op.getSoftcap())
    cap = lb.f32Constant(c->convertToDouble());
  Value scoreGrads = lb.generic(
      lb.filled(scoreSizes, 0.0), {probs, gradProbs, rowDot, scores},
      {id4, id4, rows4, id4, id4}, parallel(4),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l,
                             buildScoreGrad(nb, l, args[0], args[1], args[2],
                                            args[3], cap));
      });

  // dQ[b, h, i, d] = sum_j dS[b, h, i, j] * K[b, h / g, j, d]
  //                                                      (loops b h i d j)
  Value gradQuery = lb.generic(
      lb.filled(qSizes, 0.0), {scoreGrads, k},
      {lb.map(5, {d0, d1, d2, d4}), lb.map(5, {d0, kvHead, d4, d3}),
       lb.map(5, {d0, d1, d2, d3})},
      {kParallel, kParallel, kParallel, kParallel, kReduction}, mulAddBody);

  // dK and dV sum over the query heads of a group. Query heads are split
  // as [Hq] -> [Hkv, group] (query head h = g * group + r) so that the
  // reduction over r is a loop dimension of its own.   (loops b g j d r i)
  auto splitHeads = [&](Value t) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    ArrayRef<int64_t> shape = type.getShape();
    auto splitType = RankedTensorType::get(
        {shape[0], shape[1] / group, group, shape[2], shape[3]},
        type.getElementType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, t);
    SmallVector<OpFoldResult> splitSizes = {
        sizes[0], rewriter.getIndexAttr(shape[1] / group),
        rewriter.getIndexAttr(group), sizes[2], sizes[3]};
    SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}, {3}, {4}};
    return tensor::ExpandShapeOp::create(rewriter, loc, splitType, t,
                                         reassociation, splitSizes);
  };
  auto groupSum = [&](Value scoreLike, Value rowLike,
                      ArrayRef<OpFoldResult> sizes) {
    // out[b, g, j, d] =
    //     sum_{r, i} scoreLike[b, g, r, i, j] * rowLike[b, g, r, i, d]
    return lb.generic(
        lb.filled(sizes, 0.0), {splitHeads(scoreLike), splitHeads(rowLike)},
        {lb.map(6, {d0, d1, d4, d5, d2}), lb.map(6, {d0, d1, d4, d5, d3}),
         lb.map(6, {d0, d1, d2, d3})},
        {kParallel, kParallel, kParallel, kParallel, kReduction, kReduction},
        mulAddBody);
  };
  Value gradKey = groupSum(scoreGrads, q, kSizes);
  Value gradValue = groupSum(probs, dO, vSizes);

  // dQ and dK take the scale of S = scale * Q K^T; every gradient is
  // rounded to the element type once, here.
  double scale = op.getEffectiveScale();
  return {buildScaledCast(lb, gradQuery, op.getGradQuery(), scale),
          buildScaledCast(lb, gradKey, op.getGradKey(), scale),
          buildScaledCast(lb, gradValue, op.getGradValue(), 1.0)};
}

struct FADecomposeNaivePass
    : fa::impl::FADecomposeNaiveBase<FADecomposeNaivePass> {
  void runOnOperation() override {
    // A plain walk rather than a greedy driver: each op is rewritten once and
    // the surrounding IR is left exactly as the user wrote it.
    FailureOr<SmallVector<AttentionOp>> ops =
        collectTensorOps<AttentionOp>(getOperation(), "fa-decompose-naive");
    if (failed(ops))
      return signalPassFailure();
    FailureOr<SmallVector<AttentionBackwardOp>> backwardOps =
        collectTensorOps<AttentionBackwardOp>(getOperation(),
                                              "fa-decompose-naive");
    if (failed(backwardOps))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : *ops) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, decompose(rewriter, op));
    }
    for (AttentionBackwardOp op : *backwardOps) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, decompose(rewriter, op));
    }
  }
};

} // namespace
