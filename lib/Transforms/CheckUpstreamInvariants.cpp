//===- CheckUpstreamInvariants.cpp - Reject IR upstream would crash on ----===//
//
// Upstream MLIR 22 verifies some ops less strictly than its own printers,
// folders and bufferization assume. The fa pipelines hand whatever they are
// given to upstream passes, so such input must become a diagnostic here,
// first, rather than a crash later (the reliability rule: never feed an
// upstream pass IR known to crash it). Each form checked has been found by
// the fuzzer (test/fuzz/) and is listed in docs/reliability.md.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FACHECKUPSTREAMINVARIANTS
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

/// Checks that a static list of a tensor.pad has one kDynamic entry per
/// operand. The diagnostic goes to the location only: a note printing the
/// op would run tensor::PadOp::print, which reads the missing operand.
static LogicalResult checkPadList(tensor::PadOp pad, StringRef name,
                                  ArrayRef<int64_t> statics,
                                  ValueRange dynamics) {
  int64_t rank = pad.getSourceType().getRank();
  int64_t numDynamic = llvm::count(statics, ShapedType::kDynamic);
  if (static_cast<int64_t>(statics.size()) == rank &&
      numDynamic == static_cast<int64_t>(dynamics.size()))
    return success();
  emitError(pad.getLoc())
      << "tensor.pad: '" << name << "' has " << statics.size()
      << " entries for a rank-" << rank << " source and " << numDynamic
      << " dynamic entries but " << dynamics.size()
      << " operands (a literal -9223372036854775808 is the dynamic-size "
         "sentinel, not a pad amount)";
  return failure();
}

namespace {
struct FACheckUpstreamInvariantsPass
    : fa::impl::FACheckUpstreamInvariantsBase<FACheckUpstreamInvariantsPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk([&](tensor::PadOp pad) {
      ok &= succeeded(
          checkPadList(pad, "low", pad.getStaticLow(), pad.getLow()));
      ok &= succeeded(
          checkPadList(pad, "high", pad.getStaticHigh(), pad.getHigh()));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
