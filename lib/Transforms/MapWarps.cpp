//===- MapWarps.cpp - Warps own whole rows of the Q block (L2 -> L3) ------===//
//
// FlashAttention-2 splits the Q block across warps by rows, so that every
// row reduction of the online softmax stays inside one warp, and shares the
// K/V tiles between all warps. This pass writes that decision into the IR as
// tensor encodings, and maps the scf.forall onto the grid.
//
//===----------------------------------------------------------------------===//

#include "fa/Transforms/Passes.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAMAPWARPS
#include "fa/Transforms/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;
using namespace mlir::fa;

namespace {

void setEncoding(Value v, Attribute encoding) {
  auto ty = cast<RankedTensorType>(v.getType());
  v.setType(
      RankedTensorType::get(ty.getShape(), ty.getElementType(), encoding));
}

/// The tile shapes must split into whole m16n8k16 tiles per warp.
LogicalResult checkSplit(TiledAttention &tiled, int64_t numWarps) {
  auto error = [&]() {
    return mlir::emitError(tiled.forall.getLoc(), "fa-map-warps: ");
  };
  if (tiled.blockM() % (16 * numWarps) != 0)
    return error() << "block-m (" << tiled.blockM()
                   << ") must be a multiple of 16 * num-warps = "
                   << 16 * numWarps
                   << ": each warp owns whole 16-row tiles of the Q block";
  if (tiled.blockN() % 16 != 0)
    return error() << "block-n (" << tiled.blockN()
                   << ") must be a multiple of 16, the k of the P V mma";
  if (tiled.headDim() % 16 != 0 || tiled.valueDim() % 16 != 0)
    return error() << "head dims (" << tiled.headDim() << ", "
                   << tiled.valueDim() << ") must be multiples of 16";
  return success();
}

void mapWarps(TiledAttention &tiled, int64_t numWarps) {
  MLIRContext *ctx = tiled.forall.getContext();
  Attribute rows = WarpRowsAttr::get(ctx, numWarps);
  Attribute shared = BlockSharedAttr::get(ctx);
  IRRewriter rewriter(ctx);

  setEncoding(tiled.query.pad.getResult(), rows);
  for (KVLoop &kv : tiled.kvLoops) {
    setEncoding(kv.key.pad.getResult(), shared);
    setEncoding(kv.value.pad.getResult(), shared);
    for (Operation *op : {kv.qk.getOperation(), kv.softmax.getOperation(),
                          kv.pv.getOperation()})
      for (Value result : op->getResults())
        setEncoding(result, rows);
    if (kv.mask)
      setEncoding(kv.mask.getResult(), rows);
    // P rounded to the input type before P V.
    if (auto trunc = kv.pv.getProbs().getDefiningOp<arith::TruncFOp>())
      setEncoding(trunc.getResult(), rows);
    // The loop-carried state (m, l, acc) and its initial constants.
    for (auto [arg, result] : llvm::zip(kv.loop.getRegionIterArgs(),
                                        kv.loop.getResults())) {
      setEncoding(arg, rows);
      setEncoding(result, rows);
    }
    for (auto [init, arg] : llvm::zip(kv.loop.getInitArgsMutable(),
                                      kv.loop.getRegionIterArgs())) {
      auto cst = init.get().getDefiningOp<arith::ConstantOp>();
      if (!cst || cst.getType() == arg.getType())
        continue;
      auto value = cast<DenseElementsAttr>(cst.getValue());
      rewriter.setInsertionPoint(cst);
      init.set(arith::ConstantOp::create(
          rewriter, cst.getLoc(),
          value.reshape(cast<ShapedType>(arg.getType()))));
    }
  }
  for (Value result : tiled.finalize->getResults())
    setEncoding(result, rows);

  // Grid: Q blocks on x, heads on y, batch on z (the forall is (b, h, qb)).
  tiled.forall.setMappingAttr(rewriter.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
}

struct FAMapWarpsPass : fa::impl::FAMapWarpsBase<FAMapWarpsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (numWarps != 1 && numWarps != 2 && numWarps != 4 && numWarps != 8) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-map-warps: option num-warps must be 1, 2, 4 or 8, got "
          << numWarps.getValue();
      return signalPassFailure();
    }
    SmallVector<TiledAttention> nests;
    getOperation()->walk([&](scf::ForallOp forall) {
      FailureOr<TiledAttention> tiled =
          matchTiledAttention(forall, /*diagnose=*/false);
      if (succeeded(tiled))
        nests.push_back(*tiled);
    });
    for (TiledAttention &tiled : nests) {
      if (failed(checkSplit(tiled, numWarps)))
        return signalPassFailure();
      mapWarps(tiled, numWarps);
    }
    // Dead constants left by re-typing the initial state.
    getOperation()->walk([](arith::ConstantOp cst) {
      if (cst->use_empty() && isa<RankedTensorType>(cst.getType()))
        cst->erase();
    });
  }
};

} // namespace
