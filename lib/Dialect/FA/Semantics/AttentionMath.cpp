//===- AttentionMath.cpp - One definition of each step of attention -------===//

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::semantics;

MaskSpec MaskSpec::of(MaskOp op) {
  return MaskSpec{op.getKeyLimit(), op.getCausalOffset()};
}

Value semantics::visibleKeysEnd(OpBuilder &b, Location loc, Value row,
                           const MaskSpec &spec) {
  Value end = spec.keyLimit;
  if (spec.causalOffset) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value rowEnd = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, row, spec.causalOffset), one);
    end = end ? arith::MinSIOp::create(b, loc, end, rowEnd).getResult()
              : rowEnd;
  }
  return end;
}

Value semantics::isHidden(OpBuilder &b, Location loc, Value row, Value col,
                     const MaskSpec &spec) {
  Value end = visibleKeysEnd(b, loc, row, spec);
  if (!end)
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, col, end);
}

Value semantics::floatConstant(OpBuilder &b, Location loc, Type like,
                          double value) {
  Type elem = getElementTypeOrSelf(like);
  auto scalar = b.getFloatAttr(elem, value);
  if (auto shaped = dyn_cast<ShapedType>(like))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(shaped, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

Value semantics::maxOf(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaxNumFOp::create(b, loc, x, y);
}

Value semantics::newRunningMax(OpBuilder &b, Location loc, Value oldMax,
                          Value rowMax, Value scale) {
  return maxOf(b, loc, oldMax, arith::MulFOp::create(b, loc, rowMax, scale));
}

Value semantics::softmaxBase(OpBuilder &b, Location loc, Value newMax) {
  Type t = newMax.getType();
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
  return arith::SelectOp::create(b, loc, none, floatConstant(b, loc, t, 0.0),
                                 newMax);
}

Value semantics::rescaleFactor(OpBuilder &b, Location loc, Value oldMax,
                          Value base) {
  return math::Exp2Op::create(b, loc,
                              arith::SubFOp::create(b, loc, oldMax, base));
}

Value semantics::expScore(OpBuilder &b, Location loc, Value score, Value scale,
                     Value negBase) {
  return math::Exp2Op::create(
      b, loc, math::FmaOp::create(b, loc, score, scale, negBase));
}

Value semantics::newRunningSum(OpBuilder &b, Location loc, Value alpha,
                          Value oldSum, Value rowSumOfP) {
  return math::FmaOp::create(b, loc, alpha, oldSum, rowSumOfP);
}

Value semantics::inverseSum(OpBuilder &b, Location loc, Value sum) {
  Type t = sum.getType();
  Value zero = floatConstant(b, loc, t, 0.0);
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum, zero);
  Value inv =
      arith::DivFOp::create(b, loc, floatConstant(b, loc, t, 1.0), sum);
  return arith::SelectOp::create(b, loc, none, zero, inv);
}

Value semantics::logSumExp(OpBuilder &b, Location loc, Value max, Value sum) {
  Type t = sum.getType();
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum,
                                     floatConstant(b, loc, t, 0.0));
  Value log2Sum = math::Log2Op::create(b, loc, sum);
  Value natural =
      arith::MulFOp::create(b, loc, arith::AddFOp::create(b, loc, max, log2Sum),
                            floatConstant(b, loc, t, M_LN2));
  return arith::SelectOp::create(
      b, loc, none,
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity()),
      natural);
}
