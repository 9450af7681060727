//===- MapWarps.cpp - Warps own whole rows of the Q block (L2 -> L3) ------===//
//
// FlashAttention-2 splits the Q block across warps by rows, so that every
// row reduction of the online softmax stays inside one warp, and shares the
// K/V tiles between all warps. This pass writes that decision, and where
// each matmul operand lives, into the IR as tensor encodings naming the MMA
// atom, and maps the scf.forall onto the grid.
//
//===----------------------------------------------------------------------===//

#include "LayoutRewrites.h"
#include "MapBackwardWarps.h"
#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAMAPWARPS
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Assigns the layouts of one tiled loop nest.
class WarpMapper {
public:
  WarpMapper(TiledAttention &tiled, int64_t numWarps, QueryHome queryHome,
             MmaAtomKind atomKind, int64_t keyGroups,
             StringRef swizzleShared, const ChipInfo &chip)
      : tiled(tiled), ctx(tiled.forall.getContext()), rewriter(ctx),
        atom(getMmaAtom(ctx, atomKind)), numWarps(numWarps),
        keyGroups(keyGroups), swizzleShared(swizzleShared), chip(chip),
        queryHome(queryHome),
        wholeWarpgroups(atomKind == MmaAtomKind::Wgmma) {}

  LogicalResult checkSplit();
  void run();

private:
  /// `share` says what each of the key groups holds (whole without them).
  Attribute rows(FragmentRole role,
                 ReplicaShare share = ReplicaShare::Whole) {
    if (keyGroups == 1)
      share = ReplicaShare::Whole;
    return WarpRowsAttr::get(ctx, role, numWarps, atom, keyGroups, share);
  }
  /// S and P: the key groups divide their columns.
  Attribute keyTile(FragmentRole role) {
    return rows(role, ReplicaShare::Columns);
  }
  /// What the key groups accumulate over their own keys: summands.
  Attribute summands(FragmentRole role) { return rows(role, ReplicaShare::Sum); }
  /// The shared layout of a loaded tile: swizzled if asked for
  /// (`swizzle`: the K/V tiles, loaded once per K/V block; Q is loaded once
  /// and not worth the registers its swizzled reads take) and the atom and
  /// the tile's rows allow it (rows of a multiple of 128 bytes, a multiple
  /// of 8 of them), else the atom's unswizzled layout.
  Attribute shared(RankedTensorType tile, bool swizzle) {
    bool swizzled =
        swizzle &&
        BlockSharedAttr::isSwizzlable(tile.getShape(), tile.getElementType());
    return BlockSharedAttr::get(ctx, atom, /*transposed=*/false, swizzled);
  }
  /// Whether `op` is in one of the nest's K/V loops.
  bool isInKVLoop(Operation *op) {
    return llvm::any_of(tiled.kvLoops, [&](const KVLoop &kv) {
      return kv.loop->isProperAncestor(op);
    });
  }
  static void setEncoding(Value v, Attribute encoding) {
    setTileEncoding(v, encoding);
  }
  /// Re-types a loop's iter_args from how the body uses them, and its
  /// results and initial constants to match.
  void mapLoopState(scf::ForOp loop);
  void mapOp(Operation *op);
  /// Whether Q stays in registers as A-operand fragments across the K/V
  /// loop.
  bool keepQueryInRegisters();
  /// Registers a thread needs for the S and O accumulators and for Q as
  /// A-operand fragments.
  int64_t fragmentRegisters();
  /// Whether the K/V tiles take the swizzled shared layout.
  bool swizzleStreamedTiles();
  /// `operand` of `user` in the layout `encoding`, through one
  /// fa.convert_layout after `def` (shared by every such user).
  void convertOperand(OpOperand &operand, Attribute encoding,
                      ConvertedLayouts &converted);

  TiledAttention &tiled;
  MLIRContext *ctx;
  IRRewriter rewriter;
  MmaAtomAttrInterface atom;
  int64_t numWarps;
  /// Groups of numWarps warps dividing the keys of each K/V block.
  int64_t keyGroups;
  /// K/V tiles in the swizzled shared layout: auto, on or off.
  StringRef swizzleShared;
  /// The chip the kernel is compiled for (auto's register budget).
  const ChipInfo &chip;
  QueryHome queryHome;
  /// #fa.wgmma: 16 rows a warp, warps in groups of 4.
  bool wholeWarpgroups;
};

