//===- FADialect.cpp - FlashAttention dialect -----------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

using namespace mlir;
using namespace mlir::fa;

#include "fa/Dialect/FA/IR/FAOpsDialect.cpp.inc"

void FADialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
      >();
}
