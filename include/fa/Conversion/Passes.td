//===- Passes.td - FlashAttention conversion passes --------*- tablegen -*-===//

#ifndef FA_CONVERSION_PASSES_TD
#define FA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FALowerToGPU : Pass<"fa-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the warp-mapped loop nest (L3) to a GPU kernel, op "
                "by op (L4)";
  let description = [{
    Every `scf.forall` with `fa` layouts (the output of `--fa-map-warps`,
    usually after `--fa-schedule-softmax` and `--fa-pipeline-kv`) becomes a
    `gpu.func` in its own `gpu.module` and a `gpu.launch_func` over the grid
    of its `#gpu.block` mapping, with `32 * num_warps` threads.

    * Outlining (as upstream's gpu-kernel-outlining): the loop body is
      copied op for op into the kernel; tensors it reads and its shared
      outputs become strided memref parameters, f32 scalars (the softmax
      scale) scalar parameters, outside index values are recomputed from
      the memref sizes, and the stores of `scf.forall.in_parallel` become
      `bufferization.materialize_in_destination`.
    * A dialect conversion lowers each op with one pattern: the type
      converter turns a `#fa.warp_rows` tile into the per-thread fragments
      of the MMA atom its encoding names, a `#fa.block_shared` tile into its
      byte offset in dynamic shared memory, and a `!fa.future` into its
      slot. `fa.qk` and `fa.pv` become the atom's MMAs, `fa.mask` one
      comparison per score, `fa.running_max` / `fa.softmax_exp` the quad
      reductions and one FMA + exp2 per score, `fa.rescale` a warp-uniform
      branch, `fa.finalize` the division and LSE, `fa.convert_layout` the
      atom's layout change, `fa.async_load` / `fa.await` `cp.async` groups
      and waits, tile stores 16-byte coalesced stores through shared memory.
      The ops are emitted in the order they appear: the order is the
      schedule.
    * The shared tiles of one kernel are laid out ring after ring; the
      output tile is staged over them at the end.

    The launch plan (kernels, grid expressions over tensor sizes, block,
    dynamic shared memory, parameters; `docs/launch-plan.md`) is attached to
    the launch as `fa.launch_plan`. Sequence lengths, batch and the scale
    are run-time values: one kernel serves every B, Nq, Nk and scale.

    Before (abridged):

    ```mlir
    %r = scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(%o = %init) {
      ... fa ops on tensor<128x64xf32, #acc_w4> ...
    } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    ```

    After (abridged):

    ```mlir
    gpu.module @f_kernel_module {
      gpu.func @f_kernel(%q: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>,
                         ..., %scale: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
        ... nvgpu.device_async_copy ... scf.for ... nvgpu.ldmatrix ...
        nvgpu.mma.sync ... gpu.shuffle xor ... math.exp2 ...
      }
    }
    func.func @f(...) {
      gpu.launch_func @f_kernel_module::@f_kernel blocks in (%nqb, %c8, %B)
          threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c49152_i32
          args(%qm : ..., %scale : f32) {fa.launch_plan = {...}}
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target GPU, an NVPTX processor from sm_80 on "
           "(fa/Dialect/FA/IR/Chips.h); sets the shared memory a thread "
           "block may use">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"32",
           "Index width the kernel will be lowered with (32 or 64), recorded "
           "in the launch plan: with 32, sizes, strides and offsets are i32 "
           "parameters and every tensor must have fewer than 2^31 reachable "
           "elements">,
    Option<"mbarrierTimeoutMs", "mbarrier-timeout-ms", "int64_t",
           /*default=*/"0",
           "Bound every mbarrier wait (TMA copies): a thread that has waited "
           "this many milliseconds (%globaltimer) executes `trap`, so a "
           "pipeline bug fails the launch instead of hanging it (test "
           "builds); 0: wait without a bound">
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
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FAStageBlockScalars : Pass<"fa-stage-block-scalars", "::mlir::ModuleOp"> {
  let summary = "Keep a kernel's per-block scalars read from memory in shared "
                "memory across its K/V loops, not in registers";
  let description = [{
    A kernel for packed sequences reads its thread block's sequence offsets
    and lengths from `cu_seqlens`, a K/V-cache kernel its key count from
    `key_lengths`; both hold those values in registers through the K/V
    loops, beside the S and O fragments, where a dense kernel reads N from
    its parameters, which ptxas reloads from the constant bank at each use.
    At head dim 128 on sm_90 those few registers make ptxas spill inside
    the K/V loop. This pass, run on the GPU stage after `--fa-lower-to-gpu`,
    gives them a parameter's cost in the kernels whose loop nest asked for
    it (`fa.stage_block_scalars`, which `--fa-tile-q-outer` writes and
    `--fa-lower-to-gpu` copies onto the `gpu.func`), or in every kernel
    with `all-kernels`: each such scalar is written once by
    thread 0 to a word of a workgroup buffer (static shared memory) before
    the last barrier ahead of the first K/V loop (a new barrier if there is
    none), and read back just before each use in and after the loops. Uses
    before the loops, and the first loop's own bounds, keep the register.

    A scalar is staged when it is an `index` or `i32` value of the kernel's
    top level, defined before that barrier and used in or after the first
    loop (a top-level `scf.for` containing a `gpu.barrier`), when it comes
    from a load or a loop (a value of parameters, block indices and
    constants ptxas recomputes itself), and when it is the same in every
    thread of the block. The last is proven by a forward analysis: kernel
    arguments, block indices and sizes, constants and memory-free
    arithmetic of uniform values are uniform; `thread_id x` modulo a
    divisor of 32 is a function of the lane alone (with a known block size
    of whole warps), as are shuffles of such values; a shuffle from a
    uniform lane and a full-warp ballot of lane values are uniform again;
    a load is uniform at uniform indices of an argument the kernel never
    writes; loops and branches with uniform bounds and conditions pass
    uniformity through; anything else is divergent. At most `max-scalars`
    values are staged (in order of definition); a kernel whose launch plan
    leaves less shared memory than their words (8 bytes each, 16-byte
    aligned) is left as it is.

    Before:

    ```mlir
    %kstart = arith.index_cast %ck0 : i32 to index
    gpu.barrier
    scf.for %j = %c0 to %n step %c64 ... {
      gpu.barrier
      %row = arith.addi %kstart, %j : index
    }
    ```

    After:

    ```mlir
    gpu.func @k(...) workgroup(%slots : memref<1xindex, #gpu.address_space<workgroup>>)
        kernel attributes {fa.stage_block_scalars, ...}
    %kstart = arith.index_cast %ck0 : i32 to index
    scf.if %thread0 {
      memref.store %kstart, %slots[%c0] : memref<1xindex, ...>
    }
    gpu.barrier
    scf.for %j = %c0 to %n step %c64 ... {
      gpu.barrier
      %w = memref.load %slots[%c0] : memref<1xindex, ...>
      %row = arith.addi %w, %j : index
    }
    ```
  }];
  let options = [
    Option<"allKernels", "all-kernels", "bool", /*default=*/"false",
           "Stage the scalars of every kernel, not only of those marked "
           "fa.stage_block_scalars">,
    Option<"maxScalars", "max-scalars", "int64_t", /*default=*/"16",
           "Most scalars a kernel stages (0: none, the pass does nothing)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def FAExportKernels : Pass<"fa-export-kernels", "::mlir::ModuleOp"> {
  let summary = "Write each compiled kernel's PTX and launch record to files";
  let description = [{
    After `gpu-module-to-binary{format=isa}`, writes for every launch that
    carries a launch plan (`fa.launch_plan`):

    * `<dir>/<kernel>.ptx`: the PTX of its `gpu.binary`;
    * `<dir>/<plan>.json`: the launch plan (`docs/launch-plan.md`): the
      tensors and scalars, and for each kernel its grid as expressions of
      the tensor sizes, block, dynamic shared memory and parameter order.

    This is all a runtime needs: load the PTX with `cuModuleLoadData`, look the
    kernel up by name, raise `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`
    and launch. Each file is written to a temporary name and renamed, so an
    interrupted run leaves no partial file; names are PTX identifiers, so
    every file lands inside `output-dir`. The IR is left unchanged.
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
    * `math.tanh` -> `tanh.approx.f32` (inline PTX, sm_75+; MUFU.TANH;
      relative error at most 2^-11, as FlashAttention-2's soft cap),
    * `math.exp` -> `ex2.approx.ftz.f32` of `x * log2(e)`, `math.log` ->
      `lg2.approx.ftz.f32` times `ln(2)` (split-KV's merge of LSEs),
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

    One pattern of its own: an `nvgpu.device_async_copy` tagged
    `fa.l2_prefetch = N` (what `--fa-lower-to-gpu` makes of `fa.async_load`'s
    `l2_prefetch(N)`) becomes `cp.async.cg.shared.global.L2::<N>B` as inline
    PTX, with upstream's addresses and src-size: NVVM's `cp.async` op has no
    prefetch-size field. A tag other than 64/128/256, or on a copy that is not
    16 bytes with L1 bypassed, is an error.

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


def FATensorMapParams : Pass<"fa-tensor-map-params",
                             "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass a kernel's TMA tensor maps by value, as "
                "__grid_constant__ parameters";
  let description = [{
    `--fa-lower-to-gpu` appends one `!llvm.ptr` parameter per TMA tensor
    map to a kernel with `fa.async_load {tma}` and counts them in
    `fa.tensor_map_params`. A tensor map is a 128-byte value the host makes
    (`cuTensorMapEncodeTiled`) and the kernel must read from the parameter
    space or constant memory, not from global memory the host wrote, and a
    by-value parameter stays valid when a launch is captured in a CUDA
    graph. `convert-gpu-to-nvvm` drops `llvm.byval` from a `gpu.func`'s
    arguments and rejects `nvvm.grid_constant` on one, so this pass, run
    after it, marks the last `fa.tensor_map_params` parameters of each
    `llvm.func` kernel `llvm.byval = !llvm.struct<(array<16 x i64>)>`,
    `llvm.align = 64` and `nvvm.grid_constant`: PTX
    `.param .align 64 .b8 name[128]`, whose address the kernel takes
    (`cvta.param`) for `cp.async.bulk.tensor`. It fails on a count larger
    than the kernel's parameters or on a counted parameter that is not a
    pointer.

    Before:

    ```mlir
    llvm.func @k(..., %map: !llvm.ptr {llvm.align = 64 : i64})
        attributes {fa.tensor_map_params = 1 : i64, nvvm.kernel}
    ```

    After:

    ```mlir
    llvm.func @k(..., %map: !llvm.ptr {llvm.align = 64 : i64,
        llvm.byval = !llvm.struct<(array<16 x i64>)>, nvvm.grid_constant})
        attributes {fa.tensor_map_params = 1 : i64, nvvm.kernel}
    ```
  }];
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

    A kernel whose atom lays its shared tiles out from address bits (the
    128-byte swizzle of `#fa.wgmma`) says how its dynamic shared memory
    must be aligned with `fa.shared_alignment` (set by `--fa-lower-to-gpu`,
    kept on the `llvm.func`); the pass raises the global's alignment to the
    largest such value in the module.

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

    (`alignment = 1024` when a kernel of the module has
    `fa.shared_alignment = 1024`.)
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


def FAGpuModuleToPTX : Pass<"fa-gpu-module-to-ptx", "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary{format=isa}, with LLVM's NVPTX "
                "short-pointer option set for this serialization only";
  let description = [{
    Runs upstream's `gpu-module-to-binary{format=isa}` on the module: every
    `gpu.module` (in the NVVM dialect, with an `#nvvm.target`) that is a
    direct child becomes a `gpu.binary` holding PTX text.

    Shared memory addresses are 32-bit on NVIDIA GPUs, but LLVM's NVPTX
    backend keeps them in 64-bit registers unless its `nvptx-short-ptr`
    command-line option is set. The attention kernel keeps a shared-memory
    base register per operand and pipeline stage, at the edge of the
    255-register budget: with 32-bit shared pointers the d = 128 kernels
    stop spilling (`ptxas -v`). That option is global to the process (an
    LLVM `cl::opt`), and a library that set it once would change the PTX of
    every other NVPTX compilation its host process does. With
    `short-shared-pointers` (the default) this pass turns it on only while
    its own serialization runs and restores the previous value afterwards,
    whatever that was (the host's `--nvptx-short-ptr` or LLVM's default,
    off). Concurrent runs of this pass in one process take turns; an
    unrelated NVPTX compilation running on another thread at that moment
    would still see the value, which no library-side code can prevent for a
    process-wide option. With `short-shared-pointers=false` the pass does not
    touch the option at all: the kernels get the process's value (LLVM's
    default: 64-bit shared pointers, correct but with more registers).

    Before:

    ```mlir
    gpu.module @k [#nvvm.target<chip = "sm_80">] {
      llvm.func @k(...) attributes {gpu.kernel, nvvm.kernel} { ... }
    }
    ```

    After (PTX abridged; with short-shared-pointers=true, addresses into
    `.shared` sit in 32-bit `%r` registers, with false in 64-bit `%rd` ones):

    ```mlir
    gpu.binary @k  [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "...
        mov.b32 %r4, tile; add.s32 %r5, %r4, %r3; st.shared.b32 [%r5], %r2; ...">]
    ```
  }];
  let options = [
    Option<"shortSharedPointers", "short-shared-pointers", "bool",
           /*default=*/"true",
           "Keep shared-memory addresses in 32-bit registers (LLVM's "
           "nvptx-short-ptr) while this pass serializes; the process-wide "
           "value is restored afterwards">
  ];
}

#endif // FA_CONVERSION_PASSES_TD
