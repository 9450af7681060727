//===- Passes.td - FlashAttention transformation passes ----*- tablegen -*-===//

#ifndef FA_TRANSFORMS_PASSES_TD
#define FA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FADecomposeNaive : Pass<"fa-decompose-naive"> {
  let summary = "Lower fa.attention to unfused linalg ops (the CPU oracle)";
  let description = [{
    Rewrites every tensor-form `fa.attention` into the textbook computation on
    whole tensors, with f32 accumulation:

    1. `S = scale * Q K^T` (one `linalg.generic`, reading key/value head
       `h floordiv (Hq / Hkv)` for query head `h`),
    2. the causal mask (`-inf` where `j > i + Nk - Nq`),
    3. `M = rowmax(S)`, `E = exp(S - M)`, `L = rowsum(E)`,
    4. `O = (E V) / L`, `LSE = M + log(L)`.

    The full `[B, Hq, Nq, Nk]` score matrix is materialised, so this is only
    meant as the reference that every faster lowering is compared against.
    Rows that see no key give `O = 0` and `LSE = -inf`, like the tiled
    kernels.

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
    %masked = linalg.generic ... { ... arith.cmpi sgt ... arith.select ... }
    %m = linalg.generic ... { arith.maximumf }   // row max
    %e = linalg.generic ... { math.exp }          // exp(S - M)
    %l = linalg.generic ... { arith.addf }        // row sum
    %pv = linalg.generic ... { arith.mulf, arith.addf }  // E V
    %o = linalg.generic ... { arith.divf, arith.select } // / L, 0 if L == 0
    ```

    The memref form is an error ("needs the tensor form"): bufferize after
    this pass, not before.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
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
    * the body: `fa.qk` (scale times log2(e) folded in), `fa.mask` (keys past
      `Nk`, and the causal mask if any), `fa.online_softmax` (no division),
      `arith.truncf` of P for f16/bf16, `fa.pv` (alpha * acc + P V);
    * after the loop, the one normalisation, `fa.finalize`, and
      `tensor.parallel_insert_slice` of the valid rows of O and LSE.

    Query head `h` reads key/value head `h floordiv (Hq / Hkv)` (GQA/MQA).
    At this stage every K/V block is visited and masked;
    `--fa-causal-block-skip` then removes the work that is not needed.

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
      %kvh = arith.divui %h, %c4 : index
      %m_l_acc:3 = scf.for %k0 = %c0 to %Nk step %c64
          iter_args(%m = %minus_inf, %l = %zero, %acc = %zeros)
          -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
        %k_tile = tensor.pad ... to tensor<64x64xf16>
        %v_tile = tensor.pad ... to tensor<64x64xf16>
        %s = fa.qk %q_tile, %k_tile scale(0.180336878) : ...
        %s2 = fa.mask %s[%q0, %k0] key_limit(%Nk) causal_offset(%off) : ...
        %p, %m2, %l2, %alpha = fa.online_softmax %s2, %m, %l : ...
        %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
        %acc2 = fa.pv %p16, %v_tile, %acc, %alpha : ...
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
           "(128 x 64 for every supported head dim today)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}


def FADecomposeTiles : Pass<"fa-decompose-tiles"> {
  let summary = "Lower the tile-level fa ops to linalg on tensors (CPU path)";
  let description = [{
    Gives every tile-level op its reference semantics as `linalg.generic`
    ops on tensors, so that the tiled loop nest (L1/L2) can be bufferized and
    run on the CPU with `mlir-runner`:

    * `fa.qk` -> a matmul with K transposed, then the scale;
    * `fa.mask` -> a select on `linalg.index` against the key limit and the
      causal diagonal;
    * `fa.online_softmax` -> a row max seeded with the old max, `exp2`
      against the new max (0 for rows that have seen no key), alpha, and a
      row sum seeded with `alpha * l`;
    * `fa.pv` -> `alpha * acc`, then the P V matmul accumulated into it;
    * `fa.finalize` -> the division by `l` and the natural-log LSE.

    Before:

    ```mlir
    %p, %m2, %l2, %alpha = fa.online_softmax %s, %m, %l
        : tensor<32x16xf32>, tensor<32xf32>
    ```

    After (abridged):

    ```mlir
    %m2 = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<32x16xf32>) outs(%m : tensor<32xf32>) { arith.maximumf }
    %base, %alpha = linalg.generic ... { arith.cmpf oeq, arith.select,
                                         arith.subf, math.exp2 }
    %p = linalg.generic ... { arith.subf, math.exp2 }
    %l2 = linalg.generic ... ins(%p) outs(%alpha_l) { arith.addf }
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
  let summary = "Visit only the K/V blocks a Q block can see; mask only the "
                "blocks that need it";
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


def FAMapWarps : Pass<"fa-map-warps"> {
  let summary = "Give each warp whole rows of the Q block: layouts for the "
                "GPU (stage L3)";
  let description = [{
    Annotates the tiled loop nest (L2) with how a thread block of
    `num-warps` warps holds it:

    * Q-row-indexed tiles and per-row state (`Q_i`, `S`, `P`, `acc`, `m`,
      `l`, `alpha`, `O_i`, `LSE_i`) get `#fa.warp_rows<num_warps = W>`: warp
      `w` owns rows `[w * M / W, (w + 1) * M / W)`. Every row reduction of the
      online softmax (max, sum) stays inside one warp.
    * K/V tiles get `#fa.block_shared`: one cooperative copy into shared
      memory that every warp reads.
    * The `scf.forall` gets a grid mapping: Q blocks on `x`, heads on `y`,
      batch on `z`.

    The split must suit `mma.sync.m16n8k16`: `block-m` a multiple of
    `16 * num-warps`, `block-n` and the head dims multiples of 16; anything
    else is a pass error naming the values.

    Before:

    ```mlir
    scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(...) {
      %q = tensor.pad ... : tensor<?x64xf16> to tensor<128x64xf16>
      ... scf.for ... iter_args(%m = %cst : tensor<128xf32>, ...) {
        %k = tensor.pad ... to tensor<64x64xf16>
        %s = fa.qk %q, %k ... -> tensor<128x64xf32>
    ```

    After (`num-warps=4`):

    ```mlir
    scf.forall (%b, %h, %qb) in (%B, 8, %nqb) shared_outs(...) {
      %q = tensor.pad ... to tensor<128x64xf16, #fa.warp_rows<num_warps = 4>>
      ... scf.for ... iter_args(%m = %cst
                       : tensor<128xf32, #fa.warp_rows<num_warps = 4>>, ...) {
        %k = tensor.pad ... to tensor<64x64xf16, #fa.block_shared>
        %s = fa.qk %q, %k ... -> tensor<128x64xf32, #fa.warp_rows<num_warps = 4>>
    } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    ```
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per thread block (1, 2, 4 or 8)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // FA_TRANSFORMS_PASSES_TD
