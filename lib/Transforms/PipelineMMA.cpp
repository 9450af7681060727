//===- PipelineMMA.cpp - P V deferred by one K/V block (async MMAs) -------===//
//
// With wgmma, a matmul runs while its warpgroup goes on issuing: the work of
// one K/V block (S = Q K^T, the softmax on S, P V) done in that order makes
// the warpgroup wait for each product in turn (measured: 60 % of the stall
// samples of the first sm_90a kernel, docs/performance.md). Rotating the
// loop so that iteration j issues S_j and then P_{j-1} V_{j-1}, waits for
// S_j alone and runs the softmax of block j while the tensor cores finish
// P_{j-1} V_{j-1} is FlashAttention-3's intra-warpgroup pipelining. This
// pass writes that rotation into the L3 IR: `async` on the two products,
// fa.mma_wait where each is needed, P and V carried by the loop. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAPIPELINEMMA
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// A forward K/V loop in the form the pass rotates: one fa.qk, one fa.pv
/// adding into the rescaled accumulator iter_arg, the sum yielded back.
struct ForwardStep {
  scf::ForOp loop;
  QKOp qk;
  PVOp pv;
  RescaleOp rescale;
  unsigned accIndex; // Of the accumulator among iter_args and results.
};

std::optional<ForwardStep> matchForwardStep(scf::ForOp loop, bool allAtoms) {
  std::optional<std::pair<QKOp, PVOp>> products =
      findBlockProducts(loop.getBody());
  if (!products)
    return std::nullopt;
  auto [qk, pv] = *products;
  // Already rotated (async products).
  if (qk.getAsync() || pv.getAsync())
    return std::nullopt;
  auto rescale = pv.getAcc().getDefiningOp<RescaleOp>();
  if (!rescale || rescale->getBlock() != loop.getBody() ||
      !rescale->hasOneUse())
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(rescale.getAcc());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
    return std::nullopt;
  unsigned accIndex = arg.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (!pv->hasOneUse() || yield.getOperand(accIndex) != pv.getResult())
    return std::nullopt;
  if (!allAtoms) {
    MmaAtomAttrInterface atom = getTileAtom(pv.getAcc().getType());
    if (!atom || !atom.hasAsyncMatmuls())
      return std::nullopt;
  }
  return ForwardStep{loop, qk, pv, rescale, accIndex};
}

/// Whether `next` continues `prev`: its accumulator starts from (only) the
/// previous loop's, and its P and V tiles have the same types.
bool continues(ForwardStep prev, ForwardStep next) {
  Value acc = prev.loop.getResult(prev.accIndex);
  return acc.hasOneUse() &&
         next.loop.getInitArgs()[next.accIndex] == acc &&
         prev.pv.getProbs().getType() == next.pv.getProbs().getType() &&
         prev.pv.getValue().getType() == next.pv.getValue().getType();
}

class MMAPipeliner {
public:
  explicit MMAPipeliner(MLIRContext *ctx) : rewriter(ctx) {}

  /// Rotates the loops of `chain` (consecutive, each continuing the last).
  void rotate(ArrayRef<ForwardStep> chain);

private:
  /// The loop with the deferred product's state added; returns the new
  /// loop's results (seen, P, V).
  SmallVector<Value> rotateLoop(ForwardStep step, ValueRange state);

  IRRewriter rewriter;
};

