//===- CompilerCore.cpp - Parse, run pipelines, collect kernels -----------===//
//
// The MLIR half of the Python module (see CompilerCore.h for why it is
// separate). Each call gets its own MLIRContext, so calls share nothing but
// the registries, which are filled once.
//
//===----------------------------------------------------------------------===//

#include "CompilerCore.h"

#include "fa/Conversion/KernelExport.h"
#include "fa/InitFA.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace {

/// The dialects every context loads on demand, and the passes and pipelines
/// parsePassPipeline can name; both filled on first use.
const DialectRegistry &registry() {
  static std::once_flag once;
  static DialectRegistry *dialects;
  std::call_once(once, [] {
    dialects = new DialectRegistry;
    fa::registerAllDialectsAndExtensions(*dialects);
    fa::registerAllPassesAndPipelines();
  });
  return *dialects;
}

/// `"file":line:col` for a file location (the first one inside a name,
/// call-site or fused location), else the location as MLIR prints it.
std::string locationText(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = loc->findInstanceOf<FileLineColLoc>()) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return text;
  }
  loc.print(os);
  return text;
}

std::string severityText(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

fa_python::Diagnostic convert(mlir::Diagnostic &diag) {
  fa_python::Diagnostic out;
  out.severity = severityText(diag.getSeverity());
  out.location = locationText(diag.getLocation());
  out.message = diag.str();
  for (mlir::Diagnostic &note : diag.getNotes())
    out.notes.push_back(convert(note));
  return out;
}

fa_python::Diagnostic plainError(std::string location, std::string message) {
  fa_python::Diagnostic d;
  d.severity = "error";
  d.location = std::move(location);
  d.message = std::move(message);
  return d;
}

/// `pipeline` without a `builtin.module(...)` wrapper, which
/// parsePassPipeline(text, pm) does not take.
StringRef unanchored(StringRef pipeline) {
  StringRef text = pipeline.trim();
  if (text.consume_front("builtin.module(") && text.consume_back(")"))
    return text.trim();
  return pipeline.trim();
}

/// Parses `pipeline` into `pm`; a diagnostic for a pipeline that does not.
bool parsePipeline(StringRef pipeline, OpPassManager &pm,
                   std::vector<fa_python::Diagnostic> &diagnostics) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (succeeded(parsePassPipeline(unanchored(pipeline), pm, os)))
    return true;
  std::string message = StringRef(errors).trim().str();
  if (message.empty())
    message = "invalid pass pipeline";
  diagnostics.push_back(
      plainError("pipeline", "cannot parse pass pipeline '" +
                                 pipeline.str() + "': " + message));
  return false;
}

} // namespace

fa_python::RunResult fa_python::runPipeline(const std::string &source,
                                            const std::string &sourceName,
                                            const std::string &pipeline,
                                            const RunOptions &options) {
  RunResult result;
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  // The diagnostics carry the source location; the op in generic form that
  // MLIR would attach as a note only repeats it.
  context.printOpOnDiagnostic(false);
  // Every diagnostic is collected, none printed: the caller raises them.
  ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    result.diagnostics.push_back(convert(diag));
    return success();
  });

  PassManager pm(&context, ModuleOp::getOperationName());
  if (!parsePipeline(pipeline, pm, result.diagnostics))
    return result;
  pm.enableVerifier(options.verifyEach);

  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, sourceName);
  if (!module) {
    if (result.diagnostics.empty())
      result.diagnostics.push_back(
          plainError(sourceName, "cannot parse the input as MLIR"));
    return result;
  }
  if (failed(pm.run(*module))) {
    if (result.diagnostics.empty())
      result.diagnostics.push_back(plainError(
          sourceName, "the pass pipeline failed without a diagnostic"));
    return result;
  }
  if (options.collectKernels) {
    FailureOr<SmallVector<fa::ExportedKernel>> kernels =
        fa::collectExportedKernels(*module);
    if (failed(kernels))
      return result;
    for (fa::ExportedKernel &k : *kernels)
      result.kernels.push_back(Kernel{std::move(k.planName),
                                      std::move(k.planJson),
                                      std::move(k.kernelName),
                                      std::move(k.ptx)});
  }
  if (options.printIR) {
    llvm::raw_string_ostream os(result.ir);
    OpPrintingFlags flags;
    if (options.printGeneric)
      flags.printGenericOpForm();
    if (options.printDebugInfo)
      flags.enableDebugInfo();
    module->print(os, flags);
  }
  result.ok = true;
  return result;
}

std::string
fa_python::canonicalPipeline(const std::string &pipeline,
                             std::vector<Diagnostic> &diagnostics) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  OpPassManager pm(ModuleOp::getOperationName());
  if (!parsePipeline(pipeline, pm, diagnostics))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

std::string fa_python::llvmVersion() { return LLVM_VERSION_STRING; }
