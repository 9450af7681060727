//===- fa-opt.cpp - FlashAttention optimizer driver -----------------------===//
//
// mlir-opt plus the `fa` dialect and its passes and pipelines: everything a
// user needs to carry `fa.attention` down to the CPU or to PTX.
//
//===----------------------------------------------------------------------===//

#include "fa/InitFA.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fa::registerAllDialectsAndExtensions(registry);
  mlir::fa::registerAllPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fa-mlir optimizer driver\n", registry));
}
