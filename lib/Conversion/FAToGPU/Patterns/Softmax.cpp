//===- Softmax.cpp - The online-softmax step on fragments -----------------===//
//
// fa.running_max, fa.softmax_exp and fa.rescale on the fragments of the
// atom, with the arithmetic of AttentionMath.h. A thread holds parts of a
// few rows; a row's parts in other lanes are combined by the atom's lane
// exchange (for mma.sync: the 4 lanes of a quad).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// The scalars of an acc tile's fragments, [frag][elem], and for each
/// per-row value the (frag, elem) positions of its scalars, in order.
struct AccScalars {
  AccScalars(OpBuilder &b, Location loc, AtomLowering &atom,
             RankedTensorType type, ValueRange frags, size_t numRows)
      : positions(numRows) {
    for (auto [f, frag] : llvm::enumerate(frags)) {
      elems.emplace_back();
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e) {
        elems.back().push_back(atom.extractAccElement(b, loc, frag, e));
        positions[atom.accRowValue(type, f, e)].push_back({f, e});
      }
    }
  }
  SmallVector<SmallVector<Value>> elems;
  SmallVector<SmallVector<std::pair<size_t, int64_t>>> positions;
};

/// Reduces `input` pairwise, (v0 op v1) op (v2 op v3) ..., so the dependency
/// chain is log2(n) instructions deep instead of n. Used for the row max
/// (exact in any order; measured 1-2 % faster at head dim 64, neutral at
/// 128). The row sum stays a chain: pairwise, it kept more values live and
/// made the d = 128 causal kernel spill (docs/performance.md).
Value reducePairwise(ArrayRef<Value> input,
                     function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> values(input);
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

bool isPartial(Value rowsValue) {
  auto rows = dyn_cast_or_null<WarpRowsAttr>(
      cast<RankedTensorType>(rowsValue.getType()).getEncoding());
  return rows && rows.getRole() == FragmentRole::PartialRows;
}

/// Pattern: fa.online_softmax => fa.running_max + fa.softmax_exp (the one
/// definition of the step, splitOnlineSoftmax), lowered by the next two.
struct SplitOnlineSoftmax : OpConversionPattern<OnlineSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OnlineSoftmaxOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    splitOnlineSoftmax(rewriter, op);
    return success();
  }
};

