// RUN: fa-opt %s -split-input-file --fa-pipeline-kv | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="stages=3" | FileCheck %s --check-prefix=S3
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="stages=4" | FileCheck %s --check-prefix=S4
// RUN: fa-opt %s -split-input-file --fa-pipeline-mma="all-atoms=true" --fa-pipeline-kv | FileCheck %s --check-prefix=MMA
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="l2-prefetch=256" | FileCheck %s --check-prefix=P256
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="l2-prefetch=0" | FileCheck %s --check-prefix=NOHINT
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="l2-prefetch=128" | FileCheck %s

// Once pipelined, no #fa.block_shared tile load is left: running the pass
// again (any stages) changes nothing.
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv -o %t.s2
// RUN: fa-opt %t.s2 -split-input-file --fa-pipeline-kv | diff %t.s2 -
// RUN: fa-opt %t.s2 -split-input-file --fa-pipeline-kv="stages=3" | diff %t.s2 -
// RUN: fa-opt %s -split-input-file --fa-pipeline-kv="stages=3" -o %t.s3
// RUN: fa-opt %t.s3 -split-input-file --fa-pipeline-kv="stages=3" | diff %t.s3 -

// With S stages, every shared tile load (tensor.pad of tensor.extract_slice
// into #shared) becomes an fa.async_load and an fa.await:
//   * before the first K/V loop: the Q tile (slot 0 of 1), then the K/V
//     tiles of the first S - 1 blocks (k = lb + i * N, slot (k floordiv N)
//     mod S, predicated on k < end of the last loop), then the await of Q
//     with the S - 1 later groups still pending;
//   * at the top of each iteration: the await of the oldest block in flight
//     (pending(S - 2)), then the async_load of block k0 + (S - 1) * N;
//   * the S - 1 futures in flight are iter_args, from one loop to the next.

// Two chained loops as --fa-causal-block-skip leaves them, after
// --fa-map-warps (Q in registers) and --fa-schedule-softmax (before-exp):
// hand-written L3, GQA 4:2, D = 64, 128 x 64 tiles.

// The default (l2-prefetch=-1) gives these forward nests l2_prefetch(128),
// as l2-prefetch=128 does (test/Pipelines/to-ptx-backward.mlir: none for
// the backward's); a size sets every load's hint; 0 leaves it out.
// P256-LABEL: func @two_loops
// P256: fa.async_load {{.*}} of 1 l2_prefetch(256) : tensor
// P256: fa.async_load {{.*}} of 2 if(%{{.*}}) l2_prefetch(256) : tensor
// NOHINT-NOT: l2_prefetch
// NOHINT: fa.async_load {{.*}} of 1 : tensor
// NOHINT: fa.async_load {{.*}} of 2 if(%{{.*}}) : tensor
// NOHINT-NOT: l2_prefetch

