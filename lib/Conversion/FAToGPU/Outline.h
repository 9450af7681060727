//===- Outline.h - A warp-mapped loop nest -> gpu.func + launch -*- C++ -*-===//
//
// The structural half of --fa-lower-to-gpu, in the spirit of upstream's
// gpu-kernel-outlining: the body of an scf.forall mapped to #gpu.block
// becomes the body of a gpu.func, op for op, with
//
//  * the induction variables read from the block ids the mapping names;
//  * every tensor the body reads, and every shared output it writes, a
//    memref parameter (inside, a bufferization.to_tensor of it);
//  * every f32 scalar it uses (the softmax scale) a scalar parameter, so
//    that one kernel serves every value;
//  * index values from outside (sequence lengths, the causal offset, loop
//    bounds) recomputed from the memref sizes, and constants cloned;
//  * each tensor.parallel_insert_slice of the terminator a
//    bufferization.materialize_in_destination into a memref.subview.
//
// The per-op patterns then lower that body (KernelLowering.h); finally the
// forall is replaced by a gpu.launch_func over the grid of its mapping.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_OUTLINE_H
#define FA_LIB_CONVERSION_FATOGPU_OUTLINE_H

#include "LaunchPlan.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace fa {

struct OutlinedLoopNest {
  scf::ForallOp forall;
  gpu::GPUFuncOp kernel;
  /// Warps of one group and groups of the thread block (from the layouts:
  /// #fa.warp_rows num_warps and replicas).
  int64_t numWarps = 0, replicas = 1;
  int64_t threads() const { return 32 * numWarps * replicas; }
  /// Host values passed as the kernel's arguments, in order.
  SmallVector<Value> hostArgs;
  /// Which forall results the output arguments are: hostArgs[outputBase + i]
  /// is the buffer of forall result outputResult[i].
  size_t outputBase = 0;
  /// The plan, but for the kernel's shared memory (known after lowering).
  LaunchPlan plan;
  /// Grid sizes (host values), x, y, z.
  SmallVector<Value, 3> grid;
  /// The host values of plan.inputs (integer arguments of the function).
  SmallVector<Value> inputArgs;
};

/// The host buffers fa.accumulate_rows ops add into (the atomic dQ's f32
/// sums), collected before any nest is outlined: the kernels that zero,
/// add into and read them name them by that role.
using AccumulatedBuffers = DenseSet<Value>;
AccumulatedBuffers collectAccumulatedBuffers(ModuleOp module);

/// Outlines `forall` into a new gpu.module in `module`; fails with a
/// diagnostic naming what prevents it.
FailureOr<OutlinedLoopNest>
outlineLoopNest(scf::ForallOp forall, ModuleOp module, StringRef chip,
                unsigned indexBitwidth, const AccumulatedBuffers &accumulated);

/// Replaces the forall by the launch of its lowered kernel.
gpu::LaunchFuncOp replaceWithLaunch(OutlinedLoopNest &nest);

/// A PTX identifier for `name`: letters, digits, `_` and `$`, not starting
/// with a digit; anything else becomes `_`.
std::string ptxIdentifier(StringRef name);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_OUTLINE_H
