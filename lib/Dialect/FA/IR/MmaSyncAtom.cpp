//===- MmaSyncAtom.cpp - Layout facts of the sm_80 mma.sync atom ----------===//
//
// What #fa.mma_sync answers about fragments and shared tiles. The
// instructions (ldmatrix, mma.sync, cp.async) are emitted by
// lib/Conversion/FAToGPU/Atoms/MmaSync.cpp from the same facts.
//
//===----------------------------------------------------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

using namespace mlir;
using namespace mlir::fa;

namespace {
/// Rows one mma.sync.m16n8k16 covers; columns of one C tile; k of one step.
constexpr int64_t kTileRows = 16, kTileCols = 8, kStepK = 16;
/// Shared rows are padded by one 16-byte chunk (swizzled tiles are not, but
/// the tile choice counts every tile padded: an upper bound).
constexpr int64_t kRowPadBytes = 16;

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

int64_t mTiles(ArrayRef<int64_t> shape, int64_t numWarps) {
  return shape[0] / numWarps / kTileRows;
}
} // namespace

LogicalResult MmaSyncAtomAttr::verifyFragment(
    FragmentRole role, ArrayRef<int64_t> shape, Type elementType,
    int64_t numWarps, function_ref<InFlightDiagnostic()> emitError) const {
  bool twoD = role == FragmentRole::Acc || role == FragmentRole::OperandA;
  int64_t rank = twoD ? 2 : 1;
  if (static_cast<int64_t>(shape.size()) != rank)
    return emitError() << "#fa.mma_sync: a tile in the "
                       << stringifyFragmentRole(role)
                       << " role must have rank " << rank << ", got rank "
                       << shape.size();
  if (llvm::is_contained(shape, 0))
    return emitError() << "#fa.mma_sync: a tile held by warps must not be "
                          "empty";
  if (shape[0] % (kTileRows * numWarps) != 0)
    return emitError() << "#fa.mma_sync: " << shape[0]
                       << " rows do not split into whole 16-row mma tiles "
                          "over "
                       << numWarps << " warps (need a multiple of "
                       << kTileRows * numWarps << ")";
  switch (role) {
  case FragmentRole::Acc:
    if (!elementType.isF32() && !isHalf(elementType))
      return emitError() << "#fa.mma_sync: acc tiles hold f32, f16 or bf16, "
                            "got "
                         << elementType;
    if (shape[1] % kTileCols != 0)
      return emitError() << "#fa.mma_sync: acc tile columns (" << shape[1]
                         << ") must be a multiple of 8, the n of "
                            "mma.m16n8k16";
    return success();
  case FragmentRole::OperandA:
    if (!isHalf(elementType))
      return emitError() << "#fa.mma_sync: A operands are f16 or bf16, got "
                         << elementType;
    if (shape[1] % kStepK != 0)
      return emitError() << "#fa.mma_sync: A operand columns (" << shape[1]
                         << ") must be a multiple of 16, the k of "
                            "mma.m16n8k16";
    return success();
  case FragmentRole::Rows:
  case FragmentRole::PartialRows:
    if (!elementType.isF32())
      return emitError() << "#fa.mma_sync: per-row values are f32, got "
                         << elementType;
    return success();
  }
  return success();
}

LogicalResult MmaSyncAtomAttr::verifySharedTile(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 2)
    return emitError() << "#fa.mma_sync: a shared tile must have rank 2, got rank "
                       << shape.size();
  if (!isHalf(elementType))
    return emitError() << "#fa.mma_sync: shared tiles hold f16 or bf16 (the "
                          "MMA operands), got "
                       << elementType;
  if (shape[0] < 1 || shape[1] < 1)
    return emitError() << "#fa.mma_sync: a shared tile must not be empty";
  if (shape[1] % 8 != 0)
    return emitError() << "#fa.mma_sync: a shared tile is copied in rows of "
                          "16-byte chunks: columns must be a multiple of 8, "
                          "got "
                       << shape[1];
  return success();
}

SmallVector<Type> MmaSyncAtomAttr::getFragmentTypes(FragmentRole role,
                                                    ArrayRef<int64_t> shape,
                                                    Type elementType,
                                                    int64_t numWarps) const {
  int64_t count = 0;
  Type type;
  switch (role) {
  case FragmentRole::Acc:
    count = mTiles(shape, numWarps) * (shape[1] / kTileCols);
    type = VectorType::get({2, 2}, elementType);
    break;
  case FragmentRole::OperandA:
    count = mTiles(shape, numWarps) * (shape[1] / kStepK);
    type = VectorType::get({4, 2}, elementType);
    break;
  case FragmentRole::Rows:
  case FragmentRole::PartialRows:
    count = 2 * mTiles(shape, numWarps);
    type = elementType;
    break;
  }
  return SmallVector<Type>(count, type);
}

