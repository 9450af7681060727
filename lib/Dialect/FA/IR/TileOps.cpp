//===- TileOps.cpp - Verifiers of the tile-level fa ops -------------------===//
//
// Tile values are static 2-D tiles ([rows, cols]) or per-row 1-D vectors
// ([rows]). From stage L3 on they carry a layout encoding (set by
// --fa-map-warps); then every tile of an op must have one, of the role the
// op's GPU lowering reads, and all must name the same atom and warps. The
// encodings themselves are checked by the tensor type (VerifiableTensorEncoding).
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fa;

namespace {
/// Checks one operand or result: static, the given rank, optionally f32.
LogicalResult checkTile(Operation *op, Type type, StringRef name, int64_t rank,
                        bool mustBeF32) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError() << name << " must be a ranked tensor, got "
                             << type;
  if (tensor.getRank() != rank)
    return op->emitOpError() << name << " must be a rank-" << rank
                             << " tile, got " << type;
  if (!tensor.hasStaticShape())
    return op->emitOpError() << name << " must have a static shape, got "
                             << type;
  if (tensor.getNumElements() == 0)
    return op->emitOpError() << name << " must not be empty, got " << type;
  Type elem = tensor.getElementType();
  if (mustBeF32 && !elem.isF32())
    return op->emitOpError() << name << " must have f32 elements, got "
                             << type;
  if (!elem.isF16() && !elem.isBF16() && !elem.isF32())
    return op->emitOpError() << name << " must have f16, bf16 or f32 elements, got "
                             << type;
  return success();
}

int64_t dim(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}
Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Per-row state (`m`, `l`, `alpha`) of a tile with `rows` rows.
LogicalResult checkRowVector(Operation *op, Value v, StringRef name,
                             int64_t rows) {
  if (failed(checkTile(op, v.getType(), name, 1, /*mustBeF32=*/true)))
    return failure();
  if (dim(v, 0) != rows)
    return op->emitOpError() << name << " must have one entry per row ("
                             << rows << "), got " << v.getType();
  return success();
}

/// The layouts a tile of an op may have once the op has layouts.
enum class Home { Acc, OperandA, Rows, PartialRows, Shared };

StringRef homeName(Home h) {
  switch (h) {
  case Home::Acc:
    return "#fa.warp_rows<acc>";
  case Home::OperandA:
    return "#fa.warp_rows<operand_a>";
  case Home::Rows:
    return "#fa.warp_rows<rows>";
  case Home::PartialRows:
    return "#fa.warp_rows<partial_rows>";
  case Home::Shared:
    return "#fa.block_shared";
  }
  return "";
}

std::optional<Home> homeOf(Attribute encoding) {
  if (isa_and_nonnull<BlockSharedAttr>(encoding))
    return Home::Shared;
  auto rows = dyn_cast_or_null<WarpRowsAttr>(encoding);
  if (!rows)
    return std::nullopt;
  switch (rows.getRole()) {
  case FragmentRole::Acc:
    return Home::Acc;
  case FragmentRole::OperandA:
    return Home::OperandA;
  case FragmentRole::Rows:
    return Home::Rows;
  case FragmentRole::PartialRows:
    return Home::PartialRows;
  }
  return std::nullopt;
}

/// One tile of an op and the layouts it may have: the homes, and how
/// groups of warps (replicas) may share it (only whole tiles unless said).
struct TileLayout {
  Value value;
  StringRef name;
  SmallVector<Home, 2> allowed;
  SmallVector<ReplicaShare, 3> shares = {ReplicaShare::Whole};
};

ReplicaShare shareOf(Value v) {
  auto rows = dyn_cast_or_null<WarpRowsAttr>(getTileEncoding(v.getType()));
  return rows ? rows.getShare() : ReplicaShare::Whole;
}

/// Groups of warps that divide the keys of a block (`split`: scores or P
/// with share = columns) each add up only their own keys: what they
/// accumulate into (`summed`) holds per-group summands (share = sum), and
/// only then.
LogicalResult checkKeysSplit(Operation *op, Value split, StringRef splitName,
                             Value summed, StringRef summedName) {
  bool columns = shareOf(split) == ReplicaShare::Columns;
  bool sum = shareOf(summed) == ReplicaShare::Sum;
  if (columns == sum)
    return success();
  return op->emitOpError()
         << summedName << " must have share = sum exactly when " << splitName
         << " has share = columns (groups of warps that see different keys "
            "hold summands), got "
         << summed.getType() << " with " << split.getType();
}

