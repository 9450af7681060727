//===- Memory.cpp - Tile loads and stores ----------------------------------===//
//
// Loads into shared tiles (synchronous tensor.pad loads, fa.async_load and
// fa.await) and the stores of the output rows. The tensors a tile is read
// from or written to are the kernel's arguments (the outliner made them
// bufferization.to_tensor / memref.subview of the memref parameters).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

using namespace mlir;
using namespace mlir::fa;

namespace {

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Byte offset of slot `slot` of `ring`.
Value slotOffset(OpBuilder &b, Location loc, const SharedMemoryPlan::Ring &ring,
                 Value slot) {
  return arith::AddIOp::create(
      b, loc, cidx(b, loc, ring.base),
      arith::MulIOp::create(b, loc, slot, cidx(b, loc, ring.slotBytes)));
}

/// Pattern: tensor.pad(tensor.extract_slice(kernel argument)) to a shared
/// tile => a synchronous copy into the load's own buffer: every warp done
/// with the buffer, the copy, wait for it. (--fa-pipeline-kv turns the
/// loads of the loop nest into fa.async_load/fa.await instead.)
struct LowerSyncTileLoad : OpConversionPattern<tensor::PadOp> {
  LowerSyncTileLoad(const TypeConverter &converter, MLIRContext *ctx,
                    KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(tensor::PadOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &b) const override {
    auto tile = cast<RankedTensorType>(op.getResult().getType());
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    bool intoRegisters = rows && rows.getRole() == FragmentRole::Acc &&
                         tile.getElementType().isF32();
    if (!isa_and_nonnull<BlockSharedAttr>(tile.getEncoding()) &&
        !intoRegisters)
      return op.emitOpError("fa-lower-to-gpu: tiles are loaded into shared "
                            "memory (#fa.block_shared), or f32 tiles into "
                            "acc fragments, got ")
             << tile;
    FailureOr<TileLoad> load = matchTileLoad(op.getResult());
    Value source = succeeded(load) ? kernelBuffer(load->source()) : Value();
    if (!source)
      return op.emitOpError("fa-lower-to-gpu: a tile must be loaded "
                            "from rows of one head of a kernel argument "
                            "(tensor.pad of tensor.extract_slice)");
    Location loc = op.getLoc();
    auto index = [&](OpFoldResult ofr) {
      return getValueOrCreateConstantIndexOp(b, loc, ofr);
    };
    if (intoRegisters) {
      // The atomic dQ's f32 sums, read by the nest that rounds them (a
      // matched tile load's padding value is a constant).
      Value pad = op.getConstantPaddingValue();
      b.replaceOpWithMultiple(
          op, {kernel.atom.loadAccTile(
                  b, loc, source,
                  TileRows{index(load->batch()), index(load->head()),
                           index(load->rowStart()), index(load->rows()),
                           load->alongHeads},
                  tile, pad, /*fragmentOrder=*/false)});
      return success();
    }
    Value offset = cidx(b, loc, kernel.plan.ring(op).base);
    kernel.atom.waitCopies(b, loc, 0);
    kernel.atom.copyTileAsync(
        b, loc, source,
        TileRows{index(load->batch()), index(load->head()),
                 index(load->rowStart()), index(load->rows()),
                 load->alongHeads},
        tile, offset, /*l2PrefetchBytes=*/0);
    kernel.atom.commitCopies(b, loc);
    kernel.atom.waitCopies(b, loc, 0);
    b.replaceOp(op, offset);
    return success();
  }
  KernelContext &kernel;
};

/// PTX of a wait for phase $1 of the mbarrier at shared address $0: a
/// `try_wait.parity` loop (labels are local to the braces). With
/// `timeoutMs` > 0 the thread reads %globaltimer (ns) first and traps once
/// it has waited longer, so that a pipeline bug in a test build fails the
/// launch instead of hanging it.
std::string mbarrierWaitAsm(int64_t timeoutMs) {
  std::string wait = "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n";
  if (timeoutMs <= 0)
    return "{\n.reg .pred p;\nfa_wait:\n" + wait +
           "@!p bra.uni fa_wait;\n}";
  return "{\n.reg .pred p;\n.reg .u64 t0, t;\n"
         "mov.u64 t0, %globaltimer;\nfa_wait:\n" +
         wait +
         "@p bra.uni fa_done;\nmov.u64 t, %globaltimer;\nsub.u64 t, t, t0;\n"
         "setp.gt.u64 p, t, " +
         std::to_string(timeoutMs * 1000000) +
         ";\n@p trap;\nbra.uni fa_wait;\nfa_done:\n}";
}

/// The executing thread waits for phase `phase` (an index, 0 or 1) of the
/// mbarrier at `barrier` to complete (mbarrierWaitAsm).
void waitForPhase(OpBuilder &b, Location loc, KernelContext &kernel,
                  Value barrier, Value phase) {
  Value parity =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), phase);
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), barrier);
  LLVM::InlineAsmOp::create(
      b, loc, Type(), ValueRange{address, parity},
      mbarrierWaitAsm(kernel.mbarrierTimeoutMs), "r,r",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
}

