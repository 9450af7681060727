//===- SharedTiles.h - Tiles in shared memory, filled by cp.async -*- C++ -*-===//
//
// A tile of 16-bit elements in shared memory is stored row by row in 16-byte
// chunks (8 elements). The chunk's position inside its row is XOR-swizzled
// with the row index, so that the 8 row addresses one ldmatrix (or 8 lanes of
// a cp.async) touch fall into 8 different groups of 4 banks: no bank
// conflicts, with no padding.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_SHAREDTILES_H
#define FA_LIB_CONVERSION_FATOGPU_SHAREDTILES_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace fa {

/// Elements per 16-byte chunk (f16/bf16).
constexpr int64_t kChunkElems = 8;

struct SharedTile {
  Value buffer; // memref<rows x cols x T, #gpu.address_space<workgroup>>
  int64_t rows, cols;

  int64_t chunksPerRow() const { return cols / kChunkElems; }

  /// Element column at which logical 16-byte chunk `chunk` of `row` is stored.
  Value swizzledColumn(OpBuilder &b, Location loc, Value row,
                       Value chunk) const;
};

/// True if `cols` elements per row can be swizzled (a power-of-two number of
/// chunks).
bool isSwizzlable(int64_t cols);

/// All `numThreads` threads of the block copy rows
/// [rowStart, rowStart + validRows) of `src` (a 2-D [N, cols] memref in
/// global memory) into `tile`, 16 bytes per cp.async; tile rows at or past
/// `validRows` are zero-filled. Returns the async tokens (not yet committed).
SmallVector<Value> copyTileAsync(OpBuilder &b, Location loc, Value src,
                                 Value rowStart, Value validRows,
                                 const SharedTile &tile, Value threadId,
                                 int64_t numThreads);

/// Commits `tokens` as one cp.async group.
void commitAsyncGroup(OpBuilder &b, Location loc, ValueRange tokens);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_SHAREDTILES_H
