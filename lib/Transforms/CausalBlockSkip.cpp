//===- CausalBlockSkip.cpp - Skip invisible K/V blocks, split the mask ----===//
//
// Stage L1 -> L2: the inner K/V loop becomes an unmasked loop over fully
// visible blocks followed by a masked loop over the blocks that cross the
// causal diagonal (or the end of the keys); blocks that no row can see are
// never visited. See the pass description in Passes.td for the bounds.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FACAUSALBLOCKSKIP
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// The parts of a tiled K/V loop this pass needs.
struct KVLoop {
  scf::ForOp loop;
  fa::MaskOp mask;
  int64_t blockRows; // M: rows of the Q block.
  int64_t blockCols; // N: rows of the K/V block (the loop step).
};

/// Recognises the inner loop of --fa-tile-q-outer: from 0 in constant steps of
/// the K/V block, with one fa.mask on the loop's own block (col_start is the
/// induction variable) whose other operands are defined outside the loop.
std::optional<KVLoop> matchKVLoop(scf::ForOp loop) {
  SmallVector<fa::MaskOp> masks;
  bool hasSoftmax = false;
  for (Operation &op : *loop.getBody()) {
    if (auto mask = dyn_cast<fa::MaskOp>(op))
      masks.push_back(mask);
    hasSoftmax |= isa<fa::OnlineSoftmaxOp>(op);
  }
  if (masks.size() != 1 || !hasSoftmax)
    return std::nullopt;
  fa::MaskOp mask = masks.front();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  auto scoresTy = cast<RankedTensorType>(mask.getScores().getType());
  if (!lb || *lb != 0 || !step || *step != scoresTy.getDimSize(1) ||
      mask.getColStart() != loop.getInductionVar())
    return std::nullopt;
  for (Value v : {mask.getRowStart(), mask.getKeyLimit(),
                  mask.getCausalOffset(), mask.getWindowOffset()})
    if (v && loop->isAncestor(v.getParentRegion()->getParentOp()))
      return std::nullopt;
  return KVLoop{loop, mask, scoresTy.getDimSize(0), scoresTy.getDimSize(1)};
}

/// a - b when both are the same value plus constants (arith.addi), else
/// nullopt.
std::optional<int64_t> constantDifference(Value a, Value b) {
  auto split = [](Value v) -> std::pair<Value, int64_t> {
    if (auto add = v.getDefiningOp<arith::AddIOp>())
      if (std::optional<int64_t> c = getConstantIntValue(add.getRhs()))
        return {add.getLhs(), *c};
    return {v, 0};
  };
  auto [baseA, offsetA] = split(a);
  auto [baseB, offsetB] = split(b);
  if (baseA != baseB)
    return std::nullopt;
  return offsetA - offsetB;
}

