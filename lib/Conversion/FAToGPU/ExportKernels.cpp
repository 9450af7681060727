//===- ExportKernels.cpp - Write PTX and launch records to files ----------===//
//
// The compiler runs where MLIR is, the kernel where the GPU is: what crosses
// over is the PTX of each gpu.binary and the fa.launch record of its launch,
// as JSON.
//
//===----------------------------------------------------------------------===//

#include "fa/Conversion/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto real = dyn_cast<FloatAttr>(attr))
    return real.getValueAsDouble();
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.str();
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

LogicalResult writeFile(Operation *op, StringRef path, StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return op->emitError("fa-export-kernels: cannot write ")
           << path << ": " << ec.message();
  os << contents;
  return success();
}

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
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      auto record = launch->getAttrOfType<DictionaryAttr>("fa.launch");
      if (!record)
        return WalkResult::advance();
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
      SmallString<128> ptxPath(outputDir), jsonPath(outputDir);
      llvm::sys::path::append(ptxPath, kernel + ".ptx");
      llvm::sys::path::append(jsonPath, kernel + ".json");
      std::string json;
      llvm::raw_string_ostream os(json);
      os << llvm::formatv("{0:2}", toJson(record)) << "\n";
      if (failed(writeFile(launch, ptxPath, object.getObject().getValue())) ||
          failed(writeFile(launch, jsonPath, json)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
