// RUN: fa-opt %s --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// The merge tile of lower-to-gpu-combine.mlir held by two groups of one warp
// (#fa.warp_rows replicas = 2): the kernel has 64 threads and 2560 bytes of
// shared memory (2 groups x 10 values x 32 threads x 4 bytes: the sums'
// exchange), the group of a thread is its warp (one warp per group). Group g
// walks splits g, g + 2 (of 4); the groups' largest LSEs (2 row values per
// thread) and then their weight sums and element sums (2 + 8) meet in shared
// memory, each group adding them up in group order; only group 0 writes the
// staging tile of the output rows (every thread then copies it out).

// CHECK: gpu.launch_func @merge_kernel_module::@merge_kernel
// CHECK-SAME: threads in (%c64, %c1, %c1) dynamic_shared_memory_size %c2560_i32
// CHECK-LABEL: gpu.func @merge_kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32
//     The largest LSEs of this group's splits.
//     The exchange is viewed from the thread's place (lane x 4 bytes), so
//     value k of group g is at the constant index (g x 2 + k) x 32; each
//     result is pinned (an inline-asm mov) where it is computed.
// CHECK: %[[MAX:.*]]:2 = scf.for %{{.*}} = %[[WARP]] to %c4 step %c4 iter_args
// CHECK: %[[PLACE:.*]] = arith.muli %[[LANE]], %c4
// CHECK-NEXT: %[[MAXES:.*]] = memref.view %{{.*}}[%[[PLACE]]][] : {{.*}} to memref<97xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[OWN:.*]] = arith.muli %[[WARP]], %c64
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %[[MAX]]#0, %[[MAXES]][%[[OWN]]]
// CHECK-NEXT: %[[OWN1:.*]] = arith.addi %[[OWN]], %c32
// CHECK-NEXT: memref.store %[[MAX]]#1, %[[MAXES]][%[[OWN1]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[G0:.*]] = memref.load %[[MAXES]][%c0]
// CHECK-NEXT: %[[G1:.*]] = memref.load %[[MAXES]][%c64]
// CHECK-NEXT: %[[GMAX:.*]] = arith.maxnumf %[[G0]], %[[G1]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=f,f" %[[GMAX]]
// CHECK-NEXT: memref.load %[[MAXES]][%c32]
// CHECK-NEXT: memref.load %[[MAXES]][%c96]
//     The sums of this group's splits with the bases of all splits.
// CHECK: %[[SUM:.*]]:10 = scf.for %{{.*}} = %[[WARP]] to %c4 step %c4 iter_args
// CHECK: %[[SUMS:.*]] = memref.view %{{.*}}[%[[PLACE]]][] : {{.*}} to memref<609xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-10: memref.store %[[SUM]]#{{[0-9]}}, %[[SUMS]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-20: memref.load %[[SUMS]]
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.view
// CHECK-NEXT: %[[GROUP_FIRST:.*]] = arith.cmpi eq, %[[WARP]], %c0
// CHECK-NEXT: scf.if %[[GROUP_FIRST]] {
// CHECK-COUNT-4: vector.store {{.*}}#gpu.address_space<workgroup>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier


#acc = #fa.warp_rows<acc, num_warps = 1, replicas = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, replicas = 2, atom = #fa.mma_sync>
func.func @merge(%wo: tensor<?x16x1x16xf32>, %wl: tensor<?x16x1xf32>)
    -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sb = tensor.dim %wo, %c0 : tensor<?x16x1x16xf32>
  %b = arith.divui %sb, %c4 : index
  %oi = tensor.empty(%b) : tensor<?x16x1x16xf16>
  %li = tensor.empty(%b) : tensor<?x16x1xf32>
  %r:2 = scf.forall (%bi, %hb, %qi) in (%b, 1, 1) shared_outs(%o = %oi, %l = %li)
      -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
    %h0 = arith.muli %hb, %c16 : index
    %left = arith.subi %c16, %h0 : index
    %n = arith.minsi %c16, %left : index
    %pad = arith.subi %c16, %n : index
    %pos = tensor.extract_slice %wo[%bi, %h0, %qi, 0] [4, %n, 1, 16] [%b, 1, 1, 1]
        : tensor<?x16x1x16xf32> to tensor<4x?x16xf32>
    %pot = tensor.pad %pos low[0, 0, 0] high[0, %pad, 0] {
    ^bb0(%i: index, %j: index, %k: index):
      tensor.yield %cst : f32
    } : tensor<4x?x16xf32> to tensor<4x16x16xf32>
    %pls = tensor.extract_slice %wl[%bi, %h0, %qi] [4, %n, 1] [%b, 1, 1]
        : tensor<?x16x1xf32> to tensor<4x?xf32>
    %plt = tensor.pad %pls low[0, 0] high[0, %pad] {
    ^bb0(%i: index, %j: index):
      tensor.yield %ninf : f32
    } : tensor<4x?xf32> to tensor<4x16xf32>
    %ot, %lt = fa.combine_splits %pot, %plt : tensor<4x16x16xf32>, tensor<4x16xf32>
        -> tensor<16x16xf16, #acc>, tensor<16xf32, #rows>
    %orows = tensor.extract_slice %ot[0, 0] [%n, 16] [1, 1] : tensor<16x16xf16, #acc> to tensor<?x16xf16>
    %lrows = tensor.extract_slice %lt[0] [%n] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %o[%bi, %h0, %qi, 0] [1, %n, 1, 16] [1, 1, 1, 1]
          : tensor<?x16xf16> into tensor<?x16x1x16xf16>
      tensor.parallel_insert_slice %lrows into %l[%bi, %h0, %qi] [1, %n, 1] [1, 1, 1]
          : tensor<?xf32> into tensor<?x16x1xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
  return %r#0, %r#1 : tensor<?x16x1x16xf16>, tensor<?x16x1xf32>
}

