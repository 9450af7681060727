// REQUIRES: ptxas
// The sm_80 kernel assembles for the chips the pipeline accepts beyond
// sm_80/sm_90 (ptxas.mlir). With no spills: Hopper's sm_90a, and the 99 KB
// sm_86 at d = 128, whose default tiles are shrunk to fit its shared memory
// (128 x 32 instead of 128 x 64). Accepted by ptxas but not spill-free with
// ptxas 13 (docs/reliability.md, "Chips"): sm_86 at d = 192, sm_100 and
// sm_120 at d = 128 and 192, and sm_100 at d = 64 with swizzled K/V tiles;
// no GPU of those kinds has run them.

// DEFINE: %{chip} = sm_80
// DEFINE: %{compile} = fa-opt --fa-to-ptx="output-dir=%t chip=%{chip}" -o /dev/null && %ptxas -arch=%{chip} -v %t/attention_kernel.ptx -o /dev/null 2>&1
// NOSPILL: Compiling entry function 'attention_kernel' for '[[CHIP]]'
// NOSPILL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// ASSEMBLES: Compiling entry function 'attention_kernel' for '[[CHIP]]'
// ASSEMBLES: Used {{[0-9]+}} registers

// REDEFINE: %{chip} = sm_90a
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | %{compile} | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/256/g' %s | %{compile} | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// REDEFINE: %{chip} = sm_86
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | %{compile} | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/256/g' %s | %{compile} | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/192/g' %s | %{compile} | FileCheck %s --check-prefix=ASSEMBLES -DCHIP=%{chip}
// REDEFINE: %{chip} = sm_100
// (d = 64 with swizzled K/V, the default, spills 8 bytes for sm_100; with
// padded ones none.)
// RUN: rm -rf %t && sed -e 's/HD/64/g' %s | %{compile} | FileCheck %s --check-prefix=ASSEMBLES -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/64/g' %s | fa-opt --fa-to-ptx="output-dir=%t chip=%{chip} swizzle-shared=off" -o /dev/null && %ptxas -arch=%{chip} -v %t/attention_kernel.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | %{compile} | FileCheck %s --check-prefix=ASSEMBLES -DCHIP=%{chip}
// REDEFINE: %{chip} = sm_120
// RUN: rm -rf %t && sed -e 's/HD/256/g' %s | %{compile} | FileCheck %s --check-prefix=NOSPILL -DCHIP=%{chip}
// RUN: rm -rf %t && sed -e 's/HD/128/g' %s | %{compile} | FileCheck %s --check-prefix=ASSEMBLES -DCHIP=%{chip}

func.func @attention(%q: tensor<?x16x?xHDxbf16>, %k: tensor<?x4x?xHDxbf16>, %v: tensor<?x4x?xHDxbf16>,
                     %o: tensor<?x16x?xHDxbf16>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxbf16>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxbf16>, tensor<?x4x?xHDxbf16>, tensor<?x4x?xHDxbf16>)
                        outs(%o, %l : tensor<?x16x?xHDxbf16>, tensor<?x16x?xf32>) causal
                        -> tensor<?x16x?xHDxbf16>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxbf16>, tensor<?x16x?xf32>
}
