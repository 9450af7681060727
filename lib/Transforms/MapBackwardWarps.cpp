//===- MapBackwardWarps.cpp - Layouts of the backward's loop nests --------===//
//
// --fa-map-warps for the three nests of --fa-tile-backward. The rule is the
// forward's: warps own whole rows of every tile of the nest (query rows in
// the D and dQ nests, key rows in the dK/dV nest, whose tiles are
// transposed), so the per-row work stays inside a warp; the tiles read by
// every warp (the other side's tiles) live in shared memory; the tiles the
// nest holds for its whole life (K and V in the dK/dV nest, Q and dO in the
// dQ nest) become A-operand registers while the fragments fit the atom's
// budget. The per-query vectors (LSE, D) carry no layout: each thread
// reads the entries of its rows or columns from memory.
//
// Column groups (`dkdv-groups` = C > 1, the dK/dV nest only): C groups of
// `numWarps` warps split the columns of every accumulator of the nest
// (#fa.warp_rows<acc, ..., replicas = C, share = columns>): the queries of
// S^T and dP^T, the head-dim columns of dK and dV. A [numWarps, C] warp
// grid (FlashAttention-2's d128 backward: [4, 2] on 128 keys x 64
// queries): each warp reads a C-th of the shared second operands that a
// warp owning whole rows would. P^T and dS^T, the first operands of dV +=
// P^T dO and dK += dS^T Q, then span the groups' columns, so they go
// through shared memory (fa.convert_layout to #fa.block_shared) instead of
// staying in registers, and K and V, the first operands of S^T and dP^T,
// stay in shared memory.
//
// The atomic dQ adds these rules: its product meets no other register
// tile (a zero accumulator added into memory), so it takes the split of
// the nest's warps whose warps read the fewest shared rows + columns
// (accLayoutOf: dQ = dS K on [2, 4] beside the nest's [4, 2]). K^T
// (fa.transpose of the shared K tile) is a transposed view of the same
// shared memory and the A operand of its fa.pv; dS^T, the other operand,
// goes from accumulator fragments into a shared tile (every warp reads
// all its rows); for dQ = dS K (query rows), dS is the transposed view of
// that shared dS^T tile. The rounding nest's f32 sums (fa.read_rows) are
// loaded straight into accumulator fragments: in the writer's layout and
// fragment order when its blocks are the writer's whole, untransposed
// tiles (fa.accumulate_rows), else by rows. Constant tiles (the zero dQ
// accumulator, the D nest's zero rows of the dQ buffer) are acc tiles.
//
//===----------------------------------------------------------------------===//

#include "MapBackwardWarps.h"

#include "LayoutRewrites.h"

#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

void setEncoding(Value v, Attribute encoding) { setTileEncoding(v, encoding); }

Attribute encodingOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getEncoding();
}

int64_t rowsOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getDimSize(0);
}

/// The fa.accumulate_rows that adds into the buffer whose sums `read`
/// reads (bufferization.to_tensor of it), or null.
AccumulateRowsOp writerOf(ReadRowsOp read) {
  auto sums = read.getSums().getDefiningOp<bufferization::ToTensorOp>();
  if (!sums)
    return {};
  for (Operation *user : sums.getBuffer().getUsers())
    if (auto writer = dyn_cast<AccumulateRowsOp>(user))
      return writer;
  return {};
}

/// Whether `read` can take its writer's layout and read the block in
/// fragment order: a writer of query rows (not transposed) with a layout
/// whose threads hold distinct elements, the same tile shape, both whole
/// tiles, and a static row width (fa.accumulate_rows' rule).
bool canReadInFragmentOrder(ReadRowsOp read, AccumulateRowsOp writer) {
  if (!writer || writer.getTransposed())
    return false;
  auto tile = cast<RankedTensorType>(writer.getTile().getType());
  auto layout = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
  auto whole = [&](Value rows) {
    std::optional<int64_t> n = getConstantIntValue(rows);
    return n && *n == tile.getDimSize(0);
  };
  return layout &&
         (layout.getReplicas() == 1 ||
          layout.getShare() == ReplicaShare::Columns) &&
         tile.getShape() == read.getTile().getType().getShape() &&
         whole(writer.getRows()) && whole(read.getRows()) &&
         !cast<ShapedType>(writer.getBuffer().getType()).isDynamicDim(3);
}

