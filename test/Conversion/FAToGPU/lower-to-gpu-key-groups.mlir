// RUN: fa-opt %s --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// Key groups on fragments: the L3 of test/Transforms/map-warps-key-groups.mlir
// (--fa-map-warps="num-warps=1 key-groups=4" --fa-schedule-softmax): a
// 16-row Q block (d = 64) on one warp in 4 groups that divide each 128-key
// block, 32 keys a group. The thread block has 128 threads, a thread's group
// is its warp; the shared memory is Q (16 x 144 B), K and V (128 x 144 B
// each) and the running max's exchange (4 groups x 2 row values x 32
// threads x 4 B) after them.
// CHECK: gpu.launch_func @decode_key_groups_kernel_module::@decode_key_groups_kernel
// CHECK-SAME: threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c40192_i32
// CHECK-LABEL: gpu.func @decode_key_groups_kernel
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK: %[[GROUP:.*]] = arith.divui %thread_id_x, %c32
// CHECK: scf.for
//     fa.qk: the group's 32 rows of K (32 x 144 B from the tile's start),
//     16 MMAs (4 k steps x 4 n-tiles) of its 16 x 32 scores.
// CHECK: %[[KEYS:.*]] = arith.muli %[[GROUP]], %c4608
// CHECK-COUNT-16: nvgpu.mma.sync
//     fa.mask: the group's columns start at 32 x group.
// CHECK: arith.muli %[[GROUP]], %c32
//     fa.running_max: each group's row maxima (2 a thread) meet in shared
//     memory after the rings (byte 39168), viewed from the thread's place;
//     every group takes the max of the 4 in group order.
// CHECK: %[[PLACE:.*]] = arith.muli %[[LANE]], %c4
// CHECK: %[[AT:.*]] = arith.addi %[[PLACE]], %c39168
// CHECK: %[[MAXES:.*]] = memref.view %{{.*}}[%[[AT]]][] : {{.*}} to memref<225xf32, #gpu.address_space<workgroup>>
// CHECK: %[[OWN:.*]] = arith.muli %[[GROUP]], %c64
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %[[MAXES]][%[[OWN]]]
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[G0:.*]] = memref.load %[[MAXES]][%c0]
// CHECK-NEXT: %[[G1:.*]] = memref.load %[[MAXES]][%c64]
// CHECK-NEXT: %[[M01:.*]] = arith.maxnumf %[[G0]], %[[G1]]
// CHECK-NEXT: %[[G2:.*]] = memref.load %[[MAXES]][%c128]
// CHECK-NEXT: %[[M012:.*]] = arith.maxnumf %[[M01]], %[[G2]]
// CHECK-NEXT: %[[G3:.*]] = memref.load %[[MAXES]][%c192]
// CHECK-NEXT: %[[ROWMAX:.*]] = arith.maxnumf %[[M012]], %[[G3]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=f,f" %[[ROWMAX]]
//     fa.pv: P's 32 columns of the group against its 32 rows of V (the same
//     offset), into the group's summand of the 16 x 64 accumulator: 2 k
//     steps x 8 n-tiles.
// CHECK-COUNT-16: nvgpu.mma.sync
// CHECK: scf.yield
//     fa.finalize: the 32 accumulator elements and 2 running sums of each
//     thread, added up over the groups through the staging space (byte 0),
//     in group order; then only group 0 stores.
// CHECK: %[[FPLACE:.*]] = arith.muli %[[LANE]], %c4
// CHECK-NEXT: %[[SUMS:.*]] = memref.view %{{.*}}[%[[FPLACE]]][] : {{.*}} to memref<4321xf32, #gpu.address_space<workgroup>>
// CHECK: arith.muli %[[GROUP]], %c1088
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-34: memref.store %{{.*}}, %[[SUMS]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-136: memref.load %[[SUMS]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[GROUP]], %c0
// CHECK-NEXT: scf.if %[[FIRST]]

#acc_w1x4 = #fa.warp_rows<acc, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#acc_w1x4_cols = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#acc_w1x4_sum = #fa.warp_rows<acc, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>
#opA_w1x4 = #fa.warp_rows<operand_a, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#opA_w1x4_cols = #fa.warp_rows<operand_a, num_warps = 1, replicas = 4, share = columns, atom = #fa.mma_sync>
#partial_w1x4_sum = #fa.warp_rows<partial_rows, num_warps = 1, replicas = 4, share = sum, atom = #fa.mma_sync>
#rows_w1x4 = #fa.warp_rows<rows, num_warps = 1, replicas = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
module {
  func.func @decode_key_groups(%arg0: tensor<?x2x?x64xf16>, %arg1: tensor<?x2x?x64xf16>, %arg2: tensor<?x2x?x64xf16>, %arg3: tensor<?x2x?x64xf16>) -> tensor<?x2x?x64xf16> {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.180336878 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x2x?x64xf16>
    %dim_1 = tensor.dim %arg0, %c2 : tensor<?x2x?x64xf16>
    %dim_2 = tensor.dim %arg1, %c2 : tensor<?x2x?x64xf16>
    %0 = arith.ceildivui %dim_1, %c16 : index
    %1 = arith.subi %dim_2, %dim_1 : index
    %2 = scf.forall (%arg4, %arg5, %arg6) in (%dim, 2, %0) shared_outs(%arg7 = %arg3) -> (tensor<?x2x?x64xf16>) {
      %3 = arith.muli %arg6, %c16 : index
      %4 = arith.subi %dim_1, %3 : index
      %5 = arith.minsi %c16, %4 : index
      %extracted_slice = tensor.extract_slice %arg0[%arg4, %arg5, %3, 0] [1, 1, %5, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %6 = arith.subi %c16, %5 : index
      %padded = tensor.pad %extracted_slice low[0, 0] high[%6, 0] {
      ^bb0(%arg8: index, %arg9: index):
        tensor.yield %cst : f16
      } : tensor<?x64xf16> to tensor<16x64xf16, #shared>
      %7 = fa.convert_layout %padded : tensor<16x64xf16, #shared> -> tensor<16x64xf16, #opA_w1x4>
      %cst_3 = arith.constant dense<0xFF800000> : tensor<16xf32, #rows_w1x4>
      %cst_4 = arith.constant dense<0.000000e+00> : tensor<16xf32, #partial_w1x4_sum>
      %cst_5 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #acc_w1x4_sum>
      %8:3 = scf.for %arg8 = %c0 to %dim_2 step %c128 iter_args(%arg9 = %cst_3, %arg10 = %cst_4, %arg11 = %cst_5) -> (tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum>, tensor<16x64xf32, #acc_w1x4_sum>) {
        %9 = arith.subi %dim_2, %arg8 : index
        %10 = arith.minsi %c128, %9 : index
        %11 = arith.subi %c128, %10 : index
        %extracted_slice_7 = tensor.extract_slice %arg1[%arg4, %arg5, %arg8, 0] [1, 1, %10, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
        %padded_8 = tensor.pad %extracted_slice_7 low[0, 0] high[%11, 0] {
        ^bb0(%arg12: index, %arg13: index):
          tensor.yield %cst : f16
        } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
        %extracted_slice_9 = tensor.extract_slice %arg2[%arg4, %arg5, %arg8, 0] [1, 1, %10, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
        %padded_10 = tensor.pad %extracted_slice_9 low[0, 0] high[%11, 0] {
        ^bb0(%arg12: index, %arg13: index):
          tensor.yield %cst : f16
        } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
        %12 = fa.qk %7, %padded_8 : tensor<16x64xf16, #opA_w1x4>, tensor<128x64xf16, #shared> -> tensor<16x128xf32, #acc_w1x4_cols>
        %13 = fa.mask %12[%3, %arg8] key_limit(%dim_2) : tensor<16x128xf32, #acc_w1x4_cols>
        %new_max, %alpha = fa.running_max %13, %arg9 scale(%cst_0) : tensor<16x128xf32, #acc_w1x4_cols>, tensor<16xf32, #rows_w1x4>
        %14 = fa.rescale %arg11, %alpha : tensor<16x64xf32, #acc_w1x4_sum>, tensor<16xf32, #rows_w1x4>
        %probs, %new_sum = fa.softmax_exp %13, %new_max, %alpha, %arg10 scale(%cst_0) : tensor<16x128xf32, #acc_w1x4_cols>, tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum>
        %15 = arith.truncf %probs : tensor<16x128xf32, #acc_w1x4_cols> to tensor<16x128xf16, #acc_w1x4_cols>
        %16 = fa.convert_layout %15 : tensor<16x128xf16, #acc_w1x4_cols> -> tensor<16x128xf16, #opA_w1x4_cols>
        %17 = fa.pv %16, %padded_10, %14 : tensor<16x128xf16, #opA_w1x4_cols>, tensor<128x64xf16, #shared>, tensor<16x64xf32, #acc_w1x4_sum>
        scf.yield %new_max, %new_sum, %17 : tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum>, tensor<16x64xf32, #acc_w1x4_sum>
      }
      %out, %lse = fa.finalize %8#2, %8#0, %8#1 : tensor<16x64xf32, #acc_w1x4_sum>, tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum> -> tensor<16x64xf16, #acc_w1x4>
      %extracted_slice_6 = tensor.extract_slice %out[0, 0] [%5, 64] [1, 1] : tensor<16x64xf16, #acc_w1x4> to tensor<?x64xf16>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %extracted_slice_6 into %arg7[%arg4, %arg5, %3, 0] [1, 1, %5, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
      }
    } {fa.key_groups = 4 : i64, mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    return %2 : tensor<?x2x?x64xf16>
  }
}

