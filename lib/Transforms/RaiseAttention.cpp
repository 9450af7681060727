//===- RaiseAttention.cpp - unfused attention -> fa.attention -------------===//
//
// The rewrite half of --fa-raise-attention: AttentionMatchers.cpp finds an
// attention written with upstream ops and describes where Q, K and V come
// from; this file builds the [B, H, N, D] operands fa.attention wants from
// those tensors, creates the op and hands its O back to the program in the
// program's own layout. The ops that computed the scores, the softmax and
// P V are left to die (their only use was the chain that is replaced).
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FARAISEATTENTION
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raise;

namespace {

/// Shapes used below: the static sizes of a tensor value.
ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

/// `x` with its dims permuted so that dim k of the result is dim perm[k].
Value transposed(OpBuilder &b, Location loc, Value x,
                 ArrayRef<int64_t> perm) {
  bool identity = true;
  for (auto [k, d] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(k) == d;
  if (identity)
    return x;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> permuted;
  for (int64_t d : perm)
    permuted.push_back(sizes[d]);
  Value init = tensor::EmptyOp::create(b, loc, permuted,
                                       getElementTypeOrSelf(x.getType()));
  return linalg::TransposeOp::create(b, loc, x, init, perm).getResult()[0];
}

/// [F..., N, D] with `numBatch` leading batch factors -> [F / heads, heads,
/// N, D], flattening the factors in order.
Value toHeads(OpBuilder &b, Location loc, Value x, unsigned numBatch,
              int64_t heads) {
  ArrayRef<int64_t> shape = shapeOf(x);
  auto type = cast<RankedTensorType>(x.getType());
  OpFoldResult n = tensor::getMixedSize(b, loc, x, numBatch);
  OpFoldResult d = tensor::getMixedSize(b, loc, x, numBatch + 1);
  if (numBatch == 2 && shape[1] == heads)
    return x;
  if (numBatch == 0) {
    auto result = RankedTensorType::get({1, 1, shape[0], shape[1]},
                                        type.getElementType());
    return tensor::ExpandShapeOp::create(
        b, loc, result, x, {{0, 1, 2}, {3}},
        {b.getIndexAttr(1), b.getIndexAttr(1), n, d});
  }
  if (numBatch > 1) {
    ReassociationIndices batch;
    for (unsigned k = 0; k < numBatch; ++k)
      batch.push_back(k);
    x = tensor::CollapseShapeOp::create(
        b, loc, x,
        SmallVector<ReassociationIndices>{batch, {numBatch}, {numBatch + 1}});
  }
  int64_t flat = shapeOf(x)[0];
  OpFoldResult outer;
  int64_t outerStatic = ShapedType::kDynamic;
  if (ShapedType::isDynamic(flat)) {
    Value total = tensor::DimOp::create(b, loc, x, 0);
    Value h = arith::ConstantIndexOp::create(b, loc, heads);
    outer = arith::DivUIOp::create(b, loc, total, h).getResult();
  } else {
    outerStatic = flat / heads;
    outer = b.getIndexAttr(outerStatic);
  }
  auto result = RankedTensorType::get(
      {outerStatic, heads, shapeOf(x)[1], shapeOf(x)[2]},
      type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, result, x, {{0, 1}, {2}, {3}},
                                       {outer, b.getIndexAttr(heads), n, d});
}

/// The operand in fa.attention's layout [B, heads, N, D] and element type.
Value buildOperand(OpBuilder &b, Location loc, const OperandView &view,
                   int64_t heads, Type elemType) {
  // Unlisted dims are static unit dims: outermost batch factors.
  unsigned rank = shapeOf(view.base).size();
  SmallVector<int64_t> perm;
  for (unsigned d = 0; d < rank; ++d)
    if (!llvm::is_contained(view.dims, d))
      perm.push_back(d);
  unsigned numBatch = perm.size() + view.numBatchFactors();
  llvm::append_range(perm, view.dims);
  Value x = transposed(b, loc, view.base, perm);
  if (getElementTypeOrSelf(x.getType()) != elemType)
    x = arith::ExtFOp::create(
        b, loc, cast<RankedTensorType>(x.getType()).clone(elemType), x);
  return toHeads(b, loc, x, numBatch, heads);
}

/// [B, outer * inner, N, D] with its heads regrouped [inner, outer]: head
/// o * inner + i becomes head i * outer + o. fa.attention's query head h
/// reads K/V head h / G; a program that tiles the K/V heads (torch's
/// `repeat`) has its query head h read h mod Hkv, so Q's heads go in as
/// swapHeadFactors(Q, G, Hkv) and O's come out as swapHeadFactors(O, Hkv, G).
Value swapHeadFactors(OpBuilder &b, Location loc, Value x, int64_t outer,
                      int64_t inner) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> split = {sizes[0], b.getIndexAttr(outer),
                                     b.getIndexAttr(inner), sizes[2], sizes[3]};
  SmallVector<int64_t> splitShape = {type.getDimSize(0), outer, inner,
                                     type.getDimSize(2), type.getDimSize(3)};
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}, {4}};
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, type.clone(splitShape), x, groups, split);
  Value swapped = transposed(b, loc, expanded, {0, 2, 1, 3, 4});
  return tensor::CollapseShapeOp::create(b, loc, swapped, groups);
}

