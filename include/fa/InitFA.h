//===- InitFA.h - Register everything fa-mlir provides ----------*- C++ -*-===//
//
// One place that registers the `fa` dialect, its passes and pipelines, and the
// upstream dialects, extensions and passes that the pipelines use. Tools
// (fa-opt, the Python module) and users' own drivers call these two functions.
//
//===----------------------------------------------------------------------===//

#ifndef FA_INITFA_H
#define FA_INITFA_H

namespace mlir {
class DialectRegistry;
namespace fa {

/// The `fa` dialect with its interface models, plus every upstream dialect
/// and extension (bufferization models, NVVM target, LLVM translations).
void registerAllDialectsAndExtensions(DialectRegistry &registry);

/// The `fa-` passes and pipelines, plus every upstream pass.
void registerAllPassesAndPipelines();

} // namespace fa
} // namespace mlir

#endif // FA_INITFA_H
