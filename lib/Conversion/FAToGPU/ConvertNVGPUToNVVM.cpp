//===- ConvertNVGPUToNVVM.cpp - nvgpu -> nvvm at a chosen index width -----===//

#include "fa/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FACONVERTNVGPUTONVVM
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
struct FAConvertNVGPUToNVVMPass
    : fa::impl::FAConvertNVGPUToNVVMBase<FAConvertNVGPUToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      mlir::emitError(getOperation()->getLoc())
          << "fa-convert-nvgpu-to-nvvm: option index-bitwidth must be 32 or "
             "64, got "
          << indexBitwidth.getValue();
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    // As upstream's convert-nvgpu-to-nvvm: GPU address spaces become NVVM's,
    // and async tokens (which NVVM does not have) a dummy i32.
    populateGpuMemorySpaceAttributeConversions(
        converter, [](gpu::AddressSpace space) -> unsigned {
          switch (space) {
          case gpu::AddressSpace::Global:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
          case gpu::AddressSpace::Workgroup:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
          case gpu::AddressSpace::Private:
            return 0;
          }
          return 0;
        });
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType type) -> Type {
      return converter.convertType(IntegerType::get(type.getContext(), 32));
    });
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect, arith::ArithDialect,
                           memref::MemRefDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