// CHECK-LABEL: func @two_loops
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x4x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>, %[[V:[^:]*]]: tensor<?x2x?x64xf16>, %[[O:[^:]*]]: tensor<?x4x?x64xf16>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x2x?x64xf16>
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %{{.*}}) in
// CHECK: %[[Q0:.*]] = arith.muli
// CHECK: %[[QROWS:.*]] = arith.minsi
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %{{.*}} : index
//     No sync tile load is left.
// CHECK-NOT: tensor.pad
// CHECK: %[[FULL_END:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %{{.*}} : index
//     Loop 1 ends at max(lb, ub) (an empty loop stays empty) and loop 2
//     starts there.
// CHECK: %[[END1:.*]] = arith.maxsi %[[C0]], %[[FULL_END]] : index
//     Prologue: the Q tile, slot 0 of 1, no predicate.
// CHECK: %[[SLOT0:.*]] = arith.constant 0 : index
// CHECK: %[[FQ:.*]] = fa.async_load %[[Q]][%[[B]], %[[H]], %[[Q0]]] rows(%[[QROWS]]) slot(%[[SLOT0]]) of 1 l2_prefetch(128) : tensor<?x4x?x64xf16> -> !fa.future<tensor<128x64xf16, #shared>>
//     Block 0 (k = 0 + 0 * 64): min(64, Nk - k) rows of K and V of head
//     h / 2, slot (k floordiv 64) mod 2, if k < end.
// CHECK: %[[I0:.*]] = arith.constant 0 : index
// CHECK: %[[KB0:.*]] = arith.addi %[[C0]], %[[I0]] : index
// CHECK: %[[LEFT0:.*]] = arith.subi %[[NK]], %[[KB0]] : index
// CHECK: %[[ROWS0:.*]] = arith.minsi %[[C64]], %[[LEFT0]] : index
// CHECK: %[[N0:.*]] = arith.constant 64 : index
// CHECK: %[[BLK0:.*]] = arith.divui %[[KB0]], %[[N0]] : index
// CHECK: %[[S0:.*]] = arith.constant 2 : index
// CHECK: %[[SL0:.*]] = arith.remui %[[BLK0]], %[[S0]] : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[KB0]], %[[END]] : index
// CHECK: %[[F0:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KB0]]] rows(%[[ROWS0]]) slot(%[[SL0]]) of 2 if(%[[IN0]]) l2_prefetch(128) : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> !fa.future<tensor<64x64xf16, #shared>, tensor<64x64xf16, #shared>>
//     Q is awaited with block 0 still in flight, then moved to registers.
// CHECK: %[[QT:.*]] = fa.await %[[FQ]] pending(1) : !fa.future<tensor<128x64xf16, #shared>>
// CHECK-NEXT: %[[QA:.*]] = fa.convert_layout %[[QT]] : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA_w4>
//     Loop 1 carries the future of the block it uses next.
// CHECK: %[[R1:.*]]:4 = scf.for %[[K1:.*]] = %[[C0]] to %[[END1]] step %[[C64]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[F1:.*]] = %[[F0]]) -> (tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>, tensor<128x64xf32, #acc_w4>, !fa.future<tensor<64x64xf16, #shared>, tensor<64x64xf16, #shared>>) {
//     First the await of this block (nothing else may stay in flight)...
// CHECK-NEXT: %[[KV1:.*]]:2 = fa.await %[[F1]] pending(0) : !fa.future<tensor<64x64xf16, #shared>, tensor<64x64xf16, #shared>>
//     ... then the load of block k0 + 64 into the other slot, if before end.
// CHECK: %[[N1:.*]] = arith.constant 64 : index
// CHECK: %[[KN1:.*]] = arith.addi %[[K1]], %[[N1]] : index
// CHECK: %[[LEFT1:.*]] = arith.subi %[[NK]], %[[KN1]] : index
// CHECK: %[[ROWS1:.*]] = arith.minsi %[[C64]], %[[LEFT1]] : index
// CHECK: %[[BLK1:.*]] = arith.divui %[[KN1]], %{{.*}} : index
// CHECK: %[[SL1:.*]] = arith.remui %[[BLK1]], %{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %[[KN1]], %[[END]] : index
// CHECK: %[[FN1:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KN1]]] rows(%[[ROWS1]]) slot(%[[SL1]]) of 2 if(%[[IN1]])
//     The math reads the awaited tiles: K in fa.qk, V in fa.pv.
// CHECK: fa.qk %[[QA]], %[[KV1]]#0 : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared>
// CHECK: fa.pv %{{.*}}, %[[KV1]]#1, %{{.*}} : tensor<128x64xf16, #opA_w4>, tensor<64x64xf16, #shared>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN1]] :
//     Loop 2 starts where loop 1 ends, from its state and its future.
// CHECK: %[[R2:.*]]:4 = scf.for %[[K2:.*]] = %[[END1]] to %[[END]] step %[[C64]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2, %[[F2:.*]] = %[[R1]]#3)
// CHECK-NEXT: %[[KV2:.*]]:2 = fa.await %[[F2]] pending(0)
// CHECK: %[[KN2:.*]] = arith.addi %[[K2]], %{{.*}} : index
// CHECK: %[[IN2:.*]] = arith.cmpi slt, %[[KN2]], %[[END]] : index
// CHECK: %[[FN2:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KN2]]] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%[[IN2]])
// CHECK: %[[S2:.*]] = fa.qk %[[QA]], %[[KV2]]#0
// CHECK: fa.mask %[[S2]][%[[Q0]], %[[K2]]]
// CHECK: fa.pv %{{.*}}, %[[KV2]]#1, %{{.*}}
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN2]] :
//     The future left in flight at the end (a block at or past end: its
//     predicate was false, nothing was copied) is never awaited.
// CHECK: fa.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1
// CHECK-NOT: fa.await

