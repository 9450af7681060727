//===- PipelineKV.cpp - K/V tiles loaded ahead into a ring of slots -------===//
//
// FlashAttention-2 (and Triton's tritongpu-pipeline) overlap the copy of
// the next K/V block with the math on the current one. This pass writes that
// schedule into the L3 IR: every shared tile load becomes an fa.async_load
// (issued early) and an fa.await (where the tile is needed), the loads of
// block j + S - 1 are issued in iteration j, and the futures in flight are
// loop-carried, across the unmasked and masked loops of causal block
// skipping. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAPIPELINEKV
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

bool isSharedTile(Value v) {
  auto ty = dyn_cast<RankedTensorType>(v.getType());
  return ty && isa_and_nonnull<BlockSharedAttr>(ty.getEncoding());
}

/// Tile loads of one block that share their indices: one fa.async_load.
struct LoadGroup {
  SmallVector<TileLoad> loads;
  OpFoldResult batch, head, rowStart, rows;
};

/// A K/V loop and its load group.
struct PipelinedLoop {
  scf::ForOp loop;
  LoadGroup group;
  int64_t step;
};

bool sameOfr(OpFoldResult a, OpFoldResult b) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  return ca && cb && *ca == *cb;
}

/// Groups the shared tile loads of `block` (directly in it) by indices.
SmallVector<LoadGroup> groupLoads(Block &block) {
  SmallVector<LoadGroup> groups;
  for (Operation &op : block) {
    auto pad = dyn_cast<tensor::PadOp>(op);
    if (!pad || !isSharedTile(pad.getResult()))
      continue;
    FailureOr<TileLoad> load = matchTileLoad(pad.getResult());
    if (failed(load))
      continue;
    OpFoldResult b = load->batch(), h = load->head(), r = load->rowStart(),
                 n = load->rows();
    LoadGroup *group = nullptr;
    for (LoadGroup &g : groups)
      if (sameOfr(g.batch, b) && sameOfr(g.head, h) &&
          sameOfr(g.rowStart, r) && sameOfr(g.rows, n) &&
          g.loads.front().alongHeads == load->alongHeads)
        group = &g;
    if (!group) {
      groups.push_back(LoadGroup{{}, b, h, r, n});
      group = &groups.back();
    }
    group->loads.push_back(*load);
  }
  return groups;
}

/// `a` computed from `ivA` the way `b` is computed from `ivB`: the same
/// values outside the loops, the same ops inside.
bool sameFunctionOfIV(Value a, Value ivA, Value b, Value ivB,
                      Operation *loopA, Operation *loopB) {
  if (a == ivA || b == ivB)
    return a == ivA && b == ivB;
  Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
  bool insideA = defA && loopA->isAncestor(defA);
  bool insideB = defB && loopB->isAncestor(defB);
  if (!insideA || !insideB)
    return !insideA && !insideB && a == b;
  if (defA->getName() != defB->getName() ||
      defA->getAttrDictionary() != defB->getAttrDictionary() ||
      defA->getNumOperands() != defB->getNumOperands() ||
      defA->getNumRegions() != 0 || defB->getNumRegions() != 0 ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [x, y] : llvm::zip(defA->getOperands(), defB->getOperands()))
    if (!sameFunctionOfIV(x, ivA, y, ivB, loopA, loopB))
      return false;
  return true;
}

bool sameOfrOfIV(OpFoldResult a, Value ivA, OpFoldResult b, Value ivB,
                 Operation *loopA, Operation *loopB) {
  auto va = dyn_cast<Value>(a), vb = dyn_cast<Value>(b);
  if (!va || !vb)
    return !va && !vb && sameOfr(a, b);
  return sameFunctionOfIV(va, ivA, vb, ivB, loopA, loopB);
}

/// Loads one K/V loop the way the previous one does (so the previous loop
/// may issue this one's first blocks).
bool sameLoads(PipelinedLoop a, PipelinedLoop b) {
  LoadGroup &ga = a.group, &gb = b.group;
  if (ga.loads.size() != gb.loads.size() || a.step != b.step)
    return false;
  Value ivA = a.loop.getInductionVar(), ivB = b.loop.getInductionVar();
  for (auto [la, lb] : llvm::zip(ga.loads, gb.loads))
    if (la.source() != lb.source() || la.alongHeads != lb.alongHeads ||
        la.pad.getResult().getType() != lb.pad.getResult().getType())
      return false;
  for (auto [x, y] : {std::pair{ga.batch, gb.batch},
                      {ga.head, gb.head},
                      {ga.rowStart, gb.rowStart},
                      {ga.rows, gb.rows}})
    if (!sameOfrOfIV(x, ivA, y, ivB, a.loop, b.loop))
      return false;
  return true;
}

