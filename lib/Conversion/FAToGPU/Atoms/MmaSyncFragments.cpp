//===- MmaSyncFragments.cpp - mma.sync.m16n8k16 fragments of a warp ------===//

#include "Atoms/MmaSyncFragments.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fa;

static Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

WarpMma::WarpMma(OpBuilder &b, Location loc, Value lane) : loc(loc) {
  auto div = [&](int64_t d) {
    return arith::DivUIOp::create(b, loc, lane, cidx(b, loc, d)).getResult();
  };
  auto rem = [&](Value v, int64_t d) {
    return arith::RemUIOp::create(b, loc, v, cidx(b, loc, d)).getResult();
  };
  g = div(4);
  t = rem(lane, 4);
  laneMod16 = rem(lane, 16);
  laneDiv16 = div(16);
  laneMod8 = rem(lane, 8);
  laneDiv8Mod2 = rem(div(8), 2);
}

static Value times(OpBuilder &b, Location loc, Value v, int64_t c) {
  return arith::MulIOp::create(b, loc, v, cidx(b, loc, c));
}

LaneView WarpMma::laneView(OpBuilder &b, const SharedTile &tile, Value row,
                           Value ownChunk, Value evenCols,
                           int64_t maxExtraCols) {
  auto tileTy = cast<MemRefType>(tile.buffer.getType());
  int64_t rows = tileTy.getDimSize(0), cols = tileTy.getDimSize(1);
  auto view = [&](Value col, int64_t width) {
    // Lanes start at most 15 rows in.
    SmallVector<int64_t> sizes = {rows - 15, width};
    auto viewTy = MemRefType::get(
        sizes, tileTy.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                               {cols, 1}),
        tileTy.getMemorySpace());
    return memref::SubViewOp::create(
               b, loc, viewTy, tile.buffer, ArrayRef<OpFoldResult>{row, col},
               ArrayRef<OpFoldResult>{b.getIndexAttr(sizes[0]),
                                      b.getIndexAttr(sizes[1])},
               ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)})
        .getResult();
  };
  if (!tile.swizzled) {
    // Lanes start at most 8 (+ maxExtraCols) columns in.
    Value col = times(b, loc, ownChunk, kChunkElems);
    if (evenCols)
      col = arith::AddIOp::create(b, loc, evenCols, col);
    return LaneView{view(col, cols - 8 - maxExtraCols)};
  }
  LaneView lanes{view(cidx(b, loc, 0), cols)};
  lanes.swizzleHigh = arith::AndIOp::create(b, loc, laneMod8, cidx(b, loc, 6));
  lanes.ownLow = arith::XOrIOp::create(
      b, loc, ownChunk, arith::AndIOp::create(b, loc, laneMod8, cidx(b, loc, 1)));
  if (evenCols)
    lanes.evenChunks =
        arith::DivUIOp::create(b, loc, evenCols, cidx(b, loc, kChunkElems));
  return lanes;
}

Value LaneView::column(OpBuilder &b, Location loc, int64_t chunk) const {
  if (!swizzleHigh)
    return cidx(b, loc, chunk * kChunkElems);
  assert(chunk % 2 == 0 && "lane views are read at even chunks");
  auto physical = [&](Value even) {
    return arith::AddIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, even, swizzleHigh), ownLow);
  };
  if (evenChunks)
    return times(b, loc,
                 physical(arith::AddIOp::create(b, loc, evenChunks,
                                                cidx(b, loc, chunk))),
                 kChunkElems);
  // (chunk & ~7) is untouched by the XOR: a constant the address folds.
  int64_t segment = chunk & ~int64_t(kSwizzleRows - 1);
  return arith::AddIOp::create(
      b, loc,
      times(b, loc, physical(cidx(b, loc, chunk - segment)), kChunkElems),
      cidx(b, loc, segment * kChunkElems));
}

LaneView WarpMma::laneViewA(OpBuilder &b, const SharedTile &tile) {
  // Lanes 0-15 address rows 0-15 at chunk 0, lanes 16-31 rows 0-15 at chunk
  // 1: matrices (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15)
  // are a0..a3 of the A fragment.
  return laneView(b, tile, laneMod16, laneDiv16);
}

LaneView WarpMma::laneViewBOfTransposed(OpBuilder &b, const SharedTile &tile) {
  // Matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7),
  // (n 8-15, k 8-15); lane l addresses row (l / 16) * 8 + l % 8 at chunk
  // (l / 8) % 2. Without transposition an 8x8 [n][k] matrix gives lane
  // (g, t) the elements (k = 2t, 2t+1; n = g): a B fragment register.
  Value row = arith::AddIOp::create(b, loc, times(b, loc, laneDiv16, 8),
                                    laneMod8);
  return laneView(b, tile, row, laneDiv8Mod2);
}

LaneView WarpMma::laneViewB(OpBuilder &b, const SharedTile &tile,
                            Value nOffset, int64_t maxNOffset) {
  // Matrices: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
  // (k 8-15, n 8-15); lane l addresses row ((l / 8) % 2) * 8 + l % 8 at chunk
  // l / 16. Transposing an 8x8 [k][n] matrix gives lane (g, t) the elements
  // (k = 2t, 2t+1; n = g).
  Value row = arith::AddIOp::create(b, loc, times(b, loc, laneDiv8Mod2, 8),
                                    laneMod8);
  return laneView(b, tile, row, laneDiv16, nOffset, maxNOffset);
}