/// The size of the innermost batch factor of a view (1 when there is none),
/// or kDynamic.
int64_t innermostFactor(const OperandView &view) {
  if (view.numBatchFactors() == 0)
    return 1;
  return shapeOf(view.base)[view.dims[view.numBatchFactors() - 1]];
}

/// The head count of K/V, when it can be chosen: with GQA the innermost
/// batch factor of K and V; otherwise the innermost factor Q, K and V share
/// (so [B, H] stays as the program had it), or 1.
std::optional<std::pair<int64_t, int64_t>>
chooseHeads(const AttentionMatch &m) {
  int64_t group = m.key.group;
  int64_t kvHeads = innermostFactor(m.key);
  if (group > 1) {
    if (ShapedType::isDynamic(kvHeads) || innermostFactor(m.value) != kvHeads)
      return std::nullopt;
    return std::make_pair(kvHeads * group, kvHeads);
  }
  int64_t qHeads = innermostFactor(m.query);
  if (!ShapedType::isDynamic(qHeads) && qHeads == kvHeads &&
      innermostFactor(m.value) == qHeads)
    return std::make_pair(qHeads, qHeads);
  return std::make_pair(int64_t(1), int64_t(1));
}

/// O [B, H, Nq, Dv] back in the shape `type` of the replaced result:
/// [Nq, Dv], or [batch factors..., Nq, Dv] with B * H elements over the
/// factors (at most one of them dynamic).
Value toProgramLayout(OpBuilder &b, Location loc, Value o,
                      RankedTensorType type) {
  unsigned rank = type.getRank();
  Value result = o;
  if (rank == 2) {
    result = tensor::CollapseShapeOp::create(
        b, loc, o, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  } else if (rank != 4 || shapeOf(o)[1] != type.getDimSize(1)) {
    Value flat = tensor::CollapseShapeOp::create(
        b, loc, o, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    if (rank > 3) {
      // [B*H, N, D] -> [factors..., N, D]; a dynamic factor is what the
      // static ones leave of B*H.
      ArrayRef<int64_t> factors = type.getShape().drop_back(2);
      int64_t staticProduct = 1;
      for (int64_t f : factors)
        if (!ShapedType::isDynamic(f))
          staticProduct *= f;
      SmallVector<OpFoldResult> sizes;
      for (int64_t f : factors) {
        if (!ShapedType::isDynamic(f)) {
          sizes.push_back(b.getIndexAttr(f));
          continue;
        }
        Value total = tensor::DimOp::create(b, loc, flat, 0);
        Value known = arith::ConstantIndexOp::create(b, loc, staticProduct);
        sizes.push_back(arith::DivUIOp::create(b, loc, total, known).getResult());
      }
      sizes.push_back(tensor::getMixedSize(b, loc, flat, 1));
      sizes.push_back(tensor::getMixedSize(b, loc, flat, 2));
      ReassociationIndices batch;
      for (unsigned d = 0; d + 2 < rank; ++d)
        batch.push_back(d);
      auto expanded = RankedTensorType::get(
          type.getShape().drop_back(2), type.getElementType());
      SmallVector<int64_t> shape(expanded.getShape());
      shape.push_back(shapeOf(flat)[1]);
      shape.push_back(shapeOf(flat)[2]);
      result = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()), flat,
          {batch, {rank - 2}, {rank - 1}}, sizes);
    } else {
      result = flat;
    }
  }
  if (result.getType() != type)
    result = tensor::CastOp::create(b, loc, type, result);
  return result;
}

