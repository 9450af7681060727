//===- LowerGPUMath.cpp - f32 math -> PTX approximations ------------------===//

#include "fa/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace fa {
#define GEN_PASS_DEF_FALOWERGPUMATH
#include "fa/Conversion/Passes.h.inc"
} // namespace fa
} // namespace mlir

using namespace mlir;

namespace {

/// `op` (f32 -> f32) becomes the one-instruction PTX `instruction`.
template <typename OpTy>
struct ToInlinePTX : OpRewritePattern<OpTy> {
  ToInlinePTX(MLIRContext *ctx, StringRef instruction)
      : OpRewritePattern<OpTy>(ctx), instruction(instruction.str()) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, op.getLoc(), op.getType(), op->getOperands(),
        instruction + " $0, $1;", "=f,f", /*has_side_effects=*/false,
        /*is_align_stack=*/false, LLVM::TailCallKind::None,
        /*asm_dialect=*/LLVM::AsmDialectAttr(),
        /*operand_attrs=*/ArrayAttr());
    rewriter.replaceOp(op, asmOp.getResults());
    return success();
  }
  std::string instruction;
};

/// math.exp / math.log (f32), which split-KV's merge uses on LSEs: the
/// base-2 instruction with the argument or result scaled by log2(e) or
/// ln(2) (the same approximations the attention kernel's exp2/log2 get).
template <typename OpTy>
struct NaturalViaBase2 : ToInlinePTX<OpTy> {
  NaturalViaBase2(MLIRContext *ctx, StringRef instruction, bool scaleArgument,
                  double factor)
      : ToInlinePTX<OpTy>(ctx, instruction), scaleArgument(scaleArgument),
        factor(factor) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Value k = arith::ConstantOp::create(
        rewriter, loc, rewriter.getF32FloatAttr(static_cast<float>(factor)));
    Value x = op->getOperand(0);
    if (scaleArgument)
      x = arith::MulFOp::create(rewriter, loc, x, k);
    Value y = LLVM::InlineAsmOp::create(
                  rewriter, loc, op.getType(), ValueRange{x},
                  this->instruction + " $0, $1;", "=f,f",
                  /*has_side_effects=*/false, /*is_align_stack=*/false,
                  LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                  ArrayAttr())
                  .getResult(0);
    if (!scaleArgument)
      y = arith::MulFOp::create(rewriter, loc, y, k);
    rewriter.replaceOp(op, y);
    return success();
  }
  bool scaleArgument;
  double factor;
};

/// `op` (f32) becomes the LLVM intrinsic `IntrOp`, which NVPTX selects as one
/// instruction.
template <typename OpTy, typename IntrOp>
struct ToIntrinsic : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOpWithNewOp<IntrOp>(op, op.getType(), op->getOperands());
    return success();
  }
};

struct FALowerGPUMathPass : fa::impl::FALowerGPUMathBase<FALowerGPUMathPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ToInlinePTX<math::Exp2Op>>(ctx, "ex2.approx.ftz.f32");
    patterns.add<ToInlinePTX<math::Log2Op>>(ctx, "lg2.approx.ftz.f32");
    patterns.add<ToInlinePTX<math::TanhOp>>(ctx, "tanh.approx.f32");
    patterns.add<NaturalViaBase2<math::ExpOp>>(ctx, "ex2.approx.ftz.f32",
                                               /*scaleArgument=*/true,
                                               1.4426950408889634);
    patterns.add<NaturalViaBase2<math::LogOp>>(ctx, "lg2.approx.ftz.f32",
                                               /*scaleArgument=*/false,
                                               0.6931471805599453);
    patterns.add<ToIntrinsic<math::FmaOp, LLVM::FMAOp>,
                 ToIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>>(ctx);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
