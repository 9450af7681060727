//===- ExternDynamicShared.cpp - .extern .shared for dynamic smem ---------===//

#include "fa/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FAEXTERNDYNAMICSHARED
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
struct FAExternDynamicSharedPass
    : fa::impl::FAExternDynamicSharedBase<FAExternDynamicSharedPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      // Zero-sized arrays in shared memory are dynamic shared memory.
      if (global.getAddrSpace() == 3 && array && array.getNumElements() == 0)
        global.setLinkage(LLVM::Linkage::External);
    });
  }
};
} // namespace
