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
// Shared tiles have their rows padded by 16 bytes, or are swizzled
// (SharedTiles.h).
//
// Addresses. Every shared-memory view this file builds inside a loop starts
// from an "opaque zero" (an inline-asm `mov 0` that LLVM cannot see
// through). Without it LLVM hoists each of the dozens of ldmatrix and
// cp.async addresses of the loop body out of the loop into its own 64-bit
// register and the accumulators spill; with it each address is one base
// register plus an immediate, and ptxas, which does see the zero, folds it.
//
//===----------------------------------------------------------------------===//

#include "Atoms/MmaSyncLowering.h"

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

using namespace mlir::fa::atoms;

SmallVector<Value> MmaSyncLowering::reduceAcrossReplicas(
    OpBuilder &b, Location loc, ValueRange values, Value sharedOffset,
    bool isMax) {
  if (replicas == 1)
    return SmallVector<Value>(values);
  // Value k of the thread at place t of group g at [(g * K + k) * T + t]
  // (T threads per group): a warp's 32 accesses are 32 consecutive words,
  // no bank conflicts. The view starts at the thread's place, so every
  // address is one register plus a constant: with the place added to each
  // index instead, LLVM kept one address register per value and group
  // (4 groups adding up a d = 128 accumulator, 4 x 66 of them, spilled).
  int64_t perGroup = 32 * numWarps, count = values.size();
  auto f32 = b.getF32Type();
  auto bufTy = MemRefType::get(
      {(replicas * count - 1) * perGroup + 1}, f32,
      MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  Value place = arith::RemUIOp::create(b, loc, threadId,
                                       cidx(b, loc, perGroup));
  Value shift = arith::AddIOp::create(
      b, loc, sharedOffset,
      arith::MulIOp::create(b, loc, place, cidx(b, loc, 4)));
  Value buf =
      memref::ViewOp::create(b, loc, bufTy, dynamicShared, shift, ValueRange());
  Value ownBase = arith::MulIOp::create(b, loc, group ? group : cidx(b, loc, 0),
                                        cidx(b, loc, count * perGroup));
  // (The buffer's previous readers are done.)
  gpu::BarrierOp::create(b, loc);
  for (auto [k, v] : llvm::enumerate(values))
    memref::StoreOp::create(
        b, loc, v, buf,
        ValueRange{arith::AddIOp::create(
            b, loc, ownBase, cidx(b, loc, static_cast<int64_t>(k) * perGroup))});
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> out;
  for (int64_t k = 0; k < count; ++k) {
    Value acc;
    for (int64_t g = 0; g < replicas; ++g) {
      Value v = memref::LoadOp::create(
          b, loc, buf, ValueRange{cidx(b, loc, (g * count + k) * perGroup)});
      acc = !acc ? v
            : isMax ? semantics::maxOf(b, loc, acc, v)
                    : arith::AddFOp::create(b, loc, acc, v).getResult();
    }
    // Pinned here: where only group 0 uses the result (the stores), LLVM
    // sinks the sums into its branch and keeps every loaded value live
    // until then (4 groups adding up a d = 128 accumulator spilled).
    out.push_back(pinned(b, loc, acc));
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
  // A parameter in the identity layout (a contiguous workspace) gives a
  // view with static strides: cast to the general view every user takes.
  SmallVector<OpFoldResult> unit(rank, one);
  MemRefType inferred = memref::SubViewOp::inferRankReducedResultType(
      shape, argTy, offsets, sizes, unit);
  Value view =
      memref::SubViewOp::create(b, loc, inferred, arg, offsets, sizes, unit);
  if (inferred != viewTy)
    view = memref::CastOp::create(b, loc, viewTy, view);
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
    RankedTensorType accType, ValueRange acc, bool /*async*/) {
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
                                           ValueRange acc, bool /*async*/) {
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  int64_t k = a.type.getDimSize(1);
  int64_t mTiles = m / warpRows(accType).getNumWarps() / kTileRows;
  int64_t colTiles = n / kTileCols, kSteps = k / kStepK;
  Type elemTy = a.type.getElementType();
  Value zero = opaqueZero(b, loc);
  LaneView values =
      fragments->laneViewB(b, sharedTile(b, loc, bTile, zero),
                           bTile.sharedColumn, bTile.maxSharedColumn);
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
                                    Value sharedOffset,
                                    int64_t l2PrefetchBytes) {
  Value zero = opaqueZero(b, loc);
  auto [view, first] = rowsView(b, loc, source, rows);
  Value global = withOpaqueStride(b, loc, view, zero);
  SharedTile shared = sharedTile(b, loc, tile, sharedOffset, zero);
  mlir::fa::copyTileAsync(b, loc, global, first, rows.count, shared, threadId,
                          numThreads(), l2PrefetchBytes);
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
  // (One group fills the staging tile, or each group its columns; every
  // thread copies it out.) The output is stored once, after the main loop:
  // for a column-split tile from positions recomputed here.
  withFreshGeometry(b, loc, acc, [&] {
    inStoringGroups(b, loc, acc, [&](OpBuilder &b, Location loc) {
      for (auto [f, frag] : llvm::enumerate(frags)) {
        for (int64_t h = 0; h < 2; ++h) {
          auto [row, col] = accPairPosition(b, loc, acc, f, h);
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
  });
}

void MmaSyncLowering::storeSplatTile(OpBuilder &b, Location loc,
                                     RankedTensorType tile, Value value,
                                     Value dest, const TileRows &rows) {
  // Vectors of up to 16 bytes, consecutive threads along a row, then the
  // next rows (as the staged stores of storeTileRows). Rows are 16-byte
  // aligned (the launch record requires it); a column offset may not be.
  auto [view, first] = rowsView(b, loc, dest, rows);
  int64_t tileRows = tile.getDimSize(0), cols = tile.getDimSize(1);
  Type elemTy = tile.getElementType();
  int64_t elemBytes = elemTy.getIntOrFloatBitWidth() / 8;
  int64_t width = 16 / elemBytes;
  while (width > 1 && cols % width != 0)
    width /= 2;
  auto vecTy = VectorType::get({width}, elemTy);
  Value splat = vector::BroadcastOp::create(b, loc, vecTy, value);
  llvm::MaybeAlign align(rows.col ? elemBytes : width * elemBytes);
  forEachThreadChunk(b, loc, tileRows, cols, width, rows.count, threadId,
                     numThreads(),
                     [&](OpBuilder &nb, Location l, Value row, Value col) {
                       vector::StoreOp::create(
                           nb, l, splat, view,
                           ValueRange{arith::AddIOp::create(nb, l, first, row),
                                      col},
                           /*nontemporal=*/false, align);
                     });
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
  inStoringGroups(b, loc, acc, [&](OpBuilder &b, Location loc) {
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
                                        const TileRows &rows, bool transposed,
                                        bool fragmentOrder) {
  // One red.global.add.f32 per element (sm_80 has no vector f32 form); an
  // element outside the valid rows (columns) is skipped, unless the count
  // is a constant that covers the tile (a buffer padded to whole tiles: no
  // guard at all). Group 0 adds, or each group its columns. In fragment
  // order (whole tiles: the verifier's rule) each warp's 32 adds of one
  // element index are 128 contiguous bytes.
  std::optional<int64_t> count = getConstantIntValue(rows.count);
  bool wholeTile =
      fragmentOrder || (count && *count >= acc.getDimSize(transposed ? 1 : 0));
  int64_t cols = acc.getDimSize(1);
  withFreshGeometry(b, loc, acc, [&] {
    Value mine = groupsHoldColumns(acc) ? Value() : firstReplicaFlag(b, loc);
    for (auto [f, frag] : llvm::enumerate(frags))
      for (int64_t h = 0; h < 2; ++h) {
        auto [row, col0] = accPairPosition(b, loc, acc, f, h);
        for (int64_t e = 0; e < 2; ++e) {
          Value col = e ? arith::AddIOp::create(b, loc, col0, cidx(b, loc, 1))
                              .getResult()
                        : col0;
          Value destRow = transposed ? col : row;
          Value destCol = transposed ? row : col;
          if (fragmentOrder)
            std::tie(destRow, destCol) = fragmentOrderPosition(
                b, loc, (int64_t(f) * 2 + h) * 2 + e, cols);
          Value v = vector::ExtractOp::create(b, loc, frag,
                                              ArrayRef<int64_t>{h, e});
          auto add = [&](OpBuilder &nb, Location l) {
            memref::AtomicRMWOp::create(
                nb, l, arith::AtomicRMWKind::addf, v, dest,
                ValueRange{rows.batch, rows.head,
                           arith::AddIOp::create(nb, l, rows.row, destRow),
                           destCol});
          };
          Value valid =
              wholeTile ? Value()
                        : arith::CmpIOp::create(b, loc,
                                                arith::CmpIPredicate::ult,
                                                destRow, rows.count)
                              .getResult();
          if (mine)
            valid = valid ? arith::AndIOp::create(b, loc, valid, mine)
                                .getResult()
                          : mine;
          if (!valid) {
            add(b, loc);
            continue;
          }
          scf::IfOp::create(b, loc, valid, [&](OpBuilder &nb, Location l) {
            add(nb, l);
            scf::YieldOp::create(nb, l);
          });
        }
      }
  });
}

SmallVector<Value> MmaSyncLowering::loadAccTile(OpBuilder &b, Location loc,
                                                Value source,
                                                const TileRows &rows,
                                                RankedTensorType acc,
                                                Value pad,
                                                bool fragmentOrder) {
  // A group that holds a column share holds the fragments of its columns.
  SmallVector<int64_t> groupShape(acc.getShape());
  if (groupsHoldColumns(acc))
    groupShape[1] /= replicas;
  SmallVector<Type> fragTypes = warpRows(acc).getAtom().getFragmentTypes(
      FragmentRole::Acc, groupShape, acc.getElementType(), numWarps);
  if (fragmentOrder) {
    // Element e of the thread's fragments at position e * T + t of the
    // block: each warp's 32 loads of one e are 128 contiguous bytes.
    SmallVector<Value> frags;
    for (auto [f, fragTy] : llvm::enumerate(fragTypes)) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < elementsPerAccFragment(); ++e) {
        auto [row, col] = fragmentOrderPosition(
            b, loc, int64_t(f) * elementsPerAccFragment() + e,
            acc.getDimSize(1));
        elems.push_back(memref::LoadOp::create(
            b, loc, source,
            ValueRange{rows.batch, rows.head,
                       arith::AddIOp::create(b, loc, rows.row, row), col}));
      }
      frags.push_back(buildAccFragment(b, loc, fragTy, elems));
    }
    return frags;
  }
  // Two neighbouring f32 per load (8 bytes); rows past the valid ones read
  // the last valid row and are replaced by the pad value.
  auto [line, first] = rowsView(b, loc, source, rows);
  Value last = arith::SubIOp::create(b, loc, rows.count, cidx(b, loc, 1));
  auto pairTy = VectorType::get({2}, acc.getElementType());
  Value padPair = vector::BroadcastOp::create(b, loc, pairTy, pad);
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

std::unique_ptr<AtomLowering>
mlir::fa::createAtomLowering(MmaAtomAttrInterface atom) {
  if (isa_and_nonnull<MmaSyncAtomAttr>(atom))
    return std::make_unique<MmaSyncLowering>();
  if (isa_and_nonnull<WgmmaAtomAttr>(atom))
    return createWgmmaLowering();
  return nullptr;
}
