//===- fa-opt.cpp - FlashAttention optimizer driver -----------------------===//
//
// mlir-opt plus the `fa` dialect and its passes and pipelines: everything a
// user needs to carry `fa.attention` down to the CPU or to PTX.
//
// One difference from mlir-opt: before the passes given on the command line
// (or none), --fa-check-upstream-invariants rejects input that upstream
// MLIR 22 parses and verifies but then crashes on, in its passes or in its
// own printer (docs/reliability.md). --fa-skip-upstream-check turns it off,
// to reach the code behind it, as mlir-opt would.
//
//===----------------------------------------------------------------------===//

#include "fa/InitFA.h"
#include "fa/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::opt<bool> skipUpstreamCheck(
    "fa-skip-upstream-check",
    llvm::cl::desc("Do not run --fa-check-upstream-invariants before the "
                   "given passes"),
    llvm::cl::init(false));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  mlir::fa::registerAllDialectsAndExtensions(registry);
  mlir::fa::registerAllPassesAndPipelines();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "fa-mlir optimizer driver\n", registry);

  // The command line's own pipeline, behind the check.
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::MlirOptMainConfig commandLine = config;
  config.setPassPipelineSetupFn(
      [commandLine](mlir::PassManager &pm) -> llvm::LogicalResult {
        if (!skipUpstreamCheck)
          pm.addPass(mlir::fa::createFACheckUpstreamInvariants());
        return commandLine.setupPassPipeline(pm);
      });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
