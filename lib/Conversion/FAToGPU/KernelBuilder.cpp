//===- KernelBuilder.cpp - The FlashAttention-2 forward kernel ------------===//
//
// Per thread block (one Q block of one head), as in FlashAttention-2 with an
// S-stage K/V pipeline (S = kv-stages shared-memory buffers):
//
//   prologue  cp.async Q and blocks 0 .. S - 2, one group each
//   for each K/V block j (the unmasked loop, then the masked one):
//     wait for block j, barrier   (all warps are done with block j - 1)
//     cp.async block j + S - 1 -> the stage of block j - 1
//     S = Q K_j^T                 ldmatrix + mma.sync, f32 fragments
//     [mask]                      diagonal / tail blocks only
//     online softmax              quad shuffles, one FFMA + EX2 per score
//     acc = alpha * acc + P V_j   P stays in registers as the A operand
//   epilogue  O = acc / l -> shared -> 16-byte coalesced stores;
//             LSE = ln2 * (m + log2 l)
//
// Warp w owns rows [w * M / W, (w + 1) * M / W) of the Q block, so every row
// reduction is inside one quad of one warp.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "IndexMaterializer.h"
#include "SharedTiles.h"
#include "WarpMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// Reduces `input` pairwise, (v0 op v1) op (v2 op v3) ..., so the dependency
/// chain is log2(n) instructions deep instead of n. Used for the row max
/// (exact in any order; measured 1-2 % faster at head dim 64, neutral at
/// 128). The row sum stays a chain: pairwise, it kept more values live and
/// made the d=128 causal kernel spill (docs/performance.md).
template <typename CombineFn>
Value reducePairwise(ArrayRef<Value> input, CombineFn combine) {
  assert(!input.empty() && "a row has at least one score");
  SmallVector<Value> values(input);
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// What one thread holds of the online-softmax state: for each m-tile `mt` of
/// its warp and each of its two rows in it (h = 0: row g, h = 1: row g + 8),
/// the running max (log2 domain, scaled) and this thread's share of the
/// running sum (summed over the quad only at the end); and the O accumulator
/// fragments, [mt][dt] for the Dv / 8 column tiles.
struct ThreadState {
  SmallVector<Value> max, sum; // [mt * 2 + h]
  SmallVector<Value> acc;      // [mt * numColTiles + dt]

  SmallVector<Value> flatten() const {
    SmallVector<Value> all(max);
    llvm::append_range(all, sum);
    llvm::append_range(all, acc);
    return all;
  }
  static ThreadState unflatten(ValueRange all, size_t rows) {
    ThreadState s;
    s.max.assign(all.begin(), all.begin() + rows);
    s.sum.assign(all.begin() + rows, all.begin() + 2 * rows);
    s.acc.assign(all.begin() + 2 * rows, all.end());
    return s;
  }
};

/// Score fragments of one K/V block, [mt][nt], vector<2x2xf32>.
using Fragments = SmallVector<SmallVector<Value>>;

class KernelBuilder {
public:
  KernelBuilder(gpu::GPUFuncOp kernel, TiledAttention &tiled,
                const KernelConfig &config, ArrayRef<Value> hostTensors)
      : kernel(kernel), tiled(tiled), config(config),
        b(&kernel.getBody().front(), kernel.getBody().front().begin()),
        loc(tiled.forall.getLoc()),
        materializer(mapTensors(kernel, hostTensors), mapInductionVars()) {}

  LogicalResult build();

private:
  static DenseMap<Value, Value> mapTensors(gpu::GPUFuncOp kernel,
                                           ArrayRef<Value> hostTensors) {
    DenseMap<Value, Value> map;
    for (auto [host, arg] : llvm::zip(hostTensors, kernel.getArguments()))
      map[host] = arg;
    return map;
  }
  /// The forall runs (batch, head, Q block) on grid (z, y, x).
  IRMapping mapInductionVars() {
    IRMapping map;
    ValueRange ivs = tiled.forall.getInductionVars();
    map.map(ivs[0], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
    map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    return map;
  }

  /// Runs `fn` with the member builder at `nested`'s insertion point (inside
  /// a region that a region-builder callback is filling).
  template <typename Fn>
  void inside(OpBuilder &nested, Fn fn) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nested.getInsertionBlock(),
                        nested.getInsertionPoint());
    fn();
  }

  Value cidx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cf32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

  /// A host index value computed in the kernel, in `scope`.
  LogicalResult get(IndexMaterializer &scope, OpFoldResult v, Value &out,
                    StringRef what) {
    FailureOr<Value> value = scope.get(b, v);
    if (failed(value))
      return tiled.forall.emitError("fa-lower-to-gpu: cannot compute the ")
             << what << " in the kernel: it is not index arithmetic on "
             << "tensor sizes and loop induction variables";
    out = *value;
    return success();
  }

  /// Rows of one head: memref<N x cols x T> view of arg[batch, head, :, :].
  Value headRows(Value arg, Value batch, Value head, int64_t cols);
  SharedTile sharedTile(Value dynamicShared, Value byteOffset, int64_t rows,
                        int64_t cols);

  /// Inside the K/V loop: re-creates the shared-memory tile views and the
  /// global K/V views from a zero that LLVM cannot see is zero. Without it
  /// LLVM hoists every ldmatrix and cp.async address of the loop body
  /// (dozens, 64-bit each) out of the loop into registers, and the
  /// accumulators spill; with it each shared address is one base register
  /// plus an immediate, and each global one an add, computed in the loop.
  void refreshViews(Value stage);
  /// The K and V tiles of pipeline stage `stage` (0 or 1), at a byte offset
  /// that starts from `base`.
  void selectStage(Value base, Value stage);
  void makeLaneViews();
  /// `view` (2-D, strided) with its row stride plus `opaqueZero`.
  Value withOpaqueStride(Value view, Value opaqueZero);

  LogicalResult copyKeyOrValue(IndexMaterializer &scope, TileLoad &load,
                               Value global, const SharedTile &tile);
  /// cp.async of the K and V block that `kv`'s induction variable takes the
  /// value `k0` for, into stage (k0 / block-n) % 2, when k0 < kvEnd; then
  /// commits a group (empty past the end, so that every iteration commits
  /// one and waiting for "all but the newest" always means block j).
  LogicalResult issueBlock(KVLoop &kv, Value k0);
  Value stageOf(Value k0);
  Fragments computeScores();
  LogicalResult applyMask(Fragments &s, IndexMaterializer &scope,
                          MaskOp mask);
  void softmaxStep(Fragments &s, ThreadState &state);
  void accumulatePV(Fragments &p, ThreadState &state);
  FailureOr<ThreadState> emitLoop(KVLoop &kv, ThreadState state);
  LogicalResult emitEpilogue(ThreadState &state);

  /// Row (in the Q block) of element [h][*] of m-tile mt of this warp.
  Value rowInBlock(int64_t mt, int64_t h) {
    return add(warpRow0, add(mma->groupId(), cidx(mt * 16 + h * 8)));
  }
  /// Column (in the K/V block) of element [*][e] of n-tile nt.
  Value colInBlock(int64_t nt, int64_t e) {
    return add(mul(mma->threadInGroup(), cidx(2)), cidx(nt * 8 + e));
  }

  gpu::GPUFuncOp kernel;
  TiledAttention &tiled;
  const KernelConfig &config;
  OpBuilder b;
  Location loc;
  IndexMaterializer materializer; // Values outside the K/V loops.

  Value threadId, warpRow0, dynamicShared, qRows;
  /// Byte offset all shared tiles are placed from: 0, or inside the K/V loop
  /// a zero that LLVM cannot see through (see refreshViews).
  Value sharedBase;
  std::optional<WarpMma> mma;
  SharedTile sQ, sK, sV;
  LaneView lQ, lK, lV; // This lane's ldmatrix views of sQ, sK, sV.
  Value gQ, gK, gV;         // [N, D] views of this (batch, head).
  Value kvEnd;              // End of the last K/V loop: no block past it.
  SmallVector<Value> qFrags; // [mt * kSteps + kk] when Q is kept in registers.
};

