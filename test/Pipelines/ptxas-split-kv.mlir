// REQUIRES: ptxas
// Both kernels of split-KV (the attention kernel with f32 partial outputs,
// and the merge) assemble with no spills for sm_80 and sm_90 (what the
// driver JIT compiles for on H100/H200): decode steps (one static query,
// GQA 32:4, the group's heads packed) at every head dim of the table, f16
// and bf16, and a dynamic-Nq op at every head dim, causal or not (at
// d = 128 with the table's window K/V block, 32 keys: with 64, the chunk
// bounds push it to 8-32 bytes of spills; --fa-tile-q-outer for-split-kv).
// The kernels with a run-time count (splits=0) too, for decode steps.

// RUN: for hd in 32 64 96 128 160 192 256; do for chip in sm_80 sm_90; do for ty in f16 bf16; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/$ty/g; s/NQ/1/g" %s \
// RUN:     | fa-opt --fa-to-ptx="splits=8 output-dir=%t chip=$chip" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel.ptx -o /dev/null 2>&1 | FileCheck %s \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel_1.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done; done
// RUN: for hd in 32 64 96 128 160 192 256; do for chip in sm_80 sm_90; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/bf16/g; s/NQ/1/g" %s \
// RUN:     | fa-opt --fa-to-ptx="splits=0 output-dir=%t chip=$chip" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel.ptx -o /dev/null 2>&1 | FileCheck %s \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel_1.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done
// RUN: for hd in 32 64 96 128 160 192 256; do for chip in sm_80 sm_90; do for mask in causal ""; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/bf16/g; s/NQ/?/g; s/) causal$/) $mask/" %s \
// RUN:     | fa-opt --fa-to-ptx="splits=3 output-dir=%t chip=$chip" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel.ptx -o /dev/null 2>&1 | FileCheck %s \
// RUN:   && %ptxas -arch=$chip -v %t/split_kernel_1.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done; done

// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: bytes spill stores

func.func @split(%q: tensor<?x32xNQxHDxTY>, %k: tensor<?x4x?xHDxTY>, %v: tensor<?x4x?xHDxTY>,
                 %o: tensor<?x32xNQxHDxTY>, %lse: tensor<?x32xNQxf32>)
    -> (tensor<?x32xNQxHDxTY>, tensor<?x32xNQxf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<?x32xNQxHDxTY>, tensor<?x4x?xHDxTY>, tensor<?x4x?xHDxTY>)
                      outs(%o, %lse : tensor<?x32xNQxHDxTY>, tensor<?x32xNQxf32>) causal
                      -> tensor<?x32xNQxHDxTY>, tensor<?x32xNQxf32>
  return %r#0, %r#1 : tensor<?x32xNQxHDxTY>, tensor<?x32xNQxf32>
}