class BackwardWarpMapper {
public:
  BackwardWarpMapper(scf::ForallOp forall, int64_t numWarps,
                     int64_t columnGroups, QueryHome rowTileHome,
                     StringRef swizzleShared, const ChipInfo &chip)
      : forall(forall), ctx(forall.getContext()), rewriter(ctx),
        atom(MmaSyncAtomAttr::get(ctx)), numWarps(numWarps),
        columnGroups(columnGroups), rowTileHome(rowTileHome),
        swizzleShared(swizzleShared), chip(chip) {}

  LogicalResult check();
  void run();

private:
  Attribute rows(FragmentRole role) {
    if (columnGroups > 1 && role == FragmentRole::Acc)
      return WarpRowsAttr::get(ctx, role, numWarps, atom, columnGroups,
                               ReplicaShare::Columns);
    return WarpRowsAttr::get(ctx, role, numWarps, atom);
  }
  /// Whether the nest keeps the first operands of its fa.qk ops (the tiles
  /// loaded once per thread block) in A-operand registers.
  bool keepRowTilesInRegisters();
  void mapLoop(scf::ForOp loop);
  void mapOp(Operation *op);
  void convertOperand(OpOperand &operand, Attribute encoding);
  /// A dense constant tile operand without a layout (wherever CSE put it)
  /// replaced by a copy in `encoding` (default: the acc layout) right
  /// before its user.
  void useAccConstant(OpOperand &operand, Attribute encoding = {});
  /// The layout of `pv`'s accumulator: the nest's acc layout, or, for a
  /// product whose accumulator only leaves the nest (a constant added into
  /// memory by fa.accumulate_rows: the atomic dQ), a warp grid of its own.
  Attribute accLayoutOf(PVOp pv);

  scf::ForallOp forall;
  MLIRContext *ctx;
  IRRewriter rewriter;
  MmaAtomAttrInterface atom;
  int64_t numWarps;
  /// Groups of numWarps warps that split the columns of the accumulators
  /// (1: none).
  int64_t columnGroups;
  QueryHome rowTileHome;
  /// Whether `tile`, loaded inside the nest's loops (Q and dO in the dK/dV
  /// nest, K and V in the dQ nest: a new tile every step), takes the
  /// swizzled shared layout.
  bool swizzleStreamedTile(RankedTensorType tile);
  /// swizzle-shared: auto, on or off.
  StringRef swizzleShared;
  /// Whether the nest adds into the atomic dQ's buffer (fa.accumulate_rows):
  /// the atomic form's dK/dV nest.
  bool addsIntoAtomicBuffer = false;
  const ChipInfo &chip;
  ConvertedLayouts converted;
};

/// The tiles whose rows warps split, and so must be multiples of 16 per
/// warp: scores, D, accumulators, and the f32 sums a rounding nest loads.
SmallVector<Value> warpSplitTiles(scf::ForallOp forall) {
  SmallVector<Value> tiles;
  forall.getBody()->walk([&](Operation *op) {
    if (isa<QKOp, RowDotOp>(op))
      tiles.push_back(op->getResult(0));
    else if (auto pv = dyn_cast<PVOp>(op))
      tiles.push_back(pv.getAcc());
    else if (auto read = dyn_cast<ReadRowsOp>(op))
      tiles.push_back(read.getTile());
  });
  return tiles;
}