/// Whether `rows`, the row count of the loads of `group`, is `min(c, N -
/// row start)` (or `N - row start`) with N the extent of one of its sources
/// along the rows (`tensor.dim`, or the constant every source's static
/// extent is): then the tile rows past `rows` are past the source's
/// end, which a TMA copy fills with zeros, as cp.async's zero-fill does. (A
/// K/V cache's or a packed sequence's rows end at a length read from
/// memory, with rows of other data, or none, behind them.)
bool rowsRunToSourceEnd(const LoadGroup &group) {
  auto rowsValue = dyn_cast<Value>(group.rows);
  auto rowStart = dyn_cast<Value>(group.rowStart);
  if (!rowsValue || !rowStart)
    return false;
  auto isRest = [&](Value v) {
    auto sub = v.getDefiningOp<arith::SubIOp>();
    if (!sub || sub.getRhs() != rowStart)
      return false;
    // A static N: the constant is every source's extent.
    if (std::optional<int64_t> n = getConstantIntValue(sub.getLhs()))
      return llvm::all_of(group.loads, [&](TileLoad load) {
        auto type = cast<RankedTensorType>(load.source().getType());
        return !type.isDynamicDim(2) && type.getDimSize(2) == *n;
      });
    auto dim = sub.getLhs().getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> axis =
        dim ? getConstantIntValue(dim.getIndex()) : std::nullopt;
    return axis && *axis == 2 &&
           llvm::any_of(group.loads, [&](TileLoad load) {
             return load.source() == dim.getSource();
           });
  };
  if (isRest(rowsValue))
    return true;
  auto min = rowsValue.getDefiningOp<arith::MinSIOp>();
  return min && (isRest(min.getLhs()) || isRest(min.getRhs()));
}

/// Whether the loads of `group` can be TMA copies: rows of one head, in
/// the layout TMA's 128-byte swizzle writes (fa.async_load's verifier
/// rule). Where the rows do not run to the source's end (a packed
/// sequence, a K/V cache), the awaits zero the rows past them
/// (fa.await zero_from).
bool canCopyByTma(const LoadGroup &group) {
  for (TileLoad load : group.loads) {
    auto tile = cast<RankedTensorType>(load.pad.getResult().getType());
    auto shared = dyn_cast_or_null<BlockSharedAttr>(tile.getEncoding());
    if (load.alongHeads || !shared ||
        !isa<WgmmaAtomAttr>(shared.getAtom()) || !shared.getSwizzled() ||
        shared.getTransposed() || tile.getElementTypeBitWidth() != 16 ||
        tile.getDimSize(1) % 64 != 0 || tile.getDimSize(0) > 256 ||
        tile.getDimSize(0) % 8 != 0)
      return false;
  }
  return true;
}

/// Whether every read of a block's tiles in `loop`'s body has completed by
/// the end of the iteration: each asynchronous matmul is followed by an
/// `fa.mma_wait ... pending(0)` of the body (which waits for all of them),
/// and a tile yielded to the next iteration is not yielded again from
/// there (so it is read there and no later).
bool readsEndWithIteration(scf::ForOp loop) {
  bool outstanding = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto wait = dyn_cast<MmaWaitOp>(op); wait && wait.getPending() == 0) {
      outstanding = false;
      continue;
    }
    op.walk([&](Operation *inner) {
      auto qk = dyn_cast<QKOp>(inner);
      auto pv = dyn_cast<PVOp>(inner);
      if ((qk && qk.getAsync()) || (pv && pv.getAsync()))
        outstanding = true;
    });
  }
  if (outstanding)
    return false;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (Value yielded : yield.getOperands())
    if (auto arg = dyn_cast<BlockArgument>(yielded);
        arg && arg.getOwner() == loop.getBody() && isSharedTile(arg))
      return false;
  return true;
}

