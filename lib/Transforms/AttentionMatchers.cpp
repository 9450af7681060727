//===- AttentionMatchers.cpp - Recognisers for unfused attention ----------===//
//
// Each recogniser is a small function over the LinalgOp interface, so that a
// named op (linalg.matmul, linalg.batch_matmul with or without transposed
// indexing maps, linalg.reduce, linalg.transpose, linalg.broadcast) and the
// equivalent linalg.generic are read the same way: by their indexing maps,
// iterator types and body.
//
// Inside a body, a "point" is a scalar SSA value of one op together with what
// that op's loop indices mean in the score domain. Following a block argument
// into the body of the op that produced the tensor it reads lets one
// recogniser see through a chain of elementwise ops, fused into one generic
// or not (sub then exp, or exp(sub)).
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"

#include "llvm/ADT/BitVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raise;

namespace {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// The value of a float scalar constant (arith.constant).
std::optional<double> scalarConstant(Value v) {
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// The scalar a tensor is filled with: linalg.fill, or its generalized form
/// (a parallel generic yielding a scalar input, what
/// --linalg-generalize-named-ops makes of a fill).
Value filledScalar(Value t) {
  if (auto fill = t.getDefiningOp<linalg::FillOp>())
    return fill.value();
  auto generic = t.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumDpsInputs() != 1 || generic.getNumReductionLoops() != 0)
    return Value();
  OpOperand *in = generic.getDpsInputOperand(0);
  if (isa<ShapedType>(in->get().getType()) ||
      generic.getBody()->getTerminator()->getOperand(0) !=
          generic.getMatchingBlockArgument(in))
    return Value();
  return in->get();
}

/// The value every element of tensor `t` holds when it is a splat constant,
/// a 0-d/one-element constant or a fill of a constant.
std::optional<double> tensorConstant(Value t) {
  if (Value scalar = filledScalar(t))
    return scalarConstant(scalar);
  DenseElementsAttr dense;
  if (!matchPattern(t, m_Constant(&dense)) ||
      !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  if (dense.isSplat())
    return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// -inf, or the lowest finite value of `type` (what `torch.finfo(t).min`
/// masks use): both make exp(s - max) exactly 0 for any score a row that
/// still sees a key can have. Other large negatives (-1e4) stay a bias.
bool isMaskingValue(double value, Type type, bool finfoMin = true) {
  if (std::isinf(value) && value < 0)
    return true;
  if (!finfoMin)
    return false;
  auto floatTy = dyn_cast<FloatType>(type);
  if (!floatTy)
    return false;
  APFloat lowest = APFloat::getLargest(floatTy.getFloatSemantics(), true);
  return value == lowest.convertToDouble();
}

//===----------------------------------------------------------------------===//
// Ops by shape
//===----------------------------------------------------------------------===//

/// A LinalgOp on tensors with one init and one result.
linalg::LinalgOp singleResultLinalg(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      !linalgOp.getBlock())
    return {};
  return linalgOp;
}

/// All loops parallel and the result written through the identity map: one
/// output element per loop point.
linalg::LinalgOp elementwiseProducer(Value t) {
  linalg::LinalgOp op = singleResultLinalg(t.getDefiningOp());
  if (!op || op.getNumReductionLoops() != 0)
    return {};
  AffineMap outMap = op.getIndexingMapMatchingResult(cast<OpResult>(t));
  if (!outMap.isIdentity())
    return {};
  return op;
}

/// The value the body of a single-result linalg op yields.
Value yieldedValue(linalg::LinalgOp op) {
  return op.getBlock()->getTerminator()->getOperand(0);
}

/// Looks through float extensions and truncations.
Value stripCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The input operand a body block argument of `op` reads, or null (an init
/// argument or a value from elsewhere).
OpOperand *inputOperandOf(linalg::LinalgOp op, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != op.getBlock() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return nullptr;
  return op.getDpsInputOperand(arg.getArgNumber());
}

//===----------------------------------------------------------------------===//
// Points and index forms
//===----------------------------------------------------------------------===//

/// An index as a linear form `i * qi + j * kj + c` of the score domain's query
/// row i and key j.
struct Lin {
  int64_t i = 0, j = 0, c = 0;
};

/// What each loop of an op means in the score domain (nullopt: a batch loop,
/// or anything that is not a linear form of i and j).
using Env = SmallVector<std::optional<Lin>>;

struct Point {
  Value v;
  // Mutable: the interface's accessors are not const.
  mutable linalg::LinalgOp op;
  Env env;
};

std::optional<Lin> linOfExpr(AffineExpr e, const Env &env) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return env[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return Lin{0, 0, c.getValue()};
  return std::nullopt;
}

/// The environment of the op producing a tensor that `map` reads in an op
/// with environment `env`, when that producer writes through the identity.
Env envThrough(AffineMap map, const Env &env) {
  Env result;
  for (AffineExpr e : map.getResults())
    result.push_back(linOfExpr(e, env));
  return result;
}

/// The index forms of the source of a static expand_shape/collapse_shape,
/// given those of its result (unit dims index 0; a dim that merges several
/// non-unit dims has no form).
Env formsThroughReshape(Operation *reshape, const Env &forms) {
  auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape);
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape);
  auto resultTy = cast<ShapedType>(reshape->getResult(0).getType());
  auto srcTy = cast<ShapedType>(reshape->getOperand(0).getType());
  Env src(srcTy.getRank(), std::nullopt);
  if (!resultTy.hasStaticShape() || !srcTy.hasStaticShape())
    return src;
  SmallVector<ReassociationIndices> groups =
      expand ? expand.getReassociationIndices()
             : collapse.getReassociationIndices();
  for (auto [g, group] : llvm::enumerate(groups)) {
    if (expand) {
      // src[g] = sum_k result[group[k]] * stride_k
      Lin sum;
      int64_t stride = 1;
      bool known = true;
      for (int64_t d : llvm::reverse(group)) {
        int64_t size = resultTy.getDimSize(d);
        if (size != 1) {
          if (!forms[d]) {
            known = false;
            break;
          }
          sum.i += forms[d]->i * stride;
          sum.j += forms[d]->j * stride;
          sum.c += forms[d]->c * stride;
        }
        stride *= size;
      }
      if (known)
        src[g] = sum;
      continue;
    }
    // collapse: result[g] merges src dims `group`; only one may be non-unit.
    int64_t nonUnit = -1, count = 0;
    for (int64_t d : group)
      if (srcTy.getDimSize(d) != 1) {
        nonUnit = d;
        ++count;
      }
    if (count > 1)
      continue;
    for (int64_t d : group)
      src[d] = Lin{0, 0, 0};
    if (nonUnit >= 0)
      src[nonUnit] = forms[g];
  }
  return src;
}

/// Follows `p` when it is a block argument reading a tensor that an
/// all-parallel identity-output op produced (possibly through static
/// reshapes): the point its body yields, with its loops' index forms.
std::optional<Point> enterProducer(const Point &p) {
  OpOperand *operand = inputOperandOf(p.op, p.v);
  if (!operand)
    return std::nullopt;
  Value t = operand->get();
  Env forms = envThrough(p.op.getMatchingIndexingMap(operand), p.env);
  while (Operation *def = t.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    forms = formsThroughReshape(def, forms);
    t = def->getOperand(0);
  }
  linalg::LinalgOp producer = elementwiseProducer(t);
  if (!producer)
    return std::nullopt;
  return Point{yieldedValue(producer), producer, forms};
}

/// True when `p` reads a whole score-domain tensor element by element.
bool readsIdentity(const Point &p, Value *tensor = nullptr) {
  OpOperand *operand = inputOperandOf(p.op, p.v);
  if (!operand || !p.op.getMatchingIndexingMap(operand).isIdentity())
    return false;
  if (tensor)
    *tensor = operand->get();
  return true;
}

/// Strips casts, then enters single-use elementwise producers read through
/// the identity map, as far as they go.
Point lookThrough(Point p) {
  p.v = stripCasts(p.v);
  Value t;
  while (readsIdentity(p, &t) && t.hasOneUse()) {
    std::optional<Point> next = enterProducer(p);
    if (!next)
      break;
    p = *next;
    p.v = stripCasts(p.v);
  }
  return p;
}

/// The constant a point holds (a scalar constant, or an element of a
/// constant tensor whatever the map).
std::optional<double> constantOf(const Point &p) {
  Value v = stripCasts(p.v);
  if (std::optional<double> c = scalarConstant(v))
    return c;
  if (OpOperand *operand = inputOperandOf(p.op, v))
    return tensorConstant(operand->get());
  return std::nullopt;
}

/// An integer index as a linear form of i and j.
std::optional<Point> enterProducer(const Point &p);

std::optional<Lin> linOfValue(const Point &p) {
  Value v = p.v;
  Operation *def = v.getDefiningOp();
  if (!def) {
    // An element of an index tensor some generator computed.
    if (std::optional<Point> inner = enterProducer(p))
      return linOfValue(*inner);
    return std::nullopt;
  }
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    if (index.getDim() >= p.env.size())
      return std::nullopt;
    return p.env[index.getDim()];
  }
  IntegerAttr intAttr;
  if (matchPattern(v, m_Constant(&intAttr)))
    return Lin{0, 0, intAttr.getValue().getSExtValue()};
  // Width changes are transparent for the small indices of a score matrix.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(def))
    return linOfValue({def->getOperand(0), p.op, p.env});
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    std::optional<Lin> a = linOfValue({def->getOperand(0), p.op, p.env});
    std::optional<Lin> b = linOfValue({def->getOperand(1), p.op, p.env});
    if (!a || !b)
      return std::nullopt;
    int64_t s = isa<arith::AddIOp>(def) ? 1 : -1;
    return Lin{a->i + s * b->i, a->j + s * b->j, a->c + s * b->c};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

/// What a mask leaves visible: a band around the diagonal, row i sees key
/// j iff i - j <= left and j - i <= right. Causal is {kNoBound, 0}; a
/// sliding window of w keys with causal is {w, 0}.
constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();
struct Band {
  int64_t left = kNoBound, right = kNoBound;
};

const Band kAllVisible{};

/// Both masks applied: what each leaves visible.
Band intersect(Band a, Band b) {
  return {std::min(a.left, b.left), std::min(a.right, b.right)};
}

/// The score matrix a mask applies to.
struct MaskDomain {
  int64_t nq, nk; // static, or the mask is not raised
  bool finfoMin;  // the lowest finite value masks like -inf
};

/// Reads `visible(i, j)` over the whole domain as a band: the widest
/// offsets of the visible pairs, which must then be exactly the visible set.
/// Enumerates, so only for masks stored as constants (bounded by their own
/// size).
std::optional<Band>
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
std::optional<SmallVector<int64_t>> elementIndex(ShapedType type, AffineMap map,
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

int64_t flatten(ShapedType type, ArrayRef<int64_t> index) {
  int64_t flat = 0;
  for (auto [size, at] : llvm::zip(type.getShape(), index))
    flat = flat * size + at;
  return flat;
}

constexpr int64_t kMaxEnumeratedMask = int64_t(1) << 22;

/// The elements of a constant mask tensor as numbers (i1 as 0 / 1): a
/// `dense` attribute, or a `dense_resource` blob (how torch-mlir stores a
/// model's buffers, e.g. GPT-2's `bias`, the causal mask it slices).
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

/// The band a constant mask tensor read by `operand` leaves visible, also
/// through a static, unit-stride `tensor.extract_slice` of it (GPT-2's
/// `bias[:, :, k - q : k, :k]`); `elementVisible` interprets one element
/// (its element type and value).
std::optional<Band> classifyConstantMask(
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
std::optional<Band> classifyCmp(arith::CmpIPredicate pred, Lin lhs,
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

std::optional<Band> classifyPredicate(const Point &p, MaskDomain dom,
                                      bool visibleWhenTrue);

/// An i1 constant true: a scalar, or any element of a splat/filled tensor.
bool isTrue(const Point &p) {
  IntegerAttr attr;
  if (matchPattern(p.v, m_Constant(&attr)))
    return attr.getType().isInteger(1) && attr.getValue().isAllOnes();
  OpOperand *operand = inputOperandOf(p.op, p.v);
  if (!operand)
    return false;
  Value t = operand->get();
  if (Value scalar = filledScalar(t))
    return matchPattern(scalar, m_Constant(&attr)) &&
           attr.getType().isInteger(1) && attr.getValue().isAllOnes();
  DenseElementsAttr dense;
  return matchPattern(t, m_Constant(&dense)) && dense.isSplat() &&
         dense.getElementType().isInteger(1) && dense.getSplatValue<bool>();
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

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

/// `out = lhs x rhs` over batch dims, each tensor's dims in any order
/// (einsum `bqhd,bkhd->bhqk`, a batch_matmul with transposed maps, ...). The
/// batch loops take one order (`BatchOrder`); each operand's dims are listed
/// for the roles [batch..., m, k] (lhs), [batch..., n, k] (rhs) and
/// [batch..., m, n] (result).
///
/// One batch loop may be missing from rhs (a second m loop, in linalg's
/// terms): the einsum form of GQA, `bkgqd,bksd->bkgqs`, where each K/V head
/// serves a group of query heads. It is `groupRole` (its index among the
/// batch loops), and rhsDims lists the other batch roles only.
struct Contraction {
  linalg::LinalgOp op;
  Value lhs, rhs;
  unsigned batchRank = 0;
  SmallVector<int64_t> lhsDims, rhsDims, outDims;
  std::optional<unsigned> groupRole;
  int64_t groupSize = 1;
};

/// Whose layout orders the batch loops, and must end with its two
/// non-batch dims: the result's (the scores, Q K^T) or the lhs's (P, in
/// P V: the scores' layout again).
enum class BatchOrder { Result, Lhs };

bool isZeroInit(Value init) {
  std::optional<double> c = tensorConstant(init);
  return c && *c == 0.0;
}

/// The body `yield(acc + cast(a) * cast(b))`, in any operand order.
bool isMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  Value lhsArg = body->getArgument(0), rhsArg = body->getArgument(1),
        accArg = body->getArgument(2);
  auto add = yieldedValue(op).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == accArg   ? add.getRhs()
                  : add.getRhs() == accArg ? add.getLhs()
                                           : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul || !add->hasOneUse() || !mul->hasOneUse())
    return false;
  Value a = stripCasts(mul.getLhs()), b = stripCasts(mul.getRhs());
  return (a == lhsArg && b == rhsArg) || (a == rhsArg && b == lhsArg);
}

std::optional<Contraction> matchContraction(Operation *maybeOp,
                                            BatchOrder order) {
  linalg::LinalgOp op = singleResultLinalg(maybeOp);
  if (!op || op.getNumDpsInputs() != 2 || op.getNumReductionLoops() != 1 ||
      !isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->m.size() > 2 ||
      dims->n.size() != 1 || dims->k.size() != 1 ||
      dims->batch.size() + dims->m.size() > 4)
    return std::nullopt;
  unsigned n = dims->n[0], k = dims->k[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // lhs and result hold every batch loop (a group loop too), rhs may not.
  unsigned rank = dims->batch.size() + dims->m.size() + 1;
  unsigned rhsRank = dims->batch.size() + 2;
  // Each map reads its tensor with plain loop dims, one per tensor dim.
  auto loopsOf = [&](AffineMap map,
                     unsigned r) -> std::optional<SmallVector<unsigned>> {
    if (map.getNumResults() != r || !map.isProjectedPermutation())
      return std::nullopt;
    SmallVector<unsigned> loops;
    for (AffineExpr e : map.getResults())
      loops.push_back(cast<AffineDimExpr>(e).getPosition());
    return loops;
  };
  std::optional<SmallVector<unsigned>> lhs = loopsOf(maps[0], rank),
                                       rhs = loopsOf(maps[1], rhsRank),
                                       out = loopsOf(maps[2], rank);
  if (!lhs || !rhs || !out)
    return std::nullopt;
  // The ordering tensor: batch loops first, then its two others in order;
  // its m is the contraction's, a second m loop a batch (group) loop.
  ArrayRef<unsigned> ordering = order == BatchOrder::Result ? *out : *lhs;
  unsigned m = ordering[rank - 2];
  unsigned last = order == BatchOrder::Result ? n : k;
  if (!llvm::is_contained(dims->m, m) || ordering[rank - 1] != last)
    return std::nullopt;
  SmallVector<unsigned> batch(ordering.take_front(rank - 2));
  std::optional<unsigned> groupRole;
  for (auto [role, loop] : llvm::enumerate(batch))
    if (loop != m && llvm::is_contained(dims->m, loop))
      groupRole = role;
  // Each role's position in a tensor's dims (the group role skipped where
  // `skipGroup`), or nullopt if one is missing.
  auto positions = [&](ArrayRef<unsigned> loops, unsigned a, unsigned b,
                       bool skipGroup) -> std::optional<SmallVector<int64_t>> {
    SmallVector<unsigned> roles;
    for (auto [role, loop] : llvm::enumerate(batch))
      if (!skipGroup || role != groupRole)
        roles.push_back(loop);
    roles.append({a, b});
    SmallVector<int64_t> result;
    for (unsigned loop : roles) {
      const unsigned *at = llvm::find(loops, loop);
      if (at == loops.end())
        return std::nullopt;
      result.push_back(at - loops.begin());
    }
    return result;
  };
  std::optional<SmallVector<int64_t>> lhsDims = positions(*lhs, m, k, false),
                                      rhsDims = positions(*rhs, n, k, true),
                                      outDims = positions(*out, m, n, false);
  if (!lhsDims || !rhsDims || !outDims)
    return std::nullopt;
  if (!isMulAddBody(op) || !isZeroInit(op.getDpsInitOperand(0)->get()))
    return std::nullopt;
  int64_t groupSize = 1;
  if (groupRole) {
    groupSize = cast<ShapedType>(op->getResult(0).getType())
                    .getDimSize((*outDims)[*groupRole]);
    if (ShapedType::isDynamic(groupSize))
      return std::nullopt;
  }
  return Contraction{op,
                     op.getDpsInputOperand(0)->get(),
                     op.getDpsInputOperand(1)->get(),
                     rank - 2,
                     std::move(*lhsDims),
                     std::move(*rhsDims),
                     std::move(*outDims),
                     groupRole,
                     groupSize};
}

enum class RowKind { Max, Sum, All };

bool isTrueInit(Value init) {
  IntegerAttr attr;
  if (Value scalar = filledScalar(init))
    return matchPattern(scalar, m_Constant(&attr)) &&
           attr.getType().isInteger(1) && attr.getValue().isAllOnes();
  DenseElementsAttr dense;
  return matchPattern(init, m_Constant(&dense)) && dense.isSplat() &&
         dense.getElementType().isInteger(1) && dense.getSplatValue<bool>();
}

/// The [.., N] tensor `t` expands to [.., 1, N] (a unit dim inserted before
/// the last one, nothing else changed) and the expanded tensor has no other
/// use.
std::optional<Value> throughUnitBeforeLastDim(Value t) {
  auto expand = t.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || !t.hasOneUse())
    return std::nullopt;
  ArrayRef<int64_t> src = expand.getSrcType().getShape();
  ArrayRef<int64_t> dst = expand.getResultType().getShape();
  if (dst.size() != src.size() + 1 || dst.size() < 3 ||
      dst[dst.size() - 2] != 1 || src.back() != dst.back() ||
      src.drop_back() != dst.drop_back(2))
    return std::nullopt;
  // One group of two (the unit and a neighbour), the rest alone.
  for (const ReassociationIndices &group : expand.getReassociationIndices())
    if (group.size() > 2 ||
        (group.size() == 2 &&
         !llvm::is_contained(group, static_cast<int64_t>(dst.size() - 2))))
      return std::nullopt;
  return expand.getSrc();
}

/// `row = reduce(input)` over the last dim: init filled with the identity of
/// the reduction, body `yield(combine(cast(in), acc))`. Other results of the
/// op (torch-mlir computes the argmax next to the max) must be unused.
/// Returns the input and the result's indexing map (which a consumer must
/// read it through).
std::optional<std::pair<Value, AffineMap>> matchRowReduce(Value row,
                                                          RowKind kind) {
  auto result = dyn_cast<OpResult>(row);
  if (!result)
    return std::nullopt;
  auto op = dyn_cast<linalg::LinalgOp>(result.getOwner());
  if (!op || !op.hasPureTensorSemantics() || !op.getBlock() ||
      op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInits() != op->getNumResults())
    return std::nullopt;
  unsigned k = result.getResultNumber();
  for (OpResult other : op->getResults())
    if (other != result && !other.use_empty())
      return std::nullopt;
  unsigned loops = op.getNumLoops();
  if (op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *init = op.getDpsInitOperand(k);
  if (!op.getMatchingIndexingMap(input).isIdentity())
    return std::nullopt;
  // The init drops the reduced dim, or keeps it as a unit dim (keepdim).
  AffineMap outMap = op.getMatchingIndexingMap(init);
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> keep;
  for (unsigned d = 0; d + 1 < loops; ++d)
    keep.push_back(getAffineDimExpr(d, ctx));
  AffineMap dropLast = AffineMap::get(loops, 0, keep, ctx);
  keep.push_back(getAffineConstantExpr(0, ctx));
  AffineMap keepUnit = AffineMap::get(loops, 0, keep, ctx);
  if (outMap != dropLast && outMap != keepUnit)
    return std::nullopt;
  // What the row was reduced from, and the map a reader of the row uses in
  // that tensor's loops.
  Value reduced = input->get();
  AffineMap rowMap = outMap;
  if (outMap == dropLast) {
    if (std::optional<Value> rows = throughUnitBeforeLastDim(reduced)) {
      // TOSA's reduce_* on [.., N]: the input expanded to [.., 1, N] and
      // reduced to [.., 1], the same as a keepdim reduction of [.., N].
      reduced = *rows;
      keep.pop_back();
      keep.pop_back();
      keep.push_back(getAffineConstantExpr(0, ctx));
      rowMap = AffineMap::get(loops - 1, 0, keep, ctx);
    }
  }

  Block *body = op.getBlock();
  Value in = body->getArgument(0), acc = body->getArgument(1 + k);
  Operation *combine =
      body->getTerminator()->getOperand(k).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 ||
      combine->getBlock() != body)
    return std::nullopt;
  Value a = stripCasts(combine->getOperand(0)),
        b = stripCasts(combine->getOperand(1));
  if (!((a == in && b == acc) || (a == acc && b == in)))
    return std::nullopt;
  if (kind == RowKind::All) {
    if (!isa<arith::AndIOp>(combine) || !isTrueInit(init->get()))
      return std::nullopt;
    return std::make_pair(reduced, rowMap);
  }
  std::optional<double> initValue = tensorConstant(init->get());
  if (!initValue)
    return std::nullopt;
  Type elemTy = getElementTypeOrSelf(row.getType());
  if (kind == RowKind::Max) {
    // maximumf and maxnumf differ only on NaN, which no masked score is.
    if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(combine) ||
        !isMaskingValue(*initValue, elemTy))
      return std::nullopt;
  } else if (!isa<arith::AddFOp>(combine) || *initValue != 0.0) {
    return std::nullopt;
  }
  return std::make_pair(reduced, rowMap);
}

/// `p` reads the per-row tensor produced by a reduction of `kind` through
/// the same map the reduction wrote it with (or, after an expand_shape that
/// appends the kept unit dim, through that map plus a trailing 0); returns
/// the reduced tensor.
std::optional<Value> readsRowReduce(Value t, AffineMap readMap, RowKind kind) {
  if (auto expand = t.getDefiningOp<tensor::ExpandShapeOp>()) {
    SmallVector<ReassociationIndices> groups =
        expand.getReassociationIndices();
    int64_t rank = expand.getResultType().getRank();
    bool appendsUnit =
        t.hasOneUse() && rank >= 2 &&
        expand.getResultType().getDimSize(rank - 1) == 1 &&
        groups.back() == ReassociationIndices{rank - 2, rank - 1} &&
        llvm::all_of(ArrayRef(groups).drop_back(),
                     [](const ReassociationIndices &g) { return g.size() == 1; });
    auto last = dyn_cast<AffineConstantExpr>(readMap.getResults().back());
    if (!appendsUnit || !last || last.getValue() != 0)
      return std::nullopt;
    readMap = readMap.dropResult(rank - 1);
    t = expand.getSrc();
  }
  if (!t.hasOneUse())
    return std::nullopt;
  std::optional<std::pair<Value, AffineMap>> reduce = matchRowReduce(t, kind);
  if (!reduce || readMap != reduce->second)
    return std::nullopt;
  return reduce->first;
}

std::optional<Value> readsRowReduce(const Point &p, RowKind kind) {
  OpOperand *operand = inputOperandOf(p.op, p.v);
  if (!operand)
    return std::nullopt;
  return readsRowReduce(operand->get(), p.op.getMatchingIndexingMap(operand),
                        kind);
}

/// `1 / rowsum(E)` at `p`, the divisor of a softmax written as a product:
/// `divf(1.0, L)` in the same body with L reading rowsum(E), or a block
/// argument reading a row tensor that an elementwise op computed as
/// `1.0 / L` (torch's `reciprocal`, keepdim or not). Returns E.
std::optional<Value> readsRowSumReciprocal(const Point &p) {
  auto isOne = [](std::optional<double> c) { return c && *c == 1.0; };
  Value v = stripCasts(p.v);
  if (auto div = v.getDefiningOp<arith::DivFOp>()) {
    if (!isOne(constantOf({div.getLhs(), p.op, p.env})))
      return std::nullopt;
    return readsRowReduce(lookThrough({div.getRhs(), p.op, p.env}),
                          RowKind::Sum);
  }
  OpOperand *operand = inputOperandOf(p.op, v);
  if (!operand || !operand->get().hasOneUse())
    return std::nullopt;
  linalg::LinalgOp recip = elementwiseProducer(operand->get());
  if (!recip || recip.getNumDpsInputs() != 1)
    return std::nullopt;
  auto div = stripCasts(yieldedValue(recip)).getDefiningOp<arith::DivFOp>();
  OpOperand *rowSum = recip.getDpsInputOperand(0);
  if (!div || stripCasts(div.getRhs()) != recip.getMatchingBlockArgument(rowSum) ||
      !recip.getMatchingIndexingMap(rowSum).isIdentity() ||
      !isOne(constantOf({div.getLhs(), recip, Env{}})))
    return std::nullopt;
  // The row sums, read through the map the product reads their reciprocal.
  return readsRowReduce(rowSum->get(), p.op.getMatchingIndexingMap(operand),
                        RowKind::Sum);
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

Env scoreEnv(unsigned rank) {
  Env env(rank - 2, std::nullopt);
  env.push_back(Lin{1, 0, 0});
  env.push_back(Lin{0, 1, 0});
  return env;
}

/// Steps back from `p` through multiplications and divisions by constants
/// (`x * c`, `c * x`, `x / c`), multiplying their factors into `factor`.
/// False when a factor is not finite and positive (it would not commute
/// with the max, or with a mask's -inf).
bool peelConstantFactors(Point &p, double &factor) {
  while (true) {
    p = lookThrough(p);
    Operation *def = p.v.getDefiningOp();
    if (!def || def->getBlock() != p.op.getBlock() ||
        !isa<arith::MulFOp, arith::DivFOp>(def))
      return true;
    Value scaled;
    std::optional<double> c = constantOf({def->getOperand(1), p.op, p.env});
    if (c)
      scaled = def->getOperand(0);
    else if (isa<arith::MulFOp>(def) &&
             (c = constantOf({def->getOperand(0), p.op, p.env})))
      scaled = def->getOperand(1);
    else
      return true; // not a scaling: the caller looks at this op
    if (!std::isfinite(*c) || *c <= 0.0)
      return false;
    factor *= isa<arith::DivFOp>(def) ? 1.0 / *c : *c;
    p.v = scaled;
  }
}

/// softmax over the last dim of c X, named or decomposed into
/// M = rowmax(X), E = exp(c (X - M)), L = rowsum(E), P = E / L. Returns X
/// and sets `factor` to c: constant factors on the exponential's argument
/// (on the difference, or the same on both its sides) and ln 2 for `exp2`,
/// as in exp2((X - M) * log2(e) * scale).
std::optional<Value> matchSoftmax(Value p, Operation *extraReader,
                                  double &factor) {
  factor = 1.0;
  auto rank = cast<ShapedType>(p.getType()).getRank();
  if (auto softmax = p.getDefiningOp<linalg::SoftmaxOp>()) {
    if (softmax.getDimension() != static_cast<uint64_t>(rank - 1) ||
        !softmax.getInput().hasOneUse() || extraReader)
      return std::nullopt;
    return softmax.getInput();
  }
  linalg::LinalgOp div = elementwiseProducer(p);
  if (!div)
    return std::nullopt;
  Env env = scoreEnv(rank);
  // P = E / rowsum(E), or E * (1 / rowsum(E)) in either order.
  Value yielded = stripCasts(yieldedValue(div)), numeratorValue;
  std::optional<Value> summed;
  if (auto divf = yielded.getDefiningOp<arith::DivFOp>()) {
    numeratorValue = divf.getLhs();
    summed = readsRowReduce(lookThrough({divf.getRhs(), div, env}),
                            RowKind::Sum);
  } else if (auto mulf = yielded.getDefiningOp<arith::MulFOp>()) {
    for (auto [factor, other] : {std::pair(mulf.getLhs(), mulf.getRhs()),
                                 std::pair(mulf.getRhs(), mulf.getLhs())}) {
      summed = readsRowSumReciprocal({other, div, env});
      if (summed) {
        numeratorValue = factor;
        break;
      }
    }
  }
  // Numerator: E, read whole; the sum is over E itself.
  Value e;
  if (!summed || !readsIdentity({stripCasts(numeratorValue), div, env}, &e) ||
      *summed != e || !llvm::hasNItems(e.getUses(), 2))
    return std::nullopt;

  // E = exp(X - M), through any split into elementwise ops.
  linalg::LinalgOp expOp = elementwiseProducer(e);
  if (!expOp)
    return std::nullopt;
  Point inExp = lookThrough({yieldedValue(expOp), expOp, env});
  Operation *exp = inExp.v.getDefiningOp();
  if (!isa_and_nonnull<math::ExpOp, math::Exp2Op>(exp))
    return std::nullopt;
  double expFactor = isa<math::Exp2Op>(exp) ? M_LN2 : 1.0; // 2^y = e^(y ln 2)
  Point inSub = {exp->getOperand(0), inExp.op, inExp.env};
  if (!peelConstantFactors(inSub, expFactor))
    return std::nullopt;
  auto sub = inSub.v.getDefiningOp<arith::SubFOp>();
  if (!sub)
    return std::nullopt;
  // c X - c M: both sides must carry the same factor (with different ones
  // the max would be that of other scores than the ones exponentiated).
  Value x;
  Point xPoint = {sub.getLhs(), inSub.op, inSub.env};
  Point mPoint = {sub.getRhs(), inSub.op, inSub.env};
  double xFactor = 1.0, mFactor = 1.0;
  if (!peelConstantFactors(xPoint, xFactor) ||
      !peelConstantFactors(mPoint, mFactor) || xFactor != mFactor ||
      !readsIdentity(xPoint, &x))
    return std::nullopt;
  std::optional<Value> maxed = readsRowReduce(mPoint, RowKind::Max);
  unsigned uses = extraReader ? 3 : 2;
  if (!maxed || *maxed != x || !llvm::hasNItems(x.getUses(), uses) ||
      (extraReader && !llvm::is_contained(x.getUsers(), extraReader)))
    return std::nullopt;
  factor = expFactor * xFactor;
  return x;
}

//===----------------------------------------------------------------------===//
// Scores: scale and mask, back to Q K^T
//===----------------------------------------------------------------------===//

struct ScoreChain {
  /// The product of the constant factors seen since the last tanh (walking
  /// back from the softmax): the scale, or the cap while above a tanh.
  double scale = 1.0;
  Band visible = kAllVisible;
  /// `c * tanh(x / c)` seen: c (the factors between the tanh and the
  /// softmax), after which a mask would be capped too.
  std::optional<double> cap;
  Value scores; // the Q K^T result
};

/// One factor of the scale: finite and positive, so that it commutes with
/// the masking values (-inf * c = -inf).
bool acceptFactor(double c, ScoreChain &chain, bool invert) {
  if (!std::isfinite(c) || c <= 0.0)
    return false;
  chain.scale *= invert ? 1.0 / c : c;
  return true;
}

bool analyzeScores(Point p, MaskDomain dom, ScoreChain &chain);

/// Looks through expand_shape/collapse_shape ops that only regroup the batch
/// dims (the last two dims stay groups of their own), each used once (the
/// first one may be shared when `sharedFirst`).
Value throughBatchReshapes(Value t, bool sharedFirst = false) {
  for (bool first = true;; first = false) {
    Operation *def = t.getDefiningOp();
    if (!def || !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
        (!(first && sharedFirst) && !t.hasOneUse()))
      return t;
    SmallVector<ReassociationIndices> groups =
        isa<tensor::ExpandShapeOp>(def)
            ? cast<tensor::ExpandShapeOp>(def).getReassociationIndices()
            : cast<tensor::CollapseShapeOp>(def).getReassociationIndices();
    if (groups.size() < 2 || groups.back().size() != 1 ||
        groups[groups.size() - 2].size() != 1)
      return t;
    t = def->getOperand(0);
  }
}

/// A whole score-domain tensor on the way back to Q K^T.
bool analyzeScoreTensor(Value t, MaskDomain dom, ScoreChain &chain,
                        bool shared = false) {
  if (!shared && !t.hasOneUse())
    return false;
  Value source = throughBatchReshapes(t, shared);
  if (source != t && !source.hasOneUse())
    return false;
  if (matchContraction(source.getDefiningOp(), BatchOrder::Result)) {
    chain.scores = source;
    return true;
  }
  linalg::LinalgOp producer = elementwiseProducer(source);
  if (!producer)
    return false;
  auto rank = cast<ShapedType>(source.getType()).getRank();
  return rank >= 2 && analyzeScores({yieldedValue(producer), producer,
                                     scoreEnv(rank)},
                                    dom, chain);
}

/// One more mask on the scores (several intersect). Before a soft cap it
/// would not mask: tanh makes -inf a finite -c.
bool addMask(std::optional<Band> band, ScoreChain &chain) {
  if (!band || chain.cap)
    return false;
  chain.visible = intersect(chain.visible, *band);
  return true;
}

/// One step back along the scores: a tensor boundary, a multiply or divide
/// by a constant, an additive mask, or a select that masks.
bool analyzeScores(Point p, MaskDomain dom, ScoreChain &chain) {
  p.v = stripCasts(p.v);
  Value t;
  if (readsIdentity(p, &t))
    return analyzeScoreTensor(t, dom, chain);
  Operation *def = p.v.getDefiningOp();
  if (!def || def->getBlock() != p.op.getBlock())
    return false;
  auto at = [&](Value v) { return Point{v, p.op, p.env}; };
  if (auto mul = dyn_cast<arith::MulFOp>(def)) {
    for (int side = 0; side < 2; ++side)
      if (std::optional<double> c = constantOf(at(def->getOperand(side))))
        return acceptFactor(*c, chain, false) &&
               analyzeScores(at(def->getOperand(1 - side)), dom, chain);
    return false;
  }
  if (auto div = dyn_cast<arith::DivFOp>(def)) {
    std::optional<double> c = constantOf(at(div.getRhs()));
    return c && acceptFactor(*c, chain, true) &&
           analyzeScores(at(div.getLhs()), dom, chain);
  }
  if (isa<arith::AddFOp>(def)) {
    for (int side = 0; side < 2; ++side) {
      Value maskSide = def->getOperand(side);
      // The scores side is the one that leads back to Q K^T; try the mask
      // reading on the other side first.
      if (std::optional<Band> v = classifyAdditiveMask(at(maskSide), dom))
        return addMask(v, chain) &&
               analyzeScores(at(def->getOperand(1 - side)), dom, chain);
    }
    return false;
  }
  if (auto tanh = dyn_cast<math::TanhOp>(def)) {
    // A soft cap c * tanh(x / c): the factors since the softmax are c, and
    // the ones from here back to Q K^T give x / c.
    if (chain.cap)
      return false;
    chain.cap = chain.scale;
    chain.scale = 1.0;
    return analyzeScores(at(tanh.getOperand()), dom, chain);
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    Type type = select.getType();
    Point cond = at(select.getCondition());
    std::optional<double> onTrue = constantOf(at(select.getTrueValue()));
    std::optional<double> onFalse = constantOf(at(select.getFalseValue()));
    if (onFalse && isMaskingValue(*onFalse, type, dom.finfoMin))
      return addMask(classifyPredicate(cond, dom, true), chain) &&
             analyzeScores(at(select.getTrueValue()), dom, chain);
    if (onTrue && isMaskingValue(*onTrue, type, dom.finfoMin))
      return addMask(classifyPredicate(cond, dom, false), chain) &&
             analyzeScores(at(select.getFalseValue()), dom, chain);
    return false;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Operands: layout ops, GQA broadcasts, casts and scale factors
//===----------------------------------------------------------------------===//

struct PeelOptions {
  bool allowFactor = false; // fold `x * c` into the scale (Q and K)
  bool allowGroup = false;  // peel a head broadcast (K and V)
  Type elemType;            // fa.attention's element type
};

/// A single-input, all-parallel op whose two maps are permutations:
/// a copy, transpose, cast or scaling of a whole tensor. Returns, for each
/// result dim, the input dim it reads.
std::optional<SmallVector<int64_t>> permutationOf(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!in.isPermutation() || !out.isPermutation())
    return std::nullopt;
  SmallVector<int64_t> inputDimOfLoop(op.getNumLoops());
  for (auto [dim, e] : llvm::enumerate(in.getResults()))
    inputDimOfLoop[cast<AffineDimExpr>(e).getPosition()] = dim;
  SmallVector<int64_t> result;
  for (AffineExpr e : out.getResults())
    result.push_back(inputDimOfLoop[cast<AffineDimExpr>(e).getPosition()]);
  return result;
}

/// The body of a whole-tensor copy: `yield(f(in))` with `f` casts and, when
/// allowed, multiplications or divisions by constants. Accumulates those.
bool isScaledCopyBody(linalg::LinalgOp op, bool allowFactor, double &factor) {
  Value in = op.getBlock()->getArgument(0);
  Value v = stripCasts(yieldedValue(op));
  double f = 1.0;
  while (v != in) {
    Operation *def = v.getDefiningOp();
    if (!allowFactor || !def || !isa<arith::MulFOp, arith::DivFOp>(def))
      return false;
    int side = -1;
    std::optional<double> c;
    if ((c = scalarConstant(stripCasts(def->getOperand(1)))))
      side = 0;
    else if (isa<arith::MulFOp>(def) &&
             (c = scalarConstant(stripCasts(def->getOperand(0)))))
      side = 1;
    if (side < 0 || !std::isfinite(*c) || *c <= 0.0)
      return false;
    f *= isa<arith::DivFOp>(def) ? 1.0 / *c : *c;
    v = stripCasts(def->getOperand(side));
  }
  factor *= f;
  return true;
}

/// Element type of a tensor value.
Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// One step back through a layout, cast or scale op; false when `view.base`
/// has no producer this knows how to see through.
bool peelOne(OperandView &view, const PeelOptions &options) {
  Value x = view.base;
  Operation *def = x.getDefiningOp();
  if (!def)
    return false;
  auto shapeOf = [](Value v) { return cast<ShapedType>(v.getType()); };
  auto isUnit = [&](Value v, int64_t d) { return shapeOf(v).getDimSize(d) == 1; };
  // Dims of a value not listed in a view must be static unit dims; they sit
  // in front of the batch factors when the rewrite reshapes.
  auto listed = [&](int64_t d) { return llvm::is_contained(view.dims, d); };

  if (linalg::LinalgOp op = singleResultLinalg(def)) {
    if (op.getNumDpsInputs() != 1)
      return false;
    Value input = op.getDpsInputOperand(0)->get();
    // A whole-tensor copy: permutation, cast, scaling.
    if (std::optional<SmallVector<int64_t>> perm = permutationOf(op)) {
      // Never look past a rounding the program does; an extension is seen
      // through when it starts from fa.attention's element type.
      if (elemOf(input) != elemOf(x) &&
          (elemOf(input) != options.elemType ||
           elemOf(input).getIntOrFloatBitWidth() >
               elemOf(x).getIntOrFloatBitWidth()))
        return false;
      double factor = view.factor;
      if (!isScaledCopyBody(op, options.allowFactor, factor))
        return false;
      view.factor = factor;
      for (int64_t &d : view.dims)
        d = (*perm)[d];
      view.base = input;
      return true;
    }
    // A head broadcast (GQA/MQA): the input misses one loop (or reads it at
    // 0 from a unit dim), which must be the innermost batch factor (each
    // head repeated: repeat_kv) or the one just outside it (the heads
    // tiled: torch's `repeat`).
    if (!options.allowGroup || view.group != 1 ||
        op.getNumReductionLoops() != 0 || elemOf(input) != elemOf(x) ||
        yieldedValue(op) != op.getBlock()->getArgument(0))
      return false;
    AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    unsigned numBatch = view.numBatchFactors();
    if (!out.isIdentity() || numBatch == 0)
      return false;
    SmallVector<int64_t> inputDimOfLoop(op.getNumLoops(), -1);
    for (auto [dim, e] : llvm::enumerate(in.getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        inputDimOfLoop[d.getPosition()] = dim;
      else if (!isa<AffineConstantExpr>(e) ||
               cast<AffineConstantExpr>(e).getValue() != 0 ||
               !isUnit(input, dim))
        return false;
    }
    int64_t repeated = view.dims[numBatch - 1];
    bool outer = false;
    if (inputDimOfLoop[repeated] >= 0 && numBatch >= 2 &&
        inputDimOfLoop[view.dims[numBatch - 2]] < 0) {
      repeated = view.dims[numBatch - 2];
      outer = true;
    }
    int64_t groupSize = shapeOf(x).getDimSize(repeated);
    if (ShapedType::isDynamic(groupSize))
      return false;
    for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
      bool missing = inputDimOfLoop[loop] < 0;
      if (missing != (static_cast<int64_t>(loop) == repeated))
        return false;
      if (missing)
        continue;
      // Every other loop must be read exactly once (no diagonal reads).
      if (llvm::count_if(in.getResults(), [&](AffineExpr e) {
            auto d = dyn_cast<AffineDimExpr>(e);
            return d && d.getPosition() == loop;
          }) != 1)
        return false;
    }
    SmallVector<int64_t> dims;
    for (int64_t d : view.dims)
      if (d != repeated)
        dims.push_back(inputDimOfLoop[d]);
    view.dims = dims;
    view.group = groupSize;
    view.groupOuter = outer;
    view.base = input;
    return true;
  }

  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    Value src = collapse.getSrc();
    SmallVector<int64_t> dims;
    unsigned numBatch = view.numBatchFactors();
    for (auto [pos, d] : llvm::enumerate(view.dims)) {
      ReassociationIndices &g = groups[d];
      if (pos >= numBatch && g.size() != 1)
        return false; // N or D merged with something
      llvm::append_range(dims, g);
    }
    // The unlisted result dims are unit dims; so must their sources be.
    for (auto [d, g] : llvm::enumerate(groups))
      if (!listed(d) && llvm::any_of(g, [&](int64_t s) { return !isUnit(src, s); }))
        return false;
    view.dims.assign(dims.begin(), dims.end());
    // N and D kept their positions at the end.
    view.base = src;
    return true;
  }

  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    // Seen through when it only adds unit dims, or splits one batch factor
    // into batch factors listed next to each other in the same order.
    SmallVector<ReassociationIndices> groups =
        expand.getReassociationIndices();
    SmallVector<int64_t> sourceOf(shapeOf(x).getRank());
    for (auto [s, g] : llvm::enumerate(groups))
      for (int64_t d : g)
        sourceOf[d] = s;
    for (int64_t d = 0; d < shapeOf(x).getRank(); ++d)
      if (!listed(d) && !isUnit(x, d))
        return false;
    SmallVector<int64_t> dims;
    unsigned numBatch = view.numBatchFactors();
    unsigned newBatch = 0;
    for (auto [pos, d] : llvm::enumerate(view.dims)) {
      int64_t s = sourceOf[d];
      bool continuesRun = pos > 0 && sourceOf[view.dims[pos - 1]] == s;
      if (continuesRun) {
        // A second factor from the same source dim: only among batch
        // factors, in increasing order.
        if (pos >= numBatch || view.dims[pos - 1] >= d)
          return false;
        continue;
      }
      if (llvm::is_contained(dims, s))
        return false;
      dims.push_back(s);
      if (pos < numBatch)
        ++newBatch;
    }
    // N and D must each come from a source dim of their own.
    if (dims.size() != newBatch + 2)
      return false;
    view.dims = dims;
    view.base = expand.getSrc();
    return true;
  }
  return false;
}

OperandView peelOperand(Value x, SmallVector<int64_t> dims,
                        const PeelOptions &options) {
  OperandView view{x, std::move(dims)};
  // Bounded: every step moves to a producer, so the walk ends at a block
  // argument or an op it does not know; the bound is for safety only.
  for (int steps = 0; steps < 64; ++steps) {
    OperandView next = view;
    if (!peelOne(next, options))
      break;
    view = next;
  }
  return view;
}

//===----------------------------------------------------------------------===//
// The whole attention
//===----------------------------------------------------------------------===//

/// The single-input elementwise op that only casts `t` (or null).
linalg::LinalgOp castOnlyOp(Operation *op) {
  linalg::LinalgOp linalgOp = singleResultLinalg(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1 ||
      linalgOp.getNumReductionLoops() != 0 ||
      !linalgOp.getIndexingMapsArray()[0].isIdentity() ||
      !linalgOp.getIndexingMapsArray()[1].isIdentity())
    return {};
  if (stripCasts(yieldedValue(linalgOp)) != linalgOp.getBlock()->getArgument(0))
    return {};
  return linalgOp;
}

bool isSupportedElem(Type t) { return t.isF16() || t.isBF16() || t.isF32(); }

/// PyTorch's decomposition of scaled_dot_product_attention zeroes the rows
/// whose scores are all -inf: P = select(all(X == -inf) per row, 0, P').
/// fa.attention gives such rows 0 too (and no row the raise accepts is
/// empty), so P' stands for P. Returns the op reading X for the test (an
/// extra use of X the softmax matcher must allow), sets `x` and moves `p`.
Operation *matchEmptyRowZeroing(Value &p, Value &x) {
  linalg::LinalgOp zeroing = elementwiseProducer(p);
  if (!zeroing)
    return nullptr;
  auto select =
      stripCasts(yieldedValue(zeroing)).getDefiningOp<arith::SelectOp>();
  if (!select)
    return nullptr;
  Env env = scoreEnv(cast<ShapedType>(p.getType()).getRank());
  std::optional<double> zero =
      constantOf({select.getTrueValue(), zeroing, env});
  Value kept;
  if (!zero || *zero != 0.0 ||
      !readsIdentity({select.getFalseValue(), zeroing, env}, &kept) ||
      !kept.hasOneUse())
    return nullptr;
  std::optional<Value> isNegInf =
      readsRowReduce({select.getCondition(), zeroing, env}, RowKind::All);
  if (!isNegInf || !isNegInf->hasOneUse())
    return nullptr;
  linalg::LinalgOp test = elementwiseProducer(*isNegInf);
  if (!test)
    return nullptr;
  auto cmp = stripCasts(yieldedValue(test)).getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return nullptr;
  std::optional<double> negInf = constantOf({cmp.getRhs(), test, env});
  Value scores;
  if (!negInf || !std::isinf(*negInf) || *negInf > 0 ||
      !readsIdentity({stripCasts(cmp.getLhs()), test, env}, &scores))
    return nullptr;
  x = scores;
  p = kept;
  return test;
}

/// Whether dims `a` and `b` of `t` are provably equal: statically, or (a
/// dynamic sequence) through the ops that sized them, e.g. Q and K both
/// projected from one input (upstream's value-bounds analysis).
bool sameSize(Value t, int64_t a, int64_t b) {
  auto type = cast<ShapedType>(t.getType());
  if (!type.isDynamicDim(a) && !type.isDynamicDim(b))
    return type.getDimSize(a) == type.getDimSize(b);
  FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual({t, a}, {t, b});
  return succeeded(equal) && *equal;
}

} // namespace

std::optional<AttentionMatch> mlir::fa::raise::matchAttention(
    linalg::LinalgOp pvOp, const MatchOptions &options, std::string *whyNot) {
  // Past the softmax the program is attention: a miss there is worth a word.
  auto miss = [&](StringRef why) -> std::optional<AttentionMatch> {
    if (whyNot)
      *whyNot = why.str();
    return std::nullopt;
  };
  std::optional<Contraction> pv = matchContraction(pvOp, BatchOrder::Lhs);
  if (!pv)
    return std::nullopt;
  AttentionMatch match;
  match.batchRank = pv->batchRank;

  // O, and a rounding of it right after (f32 P V, result in f16/bf16).
  match.root = pvOp;
  Value result = pvOp->getResult(0);
  if (result.hasOneUse())
    if (linalg::LinalgOp cast = castOnlyOp(*result.user_begin()))
      if (isSupportedElem(elemOf(cast->getResult(0))) &&
          elemOf(cast->getResult(0)).getIntOrFloatBitWidth() <
              elemOf(result).getIntOrFloatBitWidth())
        match.root = cast;
  Type elemType = elemOf(match.root->getResult(0));
  if (!isSupportedElem(elemType)) {
    double unused;
    if (whyNot && pv->lhs.hasOneUse() &&
        matchSoftmax(pv->lhs, /*extraReader=*/nullptr, unused))
      return miss("fa.attention takes f16, bf16 or f32, not this element "
                  "type");
    return std::nullopt;
  }

  // P, through roundings of the probabilities and batch reshapes.
  Value p = pv->lhs;
  while (true) {
    if (!p.hasOneUse()) {
      // The probabilities returned too (a model's output_attentions).
      double unused;
      if (whyNot && matchSoftmax(p, /*extraReader=*/nullptr, unused))
        return miss("the probabilities P are used elsewhere too (fa.attention "
                    "does not produce them)");
      return std::nullopt;
    }
    Value next = throughBatchReshapes(p);
    if (linalg::LinalgOp cast = castOnlyOp(next.getDefiningOp()))
      next = cast.getDpsInputOperand(0)->get();
    if (next == p)
      break;
    p = next;
  }
  Value zeroedX;
  Operation *zeroing = matchEmptyRowZeroing(p, zeroedX);
  double softmaxFactor;
  std::optional<Value> x = matchSoftmax(p, zeroing, softmaxFactor);
  if (!x || (zeroing && zeroedX != *x))
    return std::nullopt;

  // Back from X to Q K^T.
  auto scoreType = cast<ShapedType>(x->getType());
  int64_t xRank = scoreType.getRank();
  MaskDomain dom{scoreType.getDimSize(xRank - 2), scoreType.getDimSize(xRank - 1),
                 options.finfoMinMasks};
  // The softmax's own factor is the last one applied to the scores.
  ScoreChain chain;
  chain.scale = softmaxFactor;
  if (!analyzeScoreTensor(*x, dom, chain, /*shared=*/true))
    return miss("the ops between Q K^T and the softmax are not read as a scale, "
                "band masks and a soft cap, each result used once");
  std::optional<Contraction> qk =
      matchContraction(chain.scores.getDefiningOp(), BatchOrder::Result);
  if (!qk)
    return miss("the scores do not come from a contraction Q K^T");
  unsigned qkRank = qk->batchRank + 2;
  // Bounds no pair of the domain reaches bound nothing (the mask of a
  // constant tensor gives them exactly).
  Band band = chain.visible;
  if (!ShapedType::isDynamic(dom.nq) && band.left >= dom.nq - 1)
    band.left = kNoBound;
  if (!ShapedType::isDynamic(dom.nk) && band.right >= dom.nk - 1)
    band.right = kNoBound;
  if (band.left != kNoBound || band.right != kNoBound) {
    // Ours is bottom-right aligned, a mask of i and j top-left: the same only
    // when Nq == Nk. Every row must see its own key (the diagonal): a row
    // the program masks whole gives NaN, where fa.attention gives 0.
    if (!sameSize(chain.scores, qkRank - 2, qkRank - 1))
      return miss("a causal or window mask needs Nq == Nk (static sizes, or "
                  "proven equal): the program's mask is top-left aligned, "
                  "fa.attention's bottom-right");
    if (band.left < 0 || band.right < 0)
      return miss("the mask hides the diagonal: a row would see no key");
    // FlashAttention-2's convention: causal is a window's right edge at 0.
    // Any other bounded side is a window (-1 for an unbounded one): the
    // left edge, and a right edge past the diagonal (j <= i + r, r > 0).
    match.causal = band.right == 0;
    if (band.left != kNoBound || (band.right != kNoBound && band.right > 0)) {
      match.windowLeft = band.left == kNoBound ? -1 : band.left;
      match.windowRight = band.right == kNoBound ? -1 : band.right;
    }
  }

  // Q [batch, Nq, D], K [batch, Nk, D], V [batch, Nk, Dv], O [batch, Nq,
  // Dv]: each tensor's dims in that order.
  // A group loop of the contractions (einsum GQA) is the same batch role
  // in both. fa.attention's query head h reads K/V head h / G: Q's and O's
  // batch factors are listed with the group innermost, wherever the
  // program has it.
  if (qk->groupRole != pv->groupRole || qk->groupSize != pv->groupSize)
    return miss("Q K^T and P V differ in their group loop");
  SmallVector<int64_t> qDims = qk->lhsDims, oDims = pv->outDims;
  if (qk->groupRole) {
    auto groupInnermost = [&](SmallVector<int64_t> &dims) {
      int64_t groupDim = dims[*qk->groupRole];
      dims.erase(dims.begin() + *qk->groupRole);
      dims.insert(dims.begin() + qk->batchRank - 1, groupDim);
    };
    groupInnermost(qDims);
    groupInnermost(oDims);
  }
  PeelOptions qkOptions{true, false, elemType};
  match.query = peelOperand(qk->lhs, qDims, qkOptions);
  qkOptions.allowGroup = true;
  match.key = peelOperand(qk->rhs, qk->rhsDims, qkOptions);
  SmallVector<int64_t> vDims = pv->rhsDims; // [batch, Dv, Nk]
  std::swap(vDims[vDims.size() - 2], vDims[vDims.size() - 1]);
  match.value = peelOperand(pv->rhs, vDims, PeelOptions{false, true, elemType});
  match.resultDims = oDims;
  if (qk->groupRole) {
    // K and V not broadcast again on their way in.
    if (match.key.group != 1 || match.value.group != 1)
      return miss("K or V is broadcast over the heads twice");
    match.key.group = match.value.group = qk->groupSize;
  }
  if (match.key.group != match.value.group ||
      match.key.groupOuter != match.value.groupOuter)
    return miss("K and V are broadcast to the query heads differently");

  // With a cap c, the factors back to Q K^T scale S / c.
  match.softcap = chain.cap;
  match.scale = chain.scale * match.query.factor * match.key.factor *
                chain.cap.value_or(1.0);
  if (!std::isfinite(match.scale) || match.scale <= 0.0)
    return miss("the scale is not finite and positive");

  // What fa.attention can represent: element types never narrowed on the
  // way in, static head dims.
  for (OperandView *view : {&match.query, &match.key, &match.value}) {
    Type t = elemOf(view->base);
    // Narrower inputs are extended (f16/bf16 programs computing in f32);
    // wider ones would have to be rounded, which the program does not do.
    if (t != elemType && !(elemType.isF32() && (t.isF16() || t.isBF16())))
      return miss("an input is wider than the result (it would have to be "
                  "rounded)");
    auto shape = cast<ShapedType>(view->base.getType());
    if (shape.isDynamicDim(view->dims.back()))
      return miss("a head dim is dynamic");
  }
  return match;
}
