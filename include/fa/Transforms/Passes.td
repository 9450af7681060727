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

    The memref form is left alone: bufferize after this pass, not before.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // FA_TRANSFORMS_PASSES_TD
