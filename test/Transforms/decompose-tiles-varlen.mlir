// RUN: fa-opt %s --fa-decompose-tiles | FileCheck %s

// fa.varlen_block on the CPU: the walk over the sequences (AttentionMath.h,
// varlenBlock): an scf.for over S = dim(cu_q) - 1 sequences carrying the
// first block of sequence s and the (sequence, block) found, sequence s
// owning blocks [first, first + ceil(max(cu_q[s + 1] - cu_q[s], 0) / 16)).
// Then the found sequence's queries and keys (sequenceRows): cu[min(s, S)]
// and max(cu[min(s + 1, S)] - cu[min(s, S)], 0) of each array.

// CHECK-LABEL: func @walk
// CHECK-SAME: (%[[CUQ:.*]]: tensor<?xi32>, %[[CUK:.*]]: tensor<?xi32>, %[[I:.*]]: index)
// CHECK: %[[N:.*]] = tensor.dim %[[CUQ]], %{{.*}} : tensor<?xi32>
// CHECK: %[[S:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[R:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %[[S]] step %{{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}, %[[SEQ:.*]] = %{{.*}}, %[[BLK:.*]] = %[[I]])
// CHECK:   tensor.extract %[[CUQ]][%[[T]]] : tensor<?xi32>
// CHECK:   tensor.extract %[[CUQ]][%{{.*}}] : tensor<?xi32>
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
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]]#1, %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.minui %[[R]]#1, %[[S]] : index
// CHECK: %[[STOP:.*]] = arith.minui %[[NEXT]], %[[S]] : index
// CHECK: %[[Q0E:.*]] = tensor.extract %[[CUQ]][%[[AT]]]
// CHECK: %[[Q0:.*]] = arith.index_cast %[[Q0E]]
// CHECK: tensor.extract %[[CUQ]][%[[STOP]]]
// CHECK: %[[NQ:.*]] = arith.maxsi
// CHECK: %[[K0E:.*]] = tensor.extract %[[CUK]][%{{.*}}]
// CHECK: %[[K0:.*]] = arith.index_cast %[[K0E]]
// CHECK: tensor.extract %[[CUK]][%{{.*}}]
// CHECK: %[[NK:.*]] = arith.maxsi
// CHECK: return %[[R]]#1, %[[R]]#2, %[[Q0]], %[[NQ]], %[[K0]], %[[NK]]
func.func @walk(%cq: tensor<?xi32>, %ck: tensor<?xi32>, %i: index) -> (index, index, index, index, index, index) {
  %s:6 = fa.varlen_block %cq, %ck[%i] block_rows(16) : tensor<?xi32>, tensor<?xi32>
  return %s#0, %s#1, %s#2, %s#3, %s#4, %s#5 : index, index, index, index, index, index
}

// With per_sequence(p): where p > 0, block i is block i mod p of sequence
// i / p, the four offsets read together (past the last sequence all at
// cu[S]: no rows, no keys; (0, i) there), and a sequence of more than p
// blocks fails a cf.assert; else the walk above.
// CHECK-LABEL: func @per_sequence
// CHECK-SAME: (%[[CUQ:.*]]: tensor<?xi32>, %[[CUK:.*]]: tensor<?xi32>, %[[I:.*]]: index, %[[P:.*]]: index)
// CHECK: %[[S:.*]] = arith.subi
// CHECK: %[[SLOTTED:.*]] = arith.cmpi ugt, %[[P]], %{{.*}} : index
// CHECK: %[[R:.*]]:7 = scf.if %[[SLOTTED]] -> (index, index, index, index, index, index, i1)
// CHECK:   %[[SEQ:.*]] = arith.divui %[[I]], %[[P]] : index
// CHECK:   %[[SLOT:.*]] = arith.remui %[[I]], %[[P]] : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[SEQ]], %[[S]] : index
// CHECK:   %[[AT:.*]] = arith.minui %[[SEQ]], %[[S]] : index
// CHECK:   %[[Q0E:.*]] = tensor.extract %[[CUQ]][%[[AT]]]
// CHECK:   %[[Q0:.*]] = arith.index_cast %[[Q0E]]
// CHECK:   %[[NQ:.*]] = arith.maxsi
// CHECK:   %[[KAT:.*]] = arith.minui %[[SEQ]], %[[S]] : index
// CHECK:   %[[K0E:.*]] = tensor.extract %[[CUK]][%[[KAT]]]
// CHECK:   %[[K0:.*]] = arith.index_cast %[[K0E]]
// CHECK:   %[[NK:.*]] = arith.maxsi
// CHECK:   %[[REACH:.*]] = arith.muli %[[P]], %{{.*}} : index
// CHECK:   %[[LONG:.*]] = arith.cmpi sgt, %[[NQ]], %[[REACH]] : index
// CHECK:   %[[FSEQ:.*]] = arith.select %[[IN]], %[[SEQ]], %{{.*}} : index
// CHECK:   %[[FBLK:.*]] = arith.select %[[IN]], %[[SLOT]], %[[I]] : index
// CHECK:   scf.yield %[[FSEQ]], %[[FBLK]], %[[Q0]], %[[NQ]], %[[K0]], %[[NK]], %[[LONG]]
// CHECK: } else {
// CHECK:   scf.for
// CHECK: %[[FITS:.*]] = arith.xori %[[R]]#6, %true
// CHECK: cf.assert %[[FITS]], "fa.varlen_block: a sequence has more Q blocks than per_sequence (max_seqlen_q below its length)"
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[R]]#4, %[[R]]#5
func.func @per_sequence(%cq: tensor<?xi32>, %ck: tensor<?xi32>, %i: index, %p: index) -> (index, index, index, index, index, index) {
  %s:6 = fa.varlen_block %cq, %ck[%i] block_rows(16) per_sequence(%p) : tensor<?xi32>, tensor<?xi32>
  return %s#0, %s#1, %s#2, %s#3, %s#4, %s#5 : index, index, index, index, index, index
}
