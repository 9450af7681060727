//===- ScheduleSoftmax.cpp - Split the softmax step, place the rescale ----===//
//
// Where the accumulator is rescaled relative to the exponentials is a
// decision that spans ops and is worth a few percent on the GPU. This pass
// makes it an op order: fa.online_softmax becomes fa.running_max +
// fa.softmax_exp, and fa.rescale goes between them or after them. The GPU
// lowering emits ops in the order they appear.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FASCHEDULESOFTMAX
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Registers per thread of a tile held by warps, 0 for anything else.
int64_t fragmentRegisters(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto rows = tensor ? dyn_cast_or_null<WarpRowsAttr>(tensor.getEncoding())
                     : WarpRowsAttr();
  if (!rows)
    return 0;
  return rows.getAtom().getFragmentRegisters(rows.getRole(), tensor.getShape(),
                                             tensor.getElementType(),
                                             rows.getNumWarps());
}

/// The fa.qk whose scores `scores` are (through fa.mask and fa.softcap), or
/// null.
QKOp producingQK(Value scores) {
  while (Operation *def = scores.getDefiningOp()) {
    if (auto mask = dyn_cast<MaskOp>(def))
      scores = mask.getScores();
    else if (auto cap = dyn_cast<SoftcapOp>(def))
      scores = cap.getScores();
    else
      break;
  }
  return scores.getDefiningOp<QKOp>();
}

/// How many extra live values the atom's tile table lets the early rescale
/// keep for these head dims and the S tile's blocks (the window tiles' own
/// count where the S tile has their shape).
int64_t earlyRescaleExtras(MmaAtomAttrInterface atom, int64_t headDim,
                           int64_t valueDim, ArrayRef<int64_t> scoresShape) {
  FailureOr<TileConfig> tiles = atom.getDefaultTiles(headDim, valueDim);
  if (failed(tiles))
    return kAllExtraLiveValues;
  bool windowTiles =
      (tiles->windowBlockM && scoresShape[0] == tiles->windowBlockM) ||
      (tiles->windowBlockN && scoresShape[1] == tiles->windowBlockN);
  return windowTiles ? tiles->windowEarlyRescaleExtras
                     : tiles->earlyRescaleExtras;
}

/// auto: rescale early while S, the accumulator and (if in registers) Q fit
/// the atom's early-rescale budget, and the kernel's extra live values the
/// atom's tile table for these head dims and tiles.
bool rescaleEarly(RunningMaxOp runningMax, RescaleOp rescale,
                  RescalePlacement placement) {
  if (placement != RescalePlacement::Auto)
    return placement == RescalePlacement::BeforeExp;
  MmaAtomAttrInterface atom = getTileAtom(runningMax.getScores().getType());
  if (!atom)
    return false;
  auto scores = cast<ShapedType>(runningMax.getScores().getType());
  int64_t regs = fragmentRegisters(scores) +
                 fragmentRegisters(rescale.getAcc().getType());
  auto acc = cast<ShapedType>(rescale.getAcc().getType());
  int64_t valueDim = acc.getDimSize(1), headDim = valueDim;
  if (QKOp qk = producingQK(runningMax.getScores())) {
    regs += fragmentRegisters(qk.getQuery().getType());
    headDim = cast<ShapedType>(qk.getQuery().getType()).getDimSize(1);
  }
  if (regs > atom.getEarlyRescaleBudget())
    return false;
  return countExtraLiveValues(runningMax) <=
         earlyRescaleExtras(atom, headDim, valueDim, scores.getShape());
}

struct FAScheduleSoftmaxPass
    : fa::impl::FAScheduleSoftmaxBase<FAScheduleSoftmaxPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](OnlineSoftmaxOp op) {
      splitOnlineSoftmax(rewriter, op);
    });
    DominanceInfo dominance(getOperation());
    getOperation()->walk([&](RunningMaxOp runningMax) {
      SoftmaxExpOp exp;
      for (Operation *user : runningMax.getNewMax().getUsers())
        if (auto e = dyn_cast<SoftmaxExpOp>(user);
            e && e->getBlock() == runningMax->getBlock())
          exp = e;
      if (!exp)
        return;
      for (Operation *user :
           llvm::make_early_inc_range(runningMax.getAlpha().getUsers())) {
        auto rescale = dyn_cast<RescaleOp>(user);
        if (!rescale || rescale->getBlock() != runningMax->getBlock())
          continue;
        if (rescaleEarly(runningMax, rescale, this->rescale)) {
          // Its accumulator must already be available there.
          if (dominance.properlyDominates(rescale.getAcc(), runningMax))
            rescale->moveAfter(runningMax);
        } else if (rescale->isBeforeInBlock(exp)) {
          rescale->moveAfter(exp);
        }
      }
    });
  }
};

} // namespace
