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
    // The alignment the module's kernels ask for (fa.shared_alignment).
    uint64_t alignment = 0;
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              fa::kSharedAlignmentAttrName))
        alignment = std::max<uint64_t>(alignment, attr.getInt());
    });
    getOperation()->walk([&](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      // Zero-sized arrays in shared memory are dynamic shared memory.
      if (global.getAddrSpace() != 3 || !array || array.getNumElements() != 0)
        return;
      global.setLinkage(LLVM::Linkage::External);
      if (alignment > global.getAlignment().value_or(0))
        global.setAlignment(alignment);
    });
  }
};
} // namespace