Value KernelBuilder::headRows(Value arg, Value batch, Value head,
                              int64_t cols) {
  auto argTy = cast<MemRefType>(arg.getType());
  Value rows = memref::DimOp::create(b, loc, arg, 2);
  int64_t dyn = ShapedType::kDynamic;
  auto viewTy = MemRefType::get(
      {dyn, cols}, argTy.getElementType(),
      StridedLayoutAttr::get(b.getContext(), dyn, {dyn, 1}));
  SmallVector<OpFoldResult> offsets = {batch, head, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     rows, b.getIndexAttr(cols)};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, viewTy, arg, offsets, sizes,
                                   strides);
}

SharedTile KernelBuilder::sharedTile(Value dynamicShared, Value byteOffset,
                                     int64_t rows, int64_t cols) {
  auto tileTy = MemRefType::get(
      {rows, SharedTile::paddedCols(cols)}, config.elemTy,
      MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  Value view = memref::ViewOp::create(b, loc, tileTy, dynamicShared,
                                      byteOffset, ValueRange());
  return SharedTile{view, rows, cols};
}

Value KernelBuilder::withOpaqueStride(Value view, Value opaqueZero) {
  auto viewTy = cast<MemRefType>(view.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value rowStride = add(meta.getStrides()[0], opaqueZero);
  return memref::ReinterpretCastOp::create(
      b, loc, viewTy, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
      ArrayRef<OpFoldResult>{meta.getSizes()[0],
                             b.getIndexAttr(viewTy.getDimSize(1))},
      ArrayRef<OpFoldResult>{rowStride, b.getIndexAttr(1)});
}

void KernelBuilder::selectStage(Value base, Value stage) {
  Value offset = add(base, add(cidx(config.queryBytes()),
                               mul(stage, cidx(config.stageBytes()))));
  sK = sharedTile(dynamicShared, offset, config.blockN, config.headDim);
  sV = sharedTile(dynamicShared, add(offset, cidx(config.keyBytes())),
                  config.blockN, config.valueDim);
}

void KernelBuilder::refreshViews(Value stage) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, b.getI32Type(), ValueRange(), "mov.u32 $0, 0;", "=r",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  Value opaqueZero = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                asmOp.getResult(0));
  sharedBase = opaqueZero;
  sQ = sharedTile(dynamicShared, opaqueZero, config.blockM, config.headDim);
  selectStage(opaqueZero, stage);
  gK = withOpaqueStride(gK, opaqueZero);
  gV = withOpaqueStride(gV, opaqueZero);
  makeLaneViews();
}

