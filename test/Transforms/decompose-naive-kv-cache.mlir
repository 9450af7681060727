// RUN: fa-opt %s -split-input-file --fa-decompose-naive --cse | FileCheck %s

// The naive decomposition of a K/V cache (the oracle of the cache tests):
// the pages of K and V are gathered into dense [B, Hkv, max_pages *
// page_size, D] tensors, reading the block table only for a sequence's own
// keys (inside an scf.if; 0 past them), and the score mask hides the keys
// past each sequence's count and puts its diagonal at i + n_b - Nq.

// CHECK-LABEL: func @paged
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<2x2x3x16xf32>, %[[K:[a-z0-9]+]]: tensor<10x16x1x16xf32>, %[[V:[a-z0-9]+]]: tensor<10x16x1x16xf32>, %[[LENS:[a-z0-9]+]]: tensor<2xi32>, %[[TABLE:[a-z0-9]+]]: tensor<2x4xi32>
// CHECK: %[[CAP:.*]] = arith.muli %c4, %c16 : index
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[CAP]]) : tensor<2x1x?x16xf32>
// CHECK: %[[KD:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<2x1x?x16xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[G:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[E:.*]] = linalg.index 3 : index
// CHECK: tensor.extract %[[LENS]][%[[B]]] : tensor<2xi32>
// CHECK: %[[N:.*]] = arith.minsi %{{.*}}, %[[CAP]] : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[N]] : index
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK:   %[[ENTRY:.*]] = tensor.extract %[[TABLE]][%[[B]], %{{.*}}] : tensor<2x4xi32>
// CHECK:   %[[PAGE:.*]] = arith.index_cast %[[ENTRY]] : i32 to index
// CHECK:   %[[ROW:.*]] = arith.remui %[[J]], %c16 : index
// CHECK:   %[[X:.*]] = tensor.extract %[[K]][%[[PAGE]], %[[ROW]], %[[G]], %[[E]]] : tensor<10x16x1x16xf32>
// CHECK:   scf.yield %[[X]] : f32
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : f32
// CHECK: %[[VD:.*]] = linalg.generic
// CHECK: tensor.extract %[[V]]
//     S = Q K^T on the gathered keys.
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[KD]] : tensor<2x2x3x16xf32>, tensor<2x1x?x16xf32>)
//     The mask: sequence b's key count and diagonal.
// CHECK: linalg.generic
// CHECK: %[[MB:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %[[LENS]][%[[MB]]] : tensor<2xi32>
// CHECK: %[[MN:.*]] = arith.minsi %{{.*}}, %[[CAP]] : index
// CHECK: %[[DIAG:.*]] = arith.subi %[[MN]], %c3 : index
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[MJ:.*]] = linalg.index 3 : index
// CHECK: %[[LASTV:.*]] = arith.addi %[[I]], %[[DIAG]] : index
// CHECK: %[[END0:.*]] = arith.addi %[[LASTV]], %c1 : index
// CHECK: %[[END:.*]] = arith.minsi %[[MN]], %[[END0]] : index
// CHECK: arith.cmpi sge, %[[MJ]], %[[END]] : index
//     E V on the gathered values.
// CHECK: ins(%{{.*}}, %[[VD]] : tensor<2x2x3x?xf32>, tensor<2x1x?x16xf32>)
func.func @paged(%q: tensor<2x2x3x16xf32>, %k: tensor<10x16x1x16xf32>, %v: tensor<10x16x1x16xf32>,
                 %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x2x3x16xf32>) -> tensor<2x2x3x16xf32> {
  %r = fa.attention ins(%q, %k, %v : tensor<2x2x3x16xf32>, tensor<10x16x1x16xf32>, tensor<10x16x1x16xf32>)
           key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>)
           outs(%o : tensor<2x2x3x16xf32>) causal -> tensor<2x2x3x16xf32>
  return %r : tensor<2x2x3x16xf32>
}

// -----

// A dense cache with per-sequence lengths and no other mask: only the key
// limit, n_b, from the lengths (capacity Nk).
// CHECK-LABEL: func @dense_lengths
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<?x1x?x16xf16>, %{{.*}}: tensor<?x1x?x16xf16>, %[[LENS:[a-z0-9]+]]: tensor<?xi32>
// CHECK-NOT: scf.if
// CHECK: %[[NK:.*]] = tensor.dim %[[K]], %c2
// CHECK: linalg.index 0 : index
// CHECK: tensor.extract %[[LENS]]
// CHECK: %[[N:.*]] = arith.minsi %{{.*}}, %[[NK]] : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: arith.cmpi sge, %[[J]], %[[N]] : index
func.func @dense_lengths(%q: tensor<?x2x?x16xf16>, %k: tensor<?x1x?x16xf16>, %v: tensor<?x1x?x16xf16>,
                         %n: tensor<?xi32>, %o: tensor<?x2x?x16xf16>) -> tensor<?x2x?x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x2x?x16xf16>, tensor<?x1x?x16xf16>, tensor<?x1x?x16xf16>)
           key_lengths(%n : tensor<?xi32>) outs(%o : tensor<?x2x?x16xf16>) -> tensor<?x2x?x16xf16>
  return %r : tensor<?x2x?x16xf16>
}

// -----

// Packed sequences (cu_seqlens): the score mask finds the sequences of the
// row and of the key (AttentionMath.h, sequenceOfRow: how many cu[t] <=
// the row), hides every key of another sequence, and masks the rest on
// sequence-local rows and keys with the sequence's own counts.
// CHECK-LABEL: func @varlen
// CHECK-SAME: %[[CQ:[a-z0-9]+]]: tensor<3xi32>, %[[CK:[a-z0-9]+]]: tensor<3xi32>
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[SEQ:.*]] = scf.for
// CHECK:   tensor.extract %[[CQ]]
// CHECK:   arith.cmpi sle, %{{.*}}, %[[I]] : index
// CHECK: %[[KSEQ:.*]] = scf.for
// CHECK:   tensor.extract %[[CK]]
// CHECK:   arith.cmpi sle, %{{.*}}, %[[J]] : index
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %[[SEQ]], %[[KSEQ]] : index
// CHECK: %[[ROW:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK: %[[KEY:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK: %[[HID:.*]] = arith.cmpi sge, %[[KEY]], %{{.*}} : index
// CHECK: arith.ori %[[OTHER]], %[[HID]] : i1
func.func @varlen(%q: tensor<1x2x9x16xf32>, %k: tensor<1x1x12x16xf32>, %v: tensor<1x1x12x16xf32>,
                  %cq: tensor<3xi32>, %ck: tensor<3xi32>, %o: tensor<1x2x9x16xf32>) -> tensor<1x2x9x16xf32> {
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x9x16xf32>, tensor<1x1x12x16xf32>, tensor<1x1x12x16xf32>)
           cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>)
           outs(%o : tensor<1x2x9x16xf32>) causal -> tensor<1x2x9x16xf32>
  return %r : tensor<1x2x9x16xf32>
}
