//===- DecomposeNaive.cpp - fa.attention -> unfused linalg ----------------===//
//
// The CPU oracle: attention computed the textbook way on whole tensors, with
// the full score matrix materialised. Every faster lowering is tested against
// the output of this pass.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
using utils::IteratorType;

namespace {

constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// Builds the linalg.generic ops of the naive computation for one op.
class NaiveBuilder {
public:
  NaiveBuilder(RewriterBase &rewriter, fa::AttentionOp op)
      : b(rewriter), loc(op.getLoc()), op(op), f32(b.getF32Type()) {}

  /// Returns the replacement values of `op` (O, and LSE when present).
  SmallVector<Value> build();

private:
  /// `tensor.empty` of f32 with the given sizes, filled with `fill`.
  Value filled(ArrayRef<OpFoldResult> sizes, double fill) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, f32);
    Value cst = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(fill));
    return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
  }
  Value toF32(OpBuilder &nb, Value v) {
    return v.getType().isF32() ? v : arith::ExtFOp::create(nb, loc, f32, v);
  }
  AffineMap map(unsigned numDims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(numDims, 0, results, b.getContext());
  }
  /// Key/value head read by query head `h`: h floordiv (Hq / Hkv).
  AffineExpr kvHead(AffineExpr h) {
    int64_t group = op.getGroupSize();
    return group == 1 ? h : h.floorDiv(group);
  }
  Value generic(Value init, ValueRange inputs, ArrayRef<AffineMap> maps,
                ArrayRef<IteratorType> iterators,
                function_ref<void(OpBuilder &, Location, ValueRange)> body) {
    return linalg::GenericOp::create(b, loc, init.getType(), inputs, init,
                                     maps, iterators, body)
        .getResult(0);
  }

  RewriterBase &b;
  Location loc;
  fa::AttentionOp op;
  Type f32;
};

SmallVector<Value> NaiveBuilder::build() {
  MLIRContext *ctx = b.getContext();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(b, loc, q);
  OpFoldResult nk = tensor::getMixedSizes(b, loc, k)[2];

  // S[b, h, i, j] = sum_d Q[b, h, i, d] * K[b, h / g, j, d]   (loops b h i j d)
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  Value scores = filled({qSizes[0], qSizes[1], qSizes[2], nk}, 0.0);
  scores = generic(
      scores, {q, k},
      {map(5, {d0, d1, d2, d4}), map(5, {d0, kvHead(d1), d3, d4}),
       map(5, {d0, d1, d2, d3})},
      {kPar, kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value prod = arith::MulFOp::create(nb, l, toF32(nb, args[0]),
                                           toF32(nb, args[1]));
        linalg::YieldOp::create(nb, l,
                                arith::AddFOp::create(nb, l, args[2], prod)
                                    .getResult());
      });

  // S *= scale, then (causal) S[i, j] = -inf where j > i + Nk - Nq.
  AffineMap id4 = map(4, {d0, d1, d2, d3});
  Value nqIdx = getValueOrCreateConstantIndexOp(b, loc, qSizes[2]);
  Value nkIdx = getValueOrCreateConstantIndexOp(b, loc, nk);
  Value diagOffset = arith::SubIOp::create(b, loc, nkIdx, nqIdx);
  bool causal = op.getCausal();
  // Constants used inside the generic bodies are created once, outside.
  Value scale = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(op.getEffectiveScale()));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value negInf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  scores = generic(
      scores, {}, {id4}, {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value scaled = arith::MulFOp::create(nb, l, args[0], scale);
        if (causal) {
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value lastVisible = arith::AddIOp::create(nb, l, i, diagOffset);
          Value hidden = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                               j, lastVisible);
          scaled = arith::SelectOp::create(nb, l, hidden, negInf, scaled);
        }
        linalg::YieldOp::create(nb, l, scaled);
      });

  // M = rowmax(S).
  AffineMap rows4 = map(4, {d0, d1, d2});
  SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};
  Value rowMax = generic(
      filled(rowSizes, -std::numeric_limits<double>::infinity()), scores,
      {id4, rows4}, {kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l, arith::MaximumFOp::create(nb, l, args[0], args[1])
                       .getResult());
      });

  // E = exp(S - M'), with M' = 0 for rows that see no key (M = -inf), so that
  // such rows give E = 0 instead of exp(-inf + inf) = NaN.
  Value expScores = generic(
      scores, {rowMax}, {rows4, id4}, {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            args[0], negInf);
        Value m = arith::SelectOp::create(nb, l, empty, zero, args[0]);
        Value diff = arith::SubFOp::create(nb, l, args[1], m);
        linalg::YieldOp::create(nb, l,
                                math::ExpOp::create(nb, l, diff).getResult());
      });

  // L = rowsum(E).
  Value rowSum = generic(
      filled(rowSizes, 0.0), expScores, {id4, rows4}, {kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[0], args[1]).getResult());
      });

  // U[b, h, i, e] = sum_j E[b, h, i, j] * V[b, h / g, j, e]   (loops b h i e j)
  OpFoldResult dv = tensor::getMixedSizes(b, loc, v)[3];
  Value unnormalized = generic(
      filled({qSizes[0], qSizes[1], qSizes[2], dv}, 0.0), {expScores, v},
      {map(5, {d0, d1, d2, d4}), map(5, {d0, kvHead(d1), d4, d3}),
       map(5, {d0, d1, d2, d3})},
      {kPar, kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value prod =
            arith::MulFOp::create(nb, l, args[0], toF32(nb, args[1]));
        linalg::YieldOp::create(nb, l,
                                arith::AddFOp::create(nb, l, args[2], prod)
                                    .getResult());
      });

  // O = U / L (0 where L == 0), converted to the output element type.
  Type outElem = getElementTypeOrSelf(op.getOut().getType());
  SmallVector<Value> replacements;
  replacements.push_back(generic(
      op.getOut(), {unnormalized, rowSum}, {id4, rows4, id4},
      {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            args[1], zero);
        Value quotient = arith::DivFOp::create(nb, l, args[0], args[1]);
        Value o = arith::SelectOp::create(nb, l, empty, zero, quotient);
        if (outElem != f32)
          o = arith::TruncFOp::create(nb, l, outElem, o);
        linalg::YieldOp::create(nb, l, o);
      }));

  // LSE = M + log(L): -inf for rows that see no key.
  if (Value lseInit = op.getLse()) {
    AffineMap id3 = map(3, {d0, d1, d2});
    replacements.push_back(generic(
        lseInit, {rowMax, rowSum}, {id3, id3, id3}, {kPar, kPar, kPar},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value logSum = math::LogOp::create(nb, l, args[1]);
          linalg::YieldOp::create(
              nb, l, arith::AddFOp::create(nb, l, args[0], logSum).getResult());
        }));
  }
  return replacements;
}

struct FADecomposeNaivePass
    : fa::impl::FADecomposeNaiveBase<FADecomposeNaivePass> {
  void runOnOperation() override {
    // A plain walk rather than a greedy driver: each op is rewritten once and
    // the surrounding IR is left exactly as the user wrote it.
    SmallVector<fa::AttentionOp> ops;
    getOperation()->walk([&](fa::AttentionOp op) {
      if (op.hasTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (fa::AttentionOp op : ops) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, NaiveBuilder(rewriter, op).build());
    }
  }
};

} // namespace
