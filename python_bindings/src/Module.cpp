//===- Module.cpp - The _fa_mlir_compiler Python extension ----------------===//
//
// Binds CompilerCore.h with nanobind. This file includes no MLIR or LLVM
// header and is the only one built with RTTI and exceptions (see
// CompilerCore.h). Results are plain Python values (str, dict, list); the
// pure-Python package fa_mlir wraps them and turns diagnostics into
// fa_mlir.CompileError, so this layer never raises for a compile error.
//
//===----------------------------------------------------------------------===//

#include "CompilerCore.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

// FA_MLIR_GIT_REVISION, written at every build (cmake/GitRevision.cmake).
#include "GitRevision.h"

namespace {

nb::dict toPython(const fa_python::Diagnostic &d) {
  nb::dict out;
  out["severity"] = d.severity;
  out["location"] = d.location;
  out["message"] = d.message;
  nb::list notes;
  for (const fa_python::Diagnostic &note : d.notes)
    notes.append(toPython(note));
  out["notes"] = notes;
  return out;
}

nb::list toPython(const std::vector<fa_python::Diagnostic> &diagnostics) {
  nb::list out;
  for (const fa_python::Diagnostic &d : diagnostics)
    out.append(toPython(d));
  return out;
}

nb::dict runPipeline(const std::string &source, const std::string &sourceName,
                     const std::string &pipeline, bool printIR,
                     bool printGeneric, bool printDebugInfo,
                     bool collectKernels, bool verifyEach) {
  fa_python::RunOptions options;
  options.printIR = printIR;
  options.printGeneric = printGeneric;
  options.printDebugInfo = printDebugInfo;
  options.collectKernels = collectKernels;
  options.verifyEach = verifyEach;
  fa_python::RunResult result;
  {
    // Compiling takes long and touches no Python object.
    nb::gil_scoped_release release;
    result = fa_python::runPipeline(source, sourceName, pipeline, options);
  }
  nb::dict out;
  out["ok"] = result.ok;
  out["ir"] = result.ir;
  nb::list kernels;
  for (const fa_python::Kernel &k : result.kernels) {
    nb::dict kernel;
    kernel["plan_name"] = k.planName;
    kernel["plan_json"] = k.planJson;
    kernel["kernel_name"] = k.kernelName;
    kernel["ptx"] = k.ptx;
    kernels.append(kernel);
  }
  out["kernels"] = kernels;
  out["diagnostics"] = toPython(result.diagnostics);
  return out;
}

nb::dict canonicalPipeline(const std::string &pipeline) {
  std::vector<fa_python::Diagnostic> diagnostics;
  std::string text = fa_python::canonicalPipeline(pipeline, diagnostics);
  nb::dict out;
  out["ok"] = diagnostics.empty();
  out["pipeline"] = text;
  out["diagnostics"] = toPython(diagnostics);
  return out;
}

} // namespace

NB_MODULE(_fa_mlir_compiler, m) {
  m.doc() = "fa-mlir's compiler in process (use the fa_mlir.compiler wrapper)";
  m.def("run_pipeline", &runPipeline, nb::arg("source"),
        nb::arg("source_name"), nb::arg("pipeline"), nb::arg("print_ir"),
        nb::arg("print_generic"), nb::arg("print_debug_info"),
        nb::arg("collect_kernels"), nb::arg("verify_each"),
        "Parse MLIR text, run a pass pipeline; returns a dict with ok, ir, "
        "kernels and diagnostics. Never raises for a compile error.");
  m.def("canonical_pipeline", &canonicalPipeline, nb::arg("pipeline"),
        "The pipeline as MLIR prints it back after parsing.");
  m.def("llvm_version", &fa_python::llvmVersion);
  m.attr("git_revision") = FA_MLIR_GIT_REVISION;
}
