//===- Dialect.cpp - C API for the fa dialect -----------------------------===//

#include "fa-c/Dialect.h"

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <limits>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(FA, fa, mlir::fa::FADialect)

namespace {
/// `attribute` as an f32 FloatAttr; null stays null. On a wrong kind, emits
/// an error naming `what` and fails.
FailureOr<FloatAttr> getF32Attr(Location loc, MlirAttribute attribute,
                                StringRef what) {
  if (mlirAttributeIsNull(attribute))
    return FloatAttr();
  auto floatAttr = dyn_cast<FloatAttr>(unwrap(attribute));
  if (!floatAttr || !floatAttr.getType().isF32()) {
    emitError(loc) << "faAttentionOpCreate: " << what
                   << " must be an f32 FloatAttr (or null), got "
                   << unwrap(attribute);
    return failure();
  }
  return floatAttr;
}

/// `attribute` as an i64 IntegerAttr; null stays null.
FailureOr<IntegerAttr> getI64Attr(Location loc, MlirAttribute attribute,
                                  StringRef what) {
  if (mlirAttributeIsNull(attribute))
    return IntegerAttr();
  auto intAttr = dyn_cast<IntegerAttr>(unwrap(attribute));
  if (!intAttr || !intAttr.getType().isSignlessInteger(64)) {
    emitError(loc) << "faAttentionOpCreate: " << what
                   << " must be an i64 IntegerAttr (or null), got "
                   << unwrap(attribute);
    return failure();
  }
  return intAttr;
}
} // namespace

MlirOperation faAttentionOpCreate(MlirLocation location, MlirValue query,
                                  MlirValue key, MlirValue value, MlirValue out,
                                  MlirValue lse, MlirAttribute scale,
                                  bool causal, MlirAttribute windowLeft,
                                  MlirAttribute windowRight,
                                  MlirAttribute softcap) {
  Location loc = unwrap(location);
  if (mlirValueIsNull(query) || mlirValueIsNull(key) ||
      mlirValueIsNull(value) || mlirValueIsNull(out)) {
    emitError(loc) << "faAttentionOpCreate: query, key, value and out must "
                      "not be null";
    return MlirOperation{nullptr};
  }
  if (mlirAttributeIsNull(windowLeft) != mlirAttributeIsNull(windowRight)) {
    emitError(loc) << "faAttentionOpCreate: windowLeft and windowRight must "
                      "both be given or both be null";
    return MlirOperation{nullptr};
  }
  FailureOr<FloatAttr> scaleAttr = getF32Attr(loc, scale, "scale");
  FailureOr<FloatAttr> softcapAttr = getF32Attr(loc, softcap, "softcap");
  FailureOr<IntegerAttr> leftAttr = getI64Attr(loc, windowLeft, "windowLeft");
  FailureOr<IntegerAttr> rightAttr =
      getI64Attr(loc, windowRight, "windowRight");
  if (failed(scaleAttr) || failed(softcapAttr) || failed(leftAttr) ||
      failed(rightAttr))
    return MlirOperation{nullptr};

  // Building an op whose dialect is not loaded is a fatal error in MLIR.
  MLIRContext *context = loc.getContext();
  context->getOrLoadDialect<fa::FADialect>();

  SmallVector<Value, 2> outputs{unwrap(out)};
  if (!mlirValueIsNull(lse))
    outputs.push_back(unwrap(lse));
  // Destination-passing style: one tensor result per tensor destination.
  SmallVector<Type, 2> resultTypes;
  for (Value output : outputs)
    if (isa<TensorType>(output.getType()))
      resultTypes.push_back(output.getType());

  OpBuilder builder(context);
  auto op = fa::AttentionOp::create(
      builder, loc, resultTypes, unwrap(query), unwrap(key), unwrap(value),
      /*key_lengths=*/Value(), /*block_table=*/Value(),
      /*cu_seqlens_q=*/Value(), /*cu_seqlens_k=*/Value(),
      /*max_seqlen_q=*/Value(), outputs, *scaleAttr, causal, *leftAttr,
      *rightAttr, *softcapAttr);
  return wrap(op.getOperation());
}

bool faOperationIsAttention(MlirOperation op) {
  return isa<fa::AttentionOp>(unwrap(op));
}

double faAttentionOpGetEffectiveScale(MlirOperation op) {
  auto attention = dyn_cast_or_null<fa::AttentionOp>(unwrap(op));
  if (!attention)
    return std::numeric_limits<double>::quiet_NaN();
  return attention.getEffectiveScale();
}
