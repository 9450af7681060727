//===- GpuModuleToPTX.cpp - gpu-module-to-binary with scoped options ------===//
//
// Serializes the kernels with upstream's gpu-module-to-binary{format=isa},
// setting LLVM's process-wide `nvptx-short-ptr` option only for the duration
// of that run (the rationale is in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fa/Conversion/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

#include <mutex>

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAGPUMODULETOPTX
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
/// Turns LLVM's `nvptx-short-ptr` on for the lifetime of the object and puts
/// the previous value back on destruction. The option is an LLVM
/// `cl::opt<bool>` defined by the NVPTX backend (NVPTXTargetMachine.cpp); it
/// is looked up by name because the backend does not export it. The
/// TargetMachine that gpu-module-to-binary creates reads it in its
/// constructor.
class ScopedShortSharedPointers {
public:
  ScopedShortSharedPointers() {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it == options.end())
      return;
    option = static_cast<llvm::cl::opt<bool> *>(it->second);
    previous = option->getValue();
    option->setValue(true);
  }
  ~ScopedShortSharedPointers() {
    if (option)
      option->setValue(previous);
  }
  ScopedShortSharedPointers(const ScopedShortSharedPointers &) = delete;
  ScopedShortSharedPointers &
  operator=(const ScopedShortSharedPointers &) = delete;

  /// False when this LLVM has no NVPTX backend registered.
  bool found() const { return option != nullptr; }

private:
  llvm::cl::opt<bool> *option = nullptr;
  bool previous = false;
};

struct FAGpuModuleToPTXPass
    : fa::impl::FAGpuModuleToPTXBase<FAGpuModuleToPTXPass> {
  using Base::Base;

  static OpPassManager buildSerialization() {
    OpPassManager serialization(ModuleOp::getOperationName());
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = "isa";
    serialization.addPass(createGpuModuleToBinaryPass(binary));
    return serialization;
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    buildSerialization().getDependentDialects(registry);
  }

  void runOnOperation() override {
    OpPassManager serialization = buildSerialization();
    // short-shared-pointers=false: the option is not touched at all, and the
    // kernels get whatever the process has (LLVM's default: 64-bit).
    if (!shortSharedPointers) {
      if (failed(runPipeline(serialization, getOperation())))
        signalPassFailure();
      return;
    }
    // Two runs of this pass in one process (threads of a host, or nested
    // modules compiled in parallel) must not interleave their set/restore
    // pairs, or one would restore the value while the other still compiles.
    static std::mutex optionMutex;
    std::lock_guard<std::mutex> lock(optionMutex);
    ScopedShortSharedPointers scope;
    if (!scope.found())
      getOperation().emitWarning()
          << "fa-gpu-module-to-ptx: this LLVM has no 'nvptx-short-ptr' "
             "option; shared memory addresses stay 64-bit";
    if (failed(runPipeline(serialization, getOperation())))
      signalPassFailure();
  }
};
} // namespace
