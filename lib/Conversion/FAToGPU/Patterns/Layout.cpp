//===- Layout.cpp - Layout changes, elementwise casts, constants ----------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.convert_layout => whatever the atom does to move the tile
/// between the two layouts (#fa.mma_sync: shared -> A registers with
/// ldmatrix, acc -> A registers for free); an error for the others.
struct LowerConvertLayout : OpConversionPattern<ConvertLayoutOp> {
  LowerConvertLayout(const TypeConverter &converter, MLIRContext *ctx,
                     KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto to = cast<RankedTensorType>(op.getResult().getType());
    auto from = cast<RankedTensorType>(op.getSource().getType());
    if (isa<BlockSharedAttr>(to.getEncoding())) {
      // Registers -> the conversion's own shared tile (the atomic dQ's dS^T,
      // which every warp reads whole).
      auto rows = dyn_cast<WarpRowsAttr>(from.getEncoding());
      auto shared = cast<BlockSharedAttr>(to.getEncoding());
      if (!rows || rows.getRole() != FragmentRole::Acc ||
          shared.getTransposed() || shared.getSwizzled() ||
          from.getElementType().getIntOrFloatBitWidth() != 16)
        return op.emitOpError("fa-lower-to-gpu: a tile goes into shared "
                              "memory (padded, not transposed) from 16-bit "
                              "acc fragments, not ")
               << from << " -> " << to;
      Value offset = arith::ConstantIndexOp::create(
          rewriter, op.getLoc(), kernel.plan.ring(op).base);
      kernel.atom.storeAccToShared(rewriter, op.getLoc(), from,
                                   adaptor.getSource(), offset);
      rewriter.replaceOp(op, offset);
      return success();
    }
    FailureOr<SmallVector<Value>> converted = kernel.atom.convertLayout(
        rewriter, op.getLoc(), tileOperand(op.getSource(), adaptor.getSource()),
        groupTile(to));
    if (failed(converted))
      return op.emitOpError("fa-lower-to-gpu: the MMA atom cannot convert ")
             << op.getSource().getType() << " to " << to;
    rewriter.replaceOpWithMultiple(op, {*converted});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.transpose of a shared tile => the same shared tile (the
/// result's encoding says it is read transposed).
struct LowerTranspose : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<BlockSharedAttr>(
            cast<RankedTensorType>(op.getSource().getType()).getEncoding()))
      return op.emitOpError("fa-lower-to-gpu: transposes shared tiles "
                            "(#fa.block_shared) only, got ")
             << op.getSource().getType();
    rewriter.replaceOpWithMultiple(op, {adaptor.getSource()});
    return success();
  }
};

/// Pattern: fa.warp_row_range => the atom's first row of this warp's slice
/// (from the warp index, so uniform across the warp) and the slice's size.
struct LowerWarpRowRange : OpConversionPattern<WarpRowRangeOp> {
  LowerWarpRowRange(const TypeConverter &converter, MLIRContext *ctx,
                    KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(WarpRowRangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    auto layout = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    if (!layout)
      return op.emitOpError("fa-lower-to-gpu: needs a tile held by warps "
                            "(#fa.warp_rows), got ")
             << tile;
    auto [first, count] =
        kernel.atom.warpRowRange(rewriter, op.getLoc(), tile.getDimSize(0));
    Value countValue =
        arith::ConstantIndexOp::create(rewriter, op.getLoc(), count);
    rewriter.replaceOp(op, {first, countValue});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: arith.truncf of a tile held by warps => the same truncf on each
/// fragment (the layout, and so the fragment shapes, stay).
struct LowerTruncF : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertType(op.getType(), types)) ||
        types.size() != adaptor.getIn().size())
      return op.emitOpError("fa-lower-to-gpu: a truncf must keep the "
                            "layout of its tile");
    SmallVector<Value> out;
    for (auto [frag, type] : llvm::zip(adaptor.getIn(), types))
      out.push_back(arith::TruncFOp::create(rewriter, op.getLoc(), type, frag));
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// Pattern: a splat constant tile held by warps => the splat in every
/// fragment (the initial m, l and acc of the online softmax).
struct LowerConstant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!isa_and_nonnull<WarpRowsAttr>(getTileEncoding(op.getType())))
      return op.emitOpError("fa-lower-to-gpu: only tiles held by warps can be "
                            "constants, got ")
             << op.getType();
    if (!splat)
      return op.emitOpError("fa-lower-to-gpu: a tile held by warps can only "
                            "be initialised with a splat constant, got ")
             << op.getValue();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertType(op.getType(), types)))
      return failure();
    TypedAttr scalar = splat.getSplatValue<TypedAttr>();
    SmallVector<Value> out;
    for (Type t : types) {
      TypedAttr value = scalar;
      if (auto vec = dyn_cast<VectorType>(t))
        value = DenseElementsAttr::get(vec, Attribute(scalar));
      out.push_back(arith::ConstantOp::create(rewriter, op.getLoc(), value));
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// Pattern: arith.select of two tiles by one i1 => the select of each
/// converted value (fragments, or a shared tile's offset): the deferred
/// P V of --fa-pipeline-mma picks the current V tile in its first step.
struct LowerSelect : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange cond = adaptor.getCondition();
    if (cond.size() != 1 || !cond.front().getType().isInteger(1))
      return op.emitOpError("fa-lower-to-gpu: tiles are selected by one i1, "
                            "not per element");
    SmallVector<Value> out;
    for (auto [t, f] : llvm::zip(adaptor.getTrueValue(),
                                 adaptor.getFalseValue()))
      out.push_back(
          arith::SelectOp::create(rewriter, op.getLoc(), cond.front(), t, f));
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// Pattern: tensor.empty of a shared tile => offset 0: a tile no one reads
/// (the deferred P V's V before its first step, replaced by a select).
struct LowerEmptySharedTile : OpConversionPattern<tensor::EmptyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::EmptyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<BlockSharedAttr>(getTileEncoding(op.getType())))
      return op.emitOpError("fa-lower-to-gpu: only a shared tile can be a "
                            "tensor.empty in a kernel, got ")
             << op.getType();
    rewriter.replaceOp(op, arith::ConstantIndexOp::create(rewriter,
                                                          op.getLoc(), 0)
                               .getResult());
    return success();
  }
};

} // namespace

void mlir::fa::populateLayoutPatterns(const TypeConverter &converter,
                                      KernelContext &kernel,
                                      RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LowerConvertLayout, LowerWarpRowRange>(converter, ctx, kernel);
  patterns.add<LowerTruncF, LowerConstant, LowerTranspose, LowerSelect,
               LowerEmptySharedTile>(converter, ctx);
}
