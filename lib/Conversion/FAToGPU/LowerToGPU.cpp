//===- LowerToGPU.cpp - Warp-mapped loop nest -> GPU kernel (L3 -> L4) ----===//
//
// Checks that the tile configuration fits the hardware, creates one
// gpu.module + gpu.func per tiled fa.attention (the body comes from
// KernelBuilder), and replaces the scf.forall with a gpu.launch_func over the
// grid it was mapped to.
//
//===----------------------------------------------------------------------===//

#include "fa/Conversion/Passes.h"

#include "KernelBuilder.h"
#include "SharedTiles.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FALOWERTOGPU
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Registers of the S and O fragments per thread that leave room for
/// addresses, softmax state and operands within the 255 of sm_80.
constexpr int64_t kMaxFragmentRegisters = 192;
/// The same budget when Q's fragments are kept in registers too.
constexpr int64_t kMaxQueryInRegisters = 160;
/// Fragment registers up to which the accumulator is rescaled before the
/// exponentials rather than after them. Measured on the H200
/// (docs/performance.md): at d = 64 (160 with Q) rescaling first lets P V
/// overlap the exponentials, +3-5 %; at d = 128 (192) it keeps more values
/// live, ptxas spills 60 bytes for sm_90 and the kernel loses 3-6 %.
constexpr int64_t kMaxRescaleBeforeExp = 160;

/// Dynamic shared memory a thread block may use on `chip` (sm_XY, XY >= 80),
/// from the CUDA C Programming Guide's table of compute capabilities.
FailureOr<int64_t> sharedMemoryLimit(StringRef chip) {
  unsigned version;
  if (!chip.consume_front("sm_") || chip.getAsInteger(10, version))
    return failure();
  if (version < 80)
    return failure();
  switch (version) {
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
    return 99 * 1024;
  case 90:
    return 227 * 1024;
  default:
    return 99 * 1024; // Unknown newer chips: the smallest of the family.
  }
}

/// The kernel argument type for a [B, H, N, cols] tensor: any B, H, N and any
/// strides, but contiguous rows.
MemRefType kernelArgType(RankedTensorType tensorTy) {
  int64_t dyn = ShapedType::kDynamic;
  int64_t rank = tensorTy.getRank();
  SmallVector<int64_t> shape(rank, dyn), strides(rank, dyn);
  shape.back() = tensorTy.getShape().back();
  strides.back() = 1;
  return MemRefType::get(shape, tensorTy.getElementType(),
                         StridedLayoutAttr::get(tensorTy.getContext(), dyn,
                                                strides));
}

/// The host tensors behind the kernel arguments: Q, K, V, O and LSE
/// destinations (forall outputs).
struct KernelOperands {
  SmallVector<Value> tensors;  // q, k, v, o[, lse]
  SmallVector<int64_t> resultIndex; // forall result of o[, lse]
};

FailureOr<KernelOperands> kernelOperands(TiledAttention &tiled) {
  KernelOperands ops;
  ops.tensors = {tiled.query.source(), tiled.kvLoops.front().key.source(),
                 tiled.kvLoops.front().value.source()};
  for (tensor::ParallelInsertSliceOp store : {tiled.storeOut, tiled.storeLse}) {
    if (!store)
      continue;
    auto arg = dyn_cast<BlockArgument>(store.getDest());
    if (!arg || arg.getOwner() != tiled.forall.getBody())
      return failure();
    int64_t index = arg.getArgNumber() - tiled.forall.getRank();
    ops.tensors.push_back(tiled.forall.getOutputs()[index]);
    ops.resultIndex.push_back(index);
  }
  return ops;
}

class GPULowering {
public:
  GPULowering(ModuleOp module, int64_t maxSharedMemory, StringRef chip,
              unsigned indexBitwidth, int64_t kvStages)
      : module(module), maxSharedMemory(maxSharedMemory), chip(chip.str()),
        indexBitwidth(indexBitwidth), kvStages(kvStages) {}

