//===- TensorAttentionOps.h - The fa.attention ops a pass rewrites -*- C++ -*-===//
//
// Shared by the passes that rewrite fa.attention (and fa.attention_backward)
// on tensors (--fa-decompose-naive, --fa-tile-q-outer).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H
#define FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H

#include "fa/Dialect/FA/IR/FA.h"

namespace mlir {
namespace fa {

/// Every op of type OpTy (fa.attention or fa.attention_backward) under
/// `root`, in walk order; or an error on the first one in memref form
/// (already bufferized), which `passName` cannot rewrite. Leaving it in place
/// would let a later lowering carry the op into LLVM IR that nothing can
/// execute.
template <typename OpTy>
FailureOr<SmallVector<OpTy>> collectTensorOps(Operation *root,
                                              StringRef passName) {
  SmallVector<OpTy> ops;
  WalkResult walk = root->walk([&](OpTy op) {
    if (!op.hasTensorSemantics()) {
      op.emitError() << passName << " needs the tensor form of "
                     << OpTy::getOperationName()
                     << "; run it before bufferization";
      return WalkResult::interrupt();
    }
    ops.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return ops;
}

inline FailureOr<SmallVector<AttentionOp>>
collectTensorAttentionOps(Operation *root, StringRef passName) {
  return collectTensorOps<AttentionOp>(root, passName);
}

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H
