//===- AttentionMath.cpp - One definition of each step of attention -------===//

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::semantics;

MaskSpec MaskSpec::of(MaskOp op) {
  return MaskSpec{op.getKeyLimit(), op.getCausalOffset(), op.getWindowOffset(),
                  op.getSingleQuery()};
}

Value semantics::queryRow(OpBuilder &b, Location loc, Value rowStart,
                          Value tileRow, const MaskSpec &spec) {
  if (spec.singleQuery)
    return rowStart;
  return arith::AddIOp::create(b, loc, rowStart, tileRow);
}

MaskSpec MaskSpec::forWindow(OpBuilder &b, Location loc, Value numQueries,
                             Value numKeys, std::optional<int64_t> left,
                             std::optional<int64_t> right,
                             function_ref<Value(int64_t)> indexConstant) {
  MaskSpec spec;
  if (!left && !right)
    return spec;
  Value diag = arith::SubIOp::create(b, loc, numKeys, numQueries);
  auto shifted = [&](int64_t by) -> Value {
    if (by == 0)
      return diag;
    Value offset = indexConstant
                       ? indexConstant(by)
                       : arith::ConstantIndexOp::create(b, loc, by).getResult();
    return arith::AddIOp::create(b, loc, diag, offset);
  };
  if (right)
    spec.causalOffset = shifted(*right);
  if (left)
    spec.windowOffset = shifted(-*left);
  return spec;
}

Value semantics::sequenceKeyCount(OpBuilder &b, Location loc, Value lengths,
                                  Value batch, Value capacity) {
  Value length = tensor::ExtractOp::create(b, loc, lengths, batch);
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), length);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::MinSIOp::create(b, loc,
                                arith::MaxSIOp::create(b, loc, n, zero),
                                capacity);
}

std::pair<Value, Value> semantics::pageOfKey(OpBuilder &b, Location loc,
                                             Value table, Value batch,
                                             Value key, int64_t pageSize) {
  Value size = arith::ConstantIndexOp::create(b, loc, pageSize);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lastColumn = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, table, 1), one);
  Value column = arith::MinUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, key, size), lastColumn);
  Value entry =
      tensor::ExtractOp::create(b, loc, table, ValueRange{batch, column});
  Value page = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
  return {page, arith::RemUIOp::create(b, loc, key, size)};
}

Value semantics::sequenceOfRow(OpBuilder &b, Location loc, CuSeqlensReader cu,
                               Value numSeqs, Value row) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, one, arith::AddIOp::create(b, loc, numSeqs, one), one,
      ValueRange{zero},
      [&](OpBuilder &lb, Location l, Value t, ValueRange count) {
        // (One op per statement: the IR's order is then the source's.)
        Value start = cu(lb, l, t);
        Value started = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sle,
                                              start, row);
        Value inc = arith::ExtUIOp::create(lb, l, lb.getI64Type(), started);
        Value next = arith::AddIOp::create(
            lb, l, count[0],
            arith::IndexCastOp::create(lb, l, lb.getIndexType(), inc));
        scf::YieldOp::create(lb, l, next);
      });
  return loop.getResult(0);
}

semantics::VarlenGrid semantics::varlenGrid(OpBuilder &b, Location loc,
                                            Value totalRows, Value numSeqs,
                                            Value maxRows, int64_t blockRows) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = arith::ConstantIndexOp::create(b, loc, blockRows);
  Value walk = arith::AddIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, totalRows, rows), numSeqs);
  if (!maxRows)
    return {walk, Value()};
  Value slots = arith::MaxUIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, maxRows, rows), one);
  Value slotted = arith::MulIOp::create(b, loc, slots, numSeqs);
  // perSequence = slotted < walk ? slots : 0, without a compare (which the
  // plan's expressions lack): slotted / walk is 0 exactly when it is fewer.
  Value ratio = arith::DivUIOp::create(
      b, loc, slotted, arith::MaxUIOp::create(b, loc, walk, one));
  Value notFewer = arith::MinUIOp::create(b, loc, ratio, one);
  Value perSequence = arith::SubIOp::create(
      b, loc, slots, arith::MulIOp::create(b, loc, slots, notFewer));
  Value blocks = arith::MinUIOp::create(b, loc, walk, slotted);
  return {blocks, perSequence};
}

