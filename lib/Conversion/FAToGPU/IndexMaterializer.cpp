//===- IndexMaterializer.cpp - Host index math -> kernel index math -------===//

#include "IndexMaterializer.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;

/// Side-effect-free scalar index arithmetic that may be cloned as is.
static bool isClonableIndexOp(Operation *op) {
  if (!isa<arith::ArithDialect>(op->getDialect()) &&
      !isa<affine::AffineApplyOp>(op))
    return false;
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  auto scalarIntOrIndex = [](Type t) { return t.isIntOrIndex(); };
  return llvm::all_of(op->getOperandTypes(), scalarIntOrIndex) &&
         llvm::all_of(op->getResultTypes(), scalarIntOrIndex);
}

FailureOr<Value> IndexMaterializer::get(OpBuilder &b, Value v) {
  if (Value known = mapping.lookupOrNull(v))
    return known;
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();

  Value result;
  if (auto dim = dyn_cast<tensor::DimOp>(def)) {
    Value memref = tensorToMemref.lookup(dim.getSource());
    FailureOr<Value> index = get(b, dim.getIndex());
    if (!memref || failed(index))
      return failure();
    result = memref::DimOp::create(b, def->getLoc(), memref, *index);
  } else if (isClonableIndexOp(def)) {
    for (Value operand : def->getOperands())
      if (failed(get(b, operand)))
        return failure();
    result = b.clone(*def, mapping)->getResult(0);
  } else {
    return failure();
  }
  mapping.map(v, result);
  return result;
}

FailureOr<Value> IndexMaterializer::get(OpBuilder &b, OpFoldResult ofr) {
  if (auto v = dyn_cast<Value>(ofr))
    return get(b, v);
  return arith::ConstantIndexOp::create(
             b, b.getUnknownLoc(),
             cast<IntegerAttr>(cast<Attribute>(ofr)).getInt())
      .getResult();
}
