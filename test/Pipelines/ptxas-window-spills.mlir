// REQUIRES: ptxas
// Window kernels with the pipeline's default tiles compile without spills
// for sm_80 and sm_90 (ptxas -v). These are the cases that spilled 4-32
// bytes before the atom's tile table gave window kernels their own tiles
// (MmaSyncAtom.cpp): 64-row Q blocks at d = 96, 32-key blocks at d = 128,
// the rescale after the exponentials at d = 192 (--fa-schedule-softmax,
// rescale=auto). The same head dims without a window: ptxas.mlir.

// DEFINE: %{sm80} = fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// DEFINE: %{sm90} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL/window(128, 32)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/window(128, 32)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal window(64, 0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL/causal window(64, 0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL/causal window(1024, 0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL/causal window(1024, 0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL/window(128, 32)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL/window(512, -1)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL/causal window(0, 0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/window(512, -1)/' %s | %{sm90}
// The tiles are visible in L1: 64 x 32 at d = 96, 128 x 32 at d = 128.
// RUN: sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL/window(128, 32)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true | FileCheck %s --check-prefix=L1-D96
// RUN: sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/window(128, 32)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true | FileCheck %s --check-prefix=L1-D128
// L1-D96-DAG: tensor<64x96xf16>
// L1-D96-DAG: tensor<32x96xf16>
// L1-D128-DAG: tensor<128x128xf16>
// L1-D128-DAG: tensor<32x128xf16>
// The rule is visible in the warp-mapped loop nest: at d = 192 with a
// window, fa.rescale follows
// fa.softmax_exp (8 warps, as the table says).
// RUN: sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL/window(128, 32)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true --fa-causal-block-skip --fa-map-warps=num-warps=0 --fa-schedule-softmax | FileCheck %s --check-prefix=L3
// L3: #fa.warp_rows<acc, num_warps = 8
// L3: fa.running_max
// L3-NEXT: fa.softmax_exp
// L3-NOT: fa.running_max
// L3: fa.rescale

// SM80: Compiling entry function 'attention_kernel' for 'sm_80'
// SM80: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM90: Compiling entry function 'attention_kernel' for 'sm_90'
// SM90: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @attention(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x4x?xHDxDTYPE>, %v: tensor<?x4x?xHDxDTYPE>,
                     %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) CAUSAL
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}