LogicalResult BackwardWarpMapper::check() {
  auto error = [&]() {
    return mlir::emitError(forall.getLoc(), "fa-map-warps: ");
  };
  if (forall.getMapping())
    return error() << "the loop nest already has a grid mapping (run "
                      "--fa-map-warps once)";
  LogicalResult result = success();
  forall.getBody()->walk([&](Operation *op) {
    if (failed(result))
      return;
    if (isa<QKOp, PVOp, RowDotOp>(op)) {
      // The matmul operands (not fa.pv's f32 accumulator).
      for (Value v : op->getOperands().take_front(2)) {
        auto ty = cast<RankedTensorType>(v.getType());
        Type elem = ty.getElementType();
        if (!elem.isF16() && !elem.isBF16()) {
          result = error() << "element type " << elem
                           << " has no GPU layout: the #fa.mma_sync atom "
                              "takes f16 or bf16";
          return;
        }
        for (int64_t d : ty.getShape())
          if (d % 16 != 0) {
            result = error() << "tile " << ty
                             << " must have sizes that are multiples of 16 "
                                "(the backward's head dims and blocks; the "
                                "atom's m16n8k16 tiles)";
            return;
          }
      }
    }
  });
  if (failed(result))
    return failure();
  // (Checked first: a count read from fa.dkdv_groups may be anything.)
  if (columnGroups < 1 || columnGroups > 32 / numWarps)
    return error() << "num-warps x dkdv-groups (" << numWarps << " x "
                   << columnGroups
                   << ") must be at most 32 warps a block, with at least "
                      "one group";
  for (Value tile : warpSplitTiles(forall)) {
    int64_t r = rowsOf(tile);
    if (r % (16 * numWarps) != 0)
      return error() << "the nest's tile " << tile.getType() << " has " << r
                     << " rows, which must be a multiple of 16 * num-warps = "
                     << 16 * numWarps << ": each warp owns whole 16-row tiles";
    auto ty = cast<RankedTensorType>(tile.getType());
    if (columnGroups > 1 &&
        (ty.getRank() != 2 || ty.getDimSize(1) % (16 * columnGroups) != 0))
      return error() << "the dK/dV nest's tile " << tile.getType()
                     << " must have a multiple of 16 * dkdv-groups = "
                     << 16 * columnGroups
                     << " columns: each group of warps owns whole 16-column "
                        "slices";
  }
  return success();
}

bool BackwardWarpMapper::keepRowTilesInRegisters() {
  // With column groups every group would hold the whole tiles.
  if (columnGroups > 1)
    return false;
  if (rowTileHome != QueryHome::Auto)
    return rowTileHome == QueryHome::Registers;
  Type f32 = Float32Type::get(ctx);
  int64_t regs = 0;
  auto fragments = [&](FragmentRole role, Value v) {
    auto ty = cast<RankedTensorType>(v.getType());
    Type elem = role == FragmentRole::Acc ? f32 : ty.getElementType();
    return atom.getFragmentRegisters(role, ty.getShape(), elem, numWarps);
  };
  DenseSet<Value> rowTiles;
  forall.getBody()->walk([&](Operation *op) {
    if (auto qk = dyn_cast<QKOp>(op)) {
      regs += fragments(FragmentRole::Acc, qk.getScores());
      if (rowTiles.insert(qk.getQuery()).second)
        regs += fragments(FragmentRole::OperandA, qk.getQuery());
    } else if (auto pv = dyn_cast<PVOp>(op)) {
      regs += fragments(FragmentRole::Acc, pv.getAcc());
    }
  });
  return regs <= atom.getQueryInRegistersBudget();
}

bool BackwardWarpMapper::swizzleStreamedTile(RankedTensorType tile) {
  if (swizzleShared == "off" ||
      !BlockSharedAttr::isSwizzlable(tile.getShape(), tile.getElementType()))
    return false;
  if (swizzleShared == "on")
    return true;
  // auto. Measured on an H100 (sm_80 PTX; docs/performance.md, "Swizzled
  // tiles in the backward", 2026-12-06): swizzled, the deterministic form's
  // nests run 1.02-1.05x (d = 64) and 1.03-1.08x (d = 128); the atomic
  // dK/dV nest (it adds into the f32 dQ buffer) gains nothing at d = 128
  // and loses 2-7 % at d = 64. ptxas -v (scripts/spill-sweep.py --forms
  // backward-deterministic with swizzle-shared=on, every head dim, mask and
  // soft cap): above d = 128 the swizzled reads add 40-90 bytes to spills
  // that are there already; for sm_80 ptxas caps the d = 64 causal dQ
  // kernel at 168 registers (three thread blocks a multiprocessor), where
  // they spill 16 bytes; for sm_90 they do not.
  int64_t headDim = tile.getDimSize(1);
  // A dK/dV nest on a warp grid (column groups, the atomic dQ at d = 128):
  // swizzled, 1.05-1.09x its padded tiles on an H100 (docs/performance.md,
  // "2026-12-06 (session 11): a warp grid for the dK/dV kernel"),
  // spill-free for sm_90 without a soft cap; for sm_80 the GQA kernels
  // spill 60 bytes with them.
  if (columnGroups > 1)
    return chip.isHopper() && headDim <= 128;
  return !addsIntoAtomicBuffer && headDim <= 128 &&
         (chip.isHopper() || headDim > 64);
}