//     stages=3: blocks 0 and 1 in the prologue (slots of 3), Q awaited with
//     both pending; two futures per loop, the oldest awaited with one still
//     pending, block k0 + 128 issued, the futures shifted.
// S3-LABEL: func @two_loops
// S3-SAME: (%{{[^:]*}}: tensor<?x4x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>
// S3-DAG: %[[C64:.*]] = arith.constant 64 : index
// S3-DAG: %[[NK:.*]] = tensor.dim %[[K]]
// S3: scf.forall
// S3: %[[FULL_END:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// S3: %[[END:.*]] = arith.minsi %[[NK]], %{{.*}} : index
// S3: %[[END1:.*]] = arith.maxsi %{{.*}}, %[[FULL_END]] : index
// S3: %[[FQ:.*]] = fa.async_load %{{.*}} slot(%{{.*}}) of 1
// S3: %[[KB0:.*]] = arith.addi %[[C0:[^,]*]], %{{.*}} : index
// S3: %[[SLOTS:.*]] = arith.constant 3 : index
// S3: arith.remui %{{.*}}, %[[SLOTS]] : index
// S3: %[[IN0:.*]] = arith.cmpi slt, %[[KB0]], %[[END]] : index
// S3: %[[F0:.*]] = fa.async_load {{.*}}[%{{.*}}, %{{.*}}, %[[KB0]]] {{.*}} of 3 if(%[[IN0]])
// S3: %[[I1:.*]] = arith.constant 64 : index
// S3: %[[KB1:.*]] = arith.addi %[[C0]], %[[I1]] : index
// S3: %[[IN1:.*]] = arith.cmpi slt, %[[KB1]], %[[END]] : index
// S3: %[[F1:.*]] = fa.async_load {{.*}}[%{{.*}}, %{{.*}}, %[[KB1]]] {{.*}} of 3 if(%[[IN1]])
// S3: fa.await %[[FQ]] pending(2)
// S3: %[[R1:.*]]:5 = scf.for %[[K1:.*]] = %[[C0]] to %[[END1]] {{.*}} iter_args({{.*}}, %[[FA:.*]] = %[[F0]], %[[FB:.*]] = %[[F1]])
// S3-NEXT: %[[KV:.*]]:2 = fa.await %[[FA]] pending(1)
// S3: %[[AHEAD:.*]] = arith.constant 128 : index
// S3: %[[KN:.*]] = arith.addi %[[K1]], %[[AHEAD]] : index
// S3: %[[FN:.*]] = fa.async_load {{.*}}[%{{.*}}, %{{.*}}, %[[KN]]] {{.*}} of 3 if(
// S3: fa.qk %{{.*}}, %[[KV]]#0
// S3: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FB]], %[[FN]] :
// S3: %[[R2:.*]]:5 = scf.for %{{.*}} = %[[END1]] to %[[END]] {{.*}} iter_args({{.*}}, %[[FC:.*]] = %[[R1]]#3, %[[FD:.*]] = %[[R1]]#4)
// S3-NEXT: fa.await %[[FC]] pending(1)
// S3: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FD]], %{{.*}} :

