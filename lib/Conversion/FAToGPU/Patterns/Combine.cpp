//===- Combine.cpp - fa.combine_splits (tile form) on fragments -----------===//
//
// Split-KV's merge, one tile of rows per thread block. The tile's results are
// held by warps like the attention kernel's output (acc and rows roles), so
// each thread merges exactly the elements its fragments hold, reading them
// straight from the partial results in global memory, and the output goes
// out through the same store patterns (Memory.cpp). When the layouts have
// C replicas (--fa-tile-combine split-warps), C groups of warps hold the
// tile and each merges every C-th split; their maxes and sums are combined
// through shared memory (AtomLowering::reduceAcrossReplicas).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Splits per iteration of the merge's two loops when the split count is a
/// run-time value: the LSE loop loads 2 values per split and thread, the
/// sum loop 2 + 16 * C / 32 (its acc elements for a C-column tile: 66 for
/// 128 columns, 18 for 32), so it takes as many splits as keep about
/// kSumLoopLoads loads in flight (4 splits at 128 columns, as measured), 8
/// at most.
constexpr int64_t kMaxLoopUnroll = 8;
constexpr int64_t kSumLoopLoads = 264;

/// A tile [S, R(, C)] read from a kernel argument: element (s, r, c) is at
/// `offsets[d] + strides[d] * i_d` of `buffer`, where i is (s, r, c) placed
/// in the dims the slice keeps and 0 in the unit dims it drops; rows at or
/// past `validRows` are padding (their reads are clamped to the last row).
struct PartialTile {
  Value buffer;
  SmallVector<Value> offsets, strides;
  SmallVector<unsigned> keptDims;
  Value validRows;
  Value splitCount; // S: static, or a run-time value (a kernel parameter).
};

FailureOr<PartialTile> readPartialTile(OpBuilder &b, Location loc,
                                       Value tile, Operation *user) {
  auto tileTy = cast<RankedTensorType>(tile.getType());
  bool padded = false;
  if (auto pad = tile.getDefiningOp<tensor::PadOp>()) {
    tile = pad.getSource();
    padded = true;
  }
  auto slice = tile.getDefiningOp<tensor::ExtractSliceOp>();
  Value buffer = slice ? kernelBuffer(slice.getSource()) : Value();
  if (!buffer)
    return user->emitOpError(
        "fa-lower-to-gpu: the partial results of a combine tile must be "
        "slices (optionally padded) of the kernel's arguments");
  PartialTile t;
  t.buffer = buffer;
  auto value = [&](OpFoldResult ofr) {
    return getValueOrCreateConstantIndexOp(b, loc, ofr);
  };
  for (OpFoldResult o : slice.getMixedOffsets())
    t.offsets.push_back(value(o));
  for (OpFoldResult s : slice.getMixedStrides())
    t.strides.push_back(value(s));
  // (The slice's result, and so the dims it keeps, has the tile's rank: a
  // pad keeps the rank, and the op's verifier fixes the tile's.)
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  for (unsigned d = 0; d < slice.getSourceType().getRank(); ++d)
    if (!dropped.test(d))
      t.keptDims.push_back(d);
  t.splitCount = value(slice.getMixedSizes()[t.keptDims[0]]);
  // The rows the slice reads (the rest of a padded tile is padding).
  t.validRows = padded
                    ? value(slice.getMixedSizes()[t.keptDims[1]])
                    : arith::ConstantIndexOp::create(b, loc,
                                                     tileTy.getDimSize(1))
                          .getResult();
  return t;
}

/// The element of `t` at (split, row, col) (col ignored for [S, R] tiles).
Value loadPartial(OpBuilder &b, Location loc, const PartialTile &t,
                  ArrayRef<Value> at) {
  SmallVector<Value> indices(t.offsets);
  for (auto [k, d] : llvm::enumerate(t.keptDims))
    indices[d] = arith::AddIOp::create(
        b, loc, t.offsets[d],
        arith::MulIOp::create(b, loc, t.strides[d], at[k]));
  return memref::LoadOp::create(b, loc, t.buffer, indices);
}