LogicalResult WarpMapper::checkSplit() {
  auto error = [&]() {
    return mlir::emitError(tiled.forall.getLoc(), "fa-map-warps: ");
  };
  bool hasLayouts = tiled.forall.getMapping().has_value();
  tiled.forall.getBody()->walk([&](Operation *op) {
    hasLayouts |= llvm::any_of(op->getResultTypes(), hasFALayout);
  });
  if (hasLayouts)
    return error() << "the loop nest already has GPU layouts or a grid "
                      "mapping (run --fa-map-warps once)";
  Type elem = tiled.elementType();
  if (!elem.isF16() && !elem.isBF16())
    return error() << "element type " << elem
                   << " has no GPU layout: the " << atom
                   << " atom takes f16 or bf16";
  if (keyGroups != 1 && wholeWarpgroups)
    return error() << "key-groups is implemented for #fa.mma_sync only, not "
                      "with atom=wgmma";
  if (wholeWarpgroups &&
      (numWarps % 4 != 0 || tiled.blockM() != 16 * numWarps))
    return error() << "#fa.wgmma holds 16 rows a warp in warpgroups of 4 "
                      "warps: block-m must be 16 * num-warps with num-warps "
                      "a multiple of 4 (64 rows on 4 warps, 128 on 8), got "
                      "block-m = "
                   << tiled.blockM() << " on " << numWarps << " warps";
  if (tiled.blockM() % (16 * numWarps) != 0)
    return error() << "block-m (" << tiled.blockM()
                   << ") must be a multiple of 16 * num-warps = "
                   << 16 * numWarps
                   << ": each warp owns whole 16-row tiles of the Q block";
  if (tiled.blockN() % 16 != 0)
    return error() << "block-n (" << tiled.blockN()
                   << ") must be a multiple of 16, the k of the P V mma";
  if (tiled.blockN() % (16 * keyGroups) != 0)
    return error() << "block-n (" << tiled.blockN()
                   << ") must be a multiple of 16 * key-groups = "
                   << 16 * keyGroups
                   << ": each group of warps takes whole 16-key steps of the "
                      "block";
  if (numWarps * keyGroups > 32)
    return error() << "num-warps x key-groups (" << numWarps << " x "
                   << keyGroups << ") must be at most 32 warps a block";
  if (tiled.headDim() % 16 != 0 || tiled.valueDim() % 16 != 0)
    return error() << "head dims (" << tiled.headDim() << ", "
                   << tiled.valueDim() << ") must be multiples of 16";
  return success();
}

int64_t WarpMapper::fragmentRegisters() {
  Type f32 = Float32Type::get(ctx);
  int64_t m = tiled.blockM();
  return atom.getFragmentRegisters(FragmentRole::Acc,
                                   {m, tiled.blockN() / keyGroups}, f32,
                                   numWarps) +
         atom.getFragmentRegisters(FragmentRole::Acc, {m, tiled.valueDim()},
                                   f32, numWarps) +
         atom.getFragmentRegisters(FragmentRole::OperandA,
                                   {m, tiled.headDim()}, tiled.elementType(),
                                   numWarps);
}

bool WarpMapper::keepQueryInRegisters() {
  if (queryHome != QueryHome::Auto)
    return queryHome == QueryHome::Registers;
  return fragmentRegisters() <= atom.getQueryInRegistersBudget();
}

bool WarpMapper::swizzleStreamedTiles() {
  if (swizzleShared != "auto")
    return swizzleShared == "on";
  // The chip's ptxas and the values the kernel keeps live beside the
  // fragments (a window's bounds, a cap, sequence bounds; split-KV's chunk
  // bounds, which the tiling treats like a window's) decide how many
  // registers the swizzled reads may add.
  ExtraLiveValues extras = collectExtraLiveValues(tiled.forall);
  extras.split = tiled.forall->hasAttr(kSplitKVAttrName);
  return fragmentRegisters() <= atom.getSwizzledSharedBudget(chip, extras);
}

