//===- DecomposeAggregates.cpp - linalg.softmax -> structured ops ---------===//
//
// The CPU pipeline lowers structured linalg ops to loops, and an attention
// that the raise does not recognise keeps its linalg.softmax: without this
// pass that program would leave --fa-lower-to-cpu half-lowered, with no
// word of why. Upstream's own decomposition does the work.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FADECOMPOSEAGGREGATES
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {

struct FADecomposeAggregatesPass
    : fa::impl::FADecomposeAggregatesBase<FADecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitError("fa-decompose-aggregates: upstream cannot decompose "
                      "this op into structured ops, so the CPU pipeline "
                      "cannot lower it");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *results);
    }
  }
};

} // namespace
