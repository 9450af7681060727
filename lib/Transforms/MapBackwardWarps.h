//===- MapBackwardWarps.h - Layouts of the backward's nests -----*- C++ -*-===//
//
// The part of --fa-map-warps that maps the loop nests of --fa-tile-backward
// (MapBackwardWarps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_MAPBACKWARDWARPS_H
#define FA_LIB_TRANSFORMS_MAPBACKWARDWARPS_H

#include "fa/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace fa {

/// Whether `forall` is one of --fa-tile-backward's loop nests (it holds a
/// backward tile op).
bool isBackwardLoopNest(scf::ForallOp forall);

/// Whether `forall` is the backward's dK/dV nest (K/V-outer: its scores are
/// transposed, keys on the rows).
bool isKeyValueOuterNest(scf::ForallOp forall);

/// Gives the nest's tiles their layouts and maps it to the grid, with
/// `numWarps` warps (0: one per 16 rows of the nest's tiles, at most 4), in
/// the dK/dV nest times `dkdvGroups` groups that split the columns of its
/// accumulators (1: warps own whole rows).
/// `rowTileHome` says where the nest's fa.qk ops read their first operands,
/// the tiles loaded once per thread block (K and V in the dK/dV nest, Q and
/// dO in the dQ nest), as `query-home` does for the forward's Q.
/// `swizzleShared` (auto, on, off) and `chip` decide whether the tiles loaded
/// inside the nest's loops take the swizzled shared layout. Errors (at the
/// nest) for tiles the atom cannot hold.
LogicalResult mapBackwardWarps(scf::ForallOp forall, int64_t numWarps,
                               int64_t dkdvGroups, QueryHome rowTileHome,
                               StringRef swizzleShared, const ChipInfo &chip);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_MAPBACKWARDWARPS_H
