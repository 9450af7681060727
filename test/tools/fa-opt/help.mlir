// `fa-opt --help` lists every fa- pass and pipeline with its one-line summary.
// RUN: fa-opt --help | FileCheck %s
// CHECK-DAG: --fa-causal-block-skip {{.*}}- Visit only the K/V blocks a Q block can see; mask only the blocks that need it
// CHECK-DAG: --fa-decompose-naive {{.*}}- Lower fa.attention to unfused linalg ops (the CPU oracle)
// CHECK-DAG: --fa-decompose-tiles {{.*}}- Lower the tile-level fa ops to linalg on tensors (CPU path)
// CHECK-DAG: --fa-lower-to-cpu {{.*}}- Lower fa IR to the LLVM dialect for the host
// CHECK-DAG: --fa-tile-q-outer {{.*}}- Tile fa.attention into FlashAttention-2's Q-outer loops with online-softmax state
// CHECK-DAG: --block-m=<long> {{.*}}- Rows of Q per block
// CHECK-DAG: --block-n=<long> {{.*}}- Rows of K/V per inner-loop step
