//===- KernelBuilder.h - The FlashAttention-2 forward kernel ----*- C++ -*-===//
//
// Builds the body of the gpu.func for one tiled fa.attention (stage L3 ->
// L4). One thread block runs one iteration of the scf.forall (one Q block of
// one head); warp w owns rows [w * M / W, (w + 1) * M / W) of it.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_KERNELBUILDER_H
#define FA_LIB_CONVERSION_FATOGPU_KERNELBUILDER_H

#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace fa {

/// The tile configuration of one kernel.
struct KernelConfig {
  int64_t blockM, blockN, numWarps, headDim, valueDim;
  Type elemTy; // f16 or bf16
  double scaleLog2;
  bool hasLse;
  /// Load the warp's Q fragments into registers once, instead of re-reading
  /// them from shared memory for every K/V block.
  bool queryInRegisters;

  /// K/V blocks resident in shared memory: while block j is used, blocks
  /// j + 1 .. j + kvStages - 1 are loading.
  int64_t kvStages = 2;

  /// Where the online softmax rescales the O accumulator (acc *= alpha,
  /// skipped by a warp-uniform branch when no row max moved): before the
  /// exponentials (true), which lets ptxas overlap P V with them, or after
  /// them (false), which keeps fewer values live. LowerToGPU picks it from
  /// the register budget; measured in docs/performance.md.
  bool rescaleBeforeExp = false;

  int64_t numThreads() const { return 32 * numWarps; }
  int64_t rowsPerWarp() const { return blockM / numWarps; }
  int64_t mTiles() const { return rowsPerWarp() / 16; }
  /// Shared memory layout: the Q tile, then kvStages (K, V) tile pairs;
  /// 2 bytes per element, rows padded by 16 bytes. The O tile of the
  /// epilogue reuses the space from the start.
  int64_t queryBytes() const { return 2 * blockM * (headDim + 8); }
  int64_t keyBytes() const { return 2 * blockN * (headDim + 8); }
  int64_t valueBytes() const { return 2 * blockN * (valueDim + 8); }
  int64_t stageBytes() const { return keyBytes() + valueBytes(); }
  int64_t sharedMemoryBytes() const {
    return std::max(queryBytes() + kvStages * stageBytes(),
                    2 * blockM * (valueDim + 8));
  }
  /// f32 registers per thread for the S and O accumulators and Q fragments:
  /// the part of the register budget that the tile shape decides.
  int64_t fragmentRegisters() const {
    int64_t regs = mTiles() * (blockN / 8) * 4 + mTiles() * (valueDim / 8) * 4;
    if (queryInRegisters)
      regs += mTiles() * (headDim / 16) * 4;
    return regs;
  }
};

/// Fills the empty `kernel`, whose arguments are the memrefs of Q, K, V, O
/// and (if config.hasLse) LSE, with the forward pass of `tiled`. `hostTensors`
/// are the host tensors those arguments stand for (same order). Fails, with
/// an error on the loop nest, if an offset or bound of the loop nest cannot be
/// computed in the kernel.
LogicalResult buildAttentionKernel(gpu::GPUFuncOp kernel,
                                   TiledAttention &tiled,
                                   const KernelConfig &config,
                                   ArrayRef<Value> hostTensors);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_KERNELBUILDER_H
