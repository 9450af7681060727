//===- InitFA.cpp - Register everything fa-mlir provides ------------------===//

#include "fa/InitFA.h"

#include "fa/Dialect/FA/IR/FA.h"
#include "fa/Conversion/Passes.h"
#include "fa/Pipelines/Pipelines.h"
#include "fa/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

using namespace mlir;

void fa::registerFADialect(DialectRegistry &registry) {
  registry.insert<fa::FADialect>();
  fa::registerBufferizableOpInterfaceExternalModels(registry);
}

void fa::registerAllDialects(DialectRegistry &registry) {
  registerFADialect(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
}

// MLIR's pass registry asserts (in builds with assertions) when a pipeline
// name is registered twice, and a host may call these from several places:
// each registration runs once per process.
void fa::registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    fa::registerFAPasses();
    fa::registerFAConversionPasses();
  });
}

void fa::registerAllPipelines() {
  static std::once_flag once;
  std::call_once(once, [] { fa::registerFAPipelines(); });
}

void fa::registerAllDialectsAndExtensions(DialectRegistry &registry) {
  fa::registerAllDialects(registry);
}

void fa::registerAllPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::registerAllPasses(); });
  fa::registerAllPasses();
  fa::registerAllPipelines();
}
