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
// Rules shared by fa.attention and fa.attention_backward
//
// The backward op takes the forward's operands, attributes and outputs, so
// both are checked by the same functions: one definition of what a valid
// attention is.
//===----------------------------------------------------------------------===//

static double effectiveScale(std::optional<APFloat> scale, Value query) {
  if (scale)
    return scale->convertToDouble();
  int64_t d = cast<ShapedType>(query.getType()).getShape()[3];
  return 1.0 / std::sqrt(static_cast<double>(d));
}

static int64_t groupSize(Value query, Value key, unsigned kvHeadDim = 1) {
  int64_t hq = cast<ShapedType>(query.getType()).getShape()[1];
  int64_t hkv = cast<ShapedType>(key.getType()).getShape()[kvHeadDim];
  return hq / hkv;
}

static std::pair<std::optional<int64_t>, std::optional<int64_t>>
visibleWindow(std::optional<int64_t> windowLeft,
              std::optional<int64_t> windowRight, bool causal) {
  std::optional<int64_t> left, right;
  if (windowLeft && *windowLeft >= 0)
    left = *windowLeft;
  if (windowRight && *windowRight >= 0)
    right = *windowRight;
  // Causal: no key after the diagonal, whatever the window says.
  if (causal)
    right = 0;
  return {left, right};
}

/// All operands tensors (then one result per output, of its type) or all
/// memrefs (then no results).
static LogicalResult verifyForm(Operation *op, ValueRange operands,
                                ValueRange outputs, ValueRange results) {
  bool tensorForm = isa<RankedTensorType>(operands.front().getType());
  for (auto [i, v] : llvm::enumerate(operands)) {
    Type t = v.getType();
    if (!isa<RankedTensorType, MemRefType>(t))
      return op->emitOpError("expects ranked tensor or memref operands, "
                             "operand #")
             << i << " is " << t;
    if (isa<RankedTensorType>(t) != tensorForm)
      return op->emitOpError("expects all operands to be ranked tensors or "
                             "all to be memrefs, got ")
             << operands.front().getType() << " and " << t << " (operand #"
             << i << ")";
  }
  if (tensorForm) {
    if (results.size() != outputs.size())
      return op->emitOpError("in tensor form expects one result per output (")
             << outputs.size() << "), got " << results.size();
    for (auto [res, out] : llvm::zip(results, outputs))
      if (res.getType() != out.getType())
        return op->emitOpError("result type ")
               << res.getType() << " does not match its output type "
               << out.getType();
  } else if (!results.empty()) {
    return op->emitOpError("in memref form has no results, got ")
           << results.size();
  }
  return success();
}

static LogicalResult checkRank(Operation *op, Value v, StringRef name,
                               int64_t rank, StringRef layout) {
  int64_t r = cast<ShapedType>(v.getType()).getRank();
  if (r != rank)
    return op->emitOpError() << name << " must have rank " << rank << " "
                             << layout << ", got rank " << r;
  return success();
}

static LogicalResult checkElementType(Operation *op, Value v, StringRef name,
                                      Type expected, StringRef expectedName) {
  Type t = getElementTypeOrSelf(v.getType());
  if (t != expected)
    return op->emitOpError() << name << " element type " << t
                             << " does not match " << expectedName
                             << " element type " << expected;
  return success();
}

/// A shape derived from the inputs (an output, or an input shaped like
/// one): dynamic B and N are fine, but the head count (dim 1) and the head
/// dim (dim 3 of a rank-4 shape) must be exactly the static expected ones.
static LogicalResult checkDerivedShape(Operation *op, Value v, StringRef name,
                                       StringRef layout,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> got = cast<ShapedType>(v.getType()).getShape();
  bool ok = llvm::all_of(llvm::zip(got, expected), [](auto p) {
    return dimsAgree(std::get<0>(p), std::get<1>(p));
  });
  ok = ok && got[1] == expected[1] &&
       (expected.size() < 4 || got[3] == expected[3]);
  if (!ok)
    return op->emitOpError() << name << " shape must be " << layout << " = "
                             << shapeToString(expected) << ", got "
                             << shapeToString(got);
  return success();
}

