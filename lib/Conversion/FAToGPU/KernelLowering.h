//===- KernelLowering.h - What the L3 -> L4 patterns share ------*- C++ -*-===//
//
// --fa-lower-to-gpu first outlines each warp-mapped loop nest into a
// gpu.func whose body is the loop nest's body, unchanged (Outline.h), then
// runs one dialect conversion over that body with one pattern per op
// (Patterns/). This header holds what the patterns share:
//
//  * the type converter: a tile held by warps becomes the per-thread
//    fragments of its atom (`MmaAtomAttrInterface::getFragmentTypes`), a
//    shared tile its byte offset in the dynamic shared memory, a future the
//    slot its tiles are copied into;
//  * the shared-memory plan: one ring of slots per kind of shared tile,
//    laid out one after the other; the output staging tile reuses the space
//    from the start once the loads are done;
//  * the atom lowering and the kernel's thread geometry.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_KERNELLOWERING_H
#define FA_LIB_CONVERSION_FATOGPU_KERNELLOWERING_H

#include "Atoms/AtomLowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

namespace mlir {
namespace fa {

/// Tiles held by warps -> fragments; shared tiles -> byte offsets (index);
/// futures -> slot numbers (index).
class FragmentTypeConverter : public TypeConverter {
public:
  FragmentTypeConverter();
};

/// Where the shared tiles of one kernel live.
class SharedMemoryPlan {
public:
  struct Ring {
    int64_t base = 0, slotBytes = 0, numSlots = 1;
  };

  /// Lays out every ring the kernel's loads need; fails with a diagnostic
  /// when the loads of one future type disagree on their slot count.
  LogicalResult build(gpu::GPUFuncOp kernel, AtomLowering &atom);

  /// The ring of tile `index` of the future `future` (an fa.async_load's
  /// result, or a loop-carried value). Loads with several slots share one
  /// ring per future type and tile (the K/V rings, which the loops of causal
  /// block skipping hand on to each other); a one-slot load issued once
  /// (the tiles loaded before the K/V loop) has buffers of its own, so that
  /// two such loads of the same type do not overlap.
  const Ring &ring(Value future, unsigned index) const {
    if (auto load = future.getDefiningOp<AsyncLoadOp>()) {
      auto it = privateRings.find(load.getOperation());
      if (it != privateRings.end())
        return it->second[index];
    }
    auto type = cast<FutureType>(future.getType());
    return asyncRings.at({type.getAsOpaquePointer(), index});
  }
  /// The buffer of a synchronous tile load (tensor.pad to a shared tile),
  /// or of a tile converted from registers into shared memory.
  const Ring &ring(tensor::PadOp load) const {
    return syncRings.at(load.getOperation());
  }
  const Ring &ring(ConvertLayoutOp toShared) const {
    return syncRings.at(toShared.getOperation());
  }
  /// Where the warp groups of a merge tile held by several replicas
  /// exchange their per-thread values (AtomLowering::reduceAcrossReplicas).
  const Ring &ring(CombineSplitsOp combine) const {
    return syncRings.at(combine.getOperation());
  }
  /// Where key groups exchange their row maxima inside the K/V loop
  /// (fa.running_max of a `share = columns` tile): a ring of its own.
  int64_t keyGroupExchangeOffset() const { return keyGroupExchange.base; }
  /// Where an output tile is staged, and where key groups add up their
  /// accumulators in fa.finalize: from byte 0, over the rings (the K/V
  /// loops are done with them by then).
  int64_t stagingOffset() const { return 0; }
  /// The mbarrier of slot 0 of the future's ring when its loads are TMA
  /// copies (fa.async_load {tma}): one 8-byte mbarrier per slot, after
  /// everything else (the output's staging overwrites the rings, never
  /// them); nullopt for cp.async loads.
  std::optional<int64_t> barriers(Value future) const {
    if (auto load = future.getDefiningOp<AsyncLoadOp>()) {
      auto it = privateBarriers.find(load.getOperation());
      if (it != privateBarriers.end())
        return barrierStart + it->second;
    }
    auto it = asyncBarriers.find(future.getType().getAsOpaquePointer());
    if (it == asyncBarriers.end())
      return std::nullopt;
    return barrierStart + it->second;
  }
  /// The release mbarrier of slot 0 of the future's ring when its loads
  /// wait for releases (fa.async_load ... after_release): one per slot,
  /// after the ring's completion mbarriers; nullopt otherwise.
  std::optional<int64_t> releaseBarriers(Value future) const {
    auto it = releaseBarrierOffsets.find(future.getType().getAsOpaquePointer());
    if (it == releaseBarrierOffsets.end())
      return std::nullopt;
    return barrierStart + it->second;
  }
  /// Offset of the first mbarrier and how many there are (0: none).
  int64_t barrierOffset() const { return barrierStart; }
  int64_t numBarriers() const { return barrierCount; }
  /// Whether mbarrier `index` (from the first) is a release mbarrier, which
  /// expects one arrival per warp; the others expect the issuing thread's.
  bool isReleaseBarrier(int64_t index) const {
    return llvm::any_of(releaseBarrierRanges, [&](auto range) {
      return index >= range.first && index < range.first + range.second;
    });
  }
  int64_t totalBytes() const {
    return barrierCount ? barrierStart + 8 * barrierCount
                        : std::max(ringBytes, stagingBytes);
  }

private:
  /// The next ring, after the ones laid out so far.
  Ring newRing(int64_t slotBytes, int64_t numSlots);
  /// The buffer of a conversion into shared memory: that of an earlier one
  /// in the same block whose tiles are all read before it, else a new one.
  Ring convertRing(ConvertLayoutOp convert, int64_t bytes);