void splitLoop(RewriterBase &rewriter, KVLoop kv) {
  scf::ForOp loop = kv.loop;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto add = [&](Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b).getResult();
  };
  auto min = [&](Value a, Value b) {
    return arith::MinSIOp::create(rewriter, loc, a, b).getResult();
  };
  auto clampAtZero = [&](Value a) {
    return arith::MaxSIOp::create(rewriter, loc, a, cst(0)).getResult();
  };

  auto max = [&](Value a, Value b) {
    return arith::MaxSIOp::create(rewriter, loc, a, b).getResult();
  };
  Value blockCols = cst(kv.blockCols);
  auto floorToBlock = [&](Value v) {
    return arith::MulIOp::create(
               rewriter, loc,
               arith::DivUIOp::create(rewriter, loc, v, blockCols), blockCols)
        .getResult();
  };
  auto ceilToBlock = [&](Value v) {
    return arith::MulIOp::create(
               rewriter, loc,
               arith::CeilDivUIOp::create(rewriter, loc, v, blockCols),
               blockCols)
        .getResult();
  };

  // Row i sees the keys [begin(i), end(i)) (the mask's own definition,
  // AttentionMath.h); both grow with i. So every row of the Q block sees
  // [begin(last row), end(first row)) and no row sees a key outside
  // [begin(first row), end(last row)).
  Value numKeys = loop.getUpperBound();
  semantics::MaskSpec spec = semantics::MaskSpec::of(kv.mask);
  Value q0 = kv.mask.getRowStart();
  // (Without diagonal offsets no bound depends on the row; a single-query
  // tile's rows are all query q0.)
  int64_t queries = spec.singleQuery ? 1 : kv.blockRows;
  bool byRow = (spec.causalOffset || spec.windowOffset) && queries > 1;
  Value lastRow = byRow ? add(q0, cst(queries - 1)) : q0;
  auto endOf = [&](Value row) {
    Value end = semantics::visibleKeysEnd(rewriter, loc, row, spec);
    return end ? min(numKeys, clampAtZero(end)) : numKeys;
  };
  // Whole blocks every row sees up to their end; a partial block needs the
  // key limit.
  Value fullEnd = floorToBlock(endOf(q0));
  Value end = endOf(lastRow);

  // Blocks some row sees in part are masked; the others are not.
  auto withoutMask = [&](scf::ForOp l) {
    for (Operation &op : llvm::make_early_inc_range(*l.getBody()))
      if (auto mask = dyn_cast<fa::MaskOp>(op))
        rewriter.replaceOp(mask, mask.getScores());
  };
  auto cloneWithBounds = [&](Value lb, Value ub, ValueRange init) {
    auto clone = cast<scf::ForOp>(rewriter.clone(*loop));
    clone.getLowerBoundMutable().assign(lb);
    clone.getUpperBoundMutable().assign(ub);
    clone.getInitArgsMutable().assign(init);
    return clone;
  };

  Value fullStart;
  ValueRange state = loop.getInitArgs();
  if (!spec.windowOffset) {
    // Keys from 0: [0, fullEnd) unmasked, [fullEnd, end) masked.
    fullStart = loop.getLowerBound();
  } else {
    // A window's left side: [begin, fullStart) masked too. Every bound but
    // the last is a whole block, so the loops are consecutive blocks of one
    // sequence (and --fa-pipeline-kv can load across them); a bound past
    // `end` only adds blocks that the masked loops mask entirely.
    Value begin = floorToBlock(
        clampAtZero(semantics::visibleKeysBegin(rewriter, loc, q0, spec)));
    Value firstFull = ceilToBlock(
        clampAtZero(semantics::visibleKeysBegin(rewriter, loc, lastRow, spec)));
    Value lastBlockEnd = max(begin, ceilToBlock(end));
    fullStart = min(max(firstFull, begin), lastBlockEnd);
    fullEnd = min(max(fullEnd, fullStart), lastBlockEnd);
    scf::ForOp left = cloneWithBounds(begin, fullStart, state);
    state = left.getResults();
    // Every key of the left loop is before the first row's diagonal when
    // the window is at least M + N - 3 keys wide (they are below
    // ceil(begin(last row) / N) * N), so that loop needs no causal bound.
    std::optional<int64_t> width =
        spec.causalOffset ? constantDifference(spec.causalOffset,
                                               spec.windowOffset)
                          : std::nullopt;
    if (width && *width >= queries + kv.blockCols - 3)
      left.walk([&](fa::MaskOp mask) {
        rewriter.modifyOpInPlace(mask,
                                 [&] { mask.getCausalOffsetMutable().clear(); });
      });
    // Every key of the right loop is at or after fullStart >=
    // begin(last row), which every row sees: no window bound there.
    loop.walk([&](fa::MaskOp mask) {
      rewriter.modifyOpInPlace(mask,
                               [&] { mask.getWindowOffsetMutable().clear(); });
    });
  }

  // The blocks every row sees entirely, without the mask.
  scf::ForOp unmasked = cloneWithBounds(fullStart, fullEnd, state);
  withoutMask(unmasked);

  // The blocks that cross the diagonal or the end of the keys.
  rewriter.modifyOpInPlace(loop, [&] {
    loop.getLowerBoundMutable().assign(fullEnd);
    loop.getUpperBoundMutable().assign(end);
    loop.getInitArgsMutable().assign(unmasked.getResults());
  });
}

struct FACausalBlockSkipPass
    : fa::impl::FACausalBlockSkipBase<FACausalBlockSkipPass> {
  void runOnOperation() override {
    SmallVector<KVLoop> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (std::optional<KVLoop> kv = matchKVLoop(loop))
        loops.push_back(*kv);
    });
    IRRewriter rewriter(&getContext());
    for (KVLoop kv : loops)
      splitLoop(rewriter, kv);
  }
};

} // namespace
