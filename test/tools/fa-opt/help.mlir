// `fa-opt --help` lists every fa- pass and pipeline with its one-line summary.
// RUN: fa-opt --help | FileCheck %s
// CHECK-DAG: --fa-decompose-naive {{.*}}- Lower fa.attention to unfused linalg ops (the CPU oracle)
// CHECK-DAG: --fa-lower-to-cpu {{.*}}- Lower fa IR to the LLVM dialect for the host
