//===- Passes.td - FlashAttention conversion passes --------*- tablegen -*-===//

#ifndef FA_CONVERSION_PASSES_TD
#define FA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FALowerToGPU : Pass<"fa-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the warp-mapped loop nest (L3) to a GPU kernel with "
                "tensor-core fragments (L4)";
  let description = [{
    Turns each tiled, warp-mapped fa.attention (the output of
    `--fa-map-warps`) into a `gpu.func` kernel in its own `gpu.module`, and
    the `scf.forall` into a `gpu.launch_func` over the grid
    (Q blocks, heads, batch) with `32 * num_warps` threads.

    The kernel is FlashAttention-2's forward pass for sm_80:

    * Q, K and V tiles in dynamic shared memory, rows padded by 16 bytes
      (no bank conflicts for ldmatrix), filled by 16-byte `cp.async`
      (`nvgpu.device_async_copy`) that zero-fill rows past the sequence end;
      `kv-stages` K/V buffers: blocks j + 1 .. j + kv-stages - 1 load while
      block j is used, with one barrier per block;
    * `nvgpu.ldmatrix` (`.trans` for V) and `mma.sync.m16n8k16` with f32
      accumulators (`nvgpu.mma.sync` for f16, `nvvm.mma.sync` for bf16);
    * the online softmax in registers: row max and sum over the 4 lanes of a
      quad (`gpu.shuffle xor` 1 and 2), one `math.fma` + `math.exp2` per
      score, the accumulator rescaled by alpha (skipped by a warp-uniform
      branch when no row max of the warp moved; the branch comes before the
      exponentials when the fragments leave registers to spare, after them
      otherwise); P converted from the S
      accumulator fragments straight into A fragments;
    * the causal / key-limit mask only in the loop that `fa.mask` is in;
    * one normalisation at the end and guarded stores of O and LSE.

    Sequence lengths and batch come from the memref arguments at run time:
    one kernel serves every B, Nq, Nk. The launch record (grid, block,
    dynamic shared memory, parameters) is attached to the kernel and the
    launch as `fa.launch`.

    Before (abridged):

    ```mlir
    %r = scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(%o = %init) {
      ... tile ops on tensor<128x64xf16, #fa.warp_rows<num_warps = 4>> ...
    } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    ```

    After (abridged):

    ```mlir
    gpu.module @f_kernel_module {
      gpu.func @f_kernel(%q: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, ...)
          kernel attributes {known_block_size = array<i32: 128, 1, 1>, ...} {
        %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
        ...
        nvgpu.device_async_copy ...
        scf.for %k0 = ... {
          nvgpu.ldmatrix ... ; nvgpu.mma.sync ... ; gpu.shuffle xor ...
          math.exp2 ... ; nvgpu.ldmatrix ... {transpose = true} ...
        }
        vector.store ...
      }
    }
    func.func @f(...) {
      gpu.launch_func @f_kernel_module::@f_kernel blocks in (%nqb, %c8, %B)
          threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c49152_i32
          args(%qm : ..., ...)
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target GPU (sm_80 or newer): sets the shared memory a thread "
           "block may use">,
    Option<"kvStages", "kv-stages", "int64_t", /*default=*/"2",
           "K/V blocks resident in shared memory (2 to 4): blocks j + 1 .. "
           "j + kv-stages - 1 load while block j is used">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"32",
           "Index width the kernel will be lowered with (32 or 64), recorded "
           "in the launch record: with 32, sizes, strides and offsets are i32 "
           "parameters and every tensor must have fewer than 2^31 reachable "
           "elements">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FAExportKernels : Pass<"fa-export-kernels", "::mlir::ModuleOp"> {
  let summary = "Write each compiled kernel's PTX and launch record to files";
  let description = [{
    After `gpu-module-to-binary{format=isa}`, writes for every kernel launched
    with an `fa.launch` record:

    * `<dir>/<kernel>.ptx`: the PTX of its `gpu.binary`;
    * `<dir>/<kernel>.json`: the launch record (kernel name, grid and block as
      functions of the shapes, dynamic shared memory bytes, parameter order
      and meaning, tile configuration).

    This is all a runtime needs: load the PTX with `cuModuleLoadData`, look the
    kernel up by name, raise `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`
    and launch. The IR is left unchanged.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", /*default=*/"\".\"",
           "Directory to write <kernel>.ptx and <kernel>.json into">
  ];
}


def FALowerGPUMath : Pass<"fa-lower-gpu-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the kernel's f32 math to PTX approximations, without "
                "libdevice";
  let description = [{
    `convert-gpu-to-nvvm` turns `math.exp2`, `math.log2`, `math.fma` and
    `arith.maxnumf` into calls to CUDA's libdevice (`__nv_exp2f`, ...), which
    `gpu-module-to-binary` can only resolve with a CUDA toolkit installed.
    The attention kernel wants the hardware instructions anyway, as
    FlashAttention-2 gets them from `--use_fast_math`; this pass, run on each
    `gpu.module` before `convert-gpu-to-nvvm`, rewrites the f32 forms:

    * `math.exp2` -> `ex2.approx.ftz.f32` (inline PTX; MUFU.EX2),
    * `math.log2` -> `lg2.approx.ftz.f32` (inline PTX; MUFU.LG2),
    * `math.fma` -> `llvm.intr.fma` (`fma.rn.f32`),
    * `arith.maxnumf` -> `llvm.intr.maxnum` (`max.f32`).

    Before:

    ```mlir
    %p = math.exp2 %x : f32
    ```

    After:

    ```mlir
    %p = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %x : (f32) -> f32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


def FAConvertNVGPUToNVVM : Pass<"fa-convert-nvgpu-to-nvvm",
                                "::mlir::gpu::GPUModuleOp"> {
  let summary = "convert-nvgpu-to-nvvm with a chosen index bitwidth";
  let description = [{
    Upstream's `convert-nvgpu-to-nvvm` always lowers with 64-bit indices,
    while `convert-gpu-to-nvvm{index-bitwidth=32}` uses 32: mixing them
    leaves memref descriptors of two widths. This pass runs the same upstream
    patterns (`populateNVGPUToNVVMConversionPatterns`) with `index-bitwidth`,
    so that a kernel can do its address arithmetic in 32 bits: half the
    registers for every offset a thread keeps, and one instruction per add
    instead of two.

    Before:

    ```mlir
    %f = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = false}
        : memref<128x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    ```

    After (`index-bitwidth=32`, abridged):

    ```mlir
    %p = llvm.getelementptr %base[%offset] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
    %f = nvvm.ldmatrix %p {layout = #nvvm.mma_layout<row>, num = 4 : i32, ...}
    ```
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Bitwidth of the index type (32 or 64)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}


def FAExternDynamicShared : Pass<"fa-extern-dynamic-shared",
                                 "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare dynamic shared memory as .extern .shared, as CUDA "
                "does";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to a zero-sized
    `llvm.mlir.global internal` in address space 3. With internal linkage the
    NVPTX backend demotes it to a function-local `.shared` variable of one
    byte, and the kernel then addresses its whole dynamic shared memory
    through a static one-byte variable: it happens to work (the dynamic
    allocation follows the static one) but is not what CUDA defines. This
    pass, run after `convert-gpu-to-nvvm`, gives such globals external
    linkage, which PTX prints as
    `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`.

    Before:

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32,
        alignment = 16 : i64} : !llvm.array<0 x i8>
    ```

    After:

    ```mlir
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32,
        alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FA_CONVERSION_PASSES_TD