//     stages=4: three blocks ahead, Q awaited with 3 pending, 2 pending in
//     the loops, block k0 + 192 issued.
// S4-LABEL: func @two_loops
// S4-COUNT-3: fa.async_load {{.*}} of 4 if(
// S4: fa.await %{{.*}} pending(3) : !fa.future<tensor<128x64xf16, #shared>>
// S4: scf.for {{.*}} iter_args({{.*}}, %[[FA:.*]] = %{{.*}}, %[[FB:.*]] = %{{.*}}, %[[FC:.*]] = %{{.*}}) ->
// S4-NEXT: fa.await %[[FA]] pending(2)
// S4: arith.constant 192 : index
// S4: %[[FN:.*]] = fa.async_load {{.*}} of 4 if(
// S4: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FB]], %[[FC]], %[[FN]] :
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @two_loops(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x4x?x64xf16>)
    -> tensor<?x4x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 2 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x4x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x4x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 4, %nqb) shared_outs(%os = %o) -> (tensor<?x4x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x4x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %diag = arith.addi %q0, %off : index
    %first_end = arith.addi %diag, %c1 : index
    %first_vis = arith.minsi %nk, %first_end : index
    %first_cl = arith.maxsi %first_vis, %c0 : index
    %full_blocks = arith.divui %first_cl, %cN : index
    %full_end = arith.muli %full_blocks, %cN : index
    %last_end = arith.addi %diag, %cM : index
    %last_cl = arith.maxsi %last_end, %c0 : index
    %end = arith.minsi %nk, %last_cl : index
    %r1:3 = scf.for %k0 = %c0 to %full_end step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %r2:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r2#2, %r2#0, %r2#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x4x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x4x?x64xf16>
}

// -----

// Three chained loops, as --fa-causal-block-skip leaves a sliding window
// (causal, window(256, 0); hand-written L3, D = 64, 128 x 64 tiles): the
// masked left edge [begin, full_start), the unmasked middle
// [full_start, full_end) and the masked right edge [full_end, end). Their
// non-last bounds are min/max of whole blocks (multiples of 64 by
// construction), which the pass accepts. The prologue loads the first
// block of the FIRST loop (k = begin, not 0); each loop after the first
// starts at max(lb, ub) of the one before; one future is carried through
// all three loops; every load is predicated on k < end of the last loop.

