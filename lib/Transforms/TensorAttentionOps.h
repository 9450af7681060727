//===- TensorAttentionOps.h - The fa.attention ops a pass rewrites -*- C++ -*-===//
//
// Shared by the passes that rewrite fa.attention on tensors
// (--fa-decompose-naive, --fa-tile-q-outer).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H
#define FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H

#include "fa/Dialect/FA/IR/FA.h"

namespace mlir {
namespace fa {

/// Every fa.attention under `root`, in walk order; or an error on the first
/// one in memref form (already bufferized), which `passName` cannot rewrite.
/// Leaving it in place would let a later lowering carry an fa.attention into
/// LLVM IR that nothing can execute.
inline FailureOr<SmallVector<AttentionOp>>
collectTensorAttentionOps(Operation *root, StringRef passName) {
  SmallVector<AttentionOp> ops;
  WalkResult walk = root->walk([&](AttentionOp op) {
    if (!op.hasTensorSemantics()) {
      op.emitError() << passName
                     << " needs the tensor form of fa.attention; run it "
                        "before bufferization";
      return WalkResult::interrupt();
    }
    ops.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return ops;
}

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_TENSORATTENTIONOPS_H
