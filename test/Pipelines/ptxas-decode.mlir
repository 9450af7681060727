// REQUIRES: ptxas
// A decode step with the pipeline's defaults: one static query against a
// dynamic K/V cache, GQA 32:4, d = 128 and 64, bf16, causal. The Q block is
// 16 rows on one warp, in 4 key groups (a block of 128 threads in the launch
// record: warps along the keys of 128-key blocks), and the PTX
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

// GQA packing (pack-gqa=true): the 8 query heads of a group are the 8 rows
// of one 16-row Q block; the grid runs over (Q blocks of a group, key/value
// heads, batch) = (ceil(8 / 16), 4, B), and the Q tile is one fa.async_load
// along the heads. Every head dim, with and without a window: 0 spills.
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | fa-opt --fa-to-ptx="output-dir=%t pack-gqa=true" -o /dev/null && FileCheck %s --check-prefix=PACKED --input-file=%t/decode_kernel.json
// RUN: sed -e 's/HD/128/g' %s | fa-opt --fa-to-ptx="pack-gqa=true" --mlir-print-ir-before=fa-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=PACKED-L3
// RUN: for hd in 32 64 96 128 160 192 256; do for chip in sm_80 sm_90; do \
// RUN:   for win in "" "window(100, 0)"; do \
// RUN:     rm -rf %t && sed -e "s/HD/$hd/g; s/) causal/) causal $win/" %s \
// RUN:       | fa-opt --fa-to-ptx="output-dir=%t chip=$chip pack-gqa=true" -o /dev/null \
// RUN:     && %ptxas -arch=$chip -v %t/decode_kernel.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN: done; done; done
// PACKED: "grid": [
// PACKED-NEXT: {
// PACKED-NEXT: "args": [
// PACKED-NEXT: 8,
// PACKED-NEXT: 16
// PACKED-NEXT: ],
// PACKED-NEXT: "op": "ceildivui"
// PACKED-NEXT: },
// PACKED-NEXT: 4,
// PACKED-L3: scf.forall (%[[B:.*]], %[[KVH:.*]], %{{.*}}) in (%{{.*}}, 4, %{{.*}})
// PACKED-L3: fa.async_load %{{.*}}[%[[B]], %{{.*}}, %{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 1 l2_prefetch(128) {along_heads}
// PACKED-L3: fa.async_load %{{.*}}, %{{.*}}[%[[B]], %[[KVH]], %{{.*}}] rows
// PACKED-L3: fa.mask {{.*}} {single_query}
// WIDE: "block": [
// WIDE-NEXT: 256,

// PLAN: "block": [
// PLAN-NEXT: 128,
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