/// Pattern: fa.combine_splits (tile form, results held by warps) => per row
/// value of this thread a loop over its group's splits: the largest LSE
/// (then over the groups), then the
/// weights (AttentionMath.h, "Combining splits") and the weighted sum of
/// the elements of its acc fragments (then summed over the groups);
/// O = sum * (1 / W) in the fragments' element type, LSE per row value.
struct LowerCombineTile : OpConversionPattern<CombineSplitsOp> {
  LowerCombineTile(const TypeConverter &converter, MLIRContext *ctx,
                   KernelContext &kernel)
      : OpConversionPattern(converter, ctx), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(CombineSplitsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto outTy = cast<RankedTensorType>(op.getOut().getType());
    if (!isa_and_nonnull<WarpRowsAttr>(outTy.getEncoding()))
      return op.emitOpError("fa-lower-to-gpu: fa.combine_splits must be "
                            "tiled first (--fa-tile-combine)");
    Location loc = op.getLoc();
    AtomLowering &atom = kernel.atom;
    FailureOr<PartialTile> outTile =
        readPartialTile(b, loc, op.getPartialOut(), op);
    FailureOr<PartialTile> lseTile =
        readPartialTile(b, loc, op.getPartialLse(), op);
    if (failed(outTile) || failed(lseTile))
      return failure();

    int64_t rows = outTy.getDimSize(0);
    SmallVector<Type> outFragTypes, lseTypes;
    if (failed(getTypeConverter()->convertType(outTy, outFragTypes)) ||
        failed(getTypeConverter()->convertType(op.getLse().getType(),
                                               lseTypes)))
      return failure();
    int64_t rowValues = lseTypes.size();
    int64_t perFrag = atom.elementsPerAccFragment();
    auto cidx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };

    // The tile rows and columns of this thread's values; padding rows read
    // the last valid row (their results are never stored).
    Value lastRow = arith::SubIOp::create(b, loc, lseTile->validRows, cidx(1));
    SmallVector<Value> rowOf;
    for (int64_t i = 0; i < rowValues; ++i)
      rowOf.push_back(arith::MinUIOp::create(
          b, loc, atom.rowOfRowValue(b, loc, rows, i), lastRow));
    Value firstCol = atom.threadFirstColumn(b, loc);
    struct Element {
      int64_t rowValue;
      Value col;
    };
    SmallVector<Element> elements;
    for (int64_t f = 0, e = outFragTypes.size(); f < e; ++f)
      for (int64_t k = 0; k < perFrag; ++k)
        elements.push_back(
            {atom.accRowValue(outTy, f, k),
             arith::AddIOp::create(b, loc, firstCol,
                                   cidx(atom.accColumn(outTy, f, k)))});

