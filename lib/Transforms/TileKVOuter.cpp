//===- TileKVOuter.cpp - fa.attention_backward -> FA-2 backward loops -----===//
//
// The FlashAttention-2 backward on tensors: D = rowsum(dO * O) first, then
// for every (batch, key/value head, K/V block) a loop over the query heads
// of the group and the Q blocks that recomputes P from LSE, accumulates the
// block's dK and dV in loop-carried f32 tiles and adds each Q block's dQ
// contribution into an f32 dQ tensor. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "BackwardBuilders.h"
#include "TensorAttentionOps.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FATILEKVOUTER
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {


/// Emits the K/V-outer loop nest for one tensor-form fa.attention_backward.
class KVOuterTiler {
public:
  KVOuterTiler(RewriterBase &rewriter, AttentionBackwardOp op, int64_t blockM,
               int64_t blockN)
      : b(rewriter), loc(op.getLoc()), lb(rewriter, op.getLoc()), op(op),
        blockM(blockM), blockN(blockN), f32(rewriter.getF32Type()),
        elemTy(getElementTypeOrSelf(op.getQuery().getType())) {
    headDim = cast<ShapedType>(op.getQuery().getType()).getDimSize(3);
    valueDim = cast<ShapedType>(op.getValue().getType()).getDimSize(3);
  }

  /// Builds the loops and returns dQ, dK, dV.
  SmallVector<Value> build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Rows [start, start + count) of `source[batch, head]`, padded with `pad`
  /// to `tileRows` (BackwardBuilders.h).
  Value loadRows(Value source, Value batch, Value head, Value start,
                 Value count, int64_t tileRows, Value pad) {
    return loadPaddedRows(b, loc, source, batch, head, start, count, tileRows,
                          pad);
  }

  /// [begin, end) of the Q block starts to visit for the keys
  /// [keyStart, keyEnd): begin a multiple of block-m, both within [0, Nq]
  /// (begin >= end: no block).
  std::pair<Value, Value> visibleQueryBlocks(Value keyStart, Value keyEnd);

  /// One Q block against the K/V block: returns the new (dK tile, dV tile,
  /// dQ accumulator).
  SmallVector<Value> qStep(Value batch, Value head, Value qStart,
                           Value kStart, Value kTile, Value vTile,
                           ValueRange state);

  RewriterBase &b;
  Location loc;
  LinalgBuilder lb;
  AttentionBackwardOp op;
  int64_t blockM, blockN, headDim = 0, valueDim = 0;
  Type f32, elemTy;
  Value numQueries, numKeys, rowDot, scale, capScale, cap;
  semantics::MaskSpec mask;
};

std::pair<Value, Value> KVOuterTiler::visibleQueryBlocks(Value keyStart,
                                                         Value keyEnd) {
  return fa::visibleQueryBlocks(b, loc, keyStart, keyEnd, numQueries, blockM,
                                mask);
}

SmallVector<Value> KVOuterTiler::qStep(Value batch, Value head, Value qStart,
                                       Value kStart, Value kTile, Value vTile,
                                       ValueRange state) {
  Value dkTile = state[0], dvTile = state[1], dq = state[2];
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  AffineMap id2 = lb.map(2, {d0, d1}), row2 = lb.map(2, {d0});

  // The last Q block may be partial: padded query rows get LSE = -inf
  // (so P = 0 there) and zeros elsewhere.
  Value remaining = arith::SubIOp::create(b, loc, numQueries, qStart);
  Value qRows = arith::MinSIOp::create(b, loc, index(blockM), remaining);
  Value zeroElem = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));
  Value zeroF32 = lb.f32Constant(0.0);
  Value negInf = lb.f32Constant(-std::numeric_limits<double>::infinity());
  Value qTile = loadRows(op.getQuery(), batch, head, qStart, qRows, blockM,
                         zeroElem);
  Value doTile = loadRows(op.getGradOut(), batch, head, qStart, qRows, blockM,
                          zeroElem);
  Value lseRows = loadRows(op.getLse(), batch, head, qStart, qRows, blockM,
                           negInf);
  Value dRows = loadRows(rowDot, batch, head, qStart, qRows, blockM, zeroF32);

  // S, exactly as the forward's tiles compute it: raw Q K^T, the soft cap
  // (which applies the scale) or the scale, then the mask (keys past Nk,
  // causal and window bounds).
  auto scoresTy = RankedTensorType::get({blockM, blockN}, f32);
  Value s = QKOp::create(b, loc, scoresTy, qTile, kTile);
  if (cap) {
    s = SoftcapOp::create(b, loc, s, capScale, cap);
  } else {
    s = lb.generic(s, {}, {id2}, {kParallel, kParallel},
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     LinalgBuilder::yield(
                         nb, l, arith::MulFOp::create(nb, l, args[0], scale));
                   });
  }
  s = MaskOp::create(b, loc, scoresTy, s, qStart, kStart, numKeys,
                     mask.causalOffset, mask.windowOffset);

  // P = exp(S - LSE), recomputed instead of stored.
  Value p = lb.generic(
      lb.filled({b.getIndexAttr(blockM), b.getIndexAttr(blockN)}, 0.0),
      {s, lseRows}, {id2, row2, id2}, {kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l,
                             semantics::probFromLse(nb, l, args[0], args[1]));
      });

  // dV[n, e] += sum_m P[m, n] * dO[m, e]                  (loops n e m)
  SmallVector<utils::IteratorType> matmulIters = {kParallel, kParallel,
                                                  kReduction};
  dvTile = lb.generic(dvTile, {p, doTile},
                      {lb.map(3, {d2, d0}), lb.map(3, {d2, d1}),
                       lb.map(3, {d0, d1})},
                      matmulIters, mulAddBody);

  // dP[m, n] = sum_e dO[m, e] * V[n, e]                   (loops m n e)
  Value dp = lb.generic(
      lb.filled({b.getIndexAttr(blockM), b.getIndexAttr(blockN)}, 0.0),
      {doTile, vTile},
      {lb.map(3, {d0, d2}), lb.map(3, {d1, d2}), lb.map(3, {d0, d1})},
      matmulIters, mulAddBody);

  // dS = P * (dP - D) (times the soft cap's derivative).
  Value ds = lb.generic(
      lb.filled({b.getIndexAttr(blockM), b.getIndexAttr(blockN)}, 0.0),
      {p, dp, dRows, s}, {id2, id2, row2, id2, id2}, {kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        LinalgBuilder::yield(nb, l,
                             buildScoreGrad(nb, l, args[0], args[1], args[2],
                                            args[3], cap));
      });

  // dK[n, d] += sum_m dS[m, n] * Q[m, d]                  (loops n d m)
  dkTile = lb.generic(dkTile, {ds, qTile},
                      {lb.map(3, {d2, d0}), lb.map(3, {d2, d1}),
                       lb.map(3, {d0, d1})},
                      matmulIters, mulAddBody);

  // dQ[q0 + m, d] += sum_n dS[m, n] * K[n, d], valid rows only.
  Value dqBlock = lb.generic(
      lb.filled({b.getIndexAttr(blockM), b.getIndexAttr(headDim)}, 0.0),
      {ds, kTile},
      {lb.map(3, {d0, d2}), lb.map(3, {d2, d1}), lb.map(3, {d0, d1})},
      matmulIters, mulAddBody);
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  auto rowsTy = RankedTensorType::get({ShapedType::kDynamic, headDim}, f32);
  Value dqValid = tensor::ExtractSliceOp::create(
      b, loc, rowsTy, dqBlock, ArrayRef<OpFoldResult>{zero, zero},
      ArrayRef<OpFoldResult>{qRows, b.getIndexAttr(headDim)},
      ArrayRef<OpFoldResult>{one, one});
  SmallVector<OpFoldResult> offsets = {batch, head, qStart, zero};
  SmallVector<OpFoldResult> sizes = {one, one, qRows,
                                     b.getIndexAttr(headDim)};
  SmallVector<OpFoldResult> strides(4, one);
  Value dqOld = tensor::ExtractSliceOp::create(b, loc, rowsTy, dq, offsets,
                                               sizes, strides);
  Value dqNew = lb.generic(dqOld, {dqValid}, {id2, id2},
                           {kParallel, kParallel},
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             LinalgBuilder::yield(
                                 nb, l,
                                 arith::AddFOp::create(nb, l, args[1], args[0]));
                           });
  dq = tensor::InsertSliceOp::create(b, loc, dqNew, dq, offsets, sizes,
                                     strides);
  return {dkTile, dvTile, dq};
}

