//===- EraseLayouts.cpp - L3 -> plain tensors for the CPU -----------------===//

#include "EraseLayouts.h"

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

RankedTensorType withoutEncoding(RankedTensorType t) {
  return RankedTensorType::get(t.getShape(), t.getElementType());
}

class PlainTypes : public TypeConverter {
public:
  PlainTypes() {
    addConversion([](Type t) { return t; });
    addConversion([](RankedTensorType t) -> Type { return withoutEncoding(t); });
    addConversion([](FutureType f, SmallVectorImpl<Type> &out) {
      for (RankedTensorType tile : f.getTiles())
        out.push_back(withoutEncoding(tile));
      return success();
    });
  }
};

/// Any op with fa layouts in its types: the same op on plain types (its
/// regions, if any, moved over with converted block signatures).
struct Retype : ConversionPattern {
  Retype(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // Loops and branches: the SCF structural conversion; functions: the
    // signature conversion.
    if (isa<scf::SCFDialect>(op->getDialect()) || isa<FunctionOpInterface>(op))
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    // A constant's value has the type of its result.
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (!dense)
        return rewriter.notifyMatchFailure(op, "not a dense constant");
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, dense.reshape(cast<ShapedType>(resultTypes[0])));
      return success();
    }
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs(), op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *newRegion = state.addRegion();
      rewriter.inlineRegionBefore(region, *newRegion, newRegion->begin());
      if (failed(rewriter.convertRegionTypes(newRegion, *getTypeConverter())))
        return failure();
    }
    state.propertiesAttr = op->getPropertiesAsAttribute();
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

struct EraseConvertLayout : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

/// fa.async_load on the CPU: each tile loaded at once (zeros when the
/// predicate is false, a tile that must never be used).
struct EraseAsyncLoad : OpConversionPattern<AsyncLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> tiles;
    auto future = cast<FutureType>(op.getFuture().getType());
    for (auto [source, tileTy] :
         llvm::zip(adaptor.getSources(), future.getTiles())) {
      RankedTensorType plain = withoutEncoding(tileTy);
      auto load = [&](OpBuilder &b, Location l) -> Value {
        int64_t cols = plain.getDimSize(1);
        auto sliceTy = RankedTensorType::get({ShapedType::kDynamic, cols},
                                             plain.getElementType());
        // Rows along the sequence of one head, or along the heads.
        SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                           b.getIndexAttr(1),
                                           b.getIndexAttr(cols)};
        sizes[op.getAlongHeads() ? 1 : 2] = op.getRows();
        Value slice = tensor::ExtractSliceOp::create(
            b, l, sliceTy, source,
            ArrayRef<OpFoldResult>{op.getBatch(), op.getHead(),
                                   op.getRowStart(), b.getIndexAttr(0)},
            sizes,
            ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(
                4, b.getIndexAttr(1))));
        Value zero = arith::ConstantOp::create(
            b, l, b.getZeroAttr(plain.getElementType()));
        return tensor::createPadHighOp(plain, slice, zero, /*nofold=*/false,
                                       l, b);
      };
      if (!op.getPred()) {
        tiles.push_back(load(rewriter, loc));
        continue;
      }
      auto ifOp = scf::IfOp::create(
          rewriter, loc, op.getPred(),
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, load(b, l));
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(
                b, l,
                arith::ConstantOp::create(
                    b, l, DenseElementsAttr::get(
                              plain, b.getZeroAttr(plain.getElementType())))
                    .getResult());
          });
      tiles.push_back(ifOp.getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {tiles});
    return success();
  }
};

struct EraseAwait : OpConversionPattern<AwaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AwaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<SmallVector<Value>> tiles;
    for (Value tile : adaptor.getFuture())
      tiles.push_back({tile});
    rewriter.replaceOpWithMultiple(op, tiles);
    return success();
  }
};

/// fa.release on the CPU: loads complete when issued, nothing to release.
struct EraseRelease : OpConversionPattern<ReleaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReleaseOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// fa.mma_turn on the CPU: one thread of control, nothing to order.
struct EraseMmaTurn : OpConversionPattern<MmaTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// fa.mma_wait on the CPU: every product is complete when computed.
struct EraseMmaWait : OpConversionPattern<MmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getAcc());
    return success();
  }
};

/// fa.warp_row_range on the CPU: the whole tile is one slice.
struct EraseWarpRowRange : OpConversionPattern<WarpRowRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpRowRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    rewriter.replaceOp(
        op, {arith::ConstantIndexOp::create(rewriter, loc, 0).getResult(),
             arith::ConstantIndexOp::create(rewriter, loc, tile.getDimSize(0))
                 .getResult()});
    return success();
  }
};

bool hasLayoutTypes(Operation *op) {
  auto layout = [](Type t) { return hasFALayout(t); };
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    if (llvm::any_of(func.getArgumentTypes(), layout) ||
        llvm::any_of(func.getResultTypes(), layout))
      return true;
  if (llvm::any_of(op->getOperandTypes(), layout) ||
      llvm::any_of(op->getResultTypes(), layout))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), layout))
        return true;
  return false;
}
} // namespace

LogicalResult mlir::fa::eraseLayouts(Operation *root) {
  MLIRContext *ctx = root->getContext();
  bool any = false;
  root->walk([&](Operation *op) {
    if (op != root &&
        (hasLayoutTypes(op) || isa<WarpRowRangeOp, MmaWaitOp, MmaTurnOp>(op)))
      any = true;
  });
  if (!any)
    return success();
  PlainTypes converter;
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !hasLayoutTypes(op); });
  target.addIllegalOp<ConvertLayoutOp, AsyncLoadOp, AwaitOp, ReleaseOp,
                      WarpRowRangeOp, MmaWaitOp, MmaTurnOp>();
  RewritePatternSet patterns(ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  populateAnyFunctionOpInterfaceTypeConversionPattern(patterns, converter);
  patterns.add<EraseConvertLayout, EraseAsyncLoad, EraseAwait, EraseRelease,
               EraseWarpRowRange, EraseMmaWait, EraseMmaTurn>(converter,
                                                              ctx);
  patterns.add<Retype>(converter, ctx);
  return applyPartialConversion(root, target, std::move(patterns));
}
