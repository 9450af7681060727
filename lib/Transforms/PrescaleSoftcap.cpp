//===- PrescaleSoftcap.cpp - Scale Q once instead of every capped score ---===//
//
// Stages L2 and L3: `fa.softcap %s scale(%a)` with %s = fa.qk %q, %k and %q
// held for the whole K/V loop becomes fa.softcap of fa.qk(fa.scale_tile %q,
// %a) with scale 1.0. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAPRESCALESOFTCAP
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// A tile fa.scale_tile can take: no layout yet (L2) or a register layout
/// (the op's verifier lists them); never a tile in shared memory.
bool isRegisterTile(Value tile) {
  Attribute encoding = getTileEncoding(tile.getType());
  if (!encoding)
    return true;
  auto rows = dyn_cast<WarpRowsAttr>(encoding);
  return rows && (rows.getRole() == FragmentRole::OperandA ||
                  rows.getRole() == FragmentRole::Acc);
}

/// The fa.qk behind `cap` when its Q can be scaled instead: the scores used
/// by `cap` alone, Q a register tile and Q and the factor both defined
/// outside the innermost loop around the product.
QKOp prescalableProduct(SoftcapOp cap) {
  auto qk = cap.getScores().getDefiningOp<QKOp>();
  if (!qk || !qk->hasOneUse() ||
      matchPattern(cap.getScale(), m_OneFloat())) // already prescaled
    return {};
  auto loop = qk->getParentOfType<scf::ForOp>();
  if (!loop || !loop.isDefinedOutsideOfLoop(qk.getQuery()) ||
      !loop.isDefinedOutsideOfLoop(cap.getScale()) ||
      !isRegisterTile(qk.getQuery()))
    return {};
  return qk;
}

struct FAPrescaleSoftcapPass
    : public fa::impl::FAPrescaleSoftcapBase<FAPrescaleSoftcapPass> {
  void runOnOperation() override {
    SmallVector<std::pair<SoftcapOp, QKOp>> work;
    getOperation()->walk([&](SoftcapOp cap) {
      if (QKOp qk = prescalableProduct(cap))
        work.push_back({cap, qk});
    });
    DominanceInfo dom(getOperation());
    // One scaled Q per (Q, factor), placed before the first loop that reads
    // it and shared by the later ones it dominates (the causal split's two
    // loops).
    DenseMap<std::pair<Value, Value>, Value> scaled;
    for (auto [cap, qk] : work) {
      Value q = qk.getQuery(), factor = cap.getScale();
      auto loop = qk->getParentOfType<scf::ForOp>();
      Value &qScaled = scaled[{q, factor}];
      if (!qScaled || !dom.properlyDominates(qScaled, loop)) {
        OpBuilder before(loop);
        qScaled = ScaleTileOp::create(before, cap.getLoc(), q, factor);
      }
      qk.getQueryMutable().assign(qScaled);
      OpBuilder b(cap);
      Value one = arith::ConstantOp::create(b, cap.getLoc(),
                                            b.getF32FloatAttr(1.0));
      cap.getScaleMutable().assign(one);
    }
  }
};

} // namespace
