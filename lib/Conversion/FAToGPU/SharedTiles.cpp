//===- SharedTiles.cpp - Tiles in shared memory, filled by cp.async -------===//

#include "SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fa;

static Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

bool mlir::fa::isSwizzlable(int64_t cols) {
  return cols % kChunkElems == 0 && llvm::isPowerOf2_64(cols / kChunkElems);
}

Value SharedTile::swizzledColumn(OpBuilder &b, Location loc, Value row,
                                 Value chunk) const {
  // A 128-byte line holds 8 chunks. With >= 8 chunks per row, XOR the chunk
  // with row % 8. With fewer, 8 / chunksPerRow rows share a line and the
  // phase advances once per line.
  int64_t perRow = chunksPerRow();
  int64_t rowsPerLine = perRow >= 8 ? 1 : 8 / perRow;
  int64_t phases = std::min<int64_t>(perRow, 8);
  Value line = rowsPerLine == 1
                   ? row
                   : arith::ShRUIOp::create(
                         b, loc, row, cidx(b, loc, llvm::Log2_64(rowsPerLine)));
  Value phase = arith::AndIOp::create(b, loc, line, cidx(b, loc, phases - 1));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, phase);
  return arith::MulIOp::create(b, loc, swizzled, cidx(b, loc, kChunkElems));
}

SmallVector<Value> mlir::fa::copyTileAsync(OpBuilder &b, Location loc,
                                           Value src, Value rowStart,
                                           Value validRows,
                                           const SharedTile &tile,
                                           Value threadId,
                                           int64_t numThreads) {
  int64_t perRow = tile.chunksPerRow();
  int64_t totalChunks = tile.rows * perRow;
  Value chunkElems = cidx(b, loc, kChunkElems);
  Value zero = cidx(b, loc, 0);
  SmallVector<Value> tokens;
  for (int64_t first = 0; first < totalChunks; first += numThreads) {
    // Chunk `first + tid`: row (first + tid) / perRow, chunk (.. % perRow).
    Value linear = arith::AddIOp::create(b, loc, threadId,
                                         cidx(b, loc, first));
    auto emitCopy = [&](OpBuilder &nb, Location l) -> Value {
      Value row = arith::DivUIOp::create(nb, l, linear, cidx(nb, l, perRow));
      Value chunk = arith::RemUIOp::create(nb, l, linear, cidx(nb, l, perRow));
      Value valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                          row, validRows);
      // Rows past the end read nothing (src-size 0) and are zero-filled; their
      // address stays at rowStart, which is in bounds.
      Value srcRow = arith::SelectOp::create(
          nb, l, valid, arith::AddIOp::create(nb, l, rowStart, row), rowStart);
      Value srcElems = arith::SelectOp::create(nb, l, valid, chunkElems, zero);
      Value srcCol = arith::MulIOp::create(nb, l, chunk, chunkElems);
      Value dstCol = tile.swizzledColumn(nb, l, row, chunk);
      return nvgpu::DeviceAsyncCopyOp::create(
                 nb, l, nvgpu::DeviceAsyncTokenType::get(nb.getContext()),
                 tile.buffer, ValueRange{row, dstCol}, src,
                 ValueRange{srcRow, srcCol}, nb.getIndexAttr(kChunkElems),
                 srcElems, nb.getUnitAttr())
          .getResult();
    };
    if (first + numThreads <= totalChunks) {
      tokens.push_back(emitCopy(b, loc));
    } else {
      // A tile that does not split evenly: the last round is guarded.
      Value inTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           linear, cidx(b, loc, totalChunks));
      scf::IfOp::create(b, loc, inTile, [&](OpBuilder &nb, Location l) {
        emitCopy(nb, l);
        scf::YieldOp::create(nb, l);
      });
    }
  }
  return tokens;
}

void mlir::fa::commitAsyncGroup(OpBuilder &b, Location loc,
                                ValueRange tokens) {
  nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}
