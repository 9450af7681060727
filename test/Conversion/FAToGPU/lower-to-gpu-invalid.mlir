// Configurations the GPU kernel cannot run are compile-time errors that name
// the problem, never a kernel that fails at launch.

// RUN: sed -e 's/xf16/xf32/g' %s | not fa-opt --fa-tile-q-outer --fa-causal-block-skip --fa-map-warps --fa-lower-to-gpu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: error: fa-lower-to-gpu: element type 'f32' is not supported on the GPU: the tensor cores take f16 or bf16

// RUN: not fa-opt %s --fa-tile-q-outer --fa-causal-block-skip --fa-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=NO-WARPS
// NO-WARPS: error: fa-lower-to-gpu: the loop nest has no warp layout; run --fa-map-warps first

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=128 block-n=128" --fa-map-warps --fa-lower-to-gpu="chip=sm_86" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHARED
// SHARED: error: fa-lower-to-gpu: the Q, K and V tiles need 174080 bytes of shared memory, more than the 101376 a thread block may use on sm_86: choose smaller blocks

// RUN: not fa-opt %s --fa-tile-q-outer="block-m=128 block-n=128" --fa-map-warps --fa-lower-to-gpu="chip=sm_90" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REGISTERS
// REGISTERS: error: fa-lower-to-gpu: a thread would hold 256 registers of S and O fragments (block-m / num-warps = 32 rows of block-n = 128 scores and Dv = 128 outputs), more than the 192 that fit in 255 without spilling: use smaller blocks or more warps

// RUN: not fa-opt %s --fa-lower-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: fa-lower-to-gpu: option chip must be sm_80 or newer (the kernel uses cp.async and mma.sync.m16n8k16), got 'sm_75'

// RUN: not fa-opt %s --fa-lower-to-gpu="index-bitwidth=16" 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: fa-lower-to-gpu: option index-bitwidth must be 32 or 64, got 16

// RUN: not fa-opt %s --fa-lower-to-gpu="kv-stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: fa-lower-to-gpu: option kv-stages must be 2, 3 or 4, got 5

func.func @attention(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %o: tensor<?x8x?x128xf16>) -> tensor<?x8x?x128xf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>)
                    outs(%o : tensor<?x8x?x128xf16>) causal -> tensor<?x8x?x128xf16>
  return %0 : tensor<?x8x?x128xf16>
}