int64_t MmaSyncAtomAttr::getFragmentRegisters(FragmentRole role,
                                              ArrayRef<int64_t> shape,
                                              Type elementType,
                                              int64_t numWarps) const {
  int64_t values = getFragmentTypes(role, shape, elementType, numWarps).size();
  switch (role) {
  case FragmentRole::Acc:
    return values * (elementType.isF32() ? 4 : 2);
  case FragmentRole::OperandA:
    return values * 4;
  case FragmentRole::Rows:
  case FragmentRole::PartialRows:
    return values;
  }
  return values;
}

int64_t MmaSyncAtomAttr::getSharedTileBytes(ArrayRef<int64_t> shape,
                                            Type elementType) const {
  int64_t elemBytes = elementType.getIntOrFloatBitWidth() / 8;
  return shape[0] * (shape[1] * elemBytes + kRowPadBytes);
}

// The budgets come from ptxas -v and the H200 (docs/performance.md): with
// S and O fragments up to 192 registers a thread (d = 128, 128 x 64 tiles, 4
// warps) the kernel fits in 255 without spilling on sm_80; Q in registers
// and the rescale before the exponentials each keep more values live and
// pay off only up to 160 (d = 64: +3-5 %; at d = 128 they spill).
int64_t MmaSyncAtomAttr::getMaxFragmentRegisters() const { return 192; }
int64_t MmaSyncAtomAttr::getQueryInRegistersBudget() const { return 160; }
int64_t MmaSyncAtomAttr::getEarlyRescaleBudget() const { return 160; }
// Swizzled K/V tiles (ptxas -v of every forward configuration of
// bench/compile_kernels.py, sm_80 and sm_90, and an H100; docs/performance.md
// "Swizzled K/V tiles"): with S + O + Q fragments up to 160 registers (d = 64
// prefill, decode steps) no kernel spills and they run 2-33 % faster; at
// d = 128 and 192 prefill (176-256) sm_80 spills 4-44 bytes. ptxas for
// sm_90 allocates them better: with no extra live values, every kernel of
// the feature matrix (scripts/spill-sweep.py --chips sm_90 --options
// swizzle-shared=on: d = 128, 192 and 256, dense, decode, split-KV) is
// spill-free; on an H100, prefill runs 1.07-1.11x (d = 128), 1.09-1.12x
// (192), 1.13-1.19x (256). A soft cap alone (one scalar) keeps them
// spill-free too, and the capped kernels run 1.08-1.11x (d = 128 and 192).
// A window's per-row bounds, per-sequence bounds or split-KV's chunk bounds
// do not: d = 192 windows, d = 128 causal packed sequences and cached keys
// and split nests spill 4-28 bytes (docs/performance.md, "The swizzled K/V
// tiles by chip"). Only chips measured get the larger budget.
int64_t MmaSyncAtomAttr::getSwizzledSharedBudget(
    const ChipInfo &chip, const ExtraLiveValues &extras) const {
  bool scalarsOnly = !extras.window && !extras.sequenceBounds && !extras.split;
  return chip.isHopper() && scalarsOnly ? 256 : 160;
}
// mma.sync returns its result to the issuing warp: nothing to overlap by
// deferring P V (measured slower with the extra live P: docs/performance.md).
bool MmaSyncAtomAttr::hasAsyncMatmuls() const { return false; }

