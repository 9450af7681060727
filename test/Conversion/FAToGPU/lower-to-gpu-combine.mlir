// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu --canonicalize --cse -verify-diagnostics | FileCheck %s

// Split-KV's merge kernel, lowered from the L3 loop nest of
// --fa-tile-combine (hand-written: 4 splits, 16 heads of a decode step per
// tile on one warp, Dv = 16). Each thread merges the elements of its acc
// fragments: per row value the largest split LSE (one loop over the splits),
// then the weights exp(LSE_s - base) and the weighted sum of its partial-O
// elements (a second loop), read from the workspace at batch s * B + b; O
// goes out through the shared staging tile like the attention output, the
// LSE by the first lane of each quad.

// CHECK-LABEL: func.func @merge
// CHECK: gpu.launch_func @merge_kernel_module::@merge_kernel blocks in (%c1, %c1, %{{.*}}) threads in (%c32, %c1, %c1)
// CHECK-SAME: params = ["partial_o", "partial_lse", "o", "lse"]
// CHECK: gpu.func @merge_kernel(%[[PO:.*]]: memref<?x?x?x16xf32, {{.*}}>, %[[PL:.*]]: memref<?x?x1xf32, {{.*}}>, %[[O:.*]]: memref<?x?x?x16xf16, {{.*}}>, %[[L:.*]]: memref<?x?x1xf32, {{.*}}>) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
//     The largest LSE of the thread's two rows over the 4 splits.
// CHECK: %[[MAX:.*]]:2 = scf.for %[[S:.*]] = %c0 to %c4 step %c1 iter_args(%[[M0:.*]] = %cst{{.*}}, %[[M1:.*]] = %cst{{.*}}) -> (f32, f32)
// CHECK:   memref.load %[[PL]]
// CHECK:   arith.maxnumf %[[M0]]
// CHECK:   memref.load %[[PL]]
// CHECK:   arith.maxnumf %[[M1]]
//     The weights and the 2 x 2 x 2 elements of the thread's two acc fragments.
// CHECK: %[[SUMS:.*]]:10 = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-2: math.exp
// CHECK-COUNT-8: math.fma
// CHECK: scf.yield
//     O = sum * (1 / W) in f16, through shared memory; LSE = base + log W.
// CHECK: arith.divf %cst{{.*}}, %[[SUMS]]#0
// CHECK: math.log %[[SUMS]]#0
// CHECK: arith.truncf {{.*}} to f16
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<?x16xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: %[[LROWS:.*]] = memref.subview %[[L]]
// CHECK: memref.store %{{.*}}, %[[LROWS]]
#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @merge(%wo: tensor<?x16x1x16xf32>, %wl: tensor<?x16x1xf32>)
    -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sb = tensor.dim %wo, %c0 : tensor<?x16x1x16xf32>
  %b = arith.divui %sb, %c4 : index
  %oi = tensor.empty(%b) : tensor<?x16x1x16xf16>
  %li = tensor.empty(%b) : tensor<?x16x1xf32>
  %r:2 = scf.forall (%bi, %hb, %qi) in (%b, 1, 1) shared_outs(%o = %oi, %l = %li)
      -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
    %h0 = arith.muli %hb, %c16 : index
    %left = arith.subi %c16, %h0 : index
    %n = arith.minsi %c16, %left : index
    %pad = arith.subi %c16, %n : index
    %pos = tensor.extract_slice %wo[%bi, %h0, %qi, 0] [4, %n, 1, 16] [%b, 1, 1, 1]
        : tensor<?x16x1x16xf32> to tensor<4x?x16xf32>
    %pot = tensor.pad %pos low[0, 0, 0] high[0, %pad, 0] {
    ^bb0(%i: index, %j: index, %k: index):
      tensor.yield %cst : f32
    } : tensor<4x?x16xf32> to tensor<4x16x16xf32>
    %pls = tensor.extract_slice %wl[%bi, %h0, %qi] [4, %n, 1] [%b, 1, 1]
        : tensor<?x16x1xf32> to tensor<4x?xf32>
    %plt = tensor.pad %pls low[0, 0] high[0, %pad] {
    ^bb0(%i: index, %j: index):
      tensor.yield %ninf : f32
    } : tensor<4x?xf32> to tensor<4x16xf32>
    %ot, %lt = fa.combine_splits %pot, %plt : tensor<4x16x16xf32>, tensor<4x16xf32>
        -> tensor<16x16xf16, #acc>, tensor<16xf32, #rows>
    %orows = tensor.extract_slice %ot[0, 0] [%n, 16] [1, 1] : tensor<16x16xf16, #acc> to tensor<?x16xf16>
    %lrows = tensor.extract_slice %lt[0] [%n] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %o[%bi, %h0, %qi, 0] [1, %n, 1, 16] [1, 1, 1, 1]
          : tensor<?x16xf16> into tensor<?x16x1x16xf16>
      tensor.parallel_insert_slice %lrows into %l[%bi, %h0, %qi] [1, %n, 1] [1, 1, 1]
          : tensor<?xf32> into tensor<?x16x1xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
  return %r#0, %r#1 : tensor<?x16x1x16xf16>, tensor<?x16x1xf32>
}

