// RUN: fa-opt %s --fa-decompose-tiles | FileCheck %s

// fa.varlen_block on the CPU: the walk over the sequences (AttentionMath.h,
// varlenBlock): an scf.for over S = dim(cu) - 1 sequences carrying the
// first block of sequence s and the (sequence, block) found, sequence s
// owning blocks [first, first + ceil(max(cu[s + 1] - cu[s], 0) / 16)).

// CHECK-LABEL: func @walk
// CHECK-SAME: (%[[CU:.*]]: tensor<?xi32>, %[[I:.*]]: index)
// CHECK: %[[N:.*]] = tensor.dim %[[CU]], %{{.*}} : tensor<?xi32>
// CHECK: %[[S:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[R:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %[[S]] step %{{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}, %[[SEQ:.*]] = %{{.*}}, %[[BLK:.*]] = %[[I]])
// CHECK:   tensor.extract %[[CU]][%[[T]]] : tensor<?xi32>
// CHECK:   tensor.extract %[[CU]][%{{.*}}] : tensor<?xi32>
// CHECK:   %[[LEN:.*]] = arith.maxsi
// CHECK:   %[[NB:.*]] = arith.ceildivui %[[LEN]], %{{.*}} : index
// CHECK:   %[[END:.*]] = arith.addi %[[FIRST]], %[[NB]] : index
// CHECK:   arith.cmpi uge, %[[I]], %[[FIRST]] : index
// CHECK:   arith.cmpi ult, %[[I]], %[[END]] : index
// CHECK:   %[[IN:.*]] = arith.andi
// CHECK:   %[[NSEQ:.*]] = arith.select %[[IN]], %[[T]], %[[SEQ]] : index
// CHECK:   %[[LOCAL:.*]] = arith.subi %[[I]], %[[FIRST]] : index
// CHECK:   %[[NBLK:.*]] = arith.select %[[IN]], %[[LOCAL]], %[[BLK]] : index
// CHECK:   scf.yield %[[END]], %[[NSEQ]], %[[NBLK]] : index, index, index
// CHECK: return %[[R]]#1, %[[R]]#2
func.func @walk(%cu: tensor<?xi32>, %i: index) -> (index, index) {
  %s, %b = fa.varlen_block %cu[%i] block_rows(16) : tensor<?xi32>
  return %s, %b : index, index
}