void WarpMapper::mapLoopState(scf::ForOp loop) {
  // The body uses each iter_arg as the running max, the running sum or the
  // accumulator of the online softmax.
  for (BlockArgument arg : loop.getRegionIterArgs()) {
    std::optional<FragmentRole> role;
    for (OpOperand &use : arg.getUses()) {
      Operation *user = use.getOwner();
      unsigned i = use.getOperandNumber();
      if (isa<OnlineSoftmaxOp, RunningMaxOp>(user) && i == 1)
        role = FragmentRole::Rows;
      else if (isa<OnlineSoftmaxOp>(user) && i == 2)
        role = FragmentRole::PartialRows;
      else if (isa<SoftmaxExpOp>(user) && i == 3)
        role = FragmentRole::PartialRows;
      else if (isa<RescaleOp, PVOp>(user))
        role = FragmentRole::Acc;
    }
    // The running sum and the accumulator add up each key group's keys.
    if (role)
      setEncoding(arg, *role == FragmentRole::Rows ? rows(*role)
                                                   : summands(*role));
  }
}

void WarpMapper::mapOp(Operation *op) {
  auto encodingOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getEncoding();
  };
  if (auto qk = dyn_cast<QKOp>(op)) {
    setEncoding(qk.getScores(), keyTile(FragmentRole::Acc));
  } else if (auto mask = dyn_cast<MaskOp>(op)) {
    setEncoding(mask.getResult(), encodingOf(mask.getScores()));
  } else if (auto cap = dyn_cast<SoftcapOp>(op)) {
    setEncoding(cap.getResult(), encodingOf(cap.getScores()));
  } else if (auto softmax = dyn_cast<OnlineSoftmaxOp>(op)) {
    setEncoding(softmax.getProbs(), keyTile(FragmentRole::Acc));
    setEncoding(softmax.getNewMax(), rows(FragmentRole::Rows));
    setEncoding(softmax.getAlpha(), rows(FragmentRole::Rows));
    // The running sum stays a per-lane share until fa.finalize.
    setEncoding(softmax.getNewSum(), summands(FragmentRole::PartialRows));
  } else if (auto runningMax = dyn_cast<RunningMaxOp>(op)) {
    setEncoding(runningMax.getNewMax(), rows(FragmentRole::Rows));
    setEncoding(runningMax.getAlpha(), rows(FragmentRole::Rows));
  } else if (auto exp = dyn_cast<SoftmaxExpOp>(op)) {
    setEncoding(exp.getProbs(), keyTile(FragmentRole::Acc));
    setEncoding(exp.getNewSum(), summands(FragmentRole::PartialRows));
  } else if (isa<RescaleOp, PVOp>(op)) {
    setEncoding(op->getResult(0), summands(FragmentRole::Acc));
  } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    if (isa<RankedTensorType>(trunc.getType()))
      setEncoding(trunc.getResult(), encodingOf(trunc.getIn()));
  } else if (auto finalize = dyn_cast<FinalizeOp>(op)) {
    setEncoding(finalize.getOut(), rows(FragmentRole::Acc));
    setEncoding(finalize.getLse(), rows(FragmentRole::Rows));
  } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // Results and initial values follow the iter_args.
    retypeLoopFromIterArgs(rewriter, loop);
  }
}

void WarpMapper::convertOperand(OpOperand &operand, Attribute encoding,
                                ConvertedLayouts &converted) {
  convertOperandLayout(rewriter, operand, encoding, converted);
}

void WarpMapper::run() {
  // Tiles read by every warp live in shared memory: the Q tile (until it is
  // moved to registers below) and the K/V tiles.
  bool swizzleKV = swizzleStreamedTiles();
  tiled.forall.getBody()->walk([&](tensor::PadOp pad) {
    if (succeeded(matchTileLoad(pad.getResult())))
      setEncoding(pad.getResult(), shared(pad.getResultType(),
                                          swizzleKV && isInKVLoop(pad)));
  });
  // Then every value the tile ops compute, in program order.
  tiled.forall.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      mapLoopState(loop);
  });
  tiled.forall.getBody()->walk([&](Operation *op) { mapOp(op); });

  // Where the matmul operands live. Q: A-operand registers loaded once
  // before the K/V loop while the fragments fit the atom's budget, else
  // re-read from shared memory for every K/V block (as FlashAttention-2 does
  // at d = 128). P: its accumulator fragments become A fragments.
  ConvertedLayouts converted;
  bool queryInRegisters = keepQueryInRegisters();
  tiled.forall.getBody()->walk([&](Operation *op) {
    if (auto qk = dyn_cast<QKOp>(op)) {
      if (queryInRegisters)
        convertOperand(qk.getQueryMutable(), rows(FragmentRole::OperandA),
                       converted);
    } else if (auto pv = dyn_cast<PVOp>(op)) {
      convertOperand(pv.getProbsMutable(), keyTile(FragmentRole::OperandA),
                     converted);
    }
  });

  // Grid: Q blocks on x, heads on y, batch on z (the forall is (b, h, qb)).
  tiled.forall.setMappingAttr(rewriter.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
}

