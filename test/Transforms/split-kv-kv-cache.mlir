// RUN: fa-opt %s --fa-tile-q-outer="block-m=16 block-n=16 pack-gqa=true" --fa-causal-block-skip --fa-split-kv=splits=3 --cse | FileCheck %s

// --fa-split-kv on a K/V cache (input: L2 of a paged decode step, from the
// passes before it): each sequence has its own key count n_b, read in the
// loop nest, so the chunk size is computed per forall iteration from it,
// ceil(ceil(n_b / 16) / 3) * 16, after n_b and before the first K/V loop;
// the split's chunk is [s * chunk, (s + 1) * chunk), and every loop bound
// is clamped into it.

// CHECK-LABEL: func @paged
// CHECK-SAME: %{{.*}}: tensor<?xi32>, %[[TABLE:[a-z0-9]+]]: tensor<?x?xi32>
// CHECK: scf.forall (%[[B:[a-z0-9]+]], %{{.*}}, %[[I:[a-z0-9]+]]) in
// CHECK: %[[S:.*]] = arith.divui %[[I]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[B]]] : tensor<?xi32>
// CHECK: %[[NK:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[NK]], %c16 : index
// CHECK: %[[PER:.*]] = arith.ceildivui %[[BLOCKS]], %c3 : index
// CHECK: %[[CHUNK:.*]] = arith.muli %[[PER]], %c16 : index
// CHECK: %[[LO:.*]] = arith.muli %[[S]], %[[CHUNK]] : index
// CHECK: %[[HI:.*]] = arith.addi %[[LO]], %[[CHUNK]] : index
// CHECK: %[[A0:.*]] = arith.maxsi %c0, %[[LO]] : index
// CHECK: %[[A:.*]] = arith.minsi %[[A0]], %[[HI]] : index
// CHECK: %[[B0:.*]] = arith.maxsi %{{.*}}, %[[LO]] : index
// CHECK: %[[BB:.*]] = arith.minsi %[[B0]], %[[HI]] : index
// CHECK: scf.for %{{.*}} = %[[A]] to %[[BB]] step %c16
// CHECK: tensor.extract %[[TABLE]][%[[B]], %{{.*}}]
// CHECK: fa.combine_splits
func.func @paged(%q: tensor<?x8x1x16xf16>, %k: tensor<?x32x2x16xf16>, %v: tensor<?x32x2x16xf16>,
                 %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x8x1x16xf16>) -> tensor<?x8x1x16xf16> {
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x1x16xf16>, tensor<?x32x2x16xf16>, tensor<?x32x2x16xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x8x1x16xf16>) causal -> tensor<?x8x1x16xf16>
  return %r : tensor<?x8x1x16xf16>
}

// A paged nest whose masks lost their key limit (the per-sequence count the
// chunks are cut from): a diagnostic, not chunks of the pool's dim 2.
// RUN: fa-opt %s --fa-tile-q-outer="block-m=16 block-n=16 pack-gqa=true" | sed 's/ key_limit([^)]*)//' \
// RUN:   | not fa-opt --fa-split-kv=splits=2 2>&1 | FileCheck %s --check-prefix=NO-LIMIT
// NO-LIMIT: error: fa-split-kv: a loop nest over a paged K/V cache needs the key limit of its masks
