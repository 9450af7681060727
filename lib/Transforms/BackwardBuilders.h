//===- BackwardBuilders.h - Pieces of the attention gradient ----*- C++ -*-===//
//
// The linalg pieces that the naive decomposition of fa.attention_backward
// (--fa-decompose-naive) and its FlashAttention-2 tiling (--fa-tile-kv-outer)
// share, so that the two compute the same thing by construction: the
// preprocessing D = rowsum(dO * O), the body of dS, and the final scale and
// rounding of a gradient. The scalar arithmetic is AttentionMath.h's.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_BACKWARDBUILDERS_H
#define FA_LIB_TRANSFORMS_BACKWARDBUILDERS_H

#include "LinalgBuilders.h"
#include "fa/Dialect/FA/Semantics/AttentionMath.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

namespace mlir {
namespace fa {

/// Rows [start, start + count) of `source[batch, head]` (rank 4: a
/// [tileRows, cols] tile; rank 3: a [tileRows] vector), padded at the end
/// with `pad` so that the tile is static even for the last block: the tile
/// load both backward tilings write (and the GPU lowering reads back).
inline Value loadPaddedRows(OpBuilder &b, Location loc, Value source,
                            Value batch, Value head, Value start, Value count,
                            int64_t tileRows, Value pad) {
  auto type = cast<RankedTensorType>(source.getType());
  OpFoldResult one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets = {batch, head, start};
  SmallVector<OpFoldResult> sizes = {one, one, count};
  SmallVector<int64_t> sliceShape = {ShapedType::kDynamic};
  SmallVector<int64_t> tileShape = {tileRows};
  if (type.getRank() == 4) {
    int64_t cols = type.getDimSize(3);
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(cols));
    sliceShape.push_back(cols);
    tileShape.push_back(cols);
  }
  SmallVector<OpFoldResult> strides(type.getRank(), one);
  auto sliceTy = RankedTensorType::get(sliceShape, type.getElementType());
  Value slice = tensor::ExtractSliceOp::create(b, loc, sliceTy, source,
                                               offsets, sizes, strides);
  auto tileTy = RankedTensorType::get(tileShape, type.getElementType());
  return tensor::createPadHighOp(tileTy, slice, pad, /*nofold=*/false, loc, b);
}

/// Block skipping for the K/V-outer order: [begin, end) of the Q block
/// starts to visit for the keys [keyStart, keyEnd), i.e. the rows with a
/// row that sees one of them (AttentionMath.h's inverse bounds), begin
/// rounded down to a multiple of `blockM`, both within [0, numQueries]
/// (begin >= end: no block).
inline std::pair<Value, Value>
visibleQueryBlocks(OpBuilder &b, Location loc, Value keyStart, Value keyEnd,
                   Value numQueries, int64_t blockM,
                   const semantics::MaskSpec &mask) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value begin = zero, end = numQueries;
  if (Value first = semantics::firstRowSeeing(b, loc, keyStart, mask)) {
    Value clamped = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, first, zero), numQueries);
    Value block = arith::ConstantIndexOp::create(b, loc, blockM);
    begin = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, clamped, block), block);
  }
  if (Value last = semantics::rowsSeeingEnd(b, loc, keyEnd, mask))
    end = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, last, zero), numQueries);
  return {begin, end};
}

/// Body of acc += f32(x) * f32(y) in a linalg.generic with inputs (x, y).
inline void mulAddBody(OpBuilder &nb, Location l, ValueRange args) {
  Value x = LinalgBuilder::toF32(nb, l, args[0]);
  Value y = LinalgBuilder::toF32(nb, l, args[1]);
  Value prod = arith::MulFOp::create(nb, l, x, y);
  LinalgBuilder::yield(nb, l, arith::AddFOp::create(nb, l, args[2], prod));
}

/// D[..., i] = sum_e dO[..., i, e] * O[..., i, e] in f32: FlashAttention-2's
/// preprocessing (equal to rowsum(P * dP) since O = P V). `dO` and `O` have
/// rank r >= 2; `rowSizes` are their first r - 1 sizes.
inline Value buildRowDot(LinalgBuilder &lb, Value gradOut, Value out,
                         ArrayRef<OpFoldResult> rowSizes) {
  unsigned rank = rowSizes.size() + 1;
  MLIRContext *ctx = lb.builder().getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rows = id.getMajorSubMap(rank - 1);
  SmallVector<utils::IteratorType> iters(rank - 1, kParallel);
  iters.push_back(kReduction);
  return lb.generic(lb.filled(rowSizes, 0.0), {gradOut, out}, {id, id, rows},
                    iters, mulAddBody);
}

/// dS for one score: P * (dP - D), and with a soft cap (`cap` non-null)
/// times its derivative 1 - (S / c)^2, with 0 for a hidden key (S = -inf),
/// where that factor is -inf and 0 * -inf would be NaN. `capped` is the
/// score S as the softmax saw it (capped, masked); f32 values.
inline Value buildScoreGrad(OpBuilder &b, Location loc, Value prob,
                            Value gradProb, Value rowDot, Value capped,
                            Value cap) {
  Value grad = semantics::scoreGrad(b, loc, prob, gradProb, rowDot);
  if (!cap)
    return grad;
  Value negInf = semantics::floatConstant(
      b, loc, capped.getType(), -std::numeric_limits<double>::infinity());
  Value hidden =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, capped, negInf);
  Value factor = semantics::softcapGrad(b, loc, capped, cap);
  Value scaled = arith::MulFOp::create(b, loc, grad, factor);
  Value zero = semantics::floatConstant(b, loc, capped.getType(), 0.0);
  return arith::SelectOp::create(b, loc, hidden, zero, scaled);
}

/// `init` (a gradient's destination) filled with f32 `acc` times `factor`
/// (skipped when 1), rounded once to the destination's element type.
inline Value buildScaledCast(LinalgBuilder &lb, Value acc, Value init,
                             double factor) {
  auto type = cast<ShapedType>(init.getType());
  Type elem = type.getElementType();
  AffineMap id = AffineMap::getMultiDimIdentityMap(
      type.getRank(), lb.builder().getContext());
  Value c = factor == 1.0 ? Value() : lb.f32Constant(factor);
  return lb.generic(init, {acc}, {id, id},
                    SmallVector<utils::IteratorType>(type.getRank(), kParallel),
                    [&](OpBuilder &nb, Location l, ValueRange args) {
                      Value x = args[0];
                      if (c)
                        x = arith::MulFOp::create(nb, l, x, c);
                      if (!elem.isF32())
                        x = arith::TruncFOp::create(nb, l, elem, x);
                      LinalgBuilder::yield(nb, l, x);
                    });
}

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_BACKWARDBUILDERS_H
