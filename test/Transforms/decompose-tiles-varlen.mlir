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

// With per_sequence(p): where p > 0, block i is block i mod p of sequence
// i / p (read past the last sequence as cu[S], no rows; (0, i) there), and
// a sequence of more than p blocks fails a cf.assert; else the walk above.
// CHECK-LABEL: func @per_sequence
// CHECK-SAME: (%[[CU:.*]]: tensor<?xi32>, %[[I:.*]]: index, %[[P:.*]]: index)
// CHECK: %[[S:.*]] = arith.subi
// CHECK: %[[SLOTTED:.*]] = arith.cmpi ugt, %[[P]], %{{.*}} : index
// CHECK: %[[R:.*]]:3 = scf.if %[[SLOTTED]] -> (index, index, i1)
// CHECK:   %[[SEQ:.*]] = arith.divui %[[I]], %[[P]] : index
// CHECK:   %[[SLOT:.*]] = arith.remui %[[I]], %[[P]] : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[SEQ]], %[[S]] : index
// CHECK:   %[[AT:.*]] = arith.minui %[[SEQ]], %[[S]] : index
// CHECK:   tensor.extract %[[CU]][%[[AT]]]
// CHECK:   %[[LEN:.*]] = arith.maxsi
// CHECK:   %[[REACH:.*]] = arith.muli %[[P]], %{{.*}} : index
// CHECK:   %[[LONG:.*]] = arith.cmpi sgt, %[[LEN]], %[[REACH]] : index
// CHECK:   %[[FSEQ:.*]] = arith.select %[[IN]], %[[SEQ]], %{{.*}} : index
// CHECK:   %[[FBLK:.*]] = arith.select %[[IN]], %[[SLOT]], %[[I]] : index
// CHECK:   scf.yield %[[FSEQ]], %[[FBLK]], %[[LONG]]
// CHECK: } else {
// CHECK:   scf.for
// CHECK: %[[FITS:.*]] = arith.xori %[[R]]#2, %true
// CHECK: cf.assert %[[FITS]], "fa.varlen_block: a sequence has more Q blocks than per_sequence (max_seqlen_q below its length)"
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @per_sequence(%cu: tensor<?xi32>, %i: index, %p: index) -> (index, index) {
  %s, %b = fa.varlen_block %cu[%i] block_rows(16) per_sequence(%p) : tensor<?xi32>
  return %s, %b : index, index
}
