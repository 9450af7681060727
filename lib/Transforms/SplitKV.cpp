//===- SplitKV.cpp - Split each Q block's keys into chunks (flash-decoding) ===//
//
// Stage L2 -> L2: one more forall dimension of parallelism for decode steps.
// Each tiled loop nest runs its K/V loops over one chunk of the keys per
// forall iteration, finalises a partial O (f32) and LSE into workspaces, and
// fa.combine_splits merges the chunks by their LSE after the forall.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"
#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FASPLITKV
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr int64_t kMaxSplits = 1024;
/// The function argument that holds a run-time split count (`splits=0`).
constexpr StringLiteral kNumSplitsAttr = "fa.num_splits";

/// The run-time split count of `func`: its index argument marked
/// `fa.num_splits`, else a new one appended (`%num_splits: index
/// {fa.num_splits}`); a function called in the module cannot get a new
/// argument: its callers would not pass it.
FailureOr<Value> numSplitsArgument(FunctionOpInterface func,
                                   Operation *user) {
  Value found;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, kNumSplitsAttr))
      continue;
    if (found)
      return user->emitError("fa-split-kv: function @")
             << func.getName() << " has two arguments marked "
             << kNumSplitsAttr;
    found = func.getArgument(i);
    if (!found.getType().isIndex())
      return user->emitError("fa-split-kv: the argument marked ")
             << kNumSplitsAttr << " must be an index, got "
             << found.getType();
  }
  if (found)
    return found;
  Operation *scope = func->getParentOp();
  std::optional<SymbolTable::UseRange> uses =
      scope ? SymbolTable::getSymbolUses(func, scope) : std::nullopt;
  if (scope && (!uses || !uses->empty()))
    return user->emitError("fa-split-kv: splits=0 (a run-time split count) "
                           "needs an index argument marked ")
           << kNumSplitsAttr << " in @" << func.getName()
           << ", which is called in the module and cannot get a new one";
  MLIRContext *ctx = func.getContext();
  auto attrs = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kNumSplitsAttr),
                           UnitAttr::get(ctx))});
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, IndexType::get(ctx), attrs,
                                 func.getLoc())))
    return user->emitError("fa-split-kv: cannot add a split-count argument "
                           "to @")
           << func.getName();
  return func.getArgument(index);
}

/// Whether the results of `forall` already feed fa.combine_splits.
bool isSplit(scf::ForallOp forall) {
  for (Operation *user : forall->getUsers())
    if (isa<tensor::ExpandShapeOp>(user) &&
        llvm::any_of(user->getUsers(),
                     [](Operation *u) { return isa<CombineSplitsOp>(u); }))
      return true;
  return false;
}

class KVSplitter {
public:
  /// `splits` chunks, or with `splits` 0 as many as `runtimeSplits` says
  /// (at least 1).
  KVSplitter(IRRewriter &rewriter, TiledAttention &tiled, int64_t splits,
             Value runtimeSplits)
      : b(rewriter), t(tiled), splits(splits), runtimeSplits(runtimeSplits),
        loc(tiled.forall.getLoc()), f32(rewriter.getF32Type()) {}

  LogicalResult split();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// `size * splits`, static when both are.
  OpFoldResult timesSplits(OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size); c && splits)
      return b.getIndexAttr(*c * splits);
    return arith::MulIOp::create(
               b, loc, getValueOrCreateConstantIndexOp(b, loc, size),
               numSplits)
        .getResult();
  }
  /// A slice of the new finalize's `tile` like `oldRows`, in f32.
  Value rowsOf(Value tile, tensor::ExtractSliceOp oldRows);
  /// A store of `rows` into `dest` at the offsets and sizes of the first
  /// `rank` dims of `like`, at batch `splitBatch`.
  void store(Value rows, Value dest, tensor::ParallelInsertSliceOp like,
             int64_t rank, Value splitBatch);

  IRRewriter &b;
  TiledAttention &t;
  int64_t splits; // 0: run time.
  Value runtimeSplits;
  Value numSplits; // The count as an index value, set by split().
  Location loc;
  Type f32;
};

Value KVSplitter::rowsOf(Value tile, tensor::ExtractSliceOp oldRows) {
  auto oldTy = oldRows.getType();
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(oldTy.getShape(), f32, oldTy.getEncoding()),
      tile, oldRows.getMixedOffsets(), oldRows.getMixedSizes(),
      oldRows.getMixedStrides());
}