/// Either no tile has a layout encoding (L1/L2) or every tile has one of
/// its allowed layouts, all of one atom, and all warp_rows tiles the same
/// number of warps (L3).
LogicalResult checkLayouts(Operation *op, ArrayRef<TileLayout> tiles) {
  int encoded = 0;
  for (const TileLayout &t : tiles)
    encoded += getTileEncoding(t.value.getType()) ? 1 : 0;
  if (encoded == 0)
    return success();
  MmaAtomAttrInterface atom;
  std::optional<int64_t> numWarps;
  for (const TileLayout &t : tiles) {
    Attribute encoding = getTileEncoding(t.value.getType());
    std::optional<Home> home = homeOf(encoding);
    if (!home || !llvm::is_contained(t.allowed, *home)) {
      InFlightDiagnostic diag = op->emitOpError()
                                << t.name << " must have the layout ";
      llvm::interleave(
          t.allowed, diag, [&](Home h) { diag << homeName(h); }, " or ");
      diag << " once the op has layouts, got " << t.value.getType();
      return diag;
    }
    MmaAtomAttrInterface tileAtom = getTileAtom(t.value.getType());
    if (atom && tileAtom != atom)
      return op->emitOpError("all tiles must name the same MMA atom, got ")
             << atom << " and " << tileAtom << " (" << t.name << ")";
    atom = tileAtom;
    if (auto rows = dyn_cast<WarpRowsAttr>(encoding)) {
      if (numWarps && *numWarps != rows.getNumWarps())
        return op->emitOpError("all tiles held by warps must use the same "
                               "num_warps, got ")
               << *numWarps << " and " << rows.getNumWarps() << " ("
               << t.name << ")";
      numWarps = rows.getNumWarps();
      if (!llvm::is_contained(t.shares, rows.getShare())) {
        InFlightDiagnostic diag = op->emitOpError()
                                  << t.name << " must have share = ";
        llvm::interleave(
            t.shares, diag,
            [&](ReplicaShare s) { diag << stringifyReplicaShare(s); }, " or ");
        return diag << ", got " << t.value.getType();
      }
    }
  }
  return success();
}

const SmallVector<Home, 2> kAcc = {Home::Acc};
const SmallVector<Home, 2> kRows = {Home::Rows};
const SmallVector<Home, 2> kSum = {Home::Rows, Home::PartialRows};
const SmallVector<Home, 2> kShared = {Home::Shared};
const SmallVector<Home, 2> kOperandA = {Home::OperandA};
/// Scores and P may have their columns (keys) divided between groups, as
/// may the backward's tiles on a warp grid (queries, head-dim columns);
/// accumulators and running sums may be per-group summands.
const SmallVector<ReplicaShare, 3> kKeysSplit = {ReplicaShare::Whole,
                                                 ReplicaShare::Columns};
const SmallVector<ReplicaShare, 3> kSummands = {ReplicaShare::Whole,
                                                ReplicaShare::Sum};
/// fa.pv's accumulator: per-group summands (groups that divide the keys),
/// or column shares (groups that divide its columns: the backward's dK/dV
/// nest on a [num_warps, replicas] warp grid).
const SmallVector<ReplicaShare, 3> kAccShares = {
    ReplicaShare::Whole, ReplicaShare::Sum, ReplicaShare::Columns};

/// Scores, running max and running sum of the softmax ops.
LogicalResult checkSoftmaxState(Operation *op, Value scores, Value max,
                                Value sum) {
  if (failed(checkTile(op, scores.getType(), "scores", 2, true)))
    return failure();
  int64_t rows = dim(scores, 0);
  if (failed(checkRowVector(op, max, "running max", rows)) ||
      failed(checkRowVector(op, sum, "running sum", rows)))
    return failure();
  return success();
}

/// The layouts of the softmax ops' scores, running max and running sum:
/// key groups divide the scores and hold per-group running sums.
LogicalResult checkSoftmaxLayouts(Operation *op, Value scores, Value max,
                                  Value sum) {
  if (failed(checkLayouts(op, {{scores, "scores", kAcc, kKeysSplit},
                               {max, "running max", kRows},
                               {sum, "running sum", kSum, kSummands}})))
    return failure();
  return checkKeysSplit(op, scores, "scores", sum, "running sum");
}

/// An async matmul's result is read through fa.mma_wait only: reading it
/// anywhere else would read registers an MMA may still be writing.
LogicalResult checkAsyncUses(Operation *op, bool async) {
  if (!async)
    return success();
  for (Operation *user : op->getResult(0).getUsers())
    if (!isa<MmaWaitOp>(user))
      return op->emitOpError("is async: its result may be read only through "
                             "fa.mma_wait, but '")
             << user->getName() << "' uses it";
  return success();
}
} // namespace