semantics::SequenceRows semantics::sequenceRows(OpBuilder &b, Location loc,
                                                CuSeqlensReader cu,
                                                Value numSeqs, Value seq) {
  // (One op per statement: the IR's order is then the source's.)
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value next = arith::AddIOp::create(b, loc, seq, one);
  Value startAt = seq, stopAt = next;
  if (numSeqs) {
    startAt = arith::MinUIOp::create(b, loc, seq, numSeqs);
    stopAt = arith::MinUIOp::create(b, loc, next, numSeqs);
  }
  Value start = cu(b, loc, startAt);
  Value stop = cu(b, loc, stopAt);
  Value diff = arith::SubIOp::create(b, loc, stop, start);
  Value length = arith::MaxSIOp::create(b, loc, diff, zero);
  return {start, length};
}

semantics::VarlenBlock
semantics::perSequenceBlock(OpBuilder &b, Location loc, CuSeqlensReader cuQ,
                            CuSeqlensReader cuK, Value numSeqs, Value index,
                            Value perSequence, int64_t blockRows) {
  // (One op per statement: the IR's order is then the source's.)
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value rows = arith::ConstantIndexOp::create(b, loc, blockRows);
  Value seq = arith::DivUIOp::create(b, loc, index, perSequence);
  Value slot = arith::RemUIOp::create(b, loc, index, perSequence);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, seq, numSeqs);
  // Past the last sequence both ranges are empty (sequenceRows).
  SequenceRows queries = sequenceRows(b, loc, cuQ, numSeqs, seq);
  SequenceRows keys = sequenceRows(b, loc, cuK, numSeqs, seq);
  Value slotStart = arith::MulIOp::create(b, loc, slot, rows);
  Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        slotStart, queries.length);
  Value reach = arith::MulIOp::create(b, loc, perSequence, rows);
  Value tooLong = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        queries.length, reach);
  Value sequence = arith::SelectOp::create(b, loc, inRange, seq, zero);
  Value block = arith::SelectOp::create(b, loc, inRange, slot, index);
  return {sequence, block, queries, keys, hasRows, tooLong};
}

semantics::VarlenBlock
semantics::varlenBlock(OpBuilder &b, Location loc, CuSeqlensReader cuQ,
                       CuSeqlensReader cuK, Value numSeqs, Value index,
                       int64_t blockRows, Value perSequence) {
  if (perSequence) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value slotted = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          perSequence, zero);
    auto yield = [](OpBuilder &yb, Location l, const VarlenBlock &r) {
      scf::YieldOp::create(
          yb, l,
          ValueRange{r.sequence, r.block, r.queries.start, r.queries.length,
                     r.keys.start, r.keys.length, r.tooLong});
    };
    auto ifOp = scf::IfOp::create(
        b, loc, slotted,
        [&](OpBuilder &tb, Location l) {
          yield(tb, l, perSequenceBlock(tb, l, cuQ, cuK, numSeqs, index,
                                        perSequence, blockRows));
        },
        [&](OpBuilder &eb, Location l) {
          yield(eb, l,
                varlenBlock(eb, l, cuQ, cuK, numSeqs, index, blockRows));
        });
    ValueRange r = ifOp.getResults();
    return {r[0], r[1], {r[2], r[3]}, {r[4], r[5]}, Value(), r[6]};
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = arith::ConstantIndexOp::create(b, loc, blockRows);
  // iter_args: the first block of sequence s, the sequence and block found.
  auto loop = scf::ForOp::create(
      b, loc, zero, numSeqs, one, ValueRange{zero, zero, index},
      [&](OpBuilder &lb, Location l, Value s, ValueRange state) {
        // (One op per statement: the IR's order is then the source's.)
        Value first = state[0];
        Value start = cuQ(lb, l, s);
        Value next = arith::AddIOp::create(lb, l, s, one);
        Value stop = cuQ(lb, l, next);
        Value diff = arith::SubIOp::create(lb, l, stop, start);
        Value length = arith::MaxSIOp::create(lb, l, diff, zero);
        Value blocks = arith::CeilDivUIOp::create(lb, l, length, rows);
        Value end = arith::AddIOp::create(lb, l, first, blocks);
        Value fromFirst = arith::CmpIOp::create(
            lb, l, arith::CmpIPredicate::uge, index, first);
        Value beforeEnd =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult, index, end);
        Value inside = arith::AndIOp::create(lb, l, fromFirst, beforeEnd);
        Value seq = arith::SelectOp::create(lb, l, inside, s, state[1]);
        Value local = arith::SubIOp::create(lb, l, index, first);
        Value block = arith::SelectOp::create(lb, l, inside, local, state[2]);
        scf::YieldOp::create(lb, l, ValueRange{end, seq, block});
      });
  Value sequence = loop.getResult(1);
  Value no = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  return {sequence,
          loop.getResult(2),
          sequenceRows(b, loc, cuQ, numSeqs, sequence),
          sequenceRows(b, loc, cuK, numSeqs, sequence),
          Value(),
          no};
}

