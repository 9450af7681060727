//===- WarpBlockSkip.cpp - Warps skip the masked blocks they do not see ---===//
//
// Stage L3: in a masked K/V loop, the online-softmax step of one block moves
// into an scf.if on "some row of this warp's slice sees some key of the
// block", so that a warp whose rows are all hidden by the causal diagonal or
// the window skips the block's MMAs and exponentials. The condition is the
// mask's own definition (AttentionMath.h, rowsMaySeeKeys) applied to the
// rows fa.warp_row_range gives. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAWARPBLOCKSKIP
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// An op of the online-softmax step that may move into the branch: pure,
/// without regions, tile results only, from the fa or arith dialect (loads,
/// waits and index arithmetic stay outside).
bool isTileStepOp(Operation *op) {
  if (!isa<FADialect, arith::ArithDialect>(op->getDialect()) ||
      op->getNumRegions() != 0 || op->getNumResults() == 0 || !isPure(op))
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    return isa<RankedTensorType>(t);
  });
}

bool hasWarpRows(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa_and_nonnull<WarpRowsAttr>(tensor.getEncoding());
}

/// The ops of `loop`'s body that compute its yielded state, in body order,
/// or empty if the loop does not have the form the pass rewrites.
SmallVector<Operation *> collectStep(scf::ForOp loop) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> step;
  SmallVector<Value> worklist(body->getTerminator()->getOperands());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !isTileStepOp(def) ||
        !step.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  // The step's values may feed only the step and the yield: anything else
  // would see the skipped block's values.
  for (Operation *op : step)
    for (Operation *user : op->getUsers())
      if (!step.contains(user) && user != body->getTerminator())
        return {};
  SmallVector<Operation *> ordered;
  for (Operation &op : *body)
    if (step.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// Rewrites one loop; returns whether it did.
bool skipHiddenWarpBlocks(scf::ForOp loop) {
  SmallVector<Operation *> step = collectStep(loop);
  SmallVector<MaskOp> masks;
  for (Operation *op : step)
    if (auto mask = dyn_cast<MaskOp>(op))
      masks.push_back(mask);
  if (masks.size() != 1 || !hasWarpRows(masks.front().getScores().getType()))
    return false;
  // The mask's bounds are index values, never step ops, so they dominate
  // the branch, which goes right before the loop's yield.
  MaskOp mask = masks.front();
  // Only the diagonal and the window hide whole row slices; the key limit
  // hides the same keys from every row.
  // A single-query tile's rows all see the same keys: no warp differs.
  semantics::MaskSpec spec = semantics::MaskSpec::of(mask);
  if ((!spec.causalOffset && !spec.windowOffset) || spec.singleQuery)
    return false;
  auto scoresTy = cast<RankedTensorType>(mask.getScores().getType());
  // Key groups (--fa-map-warps{key-groups}) meet in shared memory behind a
  // block-wide barrier in every step, which a skipping warp would miss.
  if (cast<WarpRowsAttr>(scoresTy.getEncoding()).getShare() !=
      ReplicaShare::Whole)
    return false;
  int64_t rows = scoresTy.getDimSize(0), cols = scoresTy.getDimSize(1);

  // The yielded positions the step computes, and a loop-carried tile of the
  // Q block's rows to ask for the warp's slice.
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  llvm::SmallPtrSet<Operation *, 16> inStep(step.begin(), step.end());
  SmallVector<unsigned> positions;
  Value rowTile;
  for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
    Operation *def = v.getDefiningOp();
    if (!def || !inStep.contains(def))
      continue;
    positions.push_back(i);
    Value carried = loop.getRegionIterArg(i);
    auto ty = dyn_cast<RankedTensorType>(carried.getType());
    if (!rowTile && hasWarpRows(ty) && ty.getDimSize(0) == rows)
      rowTile = carried;
  }
  if (positions.empty() || !rowTile)
    return false;

  OpBuilder b(yield);
  Location loc = mask.getLoc();
  auto range = WarpRowRangeOp::create(b, loc, rowTile);
  Value firstRow =
      arith::AddIOp::create(b, loc, mask.getRowStart(), range.getFirst());
  // Only the causal bound reads the last row.
  Value lastRow = firstRow;
  if (spec.causalOffset)
    lastRow = arith::SubIOp::create(
        b, loc, arith::AddIOp::create(b, loc, firstRow, range.getCount()),
        arith::ConstantIndexOp::create(b, loc, 1));
  Value keyEnd = arith::AddIOp::create(
      b, loc, mask.getColStart(), arith::ConstantIndexOp::create(b, loc, cols));
  Value sees = semantics::rowsMaySeeKeys(b, loc, firstRow, lastRow,
                                         mask.getColStart(), keyEnd, spec);

  SmallVector<Type> types;
  for (unsigned i : positions)
    types.push_back(yield.getOperand(i).getType());
  auto branch = scf::IfOp::create(b, loc, types, sees, /*withElse=*/true);
  Block *then = branch.thenBlock();
  for (Operation *op : step)
    op->moveBefore(then, then->end());
  OpBuilder thenBuilder = OpBuilder::atBlockEnd(then);
  OpBuilder elseBuilder = OpBuilder::atBlockEnd(branch.elseBlock());
  SmallVector<Value> computed, unchanged;
  for (unsigned i : positions) {
    computed.push_back(yield.getOperand(i));
    unchanged.push_back(loop.getRegionIterArg(i));
  }
  scf::YieldOp::create(thenBuilder, loc, computed);
  scf::YieldOp::create(elseBuilder, loc, unchanged);
  for (auto [i, result] : llvm::zip(positions, branch.getResults()))
    yield.setOperand(i, result);
  return true;
}

struct FAWarpBlockSkipPass
    : public fa::impl::FAWarpBlockSkipBase<FAWarpBlockSkipPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      skipHiddenWarpBlocks(loop);
  }
};

} // namespace
