//===- RejectBackwardOnGPU.cpp - No silent pass-through to the GPU --------===//
//
// The GPU pipeline (--fa-to-ptx) lowers fa.attention only. Without this
// check an fa.attention_backward would go through it untouched: no kernel,
// no error. It runs first in --fa-to-ptx.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"
#include "fa/Transforms/Passes.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAREJECTBACKWARDONGPU
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
struct FARejectBackwardOnGPUPass
    : fa::impl::FARejectBackwardOnGPUBase<FARejectBackwardOnGPUPass> {
  void runOnOperation() override {
    WalkResult found = getOperation()->walk([](fa::AttentionBackwardOp op) {
      op.emitError("fa.attention_backward has no GPU lowering yet (only the "
                   "CPU path: --fa-lower-to-cpu, optionally after "
                   "--fa-tile-kv-outer; docs/backward.md)");
      return WalkResult::interrupt();
    });
    if (found.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
