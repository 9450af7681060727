//===- AttentionMatchers.cpp - Recognisers for unfused attention ----------===//
//
// matchAttention: from a P V contraction back through the softmax, the mask,
// the scale and the Q K^T contraction (the score chain), then through the
// layout ops around Q, K and V (operand peeling). The recognisers it combines
// live in RaiseValueTracing.cpp, RaiseMasks.cpp and RaiseSoftmax.cpp
// (RaiseRecognisers.h).
//
// Each recogniser is a small function over the LinalgOp interface, so that a
// named op (linalg.matmul, linalg.batch_matmul with or without transposed
// indexing maps, linalg.reduce, linalg.transpose, linalg.broadcast) and the
// equivalent linalg.generic are read the same way: by their indexing maps,
// iterator types and body.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatchers.h"
#include "RaiseRecognisers.h"

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raise;
using namespace mlir::fa::raise::detail;

namespace {

//===----------------------------------------------------------------------===//
// Scores: scale and mask, back to Q K^T
//===----------------------------------------------------------------------===//

struct ScoreChain {
  /// The product of the constant factors seen since the last tanh (walking
  /// back from the softmax): the scale, or the cap while above a tanh.
  double scale = 1.0;
  Band visible; // all visible
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
    for (int64_t side : {band.left, band.right})
      if (side != kNoBound && side >= fa::kWindowSideLimit)
        return miss("a mask's band is 2^30 keys wide or more on one side, "
                    "past what fa.attention's window takes");
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
