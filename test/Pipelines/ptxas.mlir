// REQUIRES: ptxas
// The PTX the pipeline picks for head dims 64 and 128, causal or not, f16 or
// bf16, assembles for sm_80 with no spills (ptxas -v).

// DEFINE: %{compile} = fa-opt --fa-to-ptx="output-dir=%t"
// DEFINE: %{assemble} = %ptxas -arch=sm_80 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL//' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL//' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{compile} -o /dev/null && %{assemble}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{compile} -o /dev/null && %{assemble}

// CHECK: Compiling entry function 'attention_kernel' for 'sm_80'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @attention(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x4x?xHDxDTYPE>, %v: tensor<?x4x?xHDxDTYPE>,
                     %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) CAUSAL
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}
