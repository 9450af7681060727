//===- RaiseMasks.cpp - Masks as bands around the diagonal ------------===//
//
// A mask is read as the band of (row, key) pairs it leaves visible: index
// comparisons of slope 1 give its edges symbolically; constants (dense or
// dense_resource, sliced or not) are enumerated over the static score shape
// and must be exactly a band.
//
//===----------------------------------------------------------------------===//

#include "RaiseRecognisers.h"

#include "llvm/ADT/BitVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace mlir::fa::raise::detail {

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//


/// Both masks applied: what each leaves visible.
Band intersect(Band a, Band b) {
  return {std::min(a.left, b.left), std::min(a.right, b.right)};
}


/// Reads `visible(i, j)` over the whole domain as a band: the widest
/// offsets of the visible pairs, which must then be exactly the visible set.
/// Enumerates, so only for masks stored as constants (bounded by their own
/// size).
static std::optional<Band>
classifyByEnumeration(MaskDomain dom,
                      function_ref<std::optional<bool>(int64_t, int64_t)> vis) {
  int64_t left = INT64_MIN, right = INT64_MIN;
  llvm::BitVector visible(dom.nq * dom.nk);
  for (int64_t i = 0; i < dom.nq; ++i)
    for (int64_t j = 0; j < dom.nk; ++j) {
      std::optional<bool> v = vis(i, j);
      if (!v)
        return std::nullopt;
      if (*v) {
        visible.set(i * dom.nk + j);
        left = std::max(left, i - j);
        right = std::max(right, j - i);
      }
    }
  if (left == INT64_MIN)
    return std::nullopt; // nothing visible
  for (int64_t i = 0; i < dom.nq; ++i)
    for (int64_t j = 0; j < dom.nk; ++j)
      if (visible.test(i * dom.nk + j) != (i - j <= left && j - i <= right))
        return std::nullopt;
  return Band{left, right};
}

/// Reads element (i, j) of a tensor of type `type` that `map` indexes: the
/// map's results must be linear forms of i and j, or constants, or index a
/// unit dim.
static std::optional<SmallVector<int64_t>> elementIndex(ShapedType type, AffineMap map,
                                                 const Env &env, int64_t i,
                                                 int64_t j) {
  SmallVector<int64_t> index;
  for (auto [dim, e] : llvm::enumerate(map.getResults())) {
    std::optional<Lin> lin = linOfExpr(e, env);
    int64_t size = type.getDimSize(dim);
    if (!lin) {
      if (size != 1)
        return std::nullopt;
      index.push_back(0);
      continue;
    }
    int64_t at = lin->i * i + lin->j * j + lin->c;
    if (at < 0 || at >= size)
      return std::nullopt;
    index.push_back(at);
  }
  return index;
}

static int64_t flatten(ShapedType type, ArrayRef<int64_t> index) {
  int64_t flat = 0;
  for (auto [size, at] : llvm::zip(type.getShape(), index))
    flat = flat * size + at;
  return flat;
}

static constexpr int64_t kMaxEnumeratedMask = int64_t(1) << 22;

/// The elements of a constant mask tensor as numbers (i1 as 0 / 1): a
/// `dense` attribute, or a `dense_resource` blob (how torch-mlir stores a
/// model's buffers, e.g. GPT-2's `bias`, the causal mask it slices).
namespace {
class MaskConstant {
public:
  /// The constant `v` holds, static-shaped, with i1 or float elements.
  static std::optional<MaskConstant> of(Value v) {
    ElementsAttr attr;
    if (!matchPattern(v, m_Constant(&attr)) ||
        !attr.getShapedType().hasStaticShape())
      return std::nullopt;
    MaskConstant c;
    c.type = attr.getShapedType();
    Type elem = c.type.getElementType();
    if (!elem.isInteger(1) && !isa<FloatType>(elem))
      return std::nullopt;
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      c.dense = dense;
      return c;
    }
    auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
    AsmResourceBlob *blob =
        resource ? resource.getRawHandle().getBlob() : nullptr;
    if (!blob)
      return std::nullopt;
    // One byte per i1 (as torch-mlir writes them), else the bit width.
    c.bytes = elem.isInteger(1) ? 1 : elem.getIntOrFloatBitWidth() / 8;
    c.raw = blob->getData();
    if (c.bytes == 0 ||
        static_cast<int64_t>(c.raw.size()) != c.type.getNumElements() * c.bytes)
      return std::nullopt;
    return c;
  }

  Type elementType() const { return type.getElementType(); }
  ShapedType shapedType() const { return type; }

