// RUN: fa-opt %s --fa-lower-to-gpu -verify-diagnostics

// One kernel, one thread count: tiles held by different numbers of warps
// (#fa.warp_rows num_warps x replicas) in one loop nest are refused.


#acc = #fa.warp_rows<acc, num_warps = 1, replicas = 2, atom = #fa.mma_sync>
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
  // expected-error @+1 {{fa-lower-to-gpu: all tiles of one kernel must be held by the same number of warps (num_warps x replicas), got 1 x 2 and 1 x 1}}
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

