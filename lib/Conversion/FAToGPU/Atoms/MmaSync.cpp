//===- MmaSync.cpp - The sm_80 atom: mma.sync, ldmatrix, cp.async ---------===//
//
// AtomLowering of #fa.mma_sync. Fragments (MmaSyncFragments.h), with
// g = lane / 4 and t = lane % 4 and warp w owning rows [w * M / W, ...):
//
//   acc [M, N]      fragment mt * (N / 8) + nt: vector<2x2xT>, element
//                   [h][e] at row 16 mt + g + 8 h, column 8 nt + 2 t + e
//   operand_a [M,K] fragment mt * (K / 16) + kk: vector<4x2xT> (ldmatrix.x4)
//   rows [M]        value 2 mt + h: row 16 mt + g + 8 h
//
// Shared tiles have their rows padded by 16 bytes (SharedTiles.h).
//
// Addresses. Every shared-memory view this file builds inside a loop starts
// from an "opaque zero" (an inline-asm `mov 0` that LLVM cannot see
// through). Without it LLVM hoists each of the dozens of ldmatrix and
// cp.async addresses of the loop body out of the loop into its own 64-bit
// register and the accumulators spill; with it each address is one base
// register plus an immediate, and ptxas, which does see the zero, folds it.
//
//===----------------------------------------------------------------------===//

#include "Atoms/AtomLowering.h"
#include "Atoms/MmaSyncFragments.h"
#include "Atoms/SharedTiles.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr int64_t kTileRows = 16, kTileCols = 8, kStepK = 16;

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Warps and element type of a tile held by warps.
WarpRowsAttr warpRows(RankedTensorType t) {
  return cast<WarpRowsAttr>(t.getEncoding());
}

class MmaSyncLowering : public AtomLowering {
public:
  void setUp(OpBuilder &b, Location loc, Value threadId, Value dynamicShared,
             int64_t numWarps, int64_t replicas) override {
    this->numWarps = numWarps;
    this->replicas = replicas;
    this->threadId = threadId;
    this->dynamicShared = dynamicShared;
    Value lane = arith::RemUIOp::create(b, loc, threadId, cidx(b, loc, 32));
    warp = arith::DivUIOp::create(b, loc, threadId, cidx(b, loc, 32));
    if (replicas > 1) {
      // Group g is warps [g * numWarps, (g + 1) * numWarps).
      group = arith::DivUIOp::create(b, loc, warp, cidx(b, loc, numWarps));
      warp = arith::RemUIOp::create(b, loc, warp, cidx(b, loc, numWarps));
    }
    fragments.emplace(b, loc, lane);
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
                                       ValueRange acc) override;
  SmallVector<Value> matmul(OpBuilder &b, Location loc, const TileOperand &a,
                            const TileOperand &bTile, RankedTensorType accType,
                            ValueRange acc) override;
  FailureOr<SmallVector<Value>> convertLayout(OpBuilder &b, Location loc,
                                              const TileOperand &from,
                                              RankedTensorType to) override;

  int64_t sharedTileBytes(RankedTensorType type) const override {
    SmallVector<int64_t> stored(type.getShape());
    if (auto shared = dyn_cast_or_null<BlockSharedAttr>(type.getEncoding()))
      stored = shared.storedShape(type.getShape());
    return SharedTile::bytes(stored[0], stored[1],
                             type.getElementType().getIntOrFloatBitWidth() /
                                 8);
  }
  void copyTileAsync(OpBuilder &b, Location loc, Value source,
                     const TileRows &rows, RankedTensorType tile,
                     Value sharedOffset) override;
  void commitCopies(OpBuilder &b, Location loc) override {
    commitAsyncGroup(b, loc);
  }
  void waitCopies(OpBuilder &b, Location loc, int64_t pending) override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
    gpu::BarrierOp::create(b, loc);
  }
  void storeAccTile(OpBuilder &b, Location loc, RankedTensorType acc,
                    ValueRange frags, Value dest, const TileRows &rows,
                    Value stagingOffset) override;
  void storeRows(OpBuilder &b, Location loc, RankedTensorType rowsTy,
                 ValueRange values, Value dest, const TileRows &rows) override;
  void storeAccToShared(OpBuilder &b, Location loc, RankedTensorType acc,
                        ValueRange frags, Value sharedOffset) override;
  void accumulateAccTile(OpBuilder &b, Location loc, RankedTensorType acc,
                         ValueRange frags, Value dest, const TileRows &rows,
                         bool transposed) override;
  SmallVector<Value> loadAccTile(OpBuilder &b, Location loc, Value source,
                                 const TileRows &rows, RankedTensorType acc,
                                 Value pad) override;

