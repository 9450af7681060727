//===- TensorMapParams.cpp - TMA tensor maps as by-value parameters -------===//

#include "fa/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FATENSORMAPPARAMS
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
/// Bytes of a CUtensorMap (CUDA's driver API: 16 x 64 bits, 64-aligned).
constexpr int64_t kTensorMapWords = 16;

struct FATensorMapParamsPass
    : fa::impl::FATensorMapParamsBase<FATensorMapParamsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type i64 = IntegerType::get(ctx, 64);
    auto byValue = LLVM::LLVMStructType::getLiteral(
        ctx, {LLVM::LLVMArrayType::get(i64, kTensorMapWords)});
    WalkResult walk = getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      auto count =
          func->getAttrOfType<IntegerAttr>(fa::kTensorMapParamsAttrName);
      if (!count)
        return WalkResult::advance();
      int64_t n = func.getNumArguments();
      if (count.getInt() < 0 || count.getInt() > n) {
        func.emitOpError("fa-tensor-map-params: ")
            << fa::kTensorMapParamsAttrName << " = " << count.getInt()
            << " but the kernel has " << n << " parameters";
        return WalkResult::interrupt();
      }
      for (int64_t i = n - count.getInt(); i < n; ++i) {
        if (!isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
          func.emitOpError("fa-tensor-map-params: parameter ")
              << i << " is counted as a tensor map but is not a pointer: "
              << func.getArgument(i).getType();
          return WalkResult::interrupt();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(byValue));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(i64, 64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
