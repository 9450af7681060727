//===- Passes.td - FlashAttention transformation passes ----*- tablegen -*-===//

#ifndef FA_TRANSFORMS_PASSES_TD
#define FA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FADecomposeNaive : Pass<"fa-decompose-naive"> {
  let summary = "Lower fa.attention and fa.attention_backward to unfused "
                "linalg ops (the CPU oracle)";
  let description = [{
    Rewrites every tensor-form `fa.attention` into the textbook computation on
    whole tensors, with f32 accumulation:

    1. `S = scale * Q K^T` (one `linalg.generic`, reading key/value head
       `h floordiv (Hq / Hkv)` for query head `h`),
    2. the mask (`-inf` for the keys a row does not see: `j > i + Nk - Nq`
       when causal, outside `[i + Nk - Nq - left, i + Nk - Nq + right]` with
       a window; AttentionMath.h), after the soft cap
       `c * tanh(scale * s / c)` if any,
    3. `M = rowmax(S)`, `E = exp(S - M)`, `L = rowsum(E)`,
    4. `O = (E V) / L`, `LSE = M + log(L)`.

    The full `[B, Hq, Nq, Nk]` score matrix is materialised, so this is only
    meant as the reference that every faster lowering is compared against.
    Rows that see no key give `O = 0` and `LSE = -inf`, like the tiled
    kernels.

    A K/V cache: with `key_lengths`, the mask of sequence `b` also hides the
    keys past its own count `n_b`, and its diagonal is `i + n_b - Nq`; with
    `block_table`, a first `linalg.generic` gathers the pages of K and V
    into dense `[B, Hkv, max_pages * page_size, D]` tensors (reading the
    table only for keys below `n_b`, inside an `scf.if`), and the steps
    above read those.

    Before:

    ```mlir
    %o = fa.attention ins(%q, %k, %v : tensor<1x2x4x8xf32>,
                          tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>)
                      outs(%init : tensor<1x2x4x8xf32>) causal
                      -> tensor<1x2x4x8xf32>
    ```

    After (abridged):

    ```mlir
    %s = linalg.generic {indexing_maps = [
           affine_map<(b, h, i, j, d) -> (b, h, i, d)>,
           affine_map<(b, h, i, j, d) -> (b, h floordiv 2, j, d)>,
           affine_map<(b, h, i, j, d) -> (b, h, i, j)>], ...}
         ins(%q, %k : ...) outs(%zero : tensor<1x2x4x6xf32>) {...}
    %masked = linalg.generic ... { ... arith.cmpi sge ... arith.select ... }
    %m = linalg.generic ... { arith.maxnumf }    // row max
    %e = linalg.generic ... { math.exp }          // exp(S - M)
    %l = linalg.generic ... { arith.addf }        // row sum
    %pv = linalg.generic ... { arith.mulf, arith.addf }  // E V
    %o = linalg.generic ... { arith.divf, arith.select } // / L, 0 if L == 0
    ```

    `fa.attention_backward` is rewritten the same way, into the textbook
    gradient (f32 throughout, each gradient rounded once at the end), from
    the same scores (the same `linalg.generic` for `S`, the same soft cap
    and mask):

    1. `P = exp(S - LSE)` (0 for hidden keys and for rows with
       `LSE = -inf`), `D = rowsum(dO * O)`, `dP = dO V^T`,
    2. `dS = P * (dP - D)`, times `1 - (S / c)^2` with `softcap(c)`
       (0 for hidden keys),
    3. `dQ = scale * dS K`, `dK = scale * dS^T Q`, `dV = P^T dO`, where
       `dK` and `dV` also sum over the `Hq / Hkv` query heads of a GQA
       group (the query heads are split `[Hq] -> [Hkv, group]` with
       `tensor.expand_shape` so that the group is a reduction loop).

    The memref form is an error ("needs the tensor form"): bufferize after
    this pass, not before.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}


def FATileQOuter : Pass<"fa-tile-q-outer"> {
  let summary = "Tile fa.attention into FlashAttention-2's Q-outer loops "
                "with online-softmax state";
  let description = [{
    Rewrites every tensor-form `fa.attention` into the FlashAttention-2
    forward loop nest (stage L1):

    * an `scf.forall` over `(batch, query head, Q block)`: each Q block of
      `block-m` rows is loaded once (zero-padded past `Nq`) and becomes one
      thread block on the GPU;
    * an inner `scf.for` over K/V blocks of `block-n` rows whose `iter_args`
      are exactly the online-softmax state: running max `m`, running sum `l`
      and the unnormalised accumulator;
    * the body: `fa.qk` (raw scores), `fa.softcap` with `softcap(c)`,
      `fa.mask` (keys past `Nk`, and the causal and sliding-window bounds if
      any), `fa.online_softmax` (no division; it applies the
      scale times log2(e), one f32 value defined before the loop nest, which
      becomes a kernel parameter on the GPU), `arith.truncf` of P for
      f16/bf16, `fa.rescale` (alpha * acc) and `fa.pv` (acc + P V);
    * after the loop, the one normalisation, `fa.finalize`, and
      `tensor.parallel_insert_slice` of the valid rows of O and LSE.

    Query head `h` reads key/value head `h floordiv (Hq / Hkv)` (GQA/MQA).
    At this stage every K/V block is visited and masked;
    `--fa-causal-block-skip` then removes the work that is not needed.

    With `pack-gqa` and a single query (`Nq` statically 1, a decode step)
    of a GQA/MQA op (`G = Hq / Hkv > 1`), the `G` query heads of a group
    share one Q block instead of one block each (FlashAttention's
    `pack_gqa`): the forall runs over `(batch, key/value head, ceil(G /
    block-m))`, the Q tile is rows `[g0, g0 + min(block-m, G - g0))` of
    `Q[b, kvh * G : (kvh + 1) * G, 0, :]` (rows along the heads), the mask
    is `single_query` (every row is query 0), and O and LSE are stored back
    along the heads. Each K/V tile is then loaded once per group instead of
    `G` times. Other ops are tiled as without the option.

    A K/V cache (`key_lengths`, `block_table`): each forall iteration reads
    its sequence's key count `n_b = clamp(key_lengths[b], 0, capacity)`,
    which is the K/V loop's bound, the mask's key limit and its diagonal
    (`n_b - Nq`); with a block table each K/V block is rows
    `[j mod page_size, + min(block-n, n_b - j))` of head `h floordiv G` of
    page `table[b, j / page_size]` of the pools (a slice along dim 1;
    AttentionMath.h, `pageOfKey`). block-n must divide the page size; with
    auto-blocks the K/V block is the largest of at most the table's that
    does (a page size that is not a multiple of 16 is an error), and a Q
    block of the table's size takes the table's window tiles.

    Packed sequences (`cu_seqlens`): the forall runs over `ceil(total_q /
    block-m) + S` Q blocks; `fa.varlen_block` gives each iteration's
    sequence and its block within it; the sequence's offsets and lengths
    (from `cu_seqlens`) give the tiles' row offsets and the mask's
    sequence-local rows, keys, key limit and diagonal; a block past its
    sequence has no row and a K/V loop with no iteration.

    Before:

    ```mlir
    %o = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>,
                          tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                      outs(%init : tensor<?x8x?x64xf16>) causal
                      -> tensor<?x8x?x64xf16>
    ```

    After (`block-m=128 block-n=64`, abridged):

    ```mlir
    %r = scf.forall (%b, %h, %qb) in (%B, 8, %num_q_blocks)
        shared_outs(%o = %init) -> (tensor<?x8x?x64xf16>) {
      %q_tile = tensor.pad ... : tensor<?x64xf16> to tensor<128x64xf16>
      // %c = arith.constant 0.180336878 : f32, before the forall
      %kvh = arith.divui %h, %c4 : index
      %m_l_acc:3 = scf.for %k0 = %c0 to %Nk step %c64
          iter_args(%m = %minus_inf, %l = %zero, %acc = %zeros)
          -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %k_tile = tensor.pad ... to tensor<64x64xf16>
        %v_tile = tensor.pad ... to tensor<64x64xf16>
        %s = fa.qk %q_tile, %k_tile : ...
        %s2 = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) : ...
        %p, %m2, %l2, %alpha = fa.online_softmax %s2, %m, %l scale(%c) : ...
        %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
        %acc1 = fa.rescale %acc, %alpha : ...
        %acc2 = fa.pv %p16, %v_tile, %acc1 : ...
        scf.yield %m2, %l2, %acc2 : ...
      }
      %o_tile, %lse_tile = fa.finalize %m_l_acc#2, %m_l_acc#0, %m_l_acc#1 : ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %o_rows into %o[%b, %h, %q0, 0] ...
      }
    }
    ```
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"128",
           "Rows of Q per block (one thread block on the GPU), 1..1024">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Rows of K/V per inner-loop step, 1..1024">,
    Option<"autoBlocks", "auto-blocks", "bool", /*default=*/"false",
           "Ignore block-m/block-n and pick the GPU kernel's tiles per op "
           "from the atom's table of head dims (option atom; "
           "MmaSyncAtom.cpp, WgmmaAtom.cpp; for #fa.mma_sync "
           "its own blocks for sliding windows at d = 96 and 128), "
           "shrunk where they exceed the chip's shared memory; with a "
           "static Nq below the table's Q block (a decode step), the Q "
           "block is the smallest of 16, 32, 64 rows that holds Nq (not "
           "for the table's 8-warp entries, d = 160 and 192), and where "
           "the chip's shared memory holds a third K/V stage next to it (and "
           "not for-split-kv) the loop nest gets fa.kv_stages = 3 for "
           "--fa-pipeline-kv{stages=0}; a decode step whose K/V block "
           "shrinks to a small page gets as many more stages as the block "
           "shrank, up to 4">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "With auto-blocks: the GPU whose shared memory the tiles must "
           "fit (fa/Dialect/FA/IR/Chips.h)">,
    Option<"atom", "atom", "::mlir::fa::MmaAtomKind",
           /*default=*/"::mlir::fa::MmaAtomKind::MmaSync",
           "The atom the tiles are for, recorded on each loop nest as "
           "fa.mma_atom; with auto-blocks its table of head dims gives the "
           "tiles (#fa.wgmma: Q blocks of 64 or 128 rows, never below 64)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fa::MmaAtomKind::Auto, "auto",
                        "per loop nest: #fa.wgmma on sm_90a where the Q "
                        "block is whole warpgroups and Nq is dynamic or 33 "
                        "rows or more, else #fa.mma_sync (fa::chooseAtom)"),
             clEnumValN(::mlir::fa::MmaAtomKind::MmaSync, "mma_sync",
                        "#fa.mma_sync: mma.sync.m16n8k16 (sm_80 and newer)"),
             clEnumValN(::mlir::fa::MmaAtomKind::Wgmma, "wgmma",
                        "#fa.wgmma: wgmma.mma_async on warpgroups (sm_90a)"))}]>,
    Option<"packGqa", "pack-gqa", "bool", /*default=*/"false",
           "Single-query GQA/MQA ops (static Nq = 1): the query heads of a "
           "group share one Q block (rows along the heads); with "
           "auto-blocks the Q block is sized for the group">,
    Option<"forSplitKV", "for-split-kv", "bool", /*default=*/"false",
           "With auto-blocks: the K/V loops will be split by --fa-split-kv, "
           "whose chunk bounds stay live like a window's: Q blocks of the "
           "table's size take its window K/V block (32 keys at d = 128, "
           "which spills 8-32 bytes with 64)">,
    Option<"stageBlockScalars", "stage-block-scalars", "bool",
           /*default=*/"true",
           "With auto-blocks: a causal packed nest (cu_seqlens) on Hopper "
           "keeps the table's tiles and is marked fa.stage_block_scalars, "
           "its sequences' bounds to be kept in shared memory by "
           "--fa-stage-block-scalars (false: the table's window tiles, the "
           "bounds in registers)">,
    Option<"paddedShared", "padded-shared", "bool", /*default=*/"false",
           "With auto-blocks: fit the tiles to the shared memory counting "
           "every shared tile padded, as --fa-map-warps{swizzle-shared=off} "
           "lays them out (false: as the atom lays them out by default)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}


