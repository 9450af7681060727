//===- Pipelines.h - FlashAttention pass pipelines --------------*- C++ -*-===//
//
// Named pipelines that chain the `fa-` passes with the upstream ones:
//
//   --fa-lower-to-cpu   fa IR (any stage that has a CPU lowering) -> LLVM
//                       dialect for the host, runnable with mlir-runner.
//
//===----------------------------------------------------------------------===//

#ifndef FA_PIPELINES_PIPELINES_H
#define FA_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;
namespace fa {

/// Lowers every `fa` op left in the module to loops and then to the LLVM
/// dialect, bufferizing on the way. A whole `fa.attention` goes through the
/// naive decomposition; the tile ops of a tiled loop nest (L1/L2) through
/// --fa-decompose-tiles.
void buildLowerToCPUPipeline(OpPassManager &pm);

/// Registers the pipelines above with the global pass registry.
void registerFAPipelines();

} // namespace fa
} // namespace mlir

#endif // FA_PIPELINES_PIPELINES_H