void BackwardWarpMapper::mapLoop(scf::ForOp loop) {
  // An iter_arg is an accumulator when an fa.pv adds into it, or when it
  // seeds a nested loop's accumulator (the dK/dV nest's loop over the heads
  // of a group around the loop over Q blocks).
  for (BlockArgument arg : loop.getRegionIterArgs()) {
    for (OpOperand &use : arg.getUses()) {
      Operation *user = use.getOwner();
      if (auto pv = dyn_cast<PVOp>(user); pv && use.getOperandNumber() == 2)
        setEncoding(arg, rows(FragmentRole::Acc));
      else if (auto inner = dyn_cast<scf::ForOp>(user);
               inner && use.getOperandNumber() >= 3)
        if (Attribute e = encodingOf(
                inner.getRegionIterArg(use.getOperandNumber() - 3)))
          setEncoding(arg, e);
    }
  }
}

Attribute BackwardWarpMapper::accLayoutOf(PVOp pv) {
  Attribute nestLayout = rows(FragmentRole::Acc);
  bool leavesNest =
      pv.getAcc().getDefiningOp<arith::ConstantOp>() &&
      !pv.getResult().use_empty() &&
      llvm::all_of(pv.getResult().getUsers(),
                   [](Operation *user) { return isa<AccumulateRowsOp>(user); });
  if (!leavesNest)
    return nestLayout;
  // Such a tile meets no other register tile, so any [w, g] split of the
  // nest's warps may hold it (w warps on rows, g groups on columns). Each
  // warp reads its rows of the first operand and its columns of the second
  // from shared memory every k step: the grid with the fewest rows +
  // columns a warp reads the least (FlashAttention-2's d128 dQ = dS K on 64
  // x 128: [2, 4], 32 x 32 a warp, against 16 x 64 on the nest's [4, 2]).
  // Ties keep the nest's grid, else take the most warps on rows.
  auto acc = cast<RankedTensorType>(pv.getAcc().getType());
  int64_t rowsN = acc.getDimSize(0), colsN = acc.getDimSize(1);
  int64_t warps = numWarps * columnGroups;
  auto fits = [&](int64_t w, int64_t g) {
    return rowsN % (16 * w) == 0 && colsN % (16 * g) == 0;
  };
  auto cost = [&](int64_t w, int64_t g) { return rowsN / w + colsN / g; };
  if (!fits(numWarps, columnGroups))
    return nestLayout;
  int64_t bestW = numWarps, bestG = columnGroups;
  for (int64_t w = warps; w >= 1; w /= 2) {
    int64_t g = warps / w;
    if (w * g == warps && fits(w, g) && cost(w, g) < cost(bestW, bestG)) {
      bestW = w;
      bestG = g;
    }
  }
  if (bestW == numWarps && bestG == columnGroups)
    return nestLayout;
  if (bestG == 1)
    return WarpRowsAttr::get(ctx, FragmentRole::Acc, bestW, atom);
  return WarpRowsAttr::get(ctx, FragmentRole::Acc, bestW, atom, bestG,
                           ReplicaShare::Columns);
}

