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
    auto laneSum = [&](Value l) {
      return partial ? atom.reduceAcrossRowLanes(b, loc, l, false) : l;
    };
    // Key groups: the sums and accumulators of all groups, added up first.
    bool keyGroups = sumRows && sumRows.getShare() == ReplicaShare::Sum;
    SmallVector<Value> groupSums;
    SmallVector<Value> accFrags(adaptor.getAcc());
    if (keyGroups) {
      for (Value l : adaptor.getSum())
        groupSums.push_back(laneSum(l));
      addUpKeyGroups(b, loc, groupSums, accFrags);
    }
    SmallVector<Value> inverse, lse;
    for (auto [r, m, l] : llvm::enumerate(adaptor.getMax(), adaptor.getSum())) {
      Value sum = keyGroups ? groupSums[r] : laneSum(l);
      inverse.push_back(semantics::inverseSum(b, loc, sum));
      lse.push_back(semantics::logSumExp(b, loc, m, sum));
    }
    SmallVector<Type> outTypes;
    if (failed(getTypeConverter()->convertType(op.getOut().getType(),
                                               outTypes)))
      return failure();
    SmallVector<Value> out;
    for (auto [f, frag] : llvm::enumerate(accFrags)) {
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

  /// Key groups (share = sum): each group's running sums and accumulator
  /// elements replaced by the sum over the groups, in group order (every
  /// group gets the same bits), through the staging space.
  void addUpKeyGroups(OpBuilder &b, Location loc, SmallVector<Value> &sums,
                      SmallVector<Value> &accFrags) const {
    AtomLowering &atom = kernel.atom;
    int64_t perFrag = atom.elementsPerAccFragment();
    SmallVector<Value> values(sums);
    for (Value frag : accFrags)
      for (int64_t e = 0; e < perFrag; ++e)
        values.push_back(atom.extractAccElement(b, loc, frag, e));
    SmallVector<Value> total = atom.reduceAcrossReplicas(
        b, loc, values,
        arith::ConstantIndexOp::create(b, loc, kernel.plan.stagingOffset()),
        /*isMax=*/false);
    size_t next = 0;
    for (Value &sum : sums)
      sum = total[next++];
    for (Value &frag : accFrags) {
      SmallVector<Value> elems(total.begin() + next,
                               total.begin() + next + perFrag);
      next += perFrag;
      frag = atom.buildAccFragment(b, loc, frag.getType(), elems);
    }
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateFinalizePatterns(const TypeConverter &converter,
                                        KernelContext &kernel,
                                        RewritePatternSet &patterns) {
  patterns.add<LowerFinalize>(converter, patterns.getContext(), kernel);
}