void KernelBuilder::makeLaneViews() {
  lQ = mma->laneViewA(b, sQ);
  lK = mma->laneViewBOfTransposed(b, sK);
  lV = mma->laneViewB(b, sV);
}

LogicalResult KernelBuilder::copyKeyOrValue(IndexMaterializer &scope,
                                            TileLoad &load, Value global,
                                            const SharedTile &tile) {
  Value rowStart, rows;
  if (failed(get(scope, load.rowStart(), rowStart, "K/V block start")) ||
      failed(get(scope, load.rows(), rows, "K/V block rows")))
    return failure();
  copyTileAsync(b, loc, global, rowStart, rows, tile, threadId,
                config.numThreads());
  return success();
}

Value KernelBuilder::stageOf(Value k0) {
  Value block = arith::DivUIOp::create(b, loc, k0, cidx(config.blockN));
  return arith::RemUIOp::create(b, loc, block, cidx(config.kvStages));
}

LogicalResult KernelBuilder::issueBlock(KVLoop &kv, Value k0) {
  LogicalResult result = success();
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k0, kvEnd);
  scf::IfOp::create(b, loc, inRange, [&](OpBuilder &inIf, Location) {
    inside(inIf, [&] {
      SharedTile keep[2] = {sK, sV};
      selectStage(sharedBase, stageOf(k0));
      IndexMaterializer scope =
          materializer.withValue(kv.loop.getInductionVar(), k0);
      if (failed(copyKeyOrValue(scope, kv.key, gK, sK)) ||
          failed(copyKeyOrValue(scope, kv.value, gV, sV)))
        result = failure();
      sK = keep[0];
      sV = keep[1];
      scf::YieldOp::create(b, loc);
    });
  });
  commitAsyncGroup(b, loc);
  return result;
}