LogicalResult MmaWaitOp::verify() {
  if (getPendingAttr().getInt() < 0)
    return emitOpError("pending must be non-negative, got ")
           << getPendingAttr().getInt();
  Operation *def = getAcc().getDefiningOp();
  auto qk = dyn_cast_or_null<QKOp>(def);
  auto pv = dyn_cast_or_null<PVOp>(def);
  if (!(qk && qk.getAsync()) && !(pv && pv.getAsync()))
    return emitOpError("waits for the result of an async fa.qk or fa.pv, "
                       "got a value that is not one");
  return success();
}

LogicalResult QKOp::verify() {
  if (failed(checkAsyncUses(*this, getAsync())))
    return failure();
  if (failed(checkTile(*this, getQuery().getType(), "query tile", 2, false)) ||
      failed(checkTile(*this, getKey().getType(), "key tile", 2, false)) ||
      failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  if (elementType(getQuery()) != elementType(getKey()))
    return emitOpError("query and key tiles must have the same element type, got ")
           << getQuery().getType() << " and " << getKey().getType();
  if (dim(getQuery(), 1) != dim(getKey(), 1))
    return emitOpError("query and key tiles must have the same head dim, got ")
           << getQuery().getType() << " and " << getKey().getType();
  if (dim(getScores(), 0) != dim(getQuery(), 0) ||
      dim(getScores(), 1) != dim(getKey(), 0))
    return emitOpError("scores must be [query rows, key rows] = [")
           << dim(getQuery(), 0) << ", " << dim(getKey(), 0) << "], got "
           << getScores().getType();
  return checkLayouts(*this, {{getQuery(), "query tile",
                               {Home::OperandA, Home::Shared}},
                              {getKey(), "key tile", kShared},
                              {getScores(), "scores", kAcc, kKeysSplit}});
}

LogicalResult VarlenBlockOp::verify() {
  for (auto [value, name] : {std::pair(getCuSeqlensQ(), "cu_seqlens_q"),
                              std::pair(getCuSeqlensK(), "cu_seqlens_k")}) {
    auto ty = cast<ShapedType>(value.getType());
    if (ty.getRank() != 1)
      return emitOpError() << name << " must be rank-1 i32 [S + 1], got "
                           << value.getType();
  }
  int64_t qEntries = getCuSeqlensQ().getType().getDimSize(0),
          kEntries = getCuSeqlensK().getType().getDimSize(0);
  if (!ShapedType::isDynamic(qEntries) && !ShapedType::isDynamic(kEntries) &&
      qEntries != kEntries)
    return emitOpError("cu_seqlens_q and cu_seqlens_k must have S + 1 "
                       "entries each, got ")
           << qEntries << " and " << kEntries;
  if (getBlockRows() <= 0)
    return emitOpError("block_rows must be positive, got ") << getBlockRows();
  return success();
}

LogicalResult MaskOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  if (!getKeyLimit() && !getCausalOffset() && !getWindowOffset())
    return emitOpError("needs a key_limit, a causal_offset or a "
                       "window_offset");
  if (getTransposed() && getSingleQuery())
    return emitOpError("takes transposed (rows are keys) or single_query "
                       "(rows are heads of one query), not both");
  return checkLayouts(*this, {{getScores(), "scores", kAcc, kKeysSplit}});
}

LogicalResult SoftcapOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)))
    return failure();
  return checkLayouts(*this, {{getScores(), "scores", kAcc, kKeysSplit}});
}

LogicalResult OnlineSoftmaxOp::verify() {
  if (failed(checkSoftmaxState(*this, getScores(), getMax(), getSum())))
    return failure();
  return checkSoftmaxLayouts(*this, getScores(), getMax(), getSum());
}

LogicalResult RunningMaxOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)) ||
      failed(checkRowVector(*this, getMax(), "running max",
                            dim(getScores(), 0))))
    return failure();
  return checkLayouts(*this, {{getScores(), "scores", kAcc, kKeysSplit},
                              {getMax(), "running max", kRows}});
}

LogicalResult SoftmaxExpOp::verify() {
  if (failed(checkSoftmaxState(*this, getScores(), getNewMax(), getSum())))
    return failure();
  return checkSoftmaxLayouts(*this, getScores(), getNewMax(), getSum());
}

LogicalResult RescaleOp::verify() {
  if (failed(checkTile(*this, getAcc().getType(), "accumulator", 2, true)) ||
      failed(checkRowVector(*this, getAlpha(), "alpha", dim(getAcc(), 0))))
    return failure();
  return checkLayouts(*this, {{getAcc(), "accumulator", kAcc, kSummands},
                              {getAlpha(), "alpha", kRows}});
}