SmallVector<Value> KVOuterTiler::build() {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(b, loc, q);
  SmallVector<OpFoldResult> kSizes = tensor::getMixedSizes(b, loc, k);
  SmallVector<OpFoldResult> vSizes = tensor::getMixedSizes(b, loc, v);
  numQueries = getValueOrCreateConstantIndexOp(b, loc, qSizes[2]);
  numKeys = getValueOrCreateConstantIndexOp(b, loc, kSizes[2]);
  Value numBatches = getValueOrCreateConstantIndexOp(b, loc, qSizes[0]);
  int64_t numKVHeads = cast<ShapedType>(k.getType()).getDimSize(1);
  int64_t group = op.getGroupSize();

  // Preprocessing (a kernel of its own on the GPU): D = rowsum(dO * O).
  rowDot = buildRowDot(lb, op.getGradOut(), op.getOut(),
                       {qSizes[0], qSizes[1], qSizes[2]});

  // The forward's scale, cap and mask bounds (AttentionMath.h).
  double scaleValue = op.getEffectiveScale();
  scale = lb.f32Constant(scaleValue);
  if (std::optional<APFloat> c = op.getSoftcap()) {
    capScale = lb.f32Constant(scaleValue / c->convertToDouble());
    cap = lb.f32Constant(c->convertToDouble());
  }
  auto [left, right] = op.getVisibleWindow();
  mask = semantics::MaskSpec::forWindow(b, loc, numQueries, numKeys, left,
                                        right);

  // f32 accumulators for the three gradients.
  Value dq0 = lb.filled(qSizes, 0.0);
  Value dk0 = lb.filled(kSizes, 0.0);
  Value dv0 = lb.filled(vSizes, 0.0);
  auto dkTileTy = RankedTensorType::get({blockN, headDim}, f32);
  auto dvTileTy = RankedTensorType::get({blockN, valueDim}, f32);
  Value zeroElem = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemTy));

  // for b, for g (key/value head), for K/V block: one thread block each on
  // the GPU. Sequential scf.for here: dQ is shared by every K/V block.
  auto batchLoop = scf::ForOp::create(
      b, loc, index(0), numBatches, index(1), ValueRange{dq0, dk0, dv0},
      [&](OpBuilder &, Location, Value batch, ValueRange grads) {
        auto headLoop = scf::ForOp::create(
            b, loc, index(0), index(numKVHeads), index(1), grads,
            [&](OpBuilder &, Location, Value kvHead, ValueRange grads) {
              auto kvLoop = scf::ForOp::create(
                  b, loc, index(0), numKeys, index(blockN), grads,
                  [&](OpBuilder &, Location, Value kStart, ValueRange grads) {
                    Value remaining =
                        arith::SubIOp::create(b, loc, numKeys, kStart);
                    Value kRows = arith::MinSIOp::create(
                        b, loc, index(blockN), remaining);
                    Value kTile = loadRows(k, batch, kvHead, kStart, kRows,
                                           blockN, zeroElem);
                    Value vTile = loadRows(v, batch, kvHead, kStart, kRows,
                                           blockN, zeroElem);
                    Value dkInit = arith::ConstantOp::create(
                        b, loc,
                        DenseElementsAttr::get(dkTileTy, APFloat(0.0f)));
                    Value dvInit = arith::ConstantOp::create(
                        b, loc,
                        DenseElementsAttr::get(dvTileTy, APFloat(0.0f)));
                    // Block skipping: only the Q blocks with a row that
                    // sees a key of [k0, k0 + kRows) (AttentionMath.h's
                    // inverse bounds); the mask still handles the rest.
                    std::pair<Value, Value> qBlocks = visibleQueryBlocks(
                        kStart,
                        arith::AddIOp::create(b, loc, kStart, kRows));
                    Value qBegin = qBlocks.first, qEnd = qBlocks.second;
                    // The query heads of the group, in a fixed order, then
                    // the Q blocks: dK and dV of this block stay in the
                    // loop-carried tiles.
                    auto groupLoop = scf::ForOp::create(
                        b, loc, index(0), index(group), index(1),
                        ValueRange{dkInit, dvInit, grads[0]},
                        [&](OpBuilder &, Location, Value r, ValueRange st) {
                          Value head = arith::AddIOp::create(
                              b, loc,
                              arith::MulIOp::create(b, loc, kvHead,
                                                    index(group)),
                              r);
                          auto qLoop = scf::ForOp::create(
                              b, loc, qBegin, qEnd, index(blockM), st,
                              [&](OpBuilder &, Location, Value qStart,
                                  ValueRange st) {
                                scf::YieldOp::create(
                                    b, loc,
                                    qStep(batch, head, qStart, kStart, kTile,
                                          vTile, st));
                              });
                          scf::YieldOp::create(b, loc, qLoop.getResults());
                        });
                    // Store the block's valid rows of dK and dV.
                    auto store = [&](Value tile, Value into, int64_t cols) {
                      OpFoldResult zero = b.getIndexAttr(0),
                                   one = b.getIndexAttr(1);
                      auto rowsTy = RankedTensorType::get(
                          {ShapedType::kDynamic, cols}, f32);
                      Value valid = tensor::ExtractSliceOp::create(
                          b, loc, rowsTy, tile,
                          ArrayRef<OpFoldResult>{zero, zero},
                          ArrayRef<OpFoldResult>{kRows, b.getIndexAttr(cols)},
                          ArrayRef<OpFoldResult>{one, one});
                      return tensor::InsertSliceOp::create(
                                 b, loc, valid, into,
                                 ArrayRef<OpFoldResult>{batch, kvHead, kStart,
                                                        zero},
                                 ArrayRef<OpFoldResult>{one, one, kRows,
                                                        b.getIndexAttr(cols)},
                                 SmallVector<OpFoldResult>(4, one))
                          .getResult();
                    };
                    Value dk = store(groupLoop.getResult(0), grads[1],
                                     headDim);
                    Value dv = store(groupLoop.getResult(1), grads[2],
                                     valueDim);
                    scf::YieldOp::create(
                        b, loc, ValueRange{groupLoop.getResult(2), dk, dv});
                  });
              scf::YieldOp::create(b, loc, kvLoop.getResults());
            });
        scf::YieldOp::create(b, loc, headLoop.getResults());
      });

  // dQ and dK take the scale; every gradient is rounded once, here.
  return {buildScaledCast(lb, batchLoop.getResult(0), op.getGradQuery(),
                          scaleValue),
          buildScaledCast(lb, batchLoop.getResult(1), op.getGradKey(),
                          scaleValue),
          buildScaledCast(lb, batchLoop.getResult(2), op.getGradValue(), 1.0)};
}

struct FATileKVOuterPass : fa::impl::FATileKVOuterBase<FATileKVOuterPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"block-m", blockM},
                               {"block-n", blockN}}) {
      if (value < 1 || value > kMaxTileBlock) {
        mlir::emitError(getOperation()->getLoc())
            << "fa-tile-kv-outer: option " << name << " must be in [1, "
            << kMaxTileBlock << "], got " << value;
        return signalPassFailure();
      }
    }
    FailureOr<SmallVector<AttentionBackwardOp>> ops =
        collectTensorOps<AttentionBackwardOp>(getOperation(),
                                              "fa-tile-kv-outer");
    if (failed(ops))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (AttentionBackwardOp op : *ops) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, KVOuterTiler(rewriter, op, blockM, blockN).build());
    }
  }
};

} // namespace
