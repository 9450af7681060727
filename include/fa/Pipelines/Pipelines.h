//===- Pipelines.h - FlashAttention pass pipelines --------------*- C++ -*-===//
//
// Named pipelines that chain the `fa-` passes with the upstream ones:
//
//   --fa-lower-to-cpu   fa IR (any stage that has a CPU lowering) -> LLVM
//                       dialect for the host, runnable with mlir-runner.
//   --fa-to-ptx         fa.attention -> PTX (L0 -> L5), optionally written
//                       to files with its launch record.
//   --fa-linalg-to-ptx  --fa-raise-attention, then --fa-to-ptx: a frontend's
//                       linalg on tensors to kernels and launch plans.
//   --fa-linalg-to-cpu  --fa-raise-attention, then --fa-lower-to-cpu.
//
//===----------------------------------------------------------------------===//

#ifndef FA_PIPELINES_PIPELINES_H
#define FA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class OpPassManager;
namespace fa {

/// Lowers every `fa` op left in the module to loops and then to the LLVM
/// dialect, bufferizing on the way. A whole `fa.attention` goes through the
/// naive decomposition; the tile ops of a tiled loop nest (L1/L2) through
/// --fa-decompose-tiles.
void buildLowerToCPUPipeline(OpPassManager &pm);

struct ToPTXOptions : public PassPipelineOptions<ToPTXOptions> {
  PassOptions::Option<int64_t> blockM{
      *this, "block-m",
      llvm::cl::desc("Rows of Q per thread block; 0 (with block-n=0) picks "
                     "both per head dim; give both or neither"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n",
      llvm::cl::desc("Rows of K/V per inner-loop step; 0 (with block-m=0) "
                     "picks both per head dim; give both or neither"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> numWarps{
      *this, "num-warps",
      llvm::cl::desc("Warps per thread block; 0 picks per head dim"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> kvStages{
      *this, "kv-stages",
      llvm::cl::desc("K/V blocks resident in shared memory (2 to 4); 0 picks "
                     "per head dim"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> l2Prefetch{
      *this, "l2-prefetch",
      llvm::cl::desc("Bytes each K/V (and Q) copy asks L2 to fetch around it: "
                     "64, 128 or 256, 0 for no hint, -1 for 128 in forward "
                     "kernels and none in backward ones (--fa-pipeline-kv)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> mbarrierTimeoutMs{
      *this, "mbarrier-timeout-ms",
      llvm::cl::desc("Bound every mbarrier wait (TMA copies): trap after "
                     "this many milliseconds, for test builds (0: no bound; "
                     "--fa-lower-to-gpu)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> copy{
      *this, "copy",
      llvm::cl::desc("How the forward kernels' K/V tiles are copied into "
                     "shared memory: auto (the default) by TMA (one thread, "
                     "cp.async.bulk.tensor from a tensor map the runtime "
                     "makes, mbarrier completion) where the tiles are in "
                     "#fa.wgmma's swizzled layout (the rows a copy brings "
                     "past a packed sequence's or a K/V cache's block "
                     "zeroed by the await), by cp.async elsewhere; tma the "
                     "same, and an error "
                     "unless chip=sm_90a with atom wgmma or auto; cp-async "
                     "everywhere "
                     "(--fa-pipeline-kv copy)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> release{
      *this, "release",
      llvm::cl::desc("How a TMA ring's slots are freed for their next "
                     "fill: auto (the default) as mbarrier where the "
                     "warpgroups take turns by pingpong=auto (K/V blocks of "
                     "128 keys or more), barrier elsewhere and whenever "
                     "pingpong=off; barrier by the barrier of each await; "
                     "mbarrier by fa.release, each warp arriving on the "
                     "slot's release mbarrier when done with it, where the "
                     "loops allow (--fa-pipeline-kv release)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> pingpong{
      *this, "pingpong",
      llvm::cl::desc("Whether the warpgroups of a #fa.wgmma kernel take "
                     "turns at issuing their matmuls, one's softmax under "
                     "another's products (FlashAttention-3's ping-pong, "
                     "--fa-pingpong): auto (the default) in loops whose K/V "
                     "blocks have 128 keys or more, where it pays; on in "
                     "every loop it applies to; off"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> swizzleShared{
      *this, "swizzle-shared",
      llvm::cl::desc("The shared layout of the streamed tiles (the "
                     "forward kernels' K/V, the backward kernels' tiles "
                     "loaded every step): on (XOR-swizzled), off (rows "
                     "padded by 16 bytes) or auto (swizzled where the "
                     "atom's register budget for it allows) "
                     "(--fa-map-warps)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> queryHome{
      *this, "query-home",
      llvm::cl::desc("Where fa.qk reads Q: auto, registers or shared "
                     "(--fa-map-warps)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> rescale{
      *this, "rescale",
      llvm::cl::desc("Where the accumulator is rescaled: auto, before-exp or "
                     "after-exp (--fa-schedule-softmax)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> mmaPipeline{
      *this, "mma-pipeline",
      llvm::cl::desc("Defer each K/V block's P V by one block so that "
                     "asynchronous MMAs overlap the softmax "
                     "(--fa-pipeline-mma): auto (where the atom's matmuls are "
                     "asynchronous: wgmma), on (every atom) or off"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> packGqa{
      *this, "pack-gqa",
      llvm::cl::desc("Single-query GQA/MQA ops (static Nq = 1): the query "
                     "heads of a group share one Q block, so each K/V tile "
                     "is read once per group (--fa-tile-q-outer pack-gqa)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> dq{
      *this, "dq",
      llvm::cl::desc("How the backward accumulates dQ (--fa-tile-backward "
                     "dq): 'atomic' (FlashAttention-2's f32 buffer, added "
                     "into by the dK/dV kernel), 'deterministic' (its own "
                     "kernel, bitwise reproducible), 'auto' (atomic at "
                     "head dim 64, and at 128 on Hopper without a soft "
                     "cap or a non-causal window; else deterministic)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> splits{
      *this, "splits",
      llvm::cl::desc("Split-KV: the keys of each Q block in this many chunks "
                     "run by separate thread blocks, merged by a second "
                     "kernel (--fa-split-kv, --fa-tile-combine); 1 = off; "
                     "0 = a run-time count, the launch plan's num_splits"),
      llvm::cl::init(1)};
  PassOptions::Option<int64_t> mergeDv{
      *this, "merge-dv",
      llvm::cl::desc("Split-KV: columns of one tile of the merge kernel "
                     "(--fa-tile-combine block-dv; 0 = 8 where they divide "
                     "the value head dim)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> mergeSplitWarps{
      *this, "merge-split-warps",
      llvm::cl::desc("Split-KV: groups of warps per tile of the merge "
                     "kernel, each merging a share of the splits "
                     "(--fa-tile-combine split-warps; 0 = from the split "
                     "count)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> keyGroups{
      *this, "key-groups",
      llvm::cl::desc("Groups of warps that divide the keys of every K/V "
                     "block of the forward kernels (--fa-map-warps "
                     "key-groups; 1 = off, 2, 4 or 8; 0 = the tiling's "
                     "choice: 4 warps along the keys for decode steps)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> dkdvGroups{
      *this, "dkdv-groups",
      llvm::cl::desc("Groups of warps that split the columns of the "
                     "backward dK/dV kernel's accumulators, a [num-warps, "
                     "dkdv-groups] warp grid (--fa-map-warps dkdv-groups; "
                     "1 = off, 2, 4 or 8; 0 = the tiling's choice: 2 for "
                     "the atomic dQ at head dim 128 on Hopper)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> warpBlockSkip{
      *this, "warp-block-skip",
      llvm::cl::desc("Let each warp skip the masked K/V blocks none of its "
                     "rows sees (--fa-warp-block-skip; off by default: no "
                     "faster on the H200, see docs/performance.md)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> stageBlockScalars{
      *this, "stage-block-scalars",
      llvm::cl::desc("Per-block scalars read from memory (packed sequences' "
                     "offsets, K/V-cache lengths) kept in shared memory "
                     "across the K/V loops (--fa-stage-block-scalars): "
                     "'auto' where the tiling asks for it (causal packed "
                     "sequences on Hopper, which then keep the dense "
                     "kernel's tiles; the default), 'on' in every kernel, "
                     "'off' nowhere (the table's window tiles, bounds in "
                     "registers)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU, an NVPTX processor from sm_80 on (sm_80, "
                     "sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_120 ..., "
                     "fa/Dialect/FA/IR/Chips.h); sets the PTX target, the "
                     "shared memory budget and the default tiles"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> atom{
      *this, "atom",
      llvm::cl::desc("MMA atom of the forward kernels: mma_sync "
                     "(mma.sync.m16n8k16, every chip), wgmma "
                     "(wgmma.mma_async on warpgroups, chip=sm_90a only) or "
                     "auto (the default: per kernel, wgmma on sm_90a where "
                     "its Q block is whole warpgroups and Nq is not a static "
                     "32 rows or fewer, mma_sync elsewhere; "
                     "--fa-tile-q-outer{atom=auto}). The backward and "
                     "split-KV's merge always use mma_sync"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA version as an LLVM feature (+ptx70 .. +ptx90), "
                     "at least the chip's minimum; empty: PTX 8.0 or the "
                     "chip's minimum where that is newer"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Index width inside the kernel (32: i32 sizes, strides "
                     "and offsets, tensors below 2^31 elements; 64: i64)"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> shortSharedPointers{
      *this, "short-shared-pointers",
      llvm::cl::desc("Keep shared-memory addresses in 32-bit registers "
                     "(LLVM's nvptx-short-ptr, set only while the kernels "
                     "are serialized; --fa-gpu-module-to-ptx)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> outputDir{
      *this, "output-dir",
      llvm::cl::desc("If set, write <kernel>.ptx and <kernel>.json here"),
      llvm::cl::init("")};
};

/// fa.attention -> PTX: tiling, causal block skipping, warp mapping, the GPU
/// kernel, upstream NVVM lowering, gpu-module-to-binary{format=isa}.
/// Fails for a bad option value, with the message passed to `errorHandler`
/// (the pass registry's, so that parsePassPipeline reports it) or, without
/// one, printed on stderr.
LogicalResult buildToPTXPipeline(
    OpPassManager &pm, const ToPTXOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler = nullptr);

/// linalg on tensors -> PTX: --fa-raise-attention, then the pipeline above.
LogicalResult buildLinalgToPTXPipeline(OpPassManager &pm,
                                       const ToPTXOptions &options);

/// Registers the pipelines above with the global pass registry.
void registerFAPipelines();

} // namespace fa
} // namespace mlir

#endif // FA_PIPELINES_PIPELINES_H