Fragments KernelBuilder::computeScores() {
  int64_t mTiles = config.mTiles(), nTiles = config.blockN / 8;
  int64_t kSteps = config.headDim / 16;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(mma->accType()));
  Fragments s(mTiles, SmallVector<Value>(nTiles, zero));
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    SmallVector<Value> a;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      a.push_back(config.queryInRegisters
                      ? qFrags[mt * kSteps + kk]
                      : mma->loadA(b, lQ, add(warpRow0, cidx(mt * 16)),
                                   2 * kk));
    for (int64_t np = 0; np < nTiles / 2; ++np) {
      auto [b0, b1] = mma->loadBOfTransposed(b, lK, np * 16, 2 * kk);
      for (int64_t mt = 0; mt < mTiles; ++mt) {
        s[mt][2 * np] = mma->mma(b, a[mt], b0, s[mt][2 * np]);
        s[mt][2 * np + 1] = mma->mma(b, a[mt], b1, s[mt][2 * np + 1]);
      }
    }
  }
  return s;
}

LogicalResult KernelBuilder::applyMask(Fragments &s, IndexMaterializer &scope,
                                       MaskOp mask) {
  Value rowStart, colStart, keyLimit, offset;
  if (failed(get(scope, mask.getRowStart(), rowStart, "mask row start")) ||
      failed(get(scope, mask.getColStart(), colStart, "mask column start")) ||
      (mask.getKeyLimit() &&
       failed(get(scope, mask.getKeyLimit(), keyLimit, "key limit"))) ||
      (mask.getCausalOffset() &&
       failed(get(scope, mask.getCausalOffset(), offset, "causal offset"))))
    return failure();
  // For each row this thread holds, the number of columns of the block,
  // counted from its first column (colStart + 2t), that the row may see:
  // min(keyLimit, row + offset + 1) - colStart - 2t, clamped to
  // [0, block-n]. Element (nt, e) is then visible iff nt * 8 + e < limit: one
  // comparison with a constant per score, in 32 bits.
  Value negInf = cf32(kNegInf);
  Value firstCol = add(colStart, colInBlock(0, 0));
  Type i32 = b.getI32Type();
  for (auto [mt, tiles] : llvm::enumerate(s)) {
    for (int64_t h = 0; h < 2; ++h) {
      Value end;
      if (keyLimit)
        end = keyLimit;
      if (offset) {
        Value rowEnd =
            add(add(add(rowStart, rowInBlock(mt, h)), offset), cidx(1));
        end = end ? arith::MinSIOp::create(b, loc, end, rowEnd).getResult()
                  : rowEnd;
      }
      Value limit = arith::SubIOp::create(b, loc, end, firstCol);
      limit = arith::MaxSIOp::create(b, loc, limit, cidx(0));
      limit = arith::MinSIOp::create(b, loc, limit, cidx(config.blockN));
      limit = arith::IndexCastOp::create(b, loc, i32, limit);
      for (auto [nt, frag] : llvm::enumerate(tiles)) {
        for (int64_t e = 0; e < 2; ++e) {
          Value col = arith::ConstantIntOp::create(b, loc, i32, nt * 8 + e);
          Value hidden = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::sge, col, limit);
          Value x = vector::ExtractOp::create(b, loc, frag,
                                              ArrayRef<int64_t>{h, e});
          x = arith::SelectOp::create(b, loc, hidden, negInf, x);
          frag = vector::InsertOp::create(b, loc, x, frag,
                                          ArrayRef<int64_t>{h, e});
        }
      }
    }
  }
  return success();
}

