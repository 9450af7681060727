//===- Registration.cpp - Register fa-mlir from C -------------------------===//

#include "fa-c/Registration.h"

#include "fa/InitFA.h"

#include "mlir/CAPI/IR.h"

void faRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::fa::registerAllDialects(*unwrap(registry));
}

void faRegisterPasses(void) { mlir::fa::registerAllPasses(); }

void faRegisterAllPipelines(void) { mlir::fa::registerAllPipelines(); }

void faRegisterAllPassesAndPipelines(void) {
  mlir::fa::registerAllPassesAndPipelines();
}
