// REQUIRES: ptxas
// The three backward kernels assemble with no spills for sm_80 and sm_90
// (what the driver JIT compiles for on H100/H200) at head dims 64 and 128,
// f16 and bf16, causal or not, GQA 8:2, in both dQ forms (the atomic
// one, dq=auto's at d = 64: D and zeroing, dK/dV adding into dq_accum,
// rounding; and the deterministic one, dq=auto's at d = 128 for sm_80, with
// swizzled Q/dO and K/V tiles: D, dK/dV, dQ; for chip=sm_90 dq=auto's at
// d = 128 is the atomic one on a [4, 2] warp grid, 128 keys x 64 queries,
// swizzled Q/dO); at 32 and 96 (the deterministic form);
// and with a window and a soft cap at d = 128. (Above 128 the dK/dV kernel's
// two [64, d] f32 accumulators leave too few registers: 20 bytes of spills
// at d = 160 on sm_80, 124-712 at 192 and 256; docs/backward.md.) The default tiles of --fa-tile-backward: 64 x 64,
// and 64 key rows x 32 query columns in the dK/dV nest above d = 64
// (with 64 columns the dK/dV kernel spills 16-76 bytes at d = 128).

// RUN: for hd in 64 128; do for chip in sm_80 sm_90; do for ty in f16 bf16; do for mask in causal ""; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/$ty/g; s/) causal ->/) $mask ->/" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null || exit 1; \
// RUN:   for k in bwd_kernel bwd_kernel_1 bwd_kernel_2; do \
// RUN:     %ptxas -arch=$chip -v %t/$k.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; done; \
// RUN: done; done; done; done
// RUN: for hd in 32 96; do for chip in sm_80 sm_90; do \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/bf16/g" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null || exit 1; \
// RUN:   for k in bwd_kernel bwd_kernel_1 bwd_kernel_2; do \
// RUN:     %ptxas -arch=$chip -v %t/$k.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; done; \
// RUN: done; done
// RUN: for hd in 64 128; do for chip in sm_80 sm_90; do for mask in causal ""; do \
// RUN:   dq=deterministic; [ $hd = 128 ] && dq=atomic; \
// RUN:   rm -rf %t && sed -e "s/HD/$hd/g; s/TY/f16/g; s/) causal ->/) $mask ->/" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip dq=$dq" -o /dev/null || exit 1; \
// RUN:   for k in bwd_kernel bwd_kernel_1 bwd_kernel_2; do \
// RUN:     %ptxas -arch=$chip -v %t/$k.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; done; \
// RUN: done; done; done
// RUN: for chip in sm_80 sm_90; do for attrs in "causal window(256, 0)" "softcap(30.0)"; do \
// RUN:   rm -rf %t && sed -e "s/HD/128/g; s/TY/bf16/g; s/) causal ->/) $attrs ->/" %s \
// RUN:     | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null || exit 1; \
// RUN:   for k in bwd_kernel bwd_kernel_1 bwd_kernel_2; do \
// RUN:     %ptxas -arch=$chip -v %t/$k.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; done; \
// RUN: done; done

// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: bytes spill stores

func.func @bwd(%q: tensor<?x8x?xHDxTY>, %k: tensor<?x2x?xHDxTY>, %v: tensor<?x2x?xHDxTY>,
               %o: tensor<?x8x?xHDxTY>, %do: tensor<?x8x?xHDxTY>, %lse: tensor<?x8x?xf32>,
               %dq0: tensor<?x8x?xHDxTY>, %dk0: tensor<?x2x?xHDxTY>, %dv0: tensor<?x2x?xHDxTY>)
    -> (tensor<?x8x?xHDxTY>, tensor<?x2x?xHDxTY>, tensor<?x2x?xHDxTY>) {
  %dq, %dk, %dv = fa.attention_backward
      ins(%q, %k, %v, %o, %do, %lse : tensor<?x8x?xHDxTY>, tensor<?x2x?xHDxTY>, tensor<?x2x?xHDxTY>,
                                       tensor<?x8x?xHDxTY>, tensor<?x8x?xHDxTY>, tensor<?x8x?xf32>)
      outs(%dq0, %dk0, %dv0 : tensor<?x8x?xHDxTY>, tensor<?x2x?xHDxTY>, tensor<?x2x?xHDxTY>) causal -> tensor<?x8x?xHDxTY>, tensor<?x2x?xHDxTY>, tensor<?x2x?xHDxTY>
  return %dq, %dk, %dv : tensor<?x8x?xHDxTY>, tensor<?x2x?xHDxTY>, tensor<?x2x?xHDxTY>
}
