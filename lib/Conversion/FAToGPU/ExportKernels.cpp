//===- ExportKernels.cpp - Write PTX and launch plans to files ------------===//
//
// The compiler runs where MLIR is, the kernel where the GPU is: what crosses
// over is the PTX of each kernel and the launch plan of its launch
// (LaunchPlan.h), as JSON. Files are written whole or not at all (a
// temporary file renamed into place), under names that are PTX identifiers,
// so always inside the output directory.
//
//===----------------------------------------------------------------------===//

#include "fa/Conversion/KernelExport.h"
#include "fa/Conversion/Passes.h"

#include "LaunchPlan.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAEXPORTKERNELS
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {

llvm::json::Value toJson(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().strref()] = toJson(entry.getValue());
    return std::move(object);
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array list;
    for (Attribute element : array)
      list.push_back(toJson(element));
    return std::move(list);
  }
  if (isa<UnitAttr>(attr))
    return nullptr;
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    const APInt &value = integer.getValue();
    if (value.getSignificantBits() <= 64)
      return value.getSExtValue();
    return llvm::toString(value, 10, /*Signed=*/true); // JSON has no bigints.
  }
  if (auto real = dyn_cast<FloatAttr>(attr)) {
    double value = real.getValueAsDouble();
    if (std::isfinite(value))
      return value;
    // JSON has no inf or NaN: write them as the strings Python's float()
    // reads back.
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  }
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.str();
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// Writes `contents` to `dir/name` through a temporary file in `dir`, so
/// that a failed or interrupted run never leaves a truncated file.
LogicalResult writeFile(Operation *op, StringRef dir, StringRef name,
                        StringRef contents) {
  SmallString<128> path(dir), temp;
  llvm::sys::path::append(path, name);
  int fd;
  SmallString<128> model(dir);
  llvm::sys::path::append(model, name + ".tmp-%%%%%%");
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return op->emitError("fa-export-kernels: cannot write ")
           << path << ": " << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return op->emitError("fa-export-kernels: cannot write ")
             << path << ": " << os.error().message();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return op->emitError("fa-export-kernels: cannot write ")
           << path << ": " << ec.message();
  }
  return success();
}

/// A file name made of the characters of a PTX identifier only.
bool isSafeFileName(StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  });
}

} // namespace

FailureOr<SmallVector<fa::ExportedKernel>>
fa::collectExportedKernels(ModuleOp module) {
  SmallVector<ExportedKernel> kernels;
  WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
    auto plan = launch->getAttrOfType<DictionaryAttr>(
        fa::LaunchPlan::kAttrName);
    if (!plan)
      return WalkResult::advance();
    auto name = plan.getAs<StringAttr>("name");
    if (!name || !isSafeFileName(name.getValue())) {
      launch.emitError("fa-export-kernels: the launch plan's name is not a "
                       "PTX identifier");
      return WalkResult::interrupt();
    }
    auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
        launch, launch.getKernelModuleName());
    if (!binary || binary.getObjects().empty()) {
      mlir::emitError(launch.getLoc(), "fa-export-kernels: no gpu.binary for ")
          << launch.getKernelModuleName()
          << "; run gpu-module-to-binary{format=isa} first";
      return WalkResult::interrupt();
    }
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (object.getFormat() != gpu::CompilationTarget::Assembly) {
      mlir::emitError(launch.getLoc(), "fa-export-kernels: the binary of ")
          << launch.getKernelModuleName()
          << " is not PTX; use gpu-module-to-binary{format=isa}";
      return WalkResult::interrupt();
    }
    StringRef kernel = launch.getKernelName().getValue();
    if (!isSafeFileName(kernel)) {
      launch.emitError("fa-export-kernels: kernel name '")
          << kernel << "' is not a PTX identifier";
      return WalkResult::interrupt();
    }
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::formatv("{0:2}", toJson(plan)) << "\n";
    kernels.push_back(ExportedKernel{name.getValue().str(), std::move(json),
                                     kernel.str(),
                                     object.getObject().getValue().str()});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return kernels;
}

namespace {

struct FAExportKernelsPass
    : fa::impl::FAExportKernelsBase<FAExportKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
      mlir::emitError(module.getLoc(),
                      "fa-export-kernels: cannot create directory ")
          << outputDir << ": " << ec.message();
      return signalPassFailure();
    }
    FailureOr<SmallVector<fa::ExportedKernel>> kernels =
        fa::collectExportedKernels(module);
    if (failed(kernels))
      return signalPassFailure();
    // The kernels of one plan (split-KV's two) share its JSON: written once.
    llvm::StringSet<> plansWritten;
    for (const fa::ExportedKernel &k : *kernels)
      if (failed(writeFile(module, outputDir, k.kernelName + ".ptx", k.ptx)) ||
          (plansWritten.insert(k.planName).second &&
           failed(writeFile(module, outputDir, k.planName + ".json",
                            k.planJson))))
        return signalPassFailure();
  }
};

} // namespace
