// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-split-kv=splits=3 --cse | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-split-kv=splits=1 | FileCheck %s --check-prefix=ONE
// RUN: not fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-split-kv=splits=2 --fa-split-kv=splits=2 2>&1 | FileCheck %s --check-prefix=TWICE
// A K/V loop that does not start at a whole K/V block (here at key 1) cannot
// be cut into chunks of blocks.
// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" | sed 's/scf.for \(%[a-z0-9_]*\) = %c0 to/scf.for \1 = %c1 to/' | not fa-opt -split-input-file --fa-split-kv=splits=2 2>&1 | FileCheck %s --check-prefix=UNALIGNED
// After --fa-pipeline-kv the K/V tiles are asynchronous loads the pass
// does not read: a diagnostic, not a nest silently left unsplit.
// RUN: not fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-causal-block-skip --fa-map-warps=num-warps=1 --fa-schedule-softmax --fa-pipeline-kv=stages=2 --fa-split-kv=splits=2 2>&1 | FileCheck %s --check-prefix=PIPELINED
// RUN: not fa-opt %s --fa-split-kv=splits=-1 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not fa-opt %s --fa-split-kv=splits=1025 2>&1 | FileCheck %s --check-prefix=BAD-OPTION

// Split-KV of a decode step (Nq = 1, GQA 8:2, causal), the L2 loop nest of
// --fa-causal-block-skip as input: the forall's Q-block dimension runs over
// Q block x split (split-major: Q block i mod QB, split i / QB), every K/V loop bound is clamped to the split's keys
// [s * C, (s + 1) * C) with C = ceil(ceil(Nk / 16) / 3) * 16, the split's
// fa.finalize writes f32 O and LSE at batch s * B + b of the workspaces, and
// fa.combine_splits merges them after the forall.