// CHECK-LABEL: func @three_loops
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x4x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>, %[[V:[^:]*]]: tensor<?x2x?x64xf16>, %[[O:[^:]*]]: tensor<?x4x?x64xf16>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x2x?x64xf16>
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %{{.*}}) in
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %{{.*}} : index
// CHECK-NOT: tensor.pad
//     floor(end(q0) / 64) * 64, end, begin.
// CHECK: %[[FE0:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %{{.*}} : index
// CHECK: %[[BEGIN:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: %[[LAST_BLOCK:.*]] = arith.maxsi %[[BEGIN]], %{{.*}} : index
// CHECK: %[[FS0:.*]] = arith.maxsi %{{.*}}, %[[BEGIN]] : index
// CHECK: %[[FULL_START:.*]] = arith.minsi %[[FS0]], %[[LAST_BLOCK]] : index
// CHECK: %[[FE1:.*]] = arith.maxsi %[[FE0]], %[[FULL_START]] : index
// CHECK: %[[FULL_END:.*]] = arith.minsi %[[FE1]], %[[LAST_BLOCK]] : index
//     Loop 2 starts at max(begin, full_start).
// CHECK: %[[END1:.*]] = arith.maxsi %[[BEGIN]], %[[FULL_START]] : index
// CHECK: %[[FQ:.*]] = fa.async_load %[[Q]]
//     The first K/V block: k = begin + 0.
// CHECK: %[[KB0:.*]] = arith.addi %[[BEGIN]], %{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[KB0]], %[[END]] : index
// CHECK: %[[F0:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KB0]]] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%[[IN0]])
// CHECK: fa.await %[[FQ]] pending(1)
//     Loop 1, the left edge (window bound only).
// CHECK: %[[R1:.*]]:4 = scf.for %[[K1:.*]] = %[[BEGIN]] to %[[END1]] step %[[C64]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[F1:.*]] = %[[F0]])
// CHECK-NEXT: %[[KV1:.*]]:2 = fa.await %[[F1]] pending(0)
// CHECK: %[[KN1:.*]] = arith.addi %[[K1]], %{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %[[KN1]], %[[END]] : index
// CHECK: %[[FN1:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KN1]]] {{.*}} if(%[[IN1]])
// CHECK: %[[S1:.*]] = fa.qk %{{.*}}, %[[KV1]]#0
// CHECK: fa.mask %[[S1]][%{{.*}}, %[[K1]]] key_limit(%[[NK]]) window_offset(%{{.*}})
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN1]] :
//     Loop 2, the middle: from max(begin, full_start) to max(that,
//     full_end), no mask, carrying loop 1's future.
// CHECK: %[[END2:.*]] = arith.maxsi %[[END1]], %[[FULL_END]] : index
// CHECK: %[[R2:.*]]:4 = scf.for %[[K2:.*]] = %[[END1]] to %[[END2]] step %[[C64]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2, %[[F2:.*]] = %[[R1]]#3)
// CHECK-NEXT: %[[KV2:.*]]:2 = fa.await %[[F2]] pending(0)
// CHECK: %[[KN2:.*]] = arith.addi %[[K2]], %{{.*}} : index
// CHECK: %[[IN2:.*]] = arith.cmpi slt, %[[KN2]], %[[END]] : index
// CHECK: %[[FN2:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KN2]]] {{.*}} if(%[[IN2]])
// CHECK: fa.qk %{{.*}}, %[[KV2]]#0
// CHECK-NOT: fa.mask
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN2]] :
//     Loop 3, the right edge, to end, carrying loop 2's future.
// CHECK: %[[R3:.*]]:4 = scf.for %[[K3:.*]] = %[[END2]] to %[[END]] step %[[C64]] iter_args(%{{.*}} = %[[R2]]#0, %{{.*}} = %[[R2]]#1, %{{.*}} = %[[R2]]#2, %[[F3:.*]] = %[[R2]]#3)
// CHECK-NEXT: %[[KV3:.*]]:2 = fa.await %[[F3]] pending(0)
// CHECK: %[[KN3:.*]] = arith.addi %[[K3]], %{{.*}} : index
// CHECK: %[[IN3:.*]] = arith.cmpi slt, %[[KN3]], %[[END]] : index
// CHECK: %[[FN3:.*]] = fa.async_load %[[K]], %[[V]][%[[B]], %[[KVH]], %[[KN3]]] {{.*}} if(%[[IN3]])
// CHECK: %[[SCORES3:.*]] = fa.qk %{{.*}}, %[[KV3]]#0
// CHECK: fa.mask %[[SCORES3]][%{{.*}}, %[[K3]]] key_limit(%[[NK]]) causal_offset(%{{.*}})
// CHECK: fa.pv %{{.*}}, %[[KV3]]#1, %{{.*}}
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN3]] :
// CHECK: fa.finalize %[[R3]]#2, %[[R3]]#0, %[[R3]]#1
// CHECK-NOT: fa.await

