//===- TiledAttention.cpp - Recognise the tiled loop nest -----------------===//

#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <functional>

using namespace mlir;
using namespace mlir::fa;

/// Whether `statics` has one kDynamic entry per value of `dynamics` and
/// `rank` entries. The parser takes a literal -9223372036854775808 (the
/// kDynamic sentinel) in `high[...]` without an operand, and upstream's
/// verifier lets it through; getMixedHighPad() would then read a missing
/// operand (found by the fuzzer: test/Transforms/map-warps-invalid.mlir).
static bool hasMatchingOperands(ArrayRef<int64_t> statics,
                                ValueRange dynamics, int64_t rank) {
  return static_cast<int64_t>(statics.size()) == rank &&
         llvm::count(statics, ShapedType::kDynamic) ==
             static_cast<int64_t>(dynamics.size());
}

std::optional<bool>
mlir::fa::sliceRowsAlongHeads(ArrayRef<OpFoldResult> sizes) {
  auto isOne = [](OpFoldResult ofr) {
    std::optional<int64_t> v = getConstantIntValue(ofr);
    return v && *v == 1;
  };
  if (sizes.size() < 3 || !isOne(sizes[0]))
    return std::nullopt;
  if (isOne(sizes[1]))
    return false;
  if (isOne(sizes[2]))
    return true;
  return std::nullopt;
}

FailureOr<TileLoad> mlir::fa::matchTileLoad(Value tile) {
  auto pad = tile.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getResultType().getRank() != 2 ||
      !pad.getResultType().hasStaticShape() ||
      !hasMatchingOperands(pad.getStaticLow(), pad.getLow(), 2) ||
      !hasMatchingOperands(pad.getStaticHigh(), pad.getHigh(), 2))
    return failure();
  auto slice = pad.getSource().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSourceType().getRank() != 4 ||
      slice.getType().getRank() != 2 || !slice.hasUnitStride() ||
      !hasMatchingOperands(slice.getStaticOffsets(), slice.getOffsets(), 4) ||
      !hasMatchingOperands(slice.getStaticSizes(), slice.getSizes(), 4))
    return failure();
  // Rows of one head, padded at the end with zeros.
  auto isZero = [](OpFoldResult ofr) {
    std::optional<int64_t> v = getConstantIntValue(ofr);
    return v && *v == 0;
  };
  // Rows along the sequence (one batch, one head) or along the heads (one
  // batch, one position: GQA packing); nothing else.
  std::optional<bool> alongHeads =
      sliceRowsAlongHeads(slice.getMixedSizes());
  if (!llvm::all_of(pad.getMixedLowPad(), isZero) ||
      !isZero(pad.getMixedHighPad()[1]) ||
      !isZero(slice.getMixedOffsets()[3]) || !alongHeads)
    return failure();
  Value padValue = pad.getConstantPaddingValue();
  if (!padValue || !matchPattern(padValue, m_AnyZeroFloat()))
    return failure();
  return TileLoad{pad, slice, *alongHeads};
}

namespace {
FailureOr<KVLoop> matchKVLoop(scf::ForOp loop) {
  KVLoop kv;
  kv.loop = loop;
  for (Operation &op : *loop.getBody()) {
    if (auto qk = dyn_cast<QKOp>(op))
      kv.qk = qk;
    else if (auto mask = dyn_cast<MaskOp>(op))
      kv.mask = mask;
    else if (auto pv = dyn_cast<PVOp>(op))
      kv.pv = pv;
  }
  if (!kv.qk || !kv.pv || loop.getNumRegionIterArgs() != 3)
    return failure();
  FailureOr<TileLoad> key = matchTileLoad(kv.qk.getKey());
  FailureOr<TileLoad> value = matchTileLoad(kv.pv.getValue());
  if (failed(key) || failed(value))
    return failure();
  kv.key = *key;
  kv.value = *value;
  return kv;
}
} // namespace