void BackwardWarpMapper::mapOp(Operation *op) {
  if (auto pv = dyn_cast<PVOp>(op)) {
    Attribute layout = accLayoutOf(pv);
    setEncoding(pv.getResult(), layout);
    // A constant accumulator (the atomic dQ's zero tile).
    useAccConstant(pv.getAccMutable(), layout);
  } else if (isa<QKOp, MaskOp, SoftcapOp, ProbsFromLseOp, ScoreGradOp>(op)) {
    setEncoding(op->getResult(0), rows(FragmentRole::Acc));
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    if (auto shared =
            dyn_cast_or_null<BlockSharedAttr>(encodingOf(transpose.getSource())))
      setEncoding(transpose.getResult(),
                  BlockSharedAttr::get(ctx, shared.getAtom(),
                                       !shared.getTransposed(),
                                       shared.getSwizzled()));
  } else if (auto read = dyn_cast<ReadRowsOp>(op)) {
    // The rounding nest's f32 sums: in the writer's layout and fragment
    // order where it can (each warp's 32 atomics of an element index then
    // add into 128 contiguous bytes: one L1 wavefront instead of 4-8),
    // else the nest's own acc layout, by rows.
    AccumulateRowsOp writer = writerOf(read);
    if (canReadInFragmentOrder(read, writer)) {
      setEncoding(read.getTile(), encodingOf(writer.getTile()));
      read.setFragmentOrder(true);
      writer.setFragmentOrder(true);
    } else {
      setEncoding(read.getTile(), rows(FragmentRole::Acc));
    }
  } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // The D nest's zero rows of the dQ buffer, stored.
    if (slice.getSourceType().getRank() == 2)
      useAccConstant(slice.getSourceMutable());
  } else if (auto dot = dyn_cast<RowDotOp>(op)) {
    setEncoding(dot.getRowDot(), rows(FragmentRole::Rows));
  } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    if (isa<RankedTensorType>(trunc.getType()) && encodingOf(trunc.getIn()))
      setEncoding(trunc.getResult(), encodingOf(trunc.getIn()));
  } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
    retypeLoopFromIterArgs(rewriter, loop);
  }
}

void BackwardWarpMapper::useAccConstant(OpOperand &operand,
                                        Attribute encoding) {
  auto cst = operand.get().getDefiningOp<arith::ConstantOp>();
  auto dense = cst ? dyn_cast<DenseElementsAttr>(cst.getValue())
                   : DenseElementsAttr();
  auto ty = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!dense || !ty || ty.getEncoding())
    return;
  rewriter.setInsertionPoint(operand.getOwner());
  operand.set(arith::ConstantOp::create(
      rewriter, cst.getLoc(),
      dense.reshape(RankedTensorType::get(
          ty.getShape(), ty.getElementType(),
          encoding ? encoding : rows(FragmentRole::Acc)))));
  if (cst->use_empty())
    rewriter.eraseOp(cst);
}

void BackwardWarpMapper::convertOperand(OpOperand &operand,
                                        Attribute encoding) {
  convertOperandLayout(rewriter, operand, encoding, converted);
}

