//===- InitFA.h - Register everything fa-mlir provides ----------*- C++ -*-===//
//
// The public registration entry points of fa-mlir, for fa-opt, the Python
// module and users' own tools (README: "Using fa-mlir from another
// project"). Every function may be called more than once and from several
// tools in one process: the pass and pipeline registrations happen once.
//
//===----------------------------------------------------------------------===//

#ifndef FA_INITFA_H
#define FA_INITFA_H

namespace mlir {
class DialectRegistry;
namespace fa {

/// The `fa` dialect and its interface models (bufferization) only.
void registerFADialect(DialectRegistry &registry);

/// The `fa` dialect, plus the upstream dialects, extensions and LLVM IR
/// translations that the fa pipelines need (--fa-to-ptx needs the NVVM
/// target and the LLVM translations, --fa-lower-to-cpu the bufferization
/// models). Today that is every upstream dialect and extension; inserting
/// them again into a registry that already has them is harmless.
void registerAllDialects(DialectRegistry &registry);

/// The `fa-` passes (--fa-tile-q-outer ... --fa-lower-to-gpu,
/// --fa-gpu-module-to-ptx ...), for textual pipelines.
void registerAllPasses();

/// The fa pipelines: --fa-to-ptx, --fa-lower-to-cpu, --fa-linalg-to-ptx,
/// --fa-linalg-to-cpu.
void registerAllPipelines();

/// What fa-opt offers: registerAllDialects.
void registerAllDialectsAndExtensions(DialectRegistry &registry);

/// What fa-opt offers: the fa passes and pipelines plus every upstream pass.
void registerAllPassesAndPipelines();

} // namespace fa
} // namespace mlir

#endif // FA_INITFA_H
