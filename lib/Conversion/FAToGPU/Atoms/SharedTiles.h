//===- SharedTiles.h - Tiles in shared memory, filled by cp.async -*- C++ -*-===//
//
// A tile of 16-bit elements in shared memory is stored row by row, each row
// padded by one 16-byte chunk. The 8 rows one ldmatrix reads (at the same
// column) then start 4 banks apart and cover all 32 banks: no bank conflicts,
// as with FlashAttention-2's XOR swizzle. Unlike a swizzle, padding keeps
// every address a thread uses in the inner loop a fixed base plus a
// compile-time offset; with an XOR in the address LLVM hoists each of the
// dozens of distinct ldmatrix addresses out of the loop into its own
// register, and the S and O accumulators spill (measured with ptxas -v).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_ATOMS_SHAREDTILES_H
#define FA_LIB_CONVERSION_FATOGPU_ATOMS_SHAREDTILES_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace fa {

/// Elements per 16-byte chunk (f16/bf16).
constexpr int64_t kChunkElems = 8;

struct SharedTile {
  /// memref<rows x paddedCols(cols) x T, #gpu.address_space<workgroup>>;
  /// columns [cols, paddedCols) are padding, never read.
  Value buffer;
  int64_t rows, cols;

  int64_t chunksPerRow() const { return cols / kChunkElems; }
  static int64_t paddedCols(int64_t cols) { return cols + kChunkElems; }
  /// Shared memory bytes of a rows x cols tile of `elemBytes`-byte
  /// elements (f16/bf16 operands; f32 only for staging f32 output tiles).
  static int64_t bytes(int64_t rows, int64_t cols, int64_t elemBytes = 2) {
    return elemBytes * rows * paddedCols(cols);
  }
};

/// The discardable attribute of an `nvgpu.device_async_copy` that asks
/// `--fa-convert-nvgpu-to-nvvm` for PTX's L2 prefetch-size qualifier
/// (`cp.async.cg.shared.global.L2::128B`): fa.async_load's `l2_prefetch`,
/// carried to the copies it lowers to (nvgpu's op has no such field).
inline constexpr llvm::StringLiteral kL2PrefetchAttrName = "fa.l2_prefetch";

/// Tags `copy` with kL2PrefetchAttrName = `bytes`, unless `bytes` is 0.
void setL2Prefetch(Operation *copy, int64_t bytes);

/// All `numThreads` threads of the block copy rows
/// [rowStart, rowStart + validRows) of `src` (a 2-D [N, cols] memref in
/// global memory) into `tile`, 16 bytes per cp.async; tile rows at or past
/// `validRows` are zero-filled. Each copy asks L2 to prefetch
/// `l2PrefetchBytes` (0: no hint). Returns the async tokens (not yet
/// committed).
SmallVector<Value> copyTileAsync(OpBuilder &b, Location loc, Value src,
                                 Value rowStart, Value validRows,
                                 const SharedTile &tile, Value threadId,
                                 int64_t numThreads,
                                 int64_t l2PrefetchBytes);

/// All `numThreads` threads of the block store rows [0, validRows) of `tile`
/// to rows [rowStart, rowStart + validRows) of `dst` (a 2-D [N, cols] memref
/// in global memory), 16 bytes per thread and store, coalesced.
void storeTileRows(OpBuilder &b, Location loc, const SharedTile &tile,
                   Value dst, Value rowStart, Value validRows, Value threadId,
                   int64_t numThreads);

/// Commits the cp.async copies issued so far by this thread as one group.
void commitAsyncGroup(OpBuilder &b, Location loc);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_ATOMS_SHAREDTILES_H