void BackwardWarpMapper::run() {
  addsIntoAtomicBuffer =
      forall.getBody()
          ->walk([](AccumulateRowsOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  // Matmul tiles loaded from memory live in shared memory; the row_dot's
  // operands and the per-query vectors stay in memory.
  forall.getBody()->walk([&](Operation *op) {
    auto shareOperand = [&](Value v) {
      if (failed(matchTileLoad(v)))
        return;
      auto loop = v.getDefiningOp()->getParentOfType<scf::ForOp>();
      bool streamed = loop && forall->isProperAncestor(loop);
      bool swizzled =
          streamed && swizzleStreamedTile(cast<RankedTensorType>(v.getType()));
      setEncoding(v, BlockSharedAttr::get(ctx, atom, /*transposed=*/false,
                                          swizzled));
    };
    if (auto qk = dyn_cast<QKOp>(op)) {
      shareOperand(qk.getQuery());
      shareOperand(qk.getKey());
    } else if (auto pv = dyn_cast<PVOp>(op)) {
      shareOperand(pv.getValue());
    }
  });
  forall.getBody()->walk([&](scf::ForOp loop) { mapLoop(loop); });
  forall.getBody()->walk([&](Operation *op) { mapOp(op); });

  // A transpose of a computed tile (dS^T, for the atomic dQ = dS K) reads
  // it through shared memory: the transposed view of its shared copy.
  forall.getBody()->walk([&](TransposeOp transpose) {
    if (isa_and_nonnull<BlockSharedAttr>(encodingOf(transpose.getSource())))
      return;
    convertOperand(transpose.getSourceMutable(),
                   BlockSharedAttr::get(ctx, atom));
    auto shared = cast<BlockSharedAttr>(encodingOf(transpose.getSource()));
    setEncoding(transpose.getResult(),
                BlockSharedAttr::get(ctx, shared.getAtom(),
                                     !shared.getTransposed(),
                                     shared.getSwizzled()));
  });
  bool rowTilesInRegisters = keepRowTilesInRegisters();
  forall.getBody()->walk([&](Operation *op) {
    if (auto qk = dyn_cast<QKOp>(op)) {
      if (rowTilesInRegisters)
        convertOperand(qk.getQueryMutable(), rows(FragmentRole::OperandA));
    } else if (auto pv = dyn_cast<PVOp>(op)) {
      // K^T stays the shared view fa.transpose made. P^T and dS^T become A
      // registers, or with column groups (whose shares of them are columns,
      // the k of these products) a shared tile every warp reads.
      if (!isa_and_nonnull<BlockSharedAttr>(encodingOf(pv.getProbs())))
        convertOperand(pv.getProbsMutable(),
                       columnGroups > 1 ? BlockSharedAttr::get(ctx, atom)
                                        : rows(FragmentRole::OperandA));
      // A computed value tile (dS^T) is shared by every warp.
      if (isa_and_nonnull<WarpRowsAttr>(encodingOf(pv.getValue())))
        convertOperand(pv.getValueMutable(), BlockSharedAttr::get(ctx, atom));
    }
  });
  // Grid: row blocks on x, heads on y, batch on z.
  forall.setMappingAttr(rewriter.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
}

} // namespace

bool mlir::fa::isBackwardLoopNest(scf::ForallOp forall) {
  return forall.getBody()
      ->walk([](Operation *op) {
        return isa<RowDotOp, ProbsFromLseOp, ScoreGradOp, ReadRowsOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::fa::isKeyValueOuterNest(scf::ForallOp forall) {
  return forall.getBody()
      ->walk([](ProbsFromLseOp op) {
        return op.getTransposed() ? WalkResult::interrupt()
                                  : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult mlir::fa::mapBackwardWarps(scf::ForallOp forall,
                                         int64_t numWarps,
                                         int64_t dkdvGroups,
                                         QueryHome rowTileHome,
                                         StringRef swizzleShared,
                                         const ChipInfo &chip) {
  if (numWarps == 0) {
    // At most 4 warps (8 measured slower for 128-row nests:
    // docs/performance.md, "Wider dK/dV tiles"), each owning whole 16-row
    // tiles of every tile whose rows warps split.
    SmallVector<Value> tiles = warpSplitTiles(forall);
    numWarps = 4;
    while (numWarps > 1 && llvm::any_of(tiles, [&](Value t) {
             return rowsOf(t) % (16 * numWarps) != 0;
           }))
      numWarps /= 2;
  }
  int64_t columnGroups = 1;
  if (isKeyValueOuterNest(forall)) {
    auto recorded = forall->getAttrOfType<IntegerAttr>(kDkdvGroupsAttrName);
    columnGroups = dkdvGroups;
    if (columnGroups == 0)
      columnGroups = recorded ? recorded.getInt() : 1;
    else if (recorded && recorded.getInt() != columnGroups)
      // The tiles were sized for the recorded grid: on another one they
      // may not fit the registers (on rows of 4 warps, the d = 128 grid
      // tiles spill 2.9 KB).
      forall.emitWarning("fa-map-warps: dkdv-groups=")
          << columnGroups << " overrides the " << recorded.getInt()
          << " groups --fa-tile-backward sized this dK/dV nest's tiles for "
             "(fa.dkdv_groups); the kernel may spill (give --fa-tile-backward "
             "block-n and dkdv-block-m for it)";
  }
  BackwardWarpMapper mapper(forall, numWarps, columnGroups, rowTileHome,
                            swizzleShared, chip);
  if (failed(mapper.check()))
    return failure();
  mapper.run();
  return success();
}
