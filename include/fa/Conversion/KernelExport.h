//===- KernelExport.h - PTX and launch plans out of a lowered module -*- C++ -*-===//
//
// What crosses from the compiler to a runtime: for each gpu.launch_func that
// carries a launch plan (`fa.launch_plan`, docs/launch-plan.md), the plan as
// JSON and the PTX of the kernel it launches. --fa-export-kernels writes
// them to files; the Python module returns them in memory.
//
//===----------------------------------------------------------------------===//

#ifndef FA_CONVERSION_KERNELEXPORT_H
#define FA_CONVERSION_KERNELEXPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
namespace fa {

struct ExportedKernel {
  std::string planName;   // The plan's "name": <planName>.json on disk.
  std::string planJson;   // The plan, pretty-printed JSON.
  std::string kernelName; // The kernel symbol: <kernelName>.ptx on disk.
  std::string ptx;
};

/// The plan and PTX of every launch in `module` that carries a plan, in
/// program order (the launches of a multi-kernel plan, e.g. split-KV's
/// attention and merge kernels, each give an entry with the same plan). Fails, with an error on the launch, when a name is not a
/// PTX identifier or the kernel's gpu.binary is missing or not PTX (run
/// gpu-module-to-binary{format=isa} first).
FailureOr<SmallVector<ExportedKernel>> collectExportedKernels(ModuleOp module);

} // namespace fa
} // namespace mlir

#endif // FA_CONVERSION_KERNELEXPORT_H
