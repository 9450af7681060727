//===- RaiseValueTracing.cpp - Constants, ops by shape, points ----------===//
//
// Inside a body, a "point" is a scalar SSA value of one op together with what
// that op's loop indices mean in the score domain. Following a block argument
// into the body of the op that produced the tensor it reads lets one
// recogniser see through a chain of elementwise ops, fused into one generic
// or not (sub then exp, or exp(sub)).
//
//===----------------------------------------------------------------------===//

#include "RaiseRecognisers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace mlir::fa::raise::detail {

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

bool isAllTrueTensor(Value t) {
  IntegerAttr attr;
  if (Value scalar = filledScalar(t))
    return matchPattern(scalar, m_Constant(&attr)) &&
           attr.getType().isInteger(1) && attr.getValue().isAllOnes();
  DenseElementsAttr dense;
  return matchPattern(t, m_Constant(&dense)) && dense.isSplat() &&
         dense.getElementType().isInteger(1) && dense.getSplatValue<bool>();
}

/// -inf, or the lowest finite value of `type` (what `torch.finfo(t).min`
/// masks use): both make exp(s - max) exactly 0 for any score a row that
/// still sees a key can have. Other large negatives (-1e4) stay a bias.
bool isMaskingValue(double value, Type type, bool finfoMin) {
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


std::optional<Lin> linOfExpr(AffineExpr e, const Env &env) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return env[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return Lin{0, 0, c.getValue()};
  return std::nullopt;
}

/// The environment of the op producing a tensor that `map` reads in an op
/// with environment `env`, when that producer writes through the identity.
static Env envThrough(AffineMap map, const Env &env) {
  Env result;
  for (AffineExpr e : map.getResults())
    result.push_back(linOfExpr(e, env));
  return result;
}

/// The index forms of the source of a static expand_shape/collapse_shape,
/// given those of its result (unit dims index 0; a dim that merges several
/// non-unit dims has no form).
static Env formsThroughReshape(Operation *reshape, const Env &forms) {
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
bool readsIdentity(const Point &p, Value *tensor) {
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

Env scoreEnv(unsigned rank) {
  Env env(rank - 2, std::nullopt);
  env.push_back(Lin{1, 0, 0});
  env.push_back(Lin{0, 1, 0});
  return env;
}

} // namespace mlir::fa::raise::detail
