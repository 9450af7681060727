//===- CompilerCore.h - The compiler as the Python module sees it -*- C++ -*-===//
//
// The Python extension is split in two translation-unit families:
//
//  * CompilerCore.cpp uses MLIR and LLVM and is built like the rest of
//    fa-mlir: no RTTI and no exceptions, as Debian's LLVM is built.
//  * Module.cpp is the nanobind module: it needs RTTI and exceptions and
//    includes no MLIR or LLVM header, only this one.
//
// So the two never share a class with a vtable (whose type_info LLVM's
// libraries do not export), and no C++ exception crosses LLVM code. Only
// plain standard-library types cross this interface.
//
//===----------------------------------------------------------------------===//

#ifndef FA_PYTHON_COMPILERCORE_H
#define FA_PYTHON_COMPILERCORE_H

#include <string>
#include <vector>

namespace fa_python {

/// One MLIR diagnostic: severity ("error", "warning", "note", "remark"),
/// location as MLIR prints it (e.g. `"input":3:8` or `loc(unknown)`),
/// message, and the notes attached to it.
struct Diagnostic {
  std::string severity;
  std::string location;
  std::string message;
  std::vector<Diagnostic> notes;
};

/// A kernel's PTX and the launch plan that runs it (docs/launch-plan.md).
struct Kernel {
  std::string planName;
  std::string planJson;
  std::string kernelName;
  std::string ptx;
};

struct RunResult {
  bool ok = false;
  /// The module after the pipeline (empty when not asked for or failed).
  std::string ir;
  /// Kernels carried by launch plans in the result (when asked for).
  std::vector<Kernel> kernels;
  /// Everything the parser, the verifier and the passes reported.
  std::vector<Diagnostic> diagnostics;
};

struct RunOptions {
  bool printIR = true;
  bool printGeneric = false;
  bool printDebugInfo = false;
  bool collectKernels = false;
  bool verifyEach = true;
};

/// Parses `source` (MLIR text; `sourceName` names it in locations), runs
/// `pipeline` (textual pass pipeline, anchored on builtin.module unless it
/// names its anchor, e.g. "fa-tile-q-outer{block-m=64},cse" or
/// "builtin.module(fa-to-ptx{chip=sm_80})"), and returns the result. An
/// empty pipeline only parses and verifies. Never throws.
RunResult runPipeline(const std::string &source, const std::string &sourceName,
                      const std::string &pipeline, const RunOptions &options);

/// The pipeline text after parsing (as MLIR prints it back), or the empty
/// string and a diagnostic when it does not parse.
std::string canonicalPipeline(const std::string &pipeline,
                              std::vector<Diagnostic> &diagnostics);

/// LLVM's version, e.g. "22.1.0".
std::string llvmVersion();

} // namespace fa_python

#endif // FA_PYTHON_COMPILERCORE_H
