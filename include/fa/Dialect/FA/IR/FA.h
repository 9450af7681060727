//===- FA.h - FlashAttention dialect ----------------------------*- C++ -*-===//
//
// Include this header to use the `fa` dialect and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_FA_IR_FA_H
#define FA_DIALECT_FA_IR_FA_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fa/Dialect/FA/IR/FAOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.h.inc"

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace fa {
/// Registers the bufferization model of `fa.attention` (tensor form -> memref
/// form) so that `--one-shot-bufferize` handles it.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace fa
} // namespace mlir

#endif // FA_DIALECT_FA_IR_FA_H