//     stages=3: two futures shifted through the three loops.
// S3-LABEL: func @three_loops
// S3: %[[F0:.*]] = fa.async_load {{.*}} of 3 if(
// S3: %[[F1:.*]] = fa.async_load {{.*}} of 3 if(
// S3: fa.await %{{.*}} pending(2)
// S3: %[[R1:.*]]:5 = scf.for {{.*}} iter_args({{.*}}, %[[FA:.*]] = %[[F0]], %[[FB:.*]] = %[[F1]])
// S3-NEXT: fa.await %[[FA]] pending(1)
// S3: %[[FN:.*]] = fa.async_load {{.*}} of 3 if(
// S3: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FB]], %[[FN]] :
// S3: %[[R2:.*]]:5 = scf.for {{.*}} iter_args({{.*}}, %[[FC:.*]] = %[[R1]]#3, %[[FD:.*]] = %[[R1]]#4)
// S3-NEXT: fa.await %[[FC]] pending(1)
// S3: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FD]], %{{.*}} :
// S3: %[[R3:.*]]:5 = scf.for {{.*}} iter_args({{.*}}, %[[FE:.*]] = %[[R2]]#3, %{{.*}} = %[[R2]]#4)
// S3-NEXT: fa.await %[[FE]] pending(1)
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @three_loops(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x4x?x64xf16>)
    -> tensor<?x4x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 2 : index
  %cLast = arith.constant 127 : index
  %cLeft = arith.constant -256 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x4x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x4x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %woff = arith.addi %off, %cLeft : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 4, %nqb) shared_outs(%os = %o) -> (tensor<?x4x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x4x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<128x64xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %last = arith.addi %q0, %cLast : index
    %diag = arith.addi %q0, %off : index
    %first_end = arith.addi %diag, %c1 : index
    %first_vis = arith.minsi %nk, %first_end : index
    %first_cl = arith.maxsi %first_vis, %c0 : index
    %fe_blocks = arith.divui %first_cl, %cN : index
    %fe0 = arith.muli %fe_blocks, %cN : index
    %last_end = arith.addi %diag, %cM : index
    %last_cl = arith.maxsi %last_end, %c0 : index
    %end = arith.minsi %nk, %last_cl : index
    %b0 = arith.addi %q0, %woff : index
    %b0_cl = arith.maxsi %b0, %c0 : index
    %b_blocks = arith.divui %b0_cl, %cN : index
    %begin = arith.muli %b_blocks, %cN : index
    %b1 = arith.addi %last, %woff : index
    %b1_cl = arith.maxsi %b1, %c0 : index
    %ff_blocks = arith.ceildivui %b1_cl, %cN : index
    %first_full = arith.muli %ff_blocks, %cN : index
    %end_blocks = arith.ceildivui %end, %cN : index
    %end_up = arith.muli %end_blocks, %cN : index
    %last_block = arith.maxsi %begin, %end_up : index
    %fs0 = arith.maxsi %first_full, %begin : index
    %full_start = arith.minsi %fs0, %last_block : index
    %fe1 = arith.maxsi %fe0, %full_start : index
    %full_end = arith.minsi %fe1, %last_block : index
    %r1:3 = scf.for %k0 = %begin to %full_start step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) window_offset(%woff) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %r2:3 = scf.for %k0 = %full_start to %full_end step %cN iter_args(%m = %r1#0, %l = %r1#1, %acc = %r1#2)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %r3:3 = scf.for %k0 = %full_end to %end step %cN iter_args(%m = %r2#0, %l = %r2#1, %acc = %r2#2)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<64x64xf16, #shared>
      %s = fa.qk %qa, %kt : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xf16, #acc> -> tensor<128x64xf16, #opA>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xf16, #opA>, tensor<64x64xf16, #shared>, tensor<128x64xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x64xf32, #acc>
    }
    %ot, %lset = fa.finalize %r3#2, %r3#0, %r3#1 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<128x64xf16, #acc> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x4x?x64xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x4x?x64xf16>
}

// -----

// One loop (not causal), bf16, D = 128, Q in shared memory: the awaited Q
// tile is read by fa.qk in every iteration; the single loop keeps its bounds
// and its end is the predicate's bound.