  LogicalResult lower(TiledAttention &tiled);

private:
  FailureOr<KernelConfig> checkConfig(TiledAttention &tiled);
  DictionaryAttr launchRecord(StringRef name, TiledAttention &tiled,
                              const KernelConfig &config,
                              KernelOperands &operands);

  ModuleOp module;
  int64_t maxSharedMemory;
  std::string chip;
  unsigned indexBitwidth;
  int64_t kvStages;
};

FailureOr<KernelConfig> GPULowering::checkConfig(TiledAttention &tiled) {
  // Errors on the location only: the loop nest itself is noise to the user.
  auto error = [&]() {
    return mlir::emitError(tiled.forall.getLoc(), "fa-lower-to-gpu: ");
  };
  auto layout = dyn_cast_or_null<WarpRowsAttr>(
      cast<RankedTensorType>(tiled.query.pad.getResult().getType())
          .getEncoding());
  if (!layout)
    return error() << "the loop nest has no warp layout; run --fa-map-warps "
                      "first";

  KernelConfig config;
  config.blockM = tiled.blockM();
  config.blockN = tiled.blockN();
  config.numWarps = layout.getNumWarps();
  config.headDim = tiled.headDim();
  config.valueDim = tiled.valueDim();
  config.elemTy = tiled.elementType();
  config.scaleLog2 =
      tiled.kvLoops.front().qk.getScale().convertToDouble();
  config.hasLse = static_cast<bool>(tiled.storeLse);
  config.kvStages = kvStages;
  // Keep the warp's Q fragments in registers when they fit next to S and O
  // with room to spare (small head dims); otherwise re-read them from shared
  // memory for every K/V block, as FlashAttention-2 does for d = 128.
  config.queryInRegisters = false;
  int64_t qRegisters = config.mTiles() * (config.headDim / 16) * 4;
  config.queryInRegisters =
      config.fragmentRegisters() + qRegisters <= kMaxQueryInRegisters;
  config.rescaleBeforeExp =
      config.fragmentRegisters() <= kMaxRescaleBeforeExp;

  if (!config.elemTy.isF16() && !config.elemTy.isBF16())
    return error() << "element type " << config.elemTy
                   << " is not supported on the GPU: the tensor cores take "
                      "f16 or bf16";
  for (auto [name, dim] : {std::pair<StringRef, int64_t>{"D", config.headDim},
                           {"Dv", config.valueDim}})
    if (dim % 16 != 0)
      return error() << "head dim " << name << " = " << dim
                     << " is not supported on the GPU: it must be a multiple "
                        "of 16 (the k of mma.m16n8k16)";
  if (config.blockM % (16 * config.numWarps) != 0 || config.blockN % 16 != 0)
    return error() << "block-m (" << config.blockM << ") must be a multiple of "
                   << 16 * config.numWarps << " and block-n ("
                   << config.blockN << ") a multiple of 16";
  if (config.sharedMemoryBytes() > maxSharedMemory)
    return error() << "the Q, K and V tiles need "
                   << config.sharedMemoryBytes()
                   << " bytes of shared memory, more than the "
                   << maxSharedMemory << " a thread block may use on "
                   << chip << ": choose smaller blocks";
  if (config.fragmentRegisters() > kMaxFragmentRegisters)
    return error() << "a thread would hold " << config.fragmentRegisters()
                   << " registers of S and O fragments (block-m / num-warps = "
                   << config.rowsPerWarp() << " rows of block-n = "
                   << config.blockN << " scores and Dv = " << config.valueDim
                   << " outputs), more than the " << kMaxFragmentRegisters
                   << " that fit in 255 without spilling: use smaller blocks "
                      "or more warps";
  return config;
}