  double at(int64_t flat) const {
    Type elem = type.getElementType();
    if (dense) {
      if (elem.isInteger(1))
        return dense.getValues<bool>()[flat] ? 1.0 : 0.0;
      return dense.getValues<APFloat>()[flat].convertToDouble();
    }
    uint64_t bits = 0; // little-endian, as the blob is written
    for (int64_t b = 0; b < bytes; ++b)
      bits |= uint64_t(static_cast<uint8_t>(raw[flat * bytes + b])) << (8 * b);
    if (elem.isInteger(1))
      return bits ? 1.0 : 0.0;
    auto floatTy = cast<FloatType>(elem);
    return APFloat(floatTy.getFloatSemantics(),
                   APInt(floatTy.getWidth(), bits))
        .convertToDouble();
  }

private:
  ShapedType type;
  DenseElementsAttr dense;
  ArrayRef<char> raw;
  int64_t bytes = 0;
};
} // namespace

/// The band a constant mask tensor read by `operand` leaves visible, also
/// through a static, unit-stride `tensor.extract_slice` of it (GPT-2's
/// `bias[:, :, k - q : k, :k]`); `elementVisible` interprets one element
/// (its element type and value).
static std::optional<Band> classifyConstantMask(
    const Point &p, OpOperand *operand, MaskDomain dom,
    function_ref<std::optional<bool>(Type, double)> elementVisible) {
  Value read = operand->get();
  auto readType = cast<ShapedType>(read.getType());
  SmallVector<int64_t> offsets(readType.getRank(), 0);
  if (auto slice = read.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() ||
        slice.getSourceType().getRank() != readType.getRank() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return std::nullopt;
    offsets.assign(slice.getStaticOffsets().begin(),
                   slice.getStaticOffsets().end());
    read = slice.getSource();
  }
  std::optional<MaskConstant> mask = MaskConstant::of(read);
  if (!mask || !readType.hasStaticShape() || ShapedType::isDynamic(dom.nq) ||
      ShapedType::isDynamic(dom.nk) ||
      dom.nq > kMaxEnumeratedMask / std::max<int64_t>(dom.nk, 1))
    return std::nullopt;
  AffineMap map = p.op.getMatchingIndexingMap(operand);
  return classifyByEnumeration(dom, [&](int64_t i, int64_t j)
                                        -> std::optional<bool> {
    std::optional<SmallVector<int64_t>> index =
        elementIndex(readType, map, p.env, i, j);
    if (!index)
      return std::nullopt;
    for (auto [at, offset] : llvm::zip(*index, offsets))
      at += offset;
    return elementVisible(mask->elementType(),
                          mask->at(flatten(mask->shapedType(), *index)));
  });
}

/// The half-plane a comparison of two linear forms leaves visible: one side
/// of a band, j - i <= r (written i >= j, i + 1 > j, j - i <= 0, ...: the
/// lower triangle for r = 0) or i - j <= l (j >= i - l: a sliding window's
/// left edge), when `visibleWhenTrue`; masked when true, its complement.
static std::optional<Band> classifyCmp(arith::CmpIPredicate pred, Lin lhs,
                                      Lin rhs, bool visibleWhenTrue) {
  using P = arith::CmpIPredicate;
  // Unsigned comparisons agree with the signed ones when both sides are
  // non-negative for all i, j >= 0.
  auto nonNegative = [](Lin l) { return l.i >= 0 && l.j >= 0 && l.c >= 0; };
  bool isUnsigned = pred == P::uge || pred == P::ugt || pred == P::ule ||
                    pred == P::ult;
  if (isUnsigned && !(nonNegative(lhs) && nonNegative(rhs)))
    return std::nullopt;
  if (!visibleWhenTrue)
    pred = arith::invertPredicate(pred);
  // Now: visible iff lhs (pred) rhs, i.e. d (pred) 0 with d = lhs - rhs.
  Lin d{lhs.i - rhs.i, lhs.j - rhs.j, lhs.c - rhs.c};
  switch (pred) {
  case P::sle: case P::ule: case P::slt: case P::ult:
    d = Lin{-d.i, -d.j, -d.c};
    pred = (pred == P::sle || pred == P::ule) ? P::sge : P::sgt;
    break;
  case P::sge: case P::uge: pred = P::sge; break;
  case P::sgt: case P::ugt: pred = P::sgt; break;
  default:
    return std::nullopt;
  }
  // visible iff d >= 0 (or d > 0, i.e. d - 1 >= 0) with d = +-(i - j) + c.
  if (pred == P::sgt)
    d.c -= 1;
  if (d.i == 1 && d.j == -1)
    return Band{kNoBound, d.c}; // j - i <= c
  if (d.i == -1 && d.j == 1)
    return Band{d.c, kNoBound}; // i - j <= c
  return std::nullopt;
}

