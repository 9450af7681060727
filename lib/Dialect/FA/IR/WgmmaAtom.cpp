//===- WgmmaAtom.cpp - Layout facts of the sm_90a wgmma atom --------------===//
//
// What #fa.wgmma answers about fragments and shared tiles. Per warp, the
// fragments are those of #fa.mma_sync at 16 rows a warp (the wgmma
// accumulator and register-A layouts restricted to one warp's 16 rows are
// the mma.m16n8k16 ones), so this file adds the warpgroup rules and its own
// table and delegates the rest. The instructions are emitted by
// lib/Conversion/FAToGPU/Atoms/Wgmma.cpp.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {
/// Warps of a warpgroup; rows one warp owns of a wgmma m64 tile.
constexpr int64_t kWarpsPerGroup = 4, kRowsPerWarp = 16;
/// The widest N (and so the widest acc tile) of one wgmma.
constexpr int64_t kMaxN = 256;

MmaSyncAtomAttr sm80(MLIRContext *ctx) { return MmaSyncAtomAttr::get(ctx); }
} // namespace

LogicalResult WgmmaAtomAttr::verifyFragment(
    FragmentRole role, ArrayRef<int64_t> shape, Type elementType,
    int64_t numWarps, function_ref<InFlightDiagnostic()> emitError) const {
  if (numWarps % kWarpsPerGroup != 0)
    return emitError() << "#fa.wgmma: tiles are held by whole warpgroups: "
                          "num_warps must be a multiple of 4, got "
                       << numWarps;
  if (!shape.empty() && shape[0] != kRowsPerWarp * numWarps)
    return emitError() << "#fa.wgmma: each warp owns 16 rows of its "
                          "warpgroup's m64 tile: a tile held by "
                       << numWarps << " warps has " << kRowsPerWarp * numWarps
                       << " rows, got " << shape[0];
  if (role == FragmentRole::Acc && shape.size() == 2 && shape[1] > kMaxN)
    return emitError() << "#fa.wgmma: acc tiles are at most " << kMaxN
                       << " columns wide (the widest wgmma), got "
                       << shape[1];
  return sm80(getContext())
      .verifyFragment(role, shape, elementType, numWarps, emitError);
}

LogicalResult WgmmaAtomAttr::verifySharedTile(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(sm80(getContext())
                 .verifySharedTile(shape, elementType, emitError)))
    return failure();
  if (shape[0] % 8 != 0)
    return emitError() << "#fa.wgmma: a shared tile is stored as 8 x 8 core "
                          "matrices: rows must be a multiple of 8, got "
                       << shape[0];
  return success();
}

SmallVector<Type> WgmmaAtomAttr::getFragmentTypes(FragmentRole role,
                                                  ArrayRef<int64_t> shape,
                                                  Type elementType,
                                                  int64_t numWarps) const {
  return sm80(getContext())
      .getFragmentTypes(role, shape, elementType, numWarps);
}

int64_t WgmmaAtomAttr::getFragmentRegisters(FragmentRole role,
                                            ArrayRef<int64_t> shape,
                                            Type elementType,
                                            int64_t numWarps) const {
  return sm80(getContext())
      .getFragmentRegisters(role, shape, elementType, numWarps);
}

// The core-matrix layout needs rows * cols * 2 bytes; a tile reserves the
// padded layout's bytes so that both atoms plan the same shared memory
// (and the output staging tile, padded, fits in what is planned), rounded
// up to the 1024 bytes on which the lowering starts every tile (where a
// 128-byte swizzle pattern starts).
int64_t WgmmaAtomAttr::getSharedTileBytes(ArrayRef<int64_t> shape,
                                          Type elementType) const {
  return llvm::alignTo(
      sm80(getContext()).getSharedTileBytes(shape, elementType), 1024);
}

// The register budgets of the sm_80 atom: the same fragments per thread.
int64_t WgmmaAtomAttr::getMaxFragmentRegisters() const {
  return sm80(getContext()).getMaxFragmentRegisters();
}
int64_t WgmmaAtomAttr::getQueryInRegistersBudget() const {
  return sm80(getContext()).getQueryInRegistersBudget();
}
// wgmma reads the swizzled K/V tiles by descriptor (no extra addresses
// live), so every forward nest whose tiles allow it swizzles: measured on
// an H100 (docs/performance.md, "The 128-byte swizzle for #fa.wgmma"),
// 1.46-1.66x the core-matrix layout at the paper shapes, 1.16-1.28x the
// sm_90 mma.sync kernel. Not yet for split-KV nests (never compiled with
// wgmma on a GPU): the core matrices there.
int64_t WgmmaAtomAttr::getSwizzledSharedBudget(
    const ChipInfo &, const ExtraLiveValues &extras) const {
  return extras.split ? 0 : std::numeric_limits<int64_t>::max();
}
int64_t WgmmaAtomAttr::getEarlyRescaleBudget() const {
  return sm80(getContext()).getEarlyRescaleBudget();
}
// wgmma.mma_async runs while the warpgroup issues other instructions, until
// wgmma.wait_group.
bool WgmmaAtomAttr::hasAsyncMatmuls() const { return true; }

