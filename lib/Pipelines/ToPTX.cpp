//===- ToPTX.cpp - fa.attention -> PTX for sm_80 (L0 -> L5) ---------------===//

#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/Chips.h"
#include "fa/Pipelines/Pipelines.h"
#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

/// The LLVM feature string for `features` on `chip`: a comma-separated list
/// of `+ptxNN` that LLVM's NVPTX backend knows (6.0 to 9.0) and that `chip`
/// accepts, or empty for the chip's default version. On bad input, the
/// message why: the backend would stop the process with `LLVM ERROR`.
static FailureOr<std::string> checkFeatures(StringRef chipName,
                                            StringRef features,
                                            std::string &message) {
  const fa::ChipInfo *chip = fa::lookupChip(chipName);
  if (!chip) {
    message = ("option chip must be one of " + fa::supportedChipNames() +
               ", got '" + chipName + "'")
                  .str();
    return failure();
  }
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (parts.empty())
    return ("+ptx" + Twine(fa::defaultPTXVersion(*chip))).str();
  for (StringRef part : parts) {
    unsigned version;
    StringRef digits = part.trim();
    if (!digits.consume_front("+ptx") || digits.getAsInteger(10, version) ||
        version < 60 || version > 90) {
      message = ("option features must be +ptxNN with a PTX version from "
                 "6.0 to 9.0 (e.g. +ptx80), got '" +
                 part + "'")
                    .str();
      return failure();
    }
    if (static_cast<int>(version) < chip->minPTXVersion) {
      message = ("PTX " + Twine(version / 10) + "." + Twine(version % 10) +
                 " (features=" + part + ") cannot target " + chipName +
                 ", which needs PTX " + Twine(chip->minPTXVersion / 10) +
                 "." + Twine(chip->minPTXVersion % 10) + " or later")
                    .str();
      return failure();
    }
  }
  return features.str();
}

