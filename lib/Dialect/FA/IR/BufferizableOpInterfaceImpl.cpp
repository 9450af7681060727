//===- BufferizableOpInterfaceImpl.cpp - fa.attention bufferization -------===//
//
// One-shot bufferization turns the tensor form of `fa.attention` into its
// memref form: the `outs` tensors become the buffers the op writes.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {
struct AttentionOpInterface
    : public DstBufferizableOpInterfaceExternalModel<AttentionOpInterface,
                                                     fa::AttentionOp> {
  /// Unlike the generic destination-style default, the outputs are only
  /// written, never read: an `outs` tensor that comes from `tensor.empty`
  /// needs no copy.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &opOperand,
                              const AnalysisState &state) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&opOperand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attention = cast<fa::AttentionOp>(op);
    if (!attention.hasTensorSemantics())
      return success();

    auto bufferOf = [&](Value v) -> FailureOr<Value> {
      return getBuffer(rewriter, v, options, state);
    };
    FailureOr<Value> q = bufferOf(attention.getQuery());
    FailureOr<Value> k = bufferOf(attention.getKey());
    FailureOr<Value> v = bufferOf(attention.getValue());
    if (failed(q) || failed(k) || failed(v))
      return failure();
    SmallVector<Value> outs;
    for (Value out : attention.getOutputs()) {
      FailureOr<Value> buffer = bufferOf(out);
      if (failed(buffer))
        return failure();
      outs.push_back(*buffer);
    }

    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands = {*q, *k, *v};
    llvm::append_range(operands, outs);
    // The same attributes (scale, causal, window, softcap, ...).
    fa::AttentionOp::create(rewriter, op->getLoc(), TypeRange(), operands,
                            attention->getAttrs());
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};
} // namespace

void mlir::fa::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, fa::FADialect *dialect) {
    fa::AttentionOp::attachInterface<AttentionOpInterface>(*ctx);
  });
}