/// The atom's warps for the head dims, fewer if the Q block is too small
/// for them (each warp owns whole 16-row mma tiles).
int64_t defaultWarps(TiledAttention &tiled, MmaAtomKind atomKind) {
  // #fa.wgmma: one warp per 16 rows (whole warpgroups or a diagnostic).
  if (atomKind == MmaAtomKind::Wgmma)
    return std::max<int64_t>(1, tiled.blockM() / 16);
  FailureOr<TileConfig> tiles =
      MmaSyncAtomAttr::get(tiled.forall.getContext())
          .getDefaultTiles(tiled.headDim(), tiled.valueDim());
  int64_t warps = succeeded(tiles) ? tiles->numWarps : 4;
  while (warps > 1 && tiled.blockM() % (16 * warps) != 0)
    warps /= 2;
  return warps;
}

struct FAMapWarpsPass : fa::impl::FAMapWarpsBase<FAMapWarpsPass> {
  using Base::Base;
  void runOnOperation() override {
    // Both counts are 1, 2, 4 or 8 warps (groups), or 0 for a default.
    auto checkCount = [&](StringRef name, int64_t value, StringRef zero) {
      if (value == 0 || value == 1 || value == 2 || value == 4 || value == 8)
        return true;
      mlir::emitError(getOperation()->getLoc())
          << "fa-map-warps: option " << name << " must be 1, 2, 4 or 8 (or 0 "
          << "for " << zero << "), got " << value;
      return false;
    };
    if (!checkCount("key-groups", keyGroups, "the tiling's choice") ||
        !checkCount("num-warps", numWarps, "the atom's default") ||
        !checkCount("dkdv-groups", dkdvGroups, "the tiling's choice"))
      return signalPassFailure();
    if (swizzleShared != "auto" && swizzleShared != "on" &&
        swizzleShared != "off") {
      mlir::emitError(getOperation()->getLoc())
          << "fa-map-warps: option swizzle-shared must be auto, on or off, "
             "got '"
          << swizzleShared << "'";
      return signalPassFailure();
    }
    const ChipInfo *chipInfo =
        lookupChipOption(chip, getOperation()->getLoc(), "fa-map-warps");
    if (!chipInfo)
      return signalPassFailure();
    SmallVector<TiledAttention> nests;
    SmallVector<scf::ForallOp> backwardNests;
    getOperation()->walk([&](scf::ForallOp forall) {
      FailureOr<TiledAttention> tiled =
          matchTiledAttention(forall, /*diagnose=*/false);
      if (succeeded(tiled))
        nests.push_back(*tiled);
      else if (isBackwardLoopNest(forall))
        backwardNests.push_back(forall);
    });
    for (scf::ForallOp forall : backwardNests)
      if (failed(mapBackwardWarps(forall, numWarps, dkdvGroups, queryHome,
                                  swizzleShared, *chipInfo)))
        return signalPassFailure();
    for (TiledAttention &tiled : nests) {
      MmaAtomKind atomKind = atom;
      if (atomKind == MmaAtomKind::Auto) {
        auto recorded = tiled.forall->getAttrOfType<MmaAtomAttrInterface>(
            kMmaAtomAttrName);
        atomKind = recorded ? getMmaAtomKind(recorded) : MmaAtomKind::MmaSync;
        // Warps asked for that are not whole warpgroups: the atom that
        // takes them (an explicit atom=wgmma diagnoses them instead).
        if (numWarps % 4 != 0)
          atomKind = MmaAtomKind::MmaSync;
      }
      int64_t warps = numWarps;
      if (warps == 0)
        warps = defaultWarps(tiled, atomKind);
      int64_t groups = keyGroups;
      if (groups == 0) {
        auto recorded =
            tiled.forall->getAttrOfType<IntegerAttr>(kKeyGroupsAttrName);
        groups = recorded && atomKind == MmaAtomKind::MmaSync
                     ? recorded.getInt()
                     : 1;
      }
      // From here the layouts name the atom: the record has served.
      tiled.forall->removeAttr(kMmaAtomAttrName);
      WarpMapper mapper(tiled, warps, queryHome, atomKind, groups,
                        swizzleShared, *chipInfo);
      if (failed(mapper.checkSplit()))
        return signalPassFailure();
      mapper.run();
    }
  }
};

} // namespace
