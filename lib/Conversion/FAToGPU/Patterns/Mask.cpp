//===- Mask.cpp - fa.mask on accumulator fragments ------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.mask => per row this thread holds, the number of columns of
/// the block, counted from its first column, that the row sees
/// (visibleKeysEnd(row) - that column, clamped to [0, N]); per score one
/// comparison of that limit with a constant, in 32 bits, and a select.
struct LowerMask : OpConversionPattern<MaskOp> {
  LowerMask(const TypeConverter &converter, MLIRContext *ctx,
            KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(MaskOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    auto tileTy = cast<RankedTensorType>(op.getScores().getType());
    int64_t rows = tileTy.getDimSize(0), cols = tileTy.getDimSize(1);
    semantics::MaskSpec spec = semantics::MaskSpec::of(op);
    auto cidx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Value firstCol = arith::AddIOp::create(b, loc, op.getColStart(),
                                           atom.threadFirstColumn(b, loc));
    Type i32 = b.getI32Type();
    DenseMap<int64_t, Value> limits; // Per row value.
    auto limitOf = [&](int64_t r) {
      Value &limit = limits[r];
      if (!limit) {
        Value row = arith::AddIOp::create(b, loc, op.getRowStart(),
                                          atom.rowOfRowValue(b, loc, rows, r));
        Value end = semantics::visibleKeysEnd(b, loc, row, spec);
        limit = arith::SubIOp::create(b, loc, end, firstCol);
        limit = arith::MaxSIOp::create(b, loc, limit, cidx(0));
        limit = arith::MinSIOp::create(b, loc, limit, cidx(cols));
        limit = arith::IndexCastOp::create(b, loc, i32, limit);
      }
      return limit;
    };
    Value negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    SmallVector<Value> out;
    for (auto [f, frag] : llvm::enumerate(adaptor.getScores())) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e) {
        Value col = arith::ConstantIntOp::create(
            b, loc, i32, atom.accColumn(tileTy, f, e));
        Value hidden = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sge, col,
            limitOf(atom.accRowValue(tileTy, f, e)));
        elems.push_back(arith::SelectOp::create(
            b, loc, hidden, negInf, atom.extractAccElement(b, loc, frag, e)));
      }
      out.push_back(atom.buildAccFragment(b, loc, frag.getType(), elems));
    }
    b.replaceOpWithMultiple(op, {out});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateMaskPatterns(const TypeConverter &converter,
                                    KernelContext &kernel,
                                    RewritePatternSet &patterns) {
  patterns.add<LowerMask>(converter, patterns.getContext(), kernel);
}
