//===- Matmul.cpp - fa.qk and fa.pv on the atom's MMA ---------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.qk (Q in A registers or shared, K shared) => zero acc
/// fragments, then the atom's MMAs of Q K^T.
struct LowerQK : OpConversionPattern<QKOp> {
  LowerQK(const TypeConverter &converter, MLIRContext *ctx,
          KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(QKOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fullScoresTy = cast<RankedTensorType>(op.getScores().getType());
    // Key groups: the group's columns of S, from its rows of K.
    RankedTensorType scoresTy = groupTile(fullScoresTy);
    auto queryTy = cast<RankedTensorType>(op.getQuery().getType());
    if (failed(kernel.atom.checkMatmulShape(op.getLoc(), scoresTy.getDimSize(0),
                                            scoresTy.getDimSize(1),
                                            queryTy.getDimSize(1))))
      return failure();
    SmallVector<Type> fragTypes;
    if (failed(getTypeConverter()->convertType(fullScoresTy, fragTypes)))
      return failure();
    SmallVector<Value> zeros;
    for (Type t : fragTypes)
      zeros.push_back(arith::ConstantOp::create(rewriter, op.getLoc(),
                                                rewriter.getZeroAttr(t)));
    TileOperand key = tileOperand(op.getKey(), adaptor.getKey());
    if (dividesKeys(fullScoresTy))
      key = groupKeyRows(rewriter, op.getLoc(), kernel.atom, key,
                         cast<WarpRowsAttr>(fullScoresTy.getEncoding())
                             .getReplicas());
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.matmulTransposedB(
                rewriter, op.getLoc(),
                tileOperand(op.getQuery(), adaptor.getQuery()), key, scoresTy,
                zeros, op.getAsync())});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.pv (P in A registers, V shared, acc) => the atom's MMAs of
/// acc + P V.
struct LowerPV : OpConversionPattern<PVOp> {
  LowerPV(const TypeConverter &converter, MLIRContext *ctx,
          KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(PVOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The accumulator may be held by a warp grid of its own (the atomic
    // dQ's: --fa-map-warps; the outliner allows it for products only).
    LogicalResult result = failure();
    kernel.atom.withTileGeometry(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getAcc().getType()),
        [&] { result = lower(op, adaptor, rewriter); });
    return result;
  }

  LogicalResult lower(PVOp op, OneToNOpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const {
    TileOperand probs = tileOperand(op.getProbs(), adaptor.getProbs());
    auto fullAccTy = cast<RankedTensorType>(op.getAcc().getType());
    // Column groups: the group's columns of the accumulator, from its
    // columns of the (shared) second operand.
    RankedTensorType accTy = groupTile(fullAccTy);
    if (failed(kernel.atom.checkMatmulShape(op.getLoc(), accTy.getDimSize(0),
                                            accTy.getDimSize(1),
                                            probs.type.getDimSize(1))))
      return failure();
    TileOperand value = tileOperand(op.getValue(), adaptor.getValue());
    if (dividesKeys(fullAccTy)) {
      // (The verifiers hold the rest: share = columns is #fa.mma_sync's,
      // and such an accumulator takes P and the value tile in shared
      // memory, whole.)
      int64_t share = accTy.getDimSize(1);
      value.sharedColumn = arith::MulIOp::create(
          rewriter, op.getLoc(), kernel.atom.replica(rewriter, op.getLoc()),
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), share));
      value.maxSharedColumn = fullAccTy.getDimSize(1) - share;
    }
    // Key groups: the group's columns of P times its rows of V, into the
    // group's summand of the accumulator.
    if (dividesKeys(op.getProbs().getType()))
      value = groupKeyRows(
          rewriter, op.getLoc(), kernel.atom, value,
          cast<WarpRowsAttr>(getTileEncoding(op.getProbs().getType()))
              .getReplicas());
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.matmul(rewriter, op.getLoc(), probs, value, accTy,
                                adaptor.getAcc(), op.getAsync())});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.mma_wait => the atom's wait for all but `pending` of the
/// thread's later async matmuls, on the accumulator fragments (nothing for
/// synchronous atoms).
struct LowerMmaWait : OpConversionPattern<MmaWaitOp> {
  LowerMmaWait(const TypeConverter &converter, MLIRContext *ctx,
               KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(MmaWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.waitMatmuls(rewriter, op.getLoc(), op.getPending(),
                                     adaptor.getAcc())});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateMatmulPatterns(const TypeConverter &converter,
                                      KernelContext &kernel,
                                      RewritePatternSet &patterns) {
  patterns.add<LowerQK, LowerPV, LowerMmaWait>(converter, patterns.getContext(),
                                              kernel);
}
