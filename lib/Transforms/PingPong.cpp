//===- PingPong.cpp - Warpgroups take turns at their matmuls --------------===//
//
// Stage L3: with wgmma, each warpgroup of a thread block issues its block's
// products and then exponentiates; unordered, the warpgroups multiply at the
// same time and then leave the tensor cores idle through their softmax
// (ncu on the H100: docs/performance.md, "Where the d = 128 gap to cuDNN
// is"). FlashAttention-3 orders them with named barriers so that one
// warpgroup's softmax runs under another's products. This pass writes that
// order into the IR as fa.mma_turn steps around each K/V block's
// asynchronous fa.qk / fa.pv, and gives the loops' TMA loads to the last
// warpgroup (fa.async_load ... issuer(T)). See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAPINGPONG
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// A K/V loop whose block's products are issued asynchronously: the first
/// and last of its (one) async fa.qk and (one) async fa.pv, in body order.
struct TurnLoop {
  scf::ForOp loop;
  Operation *firstProduct, *lastProduct;
  int64_t warpgroups;
};

/// The warpgroups of a `#fa.wgmma` tile held by warps (0 for any other).
int64_t wgmmaWarpgroups(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto rows = tensor ? dyn_cast_or_null<WarpRowsAttr>(tensor.getEncoding())
                     : WarpRowsAttr();
  if (!rows || !isa<WgmmaAtomAttr>(rows.getAtom()) || rows.getReplicas() != 1 ||
      rows.getNumWarps() % 4 != 0)
    return 0;
  return rows.getNumWarps() / 4;
}

std::optional<TurnLoop> matchTurnLoop(scf::ForOp loop, int64_t minBlockKeys) {
  std::optional<std::pair<QKOp, PVOp>> products =
      findBlockProducts(loop.getBody());
  if (!products || blockKeys(loop) < minBlockKeys)
    return std::nullopt;
  auto [qk, pv] = *products;
  if (!qk.getAsync() || !pv.getAsync())
    return std::nullopt;
  int64_t warpgroups = wgmmaWarpgroups(qk.getScores().getType());
  if (warpgroups < 2 || warpgroups != wgmmaWarpgroups(pv.getAcc().getType()))
    return std::nullopt;
  Operation *first = qk, *last = pv;
  if (pv->isBeforeInBlock(qk))
    std::swap(first, last);
  return TurnLoop{loop, first, last, warpgroups};
}

/// The turn loops of one loop nest (the body of an scf.forall), if they
/// are all in one block and agree on the warpgroups.
SmallVector<TurnLoop> collectTurnLoops(scf::ForallOp nest,
                                       int64_t minBlockKeys) {
  SmallVector<TurnLoop> loops;
  bool usable = true;
  nest.getBody()->walk([&](Operation *op) {
    if (isa<MmaTurnOp>(op))
      usable = false; // Already ordered.
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (std::optional<TurnLoop> turn = matchTurnLoop(loop, minBlockKeys))
        loops.push_back(*turn);
  });
  if (!usable || loops.empty())
    return {};
  for (const TurnLoop &turn : loops)
    if (turn.loop->getBlock() != loops.front().loop->getBlock() ||
        turn.warpgroups != loops.front().warpgroups)
      return {};
  return loops;
}

struct FAPingPongPass : public fa::impl::FAPingPongBase<FAPingPongPass> {
  using FAPingPongBase::FAPingPongBase;

  void runOnOperation() override {
    if (minBlockKeys < 0) {
      // On the location only: printing the whole module helps nobody.
      mlir::emitError(getOperation()->getLoc())
          << "fa-pingpong: option min-block-keys must be >= 0, got "
          << minBlockKeys.getValue();
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> nests;
    getOperation()->walk([&](scf::ForallOp nest) { nests.push_back(nest); });
    for (scf::ForallOp nest : nests)
      orderTurns(nest);
  }

  void orderTurns(scf::ForallOp nest) {
    SmallVector<TurnLoop> loops = collectTurnLoops(nest, minBlockKeys);
    if (loops.empty())
      return;
    int64_t warpgroups = loops.front().warpgroups;
    OpBuilder b(nest.getContext());
    auto turn = [&](MmaTurn step, Location loc) {
      MmaTurnOp::create(b, loc, step, warpgroups);
    };
    // The loops run one after the other (the unmasked and masked ones of
    // block skipping): one open before the first, one close after the last.
    scf::ForOp first = loops.front().loop, last = loops.front().loop;
    for (TurnLoop &t : loops) {
      if (t.loop->isBeforeInBlock(first))
        first = t.loop;
      if (last->isBeforeInBlock(t.loop.getOperation()))
        last = t.loop;
    }
    b.setInsertionPoint(first);
    turn(MmaTurn::Open, first.getLoc());
    b.setInsertionPointAfter(last);
    turn(MmaTurn::Close, last.getLoc());
    for (TurnLoop &t : loops) {
      b.setInsertionPoint(t.firstProduct);
      turn(MmaTurn::Take, t.firstProduct->getLoc());
      b.setInsertionPointAfter(t.lastProduct);
      turn(MmaTurn::Pass, t.lastProduct->getLoc());
      if (!issuerLast)
        continue;
      // The last warpgroup runs behind the others: its waits for a slot's
      // release (every warp done with the fill before) hold no one back.
      for (Operation &op : *t.loop.getBody())
        if (auto load = dyn_cast<AsyncLoadOp>(op); load && load.getTma())
          load.setIssuer(static_cast<uint64_t>(128 * (warpgroups - 1)));
    }
  }
};

} // namespace