/// `body` under `if (pred)`, or as is without a predicate (an
/// fa.async_load's copies).
void underPredicate(OpBuilder &b, Location loc, Value pred,
                    function_ref<void(OpBuilder &, Location)> body) {
  if (!pred) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, pred, [&](OpBuilder &nb, Location l) {
    body(nb, l);
    scf::YieldOp::create(nb, l);
  });
}

/// The mbarrier of slot `slot` of a ring whose first is at byte `first`.
Value slotBarrier(OpBuilder &b, Location loc, KernelContext &kernel,
                  int64_t first, Value slot) {
  Value offset = arith::AddIOp::create(
      b, loc, cidx(b, loc, first),
      arith::MulIOp::create(b, loc, slot, cidx(b, loc, 8)));
  return kernel.atom.sharedPointer(b, loc, offset);
}

/// An fa.async_load {tma}: thread 0 (or the load's issuer) waits for the
/// slot's release where the load says after_release, orders the earlier
/// reads of the slot (generic proxy) before TMA's writes (async proxy),
/// announces the bytes to the slot's mbarrier and arrives on it (0 bytes
/// when `%pred` is false, which completes the phase at once, keeping the
/// slot's phases in step), then issues the copies.
LogicalResult lowerTmaLoad(AsyncLoadOp op, ValueRange sources,
                           AsyncLoadOp::Adaptor adaptor, KernelContext &kernel,
                           ConversionPatternRewriter &b) {
  Location loc = op.getLoc();
  auto future = cast<FutureType>(op.getFuture().getType());
  std::optional<int64_t> first = kernel.plan.barriers(op.getFuture());
  if (!first)
    return op.emitOpError("fa-lower-to-gpu: no mbarriers for this tma load");
  std::optional<int64_t> released =
      kernel.plan.releaseBarriers(op.getFuture());
  if (released.has_value() != static_cast<bool>(op.getReleasePhase()))
    return op.emitOpError("fa-lower-to-gpu: the ring's loads disagree on "
                          "waiting for releases");
  int64_t bytes = 0;
  for (RankedTensorType tile : future.getTiles())
    bytes += tile.getNumElements() * tile.getElementTypeBitWidth() / 8;
  SmallVector<Value> maps;
  for (Value source : sources) {
    maps.push_back(kernel.tensorMaps.lookup(source));
    if (!maps.back())
      return op.emitOpError("fa-lower-to-gpu: no tensor map for a tma load's "
                            "source");
  }
  // The issuing thread: thread 0, or the one the load names (issuer(T)),
  // which must be in the block.
  int64_t issuer = static_cast<int64_t>(op.getIssuer().value_or(0));
  std::optional<int64_t> threads = blockThreads(op);
  if (issuer != 0 && (!threads || issuer >= *threads))
    return op.emitOpError("fa-lower-to-gpu: issuer(")
           << issuer << ") is not a thread of the block ("
           << (threads ? std::to_string(*threads) : "unknown size")
           << " threads)";
  Type i32 = b.getI32Type();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                       cidx(b, loc, issuer));
  LogicalResult copied = success();
  scf::IfOp::create(b, loc, leader, [&](OpBuilder &nb, Location l) {
    // Every warp is done with the slot's previous fill. Also where nothing
    // is copied: the arrival below starts the slot's next phase, which
    // must not overtake a warp still waiting for the one before.
    if (released)
      waitForPhase(nb, l, kernel,
                   slotBarrier(nb, l, kernel, *released, adaptor.getSlot()),
                   adaptor.getReleasePhase());
    Value barrier =
        slotBarrier(nb, l, kernel, *first, adaptor.getSlot());
    Value txBytes = arith::ConstantIntOp::create(nb, l, i32, bytes);
    if (Value pred = adaptor.getPred())
      txBytes = arith::SelectOp::create(
          nb, l, pred, txBytes, arith::ConstantIntOp::create(nb, l, i32, 0));
    createAsmStatement(nb, l, "fence.proxy.async.shared::cta;");
    NVVM::MBarrierArriveExpectTxOp::create(nb, l, Type(), barrier, txBytes,
                                           NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false, Value());
    auto copies = [&](OpBuilder &cb, Location cl) {
      for (auto [i, tile] : llvm::enumerate(future.getTiles()))
        if (failed(kernel.atom.copyTileByTma(
                cb, cl, maps[i],
                TileRows{adaptor.getBatch(), adaptor.getHead(),
                         adaptor.getRowStart(), adaptor.getRows(),
                         op.getAlongHeads()},
                tile,
                slotOffset(cb, cl, kernel.plan.ring(op.getFuture(), i),
                           adaptor.getSlot()),
                barrier)))
          copied = failure();
    };
    underPredicate(nb, l, adaptor.getPred(), copies);
    scf::YieldOp::create(nb, l);
  });
  if (failed(copied))
    return op.emitOpError("fa-lower-to-gpu: the atom cannot copy these tiles "
                          "with TMA");
  // An empty cp.async group, so that fa.await's `pending` still counts
  // every fa.async_load (of the other, cp.async, loads) exactly.
  kernel.atom.commitCopies(b, loc);
  b.replaceOp(op, adaptor.getSlot());
  return success();
}