LogicalResult PVOp::verify() {
  if (failed(checkAsyncUses(*this, getAsync())))
    return failure();
  if (failed(checkTile(*this, getProbs().getType(), "P", 2, false)) ||
      failed(checkTile(*this, getValue().getType(), "value tile", 2, false)) ||
      failed(checkTile(*this, getAcc().getType(), "accumulator", 2, true)))
    return failure();
  if (elementType(getProbs()) != elementType(getValue()))
    return emitOpError("P must have the element type of the value tile, got ")
           << getProbs().getType() << " and " << getValue().getType();
  if (dim(getProbs(), 1) != dim(getValue(), 0))
    return emitOpError("P columns must match value tile rows, got ")
           << getProbs().getType() << " and " << getValue().getType();
  if (dim(getAcc(), 0) != dim(getProbs(), 0) ||
      dim(getAcc(), 1) != dim(getValue(), 1))
    return emitOpError("accumulator must be [P rows, value cols] = [")
           << dim(getProbs(), 0) << ", " << dim(getValue(), 1) << "], got "
           << getAcc().getType();
  // P in shared memory: the atomic dQ's K^T (a transposed view of K), or
  // P^T and dS^T under column groups.
  if (failed(checkLayouts(
          *this, {{getProbs(), "P", {Home::OperandA, Home::Shared}, kKeysSplit},
                  {getValue(), "value tile", kShared},
                  {getAcc(), "accumulator", kAcc, kAccShares}})))
    return failure();
  if (shareOf(getAcc()) == ReplicaShare::Columns &&
      !isa_and_nonnull<BlockSharedAttr>(getTileEncoding(getProbs().getType())))
    return emitOpError("an accumulator whose groups of warps hold its "
                       "columns needs P in shared memory (every group reads "
                       "all of it), got ")
           << getProbs().getType();
  return checkKeysSplit(*this, getProbs(), "P", getAcc(), "accumulator");
}

LogicalResult FinalizeOp::verify() {
  if (failed(checkTile(*this, getAcc().getType(), "accumulator", 2, true)) ||
      failed(checkTile(*this, getOut().getType(), "output tile", 2, false)))
    return failure();
  if (dim(getOut(), 0) != dim(getAcc(), 0) ||
      dim(getOut(), 1) != dim(getAcc(), 1))
    return emitOpError("output tile must have the accumulator's shape, got ")
           << getOut().getType() << " for " << getAcc().getType();
  int64_t rows = dim(getAcc(), 0);
  if (failed(checkRowVector(*this, getMax(), "running max", rows)) ||
      failed(checkRowVector(*this, getSum(), "running sum", rows)))
    return failure();
  if (failed(checkLayouts(*this, {{getAcc(), "accumulator", kAcc, kSummands},
                                  {getMax(), "running max", kRows},
                                  {getSum(), "running sum", kSum, kSummands},
                                  {getOut(), "output tile", kAcc},
                                  {getLse(), "LSE", kRows}})))
    return failure();
  if (shareOf(getAcc()) != shareOf(getSum()))
    return emitOpError("accumulator and running sum must both be per-group "
                       "summands (share = sum) or neither, got ")
           << getAcc().getType() << " and " << getSum().getType();
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError("changes only the layout: shape and element type must "
                       "stay, got ")
           << source << " -> " << result;
  if (!getTileEncoding(source) || !getTileEncoding(result))
    return emitOpError("converts between fa layouts: both types need an "
                       "#fa.warp_rows or #fa.block_shared encoding, got ")
           << source << " -> " << result;
  if (getTileAtom(source) != getTileAtom(result))
    return emitOpError("cannot convert between tiles of different MMA "
                       "atoms: ")
           << source << " -> " << result;
  // Column shares of an acc tile may meet in one shared tile (each group
  // writes its columns).
  bool sharesMeet = shareOf(getSource()) == ReplicaShare::Columns &&
                    homeOf(getTileEncoding(source)) == Home::Acc &&
                    isa<BlockSharedAttr>(getTileEncoding(result));
  if (shareOf(getSource()) != shareOf(getResult()) && !sharesMeet)
    return emitOpError("keeps how groups of warps share the tile: share "
                       "must stay (or column shares of an acc tile go into "
                       "a shared tile), got ")
           << source << " -> " << result;
  return success();
}

LogicalResult WarpRowRangeOp::verify() {
  auto tile = cast<RankedTensorType>(getTile().getType());
  if (tile.getRank() < 1 || tile.isDynamicDim(0))
    return emitOpError("needs a tile with a static number of rows, got ")
           << tile;
  // How the rows split across warps is the encoding's to verify.
  return success();
}

