// `fa-opt --help` lists every fa- pass and pipeline with its one-line summary
// and typed options. A pass or pipeline that loses its registration or its
// summary fails here.
// RUN: fa-opt --help | FileCheck %s

// CHECK-LABEL: Passes:
// CHECK-DAG: --fa-causal-block-skip {{.*}}- Visit only the K/V blocks a Q block can see (causal, sliding window); mask only the blocks that need it
// CHECK-DAG: --fa-convert-nvgpu-to-nvvm {{.*}}- convert-nvgpu-to-nvvm with a chosen index bitwidth
// CHECK-DAG: --fa-decompose-naive {{.*}}- Lower fa.attention and fa.attention_backward to unfused linalg ops (the CPU oracle)
// CHECK-DAG: --fa-decompose-tiles {{.*}}- Lower the tile-level fa ops to linalg on tensors (CPU path)
// CHECK-DAG: --fa-export-kernels {{.*}}- Write each compiled kernel's PTX and launch record to files
// CHECK-DAG: --fa-extern-dynamic-shared {{.*}}- Declare dynamic shared memory as .extern .shared
// CHECK-DAG: --fa-lower-gpu-math {{.*}}- Lower the kernel's f32 math to PTX approximations
// CHECK-DAG: --fa-lower-to-gpu {{.*}}- Lower the warp-mapped loop nest (L3) to a GPU kernel, op by op (L4)
// CHECK-DAG: --fa-map-warps {{.*}}- Give each warp whole rows of the Q block
// CHECK-DAG: --fa-pipeline-kv {{.*}}- Load K/V blocks ahead into a ring of shared tiles (stage L3)
// CHECK-DAG: --fa-schedule-softmax {{.*}}- Split the online-softmax step and place the accumulator's rescale (stage L3)
// CHECK-DAG: --fa-tile-backward {{.*}}- Tile fa.attention_backward into the three loop nests of the GPU backward
// CHECK-DAG: --fa-tile-kv-outer {{.*}}- Tile fa.attention_backward into FlashAttention-2's K/V-outer backward loops (CPU)
// CHECK-DAG: --fa-tile-q-outer {{.*}}- Tile fa.attention into FlashAttention-2's Q-outer loops with online-softmax state
// CHECK-DAG: --block-m=<long> {{.*}}- Rows of Q per block
// CHECK-DAG: --block-n=<long> {{.*}}- Rows of K/V per inner-loop step
// CHECK-DAG: --num-warps=<long> {{.*}}- Warps per thread block
// CHECK-DAG: --stages=<long> {{.*}}- K/V blocks resident in shared memory
// CHECK-DAG: --rescale=<value> {{.*}}- Where the accumulator is rescaled

// CHECK-LABEL: Pass Pipelines:
// CHECK-DAG: --fa-lower-to-cpu {{.*}}- Lower fa IR to the LLVM dialect for the host
// CHECK-DAG: --fa-to-ptx {{.*}}- Compile fa.attention to PTX (L0 -> L5)
// CHECK-DAG: --chip=<string> {{.*}}- Target GPU, an NVPTX processor from sm_80 on
// CHECK-DAG: --features=<string> {{.*}}- PTX ISA version
// CHECK-DAG: --kv-stages=<long> {{.*}}- K/V blocks resident in shared memory
