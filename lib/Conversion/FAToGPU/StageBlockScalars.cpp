//===- StageBlockScalars.cpp - block scalars read from shared memory ------===//
//
// A kernel that reads its thread block's scalars from memory (a packed
// sequence's offsets and lengths, a K/V cache's key count) holds them in
// registers across the K/V loops, beside the S and O fragments; a dense
// kernel reads the same quantities (N, strides) from its parameters, which
// ptxas reloads from the constant bank where used and never keeps in a
// register. This pass gives the first kind the second's cost: each such
// scalar is written once to a word of shared memory before the loops, and
// read again where the loops (and the code after them) use it.
//
//===----------------------------------------------------------------------===//

#include "BlockUniformity.h"

#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/Chips.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FASTAGEBLOCKSCALARS
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `v` comes (through arithmetic) from a load or a loop: a value
/// ptxas cannot recompute from parameters and special registers.
bool readFromMemory(Value v, DenseMap<Value, bool> &memo) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  memo[v] = false;
  Operation *def = v.getDefiningOp();
  bool result = false;
  if (def && (isa<memref::LoadOp>(def) || def->getNumRegions()))
    result = true;
  else if (def)
    result = llvm::any_of(def->getOperands(), [&](Value operand) {
      return readFromMemory(operand, memo);
    });
  memo[v] = result;
  return result;
}

