//===- FAOps.cpp - FlashAttention dialect ops -----------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

/// Prints a shape as `[2, 8, ?, 64]`.
static std::string shapeToString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// Two dimensions agree unless both are static and differ.
static bool dimsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static bool isSupportedElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  int64_t d = cast<ShapedType>(getQuery().getType()).getShape()[3];
  return 1.0 / std::sqrt(static_cast<double>(d));
}

int64_t AttentionOp::getGroupSize() {
  int64_t hq = cast<ShapedType>(getQuery().getType()).getShape()[1];
  int64_t hkv = cast<ShapedType>(getKey().getType()).getShape()[1];
  return hq / hkv;
}

LogicalResult AttentionOp::verify() {
  // Form: all tensors (value semantics) or all memrefs (buffer semantics).
  SmallVector<Value> operands = {getQuery(), getKey(), getValue()};
  llvm::append_range(operands, getOutputs());
  bool tensorForm = isa<RankedTensorType>(getQuery().getType());
  for (Value v : operands) {
    Type t = v.getType();
    if (tensorForm ? !isa<RankedTensorType>(t) : !isa<MemRefType>(t))
      return emitOpError("expects all operands to be ranked tensors or all "
                         "to be memrefs, got ")
             << getQuery().getType() << " and " << t;
  }

  if (getOutputs().empty() || getOutputs().size() > 2)
    return emitOpError("expects 1 or 2 outputs (O and optionally LSE), got ")
           << getOutputs().size();

  if (tensorForm) {
    if (getResults().size() != getOutputs().size())
      return emitOpError("in tensor form expects one result per output (")
             << getOutputs().size() << "), got " << getResults().size();
    for (auto [res, out] : llvm::zip(getResults(), getOutputs()))
      if (res.getType() != out.getType())
        return emitOpError("result type ")
               << res.getType() << " does not match its output type "
               << out.getType();
  } else if (!getResults().empty()) {
    return emitOpError("in memref form has no results, got ")
           << getResults().size();
  }

  // Ranks.
  auto checkRank = [&](Value v, StringRef name, int64_t rank,
                       StringRef layout) -> LogicalResult {
    int64_t r = cast<ShapedType>(v.getType()).getRank();
    if (r != rank)
      return emitOpError() << name << " must have rank " << rank << " "
                           << layout << ", got rank " << r;
    return success();
  };
  if (failed(checkRank(getQuery(), "query", 4, "[B, Hq, Nq, D]")) ||
      failed(checkRank(getKey(), "key", 4, "[B, Hkv, Nk, D]")) ||
      failed(checkRank(getValue(), "value", 4, "[B, Hkv, Nk, Dv]")) ||
      failed(checkRank(getOut(), "out", 4, "[B, Hq, Nq, Dv]")))
    return failure();
  if (getLse() && failed(checkRank(getLse(), "lse", 3, "[B, Hq, Nq]")))
    return failure();

  // Element types.
  Type elemTy = getElementTypeOrSelf(getQuery().getType());
  if (!isSupportedElementType(elemTy))
    return emitOpError("query element type must be f16, bf16 or f32, got ")
           << elemTy;
  auto checkElem = [&](Value v, StringRef name) -> LogicalResult {
    Type t = getElementTypeOrSelf(v.getType());
    if (t != elemTy)
      return emitOpError() << name << " element type " << t
                           << " does not match query element type " << elemTy;
    return success();
  };
  if (failed(checkElem(getKey(), "key")) ||
      failed(checkElem(getValue(), "value")) ||
      failed(checkElem(getOut(), "out")))
    return failure();
  if (getLse() && !getElementTypeOrSelf(getLse().getType()).isF32())
    return emitOpError("lse element type must be f32, got ")
           << getElementTypeOrSelf(getLse().getType());

  ArrayRef<int64_t> q = cast<ShapedType>(getQuery().getType()).getShape();
  ArrayRef<int64_t> k = cast<ShapedType>(getKey().getType()).getShape();
  ArrayRef<int64_t> v = cast<ShapedType>(getValue().getType()).getShape();

  // Static head counts and head dims.
  if (ShapedType::isDynamic(q[3]) || ShapedType::isDynamic(k[3]))
    return emitOpError("head dim D must be static, got query ")
           << shapeToString(q) << " and key " << shapeToString(k);
  if (ShapedType::isDynamic(v[3]))
    return emitOpError("value head dim Dv must be static, got value ")
           << shapeToString(v);
  if (ShapedType::isDynamic(q[1]) || ShapedType::isDynamic(k[1]) ||
      ShapedType::isDynamic(v[1]))
    return emitOpError("head counts Hq and Hkv must be static, got query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);
  if (q[3] == 0 || v[3] == 0 || q[1] == 0 || k[1] == 0)
    return emitOpError("head counts and head dims must be positive, got query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);

  // Cross-operand consistency.
  if (!dimsAgree(q[0], k[0]) || !dimsAgree(q[0], v[0]))
    return emitOpError("batch sizes differ: query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);
  if (k[1] != v[1])
    return emitOpError("key and value must have the same number of heads, got ")
           << k[1] << " and " << v[1];
  if (q[1] % k[1] != 0)
    return emitOpError("query heads (")
           << q[1] << ") must be a multiple of key/value heads (" << k[1]
           << ") for grouped-query attention";
  if (!dimsAgree(k[2], v[2]))
    return emitOpError("key and value sequence lengths differ: key ")
           << shapeToString(k) << ", value " << shapeToString(v);
  if (q[3] != k[3])
    return emitOpError("query head dim (")
           << q[3] << ") does not match key head dim (" << k[3] << ")";

  // Destination shapes. Dynamic B and Nq in O/LSE are fine, a dynamic head
  // count or head dim is not: those must be the static Hq and Dv.
  SmallVector<int64_t> expectedO = {q[0], q[1], q[2], v[3]};
  ArrayRef<int64_t> o = cast<ShapedType>(getOut().getType()).getShape();
  if (!llvm::all_of(llvm::zip(o, expectedO), [](auto p) {
        return dimsAgree(std::get<0>(p), std::get<1>(p));
      }) || o[1] != q[1] || o[3] != v[3])
    return emitOpError("out shape must be [B, Hq, Nq, Dv] = ")
           << shapeToString(expectedO) << ", got " << shapeToString(o);
  if (Value lse = getLse()) {
    SmallVector<int64_t> expectedLse = {q[0], q[1], q[2]};
    ArrayRef<int64_t> l = cast<ShapedType>(lse.getType()).getShape();
    if (!llvm::all_of(llvm::zip(l, expectedLse), [](auto p) {
          return dimsAgree(std::get<0>(p), std::get<1>(p));
        }) || l[1] != q[1])
      return emitOpError("lse shape must be [B, Hq, Nq] = ")
             << shapeToString(expectedLse) << ", got " << shapeToString(l);
  }

  if (std::optional<APFloat> s = getScale()) {
    double d = s->convertToDouble();
    if (!std::isfinite(d) || d <= 0.0)
      return emitOpError("scale must be finite and > 0, got ") << d;
  }
  if (static_cast<bool>(getWindowLeft()) != static_cast<bool>(getWindowRight()))
    return emitOpError("window needs both sizes, window(left, right)");
  for (std::optional<int64_t> w : {getWindowLeft(), getWindowRight()})
    if (w && *w < -1)
      return emitOpError("window sizes must be >= 0, or -1 for an unbounded "
                         "side, got ")
             << *w;
  if (std::optional<APFloat> c = getSoftcap()) {
    double d = c->convertToDouble();
    if (!std::isfinite(d) || d <= 0.0)
      return emitOpError("softcap must be finite and > 0, got ") << d;
  }
  // The kernels take the scale as f32 factors: scale * log2(e), or scale / c
  // and c with a soft cap. One that overflows to inf or underflows to 0
  // would give NaN or uniform weights instead of an error.
  double scale = getEffectiveScale();
  auto isF32Factor = [](double v) {
    float f = static_cast<float>(v);
    return std::isfinite(f) && std::fpclassify(f) == FP_NORMAL;
  };
  if (std::optional<APFloat> c = getSoftcap()) {
    double cap = c->convertToDouble();
    if (!isF32Factor(cap) || !isF32Factor(scale / cap))
      return emitOpError("scale / softcap (")
             << scale << " / " << cap
             << ") and softcap must be normal f32 numbers";
  } else if (!isF32Factor(scale * M_LOG2E)) {
    return emitOpError("scale * log2(e) must be a normal f32 number (scale "
                       "between about 8e-39 and 2.3e38), got scale ")
           << scale;
  }
  return success();
}

std::pair<std::optional<int64_t>, std::optional<int64_t>>
AttentionOp::getVisibleWindow() {
  std::optional<int64_t> left, right;
  if (std::optional<int64_t> l = getWindowLeft(); l && *l >= 0)
    left = *l;
  if (std::optional<int64_t> r = getWindowRight(); r && *r >= 0)
    right = *r;
  // Causal: no key after the diagonal, whatever the window says.
  if (getCausal())
    right = 0;
  return {left, right};
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (hasTensorSemantics())
    return;
  for (OpOperand *in : getDpsInputOperands())
    effects.emplace_back(MemoryEffects::Read::get(), in,
                         SideEffects::DefaultResource::get());
  for (OpOperand &out : getDpsInitsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &out,
                         SideEffects::DefaultResource::get());
}

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
