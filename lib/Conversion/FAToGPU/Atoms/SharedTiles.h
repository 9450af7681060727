//===- SharedTiles.h - Tiles in shared memory, filled by cp.async -*- C++ -*-===//
//
// A tile of 16-bit elements in shared memory is stored row by row, in one of
// two layouts (#fa.block_shared's `swizzled`):
//
// * padded (the default): each row padded by one 16-byte chunk. The 8 rows
//   one ldmatrix reads (at the same column) then start 4 banks apart and
//   cover all 32 banks: no bank conflicts. Every address a thread uses in
//   the inner loop is a fixed base plus a compile-time offset. But a
//   128-byte segment of a source row lands 16 bytes further into a
//   128-byte segment of shared memory on every row, and cp.async then
//   splits its L2 requests: 1.5x the L2 sectors of the bytes copied
//   (measured on the H100 with ncu, a streaming microbenchmark and the
//   decode kernel alike).
// * swizzled: rows unpadded, chunk c of row r at chunk c ^ (r % 8), an XOR
//   within each 128-byte segment (FlashAttention-2's and CUTLASS's layout).
//   No bank conflicts either, and every source segment lands in one aligned
//   shared segment. The price is in the reads: a lane's ldmatrix column is
//   (lane's chunk + a constant) ^ (lane % 8), so each distinct constant
//   modulo 8 costs a register (4 per operand view, see LaneView), where
//   the padded layout's constants fold into the address.
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
  /// memref<rows x storedCols(cols, swizzled) x T,
  /// #gpu.address_space<workgroup>>; padded: columns [cols, cols + 8) are
  /// padding, never read.
  Value buffer;
  int64_t rows, cols;
  /// Chunk c of row r is at chunk c ^ (r % 8) (no padding).
  bool swizzled = false;

  int64_t chunksPerRow() const { return cols / kChunkElems; }
  static int64_t storedCols(int64_t cols, bool swizzled) {
    return swizzled ? cols : cols + kChunkElems;
  }
  /// Shared memory bytes of a rows x cols tile of `elemBytes`-byte
  /// elements (f16/bf16 operands; f32 only for staging f32 output tiles).
  static int64_t bytes(int64_t rows, int64_t cols, int64_t elemBytes = 2,
                       bool swizzled = false) {
    return elemBytes * rows * storedCols(cols, swizzled);
  }
};

/// Rows whose swizzles differ: chunk c of row r is at c ^ (r % 8).
constexpr int64_t kSwizzleRows = 8;

/// Where element column `col` (a multiple of kChunkElems) of `row` is stored
/// in a swizzled tile.
Value swizzledColumn(OpBuilder &b, Location loc, Value col, Value row);

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

/// Runs `body(row, col)` for each chunk of `chunkElems` columns of a
/// `rows` x `cols` tile that thread `threadId` of `numThreads` takes
/// (consecutive threads along a row, then the next rows: coalesced), inside
/// an scf.if on `row < validRows` (validRows <= rows).
void forEachThreadChunk(
    OpBuilder &b, Location loc, int64_t rows, int64_t cols,
    int64_t chunkElems, Value validRows, Value threadId, int64_t numThreads,
    function_ref<void(OpBuilder &, Location, Value row, Value col)> body);

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
