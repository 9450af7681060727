// fa-export-kernels needs the PTX of gpu-module-to-binary{format=isa}; before
// it, or with another format, it says so.

// RUN: not fa-opt %s --fa-tile-q-outer --fa-map-warps --fa-lower-to-gpu --fa-export-kernels="output-dir=%t" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-BINARY
// NO-BINARY: error: fa-export-kernels: no gpu.binary for "attention_kernel_module"; run gpu-module-to-binary{format=isa} first

// RUN: rm -rf %t && not fa-opt %s --pass-pipeline="builtin.module(fa-tile-q-outer,fa-map-warps,fa-lower-to-gpu,nvvm-attach-target{chip=sm_80},gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,fa-lower-gpu-math,fa-convert-nvgpu-to-nvvm{index-bitwidth=32},convert-gpu-to-nvvm{index-bitwidth=32},convert-vector-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=llvm},fa-export-kernels{output-dir=%t})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-PTX
// NOT-PTX: error: fa-export-kernels: the binary of "attention_kernel_module" is not PTX; use gpu-module-to-binary{format=isa}

func.func @attention(%q: tensor<1x2x?x64xf16>, %o: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16>
  return %0 : tensor<1x2x?x64xf16>
}