/// Pattern: fa.running_max => per row: the thread's max (pairwise), the max
/// across the row's lanes, m_new = max(m, scale * rowmax), alpha.
struct LowerRunningMax : OpConversionPattern<RunningMaxOp> {
  LowerRunningMax(const TypeConverter &converter, MLIRContext *ctx,
                  KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(RunningMaxOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    ValueRange oldMax = adaptor.getMax();
    Value scale = adaptor.getScale().front();
    AccScalars s(b, loc, kernel.atom,
                 groupTile(cast<RankedTensorType>(op.getScores().getType())),
                 adaptor.getScores(), oldMax.size());
    // The max of a row's scores in this thread (pairwise), then across the
    // row's lanes.
    auto lanesRowMax = [&](ArrayRef<std::pair<size_t, int64_t>> positions) {
      SmallVector<Value> rowScores;
      for (auto [f, e] : positions)
        rowScores.push_back(s.elems[f][e]);
      Value rowMax = reducePairwise(rowScores, [&](Value x, Value y) {
        return semantics::maxOf(b, loc, x, y);
      });
      return kernel.atom.reduceAcrossRowLanes(b, loc, rowMax, /*isMax=*/true);
    };
    // Key groups hold parts of each row: their maxima meet in shared
    // memory, so that every group scales its P by the same max.
    SmallVector<Value> groupsRowMax;
    bool acrossGroups = dividesKeys(op.getScores().getType());
    if (acrossGroups) {
      for (auto &positions : s.positions)
        groupsRowMax.push_back(lanesRowMax(positions));
      groupsRowMax = kernel.atom.reduceAcrossReplicas(
          b, loc, groupsRowMax,
          arith::ConstantIndexOp::create(
              b, loc, kernel.plan.keyGroupExchangeOffset()),
          /*isMax=*/true);
    }
    SmallVector<Value> newMax, alpha;
    for (auto [r, positions] : llvm::enumerate(s.positions)) {
      Value rowMax = acrossGroups ? groupsRowMax[r] : lanesRowMax(positions);
      Value m = semantics::newRunningMax(b, loc, oldMax[r], rowMax, scale);
      newMax.push_back(m);
      alpha.push_back(semantics::rescaleFactor(
          b, loc, oldMax[r], semantics::softmaxBase(b, loc, m)));
    }
    b.replaceOpWithMultiple(op, {newMax, alpha});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.softmax_exp => per score one FMA and one exp2 (P), per row
/// the thread's sum of P (the row's other lanes added only when the new sum
/// is not a `partial_rows` share) and l_new = alpha * l + sum.
struct LowerSoftmaxExp : OpConversionPattern<SoftmaxExpOp> {
  LowerSoftmaxExp(const TypeConverter &converter, MLIRContext *ctx,
                  KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(SoftmaxExpOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    ValueRange newMax = adaptor.getNewMax(), alpha = adaptor.getAlpha(),
               oldSum = adaptor.getSum();
    Value scale = adaptor.getScale().front();
    AccScalars s(b, loc, atom,
                 groupTile(cast<RankedTensorType>(op.getScores().getType())),
                 adaptor.getScores(), newMax.size());
    bool partial = isPartial(op.getNewSum());
    SmallVector<Value> newSum;
    for (auto [r, positions] : llvm::enumerate(s.positions)) {
      Value negBase = arith::NegFOp::create(
          b, loc, semantics::softmaxBase(b, loc, newMax[r]));
      // The sum starts from the first P (no add of 0 per row and block).
      Value rowSum;
      for (auto [f, e] : positions) {
        Value &x = s.elems[f][e];
        x = semantics::expScore(b, loc, x, scale, negBase);
        rowSum = rowSum ? arith::AddFOp::create(b, loc, rowSum, x).getResult()
                        : x;
      }
      if (!partial)
        rowSum = atom.reduceAcrossRowLanes(b, loc, rowSum, /*isMax=*/false);
      newSum.push_back(
          semantics::newRunningSum(b, loc, alpha[r], oldSum[r], rowSum));
    }
    SmallVector<Value> probs;
    for (auto [frag, elems] : llvm::zip(adaptor.getScores(), s.elems))
      probs.push_back(atom.buildAccFragment(b, loc, frag.getType(), elems));
    b.replaceOpWithMultiple(op, {probs, newSum});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.rescale => acc *= alpha per row, under a warp-uniform branch
/// taken only when some lane holds an alpha != 1 (no row max of the warp
/// moved: after the first blocks, most of the time).
struct LowerRescale : OpConversionPattern<RescaleOp> {
  LowerRescale(const TypeConverter &converter, MLIRContext *ctx,
               KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(RescaleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    ValueRange acc = adaptor.getAcc(), alpha = adaptor.getAlpha();
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    Value one = semantics::floatConstant(b, loc, b.getF32Type(), 1.0);
    Value moved;
    for (Value a : alpha) {
      Value changed =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, a, one);
      moved = moved ? arith::OrIOp::create(b, loc, moved, changed).getResult()
                    : changed;
    }
    // alpha spread like the accumulator's elements (one per fragment kind).
    DenseMap<Attribute, Value> alphaFrags;
    auto alphaFragment = [&](int64_t f, Type fragType) {
      SmallVector<int64_t> rowsOf;
      for (int64_t e = 0; e < atom.elementsPerAccFragment(); ++e)
        rowsOf.push_back(atom.accRowValue(accTy, f, e));
      Value &frag = alphaFrags[b.getDenseI64ArrayAttr(rowsOf)];
      if (!frag) {
        SmallVector<Value> elems;
        for (int64_t r : rowsOf)
          elems.push_back(alpha[r]);
        frag = atom.buildAccFragment(b, loc, fragType, elems);
      }
      return frag;
    };
    SmallVector<Value> alphaPerFrag;
    for (auto [f, frag] : llvm::enumerate(acc))
      alphaPerFrag.push_back(alphaFragment(f, frag.getType()));

    auto ifOp = scf::IfOp::create(b, loc, acc.getTypes(),
                                  atom.anyInWarp(b, loc, moved),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> scaled;
    for (auto [frag, a] : llvm::zip(acc, alphaPerFrag))
      scaled.push_back(arith::MulFOp::create(b, loc, frag, a));
    scf::YieldOp::create(b, loc, scaled);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, acc);
    b.replaceOpWithMultiple(op, {ifOp.getResults()});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateSoftmaxPatterns(const TypeConverter &converter,
                                       KernelContext &kernel,
                                       RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SplitOnlineSoftmax>(converter, ctx);
  patterns.add<LowerRunningMax, LowerSoftmaxExp, LowerRescale>(converter, ctx,
                                                               kernel);
}