void KVSplitter::store(Value rows, Value dest,
                       tensor::ParallelInsertSliceOp like, int64_t rank,
                       Value splitBatch) {
  SmallVector<OpFoldResult> offsets = like.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = like.getMixedSizes();
  offsets.resize(rank);
  sizes.resize(rank);
  offsets[0] = splitBatch;
  tensor::ParallelInsertSliceOp::create(
      b, loc, rows, dest, offsets, sizes,
      SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
}

LogicalResult KVSplitter::split() {
  scf::ForallOp forall = t.forall;
  int64_t blockN = t.blockN();
  for (KVLoop &kv : t.kvLoops)
    if (!isMultipleOf(kv.loop.getLowerBound(), blockN))
      return kv.loop.emitError("fa-split-kv: the K/V loop must start at a "
                               "whole K/V block (a multiple of ")
             << blockN << ") to be split into chunks of blocks";

  // The clamped bounds go before the first loop (below): every bound must
  // be computed there already.
  scf::ForOp first = t.kvLoops.front().loop;
  for (KVLoop &kv : t.kvLoops)
    for (Value bound : {kv.loop.getLowerBound(), kv.loop.getUpperBound()}) {
      Operation *def = bound.getDefiningOp();
      if (def && def->getBlock() == first->getBlock() &&
          first->isBeforeInBlock(def))
        return kv.loop.emitError("fa-split-kv: the bounds of every K/V loop "
                                 "must be computed before the first one");
    }

  auto outArg = dyn_cast<BlockArgument>(t.storeOut.getDest());
  auto lseArg =
      t.storeLse ? dyn_cast<BlockArgument>(t.storeLse.getDest()) : nullptr;
  if (!outArg || outArg.getOwner() != forall.getBody() ||
      (t.storeLse && (!lseArg || lseArg.getOwner() != forall.getBody())))
    return forall.emitError(
        "fa-split-kv: O and LSE must be stored into the forall's shared_outs");
  unsigned outIndex = outArg.getArgNumber() - forall.getRank();
  std::optional<unsigned> lseIndex;
  if (lseArg)
    lseIndex = lseArg.getArgNumber() - forall.getRank();

  // The keys the chunks cover: Nk (dim 2 of K) or, with a K/V cache, the
  // sequence's own count, the key limit of the masks, which the loop nest
  // computes per batch (paged K/V tiles are rows along dim 1 of a pool).
  Value keyLimit;
  for (KVLoop &kv : t.kvLoops)
    if (kv.mask && kv.mask.getKeyLimit())
      keyLimit = kv.mask.getKeyLimit();
  bool perSequence =
      keyLimit && forall.getRegion().isAncestor(keyLimit.getParentRegion());
  if (!perSequence && t.kvLoops.front().key.alongHeads)
    return forall.emitError("fa-split-kv: a loop nest over a paged K/V "
                            "cache needs the key limit of its masks");

  // Before the forall: the chunk size (unless per sequence, below) and the
  // workspaces.
  b.setInsertionPoint(forall);
  // A run-time count below 1 counts as 1 (no division by zero, no empty
  // grid); one above the number of K/V blocks leaves splits without keys,
  // which the merge weighs 0.
  numSplits = splits ? index(splits)
                     : arith::MaxSIOp::create(b, loc, runtimeSplits, index(1))
                           .getResult();
  auto chunkOf = [&](Value keys) -> Value {
    // (One op per statement: the order of a call's arguments is
    // unspecified, and with it the order of the ops.)
    Value blocks = arith::CeilDivUIOp::create(b, loc, keys, index(blockN));
    Value perSplit = arith::CeilDivUIOp::create(b, loc, blocks, numSplits);
    return arith::MulIOp::create(b, loc, perSplit, index(blockN));
  };
  Value chunk;
  if (!perSequence)
    chunk = chunkOf(getValueOrCreateConstantIndexOp(
        b, loc,
        tensor::getMixedSize(b, loc, t.kvLoops.front().key.source(), 2)));

  Value outInit = forall.getOutputs()[outIndex];
  auto outTy = cast<RankedTensorType>(outInit.getType());
  // O's sizes [B, H, Nq, Dv], the dynamic ones read off Q [B, H, Nq, D]
  // (the tensor the loop nest reads): a GPU launch plan can then express
  // the workspaces in the sizes of the tensors its kernels take.
  SmallVector<OpFoldResult> outSizes;
  for (int64_t i = 0; i < 4; ++i)
    outSizes.push_back(
        outTy.isDynamicDim(i)
            // (A size that folds to a constant is static everywhere.)
            ? getAsOpFoldResult(getValueOrCreateConstantIndexOp(
                  b, loc, tensor::getMixedSize(b, loc, t.query.source(), i)))
            : OpFoldResult(b.getIndexAttr(outTy.getDimSize(i))));
  SmallVector<OpFoldResult> wsSizes = outSizes;
  Value batch = getValueOrCreateConstantIndexOp(b, loc, wsSizes[0]);
  wsSizes[0] = timesSplits(wsSizes[0]);
  Value wsOut = tensor::EmptyOp::create(b, loc, wsSizes, f32);
  Value wsLse = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>(wsSizes).take_front(3), f32);

  SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
  // The Q blocks, for the iteration's split and Q block below.
  Value qBlocks = getValueOrCreateConstantIndexOp(b, loc, ubs[2]);
  ubs[2] = timesSplits(ubs[2]);
  auto split = scf::ForallOp::create(
      b, loc, forall.getMixedLowerBound(), ubs, forall.getMixedStep(),
      ValueRange{wsOut, wsLse}, forall.getMapping());
  // Discardable attributes (the tiling's choices, e.g. fa.kv_stages) stay.
  for (NamedAttribute attr : forall->getDiscardableAttrs())
    split->setAttr(attr.getName(), attr.getValue());
  split->setAttr(kSplitKVAttrName, b.getUnitAttr());
  Block *body = split.getBody();
  b.eraseOp(body->getTerminator());

  // Iteration i: Q block i mod QB, split i / QB (the Q blocks of one split
  // are neighbours, as in FlashAttention's split kernel: they read the same
  // keys), keys [lo, lo + chunk). A decode step has one Q block: split i.
  // (Dividing by QB, not by S, keeps the index math cheap when S is a
  // run-time value: QB is static for a static Nq, and ptxas recomputes a
  // division by a constant instead of keeping its result live.)
  b.setInsertionPointToStart(body);
  Value iv = body->getArgument(2);
  Value qBlock = b.createOrFold<arith::RemUIOp>(loc, iv, qBlocks);
  Value s = b.createOrFold<arith::DivUIOp>(loc, iv, qBlocks);
  auto chunkBounds = [&](Value chunk) -> std::pair<Value, Value> {
    Value lo = arith::MulIOp::create(b, loc, s, chunk);
    return {lo, arith::AddIOp::create(b, loc, lo, chunk)};
  };
  Value lo, hi;
  if (!perSequence)
    std::tie(lo, hi) = chunkBounds(chunk);
  Value splitBatch = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, s, batch), body->getArgument(0));

  SmallVector<Value> replacements = {body->getArgument(0),
                                     body->getArgument(1), qBlock};
  for (unsigned i = 0, e = forall.getNumResults(); i < e; ++i)
    replacements.push_back(i == lseIndex ? body->getArgument(4)
                                         : body->getArgument(3));
  b.mergeBlocks(forall.getBody(), body, replacements);

  // Every bound x of the chain becomes min(max(x, lo), hi), once per
  // value: monotone, so consecutive loops stay consecutive (one loop's end
  // is the next one's start, which --fa-pipeline-kv relies on), and whole
  // blocks stay whole blocks.
  // All are computed before the first loop, where --fa-pipeline-kv issues
  // the chain's first loads.
  b.setInsertionPoint(first);
  if (perSequence)
    std::tie(lo, hi) = chunkBounds(chunkOf(keyLimit));
  DenseMap<Value, Value> clamped;
  auto clamp = [&](Value bound) {
    Value &c = clamped[bound];
    if (!c)
      c = arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, bound, lo), hi);
    return c;
  };
  for (KVLoop &kv : t.kvLoops) {
    Value lower = clamp(kv.loop.getLowerBound());
    Value upper = clamp(kv.loop.getUpperBound());
    kv.loop.getLowerBoundMutable().assign(lower);
    kv.loop.getUpperBoundMutable().assign(upper);
  }

  // The split's own normalisation, in f32, and its stores.
  FinalizeOp finalize = t.finalize;
  b.setInsertionPoint(finalize);
  auto oldOutTy = cast<RankedTensorType>(finalize.getOut().getType());
  auto partial = FinalizeOp::create(
      b, loc, RankedTensorType::get(oldOutTy.getShape(), f32,
                                    oldOutTy.getEncoding()),
      finalize.getLse().getType(), finalize.getAcc(), finalize.getMax(),
      finalize.getSum());
  b.setInsertionPoint(body->getTerminator());
  auto oldOutRows = t.storeOut.getSource().getDefiningOp<tensor::ExtractSliceOp>();
  Value outRows = rowsOf(partial.getOut(), oldOutRows);
  Value lseRows;
  if (t.storeLse) {
    lseRows = rowsOf(partial.getLse(),
                     t.storeLse.getSource().getDefiningOp<tensor::ExtractSliceOp>());
  } else {
    // Without an LSE result the split still needs its LSE: the O rows' count.
    OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
    OpFoldResult rows = oldOutRows.getMixedSizes()[0];
    auto lseTy = cast<RankedTensorType>(partial.getLse().getType());
    int64_t staticRows = getConstantIntValue(rows).value_or(ShapedType::kDynamic);
    lseRows = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({staticRows}, f32, lseTy.getEncoding()),
        partial.getLse(), ArrayRef<OpFoldResult>{zero},
        ArrayRef<OpFoldResult>{rows}, ArrayRef<OpFoldResult>{one});
  }
  b.setInsertionPointToStart(&split.getTerminator().getRegion().front());
  store(outRows, body->getArgument(3), t.storeOut, 4, splitBatch);
  store(lseRows, body->getArgument(4), t.storeOut, 3, splitBatch);
  Operation *oldLseRows =
      t.storeLse ? t.storeLse.getSource().getDefiningOp() : nullptr;
  b.eraseOp(t.storeOut);
  b.eraseOp(oldOutRows);
  if (t.storeLse) {
    b.eraseOp(t.storeLse);
    b.eraseOp(oldLseRows);
  }
  b.eraseOp(finalize);

  // After the forall: [S * B, ...] as [S, B, ...], merged by LSE.
  b.setInsertionPointAfter(split);
  SmallVector<OpFoldResult> partialShape = {
      splits ? OpFoldResult(b.getIndexAttr(splits)) : numSplits};
  llvm::append_range(partialShape, outSizes);
  auto expand = [&](Value ws, int64_t rank) {
    SmallVector<int64_t> shape = {splits ? splits : ShapedType::kDynamic};
    for (OpFoldResult d : ArrayRef(outSizes).take_front(rank))
      shape.push_back(getConstantIntValue(d).value_or(ShapedType::kDynamic));
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (int64_t i = 2; i <= rank; ++i)
      groups.push_back({i});
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, f32), ws, groups,
        ArrayRef<OpFoldResult>(partialShape).take_front(rank + 1));
  };
  Value partialOut = expand(split.getResult(0), 4);
  Value partialLse = expand(split.getResult(1), 3);
  Type lseTy = lseIndex ? forall.getResult(*lseIndex).getType()
                        : RankedTensorType::get(outTy.getShape().take_front(3), f32);
  auto combine = CombineSplitsOp::create(b, loc, outTy, lseTy, partialOut,
                                         partialLse);
  SmallVector<Value> results(forall.getNumResults());
  results[outIndex] = combine.getOut();
  if (lseIndex)
    results[*lseIndex] = combine.getLse();
  b.replaceOp(forall, results);
  return success();
}