// CHECK-LABEL: func @one_loop
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x2x?x128xbf16>, %[[K:[^:]*]]: tensor<?x2x?x128xbf16>, %[[V:[^:]*]]: tensor<?x2x?x128xbf16>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x2x?x128xbf16>
// CHECK-NOT: tensor.pad
// CHECK: %[[FQ:.*]] = fa.async_load %[[Q]][{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 1 l2_prefetch(128) : tensor<?x2x?x128xbf16> -> !fa.future<tensor<128x128xbf16, #shared>>
// CHECK: %[[KB0:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[KB0]], %[[NK]] : index
// CHECK: %[[F0:.*]] = fa.async_load %[[K]], %[[V]][{{.*}}, %[[KB0]]] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%[[IN0]]) l2_prefetch(128) : tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> !fa.future<tensor<64x128xbf16, #shared>, tensor<64x128xbf16, #shared>>
// CHECK: %[[QT:.*]] = fa.await %[[FQ]] pending(1)
// CHECK-NOT: fa.convert_layout %[[QT]]
// CHECK: %[[R:.*]]:4 = scf.for %[[K0:.*]] = %[[C0]] to %[[NK]] step %[[C64]] iter_args({{.*}}, %[[F:.*]] = %[[F0]])
// CHECK-NEXT: %[[KV:.*]]:2 = fa.await %[[F]] pending(0)
// CHECK: %[[KN:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[KN]], %[[NK]] : index
// CHECK: %[[FN:.*]] = fa.async_load %[[K]], %[[V]][{{.*}}, %[[KN]]] {{.*}} if(%[[IN]])
// CHECK: fa.qk %[[QT]], %[[KV]]#0 : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared>
// CHECK: fa.pv %{{.*}}, %[[KV]]#1, %{{.*}}
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[FN]] :
// CHECK: fa.finalize %[[R]]#2, %[[R]]#0, %[[R]]#1
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// After --fa-pipeline-mma the loop yields block j's V tile for the P V of
// block j + 1: the ring gets one slot more than the stages (3 for 2), so
// the load issued in iteration j (block j + 1) goes to a slot that is
// neither block j's nor block j - 1's.
// MMA-LABEL: func @one_loop
// MMA: fa.async_load %{{.*}}, %{{.*}}[{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 3 if(%{{.*}})
// MMA: scf.for {{.*}} iter_args({{.*}}, %[[VP:.*]] = %{{.*}}, %[[F:.*]] = %{{.*}}) ->
// MMA: %[[KV:.*]]:2 = fa.await %[[F]] pending(0)
// MMA: %[[NEXT:.*]] = fa.async_load {{.*}} of 3 if
// MMA: arith.select %{{.*}}, %[[VP]], %[[KV]]#1
// MMA: scf.yield {{.*}}, %[[KV]]#1, %[[NEXT]] :
func.func @one_loop(%q: tensor<?x2x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %o: tensor<?x2x?x128xbf16>)
    -> tensor<?x2x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x128xbf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x128xbf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x128xbf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x128xbf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %s = fa.qk %qt, %kt : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xbf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xbf16, #acc> -> tensor<128x64xbf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xbf16, #opA>, tensor<64x128xbf16, #shared>, tensor<128x128xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x128xbf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xbf16, #acc> to tensor<?x128xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 128] [1, 1, 1, 1] : tensor<?x128xbf16> into tensor<?x2x?x128xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x2x?x128xbf16>
}

// -----

// A GQA-packed Q block (--fa-tile-q-outer pack-gqa: the 4 query heads of a
// group at query 0 are the rows of the tile): the Q tile's load is one
// fa.async_load along_heads at (batch, first head, position 0); the K/V
// loads are as always.

// CHECK-LABEL: func @gqa_packed
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x1x128xbf16>, %[[K:[^:]*]]: tensor<?x2x?x128xbf16>, %[[V:[^:]*]]: tensor<?x2x?x128xbf16>
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %{{.*}}) in
// CHECK: %[[H4:.*]] = arith.muli %[[H]], %{{.*}}
// CHECK: %[[H0:.*]] = arith.addi %[[H4]], %{{.*}}
// CHECK: %[[FQ:.*]] = fa.async_load %[[Q]][%[[B]], %[[H0]], %{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 1 l2_prefetch(128) {along_heads} : tensor<?x8x1x128xbf16> -> !fa.future<tensor<128x128xbf16, #shared>>
// CHECK: fa.async_load %[[K]], %[[V]][%[[B]], %{{.*}}, %{{.*}}] rows(%{{.*}}) slot(%{{.*}}) of 2 if(%{{.*}}) l2_prefetch(128) : tensor<?x2x?x128xbf16>
// CHECK-NOT: along_heads
// CHECK: fa.finalize
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

