//===- MmaSyncLowering.h - The sm_80 atom's lowering, for reuse -*- C++ -*-===//
//
// The AtomLowering of #fa.mma_sync (MmaSync.cpp), declared here so that an
// atom whose fragments are the same per warp (#fa.wgmma, Wgmma.cpp) can
// derive from it and replace only the matmuls, the shared layout and the
// copies.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCLOWERING_H
#define FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCLOWERING_H

#include "Atoms/AtomLowering.h"
#include "Atoms/MmaSyncFragments.h"
#include "Atoms/SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

namespace mlir {
namespace fa {
namespace atoms {

constexpr int64_t kTileRows = 16, kTileCols = 8, kStepK = 16;

inline Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Warps and element type of a tile held by warps.
inline WarpRowsAttr warpRows(RankedTensorType t) {
  return cast<WarpRowsAttr>(t.getEncoding());
}

class MmaSyncLowering : public AtomLowering {
public:
  void setUp(OpBuilder &b, Location loc, Value threadId, Value dynamicShared,
             int64_t numWarps, int64_t replicas) override {
    this->threadId = threadId;
    this->dynamicShared = dynamicShared;
    Value lane = arith::RemUIOp::create(b, loc, threadId, cidx(b, loc, 32));
    setWarpGeometry(b, loc, numWarps, replicas);
    fragments.emplace(b, loc, lane);
  }

  void withTileGeometry(OpBuilder &b, Location loc, RankedTensorType tile,
                        function_ref<void()> body) override {
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    if (!rows ||
        (rows.getNumWarps() == numWarps && rows.getReplicas() == replicas))
      return body();
    // The same threads split [rows.numWarps, rows.replicas] ways; the lane
    // geometry (fragments) does not change.
    int64_t savedWarps = numWarps, savedReplicas = replicas;
    Value savedWarp = warp, savedGroup = group;
    setWarpGeometry(b, loc, rows.getNumWarps(), rows.getReplicas());
    body();
    numWarps = savedWarps;
    replicas = savedReplicas;
    warp = savedWarp;
    group = savedGroup;
  }

  int64_t elementsPerAccFragment() const override { return 4; }

  int64_t accRowValue(RankedTensorType acc, int64_t frag,
                      int64_t elem) const override {
    int64_t nTiles = acc.getDimSize(1) / kTileCols;
    return (frag / nTiles) * 2 + elem / 2;
  }
  int64_t accColumn(RankedTensorType acc, int64_t frag,
                    int64_t elem) const override {
    int64_t nTiles = acc.getDimSize(1) / kTileCols;
    return (frag % nTiles) * kTileCols + elem % 2;
  }
  Value threadFirstColumn(OpBuilder &b, Location loc) override {
    return arith::MulIOp::create(b, loc, fragments->threadInGroup(),
                                 cidx(b, loc, 2));
  }
  Value rowOfRowValue(OpBuilder &b, Location loc, int64_t rows,
                      int64_t i) override {
    // The warp's first row, then the row of value i inside its m-tiles.
    return arith::AddIOp::create(
        b, loc, warpRow0(b, loc, rows),
        arith::AddIOp::create(
            b, loc, fragments->groupId(),
            cidx(b, loc, (i / 2) * kTileRows + (i % 2) * 8)));
  }
  std::pair<Value, int64_t> warpRowRange(OpBuilder &b, Location loc,
                                         int64_t rows) override {
    return {warpRow0(b, loc, rows), rows / numWarps};
  }
  Value extractAccElement(OpBuilder &b, Location loc, Value frag,
                          int64_t elem) override {
    return vector::ExtractOp::create(b, loc, frag,
                                     ArrayRef<int64_t>{elem / 2, elem % 2});
  }
  Value buildAccFragment(OpBuilder &b, Location loc, Type fragType,
                         ArrayRef<Value> elems) override {
    return vector::FromElementsOp::create(b, loc, cast<VectorType>(fragType),
                                          elems);
  }

  Value reduceAcrossRowLanes(OpBuilder &b, Location loc, Value v,
                             bool isMax) override {
    return fragments->quadReduce(b, v, isMax);
  }
  int64_t lanesPerRow() const override { return 4; }
  Value laneInRow(OpBuilder &b, Location loc) override {
    return fragments->threadInGroup();
  }
  Value anyInWarp(OpBuilder &b, Location loc, Value pred) override {
    return NVVM::VoteSyncOp::create(
        b, loc, b.getI1Type(),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1), pred,
        NVVM::VoteSyncKindAttr::get(b.getContext(), NVVM::VoteSyncKind::any));
  }