/// An i1 constant true: a scalar, or any element of a splat/filled tensor.
static bool isTrue(const Point &p) {
  IntegerAttr attr;
  if (matchPattern(p.v, m_Constant(&attr)))
    return attr.getType().isInteger(1) && attr.getValue().isAllOnes();
  OpOperand *operand = inputOperandOf(p.op, p.v);
  return operand && isAllTrueTensor(operand->get());
}

/// A boolean-valued point: a comparison of indices, a negation, a
/// conjunction of visible sides (or disjunction of masked ones), or an
/// element of a (constant or generated) i1 tensor.
std::optional<Band> classifyPredicate(const Point &p, MaskDomain dom,
                                      bool visibleWhenTrue) {
  Value v = p.v;
  if (auto cmp = v.getDefiningOp<arith::CmpIOp>()) {
    std::optional<Lin> lhs = linOfValue({cmp.getLhs(), p.op, p.env});
    std::optional<Lin> rhs = linOfValue({cmp.getRhs(), p.op, p.env});
    if (!lhs || !rhs)
      return std::nullopt;
    return classifyCmp(cmp.getPredicate(), *lhs, *rhs, visibleWhenTrue);
  }
  if (auto x = v.getDefiningOp<arith::XOrIOp>()) {
    IntegerAttr one;
    for (int side = 0; side < 2; ++side)
      if (matchPattern(x->getOperand(side), m_Constant(&one)) &&
          one.getValue().isAllOnes())
        return classifyPredicate({x->getOperand(1 - side), p.op, p.env}, dom,
                                 !visibleWhenTrue);
    return std::nullopt;
  }
  if (Operation *op = v.getDefiningOp();
      op && isa<arith::AndIOp, arith::OrIOp>(op)) {
    // `x and true` (torch-mlir's tril of an all-true mask).
    if (isa<arith::AndIOp>(op))
      for (int side = 0; side < 2; ++side)
        if (isTrue({op->getOperand(side), p.op, p.env}))
          return classifyPredicate({op->getOperand(1 - side), p.op, p.env},
                                   dom, visibleWhenTrue);
    // Visible where both sides are visible: `a and b` read as visibility,
    // `a or b` as masking (a sliding window's two edges).
    if (isa<arith::AndIOp>(op) != visibleWhenTrue)
      return std::nullopt;
    std::optional<Band> a =
        classifyPredicate({op->getOperand(0), p.op, p.env}, dom, visibleWhenTrue);
    std::optional<Band> b =
        classifyPredicate({op->getOperand(1), p.op, p.env}, dom, visibleWhenTrue);
    if (!a || !b)
      return std::nullopt;
    return intersect(*a, *b);
  }
  OpOperand *operand = inputOperandOf(p.op, v);
  if (!operand)
    return std::nullopt;
  if (std::optional<Point> inner = enterProducer(p))
    return classifyPredicate(*inner, dom, visibleWhenTrue);
  return classifyConstantMask(
      p, operand, dom,
      [&](Type elem, double value) -> std::optional<bool> {
        if (!elem.isInteger(1))
          return std::nullopt;
        return (value != 0.0) == visibleWhenTrue;
      });
}

/// An additive mask term: 0 where visible, a masking value elsewhere. As a
/// select between two constants, or an element of a constant or generated
/// tensor.
std::optional<Band> classifyAdditiveMask(const Point &p, MaskDomain dom) {
  Value v = stripCasts(p.v);
  if (auto select = v.getDefiningOp<arith::SelectOp>()) {
    Type type = select.getType();
    std::optional<double> onTrue =
        constantOf({select.getTrueValue(), p.op, p.env});
    std::optional<double> onFalse =
        constantOf({select.getFalseValue(), p.op, p.env});
    if (!onTrue || !onFalse)
      return std::nullopt;
    Point cond{select.getCondition(), p.op, p.env};
    if (*onTrue == 0.0 && isMaskingValue(*onFalse, type, dom.finfoMin))
      return classifyPredicate(cond, dom, /*visibleWhenTrue=*/true);
    if (*onFalse == 0.0 && isMaskingValue(*onTrue, type, dom.finfoMin))
      return classifyPredicate(cond, dom, /*visibleWhenTrue=*/false);
    return std::nullopt;
  }
  OpOperand *operand = inputOperandOf(p.op, v);
  if (!operand)
    return std::nullopt;
  if (std::optional<Point> inner = enterProducer({v, p.op, p.env}))
    return classifyAdditiveMask(*inner, dom);
  return classifyConstantMask(
      {v, p.op, p.env}, operand, dom,
      [&](Type elem, double x) -> std::optional<bool> {
        if (!isa<FloatType>(elem))
          return std::nullopt;
        if (x == 0.0)
          return true;
        if (isMaskingValue(x, elem, dom.finfoMin))
          return false;
        return std::nullopt;
      });
}

} // namespace mlir::fa::raise::detail