void KernelBuilder::softmaxStep(Fragments &s, ThreadState &state) {
  int64_t colTiles = config.valueDim / 8;
  Value scale = cf32(config.scaleLog2);
  Value negInf = cf32(kNegInf), zero = cf32(0.0f);
  size_t numRows = state.max.size();

  // Elements [mt][nt][h * 2 + e] of S.
  SmallVector<SmallVector<SmallVector<Value>>> elems(s.size());
  for (auto [mt, tiles] : llvm::enumerate(s)) {
    elems[mt].resize(tiles.size());
    for (auto [nt, frag] : llvm::enumerate(tiles))
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          elems[mt][nt].push_back(vector::ExtractOp::create(
              b, loc, frag, ArrayRef<int64_t>{h, e}));
  }

  // Row r (= mt * 2 + h): the new running max and alpha = exp2(m - m').
  SmallVector<Value> negBase(numRows), alphas(numRows);
  Value maxChanged; // Some row's running max moved.
  auto updateMax = [&](size_t r) {
    int64_t mt = r / 2, h = r % 2;
    // Row max of the raw scores: thread-local, then across the quad.
    SmallVector<Value> rowScores;
    for (auto &tile : elems[mt])
      for (int64_t e = 0; e < 2; ++e)
        rowScores.push_back(tile[h * 2 + e]);
    Value rowMax = reducePairwise(rowScores, [&](Value x, Value y) {
      return arith::MaxNumFOp::create(b, loc, x, y).getResult();
    });
    rowMax = mma->quadReduce(b, rowMax, /*isMax=*/true);
    // The scale is > 0, so max(scale * s) = scale * max(s).
    Value newMax = arith::MaxNumFOp::create(
        b, loc, state.max[r], arith::MulFOp::create(b, loc, rowMax, scale));
    Value changed = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                          newMax, state.max[r]);
    maxChanged =
        maxChanged
            ? arith::OrIOp::create(b, loc, maxChanged, changed).getResult()
            : changed;
    // exp2 is taken against 0 while the row has seen no key: -inf scores
    // then give 0, never NaN.
    Value noKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                        newMax, negInf);
    Value base = arith::SelectOp::create(b, loc, noKey, zero, newMax);
    negBase[r] = arith::NegFOp::create(b, loc, base);
    alphas[r] = math::Exp2Op::create(
        b, loc, arith::SubFOp::create(b, loc, state.max[r], base));
    state.max[r] = newMax;
  };

  // Row r: P = exp2(s * scale - base), one FFMA and one EX2 per score, and
  // l = alpha * l + rowsum(P).
  auto exponentiate = [&](size_t r) {
    int64_t mt = r / 2, h = r % 2;
    Value rowSum = zero;
    for (auto &tile : elems[mt]) {
      for (int64_t e = 0; e < 2; ++e) {
        Value &x = tile[h * 2 + e];
        x = math::Exp2Op::create(
            b, loc, math::FmaOp::create(b, loc, x, scale, negBase[r]));
        rowSum = arith::AddFOp::create(b, loc, rowSum, x);
      }
    }
    state.sum[r] =
        math::FmaOp::create(b, loc, alphas[r], state.sum[r], rowSum);
  };

  // acc *= alpha (the normalisation waits for the end). alpha is 1 for
  // every row whose max did not move, which after the first blocks is most
  // of them: when no row of the warp moved, the warp skips the Dv / 2
  // multiplications per row (a warp-uniform branch).
  auto rescale = [&] {
    SmallVector<Value> alphaTiles; // [mt]: alpha of rows g, g + 8.
    for (size_t mt = 0; mt < s.size(); ++mt)
      alphaTiles.push_back(vector::FromElementsOp::create(
          b, loc, mma->accType(),
          ValueRange{alphas[2 * mt], alphas[2 * mt], alphas[2 * mt + 1],
                     alphas[2 * mt + 1]}));
    Value warpChanged = NVVM::VoteSyncOp::create(
        b, loc, b.getI1Type(),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1),
        maxChanged,
        NVVM::VoteSyncKindAttr::get(b.getContext(),
                                    NVVM::VoteSyncKind::any));
    SmallVector<Type> accTypes(state.acc.size(), mma->accType());
    auto ifOp = scf::IfOp::create(b, loc, accTypes, warpChanged,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> scaled;
    for (auto [i, acc] : llvm::enumerate(state.acc))
      scaled.push_back(
          arith::MulFOp::create(b, loc, acc, alphaTiles[i / colTiles]));
    scf::YieldOp::create(b, loc, scaled);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, state.acc);
    state.acc.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  };

  if (config.rescaleBeforeExp) {
    // The branch sits between the row maxes and the exponentials, so the
    // exponentials and P V share one basic block: ptxas can start the
    // first mma of P V while later scores are still being exponentiated.
    for (size_t r = 0; r < numRows; ++r)
      updateMax(r);
    rescale();
    for (size_t r = 0; r < numRows; ++r)
      exponentiate(r);
  } else {
    for (size_t r = 0; r < numRows; ++r) {
      updateMax(r);
      exponentiate(r);
    }
    rescale();
  }
  for (auto [mt, tiles] : llvm::enumerate(s))
    for (auto [nt, tile] : llvm::enumerate(tiles))
      tile = vector::FromElementsOp::create(b, loc, mma->accType(),
                                            elems[mt][nt]);
}

