//===- BufferizableOpInterfaceImpl.cpp - fa.attention bufferization -------===//
//
// One-shot bufferization turns the tensor form of `fa.attention` (and of
// `fa.attention_backward`) into its memref form: the `outs` tensors become
// the buffers the op writes.
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
/// fa.attention and fa.attention_backward: destination-style ops whose
/// inputs come first and whose `outs` are the buffers they write.
template <typename OpTy>
struct AttentionLikeOpInterface
    : public DstBufferizableOpInterfaceExternalModel<
          AttentionLikeOpInterface<OpTy>, OpTy> {
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
    auto attention = cast<OpTy>(op);
    if (!attention.hasTensorSemantics())
      return success();

    // Inputs first, then the destinations, in operand order; scalars
    // (max_seqlen_q) stay as they are.
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (!isa<TensorType>(operand.getType())) {
        operands.push_back(operand);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      operands.push_back(*buffer);
    }
    ValueRange outs =
        ValueRange(operands).take_back(attention.getOutputs().size());

    rewriter.setInsertionPoint(op);
    // The same attributes (scale, causal, window, softcap, ...).
    OpTy::create(rewriter, op->getLoc(), TypeRange(), operands,
                 attention->getAttrs());
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};
} // namespace

void mlir::fa::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, fa::FADialect *dialect) {
    fa::AttentionOp::attachInterface<
        AttentionLikeOpInterface<fa::AttentionOp>>(*ctx);
    fa::AttentionBackwardOp::attachInterface<
        AttentionLikeOpInterface<fa::AttentionBackwardOp>>(*ctx);
  });
}
