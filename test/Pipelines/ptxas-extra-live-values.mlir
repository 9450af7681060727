// REQUIRES: ptxas
// Kernels that keep values live beside their fragments (a window's left
// bound, a soft cap, per-sequence bounds read from memory: TileConfig in
// FA.h) compile without spills for sm_80 and sm_90 with the default tiles.
// Each combination below spilled 4-40 bytes before the early rescale
// counted those values against the atom's table (MmaSyncAtom.cpp), and
// before a soft cap at d = 96 took the window tiles
// (scripts/spill-sweep.py runs the whole matrix: every head dim, mask, op
// form, both element types). Three forms of the op per combination: dense,
// packed sequences, a paged K/V cache with per-sequence lengths.

// RUN: for combo in "32 bf16 causal softcap(30.0)" "64 bf16 window(128,32) -" \
// RUN:     "64 f16 causal,window(1024,0) softcap(30.0)" "96 bf16 causal softcap(30.0)" \
// RUN:     "96 f16 - softcap(30.0)" "128 bf16 window(512,-1) -" \
// RUN:     "128 f16 causal,window(1024,0) softcap(30.0)" "192 bf16 causal softcap(30.0)"; do \
// RUN:   set -- $combo; mask=$(echo "$3" | sed 's/^-$//; s/,w/ w/; s/,/, /g'); cap=$(echo "$4" | sed 's/^-$//'); \
// RUN:   for chip in sm_80 sm_90; do \
// RUN:     rm -rf %t && sed -e "s/HD/$1/g; s/DTYPE/$2/g; s/ MASK/ $mask $cap/" %s \
// RUN:       | fa-opt --fa-to-ptx="output-dir=%t chip=$chip" -o /dev/null || exit 1; \
// RUN:     for kernel in dense varlen paged; do \
// RUN:       %ptxas -arch=$chip -v %t/${kernel}_kernel.ptx -o /dev/null 2>&1 | FileCheck %s || exit 1; \
// RUN:     done; \
// RUN:   done; \
// RUN: done

// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// What the rules choose, visible in the IR: a soft cap at d = 96 takes the
// window tiles (64 x 32, L1) ...
// RUN: sed -e 's/HD/96/g; s/DTYPE/f16/g; s/ MASK/ softcap(30.0)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true | FileCheck %s --check-prefix=L1-D96
// L1-D96-LABEL: func.func @dense
// L1-D96-DAG: tensor<64x96xf16>
// L1-D96-DAG: tensor<32x96xf16>
// ... and keeps the early rescale there (one extra value), which packed
// sequences with the cap (two) do not; nor does a soft cap at d = 192 (L3).
// RUN: sed -e 's/HD/96/g; s/DTYPE/f16/g; s/ MASK/ softcap(30.0)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true --fa-causal-block-skip --fa-map-warps=num-warps=0 --fa-schedule-softmax | FileCheck %s --check-prefix=L3-D96
// L3-D96-LABEL: func.func @dense
// L3-D96: fa.running_max
// L3-D96-NEXT: fa.rescale
// L3-D96-NEXT: fa.softmax_exp
// L3-D96-LABEL: func.func @varlen
// L3-D96: fa.running_max
// L3-D96-NEXT: fa.softmax_exp
// L3-D96-LABEL: func.func @paged
// RUN: sed -e 's/HD/192/g; s/DTYPE/f16/g; s/ MASK/ softcap(30.0)/' %s | fa-opt --fa-tile-q-outer=auto-blocks=true --fa-causal-block-skip --fa-map-warps=num-warps=0 --fa-schedule-softmax | FileCheck %s --check-prefix=L3-D192
// L3-D192-LABEL: func.func @dense
// L3-D192: fa.running_max
// L3-D192-NEXT: fa.softmax_exp
// L3-D192-LABEL: func.func @varlen

func.func @dense(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x4x?xHDxDTYPE>, %v: tensor<?x4x?xHDxDTYPE>,
                 %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>, tensor<?x4x?xHDxDTYPE>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) MASK
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}

func.func @varlen(%q: tensor<1x16x?xHDxDTYPE>, %k: tensor<1x4x?xHDxDTYPE>, %v: tensor<1x4x?xHDxDTYPE>,
                  %cq: tensor<?xi32>, %ck: tensor<?xi32>,
                  %o: tensor<1x16x?xHDxDTYPE>, %l: tensor<1x16x?xf32>) -> (tensor<1x16x?xHDxDTYPE>, tensor<1x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x16x?xHDxDTYPE>, tensor<1x4x?xHDxDTYPE>, tensor<1x4x?xHDxDTYPE>)
                        cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)
                        outs(%o, %l : tensor<1x16x?xHDxDTYPE>, tensor<1x16x?xf32>) MASK
                        -> tensor<1x16x?xHDxDTYPE>, tensor<1x16x?xf32>
  return %0, %1 : tensor<1x16x?xHDxDTYPE>, tensor<1x16x?xf32>
}

func.func @paged(%q: tensor<?x16x?xHDxDTYPE>, %k: tensor<?x64x4xHDxDTYPE>, %v: tensor<?x64x4xHDxDTYPE>,
                 %n: tensor<?xi32>, %table: tensor<?x?xi32>,
                 %o: tensor<?x16x?xHDxDTYPE>, %l: tensor<?x16x?xf32>) -> (tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x16x?xHDxDTYPE>, tensor<?x64x4xHDxDTYPE>, tensor<?x64x4xHDxDTYPE>)
                        key_lengths(%n : tensor<?xi32>) block_table(%table : tensor<?x?xi32>)
                        outs(%o, %l : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>) MASK
                        -> tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?xHDxDTYPE>, tensor<?x16x?xf32>
}