struct FASplitKVPass : fa::impl::FASplitKVBase<FASplitKVPass> {
  using Base::Base;

  void runOnOperation() override {
    if (splits < 0 || splits > kMaxSplits) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-split-kv: option splits must be in [0, " << kMaxSplits
          << "] (0: a run-time count), got " << splits.getValue();
      return signalPassFailure();
    }
    if (splits == 1)
      return;
    SmallVector<scf::ForallOp> foralls;
    getOperation()->walk([&](scf::ForallOp forall) {
      foralls.push_back(forall);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp forall : foralls) {
      FailureOr<TiledAttention> tiled =
          matchTiledAttention(forall, /*diagnose=*/false);
      if (failed(tiled)) {
        // Tile ops that the pass cannot read (after --fa-pipeline-kv, whose
        // loads are fa.async_load/fa.await): say so rather than leave the
        // nest unsplit.
        bool tiles = forall.getBody()
                         ->walk([](QKOp) { return WalkResult::interrupt(); })
                         .wasInterrupted();
        bool backward =
            forall.getBody()
                ->walk([](Operation *op) {
                  return isa<ProbsFromLseOp, ScoreGradOp, RowDotOp>(op)
                             ? WalkResult::interrupt()
                             : WalkResult::advance();
                })
                .wasInterrupted();
        if (backward) {
          forall.emitError("fa-split-kv: split-KV splits the K/V loop of a "
                           "forward attention; this loop nest is a kernel of "
                           "fa.attention_backward, which has no split form "
                           "(leave splits at 1)");
          return signalPassFailure();
        }
        if (!tiles)
          continue;
        forall.emitError("fa-split-kv: cannot split this loop nest: run the "
                         "pass on the tiled nest (after "
                         "--fa-causal-block-skip, before --fa-pipeline-kv)");
        return signalPassFailure();
      }
      if (isSplit(forall)) {
        forall.emitError("fa-split-kv: the loop nest is split already (its "
                         "results feed fa.combine_splits)");
        return signalPassFailure();
      }
      Value runtimeSplits;
      if (splits == 0) {
        auto func = forall->getParentOfType<FunctionOpInterface>();
        if (!func) {
          forall.emitError("fa-split-kv: splits=0 (a run-time split count) "
                           "needs the loop nest in a function, whose "
                           "argument holds the count");
          return signalPassFailure();
        }
        FailureOr<Value> arg = numSplitsArgument(func, forall);
        if (failed(arg))
          return signalPassFailure();
        runtimeSplits = *arg;
      }
      if (failed(KVSplitter(rewriter, *tiled, splits, runtimeSplits).split()))
        return signalPassFailure();
    }
  }
};

} // namespace