class KVPipeliner {
public:
  /// releaseMinKeys: the slots of loops whose K/V blocks have at least
  /// this many keys are released by mbarrier (-1: none).
  KVPipeliner(scf::ForallOp forall, int64_t stages, int64_t l2Prefetch,
              bool tma, int64_t releaseMinKeys)
      : forall(forall), stages(stages), slots(stages), l2Prefetch(l2Prefetch),
        tmaAllowed(tma), releaseMinKeys(releaseMinKeys),
        rewriter(forall.getContext()) {}

  LogicalResult run();

private:
  Value cidx(int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, forall.getLoc(), v);
  }
  IntegerAttr prefetchAttr() {
    return l2Prefetch ? rewriter.getI64IntegerAttr(l2Prefetch) : IntegerAttr();
  }
  /// `v` of the loop body, recomputed at the insertion point for the
  /// induction variable `iv` = `newIV`.
  FailureOr<Value> cloneForIV(OpFoldResult ofr, scf::ForOp loop, Value newIV,
                              IRMapping &mapping);
  /// fa.async_load of the group's tiles for the block at `k`, predicated on
  /// k < end.
  FailureOr<Value> issue(PipelinedLoop pl, Value k, Value end);
  /// ((k - chainStart) / step / slots + offset) mod 2: the parity of block
  /// k's fill of its slot (offset 0), or of the fill before (offset 1).
  Value fillParity(Value k, int64_t step, int64_t offset);
  LogicalResult pipelineChain(MutableArrayRef<PipelinedLoop> chain);

  scf::ForallOp forall;
  int64_t stages;
  /// Slots of the K/V ring: `stages`, one more when a loop carries a tile
  /// to its next iteration (--fa-pipeline-mma's deferred P V reads block
  /// j - 1's V while block j + stages - 1 loads).
  int64_t slots;
  /// fa.async_load's l2_prefetch for every load issued (0: none): how tiles
  /// move, the same for every tile.
  int64_t l2Prefetch;
  /// copy=tma: the chain's K/V loads are TMA copies where canCopyByTma.
  bool tmaAllowed;
  /// Whether they are (set by pipelineChain).
  bool tma = false;
  /// Whether the TMA tiles' rows may end before their source does, so
  /// that each in-loop await zeroes the rows past them (set by
  /// pipelineChain).
  bool zeroTail = false;
  /// release=mbarrier (0) or auto (kTurnBlockKeys): a TMA ring's slots are
  /// released by fa.release where its loops' blocks have this many keys.
  int64_t releaseMinKeys;
  /// Whether they are (set by pipelineChain), and whether a loop carries a
  /// tile to its next iteration (set by run).
  bool release = false;
  bool carriesTile = false;
  /// The chain's first block (set by pipelineChain).
  Value chainStart;
  IRRewriter rewriter;
};

FailureOr<Value> KVPipeliner::cloneForIV(OpFoldResult ofr, scf::ForOp loop,
                                         Value newIV, IRMapping &mapping) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return cidx(cast<IntegerAttr>(attr).getInt());
  Value v = cast<Value>(ofr);
  if (v == loop.getInductionVar())
    return newIV;
  if (Value known = mapping.lookupOrNull(v))
    return known;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return loop->isAncestor(arg.getOwner()->getParentOp()) ? FailureOr<Value>()
                                                          : FailureOr<Value>(v);
  Operation *def = v.getDefiningOp();
  if (!loop->isAncestor(def))
    return v; // Defined outside the loop: the same value.
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      def->getBlock() != loop.getBody())
    return failure();
  for (Value operand : def->getOperands())
    if (failed(cloneForIV(operand, loop, newIV, mapping)))
      return failure();
  Operation *clone = rewriter.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

