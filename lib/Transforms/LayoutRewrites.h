//===- LayoutRewrites.h - Giving tiles their layouts ------------*- C++ -*-===//
//
// The rewrites both warp mappers (MapWarps.cpp for the forward's loop nest,
// MapBackwardWarps.cpp for the backward's) use to write layout encodings
// into the IR.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_LAYOUTREWRITES_H
#define FA_LIB_TRANSFORMS_LAYOUTREWRITES_H

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fa {

/// Re-types tile value `v` (in place) with layout `encoding`.
inline void setTileEncoding(Value v, Attribute encoding) {
  auto ty = cast<RankedTensorType>(v.getType());
  v.setType(RankedTensorType::get(ty.getShape(), ty.getElementType(), encoding));
}

/// A loop's results take its iter_args' types, and dense constant initial
/// values are rebuilt in those types (anything else is left for the
/// verifier to report).
inline void retypeLoopFromIterArgs(RewriterBase &rewriter, scf::ForOp loop) {
  for (auto [arg, result, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults(),
                 loop.getInitArgsMutable())) {
    result.setType(arg.getType());
    Value initValue = init.get();
    if (initValue.getType() == arg.getType())
      continue;
    auto cst = initValue.getDefiningOp<arith::ConstantOp>();
    auto dense = cst ? dyn_cast<DenseElementsAttr>(cst.getValue())
                     : DenseElementsAttr();
    if (!dense)
      continue;
    rewriter.setInsertionPoint(loop);
    init.set(arith::ConstantOp::create(
        rewriter, cst.getLoc(),
        dense.reshape(cast<ShapedType>(arg.getType()))));
    if (cst->use_empty())
      rewriter.eraseOp(cst);
  }
}

/// The fa.convert_layout ops made so far, by source value and layout.
using ConvertedLayouts = DenseMap<std::pair<Value, Attribute>, Value>;

/// `operand` in the layout `encoding`, through one fa.convert_layout right
/// after its definition, shared by every operand converted from the same
/// value to the same layout (`converted` remembers them).
inline void convertOperandLayout(RewriterBase &rewriter, OpOperand &operand,
                                 Attribute encoding,
                                 ConvertedLayouts &converted) {
  Value source = operand.get();
  Value &result = converted[{source, encoding}];
  if (!result) {
    auto ty = cast<RankedTensorType>(source.getType());
    rewriter.setInsertionPointAfterValue(source);
    result = ConvertLayoutOp::create(
        rewriter, source.getLoc(),
        RankedTensorType::get(ty.getShape(), ty.getElementType(), encoding),
        source);
  }
  operand.set(result);
}

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_LAYOUTREWRITES_H