FailureOr<TiledAttention> mlir::fa::matchTiledAttention(scf::ForallOp forall,
                                                        bool diagnose) {
  auto fail = [&](const Twine &what) -> FailureOr<TiledAttention> {
    if (diagnose)
      forall.emitError("not a tiled fa.attention loop nest: ") << what;
    return failure();
  };
  TiledAttention tiled;
  tiled.forall = forall;
  if (forall.getRank() != 3)
    return fail("expected an scf.forall over (batch, head, Q block)");

  for (Operation &op : *forall.getBody()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      FailureOr<KVLoop> kv = matchKVLoop(loop);
      if (failed(kv))
        return fail("an scf.for in the body is not a K/V loop of tile ops");
      tiled.kvLoops.push_back(*kv);
    } else if (auto finalize = dyn_cast<FinalizeOp>(op)) {
      tiled.finalize = finalize;
    }
  }
  if (tiled.kvLoops.empty() || !tiled.finalize)
    return fail("expected K/V loops followed by fa.finalize");

  // The loops are chained: each starts from its predecessor's state, and
  // fa.finalize consumes the last one's.
  for (size_t i = 1; i < tiled.kvLoops.size(); ++i)
    if (tiled.kvLoops[i].loop.getInitArgs() !=
        ValueRange(tiled.kvLoops[i - 1].loop.getResults()))
      return fail("K/V loops are not chained through their iter_args");
  scf::ForOp last = tiled.kvLoops.back().loop;
  if (tiled.finalize.getAcc() != last.getResult(2) ||
      tiled.finalize.getMax() != last.getResult(0) ||
      tiled.finalize.getSum() != last.getResult(1))
    return fail("fa.finalize does not consume the last K/V loop's state");

  // The query tile, possibly moved to registers by --fa-map-warps.
  auto queryTile = [](QKOp qk) {
    Value q = qk.getQuery();
    if (auto convert = q.getDefiningOp<ConvertLayoutOp>())
      q = convert.getSource();
    return q;
  };
  FailureOr<TileLoad> query = matchTileLoad(queryTile(tiled.kvLoops.front().qk));
  if (failed(query))
    return fail("the query tile is not a padded slice of a 4-D tensor");
  tiled.query = *query;
  for (KVLoop &kv : tiled.kvLoops)
    if (queryTile(kv.qk) != tiled.query.pad.getResult())
      return fail("all K/V loops must read the same query tile");

  // The stores of the valid rows of O (rank 4) and LSE (rank 3).
  for (Operation &op : forall.getTerminator().getYieldingOps()) {
    auto store = dyn_cast<tensor::ParallelInsertSliceOp>(op);
    if (!store)
      return fail("unexpected op in scf.forall.in_parallel");
    auto rows = store.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    if (!rows)
      return fail("stored rows are not a slice of the fa.finalize results");
    if (rows.getSource() == tiled.finalize.getOut())
      tiled.storeOut = store;
    else if (rows.getSource() == tiled.finalize.getLse())
      tiled.storeLse = store;
    else
      return fail("stored rows are not a slice of the fa.finalize results");
  }
  if (!tiled.storeOut)
    return fail("O is never stored");
  return tiled;
}

std::optional<std::pair<QKOp, PVOp>>
mlir::fa::findBlockProducts(Block *body) {
  QKOp qk;
  PVOp pv;
  for (Operation &op : *body) {
    if (auto q = dyn_cast<QKOp>(op)) {
      if (qk)
        return std::nullopt;
      qk = q;
    } else if (auto p = dyn_cast<PVOp>(op)) {
      if (pv)
        return std::nullopt;
      pv = p;
    }
  }
  if (!qk || !pv)
    return std::nullopt;
  return std::make_pair(qk, pv);
}

int64_t mlir::fa::blockKeys(scf::ForOp loop) {
  std::optional<std::pair<QKOp, PVOp>> products =
      findBlockProducts(loop.getBody());
  if (!products)
    return 0;
  return cast<ShapedType>(products->first.getKey().getType()).getDimSize(0);
}

bool mlir::fa::isMultipleOf(Value v, int64_t n) {
  // Bounded depth: the bounds are short expressions, and a long chain is not
  // worth walking.
  std::function<bool(Value, int)> walk = [&](Value x, int depth) {
    if (std::optional<int64_t> c = getConstantIntValue(x))
      return *c % n == 0;
    Operation *def = x.getDefiningOp();
    if (!def || depth > 16)
      return false;
    if (auto mul = dyn_cast<arith::MulIOp>(def))
      return walk(mul.getLhs(), depth + 1) || walk(mul.getRhs(), depth + 1);
    if (isa<arith::AddIOp, arith::SubIOp, arith::MinSIOp, arith::MaxSIOp,
            arith::MinUIOp, arith::MaxUIOp>(def))
      return walk(def->getOperand(0), depth + 1) &&
             walk(def->getOperand(1), depth + 1);
    if (auto select = dyn_cast<arith::SelectOp>(def))
      return walk(select.getTrueValue(), depth + 1) &&
             walk(select.getFalseValue(), depth + 1);
    return false;
  };
  return walk(v, 0);
}

ExtraLiveValues mlir::fa::collectExtraLiveValues(Operation *op) {
  ExtraLiveValues extras;
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!scope)
    return extras;
  scope->walk([&](Operation *inner) {
    if (auto mask = dyn_cast<fa::MaskOp>(inner))
      extras.window |= static_cast<bool>(mask.getWindowOffset());
    else if (isa<fa::SoftcapOp>(inner))
      extras.softcap = true;
    else if (isa<tensor::ExtractOp, fa::VarlenBlockOp>(inner)) {
      // Per-sequence bounds read from memory (a K/V cache's key counts, a
      // packed sequence's offsets), unless the kernel keeps them in
      // shared memory, where they hold no registers.
      auto nest = inner->getParentOfType<scf::ForallOp>();
      if (nest && nest->hasAttr(kStageBlockScalarsAttrName))
        return;
      auto extract = dyn_cast<tensor::ExtractOp>(inner);
      extras.sequenceBounds |=
          !extract ||
          extract.getTensor().getType().getElementType().isInteger();
    }
  });
  return extras;
}

int64_t mlir::fa::countExtraLiveValues(Operation *op) {
  return collectExtraLiveValues(op).count();
}

int64_t mlir::fa::countExtraLiveValues(AttentionOp op) {
  std::optional<int64_t> left = op.getWindowLeft();
  bool window = left && *left >= 0;
  bool sequenceBounds = op.getKeyLengths() || op.isVarlen();
  return int64_t(window) + int64_t(static_cast<bool>(op.getSoftcap())) +
         int64_t(sequenceBounds);
}
