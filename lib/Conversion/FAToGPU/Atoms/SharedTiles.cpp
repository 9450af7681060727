//===- SharedTiles.cpp - Tiles in shared memory, filled by cp.async -------===//

#include "Atoms/SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fa;

static Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The 2-D memref `base` seen from element (row, col) on: one 16-byte chunk
/// wide, all remaining rows.
static Value threadView(OpBuilder &b, Location loc, Value base, Value row,
                        Value col) {
  auto baseTy = cast<MemRefType>(base.getType());
  int64_t dyn = ShapedType::kDynamic;
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)baseTy.getStridesAndOffset(strides, offset);
  auto viewTy = MemRefType::get(
      {dyn, kChunkElems}, baseTy.getElementType(),
      StridedLayoutAttr::get(b.getContext(), dyn, strides),
      baseTy.getMemorySpace());
  Value rows = arith::SubIOp::create(
      b, loc, memref::DimOp::create(b, loc, base, 0), row);
  return memref::SubViewOp::create(
      b, loc, viewTy, base, ArrayRef<OpFoldResult>{row, col},
      ArrayRef<OpFoldResult>{rows, b.getIndexAttr(kChunkElems)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

Value mlir::fa::swizzledColumn(OpBuilder &b, Location loc, Value col,
                               Value row) {
  // col ^ ((row % 8) * 8): the chunk index's low 3 bits XOR the row's.
  Value rowBits = arith::AndIOp::create(b, loc, row, cidx(b, loc, kSwizzleRows - 1));
  return arith::XOrIOp::create(
      b, loc, col, arith::MulIOp::create(b, loc, rowBits, cidx(b, loc, kChunkElems)));
}

void mlir::fa::setL2Prefetch(Operation *copy, int64_t bytes) {
  if (bytes != 0)
    copy->setAttr(kL2PrefetchAttrName,
                  IntegerAttr::get(IntegerType::get(copy->getContext(), 64),
                                   bytes));
}

SmallVector<Value> mlir::fa::copyTileAsync(OpBuilder &b, Location loc,
                                           Value src, Value rowStart,
                                           Value validRows,
                                           const SharedTile &tile,
                                           Value threadId, int64_t numThreads,
                                           int64_t l2PrefetchBytes) {
  int64_t perRow = tile.chunksPerRow();
  Value chunkElems = cidx(b, loc, kChunkElems);
  Value zero = cidx(b, loc, 0);
  auto emitCopy = [&](OpBuilder &nb, Location l, Value row, Value col) {
    // Rows past the end read nothing (src-size 0) and are zero-filled.
    Value valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, row,
                                        validRows);
    Value srcElems = arith::SelectOp::create(nb, l, valid, chunkElems, zero);
    Value srcRow = arith::AddIOp::create(nb, l, rowStart, row);
    Value dstCol = tile.swizzled ? swizzledColumn(nb, l, col, row) : col;
    auto copy = nvgpu::DeviceAsyncCopyOp::create(
        nb, l, nvgpu::DeviceAsyncTokenType::get(nb.getContext()), tile.buffer,
        ValueRange{row, dstCol}, src, ValueRange{srcRow, col},
        nb.getIndexAttr(kChunkElems), srcElems, nb.getUnitAttr());
    setL2Prefetch(copy, l2PrefetchBytes);
    return copy.getResult();
  };
  SmallVector<Value> tokens;
  int64_t totalChunks = tile.rows * perRow;
  // Swizzled tiles: rows 8 apart share their swizzle, so a thread whose rows
  // are a multiple of 8 apart writes one shared column throughout.
  if (numThreads % perRow == 0 &&
      (!tile.swizzled || (numThreads / perRow) % kSwizzleRows == 0)) {
    // Thread `tid` copies chunk tid % perRow of rows tid / perRow + i * step:
    // the same column every time, rows a constant stride apart. Both sides
    // are addressed through views that start at the thread's first chunk, so
    // the i-th copy is at a constant offset in shared memory and at
    // i * step rows in global memory; its bounds check compares a constant
    // with the rows left for this thread.
    int64_t step = numThreads / perRow;
    Value firstRow =
        arith::DivUIOp::create(b, loc, threadId, cidx(b, loc, perRow));
    Value chunk =
        arith::RemUIOp::create(b, loc, threadId, cidx(b, loc, perRow));
    Value col = arith::MulIOp::create(b, loc, chunk, chunkElems);
    Value rowsLeft = arith::SubIOp::create(b, loc, validRows, firstRow);
    Value firstSrcRow = arith::AddIOp::create(b, loc, rowStart, firstRow);
    Value dstView = threadView(
        b, loc, tile.buffer, firstRow,
        tile.swizzled ? swizzledColumn(b, loc, col, firstRow) : col);
    Value srcView = threadView(b, loc, src, firstSrcRow, col);
    for (int64_t i = 0; i * step < tile.rows; ++i) {
      auto copy = [&](OpBuilder &nb, Location l) {
        Value offset = cidx(nb, l, i * step);
        Value valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            offset, rowsLeft);
        Value srcElems =
            arith::SelectOp::create(nb, l, valid, chunkElems, zero);
        Value zeroCol = cidx(nb, l, 0);
        auto copyOp = nvgpu::DeviceAsyncCopyOp::create(
            nb, l, nvgpu::DeviceAsyncTokenType::get(nb.getContext()), dstView,
            ValueRange{offset, zeroCol}, srcView, ValueRange{offset, zeroCol},
            nb.getIndexAttr(kChunkElems), srcElems, nb.getUnitAttr());
        setL2Prefetch(copyOp, l2PrefetchBytes);
        return copyOp.getResult();
      };
      if ((i + 1) * step <= tile.rows) {
        tokens.push_back(copy(b, loc));
        continue;
      }
      // Rows that do not split evenly: the last round is guarded.
      Value row =
          arith::AddIOp::create(b, loc, firstRow, cidx(b, loc, i * step));
      Value inTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, cidx(b, loc, tile.rows));
      scf::IfOp::create(b, loc, inTile, [&](OpBuilder &nb, Location l) {
        copy(nb, l);
        scf::YieldOp::create(nb, l);
      });
    }
    return tokens;
  }
  // Rows whose chunks do not divide the threads: chunk tid + i * numThreads
  // in row-major order.
  for (int64_t first = 0; first < totalChunks; first += numThreads) {
    Value linear =
        arith::AddIOp::create(b, loc, threadId, cidx(b, loc, first));
    Value row = arith::DivUIOp::create(b, loc, linear, cidx(b, loc, perRow));
    Value col = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, linear, cidx(b, loc, perRow)),
        chunkElems);
    if (first + numThreads <= totalChunks) {
      tokens.push_back(emitCopy(b, loc, row, col));
      continue;
    }
    Value inTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, cidx(b, loc, totalChunks));
    scf::IfOp::create(b, loc, inTile, [&](OpBuilder &nb, Location l) {
      emitCopy(nb, l, row, col);
      scf::YieldOp::create(nb, l);
    });
  }
  return tokens;
}