  /// TMA loads' mbarriers, as offsets from barrierStart: per future type
  /// (the K/V rings) or per load (a one-slot load of its own).
  DenseMap<const void *, int64_t> asyncBarriers;
  DenseMap<Operation *, int64_t> privateBarriers;
  /// Release mbarriers: offsets from barrierStart per future type, and
  /// (first index, count) of each ring's.
  DenseMap<const void *, int64_t> releaseBarrierOffsets;
  SmallVector<std::pair<int64_t, int64_t>, 1> releaseBarrierRanges;
  int64_t barrierStart = 0, barrierCount = 0;
  std::map<std::pair<const void *, unsigned>, Ring> asyncRings;
  DenseMap<Operation *, SmallVector<Ring, 2>> privateRings;
  DenseMap<Operation *, Ring> syncRings;
  /// The conversions into shared memory so far, by buffer.
  SmallVector<std::pair<Ring, SmallVector<ConvertLayoutOp, 2>>, 2>
      convertBuffers;
  Ring keyGroupExchange;
  int64_t ringBytes = 0, stagingBytes = 0, keyGroupExchangeBytes = 0;
  /// Where every ring starts: a multiple of the atom's sharedAlignment().
  int64_t alignment = 16;
};

/// What every pattern of one kernel needs.
struct KernelContext {
  AtomLowering &atom;
  const SharedMemoryPlan &plan;
  /// The tensor map parameter (!llvm.ptr) of each kernel argument that TMA
  /// copies read (fa.async_load {tma}).
  DenseMap<Value, Value> tensorMaps;
  /// --fa-lower-to-gpu{mbarrier-timeout-ms}: a thread that has waited this
  /// long on an mbarrier traps (0: no bound).
  int64_t mbarrierTimeoutMs = 0;
};

/// The threads of the thread block of the kernel around `op` (the x size
/// of its gpu.func's known block size), or nullopt outside a kernel whose
/// block size is known.
std::optional<int64_t> blockThreads(Operation *op);

/// The patterns of --fa-lower-to-gpu, one per op (Patterns/*.cpp).
void populateMatmulPatterns(const TypeConverter &converter,
                            KernelContext &kernel,
                            RewritePatternSet &patterns);
void populateMaskPatterns(const TypeConverter &converter,
                          KernelContext &kernel, RewritePatternSet &patterns);
void populateSoftmaxPatterns(const TypeConverter &converter,
                             KernelContext &kernel,
                             RewritePatternSet &patterns);
void populateFinalizePatterns(const TypeConverter &converter,
                              KernelContext &kernel,
                              RewritePatternSet &patterns);
void populateLayoutPatterns(const TypeConverter &converter,
                            KernelContext &kernel,
                            RewritePatternSet &patterns);
void populateCombinePatterns(const TypeConverter &converter,
                             KernelContext &kernel,
                             RewritePatternSet &patterns);
void populateBackwardPatterns(const TypeConverter &converter,
                              KernelContext &kernel,
                              RewritePatternSet &patterns);
void populateMemoryPatterns(const TypeConverter &converter,
                            KernelContext &kernel,
                            RewritePatternSet &patterns);

/// The operand of a conversion pattern as the atom sees it (a register
/// tile as the part of it the executing group holds, groupTile).
TileOperand tileOperand(Value original, ValueRange converted);

/// The element of a splat constant acc tile that a tensor.extract_slice
/// stores (AtomLowering::storeSplatTile, with no staging tile), or null.
Attribute storedSplat(tensor::ExtractSliceOp slice);

/// The part of a tile held by warps that one group of warps holds, as a
/// tile of its own: `[M, N / C]` for `share = columns` (the group's keys),
/// else the tile itself. The atom's fragment geometry is asked about this.
RankedTensorType groupTile(RankedTensorType tile);

/// Whether `type` is a tile whose columns the groups divide (the keys of
/// the forward's key groups; every accumulator of the backward's dK/dV
/// nest on a warp grid).
bool dividesKeys(Type type);

/// The rows of the shared K or V tile `tile` that hold the executing
/// group's keys (rows [c * R / C, (c + 1) * R / C) of group c of
/// `groups`): for fa.qk and fa.pv of key groups. The atom's shared tiles
/// are stored row by row, so those rows are a tile of their own.
TileOperand groupKeyRows(OpBuilder &b, Location loc, AtomLowering &atom,
                         const TileOperand &tile, int64_t groups);

/// The kernel argument behind a tensor inside the kernel (the outliner
/// makes each one a bufferization.to_tensor of its memref argument), or null.
Value kernelBuffer(Value tensor);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_KERNELLOWERING_H