// 16 rows a warp, so 128-row Q blocks take 8 warps (two warpgroups) and
// 64-row blocks 4. Measured on the H200 (docs/performance.md, "A first
// sm_90a atom"; docs/results/wgmma-tiles-ab-2026-12-03.json): at d = 64,
// 128 x 64 on 8 warps (206-319 TFLOP/s) beats 128 x 128 (159-244) and the
// 64-row blocks on 4 warps (121-179). At d = 128, with P V deferred by a
// block (--fa-pipeline-mma) the ring needs a K/V slot more than the stages:
// 128 x 128 with 2 stages (3 slots, 226 KB) is 0.99-1.09x 128 x 64 with 3
// (4 slots) and, with the warpgroups' turns that 128-key blocks make pay
// (--fa-pingpong, kTurnBlockKeys), 1.05-1.13x (H100; docs/performance.md,
// session 23, "128 x 128 blocks and the warpgroups' turns"); at d = 64,
// 128 x 128 is 0.76-0.94x 128 x 64. Head dims up to 96 keep 128 x 64 with
// 3 stages, what d = 128 had before the turns. All compile without spills
// for sm_90a (test/Pipelines/ptxas-wgmma.mlir). Past d = 128, 64-row Q
// blocks keep the S and O fragments in the registers, with 32-key blocks
// (what 64 x 64 shrank to when the tiles were counted padded; 64 x 64
// would fit swizzled, not yet measured). Window kernels take the same
// tiles, but at d = 128 (below).
FailureOr<TileConfig> WgmmaAtomAttr::getDefaultTiles(int64_t headDim,
                                                     int64_t valueDim) const {
  int64_t d = std::max(headDim, valueDim);
  if (d <= 0)
    return failure();
  struct Entry {
    int64_t maxDim;
    TileConfig tiles;
  };
  // d = 128: window and split-KV kernels (the window tiles) keep 128 x 64
  // with 3 stages, as measured before the 128-key blocks (split-KV nests
  // are not swizzled, and 128-key padded tiles do not fit).
  TileConfig longBlocks{128, 128, 8, 2};
  longBlocks.windowBlockN = 64;
  longBlocks.windowStages = 3;
  const Entry table[] = {
      {64, {128, 64, 8, 2}},
      {96, {128, 64, 8, 3}},
      {128, longBlocks},
      {256, {64, 32, 4, 2}},
  };
  for (const Entry &e : table)
    if (d <= e.maxDim)
      return e.tiles;
  return failure();
}

// The sm_80 atom's order (K/V blocks first, then Q blocks), with as many
// warps as the Q block has 16-row slices, and room for one K/V slot more
// than the stages: --fa-pipeline-mma (on for this atom in --fa-to-ptx)
// keeps block j - 1's V while block j + stages - 1 loads. The tiles count
// as the lowering lays out this atom's forward tiles: rows of a multiple of
// 128 bytes swizzled (swizzle-shared=auto), with no padding, others padded,
// each from a 1024-byte boundary; every tile padded with `padded`
// (swizzle-shared=off, where d = 128's 128 x 128 then becomes 128 x 64).
FailureOr<TileConfig> WgmmaAtomAttr::fitTiles(TileConfig tiles,
                                              int64_t headDim,
                                              int64_t valueDim,
                                              int64_t sharedMemoryBytes,
                                              bool padded) const {
  MmaSyncAtomAttr paddedLayout = sm80(getContext());
  Type half = Float16Type::get(getContext());
  auto tileBytes = [&](int64_t rows, int64_t cols) {
    int64_t rowBytes = cols * 2;
    int64_t bytes = rowBytes % 128 == 0 && !padded
                        ? rows * rowBytes
                        : paddedLayout.getSharedTileBytes({rows, cols}, half);
    return static_cast<int64_t>(llvm::alignTo(bytes, 1024));
  };
  auto bytes = [&](const TileConfig &t) {
    return tileBytes(t.blockM, headDim) +
           (t.stages + 1) *
               (tileBytes(t.blockN, headDim) + tileBytes(t.blockN, valueDim));
  };
  TileConfig fitted = tiles;
  while (bytes(fitted) > sharedMemoryBytes) {
    if (fitted.blockN > 32)
      fitted.blockN /= 2;
    else if (fitted.blockM > 64)
      fitted.blockM /= 2;
    else
      return failure();
  }
  if (fitted.blockM % (kWarpsPerGroup * kRowsPerWarp) != 0)
    return failure();
  fitted.numWarps = fitted.blockM / kRowsPerWarp;
  return fitted;
}