LogicalResult AsyncLoadOp::verify() {
  auto future = cast<FutureType>(getFuture().getType());
  if (future.getTiles().size() != getSources().size())
    return emitOpError("loads one tile per source: ")
           << getSources().size() << " sources but the future holds "
           << future.getTiles().size() << " tiles";
  if (getNumSlotsAttr().getInt() < 1)
    return emitOpError("needs at least one slot, got ")
           << getNumSlotsAttr().getInt();
  if (std::optional<uint64_t> bytes = getL2Prefetch();
      bytes && !isValidL2PrefetchBytes(static_cast<int64_t>(*bytes)))
    return emitOpError("l2_prefetch must be 64, 128 or 256 bytes (PTX's "
                       ".L2::64B/128B/256B), got ")
           << static_cast<int64_t>(*bytes);
  for (auto [source, tile] : llvm::zip(getSources(), future.getTiles())) {
    auto sourceTy = cast<RankedTensorType>(source.getType());
    if (sourceTy.getRank() != 4)
      return emitOpError("sources are [B, H, N, D] tensors, got ") << sourceTy;
    if (tile.getRank() != 2 ||
        sourceTy.getElementType() != tile.getElementType() ||
        sourceTy.getDimSize(3) != tile.getDimSize(1))
      return emitOpError("each tile is [rows, D] of its source's element "
                         "type, got ")
             << tile << " from " << sourceTy;
  }
  if (std::optional<uint64_t> issuer = getIssuer()) {
    if (!getTma())
      return emitOpError("issuer(T) names the thread that issues a tma "
                         "load; cp.async loads are issued by every thread");
    if (static_cast<int64_t>(*issuer) < 0 ||
        static_cast<int64_t>(*issuer) >= 1024)
      return emitOpError("issuer must be a thread of the block (0..1023), "
                         "got ")
             << static_cast<int64_t>(*issuer);
  }
  if (getReleasePhase() && (!getTma() || getNumSlotsAttr().getInt() < 2))
    return emitOpError("after_release waits for a slot's release, which "
                       "only tma loads into a ring of 2 slots or more have");
  if (getTma()) {
    if (getAlongHeads() || getL2Prefetch())
      return emitOpError("tma copies rows of one head from a tensor map, "
                         "without along_heads or l2_prefetch (the map holds "
                         "the L2 promotion)");
    for (RankedTensorType tile : future.getTiles()) {
      auto shared = dyn_cast_or_null<BlockSharedAttr>(tile.getEncoding());
      // TMA's 128-byte swizzle writes 64-column blocks of 128-byte rows,
      // the swizzled #fa.wgmma layout; a box has at most 256 rows.
      if (!shared || !isa<WgmmaAtomAttr>(shared.getAtom()) ||
          !shared.getSwizzled() || shared.getTransposed() ||
          tile.getElementTypeBitWidth() != 16 || tile.getDimSize(1) % 64 != 0 ||
          tile.getDimSize(0) > 256 || tile.getDimSize(0) % 8 != 0)
        return emitOpError("tma loads 16-bit tiles of at most 256 rows (a "
                           "multiple of 8) and a multiple of 64 columns in "
                           "the swizzled #fa.wgmma layout "
                           "(#fa.block_shared<atom = #fa.wgmma, swizzled = "
                           "true>), got ")
               << tile;
    }
  }
  return success();
}

LogicalResult AwaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, AwaitOp::Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto future = dyn_cast<FutureType>(adaptor.getFuture().getType());
  if (!future)
    return emitOptionalError(loc, "expects a !fa.future operand");
  llvm::append_range(inferred, future.getTiles());
  return success();
}

LogicalResult AwaitOp::verify() {
  // I64Attr reads back unsigned: look at the signed value.
  if (getPendingAttr().getInt() < 0)
    return emitOpError("pending must be >= 0, got ")
           << getPendingAttr().getInt();
  // The future's loads are out of reach (a loop-carried value); when one
  // is in reach, the phase goes with tma loads and only with them.
  if (auto load = getFuture().getDefiningOp<AsyncLoadOp>();
      load && load.getTma() != static_cast<bool>(getPhase()))
    return emitOpError(load.getTma()
                           ? "awaits tma loads: name the mbarrier phase "
                             "with phase(%p)"
                           : "has a phase but awaits cp.async loads (no "
                             "tma)");
  // Only a TMA box brings rows past the loaded ones (cp.async zero-fills).
  if (getZeroFrom() && !getPhase())
    return emitOpError("zero_from(%n) needs tma loads (a phase(%p)): cp.async "
                       "loads zero-fill the rows past the loaded ones");
  return success();
}