private:
  /// Row of element pair h (h = 0, 1: rows g, g + 8) of acc fragment f, and
  /// the column of its first element.
  std::pair<Value, Value> accPairPosition(OpBuilder &b, Location loc,
                                          RankedTensorType acc, int64_t f,
                                          int64_t h) {
    int64_t nTiles = acc.getDimSize(1) / kTileCols;
    Value row =
        rowOfRowValue(b, loc, acc.getDimSize(0), accRowValue(acc, f, 2 * h));
    Value col = arith::AddIOp::create(b, loc, threadFirstColumn(b, loc),
                                      cidx(b, loc, (f % nTiles) * kTileCols));
    return {row, col};
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
  /// The shared tile at `offset` (+ `zero`) of the dynamic shared memory.
  SharedTile sharedTile(OpBuilder &b, Location loc, Value offset, Value zero,
                        int64_t rows, int64_t cols, Type elemTy) {
    if (zero)
      offset = arith::AddIOp::create(b, loc, offset, zero);
    auto tileTy = MemRefType::get(
        {rows, SharedTile::paddedCols(cols)}, elemTy,
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    Value view = memref::ViewOp::create(b, loc, tileTy, dynamicShared, offset,
                                        ValueRange());
    return SharedTile{view, rows, cols};
  }
  /// The shared tile of an operand, as stored (for a transposed view, the
  /// [cols, rows] tile it is the transpose of).
  SharedTile sharedTile(OpBuilder &b, Location loc, const TileOperand &t,
                        Value zero) {
    SmallVector<int64_t> stored(t.type.getShape());
    if (auto shared = dyn_cast_or_null<BlockSharedAttr>(t.type.getEncoding()))
      stored = shared.storedShape(t.type.getShape());
    return sharedTile(b, loc, t.sharedOffset, zero, stored[0], stored[1],
                      t.type.getElementType());
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

  /// Warps of one group and groups of the thread block (every warp_rows
  /// tile of a kernel agrees); `warp` is the warp in its group, `group`
  /// null for one group.
  int64_t numWarps = 0, replicas = 1;
  Value threadId, dynamicShared, warp, group;
  std::optional<WarpMma> fragments;
};

SmallVector<Value> MmaSyncLowering::reduceAcrossReplicas(
    OpBuilder &b, Location loc, ValueRange values, Value sharedOffset,
    bool isMax) {
  if (replicas == 1)
    return SmallVector<Value>(values);
  // Value k of the thread at place t of group g at [(g * K + k) * T + t]
  // (T threads per group): a warp's 32 accesses are 32 consecutive words,
  // no bank conflicts.
  int64_t perGroup = 32 * numWarps, count = values.size();
  auto f32 = b.getF32Type();
  auto bufTy = MemRefType::get(
      {replicas * count * perGroup}, f32, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  Value buf =
      memref::ViewOp::create(b, loc, bufTy, dynamicShared, sharedOffset,
                             ValueRange());
  Value place = arith::RemUIOp::create(b, loc, threadId,
                                       cidx(b, loc, perGroup));
  auto at = [&](Value g, int64_t k) {
    Value slot = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, g, cidx(b, loc, count)),
        cidx(b, loc, k));
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, slot, cidx(b, loc, perGroup)),
        place);
  };
  // (The buffer's previous readers are done.)
  gpu::BarrierOp::create(b, loc);
  for (auto [k, v] : llvm::enumerate(values))
    memref::StoreOp::create(b, loc, v, buf, ValueRange{at(group, k)});
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> out;
  for (int64_t k = 0; k < count; ++k) {
    Value acc;
    for (int64_t g = 0; g < replicas; ++g) {
      Value v = memref::LoadOp::create(b, loc, buf,
                                       ValueRange{at(cidx(b, loc, g), k)});
      acc = !acc ? v
            : isMax ? semantics::maxOf(b, loc, acc, v)
                    : arith::AddFOp::create(b, loc, acc, v).getResult();
    }
    out.push_back(acc);
  }
  return out;
}

