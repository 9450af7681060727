//===- AttentionMath.h - One definition of each step of attention -*- C++ -*-===//
//
// The arithmetic of the mask, the online-softmax step and the final
// normalisation, as builders of scalar (or elementwise vector) ops. Every
// lowering calls these: the naive CPU decomposition (the mask and the row
// max), the CPU lowering of the tile ops inside linalg.generic bodies, and
// the GPU patterns on register fragments. A change to one of them changes
// every path at once, so the CPU equivalence tests cover what the GPU runs.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H
#define FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace fa {
class MaskOp;
namespace semantics {

//===----------------------------------------------------------------------===//
// The mask
//===----------------------------------------------------------------------===//

/// What hides a key from a query row (index values; null = absent).
struct MaskSpec {
  /// Keys at or past this are hidden (the end of the sequence).
  Value keyLimit;
  /// Causal: row i sees keys j <= i + causalOffset (bottom-right aligned
  /// with causalOffset = Nk - Nq).
  Value causalOffset;

  static MaskSpec of(MaskOp op);
};

/// The end of the keys row `row` sees: every key j >= end is hidden, every
/// key below it is visible. Null when the spec hides nothing.
///   end(row) = min(keyLimit, row + causalOffset + 1)
Value visibleKeysEnd(OpBuilder &b, Location loc, Value row,
                     const MaskSpec &spec);

/// i1: key `col` is hidden from query row `row` (col >= end(row)).
Value isHidden(OpBuilder &b, Location loc, Value row, Value col,
               const MaskSpec &spec);

//===----------------------------------------------------------------------===//
// The online-softmax step (log2 domain; `scale` = softmax scale * log2(e))
//===----------------------------------------------------------------------===//

/// Combines two row-max candidates: IEEE maxNum (a NaN score does not
/// become the max; its exp2 still makes the row NaN).
Value maxOf(OpBuilder &b, Location loc, Value x, Value y);

/// m_new = max(m, scale * rowMax), for the raw row max of one block of
/// scores (scale > 0, so max(scale * s) = scale * max(s)).
Value newRunningMax(OpBuilder &b, Location loc, Value oldMax, Value rowMax,
                    Value scale);

/// The exponent base of a row: m_new, or 0 while the row has seen no key
/// (m_new = -inf), so that exp2 gives 0 instead of NaN.
Value softmaxBase(OpBuilder &b, Location loc, Value newMax);

/// alpha = exp2(m_old - base): the factor that brings the old sum and
/// accumulator to the new max.
Value rescaleFactor(OpBuilder &b, Location loc, Value oldMax, Value base);

/// P = exp2(scale * s - base), as one fused multiply-add and one exp2;
/// `negBase` is -base.
Value expScore(OpBuilder &b, Location loc, Value score, Value scale,
               Value negBase);

/// l_new = alpha * l + rowSum(P), as one fused multiply-add.
Value newRunningSum(OpBuilder &b, Location loc, Value alpha, Value oldSum,
                    Value rowSumOfP);

//===----------------------------------------------------------------------===//
// The one normalisation
//===----------------------------------------------------------------------===//

/// 1 / l, or 0 for a row that saw no key (l = 0): O = acc * (1 / l).
Value inverseSum(OpBuilder &b, Location loc, Value sum);

/// LSE = ln(2) * (m + log2(l)), or -inf for a row that saw no key.
Value logSumExp(OpBuilder &b, Location loc, Value max, Value sum);

/// An f32 constant shaped like `like` (scalar or vector splat).
Value floatConstant(OpBuilder &b, Location loc, Type like, double value);

} // namespace semantics
} // namespace fa
} // namespace mlir

#endif // FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H
