//===- LinalgBuilders.h - Small helpers for building linalg.generic ------===//
//
// Shared by the passes that lower fa ops to linalg on tensors for the CPU
// (--fa-decompose-naive, --fa-decompose-tiles).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_LINALGBUILDERS_H
#define FA_LIB_TRANSFORMS_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace fa {

/// Builds linalg.generic ops with f32 arithmetic at one location.
class LinalgBuilder {
public:
  using BodyFn = function_ref<void(OpBuilder &, Location, ValueRange)>;

  LinalgBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// A `linalg.generic` writing into `init`; returns its result.
  Value generic(Value init, ValueRange inputs, ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> iterators, BodyFn body) {
    return linalg::GenericOp::create(b, loc, init.getType(), inputs, init,
                                     maps, iterators, body)
        .getResult(0);
  }

  /// A new f32 tensor of the given sizes filled with `value`.
  Value filled(ArrayRef<OpFoldResult> sizes, double value) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
    return linalg::FillOp::create(b, loc, f32Constant(value), empty)
        .getResult(0);
  }

  Value f32Constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }

  AffineMap map(unsigned numDims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(numDims, 0, results, b.getContext());
  }

  /// `v` extended to f32 inside a generic body (no-op for f32).
  static Value toF32(OpBuilder &nb, Location l, Value v) {
    return v.getType().isF32()
               ? v
               : arith::ExtFOp::create(nb, l, nb.getF32Type(), v).getResult();
  }

  static void yield(OpBuilder &nb, Location l, Value v) {
    linalg::YieldOp::create(nb, l, v);
  }

  OpBuilder &builder() { return b; }
  Location location() { return loc; }

private:
  OpBuilder &b;
  Location loc;
};

constexpr utils::IteratorType kParallel = utils::IteratorType::parallel;
constexpr utils::IteratorType kReduction = utils::IteratorType::reduction;

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_LINALGBUILDERS_H