void eraseDeadChain(RewriterBase &rewriter, SmallVector<Operation *> seeds,
                    DenseSet<Operation *> &erased);

/// Builds the fa.attention for `m` and replaces the root's result.
LogicalResult raise(RewriterBase &rewriter, const AttentionMatch &m,
                    std::string &whyNot) {
  Operation *root = m.root;
  whyNot = "its batch dims do not split into fa.attention's B and heads";
  auto resultType = cast<RankedTensorType>(root->getResult(0).getType());
  // O's batch factors must split back from B * H: one of them at most may
  // be dynamic, and then no static one 0 (it is B * H over their product).
  unsigned dynamicFactors = 0;
  bool zeroFactor = false;
  for (int64_t role : ArrayRef(m.resultDims).drop_back(2)) {
    dynamicFactors += resultType.isDynamicDim(role);
    zeroFactor |= resultType.getDimSize(role) == 0;
  }
  if (dynamicFactors > 1 || (dynamicFactors == 1 && zeroFactor))
    return failure();
  std::optional<std::pair<int64_t, int64_t>> heads = chooseHeads(m);
  if (!heads)
    return failure();
  // With GQA the query's batch must split into [B, Hq]: Hq must divide it.
  Type elemType = resultType.getElementType();
  Location loc = root->getLoc();
  rewriter.setInsertionPoint(root);
  Value q = buildOperand(rewriter, loc, m.query, heads->first, elemType);
  int64_t group = m.key.group, kvHeads = heads->second;
  if (m.key.groupOuter)
    q = swapHeadFactors(rewriter, loc, q, group, kvHeads);
  Value k = buildOperand(rewriter, loc, m.key, heads->second, elemType);
  Value v = buildOperand(rewriter, loc, m.value, heads->second, elemType);

  SmallVector<OpFoldResult> oSizes = tensor::getMixedSizes(rewriter, loc, q);
  oSizes[3] = tensor::getMixedSize(rewriter, loc, v, 3);
  Value init = tensor::EmptyOp::create(rewriter, loc, oSizes, elemType);
  auto attention = AttentionOp::create(
      rewriter, loc, TypeRange{init.getType()}, q, k, v, /*key_lengths=*/Value(),
      /*block_table=*/Value(), /*cu_seqlens_q=*/Value(),
      /*cu_seqlens_k=*/Value(), /*max_seqlen_q=*/Value(), ValueRange{init},
      rewriter.getF32FloatAttr(static_cast<float>(m.scale)),
      m.causal ? rewriter.getUnitAttr() : UnitAttr(),
      m.windowLeft ? rewriter.getI64IntegerAttr(*m.windowLeft) : IntegerAttr(),
      m.windowRight ? rewriter.getI64IntegerAttr(*m.windowRight)
                    : IntegerAttr(),
      m.softcap ? rewriter.getF32FloatAttr(static_cast<float>(*m.softcap))
                : FloatAttr());
  LogicalResult verified = success();
  {
    // A safety net, not a diagnostic: what the matcher could not check (a
    // batch that does not split into the chosen heads, a scale that is not
    // a finite positive f32) leaves the program as it was; `explain` says
    // which rule.
    std::string first;
    ScopedDiagnosticHandler quiet(root->getContext(), [&](Diagnostic &d) {
      if (first.empty())
        first = d.str();
      return success();
    });
    verified = mlir::verify(attention);
    if (failed(verified) && !first.empty())
      whyNot = "the fa.attention it would become is invalid: " + first;
  }
  if (failed(verified)) {
    rewriter.eraseOp(attention);
    DenseSet<Operation *> erased;
    eraseDeadChain(rewriter, {init.getDefiningOp(), q.getDefiningOp(),
                              k.getDefiningOp(), v.getDefiningOp()},
                   erased);
    return failure();
  }
  // O in the result's shape with its dims in [batch..., Nq, Dv] order, then
  // in the result's own order (an einsum's `bhqk,bkhd->bqhd`).
  SmallVector<int64_t> canonicalShape, toResult(m.resultDims.size());
  for (auto [role, dim] : llvm::enumerate(m.resultDims)) {
    canonicalShape.push_back(resultType.getDimSize(dim));
    toResult[dim] = role;
  }
  Value o = attention->getResult(0);
  if (m.key.groupOuter)
    o = swapHeadFactors(rewriter, loc, o, kvHeads, group);
  o = toProgramLayout(rewriter, loc, o, resultType.clone(canonicalShape));
  rewriter.replaceOp(root, transposed(rewriter, loc, o, toResult));
  return success();
}