std::pair<Value, Value> MmaSyncLowering::rowsView(OpBuilder &b, Location loc,
                                                  Value arg,
                                                  const TileRows &rows) {
  auto argTy = cast<MemRefType>(arg.getType());
  int64_t rank = argTy.getRank(), dyn = ShapedType::kDynamic;
  int64_t lineDim = rows.alongHeads ? 1 : 2;
  Value extent = memref::DimOp::create(b, loc, arg, lineDim);
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets = {rows.batch, rows.head, rows.row};
  SmallVector<OpFoldResult> sizes = {one, one, one};
  offsets[lineDim] = zero;
  sizes[lineDim] = extent;
  SmallVector<int64_t> shape = {dyn};
  SmallVector<int64_t> strides = {dyn};
  if (rank == 4) {
    int64_t cols = rows.col ? rows.cols : argTy.getDimSize(3);
    offsets.push_back(rows.col ? OpFoldResult(rows.col) : zero);
    sizes.push_back(b.getIndexAttr(cols));
    shape.push_back(cols);
    strides.push_back(1);
  } else {
    // A per-row vector's line is contiguous only along the sequence.
    strides.back() = rows.alongHeads ? dyn : 1;
  }
  auto viewTy =
      MemRefType::get(shape, argTy.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), dyn, strides));
  Value view = memref::SubViewOp::create(
      b, loc, viewTy, arg, offsets, sizes,
      SmallVector<OpFoldResult>(rank, one));
  return {view, rows.alongHeads ? rows.head : rows.row};
}

Value MmaSyncLowering::withOpaqueStride(OpBuilder &b, Location loc,
                                        Value view, Value zero) {
  auto viewTy = cast<MemRefType>(view.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value rowStride = arith::AddIOp::create(b, loc, meta.getStrides()[0], zero);
  return memref::ReinterpretCastOp::create(
      b, loc, viewTy, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
      ArrayRef<OpFoldResult>{meta.getSizes()[0],
                             b.getIndexAttr(viewTy.getDimSize(1))},
      ArrayRef<OpFoldResult>{rowStride, b.getIndexAttr(1)});
}

SmallVector<Value> MmaSyncLowering::matmulTransposedB(
    OpBuilder &b, Location loc, const TileOperand &a, const TileOperand &bTile,
    RankedTensorType accType, ValueRange acc) {
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  int64_t k = a.type.getDimSize(1);
  int64_t mTiles = m / warpRows(accType).getNumWarps() / kTileRows;
  int64_t nTiles = n / kTileCols, kSteps = k / kStepK;
  Type elemTy = a.type.getElementType();
  Value zero = opaqueZero(b, loc);
  LaneView keys = fragments->laneViewBOfTransposed(
      b, sharedTile(b, loc, bTile, zero));
  std::optional<LaneView> queries;
  if (a.inShared())
    queries = fragments->laneViewA(b, sharedTile(b, loc, a, zero));
  Value row0 = warpRow0(b, loc, m);
  SmallVector<Value> s(acc.begin(), acc.end());
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    SmallVector<Value> aFrags;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      aFrags.push_back(
          queries ? fragments->loadA(
                        b, *queries,
                        arith::AddIOp::create(b, loc, row0,
                                              cidx(b, loc, mt * kTileRows)),
                        2 * kk, elemTy)
                  : a.fragments[mt * kSteps + kk]);
    for (int64_t np = 0; np < nTiles / 2; ++np) {
      auto [b0, b1] =
          fragments->loadBOfTransposed(b, keys, np * 16, 2 * kk, elemTy);
      for (int64_t mt = 0; mt < mTiles; ++mt) {
        Value &c0 = s[mt * nTiles + 2 * np];
        Value &c1 = s[mt * nTiles + 2 * np + 1];
        c0 = fragments->mma(b, aFrags[mt], b0, c0);
        c1 = fragments->mma(b, aFrags[mt], b1, c1);
      }
    }
  }
  return s;
}

