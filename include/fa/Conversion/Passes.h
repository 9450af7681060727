//===- Passes.h - FlashAttention conversion passes --------------*- C++ -*-===//

#ifndef FA_CONVERSION_PASSES_H
#define FA_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fa {

/// On a kernel (gpu.func, then llvm.func): the byte alignment its dynamic
/// shared memory needs beyond 16 (`--fa-lower-to-gpu` sets it from the
/// atom's shared layout; `--fa-extern-dynamic-shared` applies it).
inline constexpr llvm::StringLiteral kSharedAlignmentAttrName =
    "fa.shared_alignment";

/// On a kernel (gpu.func, then llvm.func): how many of its last parameters
/// are TMA tensor maps (`--fa-lower-to-gpu` appends them as !llvm.ptr;
/// `--fa-tensor-map-params` passes them by value, 128 bytes each, as
/// `__grid_constant__` parameters).
inline constexpr llvm::StringLiteral kTensorMapParamsAttrName =
    "fa.tensor_map_params";

#define GEN_PASS_DECL
#include "fa/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa/Conversion/Passes.h.inc"

} // namespace fa
} // namespace mlir

#endif // FA_CONVERSION_PASSES_H