void KernelBuilder::accumulatePV(Fragments &p, ThreadState &state) {
  int64_t colTiles = config.valueDim / 8;
  auto halfTy = VectorType::get({2, 2}, config.elemTy);
  for (int64_t kp = 0; kp < config.blockN / 16; ++kp) {
    // The C fragments of n-tiles 2kp and 2kp+1 of S, rounded, are the A
    // fragment of P for k rows [16kp, 16kp + 16): no shared memory.
    SmallVector<Value> a;
    for (auto &tiles : p) {
      Value lo = arith::TruncFOp::create(b, loc, halfTy, tiles[2 * kp]);
      Value hi = arith::TruncFOp::create(b, loc, halfTy, tiles[2 * kp + 1]);
      a.push_back(vector::ShuffleOp::create(b, loc, lo, hi,
                                            ArrayRef<int64_t>{0, 1, 2, 3}));
    }
    for (int64_t dp = 0; dp < colTiles / 2; ++dp) {
      auto [b0, b1] = mma->loadB(b, lV, kp * 16, 2 * dp);
      for (auto [mt, aFrag] : llvm::enumerate(a)) {
        Value &c0 = state.acc[mt * colTiles + 2 * dp];
        Value &c1 = state.acc[mt * colTiles + 2 * dp + 1];
        c0 = mma->mma(b, aFrag, b0, c0);
        c1 = mma->mma(b, aFrag, b1, c1);
      }
    }
  }
}

FailureOr<ThreadState> KernelBuilder::emitLoop(KVLoop &kv, ThreadState state) {
  Value lb, ub;
  if (failed(get(materializer, kv.loop.getLowerBound(), lb, "K/V loop bound")) ||
      failed(get(materializer, kv.loop.getUpperBound(), ub, "K/V loop bound")))
    return failure();
  int64_t blockN = config.blockN;
  size_t rows = state.max.size();
  LogicalResult result = success();

  auto loop = scf::ForOp::create(
      b, loc, lb, ub, cidx(blockN), state.flatten(),
      [&](OpBuilder &nested, Location, Value k0, ValueRange iterArgs) {
       inside(nested, [&] {
        ThreadState s = ThreadState::unflatten(iterArgs, rows);
        SharedTile outerQ = sQ, outerK = sK, outerV = sV;
        LaneView outerLQ = lQ, outerLK = lK, outerLV = lV;
        Value outerGK = gK, outerGV = gV, outerBase = sharedBase;
        IndexMaterializer scope =
            materializer.withValue(kv.loop.getInductionVar(), k0);

        // Block j has landed (blocks j + 1 .. j + S - 2 may be in flight),
        // and after the barrier every warp is done with block j - 1: its
        // stage takes block j + S - 1. One barrier per block.
        NVVM::CpAsyncWaitGroupOp::create(
            b, loc, b.getI32IntegerAttr(config.kvStages - 2));
        gpu::BarrierOp::create(b, loc);
        refreshViews(stageOf(k0));
        if (failed(issueBlock(
                kv, add(k0, cidx((config.kvStages - 1) * blockN)))))
          result = failure();

        Fragments sFrags = computeScores();
        if (kv.mask && failed(applyMask(sFrags, scope, kv.mask)))
          result = failure();
        softmaxStep(sFrags, s);
        accumulatePV(sFrags, s);
        scf::YieldOp::create(b, loc, s.flatten());
        sharedBase = outerBase;
        sQ = outerQ;
        sK = outerK;
        sV = outerV;
        gK = outerGK;
        gV = outerGV;
        lQ = outerLQ;
        lK = outerLK;
        lV = outerLV;
       });
      });
  if (failed(result))
    return failure();
  return ThreadState::unflatten(loop.getResults(), rows);
}