/// Pattern: fa.async_load => (under `if (%pred)`) one cooperative copy per
/// source into its ring's slot, then one commit: a group. The future is the
/// slot. With {tma}: lowerTmaLoad.
struct LowerAsyncLoad : OpConversionPattern<AsyncLoadOp> {
  LowerAsyncLoad(const TypeConverter &converter, MLIRContext *ctx,
                 KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(AsyncLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto future = cast<FutureType>(op.getFuture().getType());
    SmallVector<Value> sources;
    for (Value source : op.getSources()) {
      sources.push_back(kernelBuffer(source));
      if (!sources.back())
        return op.emitOpError("fa-lower-to-gpu: tiles are loaded from kernel "
                              "arguments");
    }
    if (op.getTma())
      return lowerTmaLoad(op, sources, adaptor, kernel, b);
    auto copies = [&](OpBuilder &nb, Location l) {
      for (auto [i, source, tile] :
           llvm::enumerate(sources, future.getTiles()))
        kernel.atom.copyTileAsync(
            nb, l, source,
            TileRows{adaptor.getBatch(), adaptor.getHead(),
                     adaptor.getRowStart(), adaptor.getRows(),
                     op.getAlongHeads()},
            tile,
            slotOffset(nb, l, kernel.plan.ring(op.getFuture(), i),
                       adaptor.getSlot()),
            static_cast<int64_t>(op.getL2Prefetch().value_or(0)));
    };
    underPredicate(b, loc, adaptor.getPred(), copies);
    // Committed even when nothing was copied, so that every fa.async_load is
    // one group and fa.await's `pending` counts them exactly.
    kernel.atom.commitCopies(b, loc);
    b.replaceOp(op, adaptor.getSlot());
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.await => wait until at most `pending` groups are in flight,
/// barrier; the tiles are the byte offsets of the future's slot.
struct LowerAwait : OpConversionPattern<AwaitOp> {
  LowerAwait(const TypeConverter &converter, MLIRContext *ctx,
             KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(AwaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto future = cast<FutureType>(op.getFuture().getType());
    std::optional<int64_t> barriers = kernel.plan.barriers(op.getFuture());
    if (barriers.has_value() != static_cast<bool>(op.getPhase()))
      return op.emitOpError("fa-lower-to-gpu: ")
             << (barriers ? "awaits tma loads without a phase(%p)"
                          : "has a phase but awaits cp.async loads");
    if (barriers) {
      // Every thread waits for the slot's phase `phase` to complete (its
      // copies have landed), then the barrier of fa.await's contract,
      // unless the ring's slots are released by fa.release instead.
      waitForPhase(b, loc, kernel,
                   slotBarrier(b, loc, kernel, *barriers, adaptor.getFuture()),
                   adaptor.getPhase());
      bool released = kernel.plan.releaseBarriers(op.getFuture()).has_value();
      if (Value from = adaptor.getZeroFrom()) {
        // A block shorter than the tiles (the same count for every thread,
        // so the barrier inside is reached by all or none): zero the rows
        // past it, hand the zeros to the async proxy wgmma reads through,
        // and meet where the await has no barrier of its own.
        int64_t tileRows = future.getTiles().front().getDimSize(0);
        // (At least 0: no store lands before the tile whatever `from` is.)
        from = arith::MaxSIOp::create(b, loc, from, cidx(b, loc, 0));
        Value shorter = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              from, cidx(b, loc, tileRows));
        LogicalResult zeroed = success();
        scf::IfOp::create(b, loc, shorter, [&](OpBuilder &nb, Location l) {
          for (auto [i, tile] : llvm::enumerate(future.getTiles()))
            if (failed(kernel.atom.zeroTileRows(
                    nb, l, tile,
                    slotOffset(nb, l, kernel.plan.ring(op.getFuture(), i),
                               adaptor.getFuture()),
                    from)))
              zeroed = failure();
          createAsmStatement(nb, l, "fence.proxy.async.shared::cta;");
          if (released)
            gpu::BarrierOp::create(nb, l);
          scf::YieldOp::create(nb, l);
        });
        if (failed(zeroed))
          return op.emitOpError("fa-lower-to-gpu: the atom cannot zero the "
                                "rows of these tiles");
      }
      if (!released)
        gpu::BarrierOp::create(b, loc);
    } else {
      kernel.atom.waitCopies(b, loc, op.getPending());
    }
    SmallVector<Value> tiles;
    for (size_t i = 0; i < future.getTiles().size(); ++i)
      tiles.push_back(
          slotOffset(b, loc, kernel.plan.ring(op.getFuture(), i),
                     adaptor.getFuture()));
    b.replaceOp(op, tiles);
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.release => (under `if (%pred)`) the warp's lanes meet, then
/// lane 0 arrives on the slot's release mbarrier, which expects one arrival
/// per warp.
struct LowerRelease : OpConversionPattern<ReleaseOp> {
  LowerRelease(const TypeConverter &converter, MLIRContext *ctx,
               KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(ReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    std::optional<int64_t> released =
        kernel.plan.releaseBarriers(op.getFuture());
    if (!released)
      return op.emitOpError("fa-lower-to-gpu: releases a future whose loads "
                            "do not wait for releases");
    underPredicate(b, op.getLoc(), adaptor.getPred(),
                   [&](OpBuilder &nb, Location l) {
      NVVM::SyncWarpOp::create(
          nb, l, arith::ConstantIntOp::create(nb, l, nb.getI32Type(), -1));
      Value lane = NVVM::LaneIdOp::create(nb, l, nb.getI32Type());
      Value first = arith::CmpIOp::create(
          nb, l, arith::CmpIPredicate::eq, lane,
          arith::ConstantIntOp::create(nb, l, nb.getI32Type(), 0));
      scf::IfOp::create(nb, l, first, [&](OpBuilder &ib, Location il) {
        NVVM::MBarrierArriveOp::create(
            ib, il, Type(),
            slotBarrier(ib, il, kernel, *released, adaptor.getFuture()),
            Value());
        scf::YieldOp::create(ib, il);
      });
    });
    b.eraseOp(op);
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: tensor.extract_slice of rows [0, n) of a tile held by warps,
/// materialized into a subview of a kernel argument => the atom's store of
/// those rows (acc tiles through a shared staging tile, or, for a splat
/// constant, straight from every thread; per-row vectors by one lane per
/// row).
struct LowerTileStore : OpConversionPattern<tensor::ExtractSliceOp> {
  LowerTileStore(const TypeConverter &converter, MLIRContext *ctx,
                 KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto tile = cast<RankedTensorType>(op.getSource().getType());
    auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
    auto store =
        op->hasOneUse()
            ? dyn_cast<bufferization::MaterializeInDestinationOp>(
                  *op->user_begin())
            : nullptr;
    auto dest = store ? store.getDest().getDefiningOp<memref::SubViewOp>()
                      : nullptr;
    auto isZero = [](OpFoldResult ofr) {
      std::optional<int64_t> v = getConstantIntValue(ofr);
      return v && *v == 0;
    };
    bool leadingRows =
        llvm::all_of(op.getMixedOffsets(), isZero) && op.hasUnitStride() &&
        (tile.getRank() == 1 ||
         getConstantIntValue(op.getMixedSizes()[1]) == tile.getDimSize(1));
    // Rows of one head: the destination is [1, 1, n, ...] of the argument;
    // or rows along the heads (GQA packing): [1, n, 1, ...].
    std::optional<bool> alongHeads =
        dest ? sliceRowsAlongHeads(dest.getMixedSizes()) : std::nullopt;
    // Whole tiles (group 0 stores), or acc tiles whose groups hold column
    // shares (each group stores its own); never summands.
    if (rows && rows.getShare() != ReplicaShare::Whole &&
        !(rows.getShare() == ReplicaShare::Columns &&
          rows.getRole() == FragmentRole::Acc))
      return op.emitOpError("fa-lower-to-gpu: stores a tile that every group "
                            "of warps holds whole (or an acc tile whose "
                            "groups hold its columns), not share = ")
             << stringifyReplicaShare(rows.getShare()) << ": " << tile;
    if (!rows || !dest || !leadingRows || !alongHeads)
      return op.emitOpError("fa-lower-to-gpu: a tile held by warps can only "
                            "be stored, rows [0, n) of it, into rows of one "
                            "head (or one position of consecutive heads) of "
                            "a kernel argument");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> at = dest.getMixedOffsets();
    auto index = [&](OpFoldResult ofr) {
      return getValueOrCreateConstantIndexOp(b, loc, ofr);
    };
    Value n = index(op.getMixedSizes()[0]);
    TileRows destRows{index(at[0]), index(at[1]), index(at[2]), n,
                      *alongHeads};
    // A tile of columns [c, c + cols) of the rows (split-KV's merge).
    if (tile.getRank() == 2 && at.size() == 4 && !isZero(at[3])) {
      destRows.col = index(at[3]);
      destRows.cols = tile.getDimSize(1);
    }
    if (rows.getRole() == FragmentRole::Acc) {
      // f16/bf16 (O) or f32 (split-KV's partial O).
      if (!tile.getElementType().isF16() && !tile.getElementType().isBF16() &&
          !tile.getElementType().isF32())
        return op.emitOpError("fa-lower-to-gpu: output tiles are stored as "
                              "f16, bf16 or f32, got ")
               << tile.getElementType();
      if (Attribute splat = storedSplat(op))
        kernel.atom.storeSplatTile(
            b, loc, tile,
            arith::ConstantOp::create(b, loc, cast<TypedAttr>(splat)),
            dest.getSource(), destRows);
      else
        kernel.atom.storeAccTile(b, loc, tile, adaptor.getSource(),
                                 dest.getSource(), destRows,
                                 cidx(b, loc, kernel.plan.stagingOffset()));
    } else if (rows.getRole() == FragmentRole::Rows) {
      kernel.atom.storeRows(b, loc, tile, adaptor.getSource(),
                            dest.getSource(), destRows);
    } else {
      return op.emitOpError("fa-lower-to-gpu: cannot store a tile in the ")
             << stringifyFragmentRole(rows.getRole()) << " role";
    }
    b.eraseOp(store);
    b.eraseOp(op);
    return success();
  }
  KernelContext &kernel;
};

/// Whether every thread of the thread block reaches `op` together: it sits
/// in the kernel's body, outside any region that could diverge (what warp
/// shuffles and an exit of the whole thread block need).
bool reachedByWholeBlock(Operation *op) {
  return isa<gpu::GPUFuncOp>(op->getParentOp());
}

/// The walk of fa.varlen_block on the lanes of a warp, 32 sequences a round:
/// lane l counts the Q blocks of sequence base + l, an inclusive scan over
/// the lanes (shuffles) gives each sequence the end of its blocks, and the
/// lanes whose sequence ends at or before `index` are a prefix of the warp
/// (the ends never decrease), so their count (ballot, popc) is the lane of
/// the sequence that holds `index`. Every sequence's range is the one
/// semantics::varlenBlock gives it (the same integer arithmetic), so the
/// result is that walk's: (0, index) when no sequence holds the block.
/// The loop's results: the first block past the sequences, the sequence,
/// the block within it, and whether some sequence holds the block (then it
/// has at least one row).
/// ceil(S / 32) rounds of about 35 instructions instead of S steps of about
/// 15, which took 10-15 % of a thread block's instructions with 32
/// sequences of 512 tokens (docs/performance.md, "varlen_block on the
/// lanes").
scf::ForOp varlenBlockOnLanes(OpBuilder &b, Location loc, Value cu,
                              Value numSeqs, Value index, int64_t blockRows) {
  Type i32 = b.getI32Type();
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  auto toI32 = [&](OpBuilder &nb, Location l, Value v) -> Value {
    return arith::IndexCastOp::create(nb, l, i32, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, cidx(b, loc, 32));
  Value index32 = toI32(b, loc, index);
  auto loop = scf::ForOp::create(
      b, loc, cidx(b, loc, 0), numSeqs, cidx(b, loc, 32),
      ValueRange{c32(0), cidx(b, loc, 0), index,
                 arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0)},
      [&](OpBuilder &lb, Location l, Value base, ValueRange state) {
        // Sequence base + lane; lanes past the last read cu[S] twice (a
        // sequence of no blocks).
        Value seq = arith::AddIOp::create(lb, l, base, lane);
        Value next = arith::AddIOp::create(lb, l, seq, cidx(lb, l, 1));
        Value startAt = arith::MinUIOp::create(lb, l, seq, numSeqs);
        Value stopAt = arith::MinUIOp::create(lb, l, next, numSeqs);
        Value start = memref::LoadOp::create(lb, l, cu, startAt);
        Value stop = memref::LoadOp::create(lb, l, cu, stopAt);
        Value diff = arith::SubIOp::create(lb, l, stop, start);
        Value length = arith::MaxSIOp::create(lb, l, diff, c32(0));
        Value blocks = arith::CeilDivUIOp::create(lb, l, length, c32(blockRows));
        // Inclusive scan of the block counts over the lanes.
        Value inclusive = blocks;
        for (int64_t offset = 1; offset < 32; offset *= 2) {
          auto up = gpu::ShuffleOp::create(lb, l, inclusive, c32(offset),
                                           c32(32), gpu::ShuffleMode::UP);
          Value added =
              arith::AddIOp::create(lb, l, inclusive, up.getShuffleResult());
          inclusive = arith::SelectOp::create(lb, l, up.getValid(), added,
                                              inclusive);
        }
        Value first = state[0];
        Value end = arith::AddIOp::create(lb, l, first, inclusive);
        Value endsBefore = arith::CmpIOp::create(
            lb, l, arith::CmpIPredicate::ule, end, index32);
        Value before = NVVM::VoteSyncOp::create(
            lb, l, i32, c32(-1), endsBefore,
            NVVM::VoteSyncKindAttr::get(lb.getContext(),
                                        NVVM::VoteSyncKind::ballot));
        Value winner = LLVM::CtPopOp::create(lb, l, i32, before);
        // The first lane whose sequence ends after `index` holds it if the
        // round's first block is at or before it.
        Value inRound = arith::AndIOp::create(
            lb, l,
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult, winner,
                                  c32(32)),
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::uge, index32,
                                  first));
        Value source = arith::MinUIOp::create(lb, l, winner, c32(31));
        Value blockStart = arith::SubIOp::create(lb, l, end, blocks);
        Value winnerStart =
            gpu::ShuffleOp::create(lb, l, blockStart, source, c32(32),
                                   gpu::ShuffleMode::IDX)
                .getShuffleResult();
        Value roundBlocks =
            gpu::ShuffleOp::create(lb, l, inclusive, c32(31), c32(32),
                                   gpu::ShuffleMode::IDX)
                .getShuffleResult();
        Value winnerSeq = arith::AddIOp::create(
            lb, l, base,
            arith::IndexCastOp::create(lb, l, lb.getIndexType(), winner));
        Value local = arith::IndexCastOp::create(
            lb, l, lb.getIndexType(),
            arith::SubIOp::create(lb, l, index32, winnerStart));
        Value foundSeq =
            arith::SelectOp::create(lb, l, inRound, winnerSeq, state[1]);
        Value foundBlock =
            arith::SelectOp::create(lb, l, inRound, local, state[2]);
        Value found = arith::OrIOp::create(lb, l, state[3], inRound);
        Value nextFirst = arith::AddIOp::create(lb, l, first, roundBlocks);
        scf::YieldOp::create(
            lb, l, ValueRange{nextFirst, foundSeq, foundBlock, found});
      });
  return loop;
}

/// The PTX `instruction` (exit, trap: MLIR has no op for either), inline,
/// for the threads where the i1 `cond` is `when`.
void ptxWhen(OpBuilder &b, Location loc, Value cond, bool when,
             StringRef instruction) {
  Value flag = arith::ExtUIOp::create(b, loc, b.getI32Type(), cond);
  std::string text = ("{\n.reg .pred %p;\nsetp." + Twine(when ? "ne" : "eq") +
                      ".u32 %p, $0, 0;\n@%p " + instruction + ";\n}")
                         .str();
  LLVM::InlineAsmOp::create(
      b, loc, Type(), ValueRange{flag}, text, "r",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
}

/// The thread ends here unless `cond` (PTX `exit`). For a block no
/// sequence holds: it has no row, so nothing after the walk has an effect,
/// and the whole thread block (the condition is the same for all its
/// threads) ends at once, as FlashAttention's kernels return. Inline rather
/// than a branch around the rest, which gave the same PTX as an scf.if and
/// cost 1.6-1.9 % on long d = 128 sequences (docs/performance.md,
/// "varlen_block on the lanes").
void exitUnless(OpBuilder &b, Location loc, Value cond) {
  ptxWhen(b, loc, cond, /*when=*/false, "exit");
}

/// The thread traps if `cond` (PTX `trap`): a launch argument the kernel
/// cannot serve (max_seqlen_q below a sequence's length) fails the launch
/// instead of leaving rows unwritten.
void trapIf(OpBuilder &b, Location loc, Value cond) {
  ptxWhen(b, loc, cond, /*when=*/true, "trap");
}

/// Pattern: fa.varlen_block => the walk over the sequences, every thread
/// reading cu_seqlens, kernel arguments, with plain loads: on the lanes of
/// a warp (varlenBlockOnLanes), then an exit for a block without rows,
/// where the whole thread block reaches the op; else one sequence a step
/// (AttentionMath.h, varlenBlock, the definition), no exit. With
/// per_sequence, its slots where it is positive (semantics::
/// perSequenceBlock: a division instead of the walk), trapping for a
/// sequence longer than its slots. There the sequence's four offsets are
/// loaded before the trap and the exit: inline PTX with side effects
/// orders every later load after it, and a load behind them would be a
/// second global round trip before the first tile's address is known (the
/// walk has its own round trips; its exit comes first, saving the loads
/// of a block without rows).
struct LowerVarlenBlock : OpConversionPattern<VarlenBlockOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VarlenBlockOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Value cuQ = kernelBuffer(op.getCuSeqlensQ()),
          cuK = kernelBuffer(op.getCuSeqlensK());
    if (!cuQ || !cuK)
      return op.emitOpError("fa-lower-to-gpu: cu_seqlens must be kernel "
                            "arguments");
    Location loc = op.getLoc();
    Value numSeqs = arith::SubIOp::create(
        b, loc, memref::DimOp::create(b, loc, cuQ, 0), cidx(b, loc, 1));
    auto reader = [](Value cu) {
      return [cu](OpBuilder &rb, Location l, Value i) -> Value {
        return arith::IndexCastOp::create(
            rb, l, rb.getIndexType(), memref::LoadOp::create(rb, l, cu, i));
      };
    };
    auto readQ = reader(cuQ), readK = reader(cuK);
    auto results = [](const semantics::VarlenBlock &found) {
      return SmallVector<Value>{found.sequence,      found.block,
                                found.queries.start, found.queries.length,
                                found.keys.start,    found.keys.length};
    };
    Value index = adaptor.getIndex(), perSequence = op.getBlocksPerSequence();
    int64_t rows = op.getBlockRows();
    if (!reachedByWholeBlock(op)) {
      semantics::VarlenBlock found = semantics::varlenBlock(
          b, loc, readQ, readK, numSeqs, index, rows, perSequence);
      if (perSequence)
        trapIf(b, loc, found.tooLong);
      b.replaceOp(op, results(found));
      return success();
    }
    // The walk on the lanes: its own loads of cu_seqlens_q are the round
    // trips; the exit follows them, the offsets' loads the exit.
    auto walk = [&](OpBuilder &wb, Location l) {
      ValueRange found =
          varlenBlockOnLanes(wb, l, cuQ, numSeqs, index, rows).getResults();
      exitUnless(wb, l, found[3]);
      // Past the exit some sequence holds the block: no clamp needed.
      semantics::VarlenBlock block;
      block.sequence = found[1];
      block.block = found[2];
      block.queries =
          semantics::sequenceRows(wb, l, readQ, Value(), block.sequence);
      block.keys =
          semantics::sequenceRows(wb, l, readK, Value(), block.sequence);
      return results(block);
    };
    if (!perSequence) {
      b.replaceOp(op, walk(b, loc));
      return success();
    }
    // The slots: one round trip for the four offsets, then the trap and
    // the exit. Slots or walk are uniform over the thread block
    // (perSequence is a launch parameter).
    auto slots = [&](OpBuilder &sb, Location l) {
      semantics::VarlenBlock found = semantics::perSequenceBlock(
          sb, l, readQ, readK, numSeqs, index, perSequence, rows);
      trapIf(sb, l, found.tooLong);
      exitUnless(sb, l, found.hasRows);
      return results(found);
    };
    Value slotted = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          perSequence, cidx(b, loc, 0));
    auto ifOp = scf::IfOp::create(
        b, loc, slotted,
        [&](OpBuilder &tb, Location l) {
          scf::YieldOp::create(tb, l, slots(tb, l));
        },
        [&](OpBuilder &eb, Location l) {
          scf::YieldOp::create(eb, l, walk(eb, l));
        });
    b.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// Pattern: a tile held by warps materialized as a whole (no
/// tensor.extract_slice) => a diagnostic: the rows to store are not known.
struct RejectWholeTileStore
    : OpConversionPattern<bufferization::MaterializeInDestinationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(bufferization::MaterializeInDestinationOp op,
                  OneToNOpAdaptor,
                  ConversionPatternRewriter &) const override {
    return op.emitOpError("fa-lower-to-gpu: store rows [0, n) of a tile held "
                          "by warps with tensor.extract_slice, not the tile "
                          "itself");
  }
};

} // namespace

void mlir::fa::populateMemoryPatterns(const TypeConverter &converter,
                                      KernelContext &kernel,
                                      RewritePatternSet &patterns) {
  patterns.add<LowerSyncTileLoad, LowerAsyncLoad, LowerAwait, LowerRelease,
               LowerTileStore>(
      converter, patterns.getContext(), kernel);
  patterns.add<RejectWholeTileStore, LowerVarlenBlock>(converter,
                                                       patterns.getContext());
}