/// Erases the ops that the replacement left without uses, walking back
/// from `seeds`; ops that were dead before the raise are not reached.
void eraseDeadChain(RewriterBase &rewriter, SmallVector<Operation *> seeds,
                    DenseSet<Operation *> &erased) {
  while (!seeds.empty()) {
    Operation *op = seeds.pop_back_val();
    if (!op || erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        seeds.push_back(def);
    // Constants a body captures from outside (a scale, -inf).
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (!op->isAncestor(def))
            seeds.push_back(def);
    });
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

struct FARaiseAttentionPass
    : public fa::impl::FARaiseAttentionBase<FARaiseAttentionPass> {
  using FARaiseAttentionBase::FARaiseAttentionBase;

  void runOnOperation() override {
    // Not a greedy pattern driver: that would also fold and erase unrelated
    // dead code, and the pass promises to leave everything it does not
    // raise exactly as it was.
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk(
        [&](linalg::LinalgOp op) { candidates.push_back(op); });
    IRRewriter rewriter(&getContext());
    DenseSet<Operation *> erased;
    for (linalg::LinalgOp op : candidates) {
      if (erased.contains(op))
        continue;
      std::string whyNot;
      std::optional<AttentionMatch> match = matchAttention(
          op, MatchOptions{finfoMinMasks}, explain ? &whyNot : nullptr);
      if (!match) {
        if (!whyNot.empty())
          op->emitRemark() << "attention not raised: " << whyNot;
        continue;
      }
      SmallVector<Operation *> seeds;
      for (Value operand : match->root->getOperands())
        if (Operation *def = operand.getDefiningOp())
          seeds.push_back(def);
      Operation *root = match->root;
      std::string raiseWhyNot;
      if (failed(raise(rewriter, *match, raiseWhyNot))) {
        if (explain)
          op->emitRemark() << "attention not raised: " << raiseWhyNot;
        continue;
      }
      erased.insert(root);
      eraseDeadChain(rewriter, seeds, erased);
    }
    // A pipeline that compiles only fa ops (--fa-linalg-to-ptx) would
    // otherwise return the program unchanged, with no kernel and no word of
    // why. fa ops the input already had (a backward, say) are compiled.
    if (warnIfNone && !getOperation()
                           ->walk([](Operation *op) {
                             return isa<fa::AttentionOp,
                                        fa::AttentionBackwardOp>(op)
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           })
                           .wasInterrupted())
      emitWarning(getOperation()->getLoc())
          << "no attention recognised: nothing for the GPU pipeline to "
             "compile (docs/raise-attention.md lists the forms raised; "
             "--fa-raise-attention=explain=true says why an attention was "
             "not)";
  }
};

} // namespace