SmallVector<Value> MMAPipeliner::rotateLoop(ForwardStep step,
                                            ValueRange state) {
  QKOp qk = step.qk;
  PVOp pv = step.pv;
  RescaleOp rescale = step.rescale;
  Location loc = pv.getLoc();
  // The state yielded: a block was seen, and its P and V for the next step.
  auto yieldState = [&](OpBuilder &b, Location l,
                        ArrayRef<BlockArgument>) -> SmallVector<Value> {
    Value seen = arith::ConstantIntOp::create(b, l, b.getI1Type(), 1);
    return {seen, pv.getProbs(), pv.getValue()};
  };
  FailureOr<LoopLikeOpInterface> replaced =
      cast<LoopLikeOpInterface>(step.loop.getOperation())
          .replaceWithAdditionalYields(rewriter, state,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       yieldState);
  auto loop = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = loop.getNumRegionIterArgs() - 3;
  Value seen = loop.getRegionIterArgs()[first];
  Value prevProbs = loop.getRegionIterArgs()[first + 1];
  Value prevValue = loop.getRegionIterArgs()[first + 2];

  // Right after S_j (and the V tile's load, if that comes later): issue
  // P_{j-1} V_{j-1}, then wait for S_j alone.
  Operation *issueAfter = qk;
  if (Operation *vDef = pv.getValue().getDefiningOp();
      vDef && vDef->getBlock() == qk->getBlock() &&
      qk->isBeforeInBlock(vDef))
    issueAfter = vDef;
  rewriter.setInsertionPointAfter(issueAfter);
  rewriter.modifyOpInPlace(qk, [&] { qk.setAsync(true); });
  // The first step's P is zero: multiply it by a tile that exists (this
  // block's V), never by the placeholder.
  Value value = arith::SelectOp::create(rewriter, loc, seen, prevValue,
                                        pv.getValue());
  auto deferred =
      PVOp::create(rewriter, loc, pv.getAcc().getType(), prevProbs, value,
                   rescale.getAcc(), /*async=*/true);
  Value scores = qk.getScores();
  auto scoresDone = MmaWaitOp::create(rewriter, qk.getLoc(), scores.getType(),
                                      scores, /*pending=*/1);
  rewriter.replaceAllUsesExcept(scores, scoresDone, scoresDone);

  // Where P_j V_j was: wait for P_{j-1} V_{j-1}, then rescale.
  rewriter.setInsertionPoint(pv);
  auto accDone = MmaWaitOp::create(rewriter, loc, deferred.getType(),
                                   deferred.getResult(), /*pending=*/0);
  Value rescaled = RescaleOp::create(rewriter, rescale.getLoc(),
                                     rescale.getType(), accDone,
                                     rescale.getAlpha());
  rewriter.replaceOp(pv, rescaled);
  rewriter.eraseOp(rescale);
  return SmallVector<Value>(loop.getResults().take_back(3));
}

void MMAPipeliner::rotate(ArrayRef<ForwardStep> chain) {
  ForwardStep head = chain.front();
  Location loc = head.pv.getLoc();
  rewriter.setInsertionPoint(head.loop);
  auto probsTy = cast<RankedTensorType>(head.pv.getProbs().getType());
  auto valueTy = cast<RankedTensorType>(head.pv.getValue().getType());
  SmallVector<Value> state = {
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 0),
      arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(probsTy, rewriter.getZeroAttr(
                                              probsTy.getElementType()))),
      tensor::EmptyOp::create(rewriter, loc, valueTy.getShape(),
                              valueTy.getElementType(), valueTy.getEncoding())};
  unsigned accIndex = head.accIndex;
  scf::ForOp last;
  for (ForwardStep step : chain) {
    state = rotateLoop(step, state);
    last = cast<scf::ForOp>(state.front().getDefiningOp());
    accIndex = step.accIndex;
  }
  // The last block's P V, if there was a block.
  Value acc = last.getResult(accIndex);
  rewriter.setInsertionPointAfter(last);
  auto final = scf::IfOp::create(
      rewriter, loc, state[0],
      [&](OpBuilder &b, Location l) {
        Value sum = PVOp::create(b, l, acc.getType(), state[1], state[2], acc);
        scf::YieldOp::create(b, l, sum);
      },
      [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, acc); });
  rewriter.replaceUsesWithIf(acc, final.getResult(0), [&](OpOperand &use) {
    return !final->isAncestor(use.getOwner());
  });
}

struct FAPipelineMMAPass : fa::impl::FAPipelineMMABase<FAPipelineMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    // Chains of consecutive forward steps, per block, in program order.
    SmallVector<SmallVector<ForwardStep>> chains;
    getOperation()->walk([&](scf::ForOp loop) {
      std::optional<ForwardStep> step = matchForwardStep(loop, allAtoms);
      if (!step)
        return;
      if (!chains.empty()) {
        ForwardStep prev = chains.back().back();
        if (prev.loop->getBlock() == loop->getBlock() &&
            continues(prev, *step)) {
          chains.back().push_back(*step);
          return;
        }
      }
      chains.push_back({*step});
    });
    MMAPipeliner pipeliner(&getContext());
    for (ArrayRef<ForwardStep> chain : chains)
      pipeliner.rotate(chain);
  }
};

} // namespace
