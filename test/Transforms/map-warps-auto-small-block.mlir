// RUN: fa-opt %s --fa-map-warps="num-warps=0" | FileCheck %s

// --fa-map-warps num-warps=0 takes the warps of the #fa.mma_sync head-dim
// table (MmaSyncAtom.cpp getDefaultTiles), fewer when the Q block is too
// small for them (map-warps.mlir covers the table itself: its other RUN
// lines ask for 8 warps, which this Q block cannot take).

// d = 160 with 64-row Q blocks: 8 warps would own 8 rows each, less than
// one 16-row mma tile, so num-warps=0 halves them to 4.
// CHECK-DAG: #acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-LABEL: func @d160_small_block_auto_warps
// CHECK-NOT: _w8
// CHECK: fa.qk {{.*}} -> tensor<64x32xf32, #acc_w4>
// CHECK-NOT: _w8
// CHECK: fa.finalize {{.*}} -> tensor<64x160xf16, #acc_w4>
func.func @d160_small_block_auto_warps(%q: tensor<?x2x?x160xf16>, %k: tensor<?x2x?x160xf16>, %v: tensor<?x2x?x160xf16>, %o: tensor<?x2x?x160xf16>) -> tensor<?x2x?x160xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 64 : index
  %cN = arith.constant 32 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x160xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x160xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x160xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x160xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x160xf16> to tensor<64x160xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
    %l0 = arith.constant dense<0.0> : tensor<64xf32>
    %acc0 = arith.constant dense<0.0> : tensor<64x160xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<64xf32>, tensor<64xf32>, tensor<64x160xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x160xf16> to tensor<32x160xf16>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 160] [1, 1, 1, 1] : tensor<?x2x?x160xf16> to tensor<?x160xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x160xf16> to tensor<32x160xf16>
      %s = fa.qk %qt, %kt : tensor<64x160xf16>, tensor<32x160xf16> -> tensor<64x32xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<64x32xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
      %p16 = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<64x160xf32>, tensor<64xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<64x32xf16>, tensor<32x160xf16>, tensor<64x160xf32>
      scf.yield %m2, %l2, %acc2 : tensor<64xf32>, tensor<64xf32>, tensor<64x160xf32>
    }
    %ot, %lset = fa.finalize %r#2, %r#0, %r#1 : tensor<64x160xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x160xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 160] [1, 1] : tensor<64x160xf16> to tensor<?x160xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 160] [1, 1, 1, 1] : tensor<?x160xf16> into tensor<?x2x?x160xf16>
    }
  }
  return %res : tensor<?x2x?x160xf16>
}