LogicalResult MmaTurnOp::verify() {
  int64_t warpgroups = getWarpgroupsAttr().getInt();
  // A block has at most 1024 threads: 8 warpgroups.
  if (warpgroups < 2 || warpgroups > 8)
    return emitOpError("takes turns between 2 to 8 warpgroups, got ")
           << warpgroups;
  return success();
}

LogicalResult ReleaseOp::verify() {
  // As for fa.await: the loads are checked where they are in reach.
  if (auto load = getFuture().getDefiningOp<AsyncLoadOp>();
      load && !load.getReleasePhase())
    return emitOpError("releases a future whose load does not wait for "
                       "releases (no after_release(%p))");
  return success();
}

std::pair<RunningMaxOp, SoftmaxExpOp>
mlir::fa::splitOnlineSoftmax(RewriterBase &rewriter, OnlineSoftmaxOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type rowsTy = op.getMax().getType();
  auto runningMax =
      RunningMaxOp::create(rewriter, loc, rowsTy, rowsTy, op.getScores(),
                           op.getMax(), op.getScale());
  auto exp = SoftmaxExpOp::create(
      rewriter, loc, op.getScores().getType(), op.getSum().getType(),
      op.getScores(), runningMax.getNewMax(), runningMax.getAlpha(),
      op.getSum(), op.getScale());
  rewriter.replaceOp(op, {exp.getProbs(), runningMax.getNewMax(),
                          exp.getNewSum(), runningMax.getAlpha()});
  return {runningMax, exp};
}

LogicalResult CombineSplitsOp::verify() {
  auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  // Whole tensors ([S, B, H, Nq, Dv] -> [B, H, Nq, Dv]) or one tile of rows
  // ([S, R, Dv] -> [R, Dv], --fa-tile-combine): the output's rank decides.
  int64_t outRank = typeOf(getOut()).getRank();
  if (outRank != 4 && outRank != 2)
    return emitOpError() << "output must have rank 4 ([B, H, Nq, Dv]) or 2 (a "
                            "tile of rows [R, Dv]), got "
                         << getOut().getType();
  struct Operand {
    Value value;
    StringRef name;
    int64_t rank;
    bool mustBeF32;
  };
  for (Operand o :
       {Operand{getPartialOut(), "partial output", outRank + 1, true},
        Operand{getPartialLse(), "partial LSE", outRank, true},
        Operand{getOut(), "output", outRank, false},
        Operand{getLse(), "LSE", outRank - 1, true}}) {
    RankedTensorType t = typeOf(o.value);
    if (t.getRank() != o.rank)
      return emitOpError() << o.name << " must have rank " << o.rank
                           << ", got " << t;
    Type elem = t.getElementType();
    if (o.mustBeF32 ? !elem.isF32()
                    : !(elem.isF16() || elem.isBF16() || elem.isF32()))
      return emitOpError() << o.name << " must have "
                           << (o.mustBeF32 ? "f32" : "f16, bf16 or f32")
                           << " elements, got " << t;
  }
  // Only the tile form's results may carry layouts (of the same warps).
  for (Value v : {getPartialOut(), getPartialLse()})
    if (typeOf(v).getEncoding())
      return emitOpError("the partial results are read from memory and "
                         "carry no layout, got ")
             << v.getType();
  auto outRows = dyn_cast_or_null<WarpRowsAttr>(typeOf(getOut()).getEncoding());
  auto lseRows = dyn_cast_or_null<WarpRowsAttr>(typeOf(getLse()).getEncoding());
  if (static_cast<bool>(outRows) != static_cast<bool>(lseRows) ||
      (typeOf(getOut()).getEncoding() && !outRows) ||
      (typeOf(getLse()).getEncoding() && !lseRows))
    return emitOpError("the output and LSE tiles are both held by warps "
                       "(#fa.warp_rows) or both plain");
  // (A #fa.warp_rows type is a rank-2 tile, or rank 1 for rows: the
  // encoding's own verifier sees to that.)
  if (outRows) {
    if (outRows.getRole() != FragmentRole::Acc ||
        lseRows.getRole() != FragmentRole::Rows ||
        outRows.getNumWarps() != lseRows.getNumWarps() ||
        outRows.getAtom() != lseRows.getAtom())
      return emitOpError("the output tile must be in the acc role and the "
                         "LSE in the rows role of the same warps and atom");
  }
  // Dims that are both static must agree: [S, B, H, Nq, Dv] against
  // [S, B, H, Nq], [B, H, Nq, Dv] and [B, H, Nq] (or the tile form's).
  ArrayRef<int64_t> partial = typeOf(getPartialOut()).getShape();
  auto check = [&](Value v, StringRef name,
                   int64_t firstPartialDim) -> LogicalResult {
    ArrayRef<int64_t> shape = typeOf(v).getShape();
    for (auto [i, d] : llvm::enumerate(shape)) {
      int64_t p = partial[firstPartialDim + i];
      if (!ShapedType::isDynamic(d) && !ShapedType::isDynamic(p) && d != p)
        return emitOpError() << name << " " << v.getType()
                             << " does not match the partial output "
                             << getPartialOut().getType() << " in dim " << i;
    }
    return success();
  };
  if (failed(check(getPartialLse(), "partial LSE", 0)) ||
      failed(check(getOut(), "output", 1)) ||
      failed(check(getLse(), "LSE", 1)))
    return failure();
  if (partial[0] == 0)
    return emitOpError("needs at least one split, got ")
           << getPartialOut().getType();
  return success();
}