    Value negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    // Loops over the splits. A static count: one split per iteration (LLVM
    // unrolls it). A run-time count: `unroll` splits per iteration, the
    // ones past the count read the last split and weigh nothing (LSE
    // -inf), so that the loads of several splits are in flight at once: one
    // split per iteration left the merge latency-bound, 1.7x slower at
    // 32 splits (docs/performance.md). With C groups of warps holding the
    // tile (replicas), group g takes splits g, g + C, g + 2C, ...: the
    // splits' loads are spread over C times as many threads, and the
    // groups' maxes and sums are combined through shared memory after
    // each loop.
    Value count = lseTile->splitCount;
    int64_t replicas = atom.numReplicas();
    bool unrolled = !getConstantIntValue(count) || replicas > 1;
    Value firstSplit = atom.replica(b, loc);
    auto forEachSplit = [&](int64_t unroll, ValueRange init,
                            function_ref<SmallVector<Value>(
                                OpBuilder &, Location, Value, Value,
                                ValueRange)>
                                body) {
      if (!unrolled)
        unroll = 1;
      // (No more iterations than a group has splits of a static count.)
      if (std::optional<int64_t> known = getConstantIntValue(count))
        unroll = std::clamp<int64_t>(llvm::divideCeil(*known, replicas), 1,
                                     unroll);
      Value last = unrolled
                       ? arith::SubIOp::create(b, loc, count, cidx(1)).getResult()
                       : Value();
      return scf::ForOp::create(
          b, loc, firstSplit, count, cidx(unroll * replicas), init,
          [&](OpBuilder &nb, Location l, Value s0, ValueRange args) {
            SmallVector<Value> carried(args);
            for (int64_t u = 0; u < unroll; ++u) {
              Value s = s0, valid; // (The first is below the count.)
              if (unrolled && u > 0) {
                Value c = arith::ConstantIndexOp::create(nb, l, u * replicas);
                Value at = arith::AddIOp::create(nb, l, s0, c);
                valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                              at, count);
                s = arith::MinUIOp::create(nb, l, at, last);
              }
              carried = body(nb, l, s, valid, carried);
            }
            scf::YieldOp::create(nb, l, carried);
          });
    };
    Value exchange =
        replicas > 1 ? cidx(kernel.plan.ring(op).base) : Value();
    // A split's LSE, -inf for an unrolled iteration past the count.
    auto splitLse = [&](OpBuilder &nb, Location l, Value s, Value valid,
                        Value row) {
      Value lse = loadPartial(nb, l, *lseTile, {s, row});
      return valid ? arith::SelectOp::create(nb, l, valid, lse, negInf)
                         .getResult()
                   : lse;
    };

    // The largest split LSE of each row value.
    auto maxLoop = forEachSplit(
        kMaxLoopUnroll, SmallVector<Value>(rowValues, negInf),
        [&](OpBuilder &nb, Location l, Value s, Value valid,
            ValueRange maxes) {
          SmallVector<Value> next;
          for (int64_t i = 0; i < rowValues; ++i)
            next.push_back(semantics::maxOf(
                nb, l, maxes[i], splitLse(nb, l, s, valid, rowOf[i])));
          return next;
        });
    SmallVector<Value> bases;
    for (Value m : atom.reduceAcrossReplicas(b, loc, maxLoop.getResults(),
                                             exchange, /*isMax=*/true))
      bases.push_back(semantics::splitsBase(b, loc, m));

    // The weights' sums and the weighted sums of the elements.
    SmallVector<Value> init(rowValues, zero);
    init.append(elements.size(), zero);
    int64_t loadsPerSplit = rowValues + static_cast<int64_t>(elements.size());
    int64_t sumUnroll = std::clamp<int64_t>(kSumLoopLoads / loadsPerSplit, 1,
                                            kMaxLoopUnroll);
    auto sumLoop = forEachSplit(
        sumUnroll, init,
        [&](OpBuilder &nb, Location l, Value s, Value valid,
            ValueRange sums) {
          SmallVector<Value> weights, next;
          for (int64_t i = 0; i < rowValues; ++i) {
            Value lse = splitLse(nb, l, s, valid, rowOf[i]);
            weights.push_back(semantics::splitWeight(nb, l, lse, bases[i]));
            next.push_back(arith::AddFOp::create(nb, l, sums[i], weights[i]));
          }
          for (auto [k, el] : llvm::enumerate(elements)) {
            Value o = loadPartial(nb, l, *outTile,
                                  {s, rowOf[el.rowValue], el.col});
            next.push_back(math::FmaOp::create(nb, l, weights[el.rowValue], o,
                                               sums[rowValues + k]));
          }
          return next;
        });
    SmallVector<Value> sums = atom.reduceAcrossReplicas(
        b, loc, sumLoop.getResults(), exchange, /*isMax=*/false);

    SmallVector<Value> inverse, lse;
    for (int64_t i = 0; i < rowValues; ++i) {
      inverse.push_back(semantics::inverseSum(b, loc, sums[i]));
      lse.push_back(semantics::combinedLse(b, loc, bases[i], sums[i]));
    }
    Type elemTy = outTy.getElementType();
    SmallVector<Value> frags;
    for (auto [f, fragTy] : llvm::enumerate(outFragTypes)) {
      SmallVector<Value> elems;
      for (int64_t k = 0; k < perFrag; ++k) {
        int64_t at = f * perFrag + k;
        Value o = arith::MulFOp::create(b, loc, sums[rowValues + at],
                                        inverse[elements[at].rowValue]);
        if (elemTy != o.getType())
          o = arith::TruncFOp::create(b, loc, elemTy, o);
        elems.push_back(o);
      }
      frags.push_back(atom.buildAccFragment(b, loc, fragTy, elems));
    }
    b.replaceOpWithMultiple(op, {frags, lse});
    return success();
  }
  KernelContext &kernel;
};

} // namespace

void mlir::fa::populateCombinePatterns(const TypeConverter &converter,
                                       KernelContext &kernel,
                                       RewritePatternSet &patterns) {
  patterns.add<LowerCombineTile>(converter, patterns.getContext(), kernel);
}
