//===- downstream-opt.cpp - An mlir-opt of another project, with fa -------===//
//
// What a project that embeds fa-mlir writes: its own registry, fa-mlir's
// registration functions (fa/InitFA.h), and whatever else it needs.
//
//===----------------------------------------------------------------------===//

#include "fa/InitFA.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  // The fa dialect and what its pipelines need (NVVM target, LLVM IR
  // translations, bufferization models).
  mlir::fa::registerAllDialects(registry);
  // The project's own passes would go here; upstream's for good measure.
  mlir::registerAllPasses();
  // --fa-tile-q-outer ... and --fa-to-ptx, --fa-lower-to-cpu ...
  mlir::fa::registerAllPasses();
  mlir::fa::registerAllPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream optimizer with fa-mlir\n", registry));
}
