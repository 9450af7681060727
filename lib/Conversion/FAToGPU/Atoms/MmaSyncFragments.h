//===- MmaSyncFragments.h - mma.sync.m16n8k16 fragments of a warp -*- C++ -*-===//
//
// Register fragments of `mma.sync.m16n8k16` (PTX ISA, "Matrix Fragments for
// mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
//
//   C/D (16x8 f32, vector<2x2xf32>): [h][e] is row g + 8h, column 2t + e.
//   A (16x16, vector<4x2xT>): rows g / g+8 of k 2t..2t+1, then of k 8+2t...
//   B (16x8, vector<2x2xT>): k rows 2t..2t+1 and 8+2t..9+2t of column g.
//
// So one row of a C tile lives in the 4 lanes of a quad, and two neighbouring
// C tiles of S, rounded to 16 bits, are exactly one A fragment of P for P V.
// Operands come from padded shared-memory tiles through ldmatrix.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCFRAGMENTS_H
#define FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCFRAGMENTS_H

#include "Atoms/SharedTiles.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace fa {

/// A shared tile as seen from this lane's ldmatrix row address: a view that
/// starts at the lane's (row, column) offset for one operand kind, so that
/// every ldmatrix indexes it with constants (and warp-uniform rows) and its
/// address is the view's base plus an immediate.
///
/// A swizzled tile (SharedTile::swizzled) cannot fold the column into the
/// view: the view starts at the lane's row, column 0, and the column of
/// chunk c is computed per load. Every lane row is lane % 8 modulo 8 (the
/// rows added by the loads are multiples of 8), and every chunk asked for is
/// the lane's own chunk, 0 or 1, plus an even number E (constant, plus a
/// warp-uniform offset for views of transposed tiles), so chunk
/// (E + own) ^ (lane % 8) is (E ^ swizzleHigh) + ownLow: with E constant,
/// one register per value of E % 8.
struct LaneView {
  Value view;
  /// Swizzled tiles only (else null): lane % 8 with bit 0 cleared.
  Value swizzleHigh;
  /// Swizzled tiles only: the lane's own chunk (0 or 1) ^ (lane % 2).
  Value ownLow;
  /// Swizzled tiles only, may be null: a warp-uniform even number of chunks
  /// added to every column.
  Value evenChunks;

  /// The column (in elements) of the lane's chunk + `chunk` (even).
  Value column(OpBuilder &b, Location loc, int64_t chunk) const;
};

class WarpMma {
public:
  /// `lane` is the lane id (index).
  WarpMma(OpBuilder &b, Location loc, Value lane);

  /// Lane views of a row-major tile for A operands, of a [n][k] tile for
  /// B = tile^T operands, and of a [k][n] tile for B operands.
  LaneView laneViewA(OpBuilder &b, const SharedTile &tile);
  LaneView laneViewBOfTransposed(OpBuilder &b, const SharedTile &tile);
  /// `nOffset` (may be null): the B operand's n columns start that many
  /// columns in (warp-uniform, a multiple of 16, at most `maxNOffset`).
  LaneView laneViewB(OpBuilder &b, const SharedTile &tile,
                     Value nOffset = Value(), int64_t maxNOffset = 0);
  /// Lane view of a tile stored [k][m] for A = tile^T operands, whose m
  /// rows start `mOffset` (warp-uniform, at most `maxMOffset`) columns in.
  LaneView laneViewAOfTransposed(OpBuilder &b, const SharedTile &tile,
                                 Value mOffset, int64_t maxMOffset);

  /// The A operand for rows [row0, row0 + 16), k columns of 16-byte chunks
  /// [kChunk0, kChunk0 + 1], of a row-major tile (ldmatrix.x4).
  Value loadA(OpBuilder &b, LaneView tile, Value row0, int64_t kChunk0,
              Type elemTy);

  /// The A operand for rows [m0, m0 + 16) (from the view's m offset), k
  /// rows [k0, k0 + 16), of A = tile^T where `tile` is stored [k][m] (K^T
  /// for the atomic dQ's dQ^T = K^T dS^T; ldmatrix.x4.trans).
  Value loadAOfTransposed(OpBuilder &b, LaneView tile, int64_t m0, int64_t k0,
                          Type elemTy);

  /// The B operands of two n-tiles, n in [n0, n0 + 8) and [n0 + 8, n0 + 16),
  /// for k chunks [kChunk0, kChunk0 + 1], of B = tile^T, where `tile` is
  /// stored [n][k] (the K tile for S = Q K^T; ldmatrix.x4).
  std::pair<Value, Value> loadBOfTransposed(OpBuilder &b, LaneView tile,
                                            int64_t n0, int64_t kChunk0,
                                            Type elemTy);

  /// The B operands of two n-tiles, n chunks nChunk0 and nChunk0 + 1, for k
  /// rows [k0, k0 + 16) of a tile stored [k][n] (the V tile for P V;
  /// ldmatrix.x4.trans).
  std::pair<Value, Value> loadB(OpBuilder &b, LaneView tile, int64_t k0,
                                int64_t nChunk0, Type elemTy);

  /// D = A * B + C (f32 accumulate); A and B of f16 or bf16.
  Value mma(OpBuilder &b, Value a, Value bFrag, Value c);

  /// Max (or sum) of `v` over the 4 lanes of a quad: shuffles xor 1 and 2.
  Value quadReduce(OpBuilder &b, Value v, bool isMax);
  /// Row and column of element [h][e] of a C tile within the 16x8 tile.
  Value groupId() const { return g; }
  Value threadInGroup() const { return t; }

private:
  /// The lane view at `row` and the lane's chunk `ownChunk` (0 or 1), plus
  /// `evenCols` columns (warp-uniform, a multiple of 16, at most
  /// `maxExtraCols`; may be null).
  LaneView laneView(OpBuilder &b, const SharedTile &tile, Value row,
                    Value ownChunk, Value evenCols = Value(),
                    int64_t maxExtraCols = 0);

  Location loc;
  // Lane-dependent parts of the ldmatrix row addresses, computed once.
  Value g, t, laneMod16, laneDiv16, laneMod8, laneDiv8Mod2;
};

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCFRAGMENTS_H