namespace {
/// A per-query vector (LSE, D) of a backward tile op: f32, one entry per
/// query of the tile (its rows, or its columns when `transposed`), and
/// never held by warps (the threads read it from memory).
LogicalResult checkQueryVector(Operation *op, Value v, StringRef name,
                               Value tile, bool transposed) {
  if (failed(checkRowVector(op, v, name, dim(tile, transposed ? 1 : 0))))
    return failure();
  if (getTileEncoding(v.getType()))
    return op->emitOpError()
           << name << " is read from memory by the threads that need it and "
                      "must not have a layout, got "
           << v.getType();
  return success();
}
} // namespace

LogicalResult ProbsFromLseOp::verify() {
  if (failed(checkTile(*this, getScores().getType(), "scores", 2, true)) ||
      failed(checkQueryVector(*this, getLse(), "LSE", getScores(),
                              getTransposed())))
    return failure();
  return checkLayouts(*this, {{getScores(), "scores", kAcc, kKeysSplit}});
}

LogicalResult ScoreGradOp::verify() {
  if (failed(checkTile(*this, getProbs().getType(), "P", 2, true)) ||
      failed(checkQueryVector(*this, getRowDot(), "D", getProbs(),
                              getTransposed())))
    return failure();
  if (getCapped() && getCapped().getType() != getProbs().getType())
    return emitOpError("capped scores must have the type of P, got ")
           << getCapped().getType() << " and " << getProbs().getType();
  if (static_cast<bool>(getCapped()) != static_cast<bool>(getCap()))
    return emitOpError("takes the capped scores and the cap together");
  SmallVector<TileLayout> tiles = {{getProbs(), "P", kAcc, kKeysSplit},
                                   {getGradProbs(), "dP", kAcc, kKeysSplit}};
  if (getCapped())
    tiles.push_back({getCapped(), "capped scores", kAcc, kKeysSplit});
  // (P, dP and dS have one type: the op's traits.)
  return checkLayouts(*this, tiles);
}

LogicalResult RowDotOp::verify() {
  if (failed(checkTile(*this, getGradOut().getType(), "dO tile", 2, false)) ||
      failed(checkTile(*this, getOut().getType(), "O tile", 2, false)))
    return failure();
  if (getGradOut().getType().getShape() != getOut().getType().getShape() ||
      elementType(getGradOut()) != elementType(getOut()))
    return emitOpError("dO and O tiles must have the same shape and element "
                       "type, got ")
           << getGradOut().getType() << " and " << getOut().getType();
  if (failed(checkRowVector(*this, getRowDot(), "D", dim(getOut(), 0))))
    return failure();
  for (Value operand : {getGradOut(), getOut()})
    if (getTileEncoding(operand.getType()))
      return emitOpError("dO and O tiles are read from memory and must not "
                         "have a layout, got ")
             << operand.getType();
  return checkLayouts(*this, {{getRowDot(), "D", kRows}});
}

LogicalResult TransposeOp::verify() {
  if (failed(checkTile(*this, getSource().getType(), "source", 2, false)) ||
      failed(checkTile(*this, getResult().getType(), "result", 2, false)))
    return failure();
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (source.getElementType() != result.getElementType() ||
      source.getDimSize(0) != result.getDimSize(1) ||
      source.getDimSize(1) != result.getDimSize(0))
    return emitOpError("result must be the source's transpose, got ")
           << source << " -> " << result;
  Attribute from = source.getEncoding(), to = result.getEncoding();
  if (!from && !to)
    return success();
  auto fromShared = dyn_cast_or_null<BlockSharedAttr>(from);
  auto toShared = dyn_cast_or_null<BlockSharedAttr>(to);
  if (!fromShared || !toShared || fromShared.getAtom() != toShared.getAtom() ||
      fromShared.getTransposed() == toShared.getTransposed() ||
      fromShared.getSwizzled() != toShared.getSwizzled())
    return emitOpError("with layouts, transposes a shared tile into a view of "
                       "the same memory: #fa.block_shared of one atom and "
                       "'swizzled' with the opposite 'transposed', got ")
           << source << " -> " << result;
  return success();
}