LaneView WarpMma::laneViewAOfTransposed(OpBuilder &b, const SharedTile &tile,
                                        Value mOffset, int64_t maxMOffset) {
  // Matrices (k 0-7, m 0-7), (k 0-7, m 8-15), (k 8-15, m 0-7),
  // (k 8-15, m 8-15) of the [k][m] tile: transposed, each gives lane (g, t)
  // the elements (m = g; k = 2t, 2t+1), registers a0..a3 of the A fragment.
  // Lane l addresses them as for laneViewBOfTransposed.
  Value row = arith::AddIOp::create(b, loc, times(b, loc, laneDiv16, 8),
                                    laneMod8);
  return laneView(b, tile, row, laneDiv8Mod2, mOffset, maxMOffset);
}

/// ldmatrix.x4 at row `row` and the lane's chunk + `chunk` of a lane view.
static Value ldmatrix(OpBuilder &b, Location loc, LaneView tile, Value row,
                      int64_t chunk, VectorType type, bool transpose) {
  return nvgpu::LdMatrixOp::create(b, loc, type, tile.view,
                                   ValueRange{row, tile.column(b, loc, chunk)},
                                   transpose, /*numTiles=*/4);
}

/// Rows [first, first + 1] of a vector<4x2xT> as a vector<2x2xT>.
static Value rowPair(OpBuilder &b, Location loc, Value v, int64_t first) {
  return vector::ShuffleOp::create(b, loc, v, v,
                                   ArrayRef<int64_t>{first, first + 1});
}

/// What one ldmatrix.x4 gives a lane: four 32-bit registers of 16-bit pairs.
static VectorType ldmatrixType(Type elemTy) {
  return VectorType::get({4, 2}, elemTy);
}

Value WarpMma::loadA(OpBuilder &b, LaneView tile, Value row0,
                     int64_t kChunk0, Type elemTy) {
  return ldmatrix(b, loc, tile, row0, kChunk0, ldmatrixType(elemTy),
                  /*transpose=*/false);
}

Value WarpMma::loadAOfTransposed(OpBuilder &b, LaneView tile, int64_t m0,
                                int64_t k0, Type elemTy) {
  return ldmatrix(b, loc, tile, cidx(b, loc, k0), m0 / kChunkElems,
                  ldmatrixType(elemTy), /*transpose=*/true);
}

std::pair<Value, Value> WarpMma::loadBOfTransposed(OpBuilder &b,
                                                   LaneView tile, int64_t n0,
                                                   int64_t kChunk0,
                                                   Type elemTy) {
  Value frags = ldmatrix(b, loc, tile, cidx(b, loc, n0), kChunk0,
                         ldmatrixType(elemTy), /*transpose=*/false);
  return {rowPair(b, loc, frags, 0), rowPair(b, loc, frags, 2)};
}

std::pair<Value, Value> WarpMma::loadB(OpBuilder &b, LaneView tile,
                                       int64_t k0, int64_t nChunk0,
                                       Type elemTy) {
  Value frags = ldmatrix(b, loc, tile, cidx(b, loc, k0), nChunk0,
                         ldmatrixType(elemTy), /*transpose=*/true);
  return {rowPair(b, loc, frags, 0), rowPair(b, loc, frags, 2)};
}

Value WarpMma::mma(OpBuilder &b, Value a, Value bFrag, Value c) {
  Type elemTy = cast<VectorType>(a.getType()).getElementType();
  VectorType accTy = cast<VectorType>(c.getType());
  if (elemTy.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c,
                                    ArrayRef<int64_t>{16, 8, 16});

  // nvgpu.mma.sync has no bf16 form: use nvvm.mma.sync on packed registers.
  Type i32 = b.getI32Type();
  auto packed = [&](Value v, int64_t rows) {
    auto asI32 = vector::BitCastOp::create(
        b, loc, VectorType::get({rows, 1}, i32), v);
    SmallVector<Value> regs;
    for (int64_t r = 0; r < rows; ++r)
      regs.push_back(vector::ExtractOp::create(b, loc, asI32,
                                               ArrayRef<int64_t>{r, 0}));
    return regs;
  };
  SmallVector<Value> accRegs;
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t e = 0; e < 2; ++e)
      accRegs.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{h, e}));
  Type f32 = b.getF32Type();
  auto structTy =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  auto mma = NVVM::MmaOp::create(
      b, loc, structTy, packed(a, 4), packed(bFrag, 2), accRegs,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, mma, i));
  return vector::FromElementsOp::create(b, loc, accTy, out);
}

Value WarpMma::quadReduce(OpBuilder &b, Value v, bool isMax) {
  for (int32_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(b, loc, v, offset, /*width=*/32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = isMax ? semantics::maxOf(b, loc, v, other)
              : arith::AddFOp::create(b, loc, v, other).getResult();
  }
  return v;
}