Value semantics::visibleKeysEnd(OpBuilder &b, Location loc, Value row,
                           const MaskSpec &spec) {
  Value end = spec.keyLimit;
  if (spec.causalOffset) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value last = arith::AddIOp::create(b, loc, row, spec.causalOffset);
    Value rowEnd = arith::AddIOp::create(b, loc, last, one);
    end = end ? arith::MinSIOp::create(b, loc, end, rowEnd).getResult()
              : rowEnd;
  }
  return end;
}

Value semantics::visibleKeysBegin(OpBuilder &b, Location loc, Value row,
                                  const MaskSpec &spec) {
  if (!spec.windowOffset)
    return Value();
  return arith::AddIOp::create(b, loc, row, spec.windowOffset);
}

Value semantics::firstRowSeeing(OpBuilder &b, Location loc, Value keyStart,
                                const MaskSpec &spec) {
  // end(row) = row + causalOffset + 1 > keyStart  <=>  row >= keyStart -
  // causalOffset (the key limit does not depend on the row).
  if (!spec.causalOffset)
    return Value();
  return arith::SubIOp::create(b, loc, keyStart, spec.causalOffset);
}

Value semantics::rowsSeeingEnd(OpBuilder &b, Location loc, Value keyEnd,
                               const MaskSpec &spec) {
  // begin(row) = row + windowOffset < keyEnd  <=>  row < keyEnd -
  // windowOffset.
  if (!spec.windowOffset)
    return Value();
  return arith::SubIOp::create(b, loc, keyEnd, spec.windowOffset);
}

Value semantics::rowsMaySeeKeys(OpBuilder &b, Location loc, Value firstRow,
                                Value lastRow, Value keyStart, Value keyEnd,
                                const MaskSpec &spec) {
  Value sees;
  if (Value end = visibleKeysEnd(b, loc, lastRow, spec))
    sees = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, end,
                                 keyStart);
  if (Value begin = visibleKeysBegin(b, loc, firstRow, spec)) {
    Value before =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, begin, keyEnd);
    sees = sees ? arith::AndIOp::create(b, loc, sees, before).getResult()
                : before;
  }
  return sees;
}

Value semantics::isHidden(OpBuilder &b, Location loc, Value row, Value col,
                          const MaskSpec &spec) {
  Value hidden;
  if (Value end = visibleKeysEnd(b, loc, row, spec))
    hidden = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, col, end);
  if (Value begin = visibleKeysBegin(b, loc, row, spec)) {
    Value before =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, col, begin);
    hidden = hidden ? arith::OrIOp::create(b, loc, hidden, before).getResult()
                    : before;
  }
  if (!hidden)
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  return hidden;
}

Value semantics::softcap(OpBuilder &b, Location loc, Value score, Value scale,
                         Value cap) {
  Value scaled = arith::MulFOp::create(b, loc, score, scale);
  Value tanh = math::TanhOp::create(b, loc, scaled);
  if (!cap)
    return tanh;
  return arith::MulFOp::create(b, loc, cap, tanh);
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
  Value scaled = arith::MulFOp::create(b, loc, rowMax, scale);
  return maxOf(b, loc, oldMax, scaled);
}

Value semantics::softmaxBase(OpBuilder &b, Location loc, Value newMax) {
  Type t = newMax.getType();
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
  Value zero = floatConstant(b, loc, t, 0.0);
  return arith::SelectOp::create(b, loc, none, zero, newMax);
}

Value semantics::rescaleFactor(OpBuilder &b, Location loc, Value oldMax,
                          Value base) {
  Value diff = arith::SubFOp::create(b, loc, oldMax, base);
  return math::Exp2Op::create(b, loc, diff);
}

