//===- ConvertNVGPUToNVVM.cpp - nvgpu -> nvvm at a chosen index width -----===//

#include "fa/Conversion/Passes.h"

#include "Atoms/SharedTiles.h"
#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FACONVERTNVGPUTONVVM
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {
/// The copy forms PTX gives a prefetch size: a tag of 64, 128 or 256 bytes
/// on a 16-byte copy that bypasses L1 (.cg); `diag` reports what is wrong.
LogicalResult checkL2PrefetchTag(nvgpu::DeviceAsyncCopyOp op,
                                 function_ref<InFlightDiagnostic()> diag) {
  auto bytesAttr = op->getAttrOfType<IntegerAttr>(fa::kL2PrefetchAttrName);
  if (!bytesAttr || !fa::isValidL2PrefetchBytes(bytesAttr.getInt())) {
    diag() << fa::kL2PrefetchAttrName << " must be 64, 128 or 256, got "
           << op->getAttr(fa::kL2PrefetchAttrName);
    return failure();
  }
  auto dstTy = cast<MemRefType>(op.getDst().getType());
  int64_t copyBytes =
      dstTy.getElementTypeBitWidth() * op.getDstElements().getZExtValue() / 8;
  if (copyBytes != 16 || !op.getBypassL1().value_or(false)) {
    diag() << "an L2 prefetch hint needs a 16-byte copy that bypasses L1, "
              "got "
           << copyBytes << " bytes";
    return failure();
  }
  return success();
}

/// Pattern: nvgpu.device_async_copy {fa.l2_prefetch = N} (16 bytes, L1
/// bypassed) => cp.async.cg.shared.global.L2::<N>B as inline PTX. NVVM's
/// cp.async op (and LLVM's intrinsic) has no prefetch-size field, so this is
/// upstream's lowering of the copy (the same addresses and src-size) with
/// the qualifier written out; copies without the attribute keep upstream's
/// pattern.
struct AsyncCopyWithL2Prefetch
    : ConvertOpToLLVMPattern<nvgpu::DeviceAsyncCopyOp> {
  AsyncCopyWithL2Prefetch(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(nvgpu::DeviceAsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto bytesAttr = op->getAttrOfType<IntegerAttr>(fa::kL2PrefetchAttrName);
    // The pass has rejected every malformed tag before converting.
    if (!bytesAttr)
      return rewriter.notifyMatchFailure(op, "no L2 prefetch hint");
    int64_t prefetch = bytesAttr.getInt();
    auto dstTy = cast<MemRefType>(op.getDst().getType());
    auto srcTy = cast<MemRefType>(op.getSrc().getType());
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value dst = getStridedElementPtr(rewriter, loc, dstTy, adaptor.getDst(),
                                     adaptor.getDstIndices());
    Value src = getStridedElementPtr(rewriter, loc, srcTy, adaptor.getSrc(),
                                     adaptor.getSrcIndices());
    // PTX names shared memory by a 32-bit window offset and global memory
    // by a 64-bit address.
    auto i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    Value dstAddr = LLVM::PtrToIntOp::create(rewriter, loc, i32, dst);
    auto globalPtrTy = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
    Value srcGlobal =
        src.getType() == globalPtrTy
            ? src
            : LLVM::AddrSpaceCastOp::create(rewriter, loc, globalPtrTy, src);
    Value srcAddr = LLVM::PtrToIntOp::create(rewriter, loc, i64, srcGlobal);
    SmallVector<Value> operands{dstAddr, srcAddr};
    std::string text =
        "cp.async.cg.shared.global.L2::" + std::to_string(prefetch) +
        "B [$0], [$1], 16";
    std::string constraints = "r,l";
    if (Value srcElements = adaptor.getSrcElements()) {
      // src-size in bytes: the rest of the 16 are zero-filled.
      Value elems = srcElements;
      if (elems.getType() != i32) // 64-bit indices
        elems = LLVM::TruncOp::create(rewriter, loc, i32, elems);
      Value bits = LLVM::MulOp::create(
          rewriter, loc, elems,
          LLVM::ConstantOp::create(
              rewriter, loc, i32,
              rewriter.getI32IntegerAttr(srcTy.getElementTypeBitWidth())));
      operands.push_back(LLVM::LShrOp::create(
          rewriter, loc, bits,
          LLVM::ConstantOp::create(rewriter, loc, i32,
                                   rewriter.getI32IntegerAttr(3))));
      text += ", $2";
      constraints += ",r";
    }
    text += ";";
    LLVM::InlineAsmOp::create(
        rewriter, loc, /*resultTypes=*/TypeRange(), operands, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, /*asm_dialect=*/LLVM::AsmDialectAttr(),
        /*operand_attrs=*/ArrayAttr());
    // The token (an i32 here, as upstream's) is never read: NVVM groups
    // copies by commit, not by token.
    rewriter.replaceOp(op,
                       LLVM::ConstantOp::create(rewriter, loc, i32,
                                                rewriter.getI32IntegerAttr(0)));
    return success();
  }
};

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
    // A malformed tag is an error up front, not a copy quietly lowered
    // without it by upstream's pattern.
    bool badTag = false;
    getOperation()->walk([&](nvgpu::DeviceAsyncCopyOp copy) {
      if (copy->hasAttr(fa::kL2PrefetchAttrName) &&
          failed(checkL2PrefetchTag(copy, [&] {
            return copy.emitOpError("fa-convert-nvgpu-to-nvvm: ");
          })))
        badTag = true;
    });
    if (badTag)
      return signalPassFailure();
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
    patterns.add<AsyncCopyWithL2Prefetch>(converter);
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
