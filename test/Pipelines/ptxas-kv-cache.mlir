// REQUIRES: ptxas
// K/V-cache kernels assemble with no spills for sm_80 and sm_90 (what the
// driver JIT compiles for on H100/H200), with the default tiles: paged
// (page sizes 16, 64, 256) and dense with per-sequence lengths, decode
// steps (one static query, GQA 32:8 packed; unsplit and split-KV, both
// kernels) and a dynamic Nq (prefill over a cache), head dims 64 and 128,
// causal or not. Known exception, not tested here: d = 192 prefill with
// 32-key pages, 8 bytes on sm_90 (docs/design.md, "Inference shapes").

// RUN: for hd in 64 128; do for chip in sm_80 sm_90; do for cache in "x16x8x" "x64x8x" "x256x8x" "dense"; do for nq in 1 "?"; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/NQ/$nq/g" %s | if [ "$cache" = dense ]; then \
// RUN:     sed -e 's/tensor<?xPAGESx/tensor<?x8x?x/g; s/ block_table([^)]*)//; s/, [^,]*: tensor<?x?xi32>//'; \
// RUN:   else sed -e "s/xPAGESx/$cache/g"; fi \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/cache_kernel.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done; done; done
// RUN: for hd in 64 128; do for chip in sm_80 sm_90; do for mask in causal ""; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/NQ/1/g; s/xPAGESx/x64x8x/g; s/) causal$/) $mask/" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip splits=8" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/cache_kernel.ptx -o /dev/null 2>&1 | FileCheck %s \
// RUN:   && %ptxas -arch=$chip -v %t/cache_kernel_1.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done; done

// CHECK: 0 bytes spill stores, 0 bytes spill loads

func.func @cache(%q: tensor<?x32xNQxHDxbf16>, %k: tensor<?xPAGESxHDxbf16>, %v: tensor<?xPAGESxHDxbf16>,
                 %n: tensor<?xi32>, %table: tensor<?x?xi32>, %o: tensor<?x32xNQxHDxbf16>, %l: tensor<?x32xNQxf32>) -> (tensor<?x32xNQxHDxbf16>, tensor<?x32xNQxf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x32xNQxHDxbf16>, tensor<?xPAGESxHDxbf16>, tensor<?xPAGESxHDxbf16>)
               key_lengths(%n : tensor<?xi32>) block_table(%table : tensor<?x?xi32>)
               outs(%o, %l : tensor<?x32xNQxHDxbf16>, tensor<?x32xNQxf32>) causal
               -> tensor<?x32xNQxHDxbf16>, tensor<?x32xNQxf32>
  return %r#0, %r#1 : tensor<?x32xNQxHDxbf16>, tensor<?x32xNQxf32>
}