void mlir::fa::forEachThreadChunk(
    OpBuilder &b, Location loc, int64_t rows, int64_t cols,
    int64_t chunkElems, Value validRows, Value threadId, int64_t numThreads,
    function_ref<void(OpBuilder &, Location, Value, Value)> body) {
  int64_t perRow = cols / chunkElems;
  for (int64_t first = 0; first < rows * perRow; first += numThreads) {
    Value linear =
        arith::AddIOp::create(b, loc, threadId, cidx(b, loc, first));
    Value row = arith::DivUIOp::create(b, loc, linear, cidx(b, loc, perRow));
    Value col = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, linear, cidx(b, loc, perRow)),
        cidx(b, loc, chunkElems));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        row, validRows);
    scf::IfOp::create(b, loc, valid, [&](OpBuilder &nb, Location l) {
      body(nb, l, row, col);
      scf::YieldOp::create(nb, l);
    });
  }
}

void mlir::fa::storeTileRows(OpBuilder &b, Location loc,
                             const SharedTile &tile, Value dst, Value rowStart,
                             Value validRows, Value threadId,
                             int64_t numThreads) {
  auto chunkTy = VectorType::get(
      {kChunkElems}, cast<MemRefType>(tile.buffer.getType()).getElementType());
  forEachThreadChunk(
      b, loc, tile.rows, tile.cols, kChunkElems, validRows, threadId,
      numThreads, [&](OpBuilder &nb, Location l, Value row, Value col) {
        // 16-byte aligned on both sides: padded shared rows are multiples
        // of 16 bytes, and global rows too (the launch record requires it).
        Value sharedCol =
            tile.swizzled ? swizzledColumn(nb, l, col, row) : col;
        Value chunk = vector::LoadOp::create(nb, l, chunkTy, tile.buffer,
                                             ValueRange{row, sharedCol},
                                             /*nontemporal=*/false,
                                             llvm::MaybeAlign(16));
        Value dstRow = arith::AddIOp::create(nb, l, rowStart, row);
        vector::StoreOp::create(nb, l, chunk, dst, ValueRange{dstRow, col},
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
      });
}

void mlir::fa::commitAsyncGroup(OpBuilder &b, Location loc) {
  // The NVVM op rather than nvgpu.device_async_create_group: a group may be
  // committed with its copies issued under an scf.if (or none at all), where
  // there are no tokens to pass.
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}
