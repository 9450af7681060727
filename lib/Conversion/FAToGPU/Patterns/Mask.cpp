//===- Mask.cpp - fa.mask and fa.softcap on accumulator fragments ---------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.softcap => per score cap * tanh(scale * s), or tanh(scale * s)
/// without a cap (AttentionMath.h);
/// tanh becomes tanh.approx.f32 in --fa-lower-gpu-math.
struct LowerSoftcap : OpConversionPattern<SoftcapOp> {
  LowerSoftcap(const TypeConverter &converter, MLIRContext *ctx,
               KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(SoftcapOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    Value scale = adaptor.getScale().front();
    Value cap = op.getCap() ? adaptor.getCap().front() : Value();
    SmallVector<Value> out;
    for (Value frag : adaptor.getScores()) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e)
        elems.push_back(semantics::softcap(
            b, loc, atom.extractAccElement(b, loc, frag, e), scale, cap));
      out.push_back(atom.buildAccFragment(b, loc, frag.getType(), elems));
    }
    b.replaceOpWithMultiple(op, {out});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.mask => per row this thread holds, the keys it sees as
/// columns of the block counted from the thread's first column:
/// [visibleKeysBegin(row), visibleKeysEnd(row)) minus that column, clamped
/// to [0, N]; per score one comparison with a constant, in 32 bits, per
/// bound, and a select. Transposed (rows are keys): the same with the
/// queries that see the row's key (the inverse bounds) as the columns.
struct LowerMask : OpConversionPattern<MaskOp> {
  LowerMask(const TypeConverter &converter, MLIRContext *ctx,
            KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(MaskOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    // Key groups: the group's columns, from column c * cols of the block.
    auto tileTy = groupTile(cast<RankedTensorType>(op.getScores().getType()));
    int64_t rows = tileTy.getDimSize(0), cols = tileTy.getDimSize(1);
    semantics::MaskSpec spec = semantics::MaskSpec::of(op);
    auto cidx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Value firstCol = arith::AddIOp::create(b, loc, op.getColStart(),
                                           atom.threadFirstColumn(b, loc));
    if (dividesKeys(op.getScores().getType()))
      firstCol = arith::AddIOp::create(
          b, loc, firstCol,
          arith::MulIOp::create(b, loc, atom.replica(b, loc), cidx(cols)));
    Type i32 = b.getI32Type();
    // Column bounds relative to the thread's first column, per row value:
    // [start, limit) (start null without a window's left side).
    DenseMap<int64_t, std::pair<Value, Value>> bounds;
    auto relative = [&](Value key) {
      Value v = arith::SubIOp::create(b, loc, key, firstCol);
      v = arith::MaxSIOp::create(b, loc, v, cidx(0));
      v = arith::MinSIOp::create(b, loc, v, cidx(cols));
      return arith::IndexCastOp::create(b, loc, i32, v).getResult();
    };
    auto boundsOf = [&](int64_t r) {
      auto &bound = bounds[r];
      if (!bound.second && op.getTransposed()) {
        // Rows are keys, columns queries: key k is seen by the queries
        // [firstRowSeeing(k), rowsSeeingEnd(k + 1)), and by none past the
        // key limit.
        Value key = arith::AddIOp::create(
            b, loc, op.getRowStart(), atom.rowOfRowValue(b, loc, rows, r));
        if (Value first = semantics::firstRowSeeing(b, loc, key, spec))
          bound.first = relative(first);
        Value next = arith::AddIOp::create(b, loc, key, cidx(1));
        Value end = semantics::rowsSeeingEnd(b, loc, next, spec);
        bound.second = end ? relative(end)
                           : arith::ConstantIntOp::create(b, loc, i32, cols)
                                 .getResult();
        if (spec.keyLimit) {
          Value inside = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, key, spec.keyLimit);
          bound.second = arith::SelectOp::create(
              b, loc, inside, bound.second,
              arith::ConstantIntOp::create(b, loc, i32, 0));
        }
      } else if (!bound.second) {
        Value row = semantics::queryRow(
            b, loc, op.getRowStart(), atom.rowOfRowValue(b, loc, rows, r),
            spec);
        if (Value begin = semantics::visibleKeysBegin(b, loc, row, spec))
          bound.first = relative(begin);
        Value end = semantics::visibleKeysEnd(b, loc, row, spec);
        bound.second = end ? relative(end)
                           : arith::ConstantIntOp::create(b, loc, i32, cols)
                                 .getResult();
      }
      return bound;
    };
    Value negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    SmallVector<Value> out;
    for (auto [f, frag] : llvm::enumerate(adaptor.getScores())) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e) {
        Value col = arith::ConstantIntOp::create(
            b, loc, i32, atom.accColumn(tileTy, f, e));
        auto [start, limit] = boundsOf(atom.accRowValue(tileTy, f, e));
        Value hidden = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sge, col, limit);
        if (start)
          hidden = arith::OrIOp::create(
              b, loc, hidden,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, col,
                                    start));
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
  patterns.add<LowerMask, LowerSoftcap>(converter, patterns.getContext(),
                                        kernel);
}