  int64_t numReplicas() const override { return replicas; }
  Value replica(OpBuilder &b, Location loc) override {
    return group ? group : cidx(b, loc, 0);
  }
  SmallVector<Value> reduceAcrossReplicas(OpBuilder &b, Location loc,
                                          ValueRange values,
                                          Value sharedOffset,
                                          bool isMax) override;

  LogicalResult checkMatmulShape(Location loc, int64_t m, int64_t n,
                                 int64_t k) const override {
    // Each ldmatrix.x4 brings two n-tiles (or a 16-wide k step) of B.
    if (m % (kTileRows * numWarps) != 0 || n % 16 != 0 || k % kStepK != 0)
      return mlir::emitError(loc)
             << "fa-lower-to-gpu: #fa.mma_sync multiplies [M, K] x [K, N] "
                "tiles with M a multiple of 16 x "
             << numWarps << " warps and N, K multiples of 16; got M = " << m
             << ", N = " << n << ", K = " << k;
    return success();
  }

  SmallVector<Value> matmulTransposedB(OpBuilder &b, Location loc,
                                       const TileOperand &a,
                                       const TileOperand &bTile,
                                       RankedTensorType accType,
                                       ValueRange acc, bool async) override;
  SmallVector<Value> matmul(OpBuilder &b, Location loc, const TileOperand &a,
                            const TileOperand &bTile, RankedTensorType accType,
                            ValueRange acc, bool async) override;
  FailureOr<SmallVector<Value>> convertLayout(OpBuilder &b, Location loc,
                                              const TileOperand &from,
                                              RankedTensorType to) override;

  int64_t sharedTileBytes(RankedTensorType type) const override {
    auto [stored, swizzled] = storedLayout(type);
    return SharedTile::bytes(stored[0], stored[1],
                             type.getElementType().getIntOrFloatBitWidth() / 8,
                             swizzled);
  }
  /// How a tile type is stored in shared memory: its shape as stored (for a
  /// transposed view, the [cols, rows] tile it is the transpose of) and
  /// whether it is swizzled.
  static std::pair<SmallVector<int64_t>, bool>
  storedLayout(RankedTensorType type) {
    auto shared = dyn_cast_or_null<BlockSharedAttr>(type.getEncoding());
    if (!shared)
      return {SmallVector<int64_t>(type.getShape()), false};
    return {shared.storedShape(type.getShape()), shared.getSwizzled()};
  }
  void copyTileAsync(OpBuilder &b, Location loc, Value source,
                     const TileRows &rows, RankedTensorType tile,
                     Value sharedOffset, int64_t l2PrefetchBytes) override;
  void commitCopies(OpBuilder &b, Location loc) override {
    commitAsyncGroup(b, loc);
  }
  Value sharedPointer(OpBuilder &b, Location loc,
                      Value sharedOffset) override {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dynamicShared);
    Value address = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, sharedOffset));
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
  }
  void waitCopies(OpBuilder &b, Location loc, int64_t pending) override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
    gpu::BarrierOp::create(b, loc);
  }
  void storeAccTile(OpBuilder &b, Location loc, RankedTensorType acc,
                    ValueRange frags, Value dest, const TileRows &rows,
                    Value stagingOffset) override;
  void storeSplatTile(OpBuilder &b, Location loc, RankedTensorType tile,
                      Value value, Value dest, const TileRows &rows) override;
  void storeRows(OpBuilder &b, Location loc, RankedTensorType rowsTy,
                 ValueRange values, Value dest, const TileRows &rows) override;
  void storeAccToShared(OpBuilder &b, Location loc, RankedTensorType acc,
                        ValueRange frags, Value sharedOffset) override;
  void accumulateAccTile(OpBuilder &b, Location loc, RankedTensorType acc,
                         ValueRange frags, Value dest, const TileRows &rows,
                         bool transposed, bool fragmentOrder) override;
  SmallVector<Value> loadAccTile(OpBuilder &b, Location loc, Value source,
                                 const TileRows &rows, RankedTensorType acc,
                                 Value pad, bool fragmentOrder) override;

