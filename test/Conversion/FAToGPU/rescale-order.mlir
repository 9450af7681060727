// RUN: fa-opt %s --fa-tile-q-outer="block-m=128 block-n=64" --fa-causal-block-skip \
// RUN:   --fa-map-warps="num-warps=4" --fa-lower-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefix=D64
// RUN: sed 's/x64xf16/x128xf16/g' %s | fa-opt --fa-tile-q-outer="block-m=128 block-n=64" \
// RUN:   --fa-causal-block-skip --fa-map-warps="num-warps=4" --fa-lower-to-gpu \
// RUN:   --canonicalize --cse | FileCheck %s --check-prefix=D128

// Where the online softmax rescales the O accumulator depends on the
// registers the fragments take. With S and O in 128 registers a thread
// (D = 64, 128 x 64 tiles, 4 warps) the warp-uniform rescale branch comes
// right after the row maxes, so the exponentials and P V are one basic block
// that ptxas can interleave. With 192 (D = 128) it comes after the
// exponentials: rescaling first keeps more values live and spills
// (docs/performance.md has both measured).

// D64-LABEL: gpu.func @order_kernel
// D64: %[[SK:.*]] = scf.for
// D64: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// D64: %[[MOVED:.*]] = nvvm.vote.sync  any
// D64: scf.if %[[MOVED]] -> (vector<2x2xf32>
// D64: math.exp2
// D64-NOT: scf.if
// D64: nvgpu.mma.sync
// D64: scf.yield

// D128-LABEL: gpu.func @order_kernel
// D128: %[[SK:.*]] = scf.for
// D128: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// D128-NOT: nvvm.vote.sync
// D128: math.exp2
// D128: %[[MOVED:.*]] = nvvm.vote.sync  any
// D128: scf.if %[[MOVED]] -> (vector<2x2xf32>
// D128-NOT: math.exp2
// D128: nvgpu.mma.sync
// D128: scf.yield
func.func @order(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>,
                 %o: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16>
  return %0 : tensor<1x2x?x64xf16>
}