bool containsBarrier(Operation *op) {
  return op->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The ancestor of `op` in `block`.
Operation *topLevel(Operation *op, Block *block) {
  return block->findAncestorOpInBlock(*op);
}

struct FAStageBlockScalarsPass
    : fa::impl::FAStageBlockScalarsBase<FAStageBlockScalarsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxScalars < 0) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-stage-block-scalars: option max-scalars must be at least 0, "
             "got "
          << static_cast<int64_t>(maxScalars);
      return signalPassFailure();
    }
    if (maxScalars == 0)
      return;
    // The dynamic shared memory each kernel's launch plan asks for, and
    // the chip's limit, where a plan names them.
    llvm::StringMap<std::pair<int64_t, int64_t>> planned;
    getOperation()->walk([&](gpu::LaunchFuncOp launch) {
      auto plan = launch->getAttrOfType<DictionaryAttr>("fa.launch_plan");
      if (!plan)
        return;
      auto chipName = plan.getAs<StringAttr>("chip");
      const fa::ChipInfo *chip =
          chipName ? fa::lookupChip(chipName.getValue()) : nullptr;
      auto kernels = plan.getAs<ArrayAttr>("kernels");
      if (!chip || !kernels)
        return;
      for (auto entry : kernels.getAsRange<DictionaryAttr>()) {
        auto name = entry.getAs<StringAttr>("name");
        auto bytes = entry.getAs<IntegerAttr>("dynamic_shared_memory");
        if (name && bytes)
          planned[name.getValue()] = {bytes.getInt(),
                                      chip->maxSharedMemoryPerBlock};
      }
    });
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel() || !kernel.getBody().hasOneBlock())
        return;
      if (!allKernels && !kernel->hasAttr(fa::kStageBlockScalarsAttrName))
        return;
      int64_t budget = -1;
      auto it = planned.find(kernel.getName());
      if (it != planned.end())
        budget = it->second.second - it->second.first;
      stage(kernel, budget);
    });
  }

  /// Stages `kernel`'s block scalars; `budget`: the bytes of static shared
  /// memory it may add (-1: no plan, no limit).
  void stage(gpu::GPUFuncOp kernel, int64_t budget) {
    Block &body = kernel.getBody().front();
    // The first K/V loop: the first loop of the body with a barrier.
    Operation *firstLoop = nullptr;
    for (Operation &op : body)
      if (isa<scf::ForOp>(op) && containsBarrier(&op)) {
        firstLoop = &op;
        break;
      }
    if (!firstLoop)
      return;

    fa::BlockUniformity uniformity(kernel);
    DenseMap<Value, bool> memo;
    // The uses in and after the K/V loops: those read shared memory. (The
    // first loop's own bounds stay registers: the loop keeps them anyway.)
    auto laterUses = [&](Value v) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : v.getUses()) {
        Operation *top = topLevel(use.getOwner(), &body);
        if (!top || use.getOwner() == firstLoop)
          continue;
        if (top == firstLoop || firstLoop->isBeforeInBlock(top))
          uses.push_back(&use);
      }
      return uses;
    };

    // The barrier that orders the stores before the reads: the last one
    // before the first loop, or a new one there.
    Operation *fence = nullptr;
    for (Operation *op = firstLoop->getPrevNode(); op; op = op->getPrevNode())
      if (isa<gpu::BarrierOp>(op)) {
        fence = op;
        break;
      }

    SmallVector<Value> scalars;
    for (Operation &op : body) {
      if (&op == (fence ? fence : firstLoop))
        break;
      for (Value v : op.getResults()) {
        Type type = v.getType();
        if (!type.isIndex() && !type.isInteger(32))
          continue;
        if (uniformity.of(v) != fa::Variance::Uniform || !readFromMemory(v, memo))
          continue;
        if (laterUses(v).empty())
          continue;
        scalars.push_back(v);
      }
    }
    if (scalars.empty())
      return;
    if (static_cast<int64_t>(scalars.size()) > maxScalars)
      scalars.resize(maxScalars);
    // A word of 8 bytes each (64-bit indices at most), 16-byte aligned.
    int64_t bytes = llvm::alignTo(8 * scalars.size(), 16);
    if (budget >= 0 && bytes > budget)
      return;

    Location loc = kernel.getLoc();
    OpBuilder b(kernel.getContext());
    if (!fence) {
      b.setInsertionPoint(firstLoop);
      fence = gpu::BarrierOp::create(b, loc);
    }
    auto workgroup = gpu::AddressSpaceAttr::get(kernel.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto slotsType =
        MemRefType::get({static_cast<int64_t>(scalars.size())},
                        b.getIndexType(), MemRefLayoutAttrInterface(), workgroup);
    Value slots = kernel.addWorkgroupAttribution(slotsType, loc);

    // Thread 0 writes the words before the barrier.
    b.setInsertionPoint(fence);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
    bool flat = block && (*block)[1] == 1 && (*block)[2] == 1;
    for (gpu::Dimension dim : {gpu::Dimension::y, gpu::Dimension::z}) {
      if (flat)
        break;
      Value id = gpu::ThreadIdOp::create(b, loc, dim);
      first = arith::AndIOp::create(
          b, loc, first,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, id, zero));
    }
    auto writer = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    b.setInsertionPoint(writer.thenBlock()->getTerminator());
    for (auto [i, v] : llvm::enumerate(scalars)) {
      Value word = v;
      if (!v.getType().isIndex())
        word = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
      memref::StoreOp::create(b, loc, word, slots,
                              arith::ConstantIndexOp::create(b, loc, i).getResult());
    }

    // Every later use reads its word just before its user (one read per
    // user): the shortest live ranges. (One read per block, before its
    // first use there, let ptxas keep the words live through the loop body
    // and spilled more.)
    for (auto [i, v] : llvm::enumerate(scalars)) {
      DenseMap<Operation *, Value> readBy;
      for (OpOperand *use : laterUses(v)) {
        Operation *user = use->getOwner();
        Value &read = readBy[user];
        if (!read) {
          b.setInsertionPoint(user);
          Value index = arith::ConstantIndexOp::create(b, loc, i);
          read = memref::LoadOp::create(b, loc, slots, index);
          if (!v.getType().isIndex())
            read = arith::IndexCastOp::create(b, loc, v.getType(), read);
        }
        use->set(read);
      }
    }
  }
};

} // namespace
