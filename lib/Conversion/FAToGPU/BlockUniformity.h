//===- BlockUniformity.h - values the same in every thread of a block ----===//
//
// A forward analysis over a gpu.func: which values are the same in every
// thread of the thread block, which are a function of the lane index alone
// (the same in every warp), and which may be anything. Used by
// --fa-stage-block-scalars, which may keep only block-uniform values in a
// word of shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef FA_CONVERSION_FATOGPU_BLOCKUNIFORMITY_H
#define FA_CONVERSION_FATOGPU_BLOCKUNIFORMITY_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace fa {

/// How a value varies over the threads of a block: the same for all, a
/// function of the lane index alone (the same in every warp), or anything.
enum class Variance { Uniform = 0, LaneOnly = 1, Divergent = 2 };

/// Which values of a kernel are the same in every thread of its block, by
/// a forward fixed point from the thread indices. Only what is known is
/// uniform: memory-free arithmetic of uniform values, block indices and
/// sizes, constants, kernel arguments, loads at uniform indices of
/// arguments the kernel never writes, and the warp collectives that make
/// lane values uniform (a shuffle from a uniform lane, a full-warp ballot);
/// `thread_id x` modulo a divisor of 32 is a lane value where the known
/// block size is whole warps; loops and branches with uniform bounds and
/// conditions pass their values' variance through. Any other op makes its
/// results divergent.
class BlockUniformity {
public:
  explicit BlockUniformity(gpu::GPUFuncOp kernel);

  /// The variance of `v` (a value of the kernel).
  Variance of(Value v) const { return variance.lookup(v); }

private:
  void findWrittenArguments();
  bool set(Value v, Variance x);
  Variance operandsOf(Operation *op) const;
  Variance resultsOf(Operation *op) const;
  bool update(Operation *op);

  gpu::GPUFuncOp kernel;
  Region *body;
  /// The kernel's arguments (its entry block's first block arguments; the
  /// workgroup and private attributions follow).
  unsigned numArguments;
  bool whole32LaneWarps = false;
  llvm::DenseSet<Value> written;
  llvm::DenseMap<Value, Variance> variance;
};

} // namespace fa
} // namespace mlir

#endif // FA_CONVERSION_FATOGPU_BLOCKUNIFORMITY_H
