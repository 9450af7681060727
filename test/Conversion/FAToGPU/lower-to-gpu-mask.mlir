// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// fa.mask on accumulator fragments (Patterns/Mask.cpp). Thread (warp w,
// lane = 4 g + t) holds, of a [32 x 16] tile on 2 warps, rows 16 w + g and
// 16 w + g + 8, columns 2 t + {0, 1} and 8 + 2 t + {0, 1} of the block. Per
// row it computes how many of the block's columns from its first one (col0
// + 2 t) the row sees, clamped to [0, 16], as i32; then per score one
// comparison with a constant column and a select of -inf. The scores come
// from a loop-carried tile (hand-written L3), the masked tile is stored.

// key_limit only: the limit does not depend on the row; one for all four
// scores of each column.
// CHECK-LABEL: gpu.func @key_limit_kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32 : index
// CHECK-DAG: %[[T:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK-DAG: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK: scf.for %[[K0:.*]] = %c0 to %[[NK]] step %c16 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK: %[[T2:.*]] = arith.muli %[[T]], %c2 : index
// CHECK: %[[COL0:.*]] = arith.addi %[[K0]], %[[T2]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[NK]], %[[COL0]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[LEFT]], %c0 : index
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %c16 : index
// CHECK: %[[LIM:.*]] = arith.index_cast %[[HI]] : index to i32
//     Fragment 0 (columns 0, 1 from col0), its two rows.
// CHECK: %[[H0:.*]] = arith.cmpi sle, %[[LIM]], %c0_i32 : i32
// CHECK: %[[E00:.*]] = vector.extract %[[F0]][0, 0]
// CHECK: %[[M00:.*]] = arith.select %[[H0]], %[[NEGINF]], %[[E00]] : f32
// CHECK: %[[H1:.*]] = arith.cmpi sle, %[[LIM]], %c1_i32 : i32
// CHECK: %[[E01:.*]] = vector.extract %[[F0]][0, 1]
// CHECK: %[[M01:.*]] = arith.select %[[H1]], %[[NEGINF]], %[[E01]] : f32
// CHECK: %[[E10:.*]] = vector.extract %[[F0]][1, 0]
// CHECK: %[[M10:.*]] = arith.select %[[H0]], %[[NEGINF]], %[[E10]] : f32
// CHECK: %[[E11:.*]] = vector.extract %[[F0]][1, 1]
// CHECK: %[[M11:.*]] = arith.select %[[H1]], %[[NEGINF]], %[[E11]] : f32
// CHECK: %[[R0:.*]] = vector.from_elements %[[M00]], %[[M01]], %[[M10]], %[[M11]] : vector<2x2xf32>
//     Fragment 1: columns 8, 9 from col0.
// CHECK: %[[H8:.*]] = arith.cmpi sle, %[[LIM]], %c8_i32 : i32
// CHECK: %[[E:.*]] = vector.extract %[[F1]][0, 0]
// CHECK: arith.select %[[H8]], %[[NEGINF]], %[[E]] : f32
// CHECK: %[[H9:.*]] = arith.cmpi sle, %[[LIM]], %c9_i32 : i32
// CHECK: %[[R1:.*]] = vector.from_elements
// CHECK: scf.yield %[[R0]], %[[R1]] : vector<2x2xf32>, vector<2x2xf32>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @key_limit(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
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
      %sm = fa.mask %si[%q0, %k0] key_limit(%nk) : tensor<32x16xf32, #acc>
      scf.yield %sm : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// causal_offset only: row i sees keys j <= i + offset; the limit is per
