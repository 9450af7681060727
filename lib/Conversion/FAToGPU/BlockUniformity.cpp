//===- BlockUniformity.cpp - values the same in every thread of a block --===//

#include "BlockUniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

Variance join(Variance a, Variance b) { return a > b ? a : b; }

/// The kernel argument a memref is a view of, if any.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      v = meta.getSource();
    else
      return Value();
  }
  return v;
}

/// Whether `v` is a constant that divides `divides32`.
bool isConstantIndex(Value v, int64_t divides32) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return false;
  int64_t c = value.getSExtValue();
  return c > 0 && divides32 % c == 0;
}

} // namespace

BlockUniformity::BlockUniformity(gpu::GPUFuncOp kernel)
    : kernel(kernel), body(&kernel.getBody()),
      numArguments(kernel.getFunctionType().getNumInputs()) {
  if (std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize())
    whole32LaneWarps = (*block)[0] % 32 == 0;
  findWrittenArguments();
  bool changed = true;
  while (changed) {
    changed = false;
    kernel.walk([&](Operation *op) { changed |= update(op); });
  }
}

void BlockUniformity::findWrittenArguments() {
  kernel.walk([&](Operation *op) {
    if (isa<ViewLikeOpInterface, memref::ExtractStridedMetadataOp,
            memref::DimOp>(op))
      return;
    for (Value operand : op->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      Value root = rootOf(operand);
      if (root && mightHaveEffect<MemoryEffects::Write>(op, operand))
        written.insert(root);
    }
  });
}

bool BlockUniformity::set(Value v, Variance x) {
  Variance &slot = variance[v];
  if (x <= slot)
    return false;
  slot = x;
  return true;
}

Variance BlockUniformity::operandsOf(Operation *op) const {
  Variance x = Variance::Uniform;
  for (Value operand : op->getOperands())
    x = join(x, of(operand));
  return x;
}

Variance BlockUniformity::resultsOf(Operation *op) const {
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp>(op))
    return Variance::Uniform;
  if (isa<gpu::LaneIdOp>(op))
    return Variance::LaneOnly;
  // thread_id x modulo a divisor of 32: a function of the lane index.
  if (auto rem = dyn_cast<arith::RemUIOp>(op)) {
    auto tid = rem.getLhs().getDefiningOp<gpu::ThreadIdOp>();
    if (tid && tid.getDimension() == gpu::Dimension::x && whole32LaneWarps &&
        isConstantIndex(rem.getRhs(), 32))
      return Variance::LaneOnly;
  }
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
    Variance value = of(shuffle.getValue());
    Variance lane = of(shuffle.getOffset());
    if (value == Variance::Divergent || !isConstantIndex(shuffle.getWidth(), 32))
      return Variance::Divergent;
    // A lane's value read from one lane, the same in every warp.
    if (shuffle.getMode() == gpu::ShuffleMode::IDX)
      return lane;
    return lane == Variance::Uniform ? Variance::LaneOnly : lane;
  }
  if (auto vote = dyn_cast<NVVM::VoteSyncOp>(op)) {
    APInt mask;
    bool fullWarp = matchPattern(vote.getMask(), m_ConstantInt(&mask)) &&
                    mask.isAllOnes();
    return fullWarp && of(vote.getPred()) != Variance::Divergent
               ? Variance::Uniform
               : Variance::Divergent;
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    Value root = rootOf(load.getMemRef());
    // A kernel argument (not a workgroup or private attribution, whose
    // contents the threads themselves write).
    auto arg = dyn_cast_or_null<BlockArgument>(root);
    bool readOnlyArgument = arg && arg.getParentRegion() == body &&
                            arg.getArgNumber() < numArguments &&
                            !written.contains(root);
    return readOnlyArgument ? operandsOf(op) : Variance::Divergent;
  }
  Dialect *dialect = op->getDialect();
  bool pureArithmetic =
      op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
      (isa_and_nonnull<arith::ArithDialect, index::IndexDialect,
                       math::MathDialect>(dialect) ||
       isa<LLVM::CtPopOp, memref::DimOp, memref::ExtractStridedMetadataOp,
           ViewLikeOpInterface>(op));
  return pureArithmetic ? operandsOf(op) : Variance::Divergent;
}

bool BlockUniformity::update(Operation *op) {
  bool changed = false;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    Variance bounds = join(of(loop.getLowerBound()),
                           join(of(loop.getUpperBound()), of(loop.getStep())));
    // Lanes that run different iterations diverge in everything.
    Variance all = bounds == Variance::Uniform ? Variance::Uniform
                                               : Variance::Divergent;
    changed |= set(loop.getInductionVar(), bounds);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      Variance x = join(all, join(of(loop.getInitArgs()[i]),
                                  of(yield.getOperand(i))));
      changed |= set(arg, x);
      changed |= set(loop.getResult(i), x);
    }
    return changed;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    Variance cond = of(branch.getCondition());
    for (auto [i, result] : llvm::enumerate(branch.getResults())) {
      Variance x = cond == Variance::Uniform ? Variance::Uniform
                                             : Variance::Divergent;
      for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!region->empty())
          x = join(x, of(cast<scf::YieldOp>(region->front().getTerminator())
                             .getOperand(i)));
      changed |= set(result, x);
    }
    return changed;
  }
  if (op->getNumResults() == 0)
    return false;
  Variance x = op->getNumRegions() ? Variance::Divergent : resultsOf(op);
  for (Value result : op->getResults())
    changed |= set(result, x);
  return changed;
}
