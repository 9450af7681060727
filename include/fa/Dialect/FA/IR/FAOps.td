//===- FAOps.td - FlashAttention dialect ops ---------------*- tablegen -*-===//

#ifndef FA_OPS_TD
#define FA_OPS_TD

include "fa/Dialect/FA/IR/FAAttrs.td"
include "fa/Dialect/FA/IR/FATypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// fa.attention
//===----------------------------------------------------------------------===//

def FA_AttentionOp : FA_Op<"attention", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention: O = softmax(scale * Q K^T) V";
  let description = [{
    Batched multi-head attention with grouped-query (GQA) and multi-query (MQA)
    support. With `Q : [B, Hq, Nq, D]`, `K : [B, Hkv, Nk, D]` and
    `V : [B, Hkv, Nk, Dv]`, for every batch `b`, query head `h` and query row
    `i`, with `g = h / (Hq / Hkv)` the key/value head it reads:

    ```
    s[j]          = scale * sum_d Q[b, h, i, d] * K[b, g, j, d]
    O[b, h, i, :] = sum_j softmax(s)[j] * V[b, g, j, :]
    LSE[b, h, i]  = log(sum_j exp(s[j]))            (natural log, f32)
    ```

    The clauses `scale(s)`, `causal`, `window(l, r)` and `softcap(c)` may
    come in any order, each at most once; they print in that order.

    * `scale` defaults to `1/sqrt(D)` when absent.
    * `causal` masks keys in the future. When `Nq != Nk` the mask is aligned
      to the bottom-right corner, as FlashAttention-2 (>= 2.1) does: query row
      `i` sees key `j` iff `j <= i + Nk - Nq`. A row that sees no key at all
      (possible when `Nq > Nk`) produces `O = 0` and `LSE = -inf`.
    * `window(left, right)` is FlashAttention-2's `window_size` (local,
      sliding-window attention): row `i` sees key `j` iff
      `i + Nk - Nq - left <= j <= i + Nk - Nq + right`, bottom-right aligned
      like `causal`; `-1` leaves that side unbounded, and a side must be
      below 2^30 (the kernels' key bounds are 32-bit; a side that wide
      bounds nothing). With `causal`, `right` is 0 whatever its value, as
      in FlashAttention-2.
    * `softcap(c)` caps the logits as Gemma 2 does: the scores the softmax
      sees are `c * tanh(scale * s / c)` (the scale is applied first, inside
      the cap; the softmax then has no further scale). On the GPU `tanh` is
      the hardware approximation `tanh.approx.f32` (relative error at most
      2^-11), as in FlashAttention-2.
    * Element types: `f16`, `bf16` or `f32`, the same for Q, K, V and O;
      accumulation is f32. LSE is always f32.
    * `B`, `Nq` and `Nk` may be dynamic; the head counts and head dims `D`,
      `Dv` must be static.

    A K/V cache (FlashAttention's `flash_attn_with_kvcache` conventions):

    * `key_lengths(%lens : tensor<Bxi32>)` gives every sequence its own key
      count: sequence `b` attends to its first
      `n_b = clamp(lens[b], 0, capacity)` keys, where the capacity is `Nk`
      (or, paged, `max_pages * page_size`), and `causal` and `window` are
      aligned to its own bottom-right corner (`Nk` above becomes `n_b`).
      Keys past `n_b` are never read.
    * `block_table(%table : tensor<B x max_pages x i32>)` (needs
      `key_lengths`) makes K and V a pool of pages,
      `K : [num_pages, page_size, Hkv, D]`, `V : [num_pages, page_size, Hkv,
      Dv]` (vLLM's and FlashAttention's layout; `page_size` static): key `j`
      of sequence `b` is `K[table[b, j / page_size], j mod page_size]`.
      Table entries past a sequence's `ceil(n_b / page_size)` pages are never
      read; the ones before must be page numbers in `[0, num_pages)`.

    Variable-length batches (FlashAttention's `flash_attn_varlen_func`):
    `cu_seqlens(%cu_q, %cu_k : tensor<(S+1)xi32>, tensor<(S+1)xi32>)` packs
    `S` sequences along N of a batch of one: Q `[1, Hq, total_q, D]`, K and
    V `[1, Hkv, total_k, D]`, O `[1, Hq, total_q, Dv]`, LSE `[1, Hq,
    total_q]` (a packed `[total, H, D]` tensor viewed with strides).
    Sequence `s` is query rows `[cu_q[s], cu_q[s + 1])` against keys
    `[cu_k[s], cu_k[s + 1])`; within it, rows and keys are counted from its
    start, and `causal` and `window` align to its own bottom-right corner.
    A row sees no key of another sequence. Both arrays must be
    non-decreasing from 0, with `cu_q[S] = total_q` and `cu_k[S] <=
    total_k`. `max_seqlen_q(%m : index)` (optional, FlashAttention's
    `max_seqlen_q`) bounds every sequence's query count; it changes no
    result, only how the kernels number the sequences' Q blocks: with it,
    the grid is `ceil(m / block) x S` blocks where that is fewer than the
    `ceil(total_q / block) + S` of the walk over the sequences (exact for
    equal lengths; `fa.varlen_block`). A sequence longer than `m` is an
    error at run time (an assertion on the CPU, a trap on the GPU), never
    rows left unwritten.

    The op follows destination-passing style: `outs` holds `O` and,
    optionally, `LSE`. In tensor form the op returns one tensor per output; in
    memref form it writes the buffers and returns nothing. One-shot
    bufferization turns the tensor form into the memref form.

    Example (tensor form, GQA 8:2, causal, with LSE):

    ```mlir
    %o, %lse = fa.attention
        ins(%q, %k, %v : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>,
                         tensor<2x2x?x64xf16>)
        outs(%o_init, %lse_init : tensor<2x8x?x64xf16>, tensor<2x8x?xf32>)
        causal -> tensor<2x8x?x64xf16>, tensor<2x8x?xf32>
    ```

    A decode step over a paged cache (pages of 64 keys, GQA 32:8):

    ```mlir
    %o = fa.attention
        ins(%q, %k_pages, %v_pages : tensor<?x32x1x128xbf16>,
                                     tensor<?x64x8x128xbf16>,
                                     tensor<?x64x8x128xbf16>)
        key_lengths(%lens : tensor<?xi32>)
        block_table(%table : tensor<?x?xi32>)
        outs(%o_init : tensor<?x32x1x128xbf16>) -> tensor<?x32x1x128xbf16>
    ```

    Memref form, explicit scale, no LSE:

    ```mlir
    fa.attention ins(%q, %k, %v : memref<1x4x128x64xf32>,
                     memref<1x4x128x64xf32>, memref<1x4x128x64xf32>)
                 outs(%o : memref<1x4x128x64xf32>) scale(0.125)
    ```
  }];

  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                       Optional<AnyShaped>:$key_lengths,
                       Optional<AnyShaped>:$block_table,
                       Optional<AnyShaped>:$cu_seqlens_q,
                       Optional<AnyShaped>:$cu_seqlens_k,
                       Optional<Index>:$max_seqlen_q,
                       Variadic<AnyShaped>:$outputs,
                       OptionalAttr<F32Attr>:$scale,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window_left,
                       OptionalAttr<I64Attr>:$window_right,
                       OptionalAttr<F32Attr>:$softcap);
  let results = (outs Variadic<AnyRankedTensor>:$results);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
              type($value) `)`
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:`
                      type($cu_seqlens_q) `,` type($cu_seqlens_k) `)`)?
    (`max_seqlen_q` `(` $max_seqlen_q^ `)`)?
    `outs` `(` $outputs `:` type($outputs) `)`
    `` custom<AttentionClauses>($scale, $causal, $window_left,
                                $window_right, $softcap)
    attr-dict (`->` type($results)^)?
  }];

  let extraClassDeclaration = [{
    /// The `O` destination (tensor or memref).
    ::mlir::Value getOut() { return getOutputs()[0]; }
    /// The optional `LSE` destination, or null.
    ::mlir::Value getLse() {
      return getOutputs().size() > 1 ? getOutputs()[1] : ::mlir::Value();
    }
    /// The scale actually applied: the attribute, or 1/sqrt(D) when absent.
    double getEffectiveScale();
    /// Hq / Hkv: how many query heads share one key/value head.
    int64_t getGroupSize();
    /// K and V are pools of pages read through `block_table`.
    bool isPaged() { return static_cast<bool>(getBlockTable()); }
    /// The dimension of K and V that indexes the key/value heads: 1, or 2
    /// for the paged pools [num_pages, page_size, Hkv, D].
    unsigned getKVHeadDim() { return isPaged() ? 2 : 1; }
    /// Keys per page (paged form only).
    int64_t getPageSize();
    /// Sequences packed along N (cu_seqlens).
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// The keys row i sees, as offsets from the diagonal i + Nk - Nq:
    /// [i + Nk - Nq - left, i + Nk - Nq + right]; nullopt = unbounded side.
    /// `causal` gives right = 0; no mask at all gives (nullopt, nullopt).
    std::pair<std::optional<int64_t>, std::optional<int64_t>>
    getVisibleWindow();
    /// True for the tensor (value-semantic) form, false for the memref form.
    bool hasTensorSemantics() {
      return ::llvm::isa<::mlir::RankedTensorType>(getQuery().getType());
    }

    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fa.attention_backward
//===----------------------------------------------------------------------===//

def FA_AttentionBackwardOp : FA_Op<"attention_backward", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "gradients of fa.attention: dQ, dK, dV from O, dO and LSE";
  let description = [{
    The gradients of `O = fa.attention(Q, K, V)` with respect to its inputs,
    given the forward's output `O`, its log-sum-exp `LSE` and the gradient
    `dO` of the loss with respect to `O`. Shapes, element types, GQA/MQA and
    the attributes (`scale`, `causal`, `window(left, right)`,
    `softcap(c)`) follow `fa.attention`, with the same verifier rules; for
    every batch `b`, query head `h` (key/value head `g = h / (Hq / Hkv)`),
    query row `i` and key `j`:

    ```
    S[i, j]  = scale * Q[i] . K[j]            (softcap: c * tanh(S / c))
    P[i, j]  = exp(S[i, j] - LSE[i])          (0 for hidden keys and for
                                               rows with LSE = -inf)
    D[i]     = sum_e dO[i, e] * O[i, e]
    dS[i, j] = P[i, j] * (dO[i] . V[j] - D[i])
               (softcap: times 1 - (S_capped[i, j] / c)^2)
    dQ[i]    = scale * sum_j dS[i, j] K[j]
    dK[j]    = scale * sum_{h in group, i} dS[i, j] Q[i]
    dV[j]    = sum_{h in group, i} P[i, j] dO[i]
    ```

    `dK` and `dV` have the shapes of `K` and `V`: with GQA/MQA they are
    summed over the `Hq / Hkv` query heads that share a key/value head.

    * Operands: `Q [B, Hq, Nq, D]`, `K [B, Hkv, Nk, D]`,
      `V [B, Hkv, Nk, Dv]`, `O` and `dO [B, Hq, Nq, Dv]` (all of one
      element type: f16, bf16 or f32), `LSE [B, Hq, Nq]` (f32, as
      `fa.attention` writes it: the natural-log log-sum-exp of the scaled,
      capped scores).
    * Destinations (`outs`): `dQ`, `dK`, `dV`, shaped and typed like `Q`,
      `K`, `V`. Accumulation is f32; each gradient is rounded to the
      element type once, at the end.
    * In tensor form the op returns the three gradients; in memref form it
      writes the buffers and returns nothing. One-shot bufferization turns
      the tensor form into the memref form.

    Example (GQA 8:2, causal, tensor form):

    ```mlir
    %dq, %dk, %dv = fa.attention_backward
        ins(%q, %k, %v, %o, %do, %lse
            : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>,
              tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?xf32>)
        outs(%dq0, %dk0, %dv0
            : tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>, tensor<2x2x?x64xf16>)
        causal -> tensor<2x8x?x64xf16>, tensor<2x2x?x64xf16>,
                  tensor<2x2x?x64xf16>
    ```
  }];

  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                       AnyShaped:$out, AnyShaped:$grad_out, AnyShaped:$lse,
                       Variadic<AnyShaped>:$outputs,
                       OptionalAttr<F32Attr>:$scale,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window_left,
                       OptionalAttr<I64Attr>:$window_right,
                       OptionalAttr<F32Attr>:$softcap);
  let results = (outs Variadic<AnyRankedTensor>:$results);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `,` $out `,` $grad_out `,` $lse `:`
              type($query) `,` type($key) `,` type($value) `,` type($out) `,`
              type($grad_out) `,` type($lse) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    `` custom<AttentionClauses>($scale, $causal, $window_left,
                                $window_right, $softcap)
    attr-dict (`->` type($results)^)?
  }];

  let extraClassDeclaration = [{
    /// The dQ, dK and dV destinations (tensor or memref).
    ::mlir::Value getGradQuery() { return getOutputs()[0]; }
    ::mlir::Value getGradKey() { return getOutputs()[1]; }
    ::mlir::Value getGradValue() { return getOutputs()[2]; }
    /// The scale actually applied: the attribute, or 1/sqrt(D) when absent.
    double getEffectiveScale();
    /// Hq / Hkv: how many query heads share one key/value head.
    int64_t getGroupSize();
    /// The keys row i sees, as offsets from the diagonal i + Nk - Nq; the
    /// same as fa.attention's.
    std::pair<std::optional<int64_t>, std::optional<int64_t>>
    getVisibleWindow();
    /// True for the tensor (value-semantic) form, false for the memref form.
    bool hasTensorSemantics() {
      return ::llvm::isa<::mlir::RankedTensorType>(getQuery().getType());
    }

    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];

  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Tile-level ops
//
// What `--fa-tile-q-outer` produces: each op is one step of the
// FlashAttention-2 inner loop, on one Q block of M rows and one K/V block of
// N rows, as value-semantic 2-D (or 1-D, per row) tensors. Scores are kept
// raw (Q K^T); the softmax ops apply `scale`, which is the attention scale
// times log2(e), so every exponential is an `exp2`. On the CPU they lower to
// linalg (`--fa-decompose-tiles`); on the GPU, one pattern each, to the
// fragments of the MMA atom their layout encodings name
// (`--fa-lower-to-gpu`). Their arithmetic is defined once, in
// `fa/Dialect/FA/Semantics/AttentionMath.h`, for both.
//===----------------------------------------------------------------------===//

class FA_TileOp<string mnemonic, list<Trait> traits = []>
    : FA_Op<mnemonic, !listconcat(traits, [Pure])>;

def FA_VarlenBlockOp : FA_TileOp<"varlen_block"> {
  let summary = "the sequence, Q block and row ranges of a packed (varlen) "
                "loop nest's iteration";
  let description = [{
    With `S` sequences packed along N (`fa.attention`'s `cu_seqlens`),
    sequence `s` has `ceil(n_s / block_rows)` Q blocks of `block_rows` rows,
    `n_s = cu_q[s + 1] - cu_q[s]`; the blocks of all sequences, in order,
    are numbered from 0. Returns the sequence `s` and the block within it
    that block `index` is, and where the sequence's queries and keys are in
    the packed tensors: `cu_q[s]` and `n_s` rows, `cu_k[s]` and
    `cu_k[s + 1] - cu_k[s]` keys (a negative count reads as 0). An index
    past the last block (the loop nest has `ceil(total_q / block_rows) + S`
    iterations, a bound of the blocks' count) gives sequence 0 and a block
    past its rows, which has no row to compute.

    With `per_sequence(%p)` and `p > 0`, the blocks are numbered as
    FlashAttention's varlen grid numbers them instead: `p` slots a
    sequence, block `index` is block `index mod p` of sequence `index / p`
    (a slot past its sequence's rows has none; past the last sequence, the
    ranges are empty); a sequence of more than `p` blocks is an error at
    run time (an assertion on the CPU, a trap on the GPU). `p = 0` is the
    walk. `--fa-tile-q-outer` computes `p` from `fa.attention`'s
    `max_seqlen_q`, where it makes the grid smaller (`AttentionMath.h`,
    `varlenGrid`). (`varlenBlock` defines both numberings for every
    lowering.)

    One op reads every offset the iteration needs, so a lowering issues the
    reads together, before anything that waits on them (the GPU's `exit`
    of a block without rows, its `trap`).

    ```mlir
    %seq, %block, %q0, %nq, %k0, %nk = fa.varlen_block %cu_q, %cu_k[%i]
        block_rows(128) : tensor<?xi32>, tensor<?xi32>
    %seq2, %block2, %q02, %nq2, %k02, %nk2 = fa.varlen_block %cu_q, %cu_k[%i]
        block_rows(128) per_sequence(%p) : tensor<?xi32>, tensor<?xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I32]>:$cu_seqlens_q,
                       RankedTensorOf<[I32]>:$cu_seqlens_k, Index:$index,
                       I64Attr:$block_rows,
                       Optional<Index>:$blocks_per_sequence);
  let results = (outs Index:$sequence, Index:$block, Index:$query_start,
                      Index:$num_queries, Index:$key_start, Index:$num_keys);
  let assemblyFormat = [{
    $cu_seqlens_q `,` $cu_seqlens_k `[` $index `]` `block_rows` `(`
    $block_rows `)` (`per_sequence` `(` $blocks_per_sequence^ `)`)?
    attr-dict `:` type($cu_seqlens_q) `,` type($cu_seqlens_k)
  }];
  let hasVerifier = 1;
}