// CHECK-LABEL: func @decode
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x1x16xf16>, %[[K:[^:]*]]: tensor<2x2x?x16xf16>
// CHECK: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<2x2x?x16xf16>
// CHECK: %[[QBS:.*]] = arith.ceildivui %c1, %[[C16:.*]] : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[NK]], %[[C16]] : index
// CHECK: %[[PER:.*]] = arith.ceildivui %[[BLOCKS]], %[[C3:.*]] : index
// CHECK: %[[CHUNK:.*]] = arith.muli %[[PER]], %{{.*}} : index
// CHECK: %[[WSO:.*]] = tensor.empty() : tensor<6x8x1x16xf32>
// CHECK: %[[WSL:.*]] = tensor.empty() : tensor<6x8x1xf32>
// CHECK: %[[GRID:.*]] = arith.muli %[[QBS]], %[[C3]] : index
// CHECK: %[[R:.*]]:2 = scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in (2, 8, %[[GRID]]) shared_outs(%[[OO:.*]] = %[[WSO]], %[[LO:.*]] = %[[WSL]])
// CHECK: %[[QB:.*]] = arith.remui %[[I]], %[[QBS]] : index
// CHECK: %[[S:.*]] = arith.divui %[[I]], %[[QBS]] : index
// CHECK: %[[LOW:.*]] = arith.muli %[[S]], %[[CHUNK]] : index
// CHECK: %[[HIGH:.*]] = arith.addi %[[LOW]], %[[CHUNK]] : index
// CHECK: %[[SB0:.*]] = arith.muli %[[S]], %{{.*}} : index
// CHECK: %[[SB:.*]] = arith.addi %[[SB0]], %[[B]] : index
// CHECK: arith.muli %[[QB]], %[[C16]] : index
//     Loop bounds x -> min(max(x, lo), hi), one value where a loop ends and
//     the next starts.
// CHECK: %[[A0:.*]] = arith.maxsi %{{.*}}, %[[LOW]] : index
// CHECK: %[[A:.*]] = arith.minsi %[[A0]], %[[HIGH]] : index
// CHECK: %[[E0:.*]] = arith.maxsi %{{.*}}, %[[LOW]] : index
// CHECK: %[[E:.*]] = arith.minsi %[[E0]], %[[HIGH]] : index
// CHECK: %[[F0:.*]] = arith.maxsi %{{.*}}, %[[LOW]] : index
// CHECK: %[[F:.*]] = arith.minsi %[[F0]], %[[HIGH]] : index
// CHECK: %[[L1:.*]]:3 = scf.for %{{.*}} = %[[A]] to %[[E]] step %[[C16]]
// CHECK-NOT: fa.mask
// CHECK: scf.yield
// CHECK: %[[L2:.*]]:3 = scf.for %{{.*}} = %[[E]] to %[[F]] step %[[C16]] iter_args(%{{.*}} = %[[L1]]#0, %{{.*}} = %[[L1]]#1, %{{.*}} = %[[L1]]#2)
// CHECK: fa.mask
// CHECK: %[[OUT:.*]], %[[LSE:.*]] = fa.finalize %[[L2]]#2, %[[L2]]#0, %[[L2]]#1 : tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x16xf32>
// CHECK: %[[OROWS:.*]] = tensor.extract_slice %[[OUT]][0, 0] [%{{.*}}, 16] [1, 1] : tensor<16x16xf32> to tensor<?x16xf32>
// CHECK: %[[LROWS:.*]] = tensor.extract_slice %[[LSE]][0] [%{{.*}}] [1] : tensor<16xf32> to tensor<?xf32>
// CHECK: tensor.parallel_insert_slice %[[OROWS]] into %[[OO]][%[[SB]], %[[H]], %{{.*}}, 0] [1, 1, %{{.*}}, 16] [1, 1, 1, 1] : tensor<?x16xf32> into tensor<6x8x1x16xf32>
// CHECK: tensor.parallel_insert_slice %[[LROWS]] into %[[LO]][%[[SB]], %[[H]], %{{.*}}] [1, 1, %{{.*}}] [1, 1, 1] : tensor<?xf32> into tensor<6x8x1xf32>
//     The nest is marked as split (--fa-map-warps counts its chunk bounds
//     as live values).
// CHECK: } {fa.mma_atom = #fa.mma_sync, fa.split_kv}
// CHECK: %[[PO:.*]] = tensor.expand_shape %[[R]]#0 {{\[\[}}0, 1], [2], [3], [4]] output_shape [3, 2, 8, 1, 16] : tensor<6x8x1x16xf32> into tensor<3x2x8x1x16xf32>
// CHECK: %[[PL:.*]] = tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1], [2], [3]] output_shape [3, 2, 8, 1] : tensor<6x8x1xf32> into tensor<3x2x8x1xf32>
// CHECK: %[[RO:.*]], %[[RL:.*]] = fa.combine_splits %[[PO]], %[[PL]] : tensor<3x2x8x1x16xf32>, tensor<3x2x8x1xf32> -> tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
// CHECK: return %[[RO]], %[[RL]]

// ONE-LABEL: func @decode
// ONE-NOT: fa.combine_splits
// ONE: fa.finalize {{.*}} -> tensor<16x16xf16>

// TWICE: error: fa-split-kv: the loop nest is split already (its results feed fa.combine_splits)
// UNALIGNED: error: fa-split-kv: the K/V loop must start at a whole K/V block (a multiple of 16) to be split into chunks of blocks
// PIPELINED: error: fa-split-kv: cannot split this loop nest: run the pass on the tiled nest (after --fa-causal-block-skip, before --fa-pipeline-kv)
// BAD-OPTION: error: fa-split-kv: option splits must be in [0, 1024] (0: a run-time count), got

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

// Without an LSE result the splits still store theirs; only O is returned.
// CHECK-LABEL: func @no_lse
// CHECK: scf.forall {{.*}} -> (tensor<?x2x?x16xf32>, tensor<?x2x?xf32>)
// CHECK: %[[RO:.*]], %{{.*}} = fa.combine_splits {{.*}} -> tensor<?x2x?x16xbf16>, tensor<?x2x?xf32>
// CHECK: return %[[RO]]
func.func @no_lse(%q: tensor<?x2x?x16xbf16>, %k: tensor<?x2x?x16xbf16>,
                  %v: tensor<?x2x?x16xbf16>, %o: tensor<?x2x?x16xbf16>)
    -> tensor<?x2x?x16xbf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x2x?x16xbf16>, tensor<?x2x?x16xbf16>, tensor<?x2x?x16xbf16>)
                    outs(%o : tensor<?x2x?x16xbf16>) -> tensor<?x2x?x16xbf16>
  return %r : tensor<?x2x?x16xbf16>
}
