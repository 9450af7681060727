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

void mlir::fa::registerAllDialectsAndExtensions(DialectRegistry &registry) {
  registry.insert<fa::FADialect>();
  fa::registerBufferizableOpInterfaceExternalModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR.
  registerAllToLLVMIRTranslations(registry);
}

void mlir::fa::registerAllPassesAndPipelines() {
  registerAllPasses();
  fa::registerFAPasses();
  fa::registerFAConversionPasses();
  fa::registerFAPipelines();
}