FailureOr<Value> KVPipeliner::issue(PipelinedLoop pl, Value k,
                                    Value end) {
  Location loc = pl.loop.getLoc();
  IRMapping mapping;
  mapping.map(pl.loop.getInductionVar(), k);
  FailureOr<Value> batch = cloneForIV(pl.group.batch, pl.loop, k, mapping);
  FailureOr<Value> head = cloneForIV(pl.group.head, pl.loop, k, mapping);
  FailureOr<Value> row = cloneForIV(pl.group.rowStart, pl.loop, k, mapping);
  FailureOr<Value> rows = cloneForIV(pl.group.rows, pl.loop, k, mapping);
  if (failed(batch) || failed(head) || failed(row) || failed(rows))
    return pl.loop.emitError("fa-pipeline-kv: the tile indices of this K/V "
                             "loop are not side-effect-free index arithmetic "
                             "on its induction variable");
  // Slot (k floordiv step) mod slots: consecutive blocks take consecutive
  // slots.
  Value block = arith::DivUIOp::create(rewriter, loc, k, cidx(pl.step));
  Value slot = arith::RemUIOp::create(rewriter, loc, block, cidx(slots));
  Value inRange =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, k, end);
  Value releasePhase = release ? fillParity(k, pl.step, 1) : Value();
  SmallVector<Value> sources;
  SmallVector<RankedTensorType> tiles;
  for (TileLoad load : pl.group.loads) {
    sources.push_back(load.slice.getSource());
    tiles.push_back(cast<RankedTensorType>(load.pad.getResult().getType()));
  }
  return AsyncLoadOp::create(
             rewriter, loc, FutureType::get(rewriter.getContext(), tiles),
             sources, *batch, *head, *row, *rows, slot,
             rewriter.getI64IntegerAttr(slots), inRange,
             pl.group.loads.front().alongHeads ? rewriter.getUnitAttr()
                                               : UnitAttr(),
             tma ? IntegerAttr() : prefetchAttr(),
             tma ? rewriter.getUnitAttr() : UnitAttr(), releasePhase,
             /*issuer=*/IntegerAttr())
      .getResult();
}

Value KVPipeliner::fillParity(Value k, int64_t step, int64_t offset) {
  Location loc = forall.getLoc();
  Value block = arith::DivUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, k, chainStart),
      cidx(step));
  Value fill = arith::DivUIOp::create(rewriter, loc, block, cidx(slots));
  if (offset)
    fill = arith::AddIOp::create(rewriter, loc, fill, cidx(offset));
  return arith::RemUIOp::create(rewriter, loc, fill, cidx(2));
}