// -----

// The partial results must be read from the kernel's arguments: a tile the
// kernel computes itself has no memory to read.
#acc = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @computed_partials(%o0: tensor<1x16x1x16xf16>, %l0: tensor<1x16x1xf32>)
    -> (tensor<1x16x1x16xf16>, tensor<1x16x1xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %r:2 = scf.forall (%bi, %hb, %qi) in (1, 1, 1) shared_outs(%o = %o0, %l = %l0)
      -> (tensor<1x16x1x16xf16>, tensor<1x16x1xf32>) {
    %e = tensor.empty() : tensor<4x16x16xf32>
    %pot = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %el = tensor.empty() : tensor<4x16xf32>
    %plt = linalg.fill ins(%cst : f32) outs(%el : tensor<4x16xf32>) -> tensor<4x16xf32>
    // expected-error @+2 {{fa-lower-to-gpu: the partial results of a combine tile must be slices (optionally padded) of the kernel's arguments}}
    // expected-error @+1 {{failed to legalize operation 'fa.combine_splits' that was explicitly marked illegal}}
    %ot, %lt = fa.combine_splits %pot, %plt : tensor<4x16x16xf32>, tensor<4x16xf32>
        -> tensor<16x16xf16, #acc>, tensor<16xf32, #rows>
    %orows = tensor.extract_slice %ot[0, 0] [16, 16] [1, 1] : tensor<16x16xf16, #acc> to tensor<16x16xf16>
    %lrows = tensor.extract_slice %lt[0] [16] [1] : tensor<16xf32, #rows> to tensor<16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %o[0, 0, 0, 0] [1, 16, 1, 16] [1, 1, 1, 1]
          : tensor<16x16xf16> into tensor<1x16x1x16xf16>
      tensor.parallel_insert_slice %lrows into %l[0, 0, 0] [1, 16, 1] [1, 1, 1]
          : tensor<16xf32> into tensor<1x16x1xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
  return %r#0, %r#1 : tensor<1x16x1x16xf16>, tensor<1x16x1xf32>
}

// -----

// A run-time split count (--fa-split-kv splits=0): the host function's
// argument marked fa.num_splits is the plan's integer input num_splits,
// and what the host computes from it and the kernel uses (the count
// max(S, 1), the batch [S * B] / S) comes in as index parameters the plan
// gives as expressions (index0, index1), which the runtime computes; the
// loops over the splits run to the first.
// CHECK-LABEL: func.func @runtime_merge
// CHECK-SAME: %[[NS:[a-z0-9_]*]]: index {fa.num_splits})
// CHECK: %[[S:.*]] = arith.maxsi %[[NS]], %c1 : index
// CHECK: %[[B:.*]] = arith.divui %{{.*}}, %[[S]] : index
// CHECK: gpu.launch_func @runtime_merge_kernel_module::@runtime_merge_kernel
// CHECK-SAME: %[[S]] : index, %[[B]] : index)
// CHECK-SAME: params = ["partial_o", "partial_lse", "o", "lse", "index0", "index1"]
// CHECK-SAME: scalars = [{dtype = "index", name = "num_splits", value}, {dtype = "index", name = "index0", value = {args = [{scalar = "num_splits"}, 1], op = "maxsi"}}, {dtype = "index", name = "index1", value = {args = [{dim = ["partial_o", 0]}, {args = [{scalar = "num_splits"}, 1], op = "maxsi"}], op = "divui"}}]
// CHECK: gpu.func @runtime_merge_kernel(%{{.*}}: memref<?x?x?x16xf32, {{.*}}>, %{{.*}}: memref<?x?x1xf32, {{.*}}>, %{{.*}}: memref<?x?x?x16xf16, {{.*}}>, %{{.*}}: memref<?x?x1xf32, {{.*}}>, %[[KS:.*]]: index, %{{.*}}: index)
// CHECK-NOT: arith.maxsi
//     8 splits per iteration of the LSE loop, and of the sum loop too
//     here (10 loads per split and thread: 8 elements and 2 LSE; 66 at
//     128 columns take 4), so that their loads are in flight together;
//     past the first, a split index at or beyond the count reads the last
//     split and counts as LSE -inf.
// CHECK: %[[LAST:.*]] = arith.subi %[[KS]], %c1 : index
// CHECK: scf.for %[[S0:.*]] = %c0 to %[[KS]] step %c8 iter_args({{.*}}) -> (f32, f32)
// CHECK:   memref.load
// CHECK:   %[[AT:.*]] = arith.addi %[[S0]], %c1 : index
// CHECK:   %[[OK:.*]] = arith.cmpi ult, %[[AT]], %[[KS]] : index
// CHECK:   %[[SPLIT:.*]] = arith.minui %[[AT]], %[[LAST]] : index
// CHECK:   %[[L:.*]] = memref.load
// CHECK:   arith.select %[[OK]], %[[L]], %cst{{.*}} : f32
// CHECK: scf.for %{{.*}} = %c0 to %[[KS]] step %c8 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
func.func @runtime_merge(%wo: tensor<?x16x1x16xf32>, %wl: tensor<?x16x1xf32>, %ns: index {fa.num_splits})
    -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %splits = arith.maxsi %ns, %c1 : index
  %sb = tensor.dim %wo, %c0 : tensor<?x16x1x16xf32>
  %b = arith.divui %sb, %splits : index
  %oi = tensor.empty(%b) : tensor<?x16x1x16xf16>
  %li = tensor.empty(%b) : tensor<?x16x1xf32>
  %r:2 = scf.forall (%bi, %hb, %qi) in (%b, 1, 1) shared_outs(%o = %oi, %l = %li)
      -> (tensor<?x16x1x16xf16>, tensor<?x16x1xf32>) {
    %h0 = arith.muli %hb, %c16 : index
    %left = arith.subi %c16, %h0 : index
    %n = arith.minsi %c16, %left : index
    %pad = arith.subi %c16, %n : index
    %pos = tensor.extract_slice %wo[%bi, %h0, %qi, 0] [%splits, %n, 1, 16] [%b, 1, 1, 1]
        : tensor<?x16x1x16xf32> to tensor<?x?x16xf32>
    %pot = tensor.pad %pos low[0, 0, 0] high[0, %pad, 0] {
    ^bb0(%i: index, %j: index, %k: index):
      tensor.yield %cst : f32
    } : tensor<?x?x16xf32> to tensor<?x16x16xf32>
    %pls = tensor.extract_slice %wl[%bi, %h0, %qi] [%splits, %n, 1] [%b, 1, 1]
        : tensor<?x16x1xf32> to tensor<?x?xf32>
    %plt = tensor.pad %pls low[0, 0] high[0, %pad] {
    ^bb0(%i: index, %j: index):
      tensor.yield %ninf : f32
    } : tensor<?x?xf32> to tensor<?x16xf32>
    %ot, %lt = fa.combine_splits %pot, %plt : tensor<?x16x16xf32>, tensor<?x16xf32>
        -> tensor<16x16xf16, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>>, tensor<16xf32, #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>>
    %orows = tensor.extract_slice %ot[0, 0] [%n, 16] [1, 1] : tensor<16x16xf16, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>> to tensor<?x16xf16>
    %lrows = tensor.extract_slice %lt[0] [%n] [1] : tensor<16xf32, #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %o[%bi, %h0, %qi, 0] [1, %n, 1, 16] [1, 1, 1, 1]
          : tensor<?x16xf16> into tensor<?x16x1x16xf16>
      tensor.parallel_insert_slice %lrows into %l[%bi, %h0, %qi] [1, %n, 1] [1, 1, 1]
          : tensor<?xf32> into tensor<?x16x1xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
  return %r#0, %r#1 : tensor<?x16x1x16xf16>, tensor<?x16x1xf32>
}

// -----

// A tile of columns (--fa-tile-combine's block-dv, here 16 of Dv = 32):
// column tile c reads the partial O's columns [16 c, 16 c + 16) and stores
// O's, through a view of the rows offset by its first column; the LSE is
// stored by column tile 0 (the others store 0 rows).
// CHECK-LABEL: func.func @column_tiles
// CHECK: gpu.func @column_tiles_kernel(%[[WO:[a-z0-9]+]]: memref<?x?x?x32xf32{{.*}}>, %{{.*}}: memref<?x?x1xf32{{.*}}>, %[[OUT:[a-z0-9]+]]: memref<?x?x?x32xf16{{.*}}>, %[[LSE:[a-z0-9]+]]: memref<?x?x1xf32{{.*}}>)
// CHECK: %[[X:.*]] = gpu.block_id  x
// CHECK: %[[CT:.*]] = arith.remui %[[X]], %c2 : index
// CHECK: %[[COL:.*]] = arith.muli %[[CT]], %c16 : index
// CHECK: memref.load %[[WO]]
//     The store: rows of the output from column COL, 16 wide.
// CHECK: memref.subview %[[OUT]][%{{.*}}, 0, %{{.*}}, %[[COL]]] [1, %{{.*}}, 1, 16] [1, 1, 1, 1] : memref<?x?x?x32xf16{{.*}}> to memref<?x16xf16, strided<[?, 1], offset: ?>>
// CHECK: vector.store %{{.*}} : memref<?x16xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: memref.subview %[[LSE]]
func.func @column_tiles(%wo: tensor<8x16x1x32xf32>, %wl: tensor<8x16x1xf32>)
    -> (tensor<2x16x1x32xf16>, tensor<2x16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %oi = tensor.empty() : tensor<2x16x1x32xf16>
  %li = tensor.empty() : tensor<2x16x1xf32>
  %r:2 = scf.forall (%bi, %x, %qi) in (2, 2, 1) shared_outs(%o = %oi, %l = %li)
      -> (tensor<2x16x1x32xf16>, tensor<2x16x1xf32>) {
    %ct = arith.remui %x, %c2 : index
    %col = arith.muli %ct, %c16 : index
    %pot = tensor.extract_slice %wo[%bi, 0, %qi, %col] [4, 16, 1, 16] [2, 1, 1, 1]
        : tensor<8x16x1x32xf32> to tensor<4x16x16xf32>
    %plt = tensor.extract_slice %wl[%bi, 0, %qi] [4, 16, 1] [2, 1, 1]
        : tensor<8x16x1xf32> to tensor<4x16xf32>
    %ot, %lt = fa.combine_splits %pot, %plt : tensor<4x16x16xf32>, tensor<4x16xf32>
        -> tensor<16x16xf16, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>>, tensor<16xf32, #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>>
    %first = arith.cmpi eq, %ct, %c0 : index
    %nl = arith.select %first, %c16, %c0 : index
    %orows = tensor.extract_slice %ot[0, 0] [16, 16] [1, 1] : tensor<16x16xf16, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>> to tensor<16x16xf16>
    %lrows = tensor.extract_slice %lt[0] [%nl] [1] : tensor<16xf32, #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %o[%bi, 0, %qi, %col] [1, 16, 1, 16] [1, 1, 1, 1]
          : tensor<16x16xf16> into tensor<2x16x1x32xf16>
      tensor.parallel_insert_slice %lrows into %l[%bi, 0, %qi] [1, %nl, 1] [1, 1, 1]
          : tensor<?xf32> into tensor<2x16x1xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<x>, #gpu.block<y>]}
  return %r#0, %r#1 : tensor<2x16x1x32xf16>, tensor<2x16x1xf32>
}