/// fa.accumulate_rows / fa.read_rows with `fragment_order`: whole tiles
/// (a constant row count, the tile's), spanning the buffer's last
/// dimension (a static one: the block is rows x D), in a layout whose
/// threads hold distinct elements (one group of warps, or groups that
/// divide the columns).
LogicalResult checkFragmentOrder(Operation *op, Value tile, Value rows,
                                 ShapedType buffer) {
  std::optional<int64_t> count = getConstantIntValue(rows);
  if (!count || *count != dim(tile, 0))
    return op->emitOpError("with fragment_order, rows must be the constant ")
           << dim(tile, 0) << " (whole tiles: the tile's rows)";
  if (buffer.isDynamicDim(3))
    return op->emitOpError("with fragment_order, the buffer's last "
                           "dimension must be static, got ")
           << buffer;
  if (auto layout = dyn_cast_or_null<WarpRowsAttr>(
          getTileEncoding(tile.getType()));
      layout && layout.getReplicas() > 1 &&
      layout.getShare() != ReplicaShare::Columns)
    return op->emitOpError("with fragment_order, the tile's threads must "
                           "hold distinct elements (one group of warps, or "
                           "share = columns), got ")
           << tile.getType();
  return success();
}

/// A constant row count of fa.accumulate_rows / fa.read_rows: at most the
/// tile's rows (the ops touch tile rows [0, rows)).
LogicalResult checkRowCount(Operation *op, Value tile, Value rows,
                            bool transposed) {
  std::optional<int64_t> count = getConstantIntValue(rows);
  int64_t tileRows = dim(tile, transposed ? 1 : 0);
  if (count && (*count < 0 || *count > tileRows))
    return op->emitOpError("rows must be in [0, ")
           << tileRows << "] (the tile's " << (transposed ? "columns" : "rows")
           << "), got " << *count;
  return success();
}

LogicalResult AccumulateRowsOp::verify() {
  if (failed(checkTile(*this, getTile().getType(), "tile", 2, true)))
    return failure();
  auto buffer = cast<MemRefType>(getBuffer().getType());
  if (buffer.getRank() != 4 || !buffer.getElementType().isF32())
    return emitOpError("buffer must be a rank-4 [B, H, N, D] f32 memref, got ")
           << buffer;
  int64_t cols = dim(getTile(), getTransposed() ? 0 : 1);
  if (!buffer.isDynamicDim(3) && buffer.getDimSize(3) != cols)
    return emitOpError("the tile's ")
           << (getTransposed() ? "rows" : "columns") << " (" << cols
           << ") must be the buffer's last dimension, got " << buffer;
  if (failed(checkRowCount(*this, getTile(), getRows(), getTransposed())))
    return failure();
  if (getFragmentOrder()) {
    if (getTransposed())
      return emitOpError("fragment_order and transposed exclude each other "
                         "(fa.read_rows reads the block back as rows)");
    if (failed(checkFragmentOrder(*this, getTile(), getRows(), buffer)))
      return failure();
  }
  return checkLayouts(*this, {{getTile(), "tile", kAcc, kKeysSplit}});
}

LogicalResult ReadRowsOp::verify() {
  auto sums = cast<RankedTensorType>(getSums().getType());
  if (sums.getRank() != 4 || !sums.getElementType().isF32())
    return emitOpError("sums must be a rank-4 [B, H, N, D] f32 tensor, got ")
           << sums;
  if (failed(checkTile(*this, getTile().getType(), "tile", 2, true)))
    return failure();
  int64_t cols = dim(getTile(), 1);
  if (!sums.isDynamicDim(3) && sums.getDimSize(3) != cols)
    return emitOpError("the tile's columns (")
           << cols << ") must be the last dimension of sums, got " << sums;
  if (failed(checkRowCount(*this, getTile(), getRows(), false)))
    return failure();
  if (getFragmentOrder() &&
      failed(checkFragmentOrder(*this, getTile(), getRows(), sums)))
    return failure();
  return checkLayouts(*this, {{getTile(), "tile", kAcc, kKeysSplit}});
}