LogicalResult mlir::fa::buildToPTXPipeline(
    OpPassManager &pm, const ToPTXOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  auto fail = [&](const Twine &message) -> LogicalResult {
    if (errorHandler)
      return errorHandler("fa-to-ptx: " + message);
    llvm::errs() << "error: fa-to-ptx: " << message << "\n";
    return failure();
  };
  std::optional<QueryHome> queryHome =
      llvm::StringSwitch<std::optional<QueryHome>>(options.queryHome)
          .Case("auto", QueryHome::Auto)
          .Case("registers", QueryHome::Registers)
          .Case("shared", QueryHome::Shared)
          .Default(std::nullopt);
  std::optional<RescalePlacement> rescale =
      llvm::StringSwitch<std::optional<RescalePlacement>>(options.rescale)
          .Case("auto", RescalePlacement::Auto)
          .Case("before-exp", RescalePlacement::BeforeExp)
          .Case("after-exp", RescalePlacement::AfterExp)
          .Default(std::nullopt);
  std::optional<MmaAtomKind> atom =
      llvm::StringSwitch<std::optional<MmaAtomKind>>(options.atom)
          .Case("auto", MmaAtomKind::Auto)
          .Case("mma_sync", MmaAtomKind::MmaSync)
          .Case("wgmma", MmaAtomKind::Wgmma)
          .Default(std::nullopt);
  // The three-way switches: auto (the compiler's rule), on (every kernel),
  // off.
  for (auto [name, value] :
       {std::pair<StringRef, StringRef>{"mma-pipeline", options.mmaPipeline},
        {"stage-block-scalars", options.stageBlockScalars},
        {"swizzle-shared", options.swizzleShared}})
    if (value != "auto" && value != "on" && value != "off")
      return fail("option " + name + " must be auto, on or off, got '" +
                  value + "'");
  if (options.copy != "auto" && options.copy != "cp-async" &&
      options.copy != "tma")
    return fail("option copy must be auto, cp-async or tma, got '" +
                options.copy + "'");
  if (options.release != "auto" && options.release != "mbarrier" &&
      options.release != "barrier")
    return fail("option release must be auto, mbarrier or barrier, got '" +
                options.release + "'");
  if (options.pingpong != "auto" && options.pingpong != "on" &&
      options.pingpong != "off")
    return fail("option pingpong must be auto, on or off, got '" +
                options.pingpong + "'");
  if (options.copy == "tma" &&
      (options.chip != "sm_90a" || atom == MmaAtomKind::MmaSync))
    return fail("option copy=tma needs chip=sm_90a and atom wgmma or auto "
                "(TMA writes #fa.wgmma's swizzled tiles), got chip=" +
                options.chip + " atom=" + options.atom);
  std::string message;
  FailureOr<std::string> features =
      checkFeatures(options.chip, options.features, message);
  if (failed(features))
    return fail(message);
  if (options.optLevel > 3)
    return fail("option opt-level must be 0 to 3, got " +
                Twine(options.optLevel));
  // One of the two alone would leave fa-tile-q-outer a block of 0 rows: the
  // table's tiles are chosen as a pair (and fitted to shared memory together).
  if ((options.blockM == 0) != (options.blockN == 0))
    return fail("options block-m and block-n go together: give both, or "
                "neither for the atom's tiles per head dim (got block-m=" +
                Twine(options.blockM) + ", block-n=" + Twine(options.blockN) +
                ")");
  // Checked here, not first by the backward's tiling (the first pass to
  // read them), whose name would puzzle a user with a forward op alone.
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"block-m",
                                                           options.blockM},
                             {"block-n", options.blockN}})
    if (value != 0 && (value < 1 || value > kMaxTileBlock))
      return fail("option " + name + " must be in [1, " +
                  Twine(kMaxTileBlock) + "] (or 0 for the atom's tiles), got " +
                  Twine(value));
  if (!queryHome)
    return fail("option query-home must be auto, registers or shared, got '" +
                options.queryHome + "'");
  if (!atom)
    return fail("option atom must be auto, mma_sync or wgmma, got '" +
                options.atom + "'");
  if (*atom == MmaAtomKind::Wgmma && options.chip != "sm_90a")
    return fail("option atom=wgmma needs chip=sm_90a (wgmma is an sm_90a "
                "instruction), got chip=" +
                options.chip);
  if (!rescale)
    return fail("option rescale must be auto, before-exp or after-exp, got '" +
                options.rescale + "'");
  // Input that upstream passes below would crash on becomes a diagnostic.
  pm.addPass(createFACheckUpstreamInvariants());
  // The backward: its three loop nests (L1), which the passes below map to
  // warps and lower like the forward's; the forward-only passes leave them
  // alone.
  // block-m and block-n, when given, are the backward's query and key
  // blocks too (0: its own defaults).
  FATileBackwardOptions backward;
  if (options.blockM != 0)
    backward.blockM = options.blockM;
  backward.blockN = options.blockN;
  backward.dqMode = options.dq;
  backward.chip = options.chip;
  pm.addPass(createFATileBackward(backward));
  // L0 -> L1 -> L2 -> L3.
  FATileQOuterOptions tiling;
  tiling.autoBlocks = options.blockM == 0 && options.blockN == 0;
  tiling.blockM = options.blockM;
  tiling.blockN = options.blockN;
  tiling.chip = options.chip;
  tiling.packGqa = options.packGqa;
  tiling.forSplitKV = options.splits != 1;
  tiling.stageBlockScalars = options.stageBlockScalars != "off";
  tiling.paddedShared = options.swizzleShared == "off";
  tiling.atom = *atom;
  // The FlashAttention-2 loop nest (L1), without the K/V blocks no row sees
  // and with the mask only where some row needs it (L2).
  pm.addPass(createFATileQOuter(tiling));
  pm.addPass(createFACausalBlockSkip());
  // Split-KV: more thread blocks per Q block, and the merge as a loop nest
  // of its own (the plan's second kernel).
  if (options.splits != 1) {
    pm.addPass(createFASplitKV(FASplitKVOptions{options.splits}));
    FATileCombineOptions merge;
    merge.blockDv = options.mergeDv;
    merge.splitWarps = options.mergeSplitWarps;
    pm.addPass(createFATileCombine(merge));
  }
  // L3: warps on row slices, operand homes, op order, K/V pipeline.
  FAMapWarpsOptions warps;
  warps.numWarps = options.numWarps;
  warps.queryHome = *queryHome;
  warps.atom = *atom;
  warps.keyGroups = options.keyGroups;
  warps.dkdvGroups = options.dkdvGroups;
  warps.swizzleShared = options.swizzleShared;
  warps.chip = options.chip;
  pm.addPass(createFAMapWarps(warps));
  pm.addPass(createFAScheduleSoftmax(FAScheduleSoftmaxOptions{*rescale}));
  // Async MMAs (wgmma): P V one block later, overlapping the next softmax.
  // Before the K/V pipeline, which then keeps the deferred V's slot.
  if (options.mmaPipeline != "off")
    pm.addPass(createFAPipelineMMA(
        FAPipelineMMAOptions{/*allAtoms=*/options.mmaPipeline == "on"}));
  // release=auto: mbarrier where pingpong=auto takes turns (the turns need
  // the warpgroups free of a per-block barrier), barrier without turns.
  std::string release = options.release;
  if (release == "auto" && options.pingpong == "off")
    release = "barrier";
  pm.addPass(createFAPipelineKV(FAPipelineKVOptions{
      options.kvStages, options.l2Prefetch, options.copy, release}));
  // Ping-pong: the warpgroups' products in turns (#fa.wgmma nests of two
  // warpgroups or more; after the pipeline, whose loads it hands to the
  // last warpgroup). auto: where the K/V blocks are long enough to pay.
  if (options.pingpong != "off")
    pm.addPass(createFAPingPong(FAPingPongOptions{
        /*issuerLast=*/true,
        options.pingpong == "auto" ? kTurnBlockKeys : int64_t(0)}));
  if (options.warpBlockSkip)
    pm.addPass(createFAWarpBlockSkip());

  // L3 -> L4: the kernel in the GPU/NVGPU/NVVM dialects, op by op.
  pm.addPass(createFALowerToGPU(
      FALowerToGPUOptions{options.chip, options.indexBitwidth,
                          options.mbarrierTimeoutMs}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.stageBlockScalars != "off") {
    FAStageBlockScalarsOptions stage;
    stage.allKernels = options.stageBlockScalars == "on";
    pm.addPass(createFAStageBlockScalars(stage));
  }

  // L4 -> L5: upstream NVVM lowering and serialisation to PTX.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = *features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createFALowerGPUMath());
  // nvgpu and gpu ops lowered with the same index width (upstream's
  // convert-nvgpu-to-nvvm only knows 64).
  kernels.addPass(createFAConvertNVGPUToNVVM(
      FAConvertNVGPUToNVVMOptions{options.indexBitwidth}));
  ConvertGpuOpsToNVVMOpsOptions gpuToNVVM;
  gpuToNVVM.indexBitwidth = options.indexBitwidth;
  kernels.addPass(createConvertGpuOpsToNVVMOps(gpuToNVVM));
  kernels.addPass(createFAExternDynamicShared());
  kernels.addPass(createFATensorMapParams());
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // gpu-module-to-binary{format=isa}, with 32-bit shared-memory pointers
  // (LLVM's process-wide nvptx-short-ptr) set for this serialization only.
  pm.addPass(createFAGpuModuleToPTX(
      FAGpuModuleToPTXOptions{options.shortSharedPointers}));
  if (!options.outputDir.empty())
    pm.addPass(createFAExportKernels(FAExportKernelsOptions{options.outputDir}));
  return success();
}

LogicalResult mlir::fa::buildLinalgToPTXPipeline(OpPassManager &pm,
                                                 const ToPTXOptions &options) {
  // Raise first: the fa-to-ptx passes only see fa.attention.
  pm.addPass(createFACheckUpstreamInvariants());
  FARaiseAttentionOptions raise;
  raise.warnIfNone = true;
  pm.addPass(createFARaiseAttention(raise));
  return buildToPTXPipeline(pm, options);
}