// Default tiles per head dim: the fastest configuration of a sweep on the
// H200 (docs/performance.md, "Tiles per head dim";
// docs/results/sweep-headdims-2026-11-30.json) among those that fit sm_80's
// 163 KB of shared memory and compile without spills for sm_80 and sm_90,
// causal or not, f16 or bf16. Q blocks of 128 rows where they fit: each K/V
// tile then serves 128 rows. Past d = 128 the S and O fragments of 32 rows a
// warp exceed the register budget, so 8 warps hold 16 rows each; at d = 96
// and 160 32-row K/V tiles keep S small enough next to O (at d = 192 they
// would too, but leave Q in registers at the edge of the budget and spill
// 4 bytes when causal); at d = 256 two stages of K/V and a 128-row Q no
// longer fit in 163 KB.
//
// A sliding window (a left bound) keeps each row's bounds live next to the
// fragments, and ptxas -v (sm_80 and sm_90; windows (128, 32), (64, 0) and
// (1024, 0) causal, (512, -1), (-1, 8)) finds spills the plain kernels do
// not have:
// * d = 96 spills 8-32 bytes with 128-row Q blocks, early rescale or not:
//   its window kernels take 64-row blocks (16 rows a warp; 3 % slower than
//   the spilling kernel at window 1024 on the H200, 4 % faster than 128
//   rows without the early rescale);
// * d = 128 spills 8-32 bytes on sm_90 with 64-key blocks: its window
//   kernels take 32-key blocks (4 % slower at window 1024);
// * d = 192 (S and O of 32 + 96 registers a thread) spills 4-20 bytes with
//   the early rescale: its window kernels rescale after the exponentials
//   (5 % slower).
// d = 64 keeps the early rescale (+6 % on its window kernels). Measured:
// docs/performance.md, "Sliding window".
//
// Per-sequence bounds (packed sequences, K/V-cache lengths) take the window
// tiles too (--fa-tile-q-outer). Each further live value (a left bound, a
// soft cap, per-sequence bounds: TileConfig) costs registers again, and
// scripts/spill-sweep.py (every head dim, mask, soft cap and op form, f16
// and bf16, chips sm_80 and sm_90, ptxas for sm_80 and sm_90; 2026-12-05)
// found the early rescale spilling 4-40 bytes past these counts: a soft cap
// at d = 192; two extra values at d = 32 (packed sequences with a cap), 64,
// 96 and 128 (packed sequences with a window or a cap). With the rescale
// after the exponentials none of them spills, except:
// * at d = 128 some non-causal kernels with two or three (a soft cap with a
//   window or per-sequence bounds, or both) spill 4-8 bytes either way, and
//   none with 64-row Q blocks (16 rows a warp), which kernels with two or
//   more take;
// * a soft cap at d = 96 spills 24-40 bytes with 128-row blocks either way
//   (not causal), and none with the window tiles (64 x 32, early rescale),
//   which it takes;
// * known exception: at d = 192 a dense K/V cache's lengths with a window
//   and a soft cap spill 4 bytes for sm_90 (none for sm_80). No tiles
//   tried avoid every spill at d = 192 with three extra values: 64-row Q
//   blocks remove these and spill 4-16 bytes in others (packed sequences
//   with a one-sided window and a cap; a K/V cache with a cap, causal),
//   32-key blocks or 2 warps more.
FailureOr<TileConfig> MmaSyncAtomAttr::getDefaultTiles(int64_t headDim,
                                                       int64_t valueDim) const {
  int64_t d = std::max(headDim, valueDim);
  if (d <= 0)
    return failure();
  struct Entry {
    int64_t maxDim;
    TileConfig tiles;
  };
  static const Entry table[] = {
      // blockM, blockN, warps, stages, early-rescale extras,
      // window blockM, window blockN, window early-rescale extras,
      // window tiles with a soft cap, Q block with two extra values
      {32, {128, 128, 4, 2, 1}},
      {64, {128, 64, 4, 2, 1}},
      {96, {128, 32, 4, 2, 0, 64, 0, 1, true}},
      {128, {128, 64, 4, 2, 1, 0, 32, 1, false, 64}},
      {160, {128, 32, 8, 2}},
      {192, {128, 64, 8, 2, 0}},
      {256, {64, 32, 4, 2}},
  };
  for (const Entry &e : table)
    if (d <= e.maxDim)
      return e.tiles;
  return failure();
}

// Halving the K/V block first keeps each K/V tile serving the whole Q block;
// 32 K/V rows keep the S fragment wide enough for whole 16-column ldmatrix
// steps of P. Then the Q block, to 64 rows, with at most one warp per 16
// rows. (99 KB chips such as sm_86, sm_89 and sm_120 need this at d = 128
// and 192; 163 KB and 227 KB chips take the table as it is.)
// (The tiles are counted padded either way: a swizzled tile of this atom
// takes no more.)
FailureOr<TileConfig> MmaSyncAtomAttr::fitTiles(TileConfig tiles,
                                                int64_t headDim,
                                                int64_t valueDim,
                                                int64_t sharedMemoryBytes,
                                                bool padded) const {
  Type half = Float16Type::get(getContext());
  auto bytes = [&](const TileConfig &t) {
    return getSharedTileBytes({t.blockM, headDim}, half) +
           t.stages * (getSharedTileBytes({t.blockN, headDim}, half) +
                       getSharedTileBytes({t.blockN, valueDim}, half));
  };
  while (bytes(tiles) > sharedMemoryBytes) {
    if (tiles.blockN > 32) {
      tiles.blockN /= 2;
    } else if (tiles.blockM > 64) {
      tiles.blockM /= 2;
      tiles.numWarps = std::min(tiles.numWarps, tiles.blockM / kTileRows);
    } else {
      return failure();
    }
  }
  return tiles;
}