/// Q, K, V, O and (if present) LSE: ranks, element types, static head
/// counts and head dims, GQA grouping, and the shapes of O and LSE. With
/// `paged`, K and V are page pools [num_pages, page_size, Hkv, D].
static LogicalResult verifyAttentionShapes(Operation *op, Value query,
                                           Value key, Value value, Value out,
                                           Value lse, bool paged = false) {
  if (failed(checkRank(op, query, "query", 4, "[B, Hq, Nq, D]")) ||
      failed(checkRank(op, key, "key", 4,
                       paged ? "[num_pages, page_size, Hkv, D]"
                             : "[B, Hkv, Nk, D]")) ||
      failed(checkRank(op, value, "value", 4,
                       paged ? "[num_pages, page_size, Hkv, Dv]"
                             : "[B, Hkv, Nk, Dv]")) ||
      failed(checkRank(op, out, "out", 4, "[B, Hq, Nq, Dv]")))
    return failure();
  if (lse && failed(checkRank(op, lse, "lse", 3, "[B, Hq, Nq]")))
    return failure();

  // Element types.
  Type elemTy = getElementTypeOrSelf(query.getType());
  if (!isSupportedElementType(elemTy))
    return op->emitOpError("query element type must be f16, bf16 or f32, got ")
           << elemTy;
  if (failed(checkElementType(op, key, "key", elemTy, "query")) ||
      failed(checkElementType(op, value, "value", elemTy, "query")) ||
      failed(checkElementType(op, out, "out", elemTy, "query")))
    return failure();
  if (lse && !getElementTypeOrSelf(lse.getType()).isF32())
    return op->emitOpError("lse element type must be f32, got ")
           << getElementTypeOrSelf(lse.getType());

  ArrayRef<int64_t> q = cast<ShapedType>(query.getType()).getShape();
  SmallVector<int64_t> k(cast<ShapedType>(key.getType()).getShape());
  SmallVector<int64_t> v(cast<ShapedType>(value.getType()).getShape());
  if (paged) {
    // The pools: one page size and page count for K and V; below, the
    // rules of the dense form on [B, Hkv, Nk, D] views (B and Nk unknown).
    if (!dimsAgree(k[0], v[0]) || k[1] != v[1])
      return op->emitOpError("key and value pools must have the same pages, "
                             "got key ")
             << shapeToString(k) << " and value " << shapeToString(v);
    if (ShapedType::isDynamic(k[1]) || k[1] <= 0)
      return op->emitOpError("page_size (dim 1 of the key and value pools) "
                             "must be static and positive, got key ")
             << shapeToString(k);
    if (k[0] == 0)
      return op->emitOpError("the key and value pools need at least one "
                             "page, got key ")
             << shapeToString(k);
    int64_t dyn = ShapedType::kDynamic;
    k = {dyn, k[2], dyn, k[3]};
    v = {dyn, v[2], dyn, v[3]};
  }

  // Static head counts and head dims.
  if (ShapedType::isDynamic(q[3]) || ShapedType::isDynamic(k[3]))
    return op->emitOpError("head dim D must be static, got query ")
           << shapeToString(q) << " and key " << shapeToString(k);
  if (ShapedType::isDynamic(v[3]))
    return op->emitOpError("value head dim Dv must be static, got value ")
           << shapeToString(v);
  if (ShapedType::isDynamic(q[1]) || ShapedType::isDynamic(k[1]) ||
      ShapedType::isDynamic(v[1]))
    return op->emitOpError("head counts Hq and Hkv must be static, got query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);
  if (q[3] == 0 || v[3] == 0 || q[1] == 0 || k[1] == 0)
    return op->emitOpError(
               "head counts and head dims must be positive, got query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);

  // Cross-operand consistency.
  if (!dimsAgree(q[0], k[0]) || !dimsAgree(q[0], v[0]))
    return op->emitOpError("batch sizes differ: query ")
           << shapeToString(q) << ", key " << shapeToString(k) << ", value "
           << shapeToString(v);
  if (k[1] != v[1])
    return op->emitOpError(
               "key and value must have the same number of heads, got ")
           << k[1] << " and " << v[1];
  if (q[1] % k[1] != 0)
    return op->emitOpError("query heads (")
           << q[1] << ") must be a multiple of key/value heads (" << k[1]
           << ") for grouped-query attention";
  if (!dimsAgree(k[2], v[2]))
    return op->emitOpError("key and value sequence lengths differ: key ")
           << shapeToString(k) << ", value " << shapeToString(v);
  if (q[3] != k[3])
    return op->emitOpError("query head dim (")
           << q[3] << ") does not match key head dim (" << k[3] << ")";

  // O and LSE shapes. Dynamic B and Nq there are fine, a dynamic head count
  // or head dim is not: those must be the static Hq and Dv.
  if (failed(checkDerivedShape(op, out, "out", "[B, Hq, Nq, Dv]",
                               {q[0], q[1], q[2], v[3]})))
    return failure();
  if (lse && failed(checkDerivedShape(op, lse, "lse", "[B, Hq, Nq]",
                                      {q[0], q[1], q[2]})))
    return failure();
  return success();
}

/// scale, window and softcap.
static LogicalResult
verifyAttentionAttributes(Operation *op, std::optional<APFloat> scaleAttr,
                          std::optional<int64_t> windowLeft,
                          std::optional<int64_t> windowRight,
                          std::optional<APFloat> softcapAttr, Value query) {
  if (scaleAttr) {
    double d = scaleAttr->convertToDouble();
    if (!std::isfinite(d) || d <= 0.0)
      return op->emitOpError("scale must be finite and > 0, got ") << d;
  }
  if (static_cast<bool>(windowLeft) != static_cast<bool>(windowRight))
    return op->emitOpError("window needs both sizes, window(left, right)");
  for (std::optional<int64_t> w : {windowLeft, windowRight})
    if (w && *w < -1)
      return op->emitOpError("window sizes must be >= 0, or -1 for an "
                             "unbounded side, got ")
             << *w;
  for (std::optional<int64_t> w : {windowLeft, windowRight})
    if (w && *w >= kWindowSideLimit)
      return op->emitOpError("window sizes must be below 2^30 (")
             << kWindowSideLimit << "), got " << *w
             << ": a side that wide bounds no sequence; use -1 for an "
                "unbounded side";
  if (softcapAttr) {
    double d = softcapAttr->convertToDouble();
    if (!std::isfinite(d) || d <= 0.0)
      return op->emitOpError("softcap must be finite and > 0, got ") << d;
  }
  // The kernels take the scale as f32 factors: scale * log2(e), or scale / c
  // and c with a soft cap. One that overflows to inf or underflows to 0
  // would give NaN or uniform weights instead of an error.
  double scale = effectiveScale(scaleAttr, query);
  auto isF32Factor = [](double v) {
    float f = static_cast<float>(v);
    return std::isfinite(f) && std::fpclassify(f) == FP_NORMAL;
  };
  if (softcapAttr) {
    double cap = softcapAttr->convertToDouble();
    if (!isF32Factor(cap) || !isF32Factor(scale / cap))
      return op->emitOpError("scale / softcap (")
             << scale << " / " << cap
             << ") and softcap must be normal f32 numbers";
  } else if (!isF32Factor(scale * M_LOG2E)) {
    return op->emitOpError("scale * log2(e) must be a normal f32 number "
                           "(scale between about 8e-39 and 2.3e38), got scale ")
           << scale;
  }
  return success();
}

/// Memory effects of a destination-style op in memref form: reads its
/// inputs, writes its destinations. (The tensor form has none.)
static void getDestinationStyleEffects(
    DestinationStyleOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand *in : op.getDpsInputOperands())
    effects.emplace_back(MemoryEffects::Read::get(), in,
                         SideEffects::DefaultResource::get());
  for (OpOperand &out : op.getDpsInitsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &out,
                         SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() {
  return effectiveScale(getScale(), getQuery());
}

int64_t AttentionOp::getGroupSize() {
  return groupSize(getQuery(), getKey(), getKVHeadDim());
}

int64_t AttentionOp::getPageSize() {
  assert(isPaged() && "only the paged form has pages");
  return cast<ShapedType>(getKey().getType()).getDimSize(1);
}

/// key_lengths [B] and block_table [B, max_pages], both i32.
static LogicalResult verifyCacheOperands(AttentionOp op) {
  Value lengths = op.getKeyLengths(), table = op.getBlockTable();
  ArrayRef<int64_t> q = cast<ShapedType>(op.getQuery().getType()).getShape();
  if (table && !lengths)
    return op.emitOpError("block_table needs key_lengths: a page pool holds "
                          "no sequence lengths of its own");
  if (lengths) {
    auto ty = cast<ShapedType>(lengths.getType());
    if (ty.getRank() != 1 || !ty.getElementType().isSignlessInteger(32))
      return op.emitOpError("key_lengths must be a rank-1 i32 [B], got ")
             << lengths.getType();
    if (!dimsAgree(ty.getDimSize(0), q[0]))
      return op.emitOpError("key_lengths has ")
             << ty.getDimSize(0) << " entries for a batch of " << q[0];
  }
  if (table) {
    auto ty = cast<ShapedType>(table.getType());
    if (ty.getRank() != 2 || !ty.getElementType().isSignlessInteger(32))
      return op.emitOpError(
                 "block_table must be a rank-2 i32 [B, max_pages], got ")
             << table.getType();
    if (!dimsAgree(ty.getDimSize(0), q[0]))
      return op.emitOpError("block_table has ")
             << ty.getDimSize(0) << " rows for a batch of " << q[0];
    if (ty.getDimSize(1) == 0)
      return op.emitOpError("block_table needs at least one page per "
                            "sequence, got ")
             << table.getType();
  }
  return success();
}

/// cu_seqlens_q and cu_seqlens_k: i32 [S + 1], sequences packed along N of
/// a batch of one.
static LogicalResult verifyVarlenOperands(AttentionOp op) {
  Value cuQ = op.getCuSeqlensQ(), cuK = op.getCuSeqlensK();
  if (static_cast<bool>(cuQ) != static_cast<bool>(cuK))
    return op.emitOpError("cu_seqlens needs both arrays, cu_seqlens(q, k)");
  if (op.getMaxSeqlenQ() && !cuQ)
    return op.emitOpError("max_seqlen_q bounds the lengths of packed "
                          "sequences: it needs cu_seqlens");
  if (!cuQ)
    return success();
  if (op.getKeyLengths())
    return op.emitOpError("cu_seqlens (packed sequences) and key_lengths "
                          "(a K/V cache) cannot be combined");
  for (Value cu : {cuQ, cuK}) {
    auto ty = cast<ShapedType>(cu.getType());
    if (ty.getRank() != 1 || !ty.getElementType().isSignlessInteger(32))
      return op.emitOpError("cu_seqlens must be rank-1 i32 [S + 1], got ")
             << cu.getType();
    if (ty.getDimSize(0) == 0)
      return op.emitOpError("cu_seqlens needs S + 1 >= 1 entries, got ")
             << cu.getType();
  }
  if (!dimsAgree(cast<ShapedType>(cuQ.getType()).getDimSize(0),
                 cast<ShapedType>(cuK.getType()).getDimSize(0)))
    return op.emitOpError("cu_seqlens arrays must have one length, got ")
           << cuQ.getType() << " and " << cuK.getType();
  SmallVector<Value> packed = {op.getQuery(), op.getKey(), op.getValue()};
  llvm::append_range(packed, op.getOutputs());
  for (Value v : packed)
    if (cast<ShapedType>(v.getType()).getDimSize(0) != 1)
      return op.emitOpError("with cu_seqlens the sequences are packed along "
                            "N of a batch of one: dim 0 must be 1, got ")
             << v.getType();
  return success();
}

LogicalResult AttentionOp::verify() {
  SmallVector<Value> operands = {getQuery(), getKey(), getValue()};
  for (Value cache : {getKeyLengths(), getBlockTable(), getCuSeqlensQ(),
                      getCuSeqlensK()})
    if (cache)
      operands.push_back(cache);
  llvm::append_range(operands, getOutputs());
  if (getOutputs().empty() || getOutputs().size() > 2)
    return emitOpError("expects 1 or 2 outputs (O and optionally LSE), got ")
           << getOutputs().size();
  if (failed(verifyForm(*this, operands, getOutputs(), getResults())) ||
      failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getOut(), getLse(), isPaged())) ||
      failed(verifyCacheOperands(*this)) ||
      failed(verifyVarlenOperands(*this)))
    return failure();
  return verifyAttentionAttributes(*this, getScale(), getWindowLeft(),
                                   getWindowRight(), getSoftcap(), getQuery());
}

std::pair<std::optional<int64_t>, std::optional<int64_t>>
AttentionOp::getVisibleWindow() {
  return visibleWindow(getWindowLeft(), getWindowRight(), getCausal());
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!hasTensorSemantics())
    getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

double AttentionBackwardOp::getEffectiveScale() {
  return effectiveScale(getScale(), getQuery());
}

int64_t AttentionBackwardOp::getGroupSize() {
  return groupSize(getQuery(), getKey());
}

std::pair<std::optional<int64_t>, std::optional<int64_t>>
AttentionBackwardOp::getVisibleWindow() {
  return visibleWindow(getWindowLeft(), getWindowRight(), getCausal());
}

LogicalResult AttentionBackwardOp::verify() {
  SmallVector<Value> operands = {getQuery(), getKey(),     getValue(),
                                 getOut(),   getGradOut(), getLse()};
  llvm::append_range(operands, getOutputs());
  if (getOutputs().size() != 3)
    return emitOpError("expects 3 outputs (dQ, dK, dV), got ")
           << getOutputs().size();
  // The forward's rules for Q, K, V, O and LSE (required here: P is
  // recomputed from it).
  if (failed(verifyForm(*this, operands, getOutputs(), getResults())) ||
      failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getOut(), getLse())))
    return failure();

  // dO is shaped like O; dQ, dK, dV like Q, K, V; all of Q's element type.
  Type elemTy = getElementTypeOrSelf(getQuery().getType());
  auto checkLike = [&](Value v, StringRef name, StringRef layout,
                       Value like) -> LogicalResult {
    ArrayRef<int64_t> shape = cast<ShapedType>(like.getType()).getShape();
    if (failed(checkRank(*this, v, name, 4, layout)) ||
        failed(checkElementType(*this, v, name, elemTy, "query")) ||
        failed(checkDerivedShape(*this, v, name, layout, shape)))
      return failure();
    return success();
  };
  if (failed(checkLike(getGradOut(), "grad_out", "[B, Hq, Nq, Dv]",
                       getOut())) ||
      failed(checkLike(getGradQuery(), "grad_query", "[B, Hq, Nq, D]",
                       getQuery())) ||
      failed(checkLike(getGradKey(), "grad_key", "[B, Hkv, Nk, D]",
                       getKey())) ||
      failed(checkLike(getGradValue(), "grad_value", "[B, Hkv, Nk, Dv]",
                       getValue())))
    return failure();
  return verifyAttentionAttributes(*this, getScale(), getWindowLeft(),
                                   getWindowRight(), getSoftcap(), getQuery());
}

void AttentionBackwardOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!hasTensorSemantics())
    getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// The attention ops' clauses: scale(s) causal window(l, r) softcap(c)
//===----------------------------------------------------------------------===//

/// Parses the clauses in any order, each at most once (a second one, or one
/// in a place the fixed order would not take, used to end the op with an
/// unrelated error further on).
static ParseResult parseAttentionClauses(OpAsmParser &p, FloatAttr &scale,
                                         UnitAttr &causal,
                                         IntegerAttr &windowLeft,
                                         IntegerAttr &windowRight,
                                         FloatAttr &softcap) {
  Builder &b = p.getBuilder();
  auto parseFloat = [&](FloatAttr &attr) -> ParseResult {
    Attribute value;
    if (p.parseLParen() || p.parseAttribute(value, b.getF32Type()) ||
        p.parseRParen())
      return failure();
    attr = dyn_cast<FloatAttr>(value);
    if (!attr)
      return p.emitError(p.getCurrentLocation(), "expected a float");
    return success();
  };
  StringRef keyword;
  while (true) {
    SMLoc at = p.getCurrentLocation();
    if (failed(p.parseOptionalKeyword(
            &keyword, {"scale", "causal", "window", "softcap"})))
      return success();
    bool given = (keyword == "scale" && scale) ||
                 (keyword == "causal" && causal) ||
                 (keyword == "window" && windowLeft) ||
                 (keyword == "softcap" && softcap);
    if (given)
      return p.emitError(at, "'") << keyword << "' is given twice";
    if (keyword == "scale") {
      if (parseFloat(scale))
        return failure();
    } else if (keyword == "causal") {
      causal = b.getUnitAttr();
    } else if (keyword == "window") {
      int64_t left = 0, right = 0;
      if (p.parseLParen() || p.parseInteger(left) || p.parseComma() ||
          p.parseInteger(right) || p.parseRParen())
        return failure();
      windowLeft = b.getI64IntegerAttr(left);
      windowRight = b.getI64IntegerAttr(right);
    } else if (parseFloat(softcap)) {
      return failure();
    }
  }
}

/// Prints them in one order: scale, causal, window, softcap, each after a
/// space (the format puts none before the directive, so an op without
/// clauses has no double space).
static void printAttentionClauses(OpAsmPrinter &p, Operation *,
                                  FloatAttr scale, UnitAttr causal,
                                  IntegerAttr windowLeft,
                                  IntegerAttr windowRight, FloatAttr softcap) {
  auto clause = [&](StringRef keyword) { p << " " << keyword; };
  if (scale) {
    clause("scale");
    p << "(";
    p.printAttributeWithoutType(scale);
    p << ")";
  }
  if (causal)
    clause("causal");
  if (windowLeft && windowRight) {
    clause("window");
    p << "(" << windowLeft.getInt() << ", " << windowRight.getInt() << ")";
  }
  if (softcap) {
    clause("softcap");
    p << "(";
    p.printAttributeWithoutType(softcap);
    p << ")";
  }
}

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
