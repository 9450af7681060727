//===- TileOps.cpp - Verifiers of the tile-level fa ops -------------------===//
//
// Tile values are static 2-D tiles ([rows, cols]) or per-row 1-D vectors
// ([rows]). A tile may carry a layout encoding (added by --fa-map-warps); the
// verifiers compare shapes and element types only.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;

namespace {
/// Checks one operand or result: static, the given rank, optionally f32.
LogicalResult checkTile(Operation *op, Type type, StringRef name, int64_t rank,
                        bool mustBeF32) {
  auto tensor = cast<RankedTensorType>(type);
  if (tensor.getRank() != rank)
    return op->emitOpError() << name << " must be a rank-" << rank
                             << " tile, got " << type;
  if (!tensor.hasStaticShape())
    return op->emitOpError() << name << " must have a static shape, got "
                             << type;
  Type elem = tensor.getElementType();
  if (mustBeF32 && !elem.isF32())
    return op->emitOpError() << name << " must have f32 elements, got "
                             << type;
  if (!elem.isF16() && !elem.isBF16() && !elem.isF32())
    return op->emitOpError() << name << " must have f16, bf16 or f32 elements, got "
                             << type;
  return success();
}

int64_t dim(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}
Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Per-row state (`m`, `l`, `alpha`) of a tile with `rows` rows.
LogicalResult checkRowVector(Operation *op, Value v, StringRef name,
                             int64_t rows) {
  if (failed(checkTile(op, v.getType(), name, 1, /*mustBeF32=*/true)))
    return failure();
  if (dim(v, 0) != rows)
    return op->emitOpError() << name << " must have one entry per row ("
                             << rows << "), got " << v.getType();
  return success();
}
} // namespace

LogicalResult QKOp::verify() {
  if (failed(checkTile(*this, getQuery().getType(), "query tile", 2, false)) ||
      failed(checkTile(*this, getKey().getType(), "key tile", 2, false)) ||
      failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  if (elementType(getQuery()) != elementType(getKey()))
    return emitOpError("query and key tiles must have the same element type, got ")
           << getQuery().getType() << " and " << getKey().getType();
  if (dim(getQuery(), 1) != dim(getKey(), 1))
    return emitOpError("query and key tiles must have the same head dim, got ")
           << getQuery().getType() << " and " << getKey().getType();
  if (dim(getScores(), 0) != dim(getQuery(), 0) ||
      dim(getScores(), 1) != dim(getKey(), 0))
    return emitOpError("scores must be [query rows, key rows] = [")
           << dim(getQuery(), 0) << ", " << dim(getKey(), 0) << "], got "
           << getScores().getType();
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale) || scale <= 0.0)
    return emitOpError("scale must be finite and > 0, got ") << scale;
  return success();
}

LogicalResult MaskOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  if (!getKeyLimit() && !getCausalOffset())
    return emitOpError("needs a key_limit, a causal_offset, or both");
  return success();
}

LogicalResult OnlineSoftmaxOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  int64_t rows = dim(getScores(), 0);
  return checkRowVector(*this, getMax(), "running max", rows);
}

LogicalResult PVOp::verify() {
  if (failed(checkTile(*this, getProbs().getType(), "P", 2, false)) ||
      failed(checkTile(*this, getValue().getType(), "value tile", 2, false)) ||
      failed(checkTile(*this, getAcc().getType(), "accumulator", 2, true)))
    return failure();
  if (elementType(getProbs()) != elementType(getValue()))
    return emitOpError("P must have the element type of the value tile, got ")
           << getProbs().getType() << " and " << getValue().getType();
  if (dim(getProbs(), 1) != dim(getValue(), 0))
    return emitOpError("P columns must match value tile rows, got ")
           << getProbs().getType() << " and " << getValue().getType();
  if (dim(getAcc(), 0) != dim(getProbs(), 0) ||
      dim(getAcc(), 1) != dim(getValue(), 1))
    return emitOpError("accumulator must be [P rows, value cols] = [")
           << dim(getProbs(), 0) << ", " << dim(getValue(), 1) << "], got "
           << getAcc().getType();
  return checkRowVector(*this, getAlpha(), "alpha", dim(getAcc(), 0));
}

LogicalResult FinalizeOp::verify() {
  if (failed(checkTile(*this, getAcc().getType(), "accumulator", 2, true)) ||
      failed(checkTile(*this, getOut().getType(), "output tile", 2, false)))
    return failure();
  if (dim(getOut(), 0) != dim(getAcc(), 0) ||
      dim(getOut(), 1) != dim(getAcc(), 1))
    return emitOpError("output tile must have the accumulator's shape, got ")
           << getOut().getType() << " for " << getAcc().getType();
  return checkRowVector(*this, getMax(), "running max", dim(getAcc(), 0));
}
