// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// fa.finalize on fragments (Patterns/Finalize.cpp), after the K/V loop:
// per row the full l (the quad's shares added: l is #partial_rows), 1 / l
// (0 for a row that saw no key), LSE = ln(2) * (m + log2 l) (-inf for such a
// row); per accumulator fragment one multiplication by the 1 / l of its rows
// and the conversion to the output element type. Hand-written L3: the
// softmax loop of lower-to-gpu-softmax.mlir, then fa.finalize and the stores.

// CHECK-LABEL: gpu.func @finalize_kernel
// CHECK-DAG: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
//     The loop carries m0, m1, l0, l1 and the two accumulator fragments.
// CHECK: %[[R:.*]]:6 = scf.for
// CHECK: scf.yield
// CHECK-NEXT: }
//     Row value 0.
// CHECK: %[[SH1:.*]], %{{.*}} = gpu.shuffle xor %[[R]]#2, %c1_i32, %c32_i32 : f32
// CHECK: %[[Q1:.*]] = arith.addf %[[R]]#2, %[[SH1]] : f32
// CHECK: %[[SH2:.*]], %{{.*}} = gpu.shuffle xor %[[Q1]], %c2_i32, %c32_i32 : f32
// CHECK: %[[L0:.*]] = arith.addf %[[Q1]], %[[SH2]] : f32
// CHECK: %[[EMPTY0:.*]] = arith.cmpf oeq, %[[L0]], %[[ZERO]] : f32
// CHECK: %[[DIV0:.*]] = arith.divf %[[ONE]], %[[L0]] : f32
// CHECK: %[[INV0:.*]] = arith.select %[[EMPTY0]], %[[ZERO]], %[[DIV0]] : f32
// CHECK: %[[LOG0:.*]] = math.log2 %[[L0]] : f32
// CHECK: %[[ML0:.*]] = arith.addf %[[R]]#0, %[[LOG0]] : f32
// CHECK: %[[LN0:.*]] = arith.mulf %[[ML0]], %[[LN2]] : f32
// CHECK: %[[LSE0:.*]] = arith.select %[[EMPTY0]], %[[NEGINF]], %[[LN0]] : f32
//     Row value 1.
// CHECK: gpu.shuffle xor %[[R]]#3, %c1_i32, %c32_i32 : f32
// CHECK: %[[SH3:.*]], %{{.*}} = gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: %[[L1:.*]] = arith.addf %{{.*}}, %[[SH3]] : f32
// CHECK: %[[EMPTY1:.*]] = arith.cmpf oeq, %[[L1]], %[[ZERO]] : f32
// CHECK: %[[INV1:.*]] = arith.select %[[EMPTY1]], %[[ZERO]], %{{.*}} : f32
// CHECK: %[[LOG1:.*]] = math.log2 %[[L1]] : f32
// CHECK: arith.addf %[[R]]#1, %[[LOG1]] : f32
// CHECK: %[[LSE1:.*]] = arith.select %[[EMPTY1]], %[[NEGINF]], %{{.*}} : f32
//     O = acc * (1 / l), elements [0, *] of row value 0, [1, *] of row value 1.
// CHECK: %[[INVF:.*]] = vector.from_elements %[[INV0]], %[[INV0]], %[[INV1]], %[[INV1]] : vector<2x2xf32>
// CHECK: %[[O0:.*]] = arith.mulf %[[R]]#4, %[[INVF]] : vector<2x2xf32>
// CHECK: %[[H0:.*]] = arith.truncf %[[O0]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[O1:.*]] = arith.mulf %[[R]]#5, %[[INVF]] : vector<2x2xf32>
// CHECK: %[[H1:.*]] = arith.truncf %[[O1]] : vector<2x2xf32> to vector<2x2xf16>
//     What is stored: the fragments (through shared memory) and the LSE of
//     each row (lower-to-gpu-memory.mlir has the stores).
// CHECK: vector.extract %[[H0]][0] : vector<2xf16> from vector<2x2xf16>
// CHECK: vector.extract %[[H1]][0] : vector<2xf16> from vector<2x2xf16>
// CHECK: memref.store %[[LSE0]]
// CHECK: memref.store %[[LSE1]]
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @finalize(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %lse: tensor<1x1x?xf32>, %scale: f32) -> (tensor<1x1x?x16xf16>, tensor<1x1x?xf32>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r:2 = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o, %ll = %lse) -> (tensor<1x1x?x16xf16>, tensor<1x1x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse_t = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    %ls = tensor.extract_slice %lse_t[0] [%qn] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
      tensor.parallel_insert_slice %ls into %ll[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x1x?x16xf16>, tensor<1x1x?xf32>
}

// -----

// Without an LSE output the LSE is dead: no log2 at all.
// CHECK-LABEL: gpu.func @finalize_no_lse_kernel
// CHECK: %[[R:.*]]:6 = scf.for
// CHECK: arith.divf
// CHECK: arith.divf
// CHECK: arith.mulf %[[R]]#4
// CHECK: arith.mulf %[[R]]#5
// CHECK-NOT: math.log2
// CHECK-NOT: memref.store
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @finalize_no_lse(%q: tensor<1x1x?x16xf16>, %kv: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %scale: f32) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>) {
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
      %s = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
      %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// bf16 output, 64 rows on 2 warps: four row values, accumulator fragments
// 0-1 (first m-tile) scaled by rows 0 and 1, fragments 2-3 by rows 2 and 3.
// CHECK-LABEL: gpu.func @finalize_bf16_two_mtiles_kernel
// CHECK: %[[R:.*]]:12 = scf.for
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK: gpu.shuffle xor %[[R]]#4, %c1_i32
// CHECK: %[[INV0:.*]] = arith.select
// CHECK: gpu.shuffle xor %[[R]]#5, %c1_i32
// CHECK: %[[INV1:.*]] = arith.select
// CHECK: gpu.shuffle xor %[[R]]#6, %c1_i32
// CHECK: %[[INV2:.*]] = arith.select
// CHECK: gpu.shuffle xor %[[R]]#7, %c1_i32
// CHECK: %[[INV3:.*]] = arith.select
// CHECK: %[[F01:.*]] = vector.from_elements %[[INV0]], %[[INV0]], %[[INV1]], %[[INV1]] : vector<2x2xf32>
// CHECK: %[[O0:.*]] = arith.mulf %[[R]]#8, %[[F01]]
// CHECK: arith.truncf %[[O0]] : vector<2x2xf32> to vector<2x2xbf16>
// CHECK: %[[O1:.*]] = arith.mulf %[[R]]#9, %[[F01]]
// CHECK: %[[F23:.*]] = vector.from_elements %[[INV2]], %[[INV2]], %[[INV3]], %[[INV3]] : vector<2x2xf32>
// CHECK: %[[O2:.*]] = arith.mulf %[[R]]#10, %[[F23]]
// CHECK: arith.truncf %[[O2]] : vector<2x2xf32> to vector<2x2xbf16>
// CHECK: %[[O3:.*]] = arith.mulf %[[R]]#11, %[[F23]]
// CHECK-NOT: math.log2
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @finalize_bf16_two_mtiles(%q: tensor<1x1x?x16xbf16>, %kv: tensor<1x1x?x16xbf16>, %o: tensor<1x1x?x16xbf16>, %scale: f32) -> tensor<1x1x?x16xbf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xbf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xbf16>) {
    %zero = arith.constant 0.0 : bf16
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nk = tensor.dim %kv, %c2 : tensor<1x1x?x16xbf16>
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xbf16> to tensor<?x16xbf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x16xbf16> to tensor<64x16xbf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<64xf32, #partial>
    %a0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %st:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>) {
      %ks = tensor.extract_slice %kv[%b, %h, %k0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xbf16> to tensor<16x16xbf16>
      %kt = tensor.pad %ks low[0, 0] high[0, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<16x16xbf16> to tensor<16x16xbf16, #shared>
      %s = fa.qk %qt, %kt : tensor<64x16xbf16, #shared>, tensor<16x16xbf16, #shared> -> tensor<64x16xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
      %acc2 = fa.rescale %acc, %alpha : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial>
      %p16 = arith.truncf %p : tensor<64x16xf32, #acc> to tensor<64x16xbf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<64x16xbf16, #acc> -> tensor<64x16xbf16, #opA>
      %acc3 = fa.pv %pa, %kt, %acc2 : tensor<64x16xbf16, #opA>, tensor<16x16xbf16, #shared>, tensor<64x16xf32, #acc>
      scf.yield %m2, %l2, %acc3 : tensor<64xf32, #rows>, tensor<64xf32, #partial>, tensor<64x16xf32, #acc>
    }
    %out, %lse = fa.finalize %st#2, %st#0, %st#1 : tensor<64x16xf32, #acc>, tensor<64xf32, #rows>, tensor<64xf32, #partial> -> tensor<64x16xbf16, #acc>
    %os = tensor.extract_slice %out[0, 0] [%qn, 16] [1, 1] : tensor<64x16xbf16, #acc> to tensor<?x16xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xbf16> into tensor<1x1x?x16xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xbf16>
}
