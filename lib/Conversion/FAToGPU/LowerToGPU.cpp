//===- LowerToGPU.cpp - Warp-mapped loop nest -> GPU kernel (L3 -> L4) ----===//
//
// For each loop nest mapped to the grid: outline its body into a gpu.func
// (Outline.h), lower that body op by op with a dialect conversion
// (KernelLowering.h, Patterns/), check it fits the chip, and replace the
// loop nest with a gpu.launch_func that carries the launch plan.
//
//===----------------------------------------------------------------------===//

#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/Chips.h"

#include "KernelLowering.h"
#include "Outline.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FALOWERTOGPU
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

bool hasLayouts(Operation *op) {
  auto layout = [](Type t) { return hasFALayout(t); };
  return llvm::any_of(op->getOperandTypes(), layout) ||
         llvm::any_of(op->getResultTypes(), layout) ||
         isa<FADialect>(op->getDialect());
}

/// A loop nest the pass lowers: an scf.forall with fa ops or layouts.
bool isAttentionLoopNest(scf::ForallOp forall) {
  return forall.getBody()
      ->walk([](Operation *op) {
        return hasLayouts(op) ? WalkResult::interrupt()
                              : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Registers a thread needs for the S and O accumulators (and Q when in
/// registers): the largest fa.qk and fa.pv of the kernel.
int64_t fragmentRegisters(gpu::GPUFuncOp kernel) {
  auto regs = [](Value v) -> int64_t {
    auto t = cast<RankedTensorType>(v.getType());
    auto rows = dyn_cast_or_null<WarpRowsAttr>(t.getEncoding());
    return rows ? rows.getAtom().getFragmentRegisters(
                      rows.getRole(), rows.groupShape(t.getShape()),
                      t.getElementType(), rows.getNumWarps())
                : 0;
  };
  int64_t scores = 0, acc = 0;
  kernel.walk([&](QKOp qk) {
    scores = std::max(scores, regs(qk.getScores()) + regs(qk.getQuery()));
  });
  kernel.walk([&](PVOp pv) { acc = std::max(acc, regs(pv.getAcc())); });
  return scores + acc;
}

/// A block fa.accumulate_rows writes in fragment order means something
/// only to a reader of the same layout: every reader of such a buffer (its
/// bufferization.to_tensor) must be an fa.read_rows {fragment_order} of
/// the writer's tile type, and such a read must have such a writer (the
/// kernels live in different functions once outlined: checked here).
LogicalResult checkFragmentOrderPairs(ModuleOp module) {
  auto uncast = [](Value buffer) {
    while (auto cast = buffer.getDefiningOp<memref::CastOp>())
      buffer = cast.getSource();
    return buffer;
  };
  auto writersOf = [&](Value buffer) {
    SmallVector<AccumulateRowsOp> writers;
    for (Operation *user : uncast(buffer).getUsers())
      if (auto writer = dyn_cast<AccumulateRowsOp>(user))
        writers.push_back(writer);
    return writers;
  };
  auto matches = [](AccumulateRowsOp writer, ReadRowsOp read) {
    return writer.getFragmentOrder() && read.getFragmentOrder() &&
           writer.getTile().getType() == read.getTile().getType();
  };
  WalkResult result = module.walk([&](Operation *op) {
    if (auto read = dyn_cast<ReadRowsOp>(op); read && read.getFragmentOrder()) {
      auto sums = read.getSums().getDefiningOp<bufferization::ToTensorOp>();
      SmallVector<AccumulateRowsOp> writers =
          sums ? writersOf(sums.getBuffer()) : SmallVector<AccumulateRowsOp>();
      if (writers.empty() ||
          llvm::any_of(writers, [&](AccumulateRowsOp w) {
            return !matches(w, read);
          })) {
        read.emitOpError("fa-lower-to-gpu: reads in fragment order, which "
                         "needs every fa.accumulate_rows into the buffer to "
                         "write in fragment order a tile of its type, ")
            << read.getTile().getType();
        return WalkResult::interrupt();
      }
    }
    auto writer = dyn_cast<AccumulateRowsOp>(op);
    if (!writer || !writer.getFragmentOrder())
      return WalkResult::advance();
    for (Operation *user : uncast(writer.getBuffer()).getUsers()) {
      if (isa<AccumulateRowsOp, memref::CastOp>(user))
        continue;
      auto sums = dyn_cast<bufferization::ToTensorOp>(user);
      bool readInOrder =
          sums && llvm::all_of(sums->getUsers(), [&](Operation *reader) {
            auto read = dyn_cast<ReadRowsOp>(reader);
            return read && matches(writer, read);
          });
      if (!readInOrder) {
        InFlightDiagnostic diag = writer.emitOpError(
            "fa-lower-to-gpu: writes in fragment order, which only an "
            "fa.read_rows {fragment_order} of the same tile type can read; "
            "the buffer is also used by '")
            << user->getName() << "'";
        diag.attachNote(user->getLoc()) << "the use";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The tensor maps of the kernel's TMA loads (fa.async_load {tma}): one
/// !llvm.ptr parameter per source argument, appended to the kernel (and
/// counted in fa.tensor_map_params); on the host, the map of that
/// argument's buffer (nvgpu.tma.create.descriptor, its type naming the box,
/// the 128-byte swizzle, the L2 promotion and the zero fill), passed as the
/// parameter; in the plan, a tensor map the runtime makes.
LogicalResult addTensorMaps(OutlinedLoopNest &nest,
                            DenseMap<Value, Value> &maps) {
  gpu::GPUFuncOp kernel = nest.kernel;
  MLIRContext *ctx = kernel.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  OpBuilder host(nest.forall);
  Location loc = nest.forall.getLoc();
  DenseMap<Value, SmallVector<int64_t, 4>> boxes;
  WalkResult walk = kernel.walk([&](AsyncLoadOp load) {
    if (!load.getTma())
      return WalkResult::advance();
    auto future = cast<FutureType>(load.getFuture().getType());
    for (auto [source, tile] :
         llvm::zip(load.getSources(), future.getTiles())) {
      auto arg = dyn_cast_or_null<BlockArgument>(kernelBuffer(source));
      if (!arg || arg.getOwner() != &kernel.getBody().front()) {
        load.emitOpError("fa-lower-to-gpu: a tma load reads a kernel "
                         "argument");
        return WalkResult::interrupt();
      }
      SmallVector<int64_t, 4> box = {1, 1, tile.getDimSize(0), 64};
      auto [it, inserted] = boxes.try_emplace(arg, box);
      if (!inserted) {
        if (it->second != box) {
          load.emitOpError("fa-lower-to-gpu: tma loads of one tensor take "
                           "tiles of one shape (one tensor map)");
          return WalkResult::interrupt();
        }
        continue;
      }
      unsigned argNo = arg.getArgNumber();
      Value buffer = nest.hostArgs[argNo];
      // A tensor argument's buffer (as the launch passes it).
      if (auto tensorTy = dyn_cast<RankedTensorType>(buffer.getType()))
        buffer = bufferization::ToBufferOp::create(
            host, loc,
            MemRefType::get(tensorTy.getShape(), tensorTy.getElementType(),
                            StridedLayoutAttr::get(
                                ctx, ShapedType::kDynamic,
                                SmallVector<int64_t>(tensorTy.getRank(),
                                                     ShapedType::kDynamic))),
            buffer);
      auto bufferTy = dyn_cast<MemRefType>(buffer.getType());
      if (!bufferTy) {
        load.emitOpError("fa-lower-to-gpu: a tma load reads a tensor or "
                         "buffer of the host");
        return WalkResult::interrupt();
      }
      Type elemTy = bufferTy.getElementType();
      auto unranked = memref::CastOp::create(
          host, loc, UnrankedMemRefType::get(elemTy, bufferTy.getMemorySpace()),
          buffer);
      SmallVector<Value> boxSizes;
      for (int64_t d : box)
        boxSizes.push_back(arith::ConstantIndexOp::create(host, loc, d));
      auto descTy = nvgpu::TensorMapDescriptorType::get(
          ctx,
          MemRefType::get(box, elemTy, MemRefLayoutAttrInterface(),
                          IntegerAttr::get(IntegerType::get(ctx, 64), 3)),
          nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
          nvgpu::TensorMapL2PromoKind::L2PROMO_128B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value desc = nvgpu::TmaCreateDescriptorOp::create(host, loc, descTy,
                                                        unranked, boxSizes);
      Value param =
          UnrealizedConversionCastOp::create(host, loc, ptrTy, desc)
              .getResult(0);
      unsigned index = kernel.getNumArguments();
      LogicalResult added = kernel.insertArgument(index, ptrTy,
                            DictionaryAttr::get(
                                ctx, {NamedAttribute(
                                         StringAttr::get(ctx, "llvm.align"),
                                         IntegerAttr::get(
                                             IntegerType::get(ctx, 64), 64))}),
                            loc);
      if (failed(added)) {
        load.emitOpError("fa-lower-to-gpu: cannot add the tensor map "
                         "parameter to the kernel");
        return WalkResult::interrupt();
      }
      maps[arg] = kernel.getArgument(index);
      nest.hostArgs.push_back(param);
      std::string tensor = nest.plan.tensors[argNo].name;
      nest.plan.tensorMaps.push_back(
          LaunchPlan::TensorMap{tensor + "_map", tensor, box});
      nest.plan.kernels.front().params.push_back(tensor + "_map");
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!maps.empty())
    kernel->setAttr(kTensorMapParamsAttrName,
                    IntegerAttr::get(IntegerType::get(ctx, 64), maps.size()));
  return success();
}

/// Thread 0 makes every mbarrier of the plan expect one arrival (the TMA
/// loads' issuing thread), or one per warp for a release mbarrier
/// (fa.release); the fence and the barrier publish them to every thread
/// (and to TMA's async proxy) before any use.
void initBarriers(OpBuilder &b, Location loc, AtomLowering &atom,
                  const SharedMemoryPlan &plan, Value threadId,
                  int64_t numWarps) {
  if (plan.numBarriers() == 0)
    return;
  Value leader = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, threadId,
      arith::ConstantIndexOp::create(b, loc, 0));
  scf::IfOp::create(b, loc, leader, [&](OpBuilder &nb, Location l) {
    for (int64_t i = 0; i < plan.numBarriers(); ++i)
      NVVM::MBarrierInitOp::create(
          nb, l,
          atom.sharedPointer(nb, l,
                             arith::ConstantIndexOp::create(
                                 nb, l, plan.barrierOffset() + 8 * i)),
          arith::ConstantIntOp::create(
              nb, l, nb.getI32Type(),
              plan.isReleaseBarrier(i) ? numWarps : 1),
          Value());
    createAsmStatement(nb, l, "fence.mbarrier_init.release.cluster;");
    scf::YieldOp::create(nb, l);
  });
  gpu::BarrierOp::create(b, loc);
}

class KernelLowering {
public:
  KernelLowering(ModuleOp module, StringRef chip, int64_t maxShared,
                 unsigned indexBitwidth, int64_t mbarrierTimeoutMs)
      : module(module), chip(chip), maxShared(maxShared),
        indexBitwidth(indexBitwidth), mbarrierTimeoutMs(mbarrierTimeoutMs),
        accumulated(collectAccumulatedBuffers(module)) {}

  FailureOr<LoweredKernel> lower(scf::ForallOp forall);

private:
  LogicalResult convertBody(OutlinedLoopNest &nest);

  ModuleOp module;
  StringRef chip;
  int64_t maxShared;
  unsigned indexBitwidth;
  int64_t mbarrierTimeoutMs;
  AccumulatedBuffers accumulated;
};

LogicalResult KernelLowering::convertBody(OutlinedLoopNest &nest) {
  gpu::GPUFuncOp kernel = nest.kernel;
  Location loc = nest.forall.getLoc();
  auto error = [&]() { return mlir::emitError(loc, "fa-lower-to-gpu: "); };

  // The atom every tile names.
  MmaAtomAttrInterface atomAttr;
  WalkResult sameAtom = kernel.walk([&](Operation *op) {
    for (Type t : llvm::concat<Type>(op->getOperandTypes(),
                                     op->getResultTypes())) {
      MmaAtomAttrInterface a = getTileAtom(t);
      if (auto future = dyn_cast<FutureType>(t))
        a = getTileAtom(future.getTiles().front());
      if (!a)
        continue;
      if (atomAttr && a != atomAttr) {
        error() << "one kernel uses one MMA atom, got " << atomAttr << " and "
                << a;
        return WalkResult::interrupt();
      }
      atomAttr = a;
    }
    return WalkResult::advance();
  });
  if (sameAtom.wasInterrupted())
    return failure();
  // wgmma exists only in the architecture-specific sm_90a PTX target.
  if (isa_and_nonnull<WgmmaAtomAttr>(atomAttr) && chip != "sm_90a")
    return error() << "the #fa.wgmma atom needs chip=sm_90a (wgmma is an "
                      "sm_90a instruction), got chip="
                   << chip;
  std::unique_ptr<AtomLowering> atom = createAtomLowering(atomAttr);
  if (!atom)
    return error() << "no GPU lowering for the MMA atom " << atomAttr;

  int64_t registers = fragmentRegisters(kernel);
  if (registers > atomAttr.getMaxFragmentRegisters())
    return error() << "a thread would hold " << registers
                   << " registers of S, O (and Q) fragments, more than the "
                   << atomAttr.getMaxFragmentRegisters()
                   << " that fit in 255 without spilling: use smaller blocks "
                      "or more warps";

  DenseMap<Value, Value> tensorMaps;
  if (failed(addTensorMaps(nest, tensorMaps)))
    return failure();
  SharedMemoryPlan plan;
  if (failed(plan.build(kernel, *atom)))
    return failure();
  if (plan.totalBytes() > maxShared)
    return error() << "the shared tiles need " << plan.totalBytes()
                   << " bytes of shared memory, more than the " << maxShared
                   << " a thread block may use on " << chip
                   << ": choose smaller blocks or fewer stages";
  nest.plan.kernels.front().sharedBytes = plan.totalBytes();
  if (atom->sharedAlignment() > 16)
    kernel->setAttr(kSharedAlignmentAttrName,
                    IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                     atom->sharedAlignment()));

  // Thread geometry at the kernel's entry, then the body op by op.
  OpBuilder b(&kernel.getBody().front(), kernel.getBody().front().begin());
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value dynamicShared = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(
                          b.getContext(), gpu::AddressSpace::Workgroup)));
  atom->setUp(b, loc, threadId, dynamicShared, nest.numWarps,
              nest.replicas);
  initBarriers(b, loc, *atom, plan, threadId,
               nest.numWarps * nest.replicas);

  MLIRContext *ctx = module.getContext();
  FragmentTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addIllegalDialect<FADialect>();
  target.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !hasLayouts(op); });
  RewritePatternSet patterns(ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  KernelContext context{*atom, plan, std::move(tensorMaps),
                        mbarrierTimeoutMs};
  populateMatmulPatterns(converter, context, patterns);
  populateMaskPatterns(converter, context, patterns);
  populateSoftmaxPatterns(converter, context, patterns);
  populateFinalizePatterns(converter, context, patterns);
  populateLayoutPatterns(converter, context, patterns);
  populateMemoryPatterns(converter, context, patterns);
  populateCombinePatterns(converter, context, patterns);
  populateBackwardPatterns(converter, context, patterns);
  if (failed(applyPartialConversion(kernel, target, std::move(patterns))))
    return failure();
  // The tensors the outliner made for the loads are dead now.
  IRRewriter rewriter(ctx);
  (void)runRegionDCE(rewriter, kernel.getBody());
  return success();
}

FailureOr<LoweredKernel> KernelLowering::lower(scf::ForallOp forall) {
  FailureOr<OutlinedLoopNest> nest =
      outlineLoopNest(forall, module, chip, indexBitwidth, accumulated);
  if (failed(nest))
    return failure();
  if (failed(convertBody(*nest))) {
    nest->kernel->getParentOp()->erase();
    return failure();
  }
  gpu::LaunchFuncOp launch = replaceWithLaunch(*nest);
  return LoweredKernel{launch, nest->hostArgs, nest->grid, nest->plan,
                       nest->inputArgs};
}

/// The kernels of one function where one reads what another writes share
/// one plan (split-KV: the attention kernel, then the merge), carried by
/// each of their launches; independent kernels keep their own plans.
LogicalResult mergeDependentPlans(ArrayRef<LoweredKernel> kernels) {
  llvm::MapVector<Operation *, SmallVector<LoweredKernel, 2>> byFunction;
  for (const LoweredKernel &k : kernels)
    byFunction[k.launch->getParentOfType<FunctionOpInterface>()].push_back(k);
  for (auto &[func, group] : byFunction) {
    // Kernel i joins the plan of the first earlier kernel whose outputs it
    // reads (a tensor, looked at through the launches' buffer casts).
    SmallVector<size_t> planOf(group.size());
    DenseMap<Value, size_t> writtenBy;
    for (auto [i, k] : llvm::enumerate(group)) {
      planOf[i] = i;
      for (auto [t, tensor] : llvm::enumerate(k.plan.tensors)) {
        Value root = launchTensorRoot(k.hostArgs[t]);
        auto it = writtenBy.find(root);
        if (!tensor.output && it != writtenBy.end())
          planOf[i] = std::min(planOf[i], planOf[it->second]);
      }
      for (auto [t, tensor] : llvm::enumerate(k.plan.tensors))
        if (tensor.output)
          writtenBy.try_emplace(launchTensorRoot(k.hostArgs[t]), i);
    }
    for (size_t head = 0; head < group.size(); ++head) {
      SmallVector<LoweredKernel, 2> members;
      for (auto [i, k] : llvm::enumerate(group))
        if (planOf[i] == head)
          members.push_back(k);
      if (members.size() < 2)
        continue;
      FailureOr<LaunchPlan> plan = mergeLaunchPlans(members);
      if (failed(plan))
        return failure();
      DictionaryAttr attr = plan->toAttr(func->getContext());
      for (const LoweredKernel &k : members)
        k.launch->setAttr(LaunchPlan::kAttrName, attr);
    }
  }
  return success();
}

struct FALowerToGPUPass : fa::impl::FALowerToGPUBase<FALowerToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      mlir::emitError(module.getLoc())
          << "fa-lower-to-gpu: option index-bitwidth must be 32 or 64, got "
          << indexBitwidth.getValue();
      return signalPassFailure();
    }
    const ChipInfo *chipInfo = lookupChip(chip);
    if (!chipInfo) {
      mlir::emitError(module.getLoc(),
                      "fa-lower-to-gpu: option chip must be one of ")
          << supportedChipNames()
          << " (the kernels use cp.async and mma.sync.m16n8k16), got '"
          << chip.getValue() << "'";
      return signalPassFailure();
    }
    WalkResult untiled = module.walk([](AttentionOp op) {
      op.emitError("fa-lower-to-gpu: fa.attention must be tiled and mapped "
                   "to warps first (--fa-tile-q-outer, --fa-map-warps; or "
                   "use the --fa-to-ptx pipeline)");
      return WalkResult::interrupt();
    });
    if (untiled.wasInterrupted())
      return signalPassFailure();
    // Split-KV's merge becomes a kernel once it is a loop nest of tiles:
    // on whole tensors it would stay on the host.
    WalkResult combine = module.walk([](CombineSplitsOp op) {
      if (cast<RankedTensorType>(op.getOut().getType()).getRank() == 2)
        return WalkResult::advance();
      op.emitError("fa-lower-to-gpu: fa.combine_splits must be tiled into a "
                   "loop nest first (--fa-tile-combine; --fa-to-ptx does "
                   "that with splits > 1)");
      return WalkResult::interrupt();
    });
    if (combine.wasInterrupted())
      return signalPassFailure();
    if (failed(checkFragmentOrderPairs(module)))
      return signalPassFailure();
    SmallVector<scf::ForallOp> nests;
    module.walk([&](scf::ForallOp forall) {
      if (isAttentionLoopNest(forall))
        nests.push_back(forall);
    });
    if (nests.empty())
      return;
    // The kernels go into gpu.modules of the module the pass runs on, the
    // one upstream's NVVM passes (nested on its gpu.modules) then compile.
    for (scf::ForallOp forall : nests)
      if (forall->getParentOfType<ModuleOp>() != module) {
        forall.emitError("fa-lower-to-gpu: the loop nest is inside a nested "
                         "builtin.module; run the pass (or --fa-to-ptx) on "
                         "that module, e.g. --pass-pipeline='builtin.module("
                         "builtin.module(fa-to-ptx))'");
        return signalPassFailure();
      }
    // A loop that does not advance would hang the kernel.
    for (scf::ForallOp forall : nests) {
      WalkResult stuck = forall.walk([](scf::ForOp loop) {
        std::optional<int64_t> step = getConstantIntValue(loop.getStep());
        if (step && *step <= 0) {
          loop.emitError("fa-lower-to-gpu: a loop of the kernel must have a "
                         "step > 0, got ")
              << *step;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (stuck.wasInterrupted())
        return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    if (mbarrierTimeoutMs < 0) {
      mlir::emitError(module.getLoc())
          << "fa-lower-to-gpu: option mbarrier-timeout-ms must be >= 0 (0: "
             "no bound), got "
          << mbarrierTimeoutMs.getValue();
      return signalPassFailure();
    }
    KernelLowering lowering(module, chip, chipInfo->maxSharedMemoryPerBlock,
                            indexBitwidth, mbarrierTimeoutMs);
    SmallVector<LoweredKernel, 2> lowered;
    for (scf::ForallOp forall : nests) {
      FailureOr<LoweredKernel> kernel = lowering.lower(forall);
      if (failed(kernel))
        return signalPassFailure();
      lowered.push_back(std::move(*kernel));
    }
    if (failed(mergeDependentPlans(lowered)))
      return signalPassFailure();
  }
};

} // namespace
