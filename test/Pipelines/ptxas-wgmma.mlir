// REQUIRES: ptxas
// The #fa.wgmma kernels (--fa-to-ptx chip=sm_90a atom=wgmma) with the
// atom's default tiles assemble for sm_90a without spills: head dims 64 and
// 128, f16 and bf16, causal or not, a window and a soft cap, and the other
// head dims of the table; with the P V of each block deferred by
// --fa-pipeline-mma, ptxas keeps the wgmma pipeline (no warning that it
// serializes the MMAs). docs/performance.md, "A first sm_90a atom", has
// their speed on the H200.

// DEFINE: %{sm90a} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma" -o /dev/null && %ptxas -arch=sm_90a -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning --implicit-check-not=serialized

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal window(256, 0) softcap(30.0)/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/window(100, 50)/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/32/g; s/CAUSAL/causal/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL/causal/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/192/g; s/CAUSAL/causal/' %s | %{sm90a}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/256/g; s/CAUSAL//' %s | %{sm90a}

// With the K/V tiles in wgmma's 128-byte-swizzled layout (swizzle-shared=on):
// also spill-free, at head dims 64 and 128, causal or not, f16 and bf16.
// DEFINE: %{sm90a-swz} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a atom=wgmma swizzle-shared=on" -o /dev/null && %ptxas -arch=sm_90a -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning --implicit-check-not=serialized
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm90a-swz}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm90a-swz}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm90a-swz}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm90a-swz}

// With the warpgroups' turns (pingpong=on, release=mbarrier): spill-free
// at head dims 64 and 128, causal or not, f16 and bf16.
// DEFINE: %{sm90a-pp} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90a pingpong=on release=mbarrier" -o /dev/null && %ptxas -arch=sm_90a -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning --implicit-check-not=serialized
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm90a-pp}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm90a-pp}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm90a-pp}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm90a-pp}

// CHECK: Compiling entry function 'attention_kernel' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @attention(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x4x?xHDxDTYPE>, %v: tensor<?x4x?xHDxDTYPE>,
                     %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) CAUSAL
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}