Value semantics::expScore(OpBuilder &b, Location loc, Value score, Value scale,
                     Value negBase) {
  Value exponent = math::FmaOp::create(b, loc, score, scale, negBase);
  return math::Exp2Op::create(b, loc, exponent);
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
  Value one = floatConstant(b, loc, t, 1.0);
  Value inv = arith::DivFOp::create(b, loc, one, sum);
  return arith::SelectOp::create(b, loc, none, zero, inv);
}

Value semantics::logSumExp(OpBuilder &b, Location loc, Value max, Value sum) {
  Type t = sum.getType();
  Value zero = floatConstant(b, loc, t, 0.0);
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum, zero);
  Value log2Sum = math::Log2Op::create(b, loc, sum);
  Value log2Total = arith::AddFOp::create(b, loc, max, log2Sum);
  Value ln2 = floatConstant(b, loc, t, M_LN2);
  Value natural = arith::MulFOp::create(b, loc, log2Total, ln2);
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  return arith::SelectOp::create(b, loc, none, negInf, natural);
}

Value semantics::probFromLse(OpBuilder &b, Location loc, Value score,
                             Value lse) {
  Type t = lse.getType();
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lse, negInf);
  Value diff = arith::SubFOp::create(b, loc, score, lse);
  Value prob = math::ExpOp::create(b, loc, diff);
  Value zero = floatConstant(b, loc, t, 0.0);
  return arith::SelectOp::create(b, loc, none, zero, prob);
}

Value semantics::lseToLog2(OpBuilder &b, Location loc, Value lse) {
  return arith::MulFOp::create(b, loc, lse,
                               floatConstant(b, loc, lse.getType(), M_LOG2E));
}

Value semantics::probFromLseLog2(OpBuilder &b, Location loc, Value score,
                                 Value scale, Value lseLog2) {
  Type t = lseLog2.getType();
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                     lseLog2, negInf);
  Value neg = arith::NegFOp::create(b, loc, lseLog2);
  Value exponent = math::FmaOp::create(b, loc, score, scale, neg);
  Value prob = math::Exp2Op::create(b, loc, exponent);
  return arith::SelectOp::create(b, loc, none, floatConstant(b, loc, t, 0.0),
                                 prob);
}

Value semantics::rawScoreGrad(OpBuilder &b, Location loc, Value prob,
                              Value gradProb, Value rowDot, Value scale,
                              Value capped, Value cap) {
  Value grad = arith::MulFOp::create(
      b, loc, scoreGrad(b, loc, prob, gradProb, rowDot), scale);
  if (!cap)
    return grad;
  Type t = capped.getType();
  Value hidden = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, capped,
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity()));
  Value scaled =
      arith::MulFOp::create(b, loc, grad, softcapGrad(b, loc, capped, cap));
  return arith::SelectOp::create(b, loc, hidden, floatConstant(b, loc, t, 0.0),
                                 scaled);
}

Value semantics::scoreGrad(OpBuilder &b, Location loc, Value prob,
                           Value gradProb, Value rowDot) {
  Value centered = arith::SubFOp::create(b, loc, gradProb, rowDot);
  return arith::MulFOp::create(b, loc, prob, centered);
}

Value semantics::softcapGrad(OpBuilder &b, Location loc, Value capped,
                             Value cap) {
  Value ratio = arith::DivFOp::create(b, loc, capped, cap);
  Value square = arith::MulFOp::create(b, loc, ratio, ratio);
  Value one = floatConstant(b, loc, capped.getType(), 1.0);
  return arith::SubFOp::create(b, loc, one, square);
}

Value semantics::splitsBase(OpBuilder &b, Location loc, Value maxLse) {
  // The same guard as the online softmax's exponent base: the max, or 0
  // while it is -inf.
  return softmaxBase(b, loc, maxLse);
}

Value semantics::splitWeight(OpBuilder &b, Location loc, Value splitLse,
                             Value base) {
  Value shifted = arith::SubFOp::create(b, loc, splitLse, base);
  return math::ExpOp::create(b, loc, shifted);
}

Value semantics::combinedLse(OpBuilder &b, Location loc, Value base,
                             Value weightSum) {
  Type t = weightSum.getType();
  Value zero = floatConstant(b, loc, t, 0.0);
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                     weightSum, zero);
  Value lse = arith::AddFOp::create(
      b, loc, base, math::LogOp::create(b, loc, weightSum));
  Value negInf =
      floatConstant(b, loc, t, -std::numeric_limits<double>::infinity());
  return arith::SelectOp::create(b, loc, none, negInf, lse);
}