def FA_QKOp : FA_TileOp<"qk"> {
  let summary = "S = Q_i K_j^T for one Q block and one K block";
  let description = [{
    `S[r, c] = sum_d Q[r, d] * K[c, d]`, accumulated in f32. The scale is
    applied by the softmax ops that consume S.

    ```mlir
    %s = fa.qk %q_tile, %k_tile
        : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
    ```

    With layouts (L3), the query tile is either in registers
    (`#fa.warp_rows<operand_a, ...>`) or in shared memory
    (`#fa.block_shared`), the key tile in shared memory, and S an `acc`
    tile of the same atom and warps.

    `async` (set by `--fa-pipeline-mma`): the product is issued and not
    waited for; S may be read only through `fa.mma_wait`, which says where
    the wait goes. Atoms whose matmuls are synchronous (`#fa.mma_sync`)
    ignore it.
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       UnitAttr:$async);
  let results = (outs AnyRankedTensor:$scores);
  let assemblyFormat = [{
    $query `,` $key attr-dict `:` type($query) `,` type($key) `->`
    type($scores)
  }];
  let hasVerifier = 1;
}

def FA_MaskOp : FA_TileOp<"mask", [AllTypesMatch<["scores", "result"]>,
                                   AttrSizedOperandSegments]> {
  let summary = "set to -inf the scores a query row must not see";
  let description = [{
    The tile's element `(r, c)` is query row `i = row_start + r` against key
    `j = col_start + c`. Row `i` sees the keys `j` with

    * `j < key_limit` when `key_limit` is given (keys past the end of the
      sequence, in the last partial K/V block),
    * `j <= i + causal_offset` when `causal_offset` is given (causal
      attention: `causal_offset = Nk - Nq` aligns the mask to the
      bottom-right corner; a window with right context `r` has
      `Nk - Nq + r`), and
    * `j >= i + window_offset` when `window_offset` is given (a sliding
      window with left context `l`: `window_offset = Nk - Nq - l`).

    Every other element becomes `-inf`. At least one of the three must be
    present. (`AttentionMath.h` defines the predicate, as the interval of
    keys each row sees, for every lowering.)

    With `transposed` (the backward's K/V-outer tiles, `S^T = K Q^T`), the
    tile's rows are keys and its columns queries: element `(r, c)` is key
    `j = row_start + r` against query row `i = col_start + c`, with the same
    predicate.

    With `single_query`, every row of the tile is query row `i = row_start`:
    the tile's rows are the query heads of one GQA group at one position
    (`--fa-tile-q-outer="pack-gqa=true"` for a single-query step), which all
    see the same keys.

    ```mlir
    %masked = fa.mask %s[%q_start, %k_start] key_limit(%nk)
                  causal_offset(%offset) : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, Index:$row_start,
                       Index:$col_start, Optional<Index>:$key_limit,
                       Optional<Index>:$causal_offset,
                       Optional<Index>:$window_offset,
                       UnitAttr:$single_query, UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `[` $row_start `,` $col_start `]`
    (`key_limit` `(` $key_limit^ `)`)?
    (`causal_offset` `(` $causal_offset^ `)`)?
    (`window_offset` `(` $window_offset^ `)`)?
    attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
}

def FA_SoftcapOp : FA_TileOp<"softcap", [AllTypesMatch<["scores", "result"]>]> {
  let summary = "logit soft-capping: S' = cap * tanh(scale * S)";
  let description = [{
    `S'[r, c] = cap * tanh(scale * S[r, c])` (Gemma 2's soft-capping, with
    the attention scale over the cap folded into `scale`), applied to raw
    scores before the mask and the softmax. `scale` and `cap` are f32 values
    (kernel parameters on the GPU). Without `cap` the op is
    `tanh(scale * S)`: the forward tiling leaves the cap out and puts it into
    the online softmax's scale instead, which multiplies every score anyway,
    so that the cap costs no multiply per score; the backward tiling keeps
    it (the gradient needs the capped scores). The definition is `softcap`
    in `AttentionMath.h`.

    ```mlir
    %capped = fa.softcap %s scale(%scale_over_cap) cap(%cap)
        : tensor<128x64xf32>
    %tanh = fa.softcap %s scale(%scale_over_cap) : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, F32:$scale,
                   Optional<F32>:$cap);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `scale` `(` $scale `)` (`cap` `(` $cap^ `)`)? attr-dict `:`
    type($scores)
  }];
  let hasVerifier = 1;
}

def FA_OnlineSoftmaxOp : FA_TileOp<"online_softmax", [
    AllTypesMatch<["scores", "probs"]>,
    AllTypesMatch<["max", "new_max", "alpha"]>,
    AllTypesMatch<["sum", "new_sum"]>]> {
  let summary = "one online-softmax step: new running max and sum, P, alpha";
  let description = [{
    Folds one block of raw scores `S [M, N]` into the running row max
    `m [M]` and row sum `l [M]`, both in the log2 domain of the scaled
    scores (`scale` is the attention scale times log2(e), > 0):

    ```
    m_new[r] = max(m[r], scale * max_c S[r, c])
    base[r]  = m_new[r] == -inf ? 0 : m_new[r]   (row has seen no key yet)
    P[r, c]  = exp2(scale * S[r, c] - base[r])   (unnormalised)
    alpha[r] = exp2(m[r] - base[r])              (rescales the old state)
    l_new[r] = alpha[r] * l[r] + sum_c P[r, c]
    ```

    No division: normalisation happens once, in `fa.finalize`. The `base`
    guard keeps fully masked rows at `P = 0`, `alpha = 0` instead of NaN.
    The step is exactly `fa.running_max` followed by `fa.softmax_exp`
    (`--fa-schedule-softmax` splits it so that the rescale of the
    accumulator can be placed between the two).

    ```mlir
    %p, %m_new, %l_new, %alpha = fa.online_softmax %s, %m, %l scale(%c)
        : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$max,
                       AnyRankedTensor:$sum, F32:$scale);
  let results = (outs AnyRankedTensor:$probs, AnyRankedTensor:$new_max,
                      AnyRankedTensor:$new_sum, AnyRankedTensor:$alpha);
  let assemblyFormat = [{
    $scores `,` $max `,` $sum `scale` `(` $scale `)` attr-dict `:`
    type($scores) `,` type($max) `,` type($sum)
  }];
  let hasVerifier = 1;
}

def FA_RunningMaxOp : FA_TileOp<"running_max", [
    AllTypesMatch<["max", "new_max", "alpha"]>]> {
  let summary = "first half of the online-softmax step: new max and alpha";
  let description = [{
    ```
    m_new[r] = max(m[r], scale * max_c S[r, c])
    alpha[r] = exp2(m[r] - base[r]),   base[r] = m_new[r] == -inf ? 0 : m_new[r]
    ```

    ```mlir
    %m_new, %alpha = fa.running_max %s, %m scale(%c)
        : tensor<128x64xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$max,
                       F32:$scale);
  let results = (outs AnyRankedTensor:$new_max, AnyRankedTensor:$alpha);
  let assemblyFormat = [{
    $scores `,` $max `scale` `(` $scale `)` attr-dict `:` type($scores) `,`
    type($max)
  }];
  let hasVerifier = 1;
}

def FA_SoftmaxExpOp : FA_TileOp<"softmax_exp", [
    AllTypesMatch<["scores", "probs"]>,
    AllTypesMatch<["new_max", "alpha"]>,
    AllTypesMatch<["sum", "new_sum"]>]> {
  let summary = "second half of the online-softmax step: P and the new sum";
  let description = [{
    With `m_new` and `alpha` from `fa.running_max`:

    ```
    base[r]  = m_new[r] == -inf ? 0 : m_new[r]
    P[r, c]  = exp2(scale * S[r, c] - base[r])
    l_new[r] = alpha[r] * l[r] + sum_c P[r, c]
    ```

    ```mlir
    %p, %l_new = fa.softmax_exp %s, %m_new, %alpha, %l scale(%c)
        : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$new_max,
                       AnyRankedTensor:$alpha, AnyRankedTensor:$sum,
                       F32:$scale);
  let results = (outs AnyRankedTensor:$probs, AnyRankedTensor:$new_sum);
  let assemblyFormat = [{
    $scores `,` $new_max `,` $alpha `,` $sum `scale` `(` $scale `)` attr-dict
    `:` type($scores) `,` type($new_max) `,` type($sum)
  }];
  let hasVerifier = 1;
}

def FA_RescaleOp : FA_TileOp<"rescale", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc_new = alpha * acc, row by row";
  let description = [{
    `acc_new[r, e] = alpha[r] * acc[r, e]`: the old accumulator brought to
    the new running max before P V is added. On the GPU a warp skips the
    multiplications when every alpha it holds is 1 (no row max of the warp
    moved), which after the first blocks is the common case.

    ```mlir
    %acc_new = fa.rescale %acc, %alpha : tensor<128x64xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$alpha);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $acc `,` $alpha attr-dict `:` type($acc) `,` type($alpha)
  }];
  let hasVerifier = 1;
}

def FA_PVOp : FA_TileOp<"pv", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc_new = acc + P V_j";
  let description = [{
    `acc_new[r, e] = acc[r, e] + sum_c P[r, c] * V[c, e]`, in f32. `P` has
    the element type of `V` (the tiling pass rounds P with `arith.truncf`
    first, as the GPU kernel does before its P V matmul); the accumulator is
    rescaled by `fa.rescale` before.

    ```mlir
    %acc_new = fa.pv %p, %v_tile, %acc
        : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
    ```

    With layouts, P is an `operand_a` tile, V a shared tile and the
    accumulator an `acc` tile of the same atom.

    `async`: as for `fa.qk`, the sum may be read only through
    `fa.mma_wait`.
  }];
  let arguments = (ins AnyRankedTensor:$probs, AnyRankedTensor:$value,
                       AnyRankedTensor:$acc, UnitAttr:$async);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $probs `,` $value `,` $acc attr-dict `:` type($probs) `,` type($value)
    `,` type($acc)
  }];
  let hasVerifier = 1;
}

def FA_MmaWaitOp : FA_Op<"mma_wait", [MemoryEffects<[MemRead, MemWrite]>,
                                      AllTypesMatch<["acc", "result"]>]> {
  let summary = "wait for the accumulator of an asynchronous fa.qk or fa.pv";
  let description = [{
    Returns `acc`, the result of an `async` `fa.qk` or `fa.pv`, once that
    product has completed. `pending` is how many of the thread's
    asynchronous products issued after it may still be in flight (on
    `#fa.wgmma`: `wgmma.wait_group pending`, which waits for all but the
    `pending` most recently committed groups). On atoms whose matmuls are
    synchronous, and on the CPU, it is the identity.

    `--fa-pipeline-mma` places these: S of block j is waited with
    `pending(1)` (block j - 1's P V, issued after it, keeps running through
    the softmax of block j), that P V with `pending(0)` before the
    accumulator is rescaled.

    ```mlir
    %s = fa.qk %q, %k {async} : ... -> tensor<128x64xf32, #acc_w8_wgmma>
    %o = fa.pv %p, %v, %acc {async} : ...
    %s_done = fa.mma_wait %s pending(1) : tensor<128x64xf32, #acc_w8_wgmma>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, I64Attr:$pending);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $acc `pending` `(` $pending `)` attr-dict `:` type($acc)
  }];
  let hasVerifier = 1;
}

def FA_MmaTurnOp : FA_Op<"mma_turn", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the warpgroups take turns at issuing their matmuls (ping-pong)";
  let description = [{
    Orders the asynchronous matmuls of the `warpgroups` warpgroups of a
    thread block (2 to 8) round-robin, FlashAttention-3's ping-pong: while
    one warpgroup's `fa.qk` and `fa.pv` run on the tensor cores, the other
    computes its softmax, instead of all of them multiplying, then all
    exponentiating. The steps, each executed by every thread of the block:

    * `take`: wait until it is this warpgroup's turn (warpgroup `w` waits
      on named barrier `1 + w`, with the warpgroup before it);
    * `pass`: give the turn to the next warpgroup (`w` arrives on barrier
      `1 + (w + 1) mod n`, without waiting);
    * `open`: before the first `take`, the last warpgroup gives warpgroup 0
      its first turn;
    * `close`: after the last `pass`, warpgroup 0 takes the turn the last
      warpgroup passed it, so that every barrier's arrivals are waited for.

    Every warpgroup must execute the same number of `take` and `pass`
    steps between `open` and `close` (loops whose trip count is the same
    for the whole block, as the K/V loops are). `--fa-pingpong` puts `take`
    before a K/V block's first asynchronous product and `pass` after its
    last. Named barriers 1 to `warpgroups` are the turns' (`bar.sync`,
    `bar.arrive` with 256 threads: the two warpgroups of a hand-over); on
    the CPU it is a no-op.

    ```mlir
    fa.mma_turn open of 2
    scf.for ... {
      fa.mma_turn take of 2
      %s = fa.qk %q, %k {async} : ...
      %o = fa.pv %p, %v, %acc {async} : ...
      fa.mma_turn pass of 2
      ...
    }
    fa.mma_turn close of 2
    ```
  }];
  let arguments = (ins FA_MmaTurn:$step, I64Attr:$warpgroups);
  let assemblyFormat = "$step `of` $warpgroups attr-dict";
  let hasVerifier = 1;
}

def FA_FinalizeOp : FA_TileOp<"finalize", [AllTypesMatch<["max", "lse"]>]> {
  let summary = "the one normalisation: O = acc / l, LSE = ln(2) * (m + log2 l)";
  let description = [{
    After the last K/V block:

    ```
    O[r, e] = l[r] == 0 ? 0 : acc[r, e] * (1 / l[r])    (in O's element type)
    LSE[r]  = l[r] == 0 ? -inf : ln(2) * (m[r] + log2(l[r]))
    ```

    `m` and `l` are the log2-domain running max and sum, so LSE comes out as
    the natural-log log-sum-exp of the scaled scores, as PyTorch and
    FlashAttention-2 report it. Rows that saw no key give `O = 0`,
    `LSE = -inf`.

    ```mlir
    %o, %lse = fa.finalize %acc, %m, %l
        : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>
          -> tensor<128x128xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$max,
                       AnyRankedTensor:$sum);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $acc `,` $max `,` $sum attr-dict `:` type($acc) `,` type($max) `,`
    type($sum) `->` type($out)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Backward tile ops
//
// The gradient's steps on one tile, for the two loop nests of the GPU form
// of the backward (`--fa-tile-backward`): the dQ nest holds tiles of query
// rows (`S = Q K^T`), the dK/dV nest tiles of key rows (`S^T = K Q^T`,
// `transposed`). The per-query vectors (LSE, D) are read from memory by the
// threads that need them: they carry no layout even at L3.
//===----------------------------------------------------------------------===//

def FA_ProbsFromLseOp : FA_TileOp<"probs_from_lse",
    [AllTypesMatch<["scores", "probs"]>]> {
  let summary = "P recomputed from the forward's log-sum-exp";
  let description = [{
    `P[r, c] = exp2(scale * S[r, c] - log2(e) * LSE[q])` with `q = r`, or
    `q = c` when `transposed` (the tile's columns are the queries). `S` is
    the raw, masked score (or the capped one, with `scale = log2(e)`);
    `scale` is the attention scale times log2(e), as for
    `fa.online_softmax`. A query with `LSE = -inf` (it saw no key, or a
    padding row) gets `P = 0`. The definition is `probFromLseLog2` in
    `AttentionMath.h`.

    ```mlir
    %p = fa.probs_from_lse %s, %lse scale(%c) : tensor<64x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$lse,
                       F32:$scale, UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$probs);
  let assemblyFormat = [{
    $scores `,` $lse `scale` `(` $scale `)` attr-dict `:` type($scores) `,`
    type($lse)
  }];
  let hasVerifier = 1;
}

def FA_ScoreGradOp : FA_TileOp<"score_grad",
    [AllTypesMatch<["probs", "grad_probs", "grad_scores"]>,
     AttrSizedOperandSegments]> {
  let summary = "dS = scale * P * (dP - D), the gradient of the raw scores";
  let description = [{
    `dS[r, c] = scale * P[r, c] * (dP[r, c] - D[q])`, `q = r` (or `c` when
    `transposed`), with `D = rowsum(dO * O)` from the preprocessing and
    `scale` the attention scale, so that `dQ = dS K` and `dK = dS^T Q` need
    no scaling afterwards. With a soft cap, `capped` is the capped score the
    softmax saw and the gradient takes the cap's derivative
    `1 - (capped / cap)^2` (0 for a hidden score). Definitions: `scoreGrad`
    and `softcapGrad` in `AttentionMath.h`.

    ```mlir
    %ds = fa.score_grad %p, %dp, %d scale(%s) : tensor<64x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$probs, AnyRankedTensor:$grad_probs,
                       AnyRankedTensor:$row_dot, F32:$scale,
                       Optional<AnyRankedTensor>:$capped, Optional<F32>:$cap,
                       UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$grad_scores);
  let assemblyFormat = [{
    $probs `,` $grad_probs `,` $row_dot `scale` `(` $scale `)`
    (`softcap` `(` $capped^ `,` $cap `)`)? attr-dict `:` type($probs) `,`
    type($row_dot) (`,` type($capped)^)?
  }];
  let hasVerifier = 1;
}

def FA_RowDotOp : FA_TileOp<"row_dot"> {
  let summary = "D = rowsum(dO * O) for one tile of rows";
  let description = [{
    `D[r] = sum_e dO[r, e] * O[r, e]` in f32: FlashAttention-2's
    preprocessing of the backward, equal to `rowsum(P * dP)`. In the GPU
    form the result is held by warps (`#fa.warp_rows<rows>`) and the
    operands, slices of the kernel's arguments, carry no layout: each
    thread reads the elements of its accumulator-fragment positions.

    ```mlir
    %d = fa.row_dot %do, %o : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad_out, AnyRankedTensor:$out);
  let results = (outs AnyRankedTensor:$row_dot);
  let assemblyFormat = [{
    $grad_out `,` $out attr-dict `:` type($grad_out) `,` type($out) `->`
    type($row_dot)
  }];
  let hasVerifier = 1;
}

def FA_TransposeOp : FA_TileOp<"transpose"> {
  let summary = "the transpose of a tile";
  let description = [{
    `result[c, r] = source[r, c]`. The backward's atomic dQ form multiplies
    `dQ^T += K^T dS^T` in the dK/dV nest, whose K tile is stored key by key.
    With layouts the operand is a shared tile and the result the same shared
    memory read transposed (`#fa.block_shared<..., transposed = true>`): a
    view, no copy; on the CPU it is a `linalg.transpose`.

    ```mlir
    %kt = fa.transpose %k : tensor<64x128xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FA_AccumulateRowsOp : FA_Op<"accumulate_rows",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "add a tile into rows of an f32 buffer, atomically";
  let description = [{
    For `r < rows`: `buffer[batch, head, row_start + r, c] += tile[r, c]`
    for every column `c`, or with `transposed`, `+= tile[c, r]` (the tile's
    columns are the buffer's rows). Concurrent instances (iterations of a
    parallel loop nest, thread blocks on the GPU) may add into the same
    rows: each addition is atomic, their order is unspecified, so the sums
    are not bitwise reproducible.

    FlashAttention-2's dQ: every K/V block of the dK/dV nest adds its
    `dS K` into an f32 `[B, Hq, Nq, D]` workspace, which a last nest rounds
    to dQ. On the GPU one `red.global.add.f32` per element the thread holds
    (`#fa.warp_rows<acc>` tile); on the CPU a loop of `memref.atomic_rmw`.

    With `fragment_order` the buffer is private to this op and the
    `fa.read_rows` that reads it back, and the block of rows the tile
    covers (`rows` is the tile's row count, the tile spans the buffer's
    last dimension) holds the tile in the order of its fragments rather
    than row by row: with layouts, element `i` of thread `t`'s fragments
    (fragment by fragment, in the atom's element order) goes to position
    `i * T + t` of the block, `T` the threads of the block. The 32 lanes of
    a warp then add into 128 contiguous bytes (one L1 wavefront, where rows
    of the accumulator layout touch four to eight lines); only a reader
    with the same layout can make sense of the block (--fa-lower-to-gpu
    rejects a buffer used otherwise). Without layouts (the CPU) the order
    is the rows'.

    ```mlir
    fa.accumulate_rows %dqt into %ws[%b, %h, %q0] rows(%n) {transposed}
        : tensor<64x16xf32>, memref<?x4x?x64xf32>
    fa.accumulate_rows %dq into %ws[%b, %h, %q0] rows(%c64) {fragment_order}
        : tensor<64x128xf32, #acc>, memref<?x4x?x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile, AnyMemRef:$buffer,
                       Index:$batch, Index:$head, Index:$row_start,
                       Index:$rows, UnitAttr:$transposed,
                       UnitAttr:$fragment_order);
  let assemblyFormat = [{
    $tile `into` $buffer `[` $batch `,` $head `,` $row_start `]`
    `rows` `(` $rows `)` attr-dict `:` type($tile) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def FA_ReadRowsOp : FA_TileOp<"read_rows"> {
  let summary = "rows of an f32 buffer that fa.accumulate_rows added into, "
                "as a tile";
  let description = [{
    `tile[r, c] = r < rows ? sums[batch, head, row_start + r, c] : 0`: the
    reading side of `fa.accumulate_rows` (the atomic dQ's rounding nest
    reads the sums through it). With `fragment_order` the block was written
    in the order of the writer's fragments (see `fa.accumulate_rows`): the
    tile must then have the writer's type, layout included, and be whole
    (`rows` its row count); thread `t` reads its element `i` at position
    `i * T + t` of the block, coalesced.

    ```mlir
    %t = fa.read_rows %sums[%b, %h, %q0] rows(%n)
        : tensor<?x4x?x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$sums, Index:$batch, Index:$head,
                       Index:$row_start, Index:$rows,
                       UnitAttr:$fragment_order);
  let results = (outs AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $sums `[` $batch `,` $head `,` $row_start `]` `rows` `(` $rows `)`
    attr-dict `:` type($sums) `->` type($tile)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Split-KV (flash-decoding)
//===----------------------------------------------------------------------===//

def FA_CombineSplitsOp : FA_Op<"combine_splits", [Pure]> {
  let summary = "merge the partial results of S splits of the keys by their LSE";
  let description = [{
    `--fa-split-kv` runs the K/V loop of each Q block in `S` chunks, each
    ending in its own `fa.finalize`: split `s` gives a normalised partial
    output `O_s` (f32) and its log-sum-exp `LSE_s` over its keys only. This
    op merges them into the result over all keys, for every
    `(b, h, q)` row:

    ```
    M    = max_s LSE_s               (base = M, or 0 when M = -inf)
    w_s  = exp(LSE_s - base)         W = sum_s w_s
    O    = W == 0 ? 0 : (sum_s w_s O_s) * (1 / W)   (in O's element type)
    LSE  = W == 0 ? -inf : base + log W
    ```

    A split that saw no key (`LSE_s = -inf`, `O_s = 0`) has weight 0; a row
    no split saw keeps `O = 0`, `LSE = -inf`, as `fa.finalize` gives it.
    The arithmetic is defined once in `AttentionMath.h` ("Combining
    splits"). Operands are `[S, B, H, Nq, Dv]` and `[S, B, H, Nq]` in f32;
    results `[B, H, Nq, Dv]` (f16, bf16 or f32) and `[B, H, Nq]` f32.

    Tile form (`--fa-tile-combine`): the same merge for one tile of `R`
    rows, `[S, R, Dv]`, `[S, R]` -> `[R, Dv]`, `[R]`, inside a loop nest
    over the rows. Its results may be held by warps (`#fa.warp_rows` in the
    `acc` and `rows` roles of one atom), which says how the GPU lowering
    spreads the rows and columns over the threads; the partial results
    carry no layout (each thread reads the elements it holds).

    ```mlir
    %o, %lse = fa.combine_splits %partial_o, %partial_lse
        : tensor<4x?x32x1x128xf32>, tensor<4x?x32x1xf32>
          -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$partial_out,
                       AnyRankedTensor:$partial_lse);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $partial_out `,` $partial_lse attr-dict `:` type($partial_out) `,`
    type($partial_lse) `->` type($out) `,` type($lse)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layout and memory ops (stage L3)
//===----------------------------------------------------------------------===//

def FA_ConvertLayoutOp : FA_TileOp<"convert_layout"> {
  let summary = "the same tile in another layout";
  let description = [{
    Returns its operand unchanged in value, held in the layout of the result
    type. `--fa-map-warps` uses it where the atom moves a tile between
    homes: a Q tile from shared memory into A-operand registers (once, before
    the K/V loop), and P from accumulator fragments to A-operand fragments
    (free for `#fa.mma_sync`: the same registers). The GPU lowering rejects
    conversions the atom cannot do.

    ```mlir
    %pa = fa.convert_layout %p
        : tensor<128x64xf16, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>
          -> tensor<128x64xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FA_WarpRowRangeOp : FA_TileOp<"warp_row_range"> {
  let summary = "the rows of a tile that the executing warp holds";
  let description = [{
    Returns `[first, first + count)`, the rows of `tile` held by the warp
    that executes the op: for `#fa.warp_rows<..., num_warps = W>` on a tile
    of `R` rows, warp `w` holds `first = w * R / W` and `count = R / W`.
    Without a `#fa.warp_rows` encoding the whole tile is one slice:
    `first = 0`, `count = R` (this is what the CPU lowering computes). Only
    the tile's type matters, not its value.

    `--fa-warp-block-skip` uses it to let a warp skip a K/V block that none
    of its rows sees; the result is uniform across a warp, so branching on it
    keeps the warp converged for the atom's collective instructions.

    ```mlir
    %first, %count = fa.warp_row_range %acc
        : tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>
    // warp 2: %first = 64, %count = 32
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile);
  let results = (outs Index:$first, Index:$count);
  let assemblyFormat = "$tile attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def FA_AsyncLoadOp : FA_Op<"async_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying tiles of [B, H, N, D] tensors into a slot";
  let description = [{
    For every source, rows `[row_start, row_start + rows)` of
    `source[batch, head, :, :]`, zero-padded to the tile's rows, start being
    copied into slot `slot` (of `num_slots`) of that source's ring of
    shared-memory tiles. The copies of one `fa.async_load` are one group:
    `fa.await` waits for all of them. With `if (%pred)` and `%pred` false,
    nothing is copied (the group is empty) and the future must not be
    awaited. With `along_heads` the rows are heads `[head, head + rows)` of
    `source[batch, :, row_start, :]` instead (a GQA-packed Q tile of one
    query position).

    `--fa-pipeline-kv` issues the K/V tiles of block `j + S - 1` while block
    `j` is being used (S = `num_slots`). On the GPU each source is one
    cooperative `cp.async` copy (16 bytes per thread and copy, zero-filled
    past `rows`) followed by `cp.async.commit_group`; on the CPU it is a
    plain load.

    `l2_prefetch(N)` (N = 64, 128 or 256) lets each copy ask L2 to fetch the
    N-byte block around it from DRAM (`cp.async...L2::128B`, PTX's
    prefetch-size qualifier, sm_75 and newer); without it only the sectors
    the copy names are fetched. It changes no value, only which bytes the
    memory system moves and when.

    `tma` copies each tile with the tensor memory accelerator instead
    (sm_90: `cp.async.bulk.tensor`, one per 64-column block of the tile,
    issued by one thread from a tensor map of the source the host makes):
    the tiles must be in a swizzled `#fa.wgmma` layout (what TMA's 128-byte
    swizzle writes), and the slot's completion is an `mbarrier` phase, so
    the `fa.await` of such a future names the phase (`phase(%p)`). The
    tile's rows past `rows` then hold the source's rows there, zeros only
    past the source's extent: where `rows` may end before the source does
    (a K/V cache, a packed sequence), the await zeroes them
    (`fa.await ... zero_from(%rows)`). On the CPU it is the same load as
    without. `issuer(T)` names the thread (x index) that issues a `tma`
    load and waits for its slot's release (thread 0 without it):
    `--fa-pingpong` gives the loop's loads to the warpgroup that takes the
    last turn at the matmuls, so that the waits for releases never hold
    back a warpgroup that runs ahead.

    `after_release(%p)` (`tma` loads into a ring of 2 slots or more): the
    slot is refilled only once every warp has released its previous fill
    (`fa.release`): the issuing thread first waits for phase `%p` (0 or 1,
    an index) of the slot's release `mbarrier`, the parity of the fill
    before, so 1 for a slot's first fill, which passes at once. The
    futures of such a ring are released instead of awaited behind a
    barrier (`fa.await`, `fa.release`).

    ```mlir
    %f = fa.async_load %k, %v [%b, %kvh, %k0] rows(%n) slot(%s) of 2 if (%in)
        : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
          -> !fa.future<tensor<64x64xf16, #shared>, tensor<64x64xf16, #shared>>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$sources, Index:$batch,
                       Index:$head, Index:$row_start, Index:$rows,
                       Index:$slot, I64Attr:$num_slots,
                       Optional<I1>:$pred, UnitAttr:$along_heads,
                       OptionalAttr<I64Attr>:$l2_prefetch, UnitAttr:$tma,
                       Optional<Index>:$release_phase,
                       OptionalAttr<I64Attr>:$issuer);
  let results = (outs FA_FutureType:$future);
  let assemblyFormat = [{
    $sources `[` $batch `,` $head `,` $row_start `]` `rows` `(` $rows `)`
    `slot` `(` $slot `)` `of` $num_slots (`if` `(` $pred^ `)`)?
    (`l2_prefetch` `(` $l2_prefetch^ `)`)? (`tma` $tma^)?
    (`after_release` `(` $release_phase^ `)`)?
    (`issuer` `(` $issuer^ `)`)? attr-dict
    `:` type($sources) `->` qualified(type($future))
  }];
  let hasVerifier = 1;
}

def FA_AwaitOp : FA_Op<"await", [MemoryEffects<[MemRead, MemWrite]>, InferTypeOpAdaptor,
                                  AttrSizedOperandSegments]> {
  let summary = "wait until the tiles of a future have landed";
  let description = [{
    Returns the tiles of `future` once their copies have completed and are
    visible to every thread of the block. `pending` is the number of
    `fa.async_load` groups issued after this one that may stay in flight
    (`cp.async.wait_group pending`, then a barrier). The barrier also orders
    every read of the block's shared tiles before it ahead of the
    `fa.async_load`s after it, which is what lets a slot be reused.

    A future of `tma` loads completes on its slot's `mbarrier`: `phase(%p)`
    is the parity (0 or 1, an index) of the slot's fill being awaited, 0
    for the first fill of the slot in the thread block, then alternating
    (`mbarrier.try_wait.parity`); `pending` counts the `cp.async` groups of
    other loads as before (a `tma` load also closes one, empty). The CPU
    ignores the phase.

    When the future's loads wait for releases (`after_release`), the await
    is only the wait for the slot's phase, without the barrier: each
    thread sees the copies once the phase completes, and a slot is
    refilled only after every warp's `fa.release` of it, so warps need not
    meet at every block.

    `zero_from(%n)` (with `phase`: tma loads only): the tiles' rows from
    `%n` on are made zero after the copies land, before any thread reads
    them. A TMA box brings whole tiles from the tensor, and where the
    loaded rows end before the tensor does (a packed sequence's or a K/V
    cache's last block) the rows behind them are other data, which the
    mask hides from S but not from P V (0 x a non-finite V row is NaN);
    `%n` is the awaited block's row count (the load's `rows`), and the
    tiles are the same as a `cp.async` load's zero-filled ones. The CPU
    ignores it (its loads are already zero-padded).

    ```mlir
    %k, %v = fa.await %f pending(0) : !fa.future<tensor<64x64xf16, #shared>,
                                                  tensor<64x64xf16, #shared>>
    %k2, %v2 = fa.await %g pending(2) phase(%p) zero_from(%rows) : ...
    ```
  }];
  let arguments = (ins FA_FutureType:$future, I64Attr:$pending,
                       Optional<Index>:$phase, Optional<Index>:$zeroFrom);
  let results = (outs Variadic<AnyRankedTensor>:$tiles);
  let assemblyFormat = [{
    $future `pending` `(` $pending `)` (`phase` `(` $phase^ `)`)?
    (`zero_from` `(` $zeroFrom^ `)`)? attr-dict `:` qualified(type($future))
  }];
  let hasVerifier = 1;
}

def FA_ReleaseOp : FA_Op<"release", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the executing warp is done with a future's slot";
  let description = [{
    Every read of the tiles of `future` by the executing thread (and its
    warp) has completed, including asynchronous matmuls, which must have
    been waited for with `fa.mma_wait`: the slot may be refilled. With
    `if (%pred)` and `%pred` false it is a no-op. The future's ring must be
    one whose loads wait for the release (`fa.async_load ...
    after_release(%p)`); each warp releases each fill of a slot once,
    in the order of the fills.

    `--fa-pipeline-kv` places it at the end of the iteration after the
    last read: block j's slot at the end of iteration j, or of iteration
    j + 1 when the loop carries a tile to the next (the deferred P V of
    `--fa-pipeline-mma`). On the GPU lane 0 of each warp arrives on the
    slot's release `mbarrier` (expecting one arrival per warp) after the
    warp's lanes meet (`bar.warp.sync`); the load into the slot waits for
    that phase. On the CPU it is a no-op.

    ```mlir
    %k, %v = fa.await %f pending(0) phase(%p) : ...
    ... fa.mma_wait ... pending(0) ...
    fa.release %f : !fa.future<tensor<64x128xbf16, #shared_swz>,
                               tensor<64x128xbf16, #shared_swz>>
    ```
  }];
  let arguments = (ins FA_FutureType:$future, Optional<I1>:$pred);
  let assemblyFormat = [{
    $future (`if` `(` $pred^ `)`)? attr-dict `:` qualified(type($future))
  }];
  let hasVerifier = 1;
}

#endif // FA_OPS_TD
