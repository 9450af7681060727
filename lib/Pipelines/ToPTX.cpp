//===- ToPTX.cpp - fa.attention -> PTX for sm_80 (L0 -> L5) ---------------===//

#include "fa/Conversion/Passes.h"
#include "fa/Pipelines/Pipelines.h"
#include "fa/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::fa::buildToPTXPipeline(OpPassManager &pm,
                                  const ToPTXOptions &options) {
  // L0 -> L1 -> L2 -> L3.
  FATileQOuterOptions tiling;
  tiling.autoBlocks = options.blockM == 0 && options.blockN == 0;
  tiling.blockM = options.blockM;
  tiling.blockN = options.blockN;
  pm.addPass(createFATileQOuter(tiling));
  pm.addPass(createFACausalBlockSkip());
  pm.addPass(createFAMapWarps(FAMapWarpsOptions{options.numWarps}));

  // L3 -> L4: the kernel in the GPU/NVGPU/NVVM dialects.
  pm.addPass(createFALowerToGPU(FALowerToGPUOptions{options.chip}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // L4 -> L5: upstream NVVM lowering and serialisation to PTX.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createFALowerGPUMath());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.outputDir.empty())
    pm.addPass(createFAExportKernels(FAExportKernelsOptions{options.outputDir}));
}
