// REQUIRES: ptxas
// The PTX the pipeline picks with its defaults (tiles, warps and stages from
// the #fa.mma_sync head-dim table: no block-m, block-n, num-warps or
// kv-stages given) assembles with no spills (ptxas -v) for sm_80 (compiled
// with the default chip) and for sm_90 (compiled with chip=sm_90, assembled
// with -arch=sm_90): head dims 64 and 128, causal or not, f16 or bf16.

// DEFINE: %{sm80} = fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// DEFINE: %{sm90} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && FileCheck %s --check-prefix=TARGET90 --input-file=%t/attention_kernel.ptx && %ptxas -arch=sm_90 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm80}

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal/' %s | %{sm90}

// The other head dims of the table (32, 96, 160, 192, 256): each chip gets
// one f16 and one bf16 kernel, one causal and one not, the other way round
// on the other chip, so that each (head dim, dtype, causal) is assembled
// once.
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/32/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/32/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/32/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/32/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/96/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/160/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/160/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/160/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/160/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/192/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/192/g; s/CAUSAL//' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/256/g; s/CAUSAL//' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/256/g; s/CAUSAL/causal/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/256/g; s/CAUSAL/causal/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/256/g; s/CAUSAL//' %s | %{sm90}

// Soft-capping (the tanh.approx.f32 per score) and sliding windows (three
// K/V loops) at d = 64 and 128, both chips. ptxas-window-spills.mlir lists
// the windows that do spill (a known problem).
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/softcap(30.0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/64/g; s/CAUSAL/causal softcap(50.0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal softcap(50.0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/softcap(30.0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/window(128, 32)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/64/g; s/CAUSAL/causal window(256, 0) softcap(20.0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal window(256, 0)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal window(256, 0)/' %s | %{sm90}

// SM80: Compiling entry function 'attention_kernel' for 'sm_80'
// SM80: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// TARGET90: .target sm_90
// SM90: Compiling entry function 'attention_kernel' for 'sm_90'
// SM90: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @attention(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x4x?xHDxDTYPE>, %v: tensor<?x4x?xHDxDTYPE>,
                     %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) CAUSAL
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}
