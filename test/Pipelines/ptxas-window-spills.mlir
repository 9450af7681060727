// REQUIRES: ptxas
// XFAIL: *
// KNOWN PROBLEM: with a sliding window (the three K/V loops of
// --fa-causal-block-skip), the kernels the pipeline picks by default for
// these head dims spill registers (ptxas -v, 2026-11-30):
//   d =  96, window(128, 32),        sm_80: 16 bytes spill stores
//   d = 128, window(128, 32),        sm_90:  8 bytes spill stores
//   d = 128, causal window(64, 0),   sm_90:  8 bytes spill stores
//   d = 192, causal window(64, 0),   sm_80: 20 bytes spill stores
// (f16 and bf16 alike; the same head dims without a window, and d = 128
// with causal window(256, 0), do not spill: ptxas.mlir.) This test checks
// for 0 spills and is expected to fail until the defaults (or the kernel)
// leave room for the window's bounds; lit reports it as XPASS once every
// line passes, and then XFAIL goes.

// DEFINE: %{sm80} = fa-opt --fa-to-ptx="output-dir=%t" -o /dev/null && %ptxas -arch=sm_80 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// DEFINE: %{sm90} = fa-opt --fa-to-ptx="output-dir=%t chip=sm_90" -o /dev/null && %ptxas -arch=sm_90 -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/96/g; s/CAUSAL/window(128, 32)/' %s | %{sm80}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/128/g; s/CAUSAL/window(128, 32)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/bf16/g; s/HD/128/g; s/CAUSAL/causal window(64, 0)/' %s | %{sm90}
// RUN: rm -rf %t && sed -e 's/DTYPE/f16/g; s/HD/192/g; s/CAUSAL/causal window(64, 0)/' %s | %{sm80}

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
