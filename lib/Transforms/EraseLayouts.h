//===- EraseLayouts.h - L3 -> plain tensors for the CPU ---------*- C++ -*-===//
//
// The CPU path runs the warp-mapped, scheduled and pipelined loop nest too,
// so that the equivalence tests cover the IR the GPU lowering consumes. On
// the CPU a layout is meaningless: this drops every fa layout encoding,
// turns fa.convert_layout into its operand, fa.async_load into plain
// (predicated) tile loads, fa.await into the loaded tiles and
// fa.warp_row_range into the whole tile (0, rows).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_ERASELAYOUTS_H
#define FA_LIB_TRANSFORMS_ERASELAYOUTS_H

#include "mlir/IR/Operation.h"

namespace mlir {
namespace fa {

/// Erases the layouts under `root`; fails (with a diagnostic) only on IR that
/// cannot be retyped.
LogicalResult eraseLayouts(Operation *root);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_ERASELAYOUTS_H
