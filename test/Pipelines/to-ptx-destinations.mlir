// RUN: rm -rf %t && fa-opt %s -split-input-file --fa-to-ptx="output-dir=%t" | FileCheck %s
// RUN: FileCheck %s --input-file=%t/aliasing_gradients_kernel.json --check-prefix=PLAN

// Where the kernel writes its output (the outliner, Outline.cpp,
// writableDestination): into the buffer of the op's destination tensor
// only where nothing else reads that tensor; anywhere else into a copy
// (bufferization.alloc_tensor ... copy), as one-shot bufferization would.
// Writing in place there would overwrite an input the kernel is still
// reading, a value returned beside the result, or another op's result.

// The destination is read by nothing else: written in place.
// CHECK-LABEL: func.func @in_place(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x64x64xf16>, %{{[^:]*}}: tensor<1x2x64x64xf16>, %{{[^:]*}}: tensor<1x2x64x64xf16>, %[[O:[^:]*]]: tensor<1x2x64x64xf16>)
// CHECK-NOT: alloc_tensor
// CHECK: %[[OB:.*]] = bufferization.to_buffer %[[O]]
// CHECK: gpu.launch_func
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OB]] restrict writable
// CHECK: return %[[R]]
func.func @in_place(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>,
                    %o: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                    outs(%o : tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16>
  return %r : tensor<1x2x64x64xf16>
}

// -----

// The destination is also the op's K: the kernel writes a copy, K's buffer
// stays as it was while other thread blocks read it.
// CHECK-LABEL: func.func @destination_is_k(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x64x64xf16>, %[[K:[^:]*]]: tensor<1x2x64x64xf16>, %[[V:[^:]*]]: tensor<1x2x64x64xf16>)
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[K]])
// CHECK: %[[KB:.*]] = bufferization.to_buffer %[[K]]
// CHECK: %[[CB:.*]] = bufferization.to_buffer %[[C]]
// CHECK: gpu.launch_func
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[CB]] restrict writable
// CHECK: return %[[R]]
func.func @destination_is_k(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>,
                            %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                    outs(%k : tensor<1x2x64x64xf16>) causal -> tensor<1x2x64x64xf16>
  return %r : tensor<1x2x64x64xf16>
}

// -----

// The destination is returned beside the result: it keeps its contents.
// CHECK-LABEL: func.func @destination_returned(
// CHECK-SAME: %[[O:[^:]*]]: tensor<1x2x64x64xf16>)
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[O]])
// CHECK: %[[CB:.*]] = bufferization.to_buffer %[[C]]
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[CB]] restrict writable
// CHECK: return %[[R]], %[[O]]
func.func @destination_returned(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>,
                                %o: tensor<1x2x64x64xf16>) -> (tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) {
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                    outs(%o : tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16>
  return %r, %o : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>
}

// -----

// Two ops share one destination: each result gets its own buffer.
// CHECK-LABEL: func.func @shared_destination(
// CHECK-SAME: %[[O:[^:]*]]: tensor<1x2x64x64xf16>)
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[O]])
// CHECK: %[[B1:.*]] = bufferization.to_buffer %[[C1]]
// CHECK: gpu.launch_func
// CHECK: %[[R1:.*]] = bufferization.to_tensor %[[B1]] restrict writable
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[O]])
// CHECK: %[[B2:.*]] = bufferization.to_buffer %[[C2]]
// CHECK: gpu.launch_func
// CHECK: %[[R2:.*]] = bufferization.to_tensor %[[B2]] restrict writable
// CHECK: return %[[R1]], %[[R2]]
func.func @shared_destination(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>,
                              %o: tensor<1x2x64x64xf16>) -> (tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) {
  %r1 = fa.attention ins(%q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                     outs(%o : tensor<1x2x64x64xf16>) causal -> tensor<1x2x64x64xf16>
  %r2 = fa.attention ins(%q, %v, %k : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                     outs(%o : tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16>
  return %r1, %r2 : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>
}

// -----

// A loop whose op reads the previous iteration's result as Q, with one
// destination from outside the loop: in place, the second iteration would
// write the buffer it reads Q from.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME: %[[O:[^:]*]]: tensor<1x2x64x64xf16>)
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}})
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[O]])
// CHECK: bufferization.to_buffer %[[A]]
// CHECK: %[[CB:.*]] = bufferization.to_buffer %[[C]]
// CHECK: gpu.launch_func
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[CB]] restrict writable
// CHECK: scf.yield %[[R]]
func.func @loop(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>,
                %o: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %q) -> tensor<1x2x64x64xf16> {
    %r = fa.attention ins(%a, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>)
                      outs(%o : tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16>
    scf.yield %r : tensor<1x2x64x64xf16>
  }
  return %x : tensor<1x2x64x64xf16>
}

// -----

// The backward's three kernels with every operand one tensor: each
// gradient is written into a copy of it, so the dQ kernel does not
// overwrite the query that the dK/dV kernel reads. The plan's outputs are
// three tensors of their own; the one input goes in once.
// CHECK-LABEL: func.func @aliasing_gradients(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x1x16x16xf16>
// CHECK: %[[DK:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: %[[DV:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: gpu.launch_func @aliasing_gradients_kernel_1_module::@aliasing_gradients_kernel_1
// CHECK: %[[DQ:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: gpu.launch_func @aliasing_gradients_kernel_2_module::@aliasing_gradients_kernel_2
// CHECK-NOT: alloc_tensor
// CHECK: return
// PLAN: "tensors": [
// PLAN: "name": "do",
// PLAN-NEXT: "output": false,
// PLAN: "name": "lse",
// PLAN-NEXT: "output": false,
// PLAN: "name": "dk",
// PLAN-NEXT: "output": true,
// PLAN: "name": "dv",
// PLAN-NEXT: "output": true,
// PLAN: "name": "dq",
// PLAN-NEXT: "output": true,
// PLAN: "workspaces"
func.func @aliasing_gradients(%x: tensor<1x1x16x16xf16>, %l: tensor<1x1x16xf32>)
    -> (tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>) {
  %0:3 = fa.attention_backward
      ins(%x, %x, %x, %x, %x, %l : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>,
                                   tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16xf32>)
      outs(%x, %x, %x : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>)
      -> tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
  return %0#0, %0#1, %0#2 : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>
}