SmallVector<Value> MmaSyncLowering::matmul(OpBuilder &b, Location loc,
                                           const TileOperand &a,
                                           const TileOperand &bTile,
                                           RankedTensorType accType,
                                           ValueRange acc) {
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  int64_t k = a.type.getDimSize(1);
  int64_t mTiles = m / warpRows(accType).getNumWarps() / kTileRows;
  int64_t colTiles = n / kTileCols, kSteps = k / kStepK;
  Type elemTy = a.type.getElementType();
  Value zero = opaqueZero(b, loc);
  LaneView values = fragments->laneViewB(b, sharedTile(b, loc, bTile, zero));
  // A from shared memory: ldmatrix per m-tile and k step, transposing for a
  // view stored [k][m] (K^T of the atomic dQ).
  std::optional<LaneView> aView;
  Value row0 = warpRow0(b, loc, m);
  if (a.inShared()) {
    SharedTile aTile = sharedTile(b, loc, a, zero);
    aView = isTransposedView(a)
                ? fragments->laneViewAOfTransposed(b, aTile, row0,
                                                   m - m / numWarps)
                : fragments->laneViewA(b, aTile);
  }
  auto loadA = [&](int64_t mt, int64_t kp) -> Value {
    if (!aView)
      return a.fragments[mt * kSteps + kp];
    if (isTransposedView(a))
      return fragments->loadAOfTransposed(b, *aView, mt * kTileRows,
                                          kp * kStepK, elemTy);
    return fragments->loadA(
        b, *aView,
        arith::AddIOp::create(b, loc, row0, cidx(b, loc, mt * kTileRows)),
        2 * kp, elemTy);
  };
  SmallVector<Value> out(acc.begin(), acc.end());
  for (int64_t kp = 0; kp < kSteps; ++kp) {
    SmallVector<Value> aFrags;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      aFrags.push_back(loadA(mt, kp));
    for (int64_t dp = 0; dp < colTiles / 2; ++dp) {
      auto [b0, b1] = fragments->loadB(b, values, kp * kStepK, 2 * dp, elemTy);
      for (int64_t mt = 0; mt < mTiles; ++mt) {
        Value aFrag = aFrags[mt];
        Value &c0 = out[mt * colTiles + 2 * dp];
        Value &c1 = out[mt * colTiles + 2 * dp + 1];
        c0 = fragments->mma(b, aFrag, b0, c0);
        c1 = fragments->mma(b, aFrag, b1, c1);
      }
    }
  }
  return out;
}

FailureOr<SmallVector<Value>>
MmaSyncLowering::convertLayout(OpBuilder &b, Location loc,
                               const TileOperand &from, RankedTensorType to) {
  auto toRows = dyn_cast_or_null<WarpRowsAttr>(to.getEncoding());
  if (!toRows || toRows.getRole() != FragmentRole::OperandA)
    return failure();
  int64_t m = to.getDimSize(0), k = to.getDimSize(1);
  int64_t mTiles = m / toRows.getNumWarps() / kTileRows, kSteps = k / kStepK;
  Type elemTy = to.getElementType();
  SmallVector<Value> out;
  if (from.inShared()) {
    // Shared -> A registers: one ldmatrix.x4 per m-tile and k step.
    LaneView tile =
        fragments->laneViewA(b, sharedTile(b, loc, from, opaqueZero(b, loc)));
    Value row0 = warpRow0(b, loc, m);
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t kk = 0; kk < kSteps; ++kk)
        out.push_back(fragments->loadA(
            b, tile,
            arith::AddIOp::create(b, loc, row0, cidx(b, loc, mt * kTileRows)),
            2 * kk, elemTy));
    return out;
  }
  auto fromRows = dyn_cast_or_null<WarpRowsAttr>(from.type.getEncoding());
  if (!fromRows || fromRows.getRole() != FragmentRole::Acc ||
      fromRows.getNumWarps() != toRows.getNumWarps())
    return failure();
  // acc (16-bit) -> A: the C fragments of n-tiles 2kk and 2kk + 1 are the
  // A fragment of k step kk, register for register.
  int64_t nTiles = k / kTileCols;
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t kk = 0; kk < kSteps; ++kk)
      out.push_back(vector::ShuffleOp::create(
          b, loc, from.fragments[mt * nTiles + 2 * kk],
          from.fragments[mt * nTiles + 2 * kk + 1],
          ArrayRef<int64_t>{0, 1, 2, 3}));
  return out;
}