// row, from the warp's first row, the lane's group g and the Q block start.
// The offset (Nk - Nq) is computed in the kernel from the memref sizes.
// CHECK-LABEL: gpu.func @causal_kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32 : index
// CHECK-DAG: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK-DAG: %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK-DAG: %[[T:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK: %[[OFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[Q0:.*]] = arith.muli %[[BX]], %c32 : index
// CHECK: scf.for %[[K0:.*]] = %c0 to %[[NK]] step %c16 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}})
// CHECK: %[[T2:.*]] = arith.muli %[[T]], %c2 : index
// CHECK: %[[COL0:.*]] = arith.addi %[[K0]], %[[T2]] : index
//     Row value 0: row q0 + 16 w + g; it sees keys < row + offset + 1.
// CHECK: %[[W0:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: %[[WG:.*]] = arith.addi %[[W0]], %[[G]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %[[WG]] : index
// CHECK: %[[D:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[END:.*]] = arith.addi %[[D]], %c1 : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[END]], %[[COL0]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[LEFT]], %c0 : index
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %c16 : index
// CHECK: %[[LIM0:.*]] = arith.index_cast %[[HI]] : index to i32
// CHECK: %[[H:.*]] = arith.cmpi sle, %[[LIM0]], %c0_i32 : i32
// CHECK: %[[E:.*]] = vector.extract %[[F0]][0, 0]
// CHECK: arith.select %[[H]], %[[NEGINF]], %[[E]] : f32
//     Row value 1: 8 rows further, for elements [1, *] of each fragment.
// CHECK: %[[G8:.*]] = arith.addi %[[G]], %c8 : index
// CHECK: %[[WG8:.*]] = arith.addi %[[W0]], %[[G8]] : index
// CHECK: %[[ROW8:.*]] = arith.addi %[[Q0]], %[[WG8]] : index
// CHECK: %[[D8:.*]] = arith.addi %[[ROW8]], %[[OFF]] : index
// CHECK: %[[LIM1:.*]] = arith.index_cast
// CHECK: %[[H1:.*]] = arith.cmpi sle, %[[LIM1]], %c0_i32 : i32
// CHECK: %[[E1:.*]] = vector.extract %[[F0]][1, 0]
// CHECK: arith.select %[[H1]], %[[NEGINF]], %[[E1]] : f32
// CHECK: vector.from_elements
// CHECK: arith.cmpi sle, %[[LIM0]], %c8_i32 : i32
// CHECK: arith.cmpi sle, %[[LIM0]], %c9_i32 : i32
// CHECK: arith.cmpi sle, %[[LIM1]], %c8_i32 : i32
// CHECK: arith.cmpi sle, %[[LIM1]], %c9_i32 : i32
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @causal(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %off = arith.subi %nk, %nq : index
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nk step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %sm = fa.mask %si[%q0, %k0] causal_offset(%off) : tensor<32x16xf32, #acc>
      scf.yield %sm : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// Both (the last block of a causal loop): end = min(key_limit, row +
// offset + 1). 64 rows on 2 warps: two m-tiles per warp, four row values
// (32 w + g + {0, 8, 16, 24}); fragments 2 and 3 (second m-tile) use row
// values 2 and 3.
// CHECK-LABEL: gpu.func @both_kernel
// CHECK: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK: scf.for %{{.*}} = %c0 to %[[NK]] step %c16 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}}, %[[F2:.*]] = %{{.*}}, %[[F3:.*]] = %{{.*}})
// CHECK: %[[W0:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK: %[[WG:.*]] = arith.addi %[[W0]], %[[G:.*]] : index
// CHECK: %[[E0:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK: %[[END0:.*]] = arith.minsi %[[NK]], %[[E0]] : index
// CHECK: %[[LIM0:.*]] = arith.index_cast
// CHECK: %[[G8:.*]] = arith.addi %[[G]], %c8 : index
// CHECK: %[[E1:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK: arith.minsi %[[NK]], %[[E1]] : index
// CHECK: %[[LIM1:.*]] = arith.index_cast
// CHECK: %[[G16:.*]] = arith.addi %[[G]], %c16 : index
// CHECK: arith.addi %[[W0]], %[[G16]] : index
// CHECK: %[[LIM2:.*]] = arith.index_cast
// CHECK: %[[H:.*]] = arith.cmpi sle, %[[LIM2]], %c0_i32 : i32
// CHECK: %[[E:.*]] = vector.extract %[[F2]][0, 0]
// CHECK: arith.select %[[H]], %{{.*}}, %[[E]] : f32
// CHECK: %[[G24:.*]] = arith.addi %[[G]], %c24 : index
// CHECK: arith.addi %[[W0]], %[[G24]] : index
// CHECK: %[[LIM3:.*]] = arith.index_cast
// CHECK: %[[H3:.*]] = arith.cmpi sle, %[[LIM3]], %c0_i32 : i32
// CHECK: %[[E3:.*]] = vector.extract %[[F2]][1, 0]
// CHECK: arith.select %[[H3]], %{{.*}}, %[[E3]] : f32
// CHECK: arith.cmpi sle, %[[LIM2]], %c8_i32 : i32
// CHECK: vector.extract %[[F3]][0, 0]
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @both(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq0 = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %off = arith.subi %nk, %nq : index
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %s0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nk step %c16 iter_args(%si = %s0) -> (tensor<64x16xf32, #acc>) {
      %sm = fa.mask %si[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<64x16xf32, #acc>
      scf.yield %sm : tensor<64x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// A sliding window, causal_offset (Nk - Nq + 3) and window_offset (Nk - Nq
// - 7), no key limit: per row, besides the end bound (how many columns
// from col0 the row sees), the start bound from AttentionMath.h
// visibleKeysBegin: row + window_offset - col0, clamped to [0, 16] (how
// many columns from col0 it does not see yet). Per score, two i32
// compares, hidden iff end <= c or start > c, ORed into the select.
// CHECK-LABEL: gpu.func @window_kernel
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LANE:.*]] = arith.remui %thread_id_x, %c32 : index
// CHECK-DAG: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK-DAG: %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK-DAG: %[[T:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK: %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK: %[[OFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[COFF:.*]] = arith.addi %[[OFF]], %c3 : index
// CHECK: %[[WOFF:.*]] = arith.addi %[[OFF]], %c-7 : index
// CHECK: %[[Q0:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK: scf.for %[[K0:.*]] = %c0 to %[[NK]] step %c16 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}})
// CHECK: %[[T2:.*]] = arith.muli %[[T]], %c2 : index
// CHECK: %[[COL0:.*]] = arith.addi %[[K0]], %[[T2]] : index
// CHECK: %[[W0:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: %[[WG:.*]] = arith.addi %[[W0]], %[[G]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %[[WG]] : index
//     Row value 0: the start bound...
// CHECK: %[[B:.*]] = arith.addi %[[ROW]], %[[WOFF]] : index
// CHECK: %[[BLEFT:.*]] = arith.subi %[[B]], %[[COL0]] : index
// CHECK: %[[BLO:.*]] = arith.maxsi %[[BLEFT]], %c0 : index
// CHECK: %[[BHI:.*]] = arith.minsi %[[BLO]], %c16 : index
// CHECK: %[[START0:.*]] = arith.index_cast %[[BHI]] : index to i32
//     ... and the end bound.
// CHECK: %[[D:.*]] = arith.addi %[[ROW]], %[[COFF]] : index
// CHECK: %[[E:.*]] = arith.addi %[[D]], %c1 : index
// CHECK: %[[ELEFT:.*]] = arith.subi %[[E]], %[[COL0]] : index
// CHECK: %[[ELO:.*]] = arith.maxsi %[[ELEFT]], %c0 : index
// CHECK: %[[EHI:.*]] = arith.minsi %[[ELO]], %c16 : index
// CHECK: %[[END0:.*]] = arith.index_cast %[[EHI]] : index to i32
//     Element [0, 0] (column 0 from col0) and [0, 1] (column 1).
// CHECK: %[[AFTER0:.*]] = arith.cmpi sle, %[[END0]], %c0_i32 : i32
// CHECK: %[[BEFORE0:.*]] = arith.cmpi sgt, %[[START0]], %c0_i32 : i32
// CHECK: %[[H0:.*]] = arith.ori %[[AFTER0]], %[[BEFORE0]] : i1
// CHECK: %[[E00:.*]] = vector.extract %[[F0]][0, 0]
// CHECK: arith.select %[[H0]], %[[NEGINF]], %[[E00]] : f32
// CHECK: %[[AFTER1:.*]] = arith.cmpi sle, %[[END0]], %c1_i32 : i32
// CHECK: %[[BEFORE1:.*]] = arith.cmpi sgt, %[[START0]], %c1_i32 : i32
// CHECK: %[[H1:.*]] = arith.ori %[[AFTER1]], %[[BEFORE1]] : i1
// CHECK: %[[E01:.*]] = vector.extract %[[F0]][0, 1]
// CHECK: arith.select %[[H1]], %[[NEGINF]], %[[E01]] : f32
//     Row value 1 (8 rows further): its own two bounds, for elements [1, *].
// CHECK: %[[G8:.*]] = arith.addi %[[G]], %c8 : index
// CHECK: %[[WG8:.*]] = arith.addi %[[W0]], %[[G8]] : index
// CHECK: %[[ROW8:.*]] = arith.addi %[[Q0]], %[[WG8]] : index
// CHECK: arith.addi %[[ROW8]], %[[WOFF]] : index
// CHECK: %[[START1:.*]] = arith.index_cast
// CHECK: arith.addi %[[ROW8]], %[[COFF]] : index
// CHECK: %[[END1:.*]] = arith.index_cast
// CHECK: %[[AFTER2:.*]] = arith.cmpi sle, %[[END1]], %c0_i32 : i32
// CHECK: %[[BEFORE2:.*]] = arith.cmpi sgt, %[[START1]], %c0_i32 : i32
// CHECK: %[[H2:.*]] = arith.ori %[[AFTER2]], %[[BEFORE2]] : i1
// CHECK: %[[E10:.*]] = vector.extract %[[F0]][1, 0]
// CHECK: arith.select %[[H2]], %[[NEGINF]], %[[E10]] : f32
//     Fragment 1: columns 8 and 9 from col0, both bounds.
// CHECK: arith.cmpi sle, %[[END0]], %c8_i32 : i32
// CHECK: arith.cmpi sgt, %[[START0]], %c8_i32 : i32
// CHECK: vector.extract %[[F1]][0, 0]
// CHECK: arith.cmpi sle, %[[END1]], %c9_i32 : i32
// CHECK: arith.cmpi sgt, %[[START1]], %c9_i32 : i32
// CHECK: vector.extract %[[F1]][1, 1]
// CHECK: scf.yield
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @window(%q: tensor<1x1x?x16xf16>, %k: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c3 = arith.constant 3 : index
    %cm7 = arith.constant -7 : index
    %nq = tensor.dim %q, %c2 : tensor<1x1x?x16xf16>
    %nk = tensor.dim %k, %c2 : tensor<1x1x?x16xf16>
    %off = arith.subi %nk, %nq : index
    %causal_off = arith.addi %off, %c3 : index
    %window_off = arith.addi %off, %cm7 : index
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nk step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %sm = fa.mask %si[%q0, %k0] causal_offset(%causal_off) window_offset(%window_off) : tensor<32x16xf32, #acc>
      scf.yield %sm : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}