LogicalResult KVPipeliner::pipelineChain(MutableArrayRef<PipelinedLoop> chain) {
  scf::ForOp first = chain.front().loop;
  Location loc = first.getLoc();
  Block *body = forall.getBody();

  // Non-last loops must end on a block boundary, so that the block after a
  // loop's last is the next loop's first; a loop may also be empty, which
  // bounds clamped with max(lb, ub) make harmless.
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    scf::ForOp loop = chain[i].loop;
    if (!isMultipleOf(loop.getLowerBound(), chain[i].step) ||
        !isMultipleOf(loop.getUpperBound(), chain[i].step))
      return loop.emitError("fa-pipeline-kv: cannot prove that this K/V loop "
                            "ends on a block boundary, so the next loop's "
                            "blocks cannot be loaded ahead from it");
    rewriter.setInsertionPoint(loop);
    Value end = arith::MaxSIOp::create(rewriter, loc, loop.getLowerBound(),
                                       loop.getUpperBound());
    rewriter.modifyOpInPlace(loop, [&] {
      loop.getUpperBoundMutable().assign(end);
    });
    rewriter.modifyOpInPlace(chain[i + 1].loop, [&] {
      chain[i + 1].loop.getLowerBoundMutable().assign(end);
    });
  }
  Value end = chain.back().loop.getUpperBound();
  int64_t step = chain.front().step;
  // The first block of the chain: where every slot's mbarrier phases count
  // from (TMA).
  chainStart = first.getLowerBound();
  tma = tmaAllowed && llvm::all_of(chain, [](const PipelinedLoop &pl) {
          return canCopyByTma(pl.group);
        });
  zeroTail = tma && llvm::any_of(chain, [](const PipelinedLoop &pl) {
               return !rowsRunToSourceEnd(pl.group);
             });
  // Releases need every read of a block done by the end of the iteration
  // that releases it. A load reuses the slot of the block `slots` before,
  // which its iteration's predecessor released at the latest (loads run
  // stages - 1 blocks ahead, a carried tile is released one iteration
  // late, and slots = stages + 1 then): no warp waits for itself.
  release = tma && releaseMinKeys >= 0 &&
            llvm::all_of(chain, [&](const PipelinedLoop &pl) {
              return readsEndWithIteration(pl.loop) &&
                     blockKeys(pl.loop) >= releaseMinKeys;
            });

  // Prologue: the loads outside the loops (the Q tile), then the first
  // S - 1 blocks; each outside tile is awaited with every later load still
  // in flight.
  rewriter.setInsertionPoint(first);
  SmallVector<std::pair<TileLoad, Value>> outer;
  for (LoadGroup &group : groupLoads(*body)) {
    for (TileLoad &load : group.loads) {
      auto tileTy = cast<RankedTensorType>(load.pad.getResult().getType());
      Value future = AsyncLoadOp::create(
          rewriter, load.pad.getLoc(),
          FutureType::get(rewriter.getContext(), {tileTy}),
          ValueRange{load.slice.getSource()},
          getValueOrCreateConstantIndexOp(rewriter, loc, load.batch()),
          getValueOrCreateConstantIndexOp(rewriter, loc, load.head()),
          getValueOrCreateConstantIndexOp(rewriter, loc, load.rowStart()),
          getValueOrCreateConstantIndexOp(rewriter, loc, load.rows()),
          cidx(0), rewriter.getI64IntegerAttr(1), Value(),
          load.alongHeads ? rewriter.getUnitAttr() : UnitAttr(),
          prefetchAttr(), UnitAttr(), Value(), /*issuer=*/IntegerAttr());
      outer.push_back({load, future});
    }
  }
  SmallVector<Value> inFlight;
  for (int64_t i = 0; i + 1 < stages; ++i) {
    Value k = arith::AddIOp::create(rewriter, loc, first.getLowerBound(),
                                    cidx(i * step));
    FailureOr<Value> future = issue(chain.front(), k, end);
    if (failed(future))
      return failure();
    inFlight.push_back(*future);
  }
  for (auto [i, entry] : llvm::enumerate(outer)) {
    auto [load, future] = entry;
    int64_t pending = static_cast<int64_t>(outer.size() - 1 - i) + stages - 1;
    auto await = AwaitOp::create(rewriter, load.pad.getLoc(), future,
                                 rewriter.getI64IntegerAttr(pending),
                                 Value(), Value());
    Value tile = await.getResult(0);
    rewriter.replaceAllUsesWith(load.pad.getResult(), tile);
    // Ops of the forall body placed before the await that use the tile,
    // even inside their regions (fa.convert_layout of Q), move after it,
    // with the ops that use theirs in turn.
    SmallVector<Operation *> toMove;
    DenseSet<Value> movedValues;
    movedValues.insert(tile);
    for (Operation *op = load.pad->getNextNode(); op && op != await;
         op = op->getNextNode()) {
      WalkResult uses = op->walk([&](Operation *inner) {
        return llvm::any_of(inner->getOperands(),
                            [&](Value v) { return movedValues.contains(v); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (uses.wasInterrupted()) {
        toMove.push_back(op);
        for (Value result : op->getResults())
          movedValues.insert(result);
      }
    }
    Operation *after = await;
    for (Operation *op : toMove) {
      op->moveAfter(after);
      after = op;
    }
    rewriter.setInsertionPointAfter(after);
  }
  for (auto &entry : outer) {
    TileLoad &load = entry.first;
    rewriter.eraseOp(load.pad);
    if (load.slice->use_empty())
      rewriter.eraseOp(load.slice);
  }

  // Each loop carries the S - 1 blocks in flight: it awaits the oldest and
  // issues the block S - 1 ahead. A loop that releases the previous block's
  // slot also carries that block's future (the first iteration's is a
  // placeholder, never released).
  bool carryPrevious = release && carriesTile;
  Value previous = carryPrevious ? inFlight.front() : Value();
  for (PipelinedLoop pl : chain) {

    scf::ForOp loop = pl.loop;
    SmallVector<Value> carried = inFlight;
    if (carryPrevious)
      carried.push_back(previous);
    auto yieldFutures = [&](OpBuilder &, Location,
                            ArrayRef<BlockArgument> newArgs) {
      return SmallVector<Value>(newArgs.begin(), newArgs.end());
    };
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(rewriter, carried,
                                         /*replaceInitOperandUsesInLoop=*/false,
                                         yieldFutures);
    if (failed(replaced))
      return loop.emitError("fa-pipeline-kv: cannot add iter_args to the loop");
    auto newLoop = cast<scf::ForOp>(replaced->getOperation());

    size_t numOld = newLoop.getNumRegionIterArgs() - carried.size();
    SmallVector<Value> futures(newLoop.getRegionIterArgs().begin() + numOld,
                               newLoop.getRegionIterArgs().begin() + numOld +
                                   inFlight.size());

    rewriter.setInsertionPointToStart(newLoop.getBody());
    // A TMA slot's fills alternate its mbarrier's phase: block k0 is fill
    // (k0 - first) / step / slots of its slot (consecutive blocks take
    // consecutive slots), so the phase is that mod 2.
    Value phase;
    if (tma)
      phase = fillParity(newLoop.getInductionVar(), step, 0);
    // The indices again: the new loop has a new induction variable.
    PipelinedLoop rebound = pl;
    rebound.loop = newLoop;
    TileLoad first = pl.group.loads.front();
    rebound.group.batch = first.batch();
    rebound.group.head = first.head();
    rebound.group.rowStart = first.rowStart();
    rebound.group.rows = first.rows();
    // The awaited block's row count, computed before the await (the body
    // computes it later, for the load this replaces).
    Value zeroFrom;
    if (zeroTail) {
      IRMapping mapping;
      FailureOr<Value> rows =
          cloneForIV(rebound.group.rows, newLoop, newLoop.getInductionVar(),
                     mapping);
      if (failed(rows))
        return newLoop.emitError("fa-pipeline-kv: the row count of this K/V "
                                 "loop's tiles is not side-effect-free index "
                                 "arithmetic on its induction variable");
      zeroFrom = *rows;
    }
    auto await = AwaitOp::create(rewriter, loc, futures.front(),
                                 rewriter.getI64IntegerAttr(stages - 2), phase,
                                 zeroFrom);
    Value next = arith::AddIOp::create(rewriter, loc,
                                       newLoop.getInductionVar(),
                                       cidx((stages - 1) * step));
    FailureOr<Value> issued = issue(rebound, next, end);
    if (failed(issued))
      return failure();
    for (auto [load, tile] :
         llvm::zip(pl.group.loads, await.getResults())) {
      rewriter.replaceAllUsesWith(load.pad.getResult(), tile);
      rewriter.eraseOp(load.pad);
      if (load.slice->use_empty())
        rewriter.eraseOp(load.slice);
    }
    // Yield: the blocks still in flight, then the one just issued (and the
    // one awaited, released at the end of the next iteration).
    auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
    SmallVector<Value> yields(yield.getOperands().begin(),
                              yield.getOperands().begin() + numOld);
    llvm::append_range(yields, ArrayRef<Value>(futures).drop_front());
    yields.push_back(*issued);
    if (carryPrevious)
      yields.push_back(futures.front());
    rewriter.modifyOpInPlace(
        yield, [&] { yield.getResultsMutable().assign(yields); });
    // This iteration's last read is done: release its block's slot, or the
    // previous block's (the tile it carried here), except in the chain's
    // first iteration.
    if (release) {
      rewriter.setInsertionPoint(yield);
      if (carryPrevious) {
        Value notFirst = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ne, newLoop.getInductionVar(),
            chainStart);
        ReleaseOp::create(rewriter, loc, newLoop.getRegionIterArgs().back(),
                          notFirst);
      } else {
        ReleaseOp::create(rewriter, loc, futures.front(), Value());
      }
    }
    inFlight.assign(newLoop.getResults().begin() + numOld,
                    newLoop.getResults().begin() + numOld + futures.size());
    if (carryPrevious)
      previous = newLoop.getResults().back();
  }
  return success();
}

LogicalResult KVPipeliner::run() {
  // The K/V loops: loops of the forall body with shared tile loads.
  SmallVector<PipelinedLoop> loops;
  for (Operation &op : *forall.getBody()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      continue;
    SmallVector<LoadGroup> groups = groupLoads(*loop.getBody());
    if (groups.empty())
      continue;
    if (groups.size() != 1)
      return loop.emitError("fa-pipeline-kv: the shared tiles of a K/V loop "
                            "must be loaded at the same batch, head and rows");
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 0)
      return loop.emitError("fa-pipeline-kv: a K/V loop needs a constant "
                            "positive step");
    loops.push_back(PipelinedLoop{loop, groups.front(), *step});
  }
  if (loops.empty())
    return success();
  // One chain: each loop continues the previous one's state and blocks.
  for (size_t i = 1; i < loops.size(); ++i) {
    scf::ForOp prev = loops[i - 1].loop, loop = loops[i].loop;
    if (loop.getLowerBound() != prev.getUpperBound())
      return loop.emitError("fa-pipeline-kv: this K/V loop does not start "
                            "where the previous one ends");
    if (loop.getInitArgs() != ValueRange(prev.getResults()))
      return loop.emitError("fa-pipeline-kv: this K/V loop does not start "
                            "from the previous one's state");
    if (!sameLoads(loops[i - 1], loops[i]))
      return loop.emitError("fa-pipeline-kv: this K/V loop loads its tiles "
                            "differently from the previous one");
  }
  // A loop that yields one of its tiles reads it in the next iteration.
  for (PipelinedLoop &pl : loops) {
    Operation *yield = pl.loop.getBody()->getTerminator();
    for (TileLoad &load : pl.group.loads)
      if (llvm::is_contained(load.pad.getResult().getUsers(), yield)) {
        slots = stages + 1;
        carriesTile = true;
      }
  }
  if (failed(pipelineChain(loops)))
    return failure();
  // Index arithmetic of the replaced loads.
  (void)runRegionDCE(rewriter, forall.getRegion());
  return success();
}

/// The stages the tiling recorded on `forall` (fa.kv_stages), else the
/// atom's for the head dims of its K and V tiles (2 when it has none).
int64_t defaultStages(scf::ForallOp forall) {
  if (auto picked = forall->getAttrOfType<IntegerAttr>(kKVStagesAttrName))
    if (picked.getInt() >= 2 && picked.getInt() <= 4)
      return picked.getInt();
  int64_t headDim = 0, valueDim = 0;
  MmaAtomAttrInterface atom;
  forall.walk([&](QKOp qk) {
    headDim = cast<RankedTensorType>(qk.getKey().getType()).getDimSize(1);
    atom = getTileAtom(qk.getKey().getType());
  });
  forall.walk([&](PVOp pv) {
    valueDim = cast<RankedTensorType>(pv.getValue().getType()).getDimSize(1);
  });
  if (!atom)
    return 2;
  FailureOr<TileConfig> tiles = atom.getDefaultTiles(headDim, valueDim);
  return succeeded(tiles) ? tiles->stages : 2;
}

/// The L2 prefetch size of a nest's loads when the option leaves it to the
/// pass: 128 bytes for the forward (decode steps +1.3-2.6 % on an H100,
/// prefill unchanged), none for the backward's nests, which recompute P from
/// the LSE (0-5 % slower with it, in rotated A/Bs: docs/performance.md, "L2
/// prefetch").
static int64_t defaultL2Prefetch(scf::ForallOp forall) {
  bool backward = false;
  forall.walk([&](ProbsFromLseOp) { backward = true; });
  return backward ? 0 : 128;
}

struct FAPipelineKVPass : fa::impl::FAPipelineKVBase<FAPipelineKVPass> {
  using Base::Base;

  /// The release option as the K/V blocks' keys from which slots are
  /// released by mbarrier (-1: never).
  int64_t releaseMinKeys() const {
    if (release == "mbarrier")
      return 0;
    return release == "auto" ? kTurnBlockKeys : -1;
  }
  void runOnOperation() override {
    if (stages != 0 && (stages < 2 || stages > 4)) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-pipeline-kv: option stages must be 2, 3 or 4 (or 0 for the "
             "atom's default), got "
          << stages.getValue();
      return signalPassFailure();
    }
    if (l2Prefetch != -1 && l2Prefetch != 0 &&
        !isValidL2PrefetchBytes(l2Prefetch)) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-pipeline-kv: option l2-prefetch must be 0, 64, 128 or 256 "
             "(bytes), or -1 for the default, got "
          << l2Prefetch.getValue();
      return signalPassFailure();
    }
    if (copy != "auto" && copy != "cp-async" && copy != "tma") {
      mlir::emitError(getOperation()->getLoc())
          << "fa-pipeline-kv: option copy must be 'auto', 'cp-async' or "
             "'tma', got '"
          << copy.getValue() << "'";
      return signalPassFailure();
    }
    if (release != "mbarrier" && release != "barrier" && release != "auto") {
      mlir::emitError(getOperation()->getLoc())
          << "fa-pipeline-kv: option release must be 'auto', 'mbarrier' or "
             "'barrier', got '"
          << release.getValue() << "'";
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> foralls;
    getOperation()->walk([&](scf::ForallOp forall) {
      foralls.push_back(forall);
    });
    for (scf::ForallOp forall : foralls)
      if (failed(KVPipeliner(forall, stages ? stages : defaultStages(forall),
                             l2Prefetch == -1 ? defaultL2Prefetch(forall)
                                              : l2Prefetch,
                             copy != "cp-async", releaseMinKeys())
                     .run()))
        return signalPassFailure();
  }
};

} // namespace