void MmaSyncLowering::copyTileAsync(OpBuilder &b, Location loc, Value source,
                                    const TileRows &rows,
                                    RankedTensorType tile,
                                    Value sharedOffset) {
  Value zero = opaqueZero(b, loc);
  auto [view, first] = rowsView(b, loc, source, rows);
  Value global = withOpaqueStride(b, loc, view, zero);
  SharedTile shared =
      sharedTile(b, loc, sharedOffset, zero, tile.getDimSize(0),
                 tile.getDimSize(1), tile.getElementType());
  mlir::fa::copyTileAsync(b, loc, global, first, rows.count, shared, threadId,
                          numThreads());
}

void MmaSyncLowering::storeAccTile(OpBuilder &b, Location loc,
                                   RankedTensorType acc, ValueRange frags,
                                   Value dest, const TileRows &rows,
                                   Value stagingOffset) {
  // Through shared memory, so that the global stores are 16 bytes per
  // thread and coalesced: every copy must have landed and every warp be
  // done with the tiles the staging area overlaps.
  waitCopies(b, loc, 0);
  int64_t m = acc.getDimSize(0), n = acc.getDimSize(1);
  Type elemTy = acc.getElementType();
  SharedTile staging =
      sharedTile(b, loc, stagingOffset, Value(), m, n, elemTy);
  int64_t nTiles = n / kTileCols;
  // (One group fills the staging tile; every thread copies it out.)
  inFirstReplica(b, loc, [&](OpBuilder &b, Location loc) {
    Value firstCol = threadFirstColumn(b, loc);
    for (auto [f, frag] : llvm::enumerate(frags)) {
      for (int64_t h = 0; h < 2; ++h) {
        Value row = rowOfRowValue(b, loc, m, accRowValue(acc, f, 2 * h));
        Value col = arith::AddIOp::create(
            b, loc, firstCol, cidx(b, loc, (f % nTiles) * kTileCols));
        Value pair =
            vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{h});
        vector::StoreOp::create(b, loc, pair, staging.buffer,
                                ValueRange{row, col}, /*nontemporal=*/false,
                                llvm::MaybeAlign(4));
      }
    }
  });
  gpu::BarrierOp::create(b, loc);
  auto [view, first] = rowsView(b, loc, dest, rows);
  storeTileRows(b, loc, staging, view, first, rows.count, threadId,
                numThreads());
}

void MmaSyncLowering::storeRows(OpBuilder &b, Location loc,
                                RankedTensorType rowsTy, ValueRange values,
                                Value dest, const TileRows &rows) {
  // The 4 lanes of a quad hold the same values: the first one stores.
  auto [line, rowStart] = rowsView(b, loc, dest, rows);
  Value firstInQuad =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            fragments->threadInGroup(), cidx(b, loc, 0));
  if (Value mine = firstReplicaFlag(b, loc))
    firstInQuad = arith::AndIOp::create(b, loc, firstInQuad, mine);
  for (auto [i, value] : llvm::enumerate(values)) {
    Value row = rowOfRowValue(b, loc, rowsTy.getDimSize(0), i);
    Value store = arith::AndIOp::create(
        b, loc, firstInQuad,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                              rows.count));
    scf::IfOp::create(b, loc, store, [&](OpBuilder &nb, Location l) {
      memref::StoreOp::create(nb, l, value, line,
                              ValueRange{arith::AddIOp::create(nb, l, rowStart, row)});
      scf::YieldOp::create(nb, l);
    });
  }
}