LogicalResult KernelBuilder::emitEpilogue(ThreadState &state) {
  tensor::ParallelInsertSliceOp storeOut = tiled.storeOut;
  Value batch, head, rowStart, rows;
  SmallVector<OpFoldResult> offsets = storeOut.getMixedOffsets();
  if (failed(get(materializer, offsets[0], batch, "output batch")) ||
      failed(get(materializer, offsets[1], head, "output head")) ||
      failed(get(materializer, offsets[2], rowStart, "output row")) ||
      failed(get(materializer, storeOut.getMixedSizes()[2], rows,
                 "output rows")))
    return failure();
  ValueRange args = kernel.getArguments();
  Value gO = headRows(args[3], batch, head, config.valueDim);
  Value gLse;
  if (config.hasLse) {
    auto lseTy = cast<MemRefType>(args[4].getType());
    int64_t dyn = ShapedType::kDynamic;
    auto viewTy = MemRefType::get(
        {dyn}, lseTy.getElementType(),
        StridedLayoutAttr::get(b.getContext(), dyn, {1}));
    Value n = memref::DimOp::create(b, loc, args[4], 2);
    gLse = memref::SubViewOp::create(
        b, loc, viewTy, args[4],
        ArrayRef<OpFoldResult>{batch, head, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), n},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                               b.getIndexAttr(1)});
  }

  // The O tile goes through shared memory (reusing it from the start, once
  // every copy has landed and every warp is done with Q, K and V), so that
  // the global stores are 16 bytes per thread and coalesced.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  gpu::BarrierOp::create(b, loc);
  SharedTile sO =
      sharedTile(dynamicShared, cidx(0), config.blockM, config.valueDim);

  int64_t colTiles = config.valueDim / 8;
  Value zero = cf32(0.0f), one = cf32(1.0f), negInf = cf32(kNegInf);
  Value ln2 = cf32(M_LN2);
  auto outRowTy = VectorType::get({2}, config.elemTy);
  Value firstInQuad = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, mma->threadInGroup(), cidx(0));
  for (int64_t mt = 0; mt < config.mTiles(); ++mt) {
    for (int64_t h = 0; h < 2; ++h) {
      size_t r = mt * 2 + h;
      // The one normalisation: the quad's partial sums, then 1 / l.
      Value sum = mma->quadReduce(b, state.sum[r], /*isMax=*/false);
      Value noKey =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum, zero);
      Value inv = arith::SelectOp::create(
          b, loc, noKey, zero, arith::DivFOp::create(b, loc, one, sum));
      Value row = rowInBlock(mt, h);
      Value invRow = vector::BroadcastOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()), inv);
      for (int64_t dt = 0; dt < colTiles; ++dt) {
        Value acc = vector::ExtractOp::create(
            b, loc, state.acc[mt * colTiles + dt], ArrayRef<int64_t>{h});
        Value out = arith::TruncFOp::create(
            b, loc, outRowTy, arith::MulFOp::create(b, loc, acc, invRow));
        vector::StoreOp::create(b, loc, out, sO.buffer,
                                ValueRange{row, colInBlock(dt, 0)},
                                /*nontemporal=*/false, llvm::MaybeAlign(4));
      }
      if (!gLse)
        continue;
      Value log2Sum = math::Log2Op::create(b, loc, sum);
      Value natural = arith::MulFOp::create(
          b, loc, arith::AddFOp::create(b, loc, state.max[r], log2Sum), ln2);
      Value lse = arith::SelectOp::create(b, loc, noKey, negInf, natural);
      Value store = arith::AndIOp::create(
          b, loc, firstInQuad,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows));
      scf::IfOp::create(b, loc, store, [&](OpBuilder &inIf, Location) {
        inside(inIf, [&] {
          memref::StoreOp::create(b, loc, lse, gLse, add(rowStart, row));
          scf::YieldOp::create(b, loc);
        });
      });
    }
  }
  gpu::BarrierOp::create(b, loc);
  storeTileRows(b, loc, sO, gO, rowStart, rows, threadId,
                config.numThreads());
  return success();
}

