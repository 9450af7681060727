// REQUIRES: ptxas
// A decode step with the pipeline's defaults: one static query against a
// dynamic K/V cache, GQA 32:4, d = 128 and 64, bf16, causal. The Q block is
// 16 rows on one warp (a block of 32 threads in the launch record), and the PTX
// assembles with no spills for sm_80 and sm_90.

// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PLAN --input-file=%t/decode_kernel.json && %ptxas -arch=sm_80 -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && sed -e 's/HD/64/g' %s | fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && sed -e 's/HD/64/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s

// Every other head dim of the table, with a sliding window too (its
// per-row bounds stay live): 0 spills on both chips. d = 160 and 192 keep
// their 128-row, 8-warp blocks (one warp would copy the K/V tiles alone and
// spill), the others get 16 rows.
// RUN: for hd in 32 96 160 192 256; do for chip in sm_80 sm_90; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/) causal/) causal window(100, 0)/" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null \
// RUN:   && %ptxas -arch=$chip -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done
// RUN: rm -rf %t && sed -e 's/HD/192/g' %s | fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=WIDE --input-file=%t/decode_kernel.json
// WIDE: "block": [
// WIDE-NEXT: 256,

// PLAN: "block": [
// PLAN-NEXT: 32,
// PLAN-NEXT: 1,
// PLAN-NEXT: 1
// PLAN-NEXT: ],
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: bytes spill

func.func @decode(%q: tensor<?x32x1xHDxbf16>, %k: tensor<?x4x?xHDxbf16>, %v: tensor<?x4x?xHDxbf16>,
                  %o: tensor<?x32x1xHDxbf16>, %l: tensor<?x32x1xf32>) -> (tensor<?x32x1xHDxbf16>, tensor<?x32x1xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x32x1xHDxbf16>, tensor<?x4x?xHDxbf16>, tensor<?x4x?xHDxbf16>)
                        outs(%o, %l : tensor<?x32x1xHDxbf16>, tensor<?x32x1xf32>) causal
                        -> tensor<?x32x1xHDxbf16>, tensor<?x32x1xf32>
  return %0, %1 : tensor<?x32x1xHDxbf16>, tensor<?x32x1xf32>
}
