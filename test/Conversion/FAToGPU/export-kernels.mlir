// fa-export-kernels writes, for each launch with a launch plan, the PTX of
// its gpu.binary and the plan as JSON (ExportKernels.cpp).

// It needs the PTX of gpu-module-to-binary{format=isa}; before it, or with
// another format, it says so.
// RUN: not fa-opt %s -split-input-file --fa-tile-q-outer --fa-map-warps --fa-lower-to-gpu --fa-export-kernels="output-dir=%t" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-BINARY
// NO-BINARY: error: fa-export-kernels: no gpu.binary for "attention_kernel_module"; run gpu-module-to-binary{format=isa} first

// RUN: rm -rf %t && not fa-opt %s -split-input-file --pass-pipeline="builtin.module(fa-tile-q-outer,fa-map-warps,fa-lower-to-gpu,nvvm-attach-target{chip=sm_80},gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,fa-lower-gpu-math,fa-convert-nvgpu-to-nvvm{index-bitwidth=32},convert-gpu-to-nvvm{index-bitwidth=32},convert-vector-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=llvm},fa-export-kernels{output-dir=%t})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOT-PTX
// NOT-PTX: error: fa-export-kernels: the binary of "attention_kernel_module" is not PTX; use gpu-module-to-binary{format=isa}

// A hand-written L4 launch (second split): the PTX file is the binary's
// assembly, byte for byte; the JSON file is the plan, with the values JSON
// cannot hold as strings (inf, -inf, nan, integers wider than 64 bits) and
// a unit value as null.
// RUN: rm -rf %t && fa-opt %s -split-input-file --fa-export-kernels="output-dir=%t/out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/out/k.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/out/k.json
// RUN: %python -c "import json, sys; json.load(open(sys.argv[1]))" %t/out/k.json
// PTX:      .version 8.0
// PTX-NEXT: .target sm_80
// PTX-NEXT: // the kernel
// JSON: "name": "a",
// JSON-NEXT: "value": "inf"
// JSON: "name": "b",
// JSON-NEXT: "value": "-inf"
// JSON: "name": "c",
// JSON-NEXT: "value": "nan"
// JSON: "name": "d",
// JSON-NEXT: "value": "170141183460469231731687303715884105727"
// JSON: "name": "e",
// JSON-NEXT: "value": null

//     File names must stay inside output-dir: a plan or kernel name that is
//     not a PTX identifier is refused.
// RUN: sed -e 's/name = "k", chip/name = "..\/evil", chip/' %s | not fa-opt -split-input-file --fa-export-kernels="output-dir=%t/bad" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLAN-NAME
// PLAN-NAME: error: fa-export-kernels: the launch plan's name is not a PTX identifier
// RUN: sed -e 's/@k_module::@k /@k_module::@"k.x" /' %s | not fa-opt -split-input-file --fa-export-kernels="output-dir=%t/bad" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KERNEL-NAME
// KERNEL-NAME: error: fa-export-kernels: kernel name 'k.x' is not a PTX identifier
// RUN: touch %t/file && not fa-opt %s -split-input-file --fa-export-kernels="output-dir=%t/file/sub" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIR
// DIR: error: fa-export-kernels: cannot create directory {{.*}}file/sub

func.func @attention(%q: tensor<1x2x?x64xf16>, %o: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  %0 = fa.attention ins(%q, %q, %q : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>)
                    outs(%o : tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16>
  return %0 : tensor<1x2x?x64xf16>
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @k_module [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = ".version 8.0\0A.target sm_80\0A// the kernel\0A">]
  func.func @launch(%s: f32) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : i32
    gpu.launch_func @k_module::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c0 args(%s : f32)
        {fa.launch_plan = {format = "fa-mlir-launch-plan", version = 1 : i64, name = "k", chip = "sm_80", index_bitwidth = 32 : i64,
          tensors = [],
          scalars = [{name = "a", dtype = "f32", value = 0x7F800000 : f32}, {name = "b", dtype = "f32", value = 0xFF800000 : f32},
                     {name = "c", dtype = "f32", value = 0x7FC00000 : f32},
                     {name = "d", dtype = "i128", value = 170141183460469231731687303715884105727 : i128},
                     {name = "e", dtype = "f32", value}],
          workspaces = [],
          kernels = [{name = "k", ptx = "k.ptx", grid = [1, 1, 1], block = [1, 1, 1], dynamic_shared_memory = 0 : i64, params = ["a"]}]}}
    return
  }
}