LogicalResult KernelBuilder::build() {
  ValueRange args = kernel.getArguments();
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, threadId, cidx(32));
  Value lane = arith::RemUIOp::create(b, loc, threadId, cidx(32));
  warpRow0 = mul(warp, cidx(config.rowsPerWarp()));
  mma.emplace(b, loc, lane, config.elemTy);

  // Shared memory: Q, then the K and V tiles of each pipeline stage.
  dynamicShared = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(
                          b.getContext(), gpu::AddressSpace::Workgroup)));
  sharedBase = cidx(0);
  sQ = sharedTile(dynamicShared, sharedBase, config.blockM, config.headDim);
  selectStage(sharedBase, cidx(0));
  makeLaneViews();

  // Global views of this block's head of Q, and its key/value head.
  TileLoad &query = tiled.query;
  KVLoop &first = tiled.kvLoops.front();
  Value qBatch, qHead, qStart, kvBatch, kvHead, vBatch, vHead;
  if (failed(get(materializer, query.batch(), qBatch, "query batch")) ||
      failed(get(materializer, query.head(), qHead, "query head")) ||
      failed(get(materializer, query.rowStart(), qStart, "Q block start")) ||
      failed(get(materializer, query.rows(), qRows, "Q block rows")) ||
      failed(get(materializer, first.key.batch(), kvBatch, "key batch")) ||
      failed(get(materializer, first.key.head(), kvHead,
                 "key/value head (it must not depend on the K/V loop)")) ||
      failed(get(materializer, first.value.batch(), vBatch, "value batch")) ||
      failed(get(materializer, first.value.head(), vHead, "value head")))
    return failure();
  gQ = headRows(args[0], qBatch, qHead, config.headDim);
  gK = headRows(args[1], kvBatch, kvHead, config.headDim);
  gV = headRows(args[2], vBatch, vHead, config.valueDim);

  // Prologue: Q with block 0 as the first cp.async group, block 1 as the
  // second.
  Value kvStart;
  if (failed(get(materializer, first.loop.getLowerBound(), kvStart,
                 "K/V loop bound")) ||
      failed(get(materializer, tiled.kvLoops.back().loop.getUpperBound(),
                 kvEnd, "K/V loop bound")))
    return failure();
  copyTileAsync(b, loc, gQ, qStart, qRows, sQ, threadId, config.numThreads());
  for (int64_t block = 0; block + 1 < config.kvStages; ++block)
    if (failed(issueBlock(first, add(kvStart, cidx(block * config.blockN)))))
      return failure();

  if (config.queryInRegisters) {
    // Wait for Q (and block 0); the next blocks may still be in flight.
    NVVM::CpAsyncWaitGroupOp::create(
        b, loc, b.getI32IntegerAttr(config.kvStages - 2));
    gpu::BarrierOp::create(b, loc);
    for (int64_t mt = 0; mt < config.mTiles(); ++mt)
      for (int64_t kk = 0; kk < config.headDim / 16; ++kk)
        qFrags.push_back(
            mma->loadA(b, lQ, add(warpRow0, cidx(mt * 16)), 2 * kk));
  }

  // m = -inf, l = 0, acc = 0.
  ThreadState state;
  size_t rows = 2 * config.mTiles();
  state.max.assign(rows, cf32(kNegInf));
  state.sum.assign(rows, cf32(0.0f));
  state.acc.assign(
      config.mTiles() * (config.valueDim / 8),
      arith::ConstantOp::create(b, loc, b.getZeroAttr(mma->accType())));
  for (KVLoop &kv : tiled.kvLoops) {
    FailureOr<ThreadState> next = emitLoop(kv, state);
    if (failed(next))
      return failure();
    state = *next;
  }
  if (failed(emitEpilogue(state)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}

} // namespace

LogicalResult mlir::fa::buildAttentionKernel(gpu::GPUFuncOp kernel,
                                             TiledAttention &tiled,
                                             const KernelConfig &config,
                                             ArrayRef<Value> hostTensors) {
  return KernelBuilder(kernel, tiled, config, hostTensors).build();
}