def FATileKVOuter : Pass<"fa-tile-kv-outer"> {
  let summary = "Tile fa.attention_backward into FlashAttention-2's K/V-outer "
                "backward loops (CPU)";
  let description = [{
    Rewrites every tensor-form `fa.attention_backward` into the loop
    structure of FlashAttention-2's backward pass, on tensors:

    * the preprocessing `D = rowsum(dO * O)` (f32 `[B, Hq, Nq]`), once,
      before the loops (a kernel of its own on the GPU);
    * `scf.for` over batch, key/value head and K/V block of `block-n` rows
      (one thread block each on the GPU; sequential here, since every K/V
      block adds into dQ);
    * inside, an `scf.for` over the query heads of the GQA group and an
      `scf.for` over the Q blocks of `block-m` rows that can see the K/V
      block (block skipping for the K/V-outer order: the rows from
      `k0 - (Nk - Nq + right)` to `k0 + N - (Nk - Nq - left)`, the inverses
      of the forward's mask bounds in AttentionMath.h, rounded to blocks
      and clamped to `[0, Nq)`), whose `iter_args` are the
      block's f32 `dK` and `dV` tiles (FlashAttention-2 keeps them in
      registers) and the f32 dQ accumulator;
    * the body recomputes the scores with the forward's tile ops (`fa.qk`,
      `fa.softcap` or the scale, `fa.mask` with the key limit and the
      causal/window bounds), `P = exp(S - LSE)` from the saved LSE, and in
      linalg on tiles `dV += P^T dO`, `dP = dO V^T`,
      `dS = P * (dP - D)` (times the soft cap's derivative), `dK += dS^T Q`
      and `dQ[rows of the block] += dS K`;
    * after the loops, `dQ` and `dK` times the scale, and all three rounded
      to the element type once.

    The summation order is fixed (K/V blocks in order, the heads of a group
    in order), so the result is deterministic. The pieces shared with
    `--fa-decompose-naive` (D, the body of dS, the final scale and
    rounding) are the same functions (BackwardBuilders.h), and the CPU tests
    run both on the same inputs (`test/Integration/Tiling/backward.mlir`).
    Not yet: an unmasked range for the Q blocks that see the whole K/V
    block (every visited block is masked). This is the CPU's form (dQ is
    added into by every K/V block in sequence); the GPU's is
    `--fa-tile-backward` (docs/backward.md).

    Before:

    ```mlir
    %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : ...)
        outs(%dq0, %dk0, %dv0 : ...) causal -> ...
    ```

    After (abridged):

    ```mlir
    %d = linalg.generic ... ins(%do, %o) ...        // D = rowsum(dO * O)
    %r:3 = scf.for %b ... iter_args(%dq, %dk, %dv) {
      scf.for %g ... {
        scf.for %k0 = %c0 to %Nk step %cN ... {
          %k_tile = tensor.pad ...   %v_tile = tensor.pad ...
          %q_begin = ...   %q_end = ...    // the Q blocks that see [k0, k0 + N)
          %t:3 = scf.for %r = %c0 to %group ... iter_args(%dk_t, %dv_t, %dq_acc) {
            scf.for %q0 = %q_begin to %q_end step %cM ... {
              %s = fa.qk %q_tile, %k_tile ...
              %sm = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) ...
              %p = linalg.generic ... { math.exp ... }   // exp(S - LSE)
              ...                                          // dV, dP, dS, dK, dQ
            }
          }
          tensor.insert_slice ... into %dk[%b, %g, %k0, 0] ...
        }
      }
    }
    ```
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Rows of Q per inner-loop step, 1..1024">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "Rows of K/V per outer block, 1..1024">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FATileBackward : Pass<"fa-tile-backward"> {
  let summary = "Tile fa.attention_backward into the three loop nests of the "
                "GPU backward: D, dK/dV (K/V-outer), dQ (Q-outer)";
  let description = [{
    Rewrites every tensor-form `fa.attention_backward` into three
    `scf.forall` loop nests of tile ops, each one kernel on the GPU (the
    CPU runs the same IR after `--fa-decompose-tiles`):

    1. The preprocessing: over (batch, query head, block of `block-m`
       rows), `D = rowsum(dO * O)` with `fa.row_dot`, into an f32
       `[B, Hq, Nq]` tensor (a workspace of the launch plan on the GPU).
    2. The dK/dV nest, FlashAttention-2's K/V-outer loop: over (batch,
       key/value head, K/V block of `block-n` rows); inside, the query heads
       of the group in order and the Q blocks of `block-m` rows that can see
       the K/V block (block skipping on both sides of a window: the inverse
       bounds of AttentionMath.h). Tiles are transposed, key rows by query
       columns: `S^T = fa.qk(K, Q)`, `fa.mask ... transposed`,
       `P^T = fa.probs_from_lse ... transposed` (P recomputed from LSE),
       `dV += fa.pv(P^T, dO)`, `dP^T = fa.qk(V, dO)`,
       `dS^T = fa.score_grad ... transposed`, `dK += fa.pv(dS^T, Q)`. dK
       and dV stay in loop-carried f32 tiles and are stored once.
    3. dQ, in one of two forms (option `dq`):
       * `atomic` (FlashAttention-2's): the dK/dV loop also multiplies
         `dQ^T = fa.pv(fa.transpose(K), dS^T)` and adds it into an f32
         `[B, Hq, Nq, D]` buffer with `fa.accumulate_rows ... transposed`
         (every K/V block adds into the same rows: atomics, sums in an
         unspecified order); when the query tiles have a multiple of 64
         rows (16 for each of 4 warps: the [4, 2] grid at d = 128) it
         multiplies `dQ = fa.pv(fa.transpose(dS^T), K)` instead, a tile of
         query rows added by rows (FlashAttention-2's form; --fa-map-warps
         can then store it in fragment order). The D nest zeroes the
         buffer (a second shared output); a last nest over (batch, query
         head, Q block) reads it (`fa.read_rows`) and rounds it to dQ. 5
         matmuls per tile pair. The buffer is a plan workspace on the
         GPU; the nest reads and writes it through
         `bufferization.to_buffer` / `to_tensor`. When the dK/dV nest's
         query tiles divide `block-m` (the defaults), D and the buffer have
         `ceil(Nq / block-m) * block-m` rows, every one written by the D
         nest (0 in the padding), and the dK/dV nest reads D and adds into
         the buffer by whole tiles (a constant `rows`: no bounds check on
         the GPU), and the rounding nest reads whole blocks. Without a
         mask every K/V block's Q range starts at block 0: with
         `rotate-query-blocks` K/V block `j` walks it from block `j`
         (`(step mod blocks + j) mod blocks`), so the thread blocks of a
         head do not add into the same dQ rows at the same time.
       * `deterministic`: a Q-outer nest like the forward's: over (batch,
         query head, Q block), the K/V blocks the rows can see: `S =
         fa.qk(Q, K)`, mask, P, `dP = fa.qk(dO, V)`, dS, `dQ += fa.pv(dS,
         K)`, stored once. S and dP are computed twice (7 matmuls per tile
         pair), and in exchange every sum is taken in a fixed order: the
         gradients are bitwise reproducible (docs/backward.md).
       * `auto` (the default): `atomic` at head dim 64, whose 128-key
         dK/dV tiles make it 1.14-1.22x faster; at head dim 128 for a
         Hopper `chip` (sm_90, sm_90a) without a soft cap (nor a window
         without a causal mask), `atomic` on
         FlashAttention-2's d = 128 tiles (128 keys by 64 query columns in
         the dK/dV nest, which records `fa.dkdv_groups = 2`: the [4, 2]
         warp grid --fa-map-warps gives it; 1.04-1.10x the deterministic
         form on an H100); `deterministic` otherwise (for sm_80 at 128 the
         atomic form on rows of warps is no faster, and its grid kernel
         spills; the atomic dQ^T tile needs head dims that are multiples
         of 64, and above 128 its registers make the dK/dV kernel spill
         more).

    dK and dV are always summed over the query heads of a group in a fixed
    order. The scale is folded into dS, so the accumulators are the
    gradients; each is rounded to the element type once.

    Before:

    ```mlir
    %dq, %dk, %dv = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : ...)
        outs(%dq0, %dk0, %dv0 : ...) causal -> ...
    ```

    After (abridged):

    ```mlir
    %d = scf.forall (%b, %h, %rb) in (...) shared_outs(%dd = %empty) {
      %t = fa.row_dot %do_tile, %o_tile : ... -> tensor<64xf32>
      ...
    }
    %dk, %dv = scf.forall (%b, %g, %kb) in (...) shared_outs(...) {
      %acc:2 = scf.for %r = %c0 to %group ... {
        scf.for %q0 = %q_begin to %q_end step %c64 ... {
          %st = fa.qk %k_tile, %q_tile ...
          %pt = fa.probs_from_lse %stm, %lse_t scale(%c) {transposed} ...
          ...
        }
      }
    }
    %dq = scf.forall (%b, %h, %qb) in (...) shared_outs(...) {
      scf.for %k0 = %k_begin to %k_end step %c64 ... {
        %s = fa.qk %q_tile, %k_tile ...
        %ds = fa.score_grad %p, %dp, %d_t scale(%s) ...
        %acc = fa.pv %ds16, %k_tile, %dq_acc ...
      }
    }
    ```
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Query rows per tile (rows of the dQ and D nests' blocks, "
           "columns of the dK/dV nest's tiles), 1..1024">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"0",
           "Key rows per tile (rows of the dK/dV nest's blocks, columns of "
           "the dQ nest's tiles), 1..1024; 0: 128 for the atomic dQ up to "
           "head dim 64 without a soft cap, else 64 up to head dim 192, 32 "
           "above">,
    Option<"keyValueBlockM", "dkdv-block-m", "int64_t", /*default=*/"0",
           "Query columns of the dK/dV nest's tiles, 1..1024; 0: half of "
           "block-m for head dims 65-128 and for the atomic dQ's 128-key "
           "blocks, a quarter otherwise, at least 16 (measured: "
           "docs/performance.md)">,
    Option<"dqMode", "dq", "std::string", /*default=*/"\"auto\"",
           "How dQ is accumulated: 'atomic' (added into an f32 buffer by "
           "the dK/dV nest, then rounded), 'deterministic' (its own "
           "Q-outer nest, bitwise reproducible), 'auto' (atomic at head "
           "dim 64, and at 128 on Hopper without a soft cap or a "
           "non-causal window; else "
           "deterministic)">,
    Option<"rotateQueryBlocks", "rotate-query-blocks", "std::string",
           /*default=*/"\"auto\"",
           "With the atomic dQ and no mask: 'on' makes K/V block j visit "
           "the Q blocks from block j on (wrapping around), so the thread "
           "blocks of a head add into different dQ rows at a time; 'off' "
           "from block 0; 'auto' on where the dK/dV nest is on the warp "
           "grid (head dim 128 on Hopper; measured)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "The GPU the kernels are compiled for (as --fa-to-ptx's chip): "
           "dq=auto's choice at head dim 128 depends on it">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FACheckUpstreamInvariants : Pass<"fa-check-upstream-invariants"> {
  let summary = "Reject IR that upstream MLIR 22 verifies but then crashes "
                "on";
  let description = [{
    The first pass of every fa pipeline (`--fa-to-ptx`, `--fa-lower-to-cpu`
    and their `--fa-linalg-to-*` forms), and run by `fa-opt` before any
    pipeline it is given (`--fa-skip-upstream-check` turns that off). Some
    upstream ops pass their verifier in forms that upstream code then
    mishandles, and the fa pipelines hand IR to upstream passes; this pass
    turns such input into a diagnostic instead of a crash. The forms found so
    far (docs/reliability.md, "Upstream problems found"):

    * a `tensor.pad` whose `low[...]` or `high[...]` holds the literal
      `-9223372036854775808` (ShapedType::kDynamic) without an operand:
      the parser takes it as a dynamic entry, the verifier does not count
      operands, and the printer, bufferization and folders read a missing
      operand.

    Before: any module. After: unchanged, or an error at the op's location
    ("tensor.pad: 'high' has 2 entries for a rank-2 source and 1 dynamic
    entries but 0 operands ...").
    The error is reported at the location only: printing the op in a note
    would itself crash upstream's printer.
  }];
}

def FADecomposeTiles : Pass<"fa-decompose-tiles"> {
  let summary = "Lower the tile-level fa ops to linalg on tensors (CPU path)";
  let description = [{
    Gives every tile-level op its reference semantics as `linalg.generic`
    ops on tensors, so that the tiled loop nest (L1/L2, and the warp-mapped,
    scheduled and pipelined L3) can be bufferized and run on the CPU with
    `mlir-runner`. The arithmetic comes from the same builders the GPU
    patterns use (`fa/Dialect/FA/Semantics/AttentionMath.h`).

    * Layouts mean nothing on the CPU: encodings are dropped,
      `fa.convert_layout` is its operand, `fa.async_load` a (predicated)
      tile load and `fa.await` the loaded tiles.
    * `fa.online_softmax` is split into `fa.running_max` and
      `fa.softmax_exp`, as everywhere.
    * `fa.qk` -> a matmul with K transposed; `fa.mask` -> a select on
      `linalg.index` against the visible-key bound of each row;
      `fa.running_max` -> a row max, `max(m, scale * rowmax)` and alpha;
      `fa.softmax_exp` -> `exp2(scale * s - base)`, a row sum and
      `alpha * l + rowsum`; `fa.rescale` -> `alpha * acc`; `fa.pv` -> the P V
      matmul accumulated into acc; `fa.finalize` -> `acc * (1 / l)` and the
      natural-log LSE; `fa.combine_splits` -> reductions over the split
      dimension (the largest LSE, the weights' sum, the weighted partial
      outputs) and the combined O and LSE.
    * A `tensor.expand_shape` with two dynamic sizes in one group (split-KV's
      `[S * B, ...] -> [S, B, ...]` with a run-time split count and a
      dynamic batch) becomes the same `tensor.reshape`: upstream MLIR 22's
      `--expand-strided-metadata` crashes on its bufferized form.
    * GPU-stage IR (`gpu.module`, `gpu.launch_func`) is rejected with a
      diagnostic: the CPU path runs L0-L3.

    Before:

    ```mlir
    %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%c)
        : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    ```

    After (abridged):

    ```mlir
    %rowmax = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<32x16xf32>) outs(%neg_inf : tensor<32xf32>) { arith.maxnumf }
    %m2 = linalg.generic ... { arith.mulf, arith.maxnumf }
    %alpha = linalg.generic ... { arith.cmpf oeq, arith.select, arith.subf, math.exp2 }
    %p = linalg.generic ... { math.fma, math.exp2 }
    %l2 = linalg.generic ... { math.fma }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}


def FADecomposeAggregates : Pass<"fa-decompose-aggregates"> {
  let summary = "Decompose linalg's aggregate ops (linalg.softmax) into "
                "structured ops (CPU path)";
  let description = [{
    `--fa-lower-to-cpu` lowers structured linalg ops to loops; an aggregate
    op such as `linalg.softmax` is not one, and an attention that
    `--fa-raise-attention` leaves alone (a form it does not recognise) would
    reach the LLVM dialect with it still inside, which `mlir-runner` cannot
    run. This pass gives every op with `linalg::AggregatedOpInterface` its
    upstream decomposition (the one
    `transform.structured.decompose_interface` applies), so the program as
    written runs on the CPU.

    Before:

    ```mlir
    %p = linalg.softmax dimension(2) ins(%s : tensor<2x5x5xf32>)
                                     outs(%e : tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    ```

    After (abridged):

    ```mlir
    %max = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s : tensor<2x5x5xf32>) outs(%m0 : tensor<2x5xf32>) { arith.maxnumf }
    %exp = linalg.generic ... { arith.subf, math.exp }
    %sum = linalg.generic ... { arith.addf }
    %p = linalg.generic ... { arith.divf }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FACausalBlockSkip : Pass<"fa-causal-block-skip"> {
  let summary = "Visit only the K/V blocks a Q block can see (causal, "
                "sliding window); mask only the blocks that need it";
  let description = [{
    Stage L1 -> L2. Rewrites each inner K/V loop of the tiled loop nest (an
    `scf.for` from 0 in steps of the K/V block whose body holds `fa.mask` and
    `fa.online_softmax`) into two loops:

    1. the blocks that every row of the Q block sees entirely, with the
       `fa.mask` removed;
    2. the remaining blocks that some row sees in part, with the mask kept.

    With `causal_offset` (causal attention, bottom-right aligned: row `i` sees
    key `j` iff `j <= i + causal_offset`) and a Q block starting at `q0` with
    `M` rows, a block `[k0, k0 + N)` is

    * fully visible iff `k0 + N <= min(Nk, q0 + causal_offset + 1)`, so the
      unmasked loop ends at
      `full_end = floor(max(0, min(Nk, q0 + causal_offset + 1)) / N) * N`;
    * never visible iff `k0 >= q0 + M + causal_offset`, so the masked loop
      ends at `end = min(Nk, max(0, q0 + M + causal_offset))`: blocks above
      the diagonal are never visited.

    Without `causal_offset` only the last partial block needs the key limit:
    `full_end = floor(Nk / N) * N`, `end = Nk`. A Q block whose rows see no key
    at all (possible when `Nq > Nk`) runs neither loop and finalises to
    `O = 0`, `LSE = -inf`.

    With a `window_offset` (a sliding window: row `i` sees keys
    `j >= i + window_offset`) the blocks left of the window are skipped too,
    and the loop becomes three: the masked left edge
    `[floor(begin(q0) / N) * N, full_start)`, the unmasked
    `[full_start, full_end)` with `full_start = ceil(begin(q0 + M - 1) / N) *
    N`, and the masked right edge `[full_end, end)` (all bounds but the last
    whole blocks, clamped to be non-decreasing). The right edge's mask drops
    the window bound, which no key there can cross, and the left edge's the
    causal bound when the window is at least `M + N - 3` keys wide. Both
    bounds come from the mask's own definition (`AttentionMath.h`). Loops
    that do not have this form are left alone; running the pass again finds
    none.

    Before:

    ```mlir
    %r:3 = scf.for %k0 = %c0 to %Nk step %c64 iter_args(...) {
      ...
      %s2 = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) : ...
      ...
    }
    ```

    After:

    ```mlir
    %full_end = ...   // as above
    %end = ...
    %r0:3 = scf.for %k0 = %c0 to %full_end step %c64 iter_args(...) {
      ...             // no fa.mask
    }
    %r:3 = scf.for %k0 = %full_end to %end step %c64 iter_args(%r0#0, ...) {
      ...
      %s2 = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) : ...
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}


def FASplitKV : Pass<"fa-split-kv"> {
  let summary = "Split the keys of each Q block into chunks run by separate "
                "programs, merged by LSE (flash-decoding)";
  let description = [{
    Stage L2 -> L2. A decode step (`Nq` = 1, or a few queries) has one Q
    block per (batch, head) and each walks all `Nk` keys: at small `B x H`
    the GPU runs a few thread blocks for the whole step. This pass splits
    the K/V range of every tiled `fa.attention` loop nest into `splits`
    chunks of whole K/V blocks, each done by its own forall iteration, and
    merges their results with `fa.combine_splits`:

    * the forall's Q-block dimension runs over `QB * splits` with `QB =
      ceil(rows / block-m)`; iteration `i` is Q block `i mod QB` and split
      `s = i floordiv QB` (the Q blocks of a split are neighbours and read
      the same keys, as in FlashAttention's split kernel; the grid stays
      3-D on the GPU);
    * split `s` covers keys `[s * C, (s + 1) * C)` with `C = ceil(ceil(Nk /
      block-n) / splits) * block-n`: every bound `x` of the chain of K/V
      loops (the unmasked and masked loops of `--fa-causal-block-skip`, run
      it first) becomes `min(max(x, s * C), (s + 1) * C)`, the same value
      where one loop ends and the next starts, so the loops stay
      consecutive (as `--fa-pipeline-kv` needs), a block stays masked or
      unmasked as before, and no block is visited twice; with a K/V cache
      (the masks' key limit computed in the loop nest, per sequence) `Nk`
      is the sequence's own key count and `C` is computed per iteration,
      before the first K/V loop;
    * `fa.finalize` gives the split's partial O in f32 and its LSE, stored
      at batch `s * B + b` of two workspaces `[splits * B, H, Nq, Dv]` and
      `[splits * B, H, Nq]` (a split with no visible key stores `O = 0`,
      `LSE = -inf`, and gets weight 0);
    * after the forall, the workspaces are viewed as `[splits, B, ...]`
      (`tensor.expand_shape`) and `fa.combine_splits` gives O and LSE.

    `splits = 0` makes the count a run-time value: the function's `index`
    argument marked `fa.num_splits`, appended as `%num_splits: index
    {fa.num_splits}` when there is none (a function called in the module
    must have it already: its callers would not pass a new one). Every
    value above is then computed from `max(%num_splits, 1)`: the chunk
    size, the forall's `ceil(rows / block-m) * S`, the workspaces `[S * B,
    ...]` and their views `[S, B, ...]`, whose split dimension is dynamic.
    `--fa-lower-to-gpu` makes the argument the launch plan's integer scalar
    `num_splits`, so one pair of kernels serves every count
    (docs/launch-plan.md), and a runtime picks the count per call from the
    GPU it runs on.

    `splits = 1` leaves the IR unchanged. The loop bounds of the K/V loops
    must be whole K/V blocks apart from the last (as the tiling and
    `--fa-causal-block-skip` make them); other loop nests are rejected
    with a diagnostic.

    Before (`Nq = 1`, abridged):

    ```mlir
    %r = scf.forall (%b, %h, %qb) in (%B, 32, 1)
        shared_outs(%o = %init) -> (tensor<?x32x1x128xbf16>) {
      %q_tile = ...
      %s:3 = scf.for %k0 = %c0 to %Nk step %c64 iter_args(...) { ... }
      %out, %lse = fa.finalize %s#2, %s#0, %s#1 : ... -> tensor<16x128xbf16>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %rows into %o[%b, %h, %q0, 0] ...
      }
    }
    ```

    After (`splits=4`):

    ```mlir
    %ws_o = tensor.empty(%SB) : tensor<?x32x1x128xf32>
    %ws_lse = tensor.empty(%SB) : tensor<?x32x1xf32>
    %r:2 = scf.forall (%b, %h, %i) in (%B, 32, 4)
        shared_outs(%o = %ws_o, %l = %ws_lse) -> (...) {
      // One Q block: iteration %i is split %i (with QB Q blocks, split
      // %i / QB of Q block %i mod QB).
      %lo = arith.muli %i, %chunk : index
      %hi = arith.addi %lo, %chunk : index
      %k_lo = arith.minsi (arith.maxsi %c0, %lo), %hi  // (two ops)
      %k_hi = arith.minsi (arith.maxsi %Nk, %lo), %hi
      %s:3 = scf.for %k0 = %k_lo to %k_hi step %c64 iter_args(...) { ... }
      %out, %lse = fa.finalize ... -> tensor<16x128xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %rows into %o[%sb, %h, %q0, 0] ...
        tensor.parallel_insert_slice %lse_rows into %l[%sb, %h, %q0] ...
      }
    }
    %po = tensor.expand_shape %r#0 [[0, 1], [2], [3], [4]] ...
        : tensor<?x32x1x128xf32> into tensor<4x?x32x1x128xf32>
    %pl = tensor.expand_shape %r#1 ...
    %o, %lse = fa.combine_splits %po, %pl : ... -> tensor<?x32x1x128xbf16>, ...
    ```
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"1",
           "Number of chunks the keys of each Q block are split into "
           "(1 to 1024; 1 leaves the IR unchanged; 0: a run-time count, "
           "the function's argument marked fa.num_splits)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FATileCombine : Pass<"fa-tile-combine"> {
  let summary = "Tile fa.combine_splits into a loop nest of row tiles held "
                "by warps (split-KV's second kernel)";
  let description = [{
    Stage L2 -> L3 for the merge of `--fa-split-kv`. Each `fa.combine_splits`
    on whole tensors becomes an `scf.forall` mapped to the grid whose
    iteration merges one tile of `block-m` rows: it reads the rows of every
    split from the partial results (zero-padded past the last row, LSE
    padded with -inf, so padded rows get weight 0), merges them with the tile
    form of `fa.combine_splits`, whose results are held by `block-m / 16`
    warps (`#fa.warp_rows` of `#fa.mma_sync`, the layout of the attention
    kernel's output: each thread merges the elements its fragments hold),
    and stores rows `[0, n)` into O and LSE like the attention kernel does.

    The rows of a tile are queries of one head, or, when `Nq` is statically
    1 (a decode step), heads at that one position (the same two row lines
    the attention kernel stores along). When the partial output is the
    `tensor.expand_shape` of `--fa-split-kv`'s `[S * B, H, Nq, Dv]`
    workspace, the tiles read that workspace directly, split `s` at batch
    `s * B + b` (a slice with stride `B`), so both kernels take the same
    buffer. The split count may be dynamic (`--fa-split-kv splits=0`): the
    tiles are then `[?, rows]`, `S` taken from the expand_shape's output
    shape (or the partial output's dim 0), and the merge loops over it.

    Before:

    ```mlir
    %po = tensor.expand_shape %ws_o [[0, 1], [2], [3], [4]] ...
        : tensor<?x32x1x128xf32> into tensor<4x?x32x1x128xf32>
    %pl = tensor.expand_shape %ws_lse ...
    %o, %lse = fa.combine_splits %po, %pl : ... -> tensor<?x32x1x128xbf16>, ...
    ```

    After (`Nq = 1`: rows are heads; 16-row tiles on one warp; with
    `block-dv=128`, whole rows):

    ```mlir
    %r:2 = scf.forall (%b, %hb, %q) in (%B, 2, 1) shared_outs(%o = ..., %l = ...) {
      %h0 = arith.muli %hb, %c16 : index
      %n = arith.minsi ...                 // heads left, at most 16
      %pos = tensor.extract_slice %ws_o[%b, %h0, %q, 0] [4, %n, 1, 128]
                                        [%B, 1, 1, 1] : ... to tensor<4x?x128xf32>
      %pls = tensor.extract_slice %ws_lse[%b, %h0, %q] [4, %n, 1] [%B, 1, 1] ...
      %po_t = tensor.pad %pos low[0, 0, 0] high[0, %pad, 0] { 0.0 } : ... to tensor<4x16x128xf32>
      %pl_t = tensor.pad %pls low[0, 0] high[0, %pad] { -inf } : ... to tensor<4x16xf32>
      %ot, %lt = fa.combine_splits %po_t, %pl_t : tensor<4x16x128xf32>, tensor<4x16xf32>
          -> tensor<16x128xbf16, #acc_w1>, tensor<16xf32, #rows_w1>
      %orows = tensor.extract_slice %ot[0, 0] [%n, 128] [1, 1] ...
      %lrows = tensor.extract_slice %lt[0] [%n] [1] ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %orows into %o[%b, %h0, %q, 0] [1, %n, 1, 128] ...
        tensor.parallel_insert_slice %lrows into %l[%b, %h0, %q] [1, %n, 1] ...
      }
    } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
    ```

    `block-m = 0` (the default) picks the fewest whole warps (16 rows
    each) that hold the line of rows in one tile when it is static and at
    most 64 rows long (`Nq`, or `H` along the heads), and 64 rows otherwise.
    A tile also covers `block-dv` columns (default 8, the atom's fragment
    width, where they divide `Dv`): the row tile `t`'s column tile `c` is grid index `t * (Dv /
    block-dv) + c` along x. Each column tile merges its rows' LSE (the
    weights need it) and the first one stores it. Narrower tiles mean more
    thread blocks and fewer elements per thread, so more splits' loads in
    flight: with whole 128-column rows a decode step's merge was one thread
    block of 64 threads at B = 1, about 2.3 us per split; 16-column tiles
    made B = 1 decode steps 1.5-2.3x faster, 8-column ones another
    1.00-1.15x (docs/performance.md).

    `split-warps = C` gives each tile `C` groups of warps (`replicas = C` in
    both result layouts): group `g` merges splits `g, g + C, ...`, and the
    groups combine their largest LSEs and their sums through shared memory,
    so that a merge with few thread blocks and many splits (a B = 1 decode
    step) spreads its loads over C times as many threads. `0` (the default)
    takes one group per 4 splits of a static count, 4 groups for a run-time
    count, and at most 16 warps per thread block.

    The CPU path runs the tiled form too (`--fa-decompose-tiles`), so the
    equivalence tests cover it.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", /*default=*/"0",
           "Rows of one tile: 16, 32, 48 or 64 (one warp per 16 rows); 0 "
           "picks 16 or 64 from the shapes">,
    Option<"blockDv", "block-dv", "int64_t", /*default=*/"0",
           "Columns of one tile, dividing the value head dim; 0 picks 8 "
           "where it divides it, else the whole row">,
    Option<"splitWarps", "split-warps", "int64_t", /*default=*/"0",
           "Groups of warps per tile that share out its splits "
           "(#fa.warp_rows replicas); 0 picks one per 4 static splits, or 4 "
           "for a run-time count, at most 16 warps in all">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FAMapWarps : Pass<"fa-map-warps"> {
  let summary = "Give each warp whole rows of the Q block: layouts for the "
                "GPU (stage L3)";
  let description = [{
    Annotates the tiled loop nest (L2) with how a thread block of
    `num-warps` warps holds it, as tensor encodings that name the MMA atom
    (`#fa.mma_sync`, the sm_80 `mma.sync.m16n8k16` family):

    * Q-row-indexed tiles and per-row state are `#fa.warp_rows`: warp `w`
      owns rows `[w * M / W, (w + 1) * M / W)`, so every row reduction stays
      inside one warp. S, P and the accumulator are `acc` fragments; the
      running max and alpha `rows`; the running sum `partial_rows` (a
      per-lane share, reduced across lanes once, in `fa.finalize`).
    * The tiles every warp reads are `#fa.block_shared`: the K/V tiles, and
      the Q tile, which is copied into shared memory once.
    * Where each matmul operand lives, as `fa.convert_layout` ops: Q goes to
      A-operand registers once, before the K/V loop, while S, O and Q fit the
      atom's register budget (`query-home=auto`), and is otherwise re-read
      from shared memory for every K/V block; P's accumulator fragments
      become A fragments of P V (free for `#fa.mma_sync`).
    * The `scf.forall` gets a grid mapping: Q blocks on `x`, heads on `y`,
      batch on `z`.

    The split must suit `mma.sync.m16n8k16`: `block-m` a multiple of
    `16 * num-warps`, `block-n` and the head dims multiples of 16, f16 or
    bf16; anything else is a pass error naming the values. A loop nest that
    is already mapped is an error.

    Before:

    ```mlir
    scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(...) {
      %q = tensor.pad ... : tensor<?x64xf16> to tensor<128x64xf16>
      ... scf.for ... iter_args(%m = %cst : tensor<128xf32>, ...) {
        %k = tensor.pad ... to tensor<64x64xf16>
        %s = fa.qk %q, %k ... -> tensor<128x64xf32>
    ```

    After (`num-warps=4`, D = 64: Q in registers):

    ```mlir
    scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(...) {
      %q = tensor.pad ... to tensor<128x64xf16, #shared>
      %qa = fa.convert_layout %q : tensor<128x64xf16, #shared>
                                   -> tensor<128x64xf16, #opA_w4>
      ... scf.for ... iter_args(%m = %cst : tensor<128xf32, #rows_w4>, ...) {
        %k = tensor.pad ... to tensor<64x64xf16, #shared>
        %s = fa.qk %qa, %k ... -> tensor<128x64xf32, #acc_w4>
    } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    ```

    where `#acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>`
    and `#shared = #fa.block_shared<atom = #fa.mma_sync>`.

    With `atom=wgmma` the encodings name `#fa.wgmma` (sm_90a) instead,
    printed `#acc_w8_wgmma`, `#shared_wgmma`: warps in warpgroups of 4, each
    owning exactly 16 rows, so `block-m` must be `16 * num-warps` with
    `num-warps` a multiple of 4 (`num-warps=0`: `block-m / 16`). The backward
    nests keep `#fa.mma_sync`.

    `swizzle-shared` picks the shared layout of the forward nests' K and V
    tiles (rows of a multiple of 128 bytes, `#fa.mma_sync`): `off` keeps
    rows padded by 16 bytes (`#shared`), `on` swizzles them
    (`#fa.block_shared<atom = #fa.mma_sync, swizzled = true>`, printed
    `#shared_swz`: chunk `c` of row `r` at `c ^ (r % 8)`), and `auto` (the
    default) swizzles where the S, O and Q fragments fit the atom's
    `getSwizzledSharedBudget(chip, extra live values)`, since the swizzled
    reads keep more addresses live: for `chip=sm_80`, head dim 64 and
    decode steps (after the pass above, `%k = tensor.pad ... to
    tensor<64x64xf16, #shared_swz>`); for `chip=sm_90`, whose ptxas
    allocates them better, every head dim with rows of a multiple of 128
    bytes (64, 128, 192, 256) where the kernel keeps no window bound or
    per-sequence bound live (a soft cap, one scalar, is allowed) and the
    nest is not split over the keys (`fa.split_kv`, written by
    --fa-split-kv). Q, loaded once, stays padded. In the backward's nests
    the tiles loaded inside the loops (Q and dO in the dK/dV nest, K and V
    in the dQ nest) are the streamed ones: `auto` swizzles them in the
    deterministic form's nests (not in a dK/dV nest that adds into the
    atomic dQ's buffer, where they measured slower) up to head dim 128,
    and at head dim 64 only for `chip=sm_90`/`sm_90a` (sm_80's ptxas
    spills the causal dQ kernel then).

    With `atom=wgmma`, `on` stores the K and V tiles in wgmma's
    128-byte-swizzled canonical layout (`#fa.block_shared<atom =
    #fa.wgmma, swizzled = true>`, printed `#shared_swz_wgmma`: 64-column
    blocks of 128-byte rows, chunk `c` of row `r` at `c ^ (r % 8)`), which
    wgmma reads by descriptor; `auto` does too (1.46-1.66x the core
    matrices on an H100, docs/performance.md), except in split-KV nests;
    `off` keeps the atom's unswizzled core matrices (`#shared_wgmma`).

    With `key-groups=C` (C > 1; `#fa.mma_sync`, forward nests) the thread
    block has C groups of `num-warps` warps that divide the keys of every
    K/V block (warps along the keys, for Q blocks too short to keep many
    warps busy: decode steps). Every tile gets `replicas = C`; S and P
    get `share = columns` (group `c` holds keys `[c * N / C, (c + 1) * N /
    C)` of the block, its rows of K and V), the accumulator and the running
    sum `share = sum` (each group's summand, over its own keys); Q, the
    running max, alpha, O and the LSE are whole in every group. The
    running max crosses the groups in shared memory once per block, so the
    groups' P agree, and `fa.finalize` adds up the summands in group order.
    `block-n` must be a multiple of `16 * C`. `key-groups=0` (the default)
    takes the count `--fa-tile-q-outer{auto-blocks}` recorded on the loop
    nest (`fa.key_groups`: 4 warps for a decode step's 16-row Q block),
    else none. Before (`num-warps=1`,
    16-row Q block, 128-key blocks):

    ```mlir
        %s = fa.qk %qa, %k ... -> tensor<16x128xf32>
    ```

    After (`key-groups=4`):

    ```mlir
        %s = fa.qk %qa, %k ... -> tensor<16x128xf32, #acc_w1x4_cols>
        ... fa.pv %pa, %v, %acc ... : ... tensor<16x128xf32, #acc_w1x4_sum>
    ```

    With `dkdv-groups=C` (C > 1) the backward's dK/dV nest runs on a
    [num-warps, C] warp grid: every accumulator of the nest (S^T, dP^T,
    dK, dV) gets `replicas = C, share = columns`, group `c` holding its
    columns `[c * N / C, (c + 1) * N / C)`; P^T and dS^T,
    whose columns are the k of dV += P^T dO and dK += dS^T Q, go through
    shared tiles (`fa.convert_layout` to `#fa.block_shared`), K and V stay
    in shared memory, and `swizzle-shared=auto` swizzles the streamed Q
    and dO tiles for `chip=sm_90`/`sm_90a`. Every accumulator needs a
    multiple of `16 * C` columns. `dkdv-groups=0` (the default) takes the
    count `--fa-tile-backward` recorded on the nest (`fa.dkdv_groups`:
    2 for the atomic dQ at head dim 128 on Hopper), else 1 (warps on
    rows); the D and dQ nests keep warps on rows.

    The atomic dQ's product (a zero constant accumulator whose result only
    `fa.accumulate_rows` uses) meets no other register tile, so it takes
    its own split of the nest's warps: the `[w, g]` (w warps on rows, g
    groups on columns, w x g the nest's warps, whole 16 x 16 tiles) whose
    warps read the fewest rows + columns of the shared operands, the
    nest's grid on a tie (dQ = dS K, 64 x 128 on 8 warps: `[2, 4]`, 32 x
    32 a warp, not the nest's `[4, 2]`, 16 x 64, as FlashAttention-2's
    d128 kernel). The atomic dQ's rounding nest reads the buffer
    (`fa.read_rows`) in the layout of the dK/dV nest's dQ tile, and both
    ends take `fragment_order`, when that tile has query rows (not
    transposed), a layout whose threads hold distinct elements, the shape
    of the rounding nest's blocks, and both are whole (padded buffer): the
    block then holds element `i` of thread `t` at `i * T + t`, so a warp's
    32 atomics of one `i` add into 128 contiguous bytes (one L1 wavefront
    instead of 4-8; FlashAttention-2's dQaccum order). The rounding kernel
    then runs on the dQ tile's warp grid. Otherwise it reads by rows on its
    own rows of warps. Before (128 keys x 64 queries, head dim 128):

    ```mlir
        %st = fa.qk %k, %q ... -> tensor<128x64xf32>
        %pt16 = arith.truncf %pt ... to tensor<128x64xf16>
        %dv = fa.pv %pt16, %do, %acc ... tensor<128x128xf32>
    ```

    After (`dkdv-groups=2`):

    ```mlir
        %st = fa.qk %k, %q ... -> tensor<128x64xf32, #acc_w4x2_cols>
        %pts = fa.convert_layout %pt16 : tensor<128x64xf16, #acc_w4x2_cols>
                                      -> tensor<128x64xf16, #shared>
        %dv = fa.pv %pts, %do, %acc : tensor<128x64xf16, #shared>, ...,
                                      tensor<128x128xf32, #acc_w4x2_cols>
    ```
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per thread block (1, 2, 4 or 8; 0: the atom's table for "
           "the head dim, as many as the Q block allows)">,
    Option<"queryHome", "query-home", "::mlir::fa::QueryHome",
           /*default=*/"::mlir::fa::QueryHome::Auto",
           "Where fa.qk reads its first operand from (Q; in the backward's "
           "nests K and V, or Q and dO)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fa::QueryHome::Auto, "auto",
                        "registers while they fit the atom's budget"),
             clEnumValN(::mlir::fa::QueryHome::Registers, "registers",
                        "A-operand registers, loaded once"),
             clEnumValN(::mlir::fa::QueryHome::Shared, "shared",
                        "shared memory, re-read for every K/V block"))}]>,
    Option<"atom", "atom", "::mlir::fa::MmaAtomKind",
           /*default=*/"::mlir::fa::MmaAtomKind::MmaSync",
           "The MMA atom the layouts name (#fa.wgmma: 16 rows a warp, "
           "warps in warpgroups of 4)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fa::MmaAtomKind::Auto, "auto",
                        "the atom --fa-tile-q-outer recorded on the nest "
                        "(fa.mma_atom), else #fa.mma_sync; #fa.mma_sync "
                        "where num-warps is not whole warpgroups"),
             clEnumValN(::mlir::fa::MmaAtomKind::MmaSync, "mma_sync",
                        "#fa.mma_sync: mma.sync.m16n8k16 (sm_80 and newer)"),
             clEnumValN(::mlir::fa::MmaAtomKind::Wgmma, "wgmma",
                        "#fa.wgmma: wgmma.mma_async on warpgroups (sm_90a)"))}]>,
    Option<"keyGroups", "key-groups", "int64_t", /*default=*/"0",
           "Groups of num-warps warps that divide the keys of every K/V "
           "block (1: none; 2, 4 or 8, #fa.mma_sync forward nests only; 0: "
           "the tiling's choice recorded as fa.key_groups, else none)">,
    Option<"dkdvGroups", "dkdv-groups", "int64_t", /*default=*/"0",
           "Groups of num-warps warps that split the columns of the "
           "backward dK/dV nest's accumulators (1, 2, 4 or 8): a [num-warps, "
           "dkdv-groups] warp grid, P^T and dS^T through shared memory "
           "(1: warps own whole rows; 0: the count --fa-tile-backward "
           "recorded as fa.dkdv_groups, else 1)">,
    Option<"swizzleShared", "swizzle-shared", "std::string",
           /*default=*/"\"auto\"",
           "The shared layout of the streamed tiles (rows of a multiple "
           "of 128 bytes: the forward nests' K/V, the backward "
           "nests' tiles loaded inside their loops): 'on' swizzled "
           "(#fa.block_shared<..., swizzled = true>), 'off' padded, 'auto' "
           "swizzled where the S, O and Q fragments stay within the atom's "
           "budget for it (which depends on the chip; for the backward, "
           "the rule in the description)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "The GPU the kernel is compiled for (as --fa-to-ptx's chip): "
           "swizzle-shared=auto's register budget depends on its ptxas">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}


def FAScheduleSoftmax : Pass<"fa-schedule-softmax"> {
  let summary = "Split the online-softmax step and place the accumulator's "
                "rescale (stage L3)";
  let description = [{
    Each `fa.online_softmax` becomes its two halves, `fa.running_max` (new
    max, alpha) and `fa.softmax_exp` (P, new sum), and the `fa.rescale` of
    the accumulator by the same alpha is placed:

    * `rescale=before-exp`: between the two halves. On the GPU the rescale
      is a warp-uniform branch (skipped when no row max of the warp moved);
      before the exponentials, the exponentials and P V share one basic
      block, which ptxas can interleave (+3-5 % at head dim 64 on the H200).
    * `rescale=after-exp`: after the exponentials, which keeps fewer values
      live (at head dim 128 the early rescale spills).
    * `rescale=auto`: before the exponentials while the S and O accumulators
      (and Q, when it is in registers) take at most the atom's early-rescale
      budget of registers per thread, after them otherwise. In a kernel that
      masks a sliding window (an `fa.mask` with `window_offset` anywhere in
      the function), also after them where the atom's tile table says the
      window's row bounds leave no room (sm_80 atom: head dim 192).
      On IR without layouts, after.

    The op order is the schedule: the GPU lowering emits the ops in the
    order they appear.

    Before:

    ```mlir
    %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l scale(%c) : ...
    %p16 = arith.truncf %p : ...
    %acc1 = fa.rescale %acc, %alpha : ...
    %acc2 = fa.pv %pa, %v, %acc1 : ...
    ```

    After (`rescale=before-exp`):

    ```mlir
    %m2, %alpha = fa.running_max %s, %m scale(%c) : ...
    %acc1 = fa.rescale %acc, %alpha : ...
    %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%c) : ...
    %p16 = arith.truncf %p : ...
    %acc2 = fa.pv %pa, %v, %acc1 : ...
    ```
  }];
  let options = [
    Option<"rescale", "rescale", "::mlir::fa::RescalePlacement",
           /*default=*/"::mlir::fa::RescalePlacement::Auto",
           "Where the accumulator is rescaled relative to the exponentials",
           [{::llvm::cl::values(
             clEnumValN(::mlir::fa::RescalePlacement::Auto, "auto",
                        "from the atom's register budget"),
             clEnumValN(::mlir::fa::RescalePlacement::BeforeExp, "before-exp",
                        "between fa.running_max and fa.softmax_exp"),
             clEnumValN(::mlir::fa::RescalePlacement::AfterExp, "after-exp",
                        "after fa.softmax_exp"))}]>
  ];
}


def FAPipelineMMA : Pass<"fa-pipeline-mma"> {
  let summary = "Defer each K/V block's P V by one block so that async MMAs "
                "overlap the softmax (stage L3)";
  let description = [{
    On an atom whose matmuls run asynchronously to the issuing threads
    (`#fa.wgmma`), a block's `S = Q K^T`, softmax and `P V` done in order
    leave the warpgroup waiting for each product. This pass rotates every
    forward K/V loop of a warp-mapped nest (FlashAttention-3's
    intra-warpgroup pipelining): iteration `j` issues `S_j` and then the
    previous block's `P_{j-1} V_{j-1}`, both `async`; it waits for `S_j`
    alone (`fa.mma_wait ... pending(1)`), so the softmax of block `j` runs
    while the tensor cores compute `P_{j-1} V_{j-1}`; it waits for that
    (`pending(0)`) only where the accumulator is rescaled, after the
    exponentials. P and the V tile of the block are carried to the next
    iteration (`iter_args`), across the unmasked and masked loops of
    causal block skipping, and the last block's `P V` follows the loops.

    The arithmetic is unchanged: after iteration `j` the accumulator holds
    `sum_{i<j} exp2(S_i - m_j) V_i`, and the deferred product is added
    before it is rescaled to the next max. The first iteration multiplies
    a zero P by its own V tile (an `i1` iter_arg says whether a block was
    seen; `arith.select` picks that tile); with no block at all, the final
    product is skipped (`scf.if`).

    A V tile lives one iteration longer, so `--fa-pipeline-kv`, run after
    this pass, gives its ring one more slot than the blocks it loads ahead.
    Loops without the forward's `fa.rescale` + `fa.pv` form (the backward's
    nests, the split-KV merge) and loops already pipelined are left alone.

    Before (abridged):

    ```mlir
    %r:3 = scf.for %k0 = ... iter_args(%m = .., %l = .., %acc = ..) {
      %s = fa.qk %qa, %k : ...
      %m2, %alpha = fa.running_max %s, %m scale(%c) : ...
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%c) : ...
      %pa = fa.convert_layout (arith.truncf %p) : ... -> ...#opA
      %acc1 = fa.rescale %acc, %alpha : ...
      %acc2 = fa.pv %pa, %v, %acc1 : ...
      scf.yield %m2, %l2, %acc2
    }
    %o, %lse = fa.finalize %r#2, %r#0, %r#1 : ...
    ```

    After:

    ```mlir
    %r:6 = scf.for %k0 = ... iter_args(%m = .., %l = .., %acc = ..,
                                       %seen = %false, %pp = %zeros, %vp = %empty) {
      %s = fa.qk %qa, %k {async} : ...
      %v1 = arith.select %seen, %vp, %v : ...
      %acc1 = fa.pv %pp, %v1, %acc {async} : ...
      %s1 = fa.mma_wait %s pending(1) : ...
      %m2, %alpha = fa.running_max %s1, %m scale(%c) : ...
      %p, %l2 = fa.softmax_exp %s1, %m2, %alpha, %l scale(%c) : ...
      %pa = fa.convert_layout (arith.truncf %p) : ... -> ...#opA
      %acc2 = fa.mma_wait %acc1 pending(0) : ...
      %acc3 = fa.rescale %acc2, %alpha : ...
      scf.yield %m2, %l2, %acc3, %true, %pa, %v
    }
    %acc = scf.if %r#3 -> (...) {
      scf.yield (fa.pv %r#4, %r#5, %r#2 : ...)
    } else {
      scf.yield %r#2
    }
    %o, %lse = fa.finalize %acc, %r#0, %r#1 : ...
    ```
  }];
  let options = [
    Option<"allAtoms", "all-atoms", "bool", /*default=*/"false",
           "Rotate the loops whatever the atom (default: only where the "
           "tiles' atom has asynchronous matmuls, #fa.wgmma)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}


def FAPingPong : Pass<"fa-pingpong"> {
  let summary = "Let the warpgroups of a thread block take turns at issuing "
                "their matmuls, one's softmax under another's products "
                "(FlashAttention-3's ping-pong; stage L3)";
  let description = [{
    In a K/V loop rotated by `--fa-pipeline-mma`, every warpgroup of the
    thread block issues its `S = Q K^T` and the deferred `P V`, waits for
    them, then exponentiates: left to themselves the warpgroups multiply
    at the same time and then all leave the tensor cores idle through
    their softmax. This pass orders them round-robin with `fa.mma_turn`
    (named barriers on the GPU, nothing on the CPU): in each iteration a
    warpgroup takes its turn before its first asynchronous product and
    passes it on after its last, so warpgroup 1 multiplies while
    warpgroup 0 exponentiates, and so on. `open` before the first such
    loop of a nest gives warpgroup 0 the first turn, `close` after the
    last balances the barriers.

    The overlap needs the warpgroups free to drift by half an iteration:
    with `--fa-pipeline-kv{release=mbarrier}` the awaits have no block
    barrier, and with `issuer-last` (the default) the loops' TMA loads are
    issued (and wait for their slot's release) by the first thread of the
    last warpgroup (`issuer(T)`), the one behind, which never waits there
    for a warpgroup ahead of it. With `release=barrier` the turns are still
    correct, but the block meets at every await.

    Applies to loop nests whose tiles are `#fa.wgmma` with two warpgroups
    or more, on loops with exactly one asynchronous `fa.qk` and one
    asynchronous `fa.pv` in their body, all in one block; a nest that
    already has turns, or whose loops are elsewhere, is left alone.

    Before (the loop of `--fa-pipeline-mma`, `--fa-pipeline-kv
    {release=mbarrier}`, abridged):

    ```mlir
    %r:8 = scf.for %k0 = ... {
      %kv:2 = fa.await %f pending(1) phase(%p) : ...
      %next = fa.async_load %k, %v[...] ... tma after_release(%rp) : ...
      %s = fa.qk %qa, %kv#0 {async} : ...
      %acc1 = fa.pv %pp, %v1, %acc {async} : ...
      %s1 = fa.mma_wait %s pending(1) : ...
      ...
    }
    ```

    After (8 warps, two warpgroups):

    ```mlir
    fa.mma_turn open of 2
    %r:8 = scf.for %k0 = ... {
      %kv:2 = fa.await %f pending(1) phase(%p) : ...
      %next = fa.async_load %k, %v[...] ... tma after_release(%rp) issuer(128) : ...
      fa.mma_turn take of 2
      %s = fa.qk %qa, %kv#0 {async} : ...
      %acc1 = fa.pv %pp, %v1, %acc {async} : ...
      fa.mma_turn pass of 2
      %s1 = fa.mma_wait %s pending(1) : ...
      ...
    }
    fa.mma_turn close of 2
    ```
  }];
  let options = [
    Option<"issuerLast", "issuer-last", "bool", /*default=*/"true",
           "Issue the loops' TMA loads from the first thread of the last "
           "warpgroup (issuer(T)) instead of thread 0">,
    Option<"minBlockKeys", "min-block-keys", "int64_t", /*default=*/"0",
           "Take turns only in loops whose K/V blocks have at least this "
           "many keys (--fa-to-ptx{pingpong=auto}: 128, where a turn covers "
           "a long enough softmax; 0: every loop)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def FAPipelineKV : Pass<"fa-pipeline-kv"> {
  let summary = "Load K/V blocks ahead into a ring of shared tiles (stage L3)";
  let description = [{
    Software-pipelines the tile loads of a warp-mapped loop nest, as
    FlashAttention-2 and Triton's `tritongpu-pipeline` do: with `stages = S`
    the K and V tiles of block `j + S - 1` are being copied while block `j`
    is used, into a ring of `S` shared-memory slots.

    * Every `#fa.block_shared` tile load (`tensor.pad` of
      `tensor.extract_slice`) becomes an `fa.async_load` and an `fa.await`.
      The K and V tiles of one block are one `fa.async_load` (one copy
      group) into slot `(k0 floordiv block-n) mod S`.
    * Before the first K/V loop: the loads outside the loops (the Q tile),
      then the first `S - 1` K/V blocks; the Q tile is awaited there.
    * In each iteration: `fa.await` of the block's tiles (`pending(S - 2)`:
      the later blocks may stay in flight; the barrier it implies also ends
      every read of the slot the next load overwrites), then `fa.async_load`
      of block `k0 + (S - 1) * block-n` if it is before the end of the last
      K/V loop, at indices computed as the block's own are, for that block
      (side-effect-free index arithmetic and `tensor.extract`: a paged
      cache's page lookup). The futures in flight are loop-carried.
    * A loop that yields one of its loaded tiles (`--fa-pipeline-mma`'s
      deferred P V reads block j - 1's V in iteration j) gets a ring of
      `S + 1` slots, still loading `S - 1` blocks ahead, so that the slot
      being filled is never one still read.
    * K/V tiles that are rows along dim 1 (a paged cache's pools
      `[num_pages, page_size, Hkv, D]`) load with `{along_heads}`.
    * Every `fa.async_load` asks L2 to fetch `l2-prefetch` bytes around each
      copy. By default (`-1`) the forward's loads say `l2_prefetch(128)` and
      the backward's (nests with `fa.probs_from_lse`) nothing: measured on an
      H100 (docs/performance.md, "L2 prefetch"), decode steps +1.3-2.6 %,
      prefill unchanged, the backward 0-5 % slower. `0`: no hint anywhere;
      64, 128, 256: that size everywhere.
    * Consecutive K/V loops that load the same tiles the same way (the
      unmasked and masked loops of `--fa-causal-block-skip`) are one
      pipeline: the last iterations of one loop load the first blocks of
      the next, and the futures flow through the iter_args.
    * By default (`copy=auto`, or `tma`), the K/V loads whose tiles are in the swizzled
      `#fa.wgmma` layout are `fa.async_load ... tma` (without an L2
      prefetch hint: the host's tensor map asks for 128 bytes), and their
      `fa.await`s name the `mbarrier` phase: `phase(((k0 - k_first) /
      block-n / slots) mod 2)`, `k_first` the first block of the chain.
      Where `rows` is not `min(block-n, N - k0)` of the source (a packed
      sequence's or a K/V cache's rows end before the tensor does, so the
      box brings other rows past them, where only the tensor's end gives
      zeros), the loop's await also zeroes them: `zero_from(rows)`, the
      awaited block's row count. The loads before the loops (Q,
      unswizzled) stay `cp.async`.
    * With TMA copies and `release=mbarrier` (not the default: 0.94-1.02x
      the barrier on an H100, docs/performance.md), each warp releases
      a slot when it is done with it instead of meeting the others at the
      await's barrier: `fa.release` of the block's future at the end of
      the iteration that last reads it (iteration j, or j + 1 for a loop
      that carries a tile to its next iteration, whose previous future is
      then loop-carried too and whose first release is predicated off),
      and every load waits for the release of its slot's previous fill
      (`after_release(((k - k_first) / block-n / slots + 1) mod 2)`). Only
      where each iteration ends with its asynchronous matmuls waited for
      (`fa.mma_wait ... pending(0)` after the last `{async}` one) and
      tiles are carried one iteration at most; elsewhere, and with
      `release=barrier` (the default), the awaits keep their barrier.

    Loops whose tile loads do not follow that form, or that are not
    consecutive blocks of one sequence, are an error; a loop nest without
    `#fa.block_shared` tile loads (e.g. already pipelined) is left alone.

    Before (`stages=2`, abridged):

    ```mlir
    %q = tensor.pad ... to tensor<128x64xf16, #shared>
    %r:3 = scf.for %k0 = %c0 to %end step %c64 iter_args(...) {
      %k = tensor.pad (tensor.extract_slice %K[%b, %kvh, %k0, 0] ...) ...
      %v = tensor.pad (tensor.extract_slice %V[%b, %kvh, %k0, 0] ...) ...
      ... fa.qk %qa, %k ... fa.pv %pa, %v, %acc1 ...
    }
    ```

    After:

    ```mlir
    %fq = fa.async_load %Q[%b, %h, %q0] rows(%nq) slot(%c0) of 1 l2_prefetch(128) : ...
    %f0 = fa.async_load %K, %V[%b, %kvh, %c0] rows(%n0) slot(%s0) of 2 if (%p0) l2_prefetch(128) : ...
    %q = fa.await %fq pending(1) : ...
    %r:4 = scf.for %k0 = %c0 to %end step %c64 iter_args(..., %f = %f0) {
      %k, %v = fa.await %f pending(0) : ...
      %fn = fa.async_load %K, %V[%b, %kvh, %k1] rows(%n1) slot(%s1) of 2 if (%p1) l2_prefetch(128) : ...
      ... fa.qk %qa, %k ... fa.pv %pa, %v, %acc1 ...
      scf.yield ..., %fn
    }
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "K/V blocks resident in shared memory (2 to 4): blocks j + 1 .. "
           "j + stages - 1 load while block j is used; 0: the loop nest's "
           "fa.kv_stages (set by --fa-tile-q-outer{auto-blocks}), else the atom's table "
           "for the head dim">,
    Option<"l2Prefetch", "l2-prefetch", "int64_t", /*default=*/"-1",
           "Bytes each copy asks L2 to fetch from DRAM around it "
           "(fa.async_load's l2_prefetch: 64, 128 or 256; 0 for none, "
           "fetching only the sectors copied; -1: 128 for forward nests, none "
           "for the backward's, which recompute P from the LSE)">,
    Option<"copy", "copy", "std::string", /*default=*/"\"auto\"",
           "How the K/V tiles of the loops are copied: 'auto' (the default) "
           "and 'tma' by TMA (fa.async_load {tma}: one thread, one "
           "cp.async.bulk.tensor per 64 columns, an mbarrier per slot) where "
           "the tiles are in the swizzled #fa.wgmma layout (the awaits "
           "zeroing the rows past a block that ends before its source: "
           "zero_from), by cp.async elsewhere; 'cp-async' everywhere (every "
           "thread, 16 bytes a copy)">,
    Option<"release", "release", "std::string", /*default=*/"\"barrier\"",
           "How a TMA ring's slots are freed for their next fill: "
           "'barrier' (the default) by the barrier of each fa.await (every "
           "warp meets at every block), 'mbarrier' by fa.release (each warp "
           "arrives on the slot's release mbarrier, the load waits for it) "
           "where the loops allow it; 'auto' mbarrier where the loops' K/V "
           "blocks have 128 keys or more (where --fa-pingpong's auto takes "
           "turns, which need the warpgroups free of a per-block barrier), "
           "barrier elsewhere">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}


def FAWarpBlockSkip : Pass<"fa-warp-block-skip"> {
  let summary = "Let each warp skip the masked K/V blocks none of its rows "
                "sees (stage L3)";
  let description = [{
    `--fa-causal-block-skip` never visits a K/V block that no row of the Q
    block sees, but a block at the edge of the causal diagonal or of a
    sliding window is often seen by only some of the warps' row slices: with
    128-row Q blocks, 4 warps of 32 rows and 64-key blocks, the last block
    of a causal Q block is invisible to warps 0 and 1, and under a window
    of 1024 keys the first block is invisible to warps 2 and 3. This pass
    lets those warps skip the block's math (for a 1025-key window at
    d = 64: 68 warp-blocks computed instead of 72 per Q block).

    In each K/V loop of a warp-mapped loop nest (L3) whose body holds one
    `fa.mask` on `#fa.warp_rows` tiles, the ops that compute the next
    online-softmax state (the backward slice of the yielded state through
    pure tile ops: `fa.qk`, `fa.mask`, `fa.softcap`, the softmax steps,
    `fa.pv`, layout conversions, elementwise arith) move into an `scf.if`
    on

        rowsMaySeeKeys(row_start + first, row_start + first + count - 1,
                       col_start, col_start + N)

    (`AttentionMath.h`: the end of the warp's last row's keys is past the
    block's start, and the begin of its first row's keys before the block's
    end), where `first, count = fa.warp_row_range` of the state. The else
    branch yields the state unchanged, which is exactly what the skipped
    step computes for rows that see no key of the block (max unchanged,
    alpha = 1, P = 0). Loads and waits stay outside the branch: every warp
    still takes part in filling the shared tiles. The condition is
    warp-uniform, so the atom's collective MMAs stay converged.

    Loops without `fa.mask` (fully visible blocks), without `#fa.warp_rows`
    tiles (L1/L2: there a block no row sees is already skipped), or whose
    state is used by other ops than the loop's yield, are left alone; a loop
    already rewritten has no `fa.mask` left in its body and is not rewritten
    again.

    Before (abridged):

    ```mlir
    %r:4 = scf.for %k0 = %lo to %hi step %c64
        iter_args(%m = %m0, %l = %l0, %acc = %acc0, %f = %f0) -> (...) {
      %k, %v = fa.await %f pending(0) : ...
      %fn = fa.async_load %K, %V[...] ...
      %s = fa.qk %q, %k : ...
      %s2 = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) : ...
      %m1, %l1, %p, %alpha = fa.online_softmax %s2, %m, %l scale(%c) : ...
      ...
      %acc1 = fa.pv %pa, %v, %acc2 : ...
      scf.yield %m1, %l1, %acc1, %fn : ...
    }
    ```

    After:

    ```mlir
    %r:4 = scf.for %k0 = %lo to %hi step %c64
        iter_args(%m = %m0, %l = %l0, %acc = %acc0, %f = %f0) -> (...) {
      %k, %v = fa.await %f pending(0) : ...
      %fn = fa.async_load %K, %V[...] ...
      %first, %count = fa.warp_row_range %m : tensor<128xf32, #rows>
      %sees = ...   // rowsMaySeeKeys(%q0 + %first, ..., %k0, %k0 + 64)
      %s:3 = scf.if %sees -> (...) {
        %s = fa.qk %q, %k : ...
        ... (the step as before)
        scf.yield %m1, %l1, %acc1 : ...
      } else {
        scf.yield %m, %l, %acc : ...
      }
      scf.yield %s#0, %s#1, %s#2, %fn : ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def FARaiseAttention : Pass<"fa-raise-attention"> {
  let summary = "Replace attention written with upstream linalg/tensor ops "
                "by fa.attention";
  let description = [{
    Finds scaled dot-product attention that a frontend (torch-mlir, a
    hand-written program) expressed with upstream ops on tensors and
    replaces it by one tensor-form `fa.attention`, so that the rest of the
    compiler (`--fa-to-ptx`, `--fa-lower-to-cpu`) can take it. The matcher
    starts at every contraction that could be `P V` and walks backward:

    1. `P V`: `linalg.matmul`, `linalg.batch_matmul` (also with transposed
       `indexing_maps`), `linalg.contract` or a `linalg.generic`
       contraction, each tensor's dims in any order (einsums), over up to 3
       batch dims (`[N, D]`, `[B*H, N, D]`, `[B, H, N, D]`, `[B, N, H, D]`,
       JAX's grouped `[B, N, Hkv, G, D]`); optionally followed by a rounding
       of O (`arith.truncf` in a generic).
    2. The softmax over the last dim: `linalg.softmax`, or
       `max`-reduce / `exp(x - max)` / `sum`-reduce / divide (or times the
       reciprocal of the sum), fused into generics or not, keepdim or not
       (TOSA's reductions of a `[.., 1, N]` expansion too), with f16/bf16
       <-> f32 casts; the exponential may be `exp2` and carry positive
       constant factors (`exp2((x - max) * scale * log2(e))`): they are
       the last factor of the scale.
    3. Back to `Q K^T`: multiplications or divisions by positive constants
       (the scale), masks that are bands around the diagonal (causal,
       sliding windows: an additive constant of 0 and -inf, a `select`
       between the scores and -inf on index comparisons, their `andi`/`ori`,
       or an i1 constant; several intersect), Gemma 2's soft cap
       `c * tanh(x / c)` before the masks, casts.
    4. Q, K, V through `linalg.transpose` and permuting generics,
       `tensor.collapse_shape`/`expand_shape`, casts, a scale folded into Q
       and/or K, and for K/V a broadcast of the heads (GQA/MQA) or a group
       loop the contractions do not give them.

    Every intermediate must be used only by the next op of the chain. A
    band mask must hold the diagonal and `Nq == Nk` must be known (static
    sizes, or upstream's value-bounds analysis): a top-left aligned mask is
    our bottom-right `causal`/`window` only then, and then no row is empty,
    so softmax's NaN for an all-masked row cannot occur. Anything else is
    left exactly as it was. See docs/raise-attention.md. With
    `warn-if-none` (which `--fa-linalg-to-ptx` sets) an operation that holds
    no `fa.attention` afterwards gets a warning: no kernel would come out.
    With `explain`, each `P V` contraction whose softmax was recognised but
    that was left alone gets a remark saying why (a mask hiding the
    diagonal, `Nq == Nk` not known, an extra use of the scores, ...).

    Before (abridged, 3-D with a scale):

    ```mlir
    %s = linalg.batch_matmul indexing_maps = [..., (b, m, n, k) -> (b, n, k), ...]
           ins(%q, %k : tensor<8x128x64xf16>, tensor<8x128x64xf16>) outs(%zero ...)
    %x = linalg.generic ... { arith.mulf %in, %cst_0_125 }
    %p = linalg.softmax dimension(2) ins(%x ...) outs(...)
    %o = linalg.batch_matmul ins(%p, %v ...) outs(%zero2 ...)
    ```

    After:

    ```mlir
    %q4 = tensor.expand_shape %q [[0, 1], [2], [3]] output_shape [8, 1, 128, 64]
    ...
    %o4 = fa.attention ins(%q4, %k4, %v4 : ...) outs(%empty : tensor<8x1x128x64xf16>)
            scale(0.125) -> tensor<8x1x128x64xf16>
    %o = tensor.collapse_shape %o4 [[0, 1], [2], [3]]
    ```
  }];
  let options = [
    Option<"finfoMinMasks", "finfo-min-masks", "bool", /*default=*/"true",
           "Treat the lowest finite value of the element type (torch.finfo"
           "(dtype).min) like -inf in a mask; false raises only -inf masks">,
    Option<"warnIfNone", "warn-if-none", "bool", /*default=*/"false",
           "Warn when no fa.attention is left in the operation afterwards "
           "(--fa-linalg-to-ptx sets it: there is nothing to compile)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "A remark at each P V whose softmax was recognised but which was "
           "not raised, saying what stopped it">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fa::FADialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FA_TRANSFORMS_PASSES_TD