func.func @gqa_packed(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %o: tensor<?x8x1x128xbf16>)
    -> tensor<?x8x1x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 128 : index
  %cN = arith.constant 64 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x8x1x128xbf16>
  %nq = arith.constant 4 : index
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x128xbf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x8x1x128xbf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.addi %h, %c0 : index
    %h4 = arith.muli %h, %nq : index
    %h0 = arith.addi %h4, %q0 : index
    %qs = tensor.extract_slice %q[%b, %h0, 0, 0] [1, %qrows, 1, 128] [1, 1, 1, 1] : tensor<?x8x1x128xbf16> to tensor<?x128xbf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x128xbf16> to tensor<128x128xbf16, #shared>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #rows>
    %l0 = arith.constant dense<0.0> : tensor<128xf32, #partial>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 128] [1, 1, 1, 1] : tensor<?x2x?x128xbf16> to tensor<?x128xbf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : bf16
      } : tensor<?x128xbf16> to tensor<64x128xbf16, #shared>
      %s = fa.qk %qt, %kt : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc>
      %sm = fa.mask %s[%c0, %k0] key_limit(%nk) {single_query} : tensor<128x64xf32, #acc>
      %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
      %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
      %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xbf16, #acc>
      %pa = fa.convert_layout %p16 : tensor<128x64xbf16, #acc> -> tensor<128x64xbf16, #opA>
      %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
      %acc2 = fa.pv %pa, %vt, %acc1 : tensor<128x64xbf16, #opA>, tensor<64x128xbf16, #shared>, tensor<128x128xf32, #acc>
      scf.yield %m2, %l2, %acc2 : tensor<128xf32, #rows>, tensor<128xf32, #partial>, tensor<128x128xf32, #acc>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x128xbf16, #acc>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 128] [1, 1] : tensor<128x128xbf16, #acc> to tensor<?x128xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h0, 0, 0] [1, %qrows, 1, 128] [1, 1, 1, 1] : tensor<?x128xbf16> into tensor<?x8x1x128xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %res : tensor<?x8x1x128xbf16>
}

// -----

// A nest without layouts (no #fa.block_shared tile loads: CPU IR) is left
// alone.
// CHECK-LABEL: func @no_shared_tiles
// CHECK-NOT: fa.async_load
// CHECK-NOT: fa.await
// CHECK: scf.for {{.*}} -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: tensor.pad
// CHECK: tensor.pad
// CHECK: fa.qk
func.func @no_shared_tiles(%q: tensor<?x2x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>, %o: tensor<?x2x?x16xf32>)
    -> tensor<?x2x?x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 32 : index
  %cN = arith.constant 16 : index
  %cG = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x16xf32>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x16xf32>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x16xf32>
  %nqb = arith.ceildivui %nq, %cM : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x16xf32>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %kvh = arith.divui %h, %cG : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<?x16xf32> to tensor<32x16xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
    %l0 = arith.constant dense<0.0> : tensor<32xf32>
    %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
    %r1:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x16xf32> to tensor<16x16xf32>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<?x2x?x16xf32> to tensor<?x16xf32>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x16xf32> to tensor<16x16xf32>
      %s = fa.qk %qt, %kt : tensor<32x16xf32>, tensor<16x16xf32> -> tensor<32x16xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<32x16xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
      %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
      %acc2 = fa.pv %p, %vt, %acc1 : tensor<32x16xf32>, tensor<16x16xf32>, tensor<32x16xf32>
      scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
    }
    %ot, %lset = fa.finalize %r1#2, %r1#0, %r1#1 : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x16xf32>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 16] [1, 1] : tensor<32x16xf32> to tensor<?x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x16xf32> into tensor<?x2x?x16xf32>
    }
  }
  return %res : tensor<?x2x?x16xf32>
}
