// RUN: fa-opt %s --fa-tile-q-outer="block-m=16 block-n=16" --cse | FileCheck %s

// Packed sequences (cu_seqlens) in the Q-outer loop nest (L1): the forall
// runs over ceil(total_q / 16) + S Q blocks (a bound of the sequences'
// blocks, in order); fa.varlen_block finds each one's sequence and block
// and reads the sequence's offsets and lengths from both cu_seqlens (the
// loop nest reads neither); rows and keys are counted from the sequence's
// start (the mask's row and key starts, its key limit and diagonal), the
// tiles are read and O stored at the offsets; a block past its sequence
// has no row and visits no K/V block.

// CHECK-LABEL: func @varlen
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x4x?x16xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x?x16xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x?x16xf16>, %[[CUQ:[a-z0-9]+]]: tensor<?xi32>, %[[CUK:[a-z0-9]+]]: tensor<?xi32>
// CHECK: %[[TOTAL:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[ENTRIES:.*]] = tensor.dim %[[CUQ]], %c0
// CHECK: %[[S:.*]] = arith.subi %[[ENTRIES]], %c1 : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[TOTAL]], %c16 : index
// CHECK: %[[GRID:.*]] = arith.addi %[[BLOCKS]], %[[S]] : index
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in (1, 4, %[[GRID]])
// CHECK: %{{.*}}, %[[BLK:.*]], %[[QBASE:.*]], %[[NQ:.*]], %[[KBASE:.*]], %[[NK:.*]] = fa.varlen_block %[[CUQ]], %[[CUK]][%[[I]]] block_rows(16) : tensor<?xi32>, tensor<?xi32>
// CHECK-NOT: tensor.extract %[[CUQ]]
// CHECK-NOT: tensor.extract %[[CUK]]
// CHECK: %[[DIAG:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[Q0:.*]] = arith.muli %[[BLK]], %c16 : index
// CHECK: %[[ROWS:.*]] = arith.maxsi %{{.*}}, %c0 : index
// CHECK: %[[HAS:.*]] = arith.cmpi sgt, %[[ROWS]], %c0 : index
// CHECK: %[[END:.*]] = arith.select %[[HAS]], %[[NK]], %c0 : index
// CHECK: %[[QROW:.*]] = arith.addi %[[QBASE]], %[[Q0]] : index
// CHECK: tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[QROW]], 0] [1, 1, %[[ROWS]], 16]
// CHECK: scf.for %[[J:[a-z0-9]+]] = %c0 to %[[END]] step %c16
// CHECK: %[[KROW:.*]] = arith.addi %[[KBASE]], %[[J]] : index
// CHECK: tensor.extract_slice %[[K]][%[[B]], %{{.*}}, %[[KROW]], 0]
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[J]]] key_limit(%[[NK]]) causal_offset(%[[DIAG]])
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[B]], %[[H]], %[[QROW]], 0] [1, 1, %[[ROWS]], 16]
func.func @varlen(%q: tensor<1x4x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
                  %cq: tensor<?xi32>, %ck: tensor<?xi32>, %o: tensor<1x4x?x16xf16>) -> tensor<1x4x?x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x4x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>)
           cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>)
           outs(%o : tensor<1x4x?x16xf16>) causal -> tensor<1x4x?x16xf16>
  return %r : tensor<1x4x?x16xf16>
}

// max_seqlen_q (FlashAttention's): where p * S blocks, p = max(ceil(m /
// 16), 1) slots a sequence, are fewer than the walk's bound, the grid is
// those and fa.varlen_block numbers them per sequence (per_sequence(p));
// else per_sequence(0), the walk. (slotted / walk is 0 exactly when fewer:
// the launch plan's expressions have no compare.) The argument is marked
// for the plan, which names the caller's input after it.

// CHECK-LABEL: func @varlen_max_seqlen
// CHECK-SAME: %[[CUQ:[a-z0-9]+]]: tensor<?xi32>, %[[CUK:[a-z0-9]+]]: tensor<?xi32>, %[[M:[a-z0-9]+]]: index {fa.max_seqlen_q}
// CHECK: %[[S:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c16 : index
// CHECK: %[[WALK:.*]] = arith.addi %[[BLOCKS]], %[[S]] : index
// CHECK: %[[MB:.*]] = arith.ceildivui %[[M]], %c16 : index
// CHECK: %[[P:.*]] = arith.maxui %[[MB]], %c1 : index
// CHECK: %[[SLOTTED:.*]] = arith.muli %[[P]], %[[S]] : index
// CHECK: %[[W1:.*]] = arith.maxui %[[WALK]], %c1 : index
// CHECK: %[[RATIO:.*]] = arith.divui %[[SLOTTED]], %[[W1]] : index
// CHECK: %[[NOTFEWER:.*]] = arith.minui %[[RATIO]], %c1 : index
// CHECK: %[[DROP:.*]] = arith.muli %[[P]], %[[NOTFEWER]] : index
// CHECK: %[[PER:.*]] = arith.subi %[[P]], %[[DROP]] : index
// CHECK: %[[GRID:.*]] = arith.minui %[[WALK]], %[[SLOTTED]] : index
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %[[I:.*]]) in (1, 4, %[[GRID]])
// CHECK: fa.varlen_block %[[CUQ]], %[[CUK]][%[[I]]] block_rows(16) per_sequence(%[[PER]]) : tensor<?xi32>, tensor<?xi32>
func.func @varlen_max_seqlen(%q: tensor<1x4x?x16xf16>, %k: tensor<1x2x?x16xf16>,
                             %v: tensor<1x2x?x16xf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>,
                             %m: index, %o: tensor<1x4x?x16xf16>) -> tensor<1x4x?x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x4x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16>)
           cu_seqlens(%cq, %ck : tensor<?xi32>, tensor<?xi32>) max_seqlen_q(%m)
           outs(%o : tensor<1x4x?x16xf16>) causal -> tensor<1x4x?x16xf16>
  return %r : tensor<1x4x?x16xf16>
}
