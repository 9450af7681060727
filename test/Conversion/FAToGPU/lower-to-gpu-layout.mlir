// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu | FileCheck %s --check-prefix=RAW

// Layout changes, elementwise casts and constants (Patterns/Layout.cpp) on
// #fa.mma_sync fragments.

// A 64 x 32 tile on 2 warps: 2 m-tiles per warp (rows 32 w, 32 w + 16)
// and 2 k steps of 16 columns.
//   * convert_layout shared -> operand_a: one ldmatrix.x4 per (m-tile, k
//     step), in that order; lanes 0-15 address rows 0-15 at column 0,
//     lanes 16-31 the same rows at column 8.
//   * arith.truncf of an acc tile: one truncf per fragment.
//   * convert_layout acc (16-bit) -> operand_a: the C fragments of n-tiles
//     2 kk and 2 kk + 1 are A fragment kk, joined by a vector.shuffle.
// CHECK-LABEL: gpu.func @layouts_kernel
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<2x2xf32>
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32 : index
// CHECK-DAG: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK-DAG: %[[L16:.*]] = arith.remui %[[LANE]], %c16 : index
// CHECK-DAG: %[[H16:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: %[[COL:.*]] = arith.muli %[[H16]], %c8 : index
// CHECK: %[[QV:.*]] = memref.subview %{{.*}}[%[[L16]], %[[COL]]] [49, 32] [1, 1] : memref<64x40xf16, #gpu.address_space<workgroup>> to memref<49x32xf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: %[[R0:.*]] = arith.muli %[[WARP]], %c32 : index
// CHECK: %[[A00:.*]] = nvgpu.ldmatrix %[[QV]][%[[R0]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[A01:.*]] = nvgpu.ldmatrix %[[QV]][%[[R0]], %c16] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %c16 : index
// CHECK: %[[A10:.*]] = nvgpu.ldmatrix %[[QV]][%[[R1]], %c0] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[A11:.*]] = nvgpu.ldmatrix %[[QV]][%[[R1]], %c16] {numTiles = 4 : i32, transpose = false}
//     S = Q K^T (32 keys): fragments mt * 4 + nt; the last k step's results.
// CHECK: nvgpu.mma.sync(%[[A00]],
// CHECK: %[[S00:.*]] = nvgpu.mma.sync(%[[A01]], %[[B0:[^,]*]], %{{.*}})
// CHECK: %[[S01:.*]] = nvgpu.mma.sync(%[[A01]], %[[B1:[^,]*]], %{{.*}})
// CHECK: %[[S10:.*]] = nvgpu.mma.sync(%[[A11]], %[[B0]], %{{.*}})
// CHECK: %[[S11:.*]] = nvgpu.mma.sync(%[[A11]], %[[B1]], %{{.*}})
// CHECK: %[[S02:.*]] = nvgpu.mma.sync(%[[A01]], %[[B2:[^,]*]], %{{.*}})
// CHECK: %[[S03:.*]] = nvgpu.mma.sync(%[[A01]], %[[B3:[^,]*]], %{{.*}})
// CHECK: %[[S12:.*]] = nvgpu.mma.sync(%[[A11]], %[[B2]], %{{.*}})
// CHECK: %[[S13:.*]] = nvgpu.mma.sync(%[[A11]], %[[B3]], %{{.*}})
//     truncf, fragment by fragment.
// CHECK: %[[H00:.*]] = arith.truncf %[[S00]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H01:.*]] = arith.truncf %[[S01]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H02:.*]] = arith.truncf %[[S02]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H03:.*]] = arith.truncf %[[S03]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H10:.*]] = arith.truncf %[[S10]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H11:.*]] = arith.truncf %[[S11]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H12:.*]] = arith.truncf %[[S12]] : vector<2x2xf32> to vector<2x2xf16>
// CHECK: %[[H13:.*]] = arith.truncf %[[S13]] : vector<2x2xf32> to vector<2x2xf16>
//     acc -> operand_a: no data movement, the same registers.
// CHECK: %[[P00:.*]] = vector.shuffle %[[H00]], %[[H01]] [0, 1, 2, 3] : vector<2x2xf16>, vector<2x2xf16>
// CHECK: %[[P01:.*]] = vector.shuffle %[[H02]], %[[H03]] [0, 1, 2, 3] : vector<2x2xf16>, vector<2x2xf16>
// CHECK: %[[P10:.*]] = vector.shuffle %[[H10]], %[[H11]] [0, 1, 2, 3] : vector<2x2xf16>, vector<2x2xf16>
// CHECK: %[[P11:.*]] = vector.shuffle %[[H12]], %[[H13]] [0, 1, 2, 3] : vector<2x2xf16>, vector<2x2xf16>
//     P V: k step 0 takes A fragments (m-tile, 0), k step 1 (m-tile, 1);
//     the accumulator starts from the splat constant, one vector per fragment.
// CHECK: nvgpu.mma.sync(%[[P00]], %{{.*}}, %[[HALF]])
// CHECK: nvgpu.mma.sync(%[[P00]], %{{.*}}, %[[HALF]])
// CHECK: nvgpu.mma.sync(%[[P10]], %{{.*}}, %[[HALF]])
// CHECK: nvgpu.mma.sync(%[[P10]], %{{.*}}, %[[HALF]])
// CHECK: nvgpu.ldmatrix {{.*}}[%c16, %c0] {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync(%[[P01]],
// CHECK: nvgpu.mma.sync(%[[P01]],
// CHECK: nvgpu.mma.sync(%[[P11]],
// CHECK: nvgpu.mma.sync(%[[P11]],
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @layouts(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<64x32xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<32x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<32x32xf16> to tensor<32x32xf16, #shared>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<32x16xf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %s = fa.qk %qa, %kt : tensor<64x32xf16, #opA>, tensor<32x32xf16, #shared> -> tensor<64x32xf32, #acc>
    %p16 = arith.truncf %s : tensor<64x32xf32, #acc> to tensor<64x32xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x32xf16, #acc> -> tensor<64x32xf16, #opA>
    %a0 = arith.constant dense<0.5> : tensor<64x16xf32, #acc>
    %acc = fa.pv %pa, %vt, %a0 : tensor<64x32xf16, #opA>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
    %o16 = arith.truncf %acc : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// Splat constants (before --canonicalize): a per-row vector is one scalar
// constant per row value the thread holds (4 for 64 rows on 2 warps), an acc
// tile one vector constant per fragment. (The truncf of the constant is
// folded by the conversion.)
// RAW-LABEL: gpu.func @splat_constants_kernel
// RAW: %[[M0:.*]] = arith.constant -1.500000e+00 : f32
// RAW: %[[M1:.*]] = arith.constant -1.500000e+00 : f32
// RAW: %[[M2:.*]] = arith.constant -1.500000e+00 : f32
// RAW: %[[M3:.*]] = arith.constant -1.500000e+00 : f32
// RAW-COUNT-4: arith.constant dense<2.500000e+00> : vector<2x2xf16>
// RAW-NOT: arith.truncf
// RAW: memref.store %[[M0]]
// RAW: memref.store %[[M1]]
// RAW: memref.store %[[M2]]
// RAW: memref.store %[[M3]]
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @splat_constants(%o: tensor<1x1x64x16xf16>, %m: tensor<1x1x64xf32>) -> (tensor<1x1x64x16xf16>, tensor<1x1x64xf32>) {
  %r:2 = scf.forall (%i) in (1) shared_outs(%oo = %o, %mo = %m) -> (tensor<1x1x64x16xf16>, tensor<1x1x64xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %mc = arith.constant dense<-1.5> : tensor<64xf32, #rows>
    %ac = arith.constant dense<2.5> : tensor<64x16xf32, #acc>
    %a16 = arith.truncf %ac : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %os = tensor.extract_slice %a16[0, 0] [%c64, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    %ms = tensor.extract_slice %mc[0] [%c64] [1] : tensor<64xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, %c0, 0] [1, 1, %c64, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x64x16xf16>
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c64] [1, 1, 1] : tensor<?xf32> into tensor<1x1x64xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x1x64x16xf16>, tensor<1x1x64xf32>
}

// -----

// fa.warp_row_range (--fa-warp-block-skip's condition): warp w of 2 holds
// rows [16 w, 16 w + 16) of a 32-row tile: first = (tid / 32) * 16, count =
// 16. A branch on it (warp-uniform) keeps the fragments as its results: the
// loop-carried tile stays two vector<2x2xf32> through the scf.if.
// CHECK-LABEL: gpu.func @warp_row_range_kernel
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c16 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: %[[ROW0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %[[ROW0]], %c16 : index
// CHECK: %[[SEES:.*]] = arith.cmpi sgt, %[[END]], %[[K0]] : index
// CHECK: %[[IF:.*]]:2 = scf.if %[[SEES]] -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK: arith.select
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[F0]], %[[F1]] : vector<2x2xf32>, vector<2x2xf32>
// CHECK: scf.yield %[[IF]]#0, %[[IF]]#1
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @warp_row_range(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nk step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %first, %count = fa.warp_row_range %si : tensor<32x16xf32, #acc>
      %row0 = arith.addi %first, %q0 : index
      %end = arith.addi %row0, %count : index
      %sees = arith.cmpi sgt, %end, %k0 : index
      %next = scf.if %sees -> (tensor<32x16xf32, #acc>) {
        %sm = fa.mask %si[%q0, %k0] causal_offset(%c0) : tensor<32x16xf32, #acc>
        scf.yield %sm : tensor<32x16xf32, #acc>
      } else {
        scf.yield %si : tensor<32x16xf32, #acc>
      }
      scf.yield %next : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}
