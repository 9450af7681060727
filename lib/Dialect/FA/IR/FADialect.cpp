//===- FADialect.cpp - FlashAttention dialect -----------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa;

#include "fa/Dialect/FA/IR/FAOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"

void FADialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"
      >();
}

LogicalResult
WarpRowsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t numWarps) {
  if (numWarps != 1 && numWarps != 2 && numWarps != 4 && numWarps != 8)
    return emitError() << "num_warps must be 1, 2, 4 or 8, got " << numWarps;
  return success();
}
