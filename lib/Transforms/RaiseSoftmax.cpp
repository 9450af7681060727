//===- RaiseSoftmax.cpp - Contractions, row reductions, softmax --------===//
//
// The two contractions of an attention (Q K^T and P V) in any dim order, and
// the softmax between them, named (linalg.softmax) or decomposed into a
// row max, an exponential, a row sum and a division, fused or not.
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
// Contractions and reductions
//===----------------------------------------------------------------------===//


static bool isZeroInit(Value init) {
  std::optional<double> c = tensorConstant(init);
  return c && *c == 0.0;
}

/// The body `yield(acc + cast(a) * cast(b))`, in any operand order.
static bool isMulAddBody(linalg::LinalgOp op) {
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

/// The [.., N] tensor `t` expands to [.., 1, N] (a unit dim inserted before
/// the last one, nothing else changed) and the expanded tensor has no other
/// use.
static std::optional<Value> throughUnitBeforeLastDim(Value t) {
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
static std::optional<std::pair<Value, AffineMap>> matchRowReduce(Value row,
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
    if (!isa<arith::AndIOp>(combine) || !isAllTrueTensor(init->get()))
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
static std::optional<Value> readsRowReduce(Value t, AffineMap readMap,
                                          RowKind kind) {
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
static std::optional<Value> readsRowSumReciprocal(const Point &p) {
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

} // namespace mlir::fa::raise::detail
