//===- Passes.h - FlashAttention passes -------------------------*- C++ -*-===//

#ifndef FA_TRANSFORMS_PASSES_H
#define FA_TRANSFORMS_PASSES_H

#include "fa/Dialect/FA/IR/FA.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fa {

/// Where --fa-map-warps puts the Q tile that fa.qk reads.
enum class QueryHome { Auto, Registers, Shared };

/// The MMA atom --fa-map-warps names in the layouts (and whose table of
/// tiles --fa-tile-q-outer{auto-blocks} reads): #fa.mma_sync (sm_80 and
/// newer) or #fa.wgmma (sm_90a); Auto: --fa-tile-q-outer picks one per
/// loop nest (chooseAtom) and records it as fa.mma_atom, which
/// --fa-map-warps{atom=auto} applies.
enum class MmaAtomKind { Auto, MmaSync, Wgmma };

/// The atom attribute of a concrete `kind` (Auto: #fa.mma_sync, the atom
/// every chip has).
inline MmaAtomAttrInterface getMmaAtom(MLIRContext *ctx, MmaAtomKind kind) {
  if (kind == MmaAtomKind::Wgmma)
    return WgmmaAtomAttr::get(ctx);
  return MmaSyncAtomAttr::get(ctx);
}

/// The kind of an atom attribute.
inline MmaAtomKind getMmaAtomKind(MmaAtomAttrInterface atom) {
  return isa<WgmmaAtomAttr>(atom) ? MmaAtomKind::Wgmma : MmaAtomKind::MmaSync;
}

/// atom=auto's rule for one loop nest whose Q blocks have `blockM` rows, of
/// which `queryRows` hold queries (the static Nq, or with pack-gqa the
/// group's heads; ShapedType::kDynamic when Nq is dynamic): #fa.wgmma on a
/// chip that has it (sm_90a) where the Q block is whole warpgroups (a
/// multiple of 64 rows; `blockM` 0: the atom's table, whose #fa.wgmma
/// blocks are) and the queries are more than 32 rows (or dynamic), else
/// #fa.mma_sync, whose Q block shrinks to 16 or 32 rows for them (a decode
/// step: docs/performance.md, "2026-12-07 (session 21): atom=auto on
/// sm_90a").
MmaAtomKind chooseAtom(const ChipInfo &chip, int64_t blockM,
                       int64_t queryRows);

/// Where --fa-schedule-softmax places fa.rescale.
enum class RescalePlacement { Auto, BeforeExp, AfterExp };

/// The largest block (rows or keys) the tiling passes' block options and
/// --fa-to-ptx's block-m/block-n accept: far above any tile that fits a
/// GPU's shared memory, low enough that tile sizes stay small integers.
constexpr int64_t kMaxTileBlock = 1024;

#define GEN_PASS_DECL
#include "fa/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa/Transforms/Passes.h.inc"

} // namespace fa
} // namespace mlir

#endif // FA_TRANSFORMS_PASSES_H