protected:
  /// Row and column, in a block of rows `cols` wide, of element `e`
  /// (fragment by fragment, pair by pair, element by element) of this
  /// thread's acc fragments in fragment order: position e * T + t of the
  /// block, T the block's threads (fa.accumulate_rows {fragment_order}).
  std::pair<Value, Value> fragmentOrderPosition(OpBuilder &b, Location loc,
                                                int64_t e, int64_t cols) {
    Value at = arith::AddIOp::create(b, loc, threadId,
                                     cidx(b, loc, e * numThreads()));
    return {arith::DivUIOp::create(b, loc, at, cidx(b, loc, cols)),
            arith::RemUIOp::create(b, loc, at, cidx(b, loc, cols))};
  }
  /// Row of element pair h (h = 0, 1: rows g, g + 8) of acc fragment f, and
  /// the column of its first element.
  /// For a tile whose groups hold column shares (`share = columns`), the
  /// columns are the executing group's: column c of its share is tile
  /// column groupFirstColumn + c.
  std::pair<Value, Value> accPairPosition(OpBuilder &b, Location loc,
                                          RankedTensorType acc, int64_t f,
                                          int64_t h) {
    RankedTensorType held = groupShare(acc);
    int64_t nTiles = held.getDimSize(1) / kTileCols;
    Value row =
        rowOfRowValue(b, loc, held.getDimSize(0), accRowValue(held, f, 2 * h));
    Value col = arith::AddIOp::create(b, loc, threadFirstColumn(b, loc),
                                      cidx(b, loc, (f % nTiles) * kTileCols));
    if (Value first = groupFirstColumn(b, loc, acc))
      col = arith::AddIOp::create(b, loc, col, first);
    return {row, col};
  }
  /// Whether the groups of warps hold different columns of `tile`
  /// (`share = columns`) rather than copies of it.
  static bool groupsHoldColumns(RankedTensorType tile) {
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    return rows && rows.getShare() == ReplicaShare::Columns;
  }
  /// The part of `tile` one group holds (its columns, for share = columns).
  static RankedTensorType groupShare(RankedTensorType tile) {
    if (!groupsHoldColumns(tile))
      return tile;
    return RankedTensorType::get(warpRows(tile).groupShape(tile.getShape()),
                                 tile.getElementType(), tile.getEncoding());
  }
  /// The first tile column of the executing group's share of `tile`, or
  /// null when the groups do not divide its columns.
  Value groupFirstColumn(OpBuilder &b, Location loc, RankedTensorType tile) {
    if (!groupsHoldColumns(tile) || !group)
      return Value();
    return arith::MulIOp::create(b, loc, group,
                                 cidx(b, loc, groupShare(tile).getDimSize(1)));
  }
  /// Runs `body` in the groups that store `tile`: every group when each
  /// holds its own columns, else group 0 (they hold copies).
  void inStoringGroups(OpBuilder &b, Location loc, RankedTensorType tile,
                       function_ref<void(OpBuilder &, Location)> body) {
    if (groupsHoldColumns(tile))
      return body(b, loc);
    inFirstReplica(b, loc, body);
  }
  /// `warp` and `group` of the executing thread in a block of `replicas`
  /// groups of `numWarps` warps.
  void setWarpGeometry(OpBuilder &b, Location loc, int64_t numWarps,
                       int64_t replicas) {
    this->numWarps = numWarps;
    this->replicas = replicas;
    warp = arith::DivUIOp::create(b, loc, threadId, cidx(b, loc, 32));
    group = Value();
    if (replicas > 1) {
      // Group g is warps [g * numWarps, (g + 1) * numWarps).
      group = arith::DivUIOp::create(b, loc, warp, cidx(b, loc, numWarps));
      warp = arith::RemUIOp::create(b, loc, warp, cidx(b, loc, numWarps));
    }
  }
  /// First row of this warp in a tile of `rows` rows.
  Value warpRow0(OpBuilder &b, Location loc, int64_t rows) {
    return arith::MulIOp::create(b, loc, warp,
                                 cidx(b, loc, rows / numWarps));
  }
  static Value opaqueZero(OpBuilder &b, Location loc) {
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, b.getI32Type(), ValueRange(), "mov.u32 $0, 0;", "=r",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    return arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                      asmOp.getResult(0));
  }
  /// Runs `body` with the thread geometry (thread id, warp, group, lane
  /// parts) recomputed from a new read of the thread id that LLVM cannot
  /// merge with the kernel entry's, when `tile` is held by column groups:
  /// the backward's dK/dV kernel on a warp grid (8 warps, 255 registers)
  /// then recomputes the positions of its atomics and stores there (a few
  /// integer ops) instead of keeping them live across its loop, where
  /// ptxas spilled them (20-60 bytes). Elsewhere the entry's geometry is
  /// kept: the same change made the forward's d = 128 kernels spill 36
  /// bytes (ptxas -v, 2026-12-06).
  void withFreshGeometry(OpBuilder &b, Location loc, RankedTensorType tile,
                         function_ref<void()> body) {
    if (!groupsHoldColumns(tile))
      return body();
    Value savedThread = threadId, savedWarp = warp, savedGroup = group;
    std::optional<WarpMma> savedFragments = fragments;
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, b.getI32Type(), ValueRange(), "mov.u32 $0, %tid.x;", "=r",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    Value tid = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           asmOp.getResult(0));
    setUp(b, loc, tid, dynamicShared, numWarps, replicas);
    body();
    threadId = savedThread;
    warp = savedWarp;
    group = savedGroup;
    fragments = savedFragments;
  }
  /// `v` (f32) through an inline-asm `mov` with side effects: computed
  /// here, never sunk into a later branch (ptxas drops the mov).
  static Value pinned(OpBuilder &b, Location loc, Value v) {
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, b.getF32Type(), ValueRange{v}, "mov.b32 $0, $1;", "=f,f",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    return asmOp.getResult(0);
  }
  /// The shared tile at `offset` (+ `zero`) of the dynamic shared memory.
  SharedTile sharedTile(OpBuilder &b, Location loc, Value offset, Value zero,
                        int64_t rows, int64_t cols, Type elemTy,
                        bool swizzled = false) {
    if (zero)
      offset = arith::AddIOp::create(b, loc, offset, zero);
    auto tileTy = MemRefType::get(
        {rows, SharedTile::storedCols(cols, swizzled)}, elemTy,
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    Value view = memref::ViewOp::create(b, loc, tileTy, dynamicShared, offset,
                                        ValueRange());
    return SharedTile{view, rows, cols, swizzled};
  }
  /// The shared tile of a tile type at `offset`, as stored (storedLayout).
  SharedTile sharedTile(OpBuilder &b, Location loc, RankedTensorType type,
                        Value offset, Value zero) {
    auto [stored, swizzled] = storedLayout(type);
    return sharedTile(b, loc, offset, zero, stored[0], stored[1],
                      type.getElementType(), swizzled);
  }
  SharedTile sharedTile(OpBuilder &b, Location loc, const TileOperand &t,
                        Value zero) {
    return sharedTile(b, loc, t.type, t.sharedOffset, zero);
  }
  static bool isTransposedView(const TileOperand &t) {
    auto shared = dyn_cast_or_null<BlockSharedAttr>(t.type.getEncoding());
    return shared && shared.getTransposed();
  }
  /// The line of rows `rows` runs along: a strided view of `arg` (4-D:
  /// [rows, cols]; 3-D: [rows]) of `arg[batch, head, :]`, or along the
  /// heads `arg[batch, :, row]`; and the index of the tile's first row in
  /// it.
  static std::pair<Value, Value> rowsView(OpBuilder &b, Location loc,
                                          Value arg, const TileRows &rows);
  /// `view` (2-D, strided) with `zero` added to its row stride.
  static Value withOpaqueStride(OpBuilder &b, Location loc, Value view,
                                Value zero);

  /// Threads of the block: every group's.
  int64_t numThreads() const { return 32 * numWarps * replicas; }
  /// True in group 0; null when there is one group.
  Value firstReplicaFlag(OpBuilder &b, Location loc) {
    if (!group)
      return Value();
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group,
                                 cidx(b, loc, 0));
  }
  /// Runs `body` in group 0 only (all threads when there is one group).
  void inFirstReplica(OpBuilder &b, Location loc,
                      function_ref<void(OpBuilder &, Location)> body) {
    Value first = firstReplicaFlag(b, loc);
    if (!first)
      return body(b, loc);
    scf::IfOp::create(b, loc, first, [&](OpBuilder &nb, Location l) {
      body(nb, l);
      scf::YieldOp::create(nb, l);
    });
  }

  /// Warps of one group and groups of the thread block (the kernel's, or
  /// inside withTileGeometry the tile's); `warp` is the warp in its group,
  /// `group` null for one group.
  int64_t numWarps = 0, replicas = 1;
  Value threadId, dynamicShared, warp, group;
  std::optional<WarpMma> fragments;
};

} // namespace atoms
} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_ATOMS_MMASYNCLOWERING_H
