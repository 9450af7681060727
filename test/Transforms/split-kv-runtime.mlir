// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-split-kv=splits=0 --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-split-kv=splits=0 --fa-tile-combine --cse | FileCheck %s --check-prefix=COMBINE

// splits=0: the split count is a run-time value, the function's index
// argument marked fa.num_splits (appended here: @decode has no callers).
// Everything --fa-split-kv computes from the count takes that value,
// clamped to at least 1: the chunk size, the forall's Q-block x split
// dimension, the workspaces [S * B, ...] and their [S, B, ...] views, whose
// split dimension is dynamic.

// CHECK-LABEL: func @decode
// CHECK-SAME: %[[K:[a-z0-9_]*]]: tensor<2x2x?x16xf16>
// CHECK-SAME: %[[NS:[a-z0-9_]*]]: index {fa.num_splits})
// CHECK: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<2x2x?x16xf16>
// CHECK: %[[QBS:.*]] = arith.ceildivui %c1, %{{.*}} : index
// CHECK: %[[S:.*]] = arith.maxsi %[[NS]], %[[C1:.*]] : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[NK]], %[[C16:.*]] : index
// CHECK: %[[PER:.*]] = arith.ceildivui %[[BLOCKS]], %[[S]] : index
// CHECK: %[[CHUNK:.*]] = arith.muli %[[PER]], %[[C16]] : index
// CHECK: %[[SB:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK: %[[WSO:.*]] = tensor.empty(%[[SB]]) : tensor<?x8x1x16xf32>
// CHECK: %[[WSL:.*]] = tensor.empty(%[[SB]]) : tensor<?x8x1xf32>
// CHECK: %[[GRID:.*]] = arith.muli %[[QBS]], %[[S]] : index
// CHECK: %[[R:.*]]:2 = scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in (2, 8, %[[GRID]]) shared_outs(%{{.*}} = %[[WSO]], %{{.*}} = %[[WSL]])
// CHECK: %[[QB:.*]] = arith.remui %[[I]], %[[QBS]] : index
// CHECK: %[[SPLIT:.*]] = arith.divui %[[I]], %[[QBS]] : index
// CHECK: %[[LOW:.*]] = arith.muli %[[SPLIT]], %[[CHUNK]] : index
// CHECK: arith.addi %[[LOW]], %[[CHUNK]] : index
// CHECK: fa.finalize {{.*}} -> tensor<16x16xf32>
// CHECK: %[[PO:.*]] = tensor.expand_shape %[[R]]#0 {{\[\[}}0, 1], [2], [3], [4]] output_shape [%[[S]], 2, 8, 1, 16] : tensor<?x8x1x16xf32> into tensor<?x2x8x1x16xf32>
// CHECK: %[[PL:.*]] = tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1], [2], [3]] output_shape [%[[S]], 2, 8, 1] : tensor<?x8x1xf32> into tensor<?x2x8x1xf32>
// CHECK: %[[RO:.*]], %[[RL:.*]] = fa.combine_splits %[[PO]], %[[PL]] : tensor<?x2x8x1x16xf32>, tensor<?x2x8x1xf32> -> tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
// CHECK: return %[[RO]], %[[RL]]

// The merge's loop nest reads S rows of stride B from the workspace, S the
// same run-time value (B = [S * B] / S).
// COMBINE-LABEL: func @decode
// COMBINE-SAME: %[[NS:[a-z0-9_]*]]: index {fa.num_splits})
// COMBINE: %[[S:.*]] = arith.maxsi %[[NS]], %{{.*}} : index
// COMBINE: %[[R:.*]]:2 = scf.forall
// COMBINE: %[[ROWS:.*]] = tensor.dim %[[R]]#0, %{{.*}} : tensor<?x8x1x16xf32>
// COMBINE: %[[B:.*]] = arith.divui %[[ROWS]], %[[S]] : index
// COMBINE: scf.forall (%[[BI:.*]], %{{.*}}, %[[QI:.*]]) in (%[[B]], %{{.*}}, 1)
// COMBINE: tensor.extract_slice %[[R]]#0[%[[BI]], %{{.*}}, %[[QI]], %{{.*}}] [%[[S]], %{{.*}}, 1, 8] [%[[B]], 1, 1, 1] : tensor<?x8x1x16xf32> to tensor<?x?x8xf32>
// COMBINE: tensor.pad
// COMBINE: } : tensor<?x?x8xf32> to tensor<?x16x8xf32>
// COMBINE: fa.combine_splits {{.*}} : tensor<?x16x8xf32>, tensor<?x16xf32> -> tensor<16x8xf16, #{{.*}}>, tensor<16xf32, #{{.*}}>

func.func @decode(%q: tensor<2x8x1x16xf16>, %k: tensor<2x2x?x16xf16>,
                  %v: tensor<2x2x?x16xf16>, %o: tensor<2x8x1x16xf16>,
                  %l: tensor<2x8x1xf32>)
    -> (tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) {
  %r:2 = fa.attention ins(%q, %k, %v : tensor<2x8x1x16xf16>, tensor<2x2x?x16xf16>, tensor<2x2x?x16xf16>)
                      outs(%o, %l : tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) causal
                      -> tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
  return %r#0, %r#1 : tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
}

// -----

// A function that already has the marked argument (here called from
// another function, which passes the count) keeps its signature; two
// attention ops of one function share the count (one max(S, 1) after --cse).
// CHECK-LABEL: func @marked
// CHECK-SAME: (%[[NS:[a-z0-9_]*]]: index {fa.num_splits}, %{{.*}}: tensor<?x4x?x16xbf16>
// CHECK-NOT: fa.num_splits
// CHECK: %[[S:.*]] = arith.maxsi %[[NS]], %{{.*}} : index
// CHECK: arith.ceildivui %{{.*}}, %[[S]] : index
// CHECK: tensor.empty
// CHECK: %[[GRID:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK: scf.forall {{.*}} in (%{{.*}}, 4, %[[GRID]])
// CHECK: fa.combine_splits {{.*}} : tensor<?x?x4x?x16xf32>, tensor<?x?x4x?xf32>
// CHECK: scf.forall {{.*}} in (%{{.*}}, 4, %[[GRID]])
// CHECK: fa.combine_splits {{.*}} : tensor<?x?x4x?x16xf32>, tensor<?x?x4x?xf32>
// CHECK-LABEL: func @caller
// CHECK: call @marked(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (index,
func.func @marked(%n: index {fa.num_splits}, %q: tensor<?x4x?x16xbf16>,
                  %k: tensor<?x4x?x16xbf16>, %v: tensor<?x4x?x16xbf16>,
                  %o: tensor<?x4x?x16xbf16>) -> (tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>) {
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>)
                    outs(%o : tensor<?x4x?x16xbf16>) -> tensor<?x4x?x16xbf16>
  %r2 = fa.attention ins(%q, %k, %v : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>)
                     outs(%o : tensor<?x4x?x16xbf16>) causal -> tensor<?x4x?x16xbf16>
  return %r, %r2 : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>
}
func.func @caller(%q: tensor<?x4x?x16xbf16>, %k: tensor<?x4x?x16xbf16>,
                  %v: tensor<?x4x?x16xbf16>, %o: tensor<?x4x?x16xbf16>)
    -> (tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>) {
  %c4 = arith.constant 4 : index
  %r:2 = call @marked(%c4, %q, %k, %v, %o)
      : (index, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>)
      -> (tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>)
  return %r#0, %r#1 : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>
}