void MmaSyncLowering::storeAccToShared(OpBuilder &b, Location loc,
                                       RankedTensorType acc, ValueRange frags,
                                       Value sharedOffset) {
  gpu::BarrierOp::create(b, loc);
  SharedTile tile =
      sharedTile(b, loc, sharedOffset, opaqueZero(b, loc), acc.getDimSize(0),
                 acc.getDimSize(1), acc.getElementType());
  inFirstReplica(b, loc, [&](OpBuilder &b, Location loc) {
    for (auto [f, frag] : llvm::enumerate(frags))
      for (int64_t h = 0; h < 2; ++h) {
        auto [row, col] = accPairPosition(b, loc, acc, f, h);
        Value pair =
            vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{h});
        vector::StoreOp::create(b, loc, pair, tile.buffer,
                                ValueRange{row, col},
                                /*nontemporal=*/false, llvm::MaybeAlign(4));
      }
  });
  gpu::BarrierOp::create(b, loc);
}

void MmaSyncLowering::accumulateAccTile(OpBuilder &b, Location loc,
                                        RankedTensorType acc,
                                        ValueRange frags, Value dest,
                                        const TileRows &rows,
                                        bool transposed) {
  // One red.global.add.f32 per element (sm_80 has no vector f32 form); an
  // element outside the valid rows (columns) is skipped. Group 0 adds.
  Value mine = firstReplicaFlag(b, loc);
  for (auto [f, frag] : llvm::enumerate(frags))
    for (int64_t h = 0; h < 2; ++h) {
      auto [row, col0] = accPairPosition(b, loc, acc, f, h);
      for (int64_t e = 0; e < 2; ++e) {
        Value col = e ? arith::AddIOp::create(b, loc, col0, cidx(b, loc, 1))
                            .getResult()
                      : col0;
        Value destRow = transposed ? col : row;
        Value destCol = transposed ? row : col;
        Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            destRow, rows.count);
        if (mine)
          valid = arith::AndIOp::create(b, loc, valid, mine);
        Value v = vector::ExtractOp::create(b, loc, frag,
                                            ArrayRef<int64_t>{h, e});
        scf::IfOp::create(b, loc, valid, [&](OpBuilder &nb, Location l) {
          memref::AtomicRMWOp::create(
              nb, l, arith::AtomicRMWKind::addf, v, dest,
              ValueRange{rows.batch, rows.head,
                         arith::AddIOp::create(nb, l, rows.row, destRow),
                         destCol});
          scf::YieldOp::create(nb, l);
        });
      }
    }
}

SmallVector<Value> MmaSyncLowering::loadAccTile(OpBuilder &b, Location loc,
                                                Value source,
                                                const TileRows &rows,
                                                RankedTensorType acc,
                                                Value pad) {
  // Two neighbouring f32 per load (8 bytes); rows past the valid ones read
  // the last valid row and are replaced by the pad value.
  auto [line, first] = rowsView(b, loc, source, rows);
  Value last = arith::SubIOp::create(b, loc, rows.count, cidx(b, loc, 1));
  auto pairTy = VectorType::get({2}, acc.getElementType());
  Value padPair = vector::BroadcastOp::create(b, loc, pairTy, pad);
  SmallVector<Type> fragTypes = warpRows(acc).getAtom().getFragmentTypes(
      FragmentRole::Acc, acc.getShape(), acc.getElementType(), numWarps);
  SmallVector<Value> frags;
  for (auto [f, fragTy] : llvm::enumerate(fragTypes)) {
    Value frag = arith::ConstantOp::create(b, loc, b.getZeroAttr(fragTy));
    for (int64_t h = 0; h < 2; ++h) {
      auto [row, col] = accPairPosition(b, loc, acc, f, h);
      Value at = arith::AddIOp::create(
          b, loc, first, arith::MinUIOp::create(b, loc, row, last));
      Value pair = vector::LoadOp::create(b, loc, pairTy, line,
                                          ValueRange{at, col});
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, rows.count);
      pair = arith::SelectOp::create(b, loc, inside, pair, padPair);
      frag = vector::InsertOp::create(b, loc, pair, frag,
                                      ArrayRef<int64_t>{h});
    }
    frags.push_back(frag);
  }
  return frags;
}

} // namespace

std::unique_ptr<AtomLowering>
mlir::fa::createAtomLowering(MmaAtomAttrInterface atom) {
  if (isa_and_nonnull<MmaSyncAtomAttr>(atom))
    return std::make_unique<MmaSyncLowering>();
  return nullptr;
}