DictionaryAttr GPULowering::launchRecord(StringRef name, TiledAttention &tiled,
                                         const KernelConfig &config,
                                         KernelOperands &operands) {
  Builder b(module.getContext());
  auto tensorTy = [&](int i) {
    return cast<RankedTensorType>(operands.tensors[i].getType());
  };
  int64_t hq = tensorTy(0).getDimSize(1), hkv = tensorTy(1).getDimSize(1);
  bool causal = llvm::any_of(tiled.kvLoops, [](KVLoop &kv) {
    return kv.mask && kv.mask.getCausalOffset();
  });
  SmallVector<Attribute> params = {b.getStringAttr("q"), b.getStringAttr("k"),
                                   b.getStringAttr("v"), b.getStringAttr("o")};
  if (config.hasLse)
    params.push_back(b.getStringAttr("lse"));
  std::string gridX = "ceildiv(Nq, " + std::to_string(config.blockM) + ")";
  return b.getDictionaryAttr({
      b.getNamedAttr("kernel", b.getStringAttr(name)),
      b.getNamedAttr("chip", b.getStringAttr(chip)),
      b.getNamedAttr("grid", b.getStrArrayAttr({gridX, "Hq", "B"})),
      b.getNamedAttr("block", b.getI64ArrayAttr({config.numThreads(), 1, 1})),
      b.getNamedAttr("dynamic_shared_memory",
                     b.getI64IntegerAttr(config.sharedMemoryBytes())),
      b.getNamedAttr("params", b.getArrayAttr(params)),
      b.getNamedAttr("index_bitwidth", b.getI64IntegerAttr(indexBitwidth)),
      b.getNamedAttr(
          "param_abi",
          b.getStringAttr("each param is a memref descriptor passed "
                          "flattened: allocated ptr, aligned ptr, offset, "
                          "sizes[rank], strides[rank] (ptrs 64-bit, the rest "
                          "integers of index_bitwidth bits, in elements); "
                          "q/k/v/o are [B, H, N, D] with contiguous rows, "
                          "16-byte aligned base pointers and strides that are "
                          "multiples of 8 elements (16-byte cp.async and "
                          "stores); lse is [B, Hq, Nq] with contiguous rows")),
      b.getNamedAttr("dtype",
                     b.getStringAttr(config.elemTy.isF16() ? "f16" : "bf16")),
      b.getNamedAttr("head_dim", b.getI64IntegerAttr(config.headDim)),
      b.getNamedAttr("value_head_dim", b.getI64IntegerAttr(config.valueDim)),
      b.getNamedAttr("num_heads", b.getI64IntegerAttr(hq)),
      b.getNamedAttr("num_kv_heads", b.getI64IntegerAttr(hkv)),
      b.getNamedAttr("causal", b.getBoolAttr(causal)),
      b.getNamedAttr("block_m", b.getI64IntegerAttr(config.blockM)),
      b.getNamedAttr("block_n", b.getI64IntegerAttr(config.blockN)),
      b.getNamedAttr("num_warps", b.getI64IntegerAttr(config.numWarps)),
      b.getNamedAttr("kv_stages", b.getI64IntegerAttr(config.kvStages)),
      b.getNamedAttr("softmax_scale_log2",
                     b.getF64FloatAttr(config.scaleLog2)),
  });
}

