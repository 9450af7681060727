//===- KernelBuilder.cpp - The FlashAttention-2 forward kernel ------------===//
//
// Per thread block (one Q block of one head), as in FlashAttention-2:
//
//   prologue  cp.async Q -> shared; cp.async K_0 -> shared
//   for each K/V block j (the unmasked loop, then the masked one):
//     wait, barrier; cp.async V_j                  (overlaps S and softmax)
//     S = Q K_j^T                 ldmatrix + mma.sync, f32 fragments
//     [mask]                      diagonal / tail blocks only
//     online softmax              quad shuffles, one FFMA + EX2 per score
//     wait, barrier; cp.async K_{j+1}              (overlaps P V)
//     acc = alpha * acc + P V_j   P stays in registers as the A operand
//   epilogue  O = acc / l, LSE = ln2 * (m + log2 l); guarded stores
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
  SharedTile sharedTile(Value dynamicShared, int64_t byteOffset, int64_t rows,
                        int64_t cols);

  LogicalResult copyKeyOrValue(IndexMaterializer &scope, TileLoad &load,
                               Value global, const SharedTile &tile);
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

  Value threadId, warpRow0;
  std::optional<WarpMma> mma;
  SharedTile sQ, sK, sV;
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

SharedTile KernelBuilder::sharedTile(Value dynamicShared, int64_t byteOffset,
                                     int64_t rows, int64_t cols) {
  auto tileTy = MemRefType::get(
      {rows, cols}, config.elemTy, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  Value view = memref::ViewOp::create(b, loc, tileTy, dynamicShared,
                                      cidx(byteOffset), ValueRange());
  return SharedTile{view, rows, cols};
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
                      : mma->loadA(b, sQ, add(warpRow0, cidx(mt * 16)),
                                   2 * kk));
    for (int64_t np = 0; np < nTiles / 2; ++np) {
      auto [b0, b1] = mma->loadBOfTransposed(b, sK, np * 16, 2 * kk);
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
  Value negInf = cf32(kNegInf);
  for (auto [mt, tiles] : llvm::enumerate(s)) {
    for (auto [nt, frag] : llvm::enumerate(tiles)) {
      for (int64_t h = 0; h < 2; ++h) {
        Value row = add(rowStart, rowInBlock(mt, h));
        Value lastVisible = offset ? add(row, offset) : Value();
        for (int64_t e = 0; e < 2; ++e) {
          Value col = add(colStart, colInBlock(nt, e));
          Value hidden;
          auto orHidden = [&](arith::CmpIPredicate pred, Value bound) {
            Value c = arith::CmpIOp::create(b, loc, pred, col, bound);
            hidden = hidden ? arith::OrIOp::create(b, loc, hidden, c) : c;
          };
          if (keyLimit)
            orHidden(arith::CmpIPredicate::sge, keyLimit);
          if (lastVisible)
            orHidden(arith::CmpIPredicate::sgt, lastVisible);
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
  for (auto [mt, tiles] : llvm::enumerate(s)) {
    // Elements [h][e] of every n-tile, exponentiated in place.
    SmallVector<SmallVector<Value>> elems(tiles.size());
    for (auto [nt, frag] : llvm::enumerate(tiles))
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          elems[nt].push_back(vector::ExtractOp::create(
              b, loc, frag, ArrayRef<int64_t>{h, e}));

    SmallVector<Value> alphas;
    for (int64_t h = 0; h < 2; ++h) {
      size_t r = mt * 2 + h;
      // Row max of the raw scores: thread-local, then across the quad.
      Value rowMax = negInf;
      for (auto &tile : elems)
        for (int64_t e = 0; e < 2; ++e)
          rowMax = arith::MaxNumFOp::create(b, loc, rowMax, tile[h * 2 + e]);
      rowMax = mma->quadReduce(b, rowMax, /*isMax=*/true);
      // The scale is > 0, so max(scale * s) = scale * max(s).
      Value newMax = arith::MaxNumFOp::create(
          b, loc, state.max[r], arith::MulFOp::create(b, loc, rowMax, scale));
      // exp2 is taken against 0 while the row has seen no key: -inf scores
      // then give 0, never NaN.
      Value noKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          newMax, negInf);
      Value base = arith::SelectOp::create(b, loc, noKey, zero, newMax);
      Value negBase = arith::NegFOp::create(b, loc, base);
      Value alpha = math::Exp2Op::create(
          b, loc, arith::SubFOp::create(b, loc, state.max[r], base));
      // P = exp2(s * scale - base): one FFMA and one EX2 per score.
      Value rowSum = zero;
      for (auto &tile : elems) {
        for (int64_t e = 0; e < 2; ++e) {
          Value &x = tile[h * 2 + e];
          x = math::Exp2Op::create(
              b, loc, math::FmaOp::create(b, loc, x, scale, negBase));
          rowSum = arith::AddFOp::create(b, loc, rowSum, x);
        }
      }
      state.sum[r] = math::FmaOp::create(b, loc, alpha, state.sum[r], rowSum);
      state.max[r] = newMax;
      alphas.push_back(alpha);
    }
    for (auto [nt, tile] : llvm::enumerate(elems))
      tiles[nt] = vector::FromElementsOp::create(b, loc, mma->accType(), tile);
    // Rescale the accumulator rows by alpha (the normalisation waits).
    Value alpha2 = vector::FromElementsOp::create(
        b, loc, mma->accType(),
        ValueRange{alphas[0], alphas[0], alphas[1], alphas[1]});
    for (int64_t dt = 0; dt < colTiles; ++dt) {
      Value &acc = state.acc[mt * colTiles + dt];
      acc = arith::MulFOp::create(b, loc, acc, alpha2);
    }
  }
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
      auto [b0, b1] = mma->loadB(b, sV, kp * 16, 2 * dp);
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
        IndexMaterializer scope =
            materializer.withValue(kv.loop.getInductionVar(), k0);

        // K_j (and, on the first block, Q) has landed; every warp is done
        // with V_{j-1}: V_j may overwrite it.
        NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
        gpu::BarrierOp::create(b, loc);
        if (failed(copyKeyOrValue(scope, kv.value, gV, sV)))
          result = failure();
        commitAsyncGroup(b, loc, {});

        Fragments sFrags = computeScores();
        if (kv.mask && failed(applyMask(sFrags, scope, kv.mask)))
          result = failure();
        softmaxStep(sFrags, s);

        // V_j has landed; every warp is done with K_j: prefetch K_{j+1}.
        NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
        gpu::BarrierOp::create(b, loc);
        Value next = add(k0, cidx(blockN));
        Value hasNext = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, next, kvEnd);
        scf::IfOp::create(b, loc, hasNext, [&](OpBuilder &inIf, Location) {
          inside(inIf, [&] {
            IndexMaterializer nextScope =
                materializer.withValue(kv.loop.getInductionVar(), next);
            if (failed(copyKeyOrValue(nextScope, kv.key, gK, sK)))
              result = failure();
            scf::YieldOp::create(b, loc);
          });
        });
        commitAsyncGroup(b, loc, {});

        accumulatePV(sFrags, s);
        scf::YieldOp::create(b, loc, s.flatten());
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
      Value inBounds =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
      Value lse;
      if (gLse) {
        Value log2Sum = math::Log2Op::create(b, loc, sum);
        Value natural = arith::MulFOp::create(
            b, loc, arith::AddFOp::create(b, loc, state.max[r], log2Sum), ln2);
        lse = arith::SelectOp::create(b, loc, noKey, negInf, natural);
      }
      scf::IfOp::create(b, loc, inBounds, [&](OpBuilder &inIf, Location) {
       inside(inIf, [&] {
        Value outRow = add(rowStart, row);
        for (int64_t dt = 0; dt < colTiles; ++dt) {
          Value acc = vector::ExtractOp::create(
              b, loc, state.acc[mt * colTiles + dt], ArrayRef<int64_t>{h});
          Value scaled = arith::MulFOp::create(
              b, loc, acc, vector::BroadcastOp::create(b, loc, acc.getType(), inv));
          Value out = arith::TruncFOp::create(b, loc, outRowTy, scaled);
          vector::StoreOp::create(b, loc, out, gO,
                                  ValueRange{outRow, colInBlock(dt, 0)});
        }
        if (lse) {
          scf::IfOp::create(b, loc, firstInQuad, [&](OpBuilder &inner, Location) {
            inside(inner, [&] {
              memref::StoreOp::create(b, loc, lse, gLse, outRow);
              scf::YieldOp::create(b, loc);
            });
          });
        }
        scf::YieldOp::create(b, loc);
       });
      });
    }
  }
  return success();
}

LogicalResult KernelBuilder::build() {
  ValueRange args = kernel.getArguments();
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, threadId, cidx(32));
  Value lane = arith::RemUIOp::create(b, loc, threadId, cidx(32));
  warpRow0 = mul(warp, cidx(config.rowsPerWarp()));
  mma.emplace(b, loc, lane, config.elemTy);

  // Shared memory: Q, then K, then V.
  Value dynamicShared = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(
                          b.getContext(), gpu::AddressSpace::Workgroup)));
  int64_t qBytes = 2 * config.blockM * config.headDim;
  int64_t kBytes = 2 * config.blockN * config.headDim;
  sQ = sharedTile(dynamicShared, 0, config.blockM, config.headDim);
  sK = sharedTile(dynamicShared, qBytes, config.blockN, config.headDim);
  sV = sharedTile(dynamicShared, qBytes + kBytes, config.blockN,
                  config.valueDim);

  // Global views of this block's head of Q, and its key/value head.
  TileLoad &query = tiled.query;
  KVLoop &first = tiled.kvLoops.front();
  Value qBatch, qHead, qStart, qRows, kvBatch, kvHead, vBatch, vHead;
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

  // Prologue: Q, then the first K block, as two cp.async groups.
  Value kvStart;
  if (failed(get(materializer, first.loop.getLowerBound(), kvStart,
                 "K/V loop bound")) ||
      failed(get(materializer, tiled.kvLoops.back().loop.getUpperBound(),
                 kvEnd, "K/V loop bound")))
    return failure();
  copyTileAsync(b, loc, gQ, qStart, qRows, sQ, threadId, config.numThreads());
  commitAsyncGroup(b, loc, {});
  Value anyBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         kvStart, kvEnd);
  LogicalResult firstCopy = success();
  scf::IfOp::create(b, loc, anyBlock, [&](OpBuilder &inIf, Location) {
    inside(inIf, [&] {
      IndexMaterializer scope =
          materializer.withValue(first.loop.getInductionVar(), kvStart);
      firstCopy = copyKeyOrValue(scope, first.key, gK, sK);
      scf::YieldOp::create(b, loc);
    });
  });
  if (failed(firstCopy))
    return failure();
  commitAsyncGroup(b, loc, {});

  if (config.queryInRegisters) {
    // Wait for Q only (the K group may still be in flight).
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(1));
    gpu::BarrierOp::create(b, loc);
    for (int64_t mt = 0; mt < config.mTiles(); ++mt)
      for (int64_t kk = 0; kk < config.headDim / 16; ++kk)
        qFrags.push_back(
            mma->loadA(b, sQ, add(warpRow0, cidx(mt * 16)), 2 * kk));
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
