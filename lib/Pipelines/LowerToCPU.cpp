//===- LowerToCPU.cpp - fa IR -> LLVM dialect for the host ----------------===//

#include "fa/Pipelines/Pipelines.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::fa::buildLowerToCPUPipeline(OpPassManager &pm) {
  // Input that upstream passes below would crash on becomes a diagnostic.
  pm.addPass(fa::createFACheckUpstreamInvariants());
  // fa ops -> linalg on tensors: a whole fa.attention through the naive
  // decomposition, the tile ops of L1/L2 one by one.
  pm.addPass(fa::createFADecomposeNaive());
  pm.addPass(fa::createFADecomposeTiles());
  // An attention the raise left alone keeps its linalg.softmax.
  pm.addPass(fa::createFADecomposeAggregates());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());

  // Tensors -> buffers, with the deallocations one-shot bufferization needs.
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  // The online-softmax state (m, l, acc) is loop-carried: each iteration
  // yields new tensors.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  bufferization::BufferDeallocationPipelineOptions deallocOptions;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOptions);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Loops (the Q-block scf.forall runs sequentially), then the LLVM dialect.
  pm.addPass(createForallToForLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::fa::registerFAPipelines() {
  // Registered by hand (not PassPipelineRegistration<ToPTXOptions>) so that
  // a bad option value fails the pipeline instead of being ignored.
  registerPassPipeline(
      "fa-to-ptx",
      "Compile fa.attention to PTX (L0 -> L5): tile, skip causal blocks, map "
      "warps, schedule the softmax, pipeline K/V, lower to the GPU kernel op "
      "by op and through NVVM to PTX",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        ToPTXOptions options;
        // Option syntax errors go to the registry's handler too, so that
        // callers of parsePassPipeline (the Python module) get the message.
        std::string message;
        llvm::raw_string_ostream os(message);
        if (failed(options.parseFromString(optionsStr, os))) {
          StringRef detail = StringRef(message).trim();
          return errorHandler("fa-to-ptx: cannot parse the options '" +
                              optionsStr + "'" +
                              (detail.empty() ? "" : ": " + detail));
        }
        return buildToPTXPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(ToPTXOptions());
      });
  registerPassPipeline(
      "fa-linalg-to-ptx",
      "Compile linalg on tensors to PTX: --fa-raise-attention turns the "
      "attentions it recognises into fa.attention, then --fa-to-ptx with the "
      "same options",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        ToPTXOptions options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        return buildLinalgToPTXPipeline(pm, options);
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(ToPTXOptions());
      });
  PassPipelineRegistration<>(
      "fa-linalg-to-cpu",
      "Raise attention in linalg on tensors to fa.attention "
      "(--fa-raise-attention), then --fa-lower-to-cpu",
      [](OpPassManager &pm) {
        pm.addPass(fa::createFACheckUpstreamInvariants());
        pm.addPass(createFARaiseAttention());
        buildLowerToCPUPipeline(pm);
      });
  PassPipelineRegistration<>(
      "fa-lower-to-cpu",
      "Lower fa IR to the LLVM dialect for the host (runnable with "
      "mlir-runner): naive decomposition of fa.attention, bufferization, "
      "loops, LLVM",
      [](OpPassManager &pm) { buildLowerToCPUPipeline(pm); });
}