LogicalResult GPULowering::lower(TiledAttention &tiled) {
  FailureOr<KernelConfig> config = checkConfig(tiled);
  if (failed(config))
    return failure();
  FailureOr<KernelOperands> operands = kernelOperands(tiled);
  if (failed(operands))
    return tiled.forall.emitError(
        "fa-lower-to-gpu: O and LSE must be stored into the forall outputs");

  // One gpu.module per kernel: its PTX is that kernel alone.
  auto func = tiled.forall->getParentOfType<FunctionOpInterface>();
  std::string baseName =
      (func ? func.getName().str() : std::string("attention")) + "_kernel";
  SymbolTable symbols(module);
  std::string name = baseName;
  for (int i = 1; symbols.lookup(name + "_module"); ++i)
    name = baseName + "_" + std::to_string(i);

  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = tiled.forall.getLoc();
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, name + "_module");
  symbols.insert(gpuModule);

  SmallVector<Type> argTypes;
  for (Value t : operands->tensors)
    argTypes.push_back(kernelArgType(cast<RankedTensorType>(t.getType())));
  b.setInsertionPointToStart(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      b, loc, name, b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(config->numThreads()), 1, 1}));
  DictionaryAttr record = launchRecord(name, tiled, *config, *operands);
  kernel->setAttr("fa.launch", record);
  // The generated body ends in gpu.return; drop the default one.
  kernel.getBody().front().clear();
  if (failed(buildAttentionKernel(kernel, tiled, *config, operands->tensors))) {
    gpuModule.erase();
    return failure();
  }

  // Host side: the forall becomes a launch on the tensors' buffers.
  b.setInsertionPoint(tiled.forall);
  SmallVector<Value> buffers, kernelArgs;
  for (auto [tensor, argTy] : llvm::zip(operands->tensors, argTypes)) {
    auto tensorTy = cast<RankedTensorType>(tensor.getType());
    auto bufferTy = MemRefType::get(
        tensorTy.getShape(), tensorTy.getElementType(),
        StridedLayoutAttr::get(
            b.getContext(), ShapedType::kDynamic,
            SmallVector<int64_t>(tensorTy.getRank(), ShapedType::kDynamic)));
    Value buffer = bufferization::ToBufferOp::create(b, loc, bufferTy, tensor);
    buffers.push_back(buffer);
    kernelArgs.push_back(memref::CastOp::create(b, loc, argTy, buffer));
  }
  SmallVector<Value> grid;
  for (OpFoldResult ub : llvm::reverse(tiled.forall.getMixedUpperBound()))
    grid.push_back(getValueOrCreateConstantIndexOp(b, loc, ub));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, config->numThreads());
  Value sharedBytes = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(), config->sharedMemoryBytes());
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{grid[0], grid[1], grid[2]},
      gpu::KernelDim3{threads, one, one}, sharedBytes, kernelArgs);
  launch->setAttr("fa.launch", record);

  SmallVector<Value> results(tiled.forall.getNumResults());
  for (auto [i, index] : llvm::enumerate(operands->resultIndex)) {
    Value buffer = buffers[3 + i];
    results[index] = bufferization::ToTensorOp::create(
        b, loc, operands->tensors[3 + i].getType(), buffer,
        /*restrict=*/true, /*writable=*/true);
  }
  for (auto [i, result] : llvm::enumerate(results))
    if (!result) // A forall output that is never written: unchanged.
      results[i] = tiled.forall.getOutputs()[i];
  tiled.forall->replaceAllUsesWith(results);
  tiled.forall->erase();
  return success();
}

struct FALowerToGPUPass : fa::impl::FALowerToGPUBase<FALowerToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<TiledAttention> nests;
    WalkResult walk = module.walk([&](scf::ForallOp forall) {
      bool hasTileOps = false;
      forall.walk([&](QKOp) { hasTileOps = true; });
      if (!hasTileOps)
        return WalkResult::advance();
      FailureOr<TiledAttention> tiled =
          matchTiledAttention(forall, /*diagnose=*/true);
      if (failed(tiled))
        return WalkResult::interrupt();
      nests.push_back(*tiled);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      mlir::emitError(module.getLoc())
          << "fa-lower-to-gpu: option index-bitwidth must be 32 or 64, got "
          << indexBitwidth.getValue();
      return signalPassFailure();
    }
    if (kvStages < 2 || kvStages > 4) {
      mlir::emitError(module.getLoc())
          << "fa-lower-to-gpu: option kv-stages must be 2, 3 or 4, got "
          << kvStages.getValue();
      return signalPassFailure();
    }
    FailureOr<int64_t> sharedLimit = sharedMemoryLimit(chip);
    if (failed(sharedLimit)) {
      mlir::emitError(module.getLoc(),
                      "fa-lower-to-gpu: option chip must be sm_80 or newer "
                       "(the kernel uses cp.async and mma.sync.m16n8k16), "
                       "got '")
          << chip.getValue() << "'";
      return signalPassFailure();
    }
    if (nests.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    GPULowering lowering(module, *sharedLimit, chip, indexBitwidth, kvStages);
    for (TiledAttention &tiled : nests)
      if (failed(lowering.lower(tiled)))
        return signalPassFailure();
  }
};

} // namespace
