//===- Finalize.cpp - fa.finalize on fragments ----------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.finalize => per row, the sum across the row's lanes (when it
/// is a `partial_rows` share), 1 / l and the LSE (AttentionMath.h); per
/// accumulator fragment one multiplication by 1 / l and the conversion to
/// the output element type.
struct LowerFinalize : OpConversionPattern<FinalizeOp> {
  LowerFinalize(const TypeConverter &converter, MLIRContext *ctx,
                KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(FinalizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    auto sumTy = cast<RankedTensorType>(op.getSum().getType());
    auto sumRows = dyn_cast_or_null<WarpRowsAttr>(sumTy.getEncoding());
    bool partial = sumRows && sumRows.getRole() == FragmentRole::PartialRows;
    SmallVector<Value> inverse, lse;
    for (auto [m, l] : llvm::zip(adaptor.getMax(), adaptor.getSum())) {
      Value sum = partial ? atom.reduceAcrossRowLanes(b, loc, l, false) : l;
      inverse.push_back(semantics::inverseSum(b, loc, sum));
      lse.push_back(semantics::logSumExp(b, loc, m, sum));
    }
    SmallVector<Type> outTypes;
    if (failed(getTypeConverter()->convertType(op.getOut().getType(),
                                               outTypes)))
      return failure();
    SmallVector<Value> out;
    for (auto [f, frag] : llvm::enumerate(adaptor.getAcc())) {
      SmallVector<Value> scale;
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e)
        scale.push_back(inverse[atom.accRowValue(accTy, f, e)]);
      Value o = arith::MulFOp::create(
          b, loc, frag, atom.buildAccFragment(b, loc, frag.getType(), scale));
      if (outTypes[f] != o.getType())
        o = arith::TruncFOp::create(b, loc, outTypes[f], o);
      out.push_back(o);
    }
    b.replaceOpWithMultiple(op, {out, lse});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateFinalizePatterns(const TypeConverter &converter,
                                        KernelContext &kernel,
                                        RewritePatternSet &patterns) {
  patterns.add<LowerFinalize>(converter, patterns.getContext(), kernel);
}
