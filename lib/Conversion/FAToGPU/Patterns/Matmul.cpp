//===- Matmul.cpp - fa.qk and fa.pv on the atom's MMA ---------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Pattern: fa.qk (Q in A registers or shared, K shared) => zero acc
/// fragments, then the atom's MMAs of Q K^T.
struct LowerQK : OpConversionPattern<QKOp> {
  LowerQK(const TypeConverter &converter, MLIRContext *ctx,
          KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(QKOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fullScoresTy = cast<RankedTensorType>(op.getScores().getType());
    // Key groups: the group's columns of S, from its rows of K.
    RankedTensorType scoresTy = groupTile(fullScoresTy);
    auto queryTy = cast<RankedTensorType>(op.getQuery().getType());
    if (failed(kernel.atom.checkMatmulShape(op.getLoc(), scoresTy.getDimSize(0),
                                            scoresTy.getDimSize(1),
                                            queryTy.getDimSize(1))))
      return failure();
    SmallVector<Type> fragTypes;
    if (failed(getTypeConverter()->convertType(fullScoresTy, fragTypes)))
      return failure();
    SmallVector<Value> zeros;
    for (Type t : fragTypes)
      zeros.push_back(arith::ConstantOp::create(rewriter, op.getLoc(),
                                                rewriter.getZeroAttr(t)));
    TileOperand key = tileOperand(op.getKey(), adaptor.getKey());
    if (dividesKeys(fullScoresTy))
      key = groupKeyRows(rewriter, op.getLoc(), kernel.atom, key,
                         cast<WarpRowsAttr>(fullScoresTy.getEncoding())
                             .getReplicas());
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.matmulTransposedB(
                rewriter, op.getLoc(),
                tileOperand(op.getQuery(), adaptor.getQuery()), key, scoresTy,
                zeros, op.getAsync())});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.pv (P in A registers, V shared, acc) => the atom's MMAs of
/// acc + P V.
struct LowerPV : OpConversionPattern<PVOp> {
  LowerPV(const TypeConverter &converter, MLIRContext *ctx,
          KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(PVOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The accumulator may be held by a warp grid of its own (the atomic
    // dQ's: --fa-map-warps; the outliner allows it for products only).
    LogicalResult result = failure();
    kernel.atom.withTileGeometry(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getAcc().getType()),
        [&] { result = lower(op, adaptor, rewriter); });
    return result;
  }

  LogicalResult lower(PVOp op, OneToNOpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const {
    TileOperand probs = tileOperand(op.getProbs(), adaptor.getProbs());
    auto fullAccTy = cast<RankedTensorType>(op.getAcc().getType());
    // Column groups: the group's columns of the accumulator, from its
    // columns of the (shared) second operand.
    RankedTensorType accTy = groupTile(fullAccTy);
    if (failed(kernel.atom.checkMatmulShape(op.getLoc(), accTy.getDimSize(0),
                                            accTy.getDimSize(1),
                                            probs.type.getDimSize(1))))
      return failure();
    TileOperand value = tileOperand(op.getValue(), adaptor.getValue());
    if (dividesKeys(fullAccTy)) {
      // (The verifiers hold the rest: share = columns is #fa.mma_sync's,
      // and such an accumulator takes P and the value tile in shared
      // memory, whole.)
      int64_t share = accTy.getDimSize(1);
      value.sharedColumn = arith::MulIOp::create(
          rewriter, op.getLoc(), kernel.atom.replica(rewriter, op.getLoc()),
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), share));
      value.maxSharedColumn = fullAccTy.getDimSize(1) - share;
    }
    // Key groups: the group's columns of P times its rows of V, into the
    // group's summand of the accumulator.
    if (dividesKeys(op.getProbs().getType()))
      value = groupKeyRows(
          rewriter, op.getLoc(), kernel.atom, value,
          cast<WarpRowsAttr>(getTileEncoding(op.getProbs().getType()))
              .getReplicas());
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.matmul(rewriter, op.getLoc(), probs, value, accTy,
                                adaptor.getAcc(), op.getAsync())});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.mma_wait => the atom's wait for all but `pending` of the
/// thread's later async matmuls, on the accumulator fragments (nothing for
/// synchronous atoms).
struct LowerMmaWait : OpConversionPattern<MmaWaitOp> {
  LowerMmaWait(const TypeConverter &converter, MLIRContext *ctx,
               KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(MmaWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(
        op, {kernel.atom.waitMatmuls(rewriter, op.getLoc(), op.getPending(),
                                     adaptor.getAcc())});
    return success();
  }
  KernelContext &kernel;
};

/// Pattern: fa.mma_turn => named barriers 1 .. n, one per warpgroup w
/// (thread x / 128), each met by the two warpgroups of a hand-over (256
/// threads): take = `bar.sync 1 + w`; pass = `bar.arrive 1 + (w + 1) mod
/// n`; open = the last warpgroup's `bar.arrive 1`; close = warpgroup 0's
/// `bar.sync 1`. Barrier 0 stays the block's (`bar.sync 0`).
struct LowerMmaTurn : OpConversionPattern<MmaTurnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MmaTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t warpgroups = op.getWarpgroups();
    // Every warpgroup of the block takes turns: a block of another size
    // would wait on a barrier no one else reaches.
    std::optional<int64_t> threads = blockThreads(op);
    if (!threads || *threads != 128 * warpgroups)
      return op.emitOpError("fa-lower-to-gpu: turns between ")
             << warpgroups << " warpgroups need a block of "
             << 128 * warpgroups << " threads, got "
             << (threads ? std::to_string(*threads) : "an unknown size");
    Type i32 = b.getI32Type();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i32, v);
    };
    Value tid = arith::IndexCastUIOp::create(
        b, loc, i32, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value self = arith::DivUIOp::create(b, loc, tid, constant(128));
    // Barrier ids as immediates (one branch per warpgroup, uniform in each
    // warp): with an id in a register ptxas counts all 16 barriers as used.
    auto sync = [&](OpBuilder &nb, Location l, int64_t id) {
      NVVM::BarrierOp::create(
          nb, l, TypeRange{}, arith::ConstantIntOp::create(nb, l, i32, id),
          arith::ConstantIntOp::create(nb, l, i32, 256), {}, Value());
    };
    // bar.arrive as PTX: MLIR 22's nvvm.barrier.arrive is a PTX-builder op
    // that only --convert-nvvm-to-llvm expands, which this pipeline does
    // not run.
    auto arrive = [&](OpBuilder &nb, Location l, int64_t id) {
      LLVM::InlineAsmOp::create(
          nb, l, TypeRange{}, ValueRange{},
          ("bar.arrive " + Twine(id) + ", 256;").str(), "",
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    };
    // `body(w)` in warpgroup w, for the warpgroups in `which`.
    auto forWarpgroups = [&](ArrayRef<int64_t> which, auto body) {
      for (int64_t w : which) {
        Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           self, constant(w));
        scf::IfOp::create(b, loc, mine, [&](OpBuilder &nb, Location l) {
          body(nb, l, w);
          scf::YieldOp::create(nb, l);
        });
      }
    };
    SmallVector<int64_t> all =
        llvm::to_vector(llvm::seq<int64_t>(0, warpgroups));
    switch (op.getStep()) {
    case MmaTurn::Take:
      forWarpgroups(all, [&](OpBuilder &nb, Location l, int64_t w) {
        sync(nb, l, 1 + w);
      });
      break;
    case MmaTurn::Pass:
      forWarpgroups(all, [&](OpBuilder &nb, Location l, int64_t w) {
        arrive(nb, l, 1 + (w + 1) % warpgroups);
      });
      break;
    case MmaTurn::Open:
      forWarpgroups({warpgroups - 1},
                    [&](OpBuilder &nb, Location l, int64_t) {
                      arrive(nb, l, 1);
                    });
      break;
    case MmaTurn::Close:
      forWarpgroups({0}, [&](OpBuilder &nb, Location l, int64_t) {
        sync(nb, l, 1);
      });
      break;
    }
    b.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::fa::populateMatmulPatterns(const TypeConverter &converter,
                                      KernelContext &kernel,
                                      RewritePatternSet &patterns) {
  patterns.add<LowerQK, LowerPV, LowerMmaWait>(converter, patterns.getContext(),
                                              kernel);
  patterns.add<LowerMmaTurn>(converter, patterns.getContext());
}
