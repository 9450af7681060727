// RUN: fa-opt %s -split-input-file --fa-causal-block-skip | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-causal-block-skip --canonicalize | FileCheck %s --check-prefix=FOLDED

// Running the pass on its own output changes nothing: loop 1 has no mask and
// loop 2 does not start at 0.
// RUN: fa-opt %s -split-input-file --fa-causal-block-skip -o %t.once
// RUN: fa-opt %t.once -split-input-file --fa-causal-block-skip -o %t.twice
// RUN: diff %t.once %t.twice

// The loops after LEAVE-ALONE-BEGIN below are not the K/V loop of the tiled
// nest; the pass must print them exactly as it read them.
// RUN: sed -n '/^\/\/ LEAVE-ALONE-BEGIN/,$p' %s > %t.neg
// RUN: fa-opt %t.neg -split-input-file -o %t.neg.before
// RUN: fa-opt %t.neg -split-input-file --fa-causal-block-skip -o %t.neg.after
// RUN: diff %t.neg.before %t.neg.after

// Stage L1 -> L2: the K/V loop [0, Nk) of a Q block (rows [q0, q0 + M))
// becomes
//   loop 1 [0, full_end), no fa.mask: the blocks every row sees entirely,
//   loop 2 [full_end, end), masked: the rest of the blocks any row sees,
// with row i seeing keys j < min(key_limit, i + causal_offset + 1) (the
// mask's definition, AttentionMath.h visibleKeysEnd), so
//   full_end = floor(max(0, min(Nk, end(q0))) / N) * N
//   end      = min(Nk, max(0, end(q0 + M - 1)))
// and loop 2 continues loop 1's state (m, l, acc).

// Causal, dynamic Nq and Nk, M = 32, N = 16 (hand-written L1).
// CHECK-LABEL: func @causal
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x?x16xf16>, %[[K:[^:]*]]: tensor<1x2x?x16xf16>, %[[V:[^:]*]]: tensor<1x2x?x16xf16>, %[[O:[^:]*]]: tensor<1x2x?x16xf16>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<1x2x?x16xf16>
// CHECK-DAG: %[[OFF:.*]] = arith.subi %[[NK]], %{{.*}} : index
// CHECK: scf.forall
// CHECK: %[[Q0:.*]] = arith.muli %{{.*}}, %[[C32]] : index
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<32xf32>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
//     The last row of the Q block: q0 + M - 1.
// CHECK: %[[C31:.*]] = arith.constant 31 : index
// CHECK: %[[LAST_ROW:.*]] = arith.addi %[[Q0]], %[[C31]] : index
//     The first row's visible-key end min(Nk, q0 + off + 1), clamped at 0,
//     within the loop bound Nk; rounded down to whole blocks of 16: full_end.
// CHECK: %[[ONE_A:.*]] = arith.constant 1 : index
// CHECK: %[[DIAG_A:.*]] = arith.addi %[[Q0]], %[[OFF]] : index
// CHECK: %[[ROW_END_A:.*]] = arith.addi %[[DIAG_A]], %[[ONE_A]] : index
// CHECK: %[[VIS_A:.*]] = arith.minsi %[[NK]], %[[ROW_END_A]] : index
// CHECK: %[[ZERO_A:.*]] = arith.constant 0 : index
// CHECK: %[[CLAMPED_A:.*]] = arith.maxsi %[[VIS_A]], %[[ZERO_A]] : index
// CHECK: %[[FIRST_END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_A]] : index
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[FIRST_END]], %[[N:.*]] : index
// CHECK: %[[FULL_END:.*]] = arith.muli %[[BLOCKS]], %[[N]] : index
//     The last row's visible-key end, clamped at 0, within Nk: end.
// CHECK: %[[ONE_B:.*]] = arith.constant 1 : index
// CHECK: %[[DIAG_B:.*]] = arith.addi %[[LAST_ROW]], %[[OFF]] : index
// CHECK: %[[ROW_END_B:.*]] = arith.addi %[[DIAG_B]], %[[ONE_B]] : index
// CHECK: %[[VIS_B:.*]] = arith.minsi %[[NK]], %[[ROW_END_B]] : index
// CHECK: %[[ZERO_B:.*]] = arith.constant 0 : index
// CHECK: %[[CLAMPED_B:.*]] = arith.maxsi %[[VIS_B]], %[[ZERO_B]] : index
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_B]] : index
//     Loop 1: [0, full_end), from the initial state, no mask: the scores
//     go straight to the softmax.
// CHECK: %[[R1:.*]]:3 = scf.for %[[K1:.*]] = %[[C0]] to %[[FULL_END]] step %[[C16]] iter_args(%[[M1:.*]] = %[[M0]], %[[L1:.*]] = %[[L0]], %[[A1:.*]] = %[[ACC0]]) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
// CHECK: tensor.extract_slice %[[K]][%{{.*}}, %{{.*}}, %[[K1]], 0]
// CHECK: %[[S1:.*]] = fa.qk
// CHECK-NOT: fa.mask
// CHECK: %[[P1:.*]], %[[MN1:.*]], %[[LN1:.*]], %[[AL1:.*]] = fa.online_softmax %[[S1]], %[[M1]], %[[L1]] scale
// CHECK: fa.rescale %[[A1]], %[[AL1]]
// CHECK: scf.yield %[[MN1]], %[[LN1]], %{{.*}} :
// CHECK-NEXT: }
//     Loop 2: [full_end, end), from loop 1's state, the mask kept as it was.
// CHECK-NEXT: %[[R2:.*]]:3 = scf.for %[[K2:.*]] = %[[FULL_END]] to %[[END]] step %[[C16]] iter_args(%[[M2:.*]] = %[[R1]]#0, %[[L2:.*]] = %[[R1]]#1, %[[A2:.*]] = %[[R1]]#2) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
// CHECK: tensor.extract_slice %[[K]][%{{.*}}, %{{.*}}, %[[K2]], 0]
// CHECK: %[[S2:.*]] = fa.qk
// CHECK: %[[SM2:.*]] = fa.mask %[[S2]][%[[Q0]], %[[K2]]] key_limit(%[[NK]]) causal_offset(%[[OFF]]) : tensor<32x16xf32>
// CHECK: fa.online_softmax %[[SM2]], %[[M2]], %[[L2]] scale
// CHECK: scf.yield
//     fa.finalize reads the state of loop 2.
// CHECK: fa.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1
// CHECK-NOT: = scf.for
func.func @causal(%q: tensor<1x2x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
                  %o: tensor<1x2x?x16xf16>) -> tensor<1x2x?x16xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.360673755 : f32
  %nq = tensor.dim %q, %c2 : tensor<1x2x?x16xf16>
  %nk = tensor.dim %k, %c2 : tensor<1x2x?x16xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%os = %o) -> (tensor<1x2x?x16xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %c32, %qleft : index
    %kvh = arith.divui %h, %c1 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
    %qpad = arith.subi %c32, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
    %l0 = arith.constant dense<0.0> : tensor<32xf32>
    %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %c16, %kleft : index
      %kpad = arith.subi %c16, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<1x2x?x16xf16> to tensor<?x16xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x16xf16> to tensor<16x16xf16>
      %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
      %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
      scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
    }
    %ot, %lse = fa.finalize %r#2, %r#0, %r#1 : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x16xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 16] [1, 1] : tensor<32x16xf16> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x2x?x16xf16>
    }
  }
  return %res : tensor<1x2x?x16xf16>
}

// -----

// Key limit only (not causal), static Nq = 100, Nk = 90, f32: full_end =
// floor(max(0, min(90, 90)) / 16) * 16 and end = min(90, max(90, 0));
// canonicalized, the unmasked loop is [0, 80) and the one masked block at
// 80 (a one-trip loop, inlined) keeps the key limit.
// CHECK-LABEL: func @key_limit_only
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[NK:.*]] = arith.constant 90 : index
// CHECK: %[[Q0:.*]] = arith.muli
//     Without causal_offset the row ends are the key limit: no per-row
//     arithmetic.
// CHECK-NOT: arith.addi %[[Q0]]
// CHECK: %[[CLAMPED_A:.*]] = arith.maxsi %[[NK]], %{{.*}} : index
// CHECK: %[[FIRST_END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_A]] : index
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[FIRST_END]], %[[N:.*]] : index
// CHECK: %[[FULL_END:.*]] = arith.muli %[[BLOCKS]], %[[N]] : index
// CHECK: %[[CLAMPED_B:.*]] = arith.maxsi %[[NK]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_B]] : index
// CHECK: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[C0]] to %[[FULL_END]] step %[[C16]]
// CHECK-NOT: fa.mask
// CHECK: scf.yield
// CHECK: %[[R2:.*]]:3 = scf.for %[[K2:.*]] = %[[FULL_END]] to %[[END]] step %[[C16]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[K2]]] key_limit(%[[NK]]) : tensor<32x16xf32>
// CHECK-NOT: causal_offset
// CHECK: fa.finalize %[[R2]]#2, %[[R2]]#0, %[[R2]]#1

// FOLDED-LABEL: func @key_limit_only
// FOLDED-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLDED-DAG: %[[C16:.*]] = arith.constant 16 : index
// FOLDED-DAG: %[[C80:.*]] = arith.constant 80 : index
// FOLDED-DAG: %[[C90:.*]] = arith.constant 90 : index
// FOLDED: scf.for %{{.*}} = %[[C0]] to %[[C80]] step %[[C16]]
// FOLDED-NOT: fa.mask
// FOLDED: scf.yield
// FOLDED: fa.mask %{{.*}}[%{{.*}}, %[[C80]]] key_limit(%[[C90]]) : tensor<32x16xf32>
// FOLDED-NOT: = scf.for
// FOLDED: fa.finalize
func.func @key_limit_only(%q: tensor<1x2x100x16xf32>, %k: tensor<1x2x90x16xf32>, %v: tensor<1x2x90x16xf32>,
                  %o: tensor<1x2x100x16xf32>) -> tensor<1x2x100x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.360673755 : f32
  %nq = arith.constant 100 : index
  %nk = arith.constant 90 : index
  %nqb = arith.ceildivui %nq, %c32 : index
  %res = scf.forall (%b, %h, %qb) in (1, 2, %nqb) shared_outs(%os = %o) -> (tensor<1x2x100x16xf32>) {
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %c32, %qleft : index
    %kvh = arith.divui %h, %c1 : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<1x2x100x16xf32> to tensor<?x16xf32>
    %qpad = arith.subi %c32, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<?x16xf32> to tensor<32x16xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
    %l0 = arith.constant dense<0.0> : tensor<32xf32>
    %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %c16, %kleft : index
      %kpad = arith.subi %c16, %krows : index
      %ks = tensor.extract_slice %k[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<1x2x90x16xf32> to tensor<?x16xf32>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<?x16xf32> to tensor<16x16xf32>
      %vs = tensor.extract_slice %v[%b, %kvh, %k0, 0] [1, 1, %krows, 16] [1, 1, 1, 1] : tensor<1x2x90x16xf32> to tensor<?x16xf32>
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
    %ot, %lse = fa.finalize %r#2, %r#0, %r#1 : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x16xf32>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 16] [1, 1] : tensor<32x16xf32> to tensor<?x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 16] [1, 1, 1, 1] : tensor<?x16xf32> into tensor<1x2x100x16xf32>
    }
  }
  return %res : tensor<1x2x100x16xf32>
}

// -----

// Concrete bounds (canonicalized): a Q block at q0 = 64 with M = 32,
// Nk = 300, causal offset 200. Row 64 sees keys [0, 265): full_end =
// floor(265 / 16) * 16 = 256; row 95 sees keys [0, 296): end = 296.
// FOLDED-LABEL: func @static_bounds
// FOLDED-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLDED-DAG: %[[C16:.*]] = arith.constant 16 : index
// FOLDED-DAG: %[[C64:.*]] = arith.constant 64 : index
// FOLDED-DAG: %[[C200:.*]] = arith.constant 200 : index
// FOLDED-DAG: %[[C256:.*]] = arith.constant 256 : index
// FOLDED-DAG: %[[C296:.*]] = arith.constant 296 : index
// FOLDED-DAG: %[[C300:.*]] = arith.constant 300 : index
// FOLDED: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[C0]] to %[[C256]] step %[[C16]]
// FOLDED-NOT: fa.mask
// FOLDED: scf.yield
// FOLDED: %[[R2:.*]]:3 = scf.for %[[K2:.*]] = %[[C256]] to %[[C296]] step %[[C16]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// FOLDED: fa.mask %{{.*}}[%[[C64]], %[[K2]]] key_limit(%[[C300]]) causal_offset(%[[C200]])
// FOLDED: return %[[R2]]#2
func.func @static_bounds(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %q0 = arith.constant 64 : index
  %nk = arith.constant 300 : index
  %off = arith.constant 200 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// A Q block that sees no key (Nq > Nk: causal offset -100, q0 = 0, rows
// 0..31 see keys below i - 99 < 0): full_end = end = 0, neither loop runs
// and the state stays the initial one.
// FOLDED-LABEL: func @no_visible_key
// FOLDED: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
// FOLDED-NOT: = scf.for
// FOLDED-NOT: fa.
// FOLDED: return %[[ACC0]]
func.func @no_visible_key(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %q0 = arith.constant 0 : index
  %nk = arith.constant 300 : index
  %off = arith.constant -100 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// LEAVE-ALONE-BEGIN: loops the pass must not touch (checked above by diff;
// here: still one loop, mask in place).

// The mask's col_start is not the induction variable (the mask is not on
// the loop's own block).
// CHECK-LABEL: func @col_start_not_iv
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @col_start_not_iv(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %c0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// The loop does not start at key 0.
// CHECK-LABEL: func @lower_bound_not_zero
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @lower_bound_not_zero(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c16 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// The lower bound is not a constant.
// CHECK-LABEL: func @lower_bound_not_constant
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @lower_bound_not_constant(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %q0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// The step (32) is not the K/V block width (16 score columns).
// CHECK-LABEL: func @step_not_block
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @step_not_block(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c32 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// Two masks in the body.
// CHECK-LABEL: func @two_masks
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @two_masks(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %s1 = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<32x16xf32>
    %sm = fa.mask %s1[%q0, %k0] causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// No fa.online_softmax (already split by --fa-schedule-softmax).
// CHECK-LABEL: func @no_online_softmax
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @no_online_softmax(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32>, tensor<32xf32>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// A mask operand (row_start) is defined inside the loop.
// CHECK-LABEL: func @row_start_inside
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @row_start_inside(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %q1 = arith.addi %q0, %c16 : index
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q1, %k0] key_limit(%nk) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// A mask operand (key_limit) is defined inside the loop.
// CHECK-LABEL: func @key_limit_inside
// CHECK: scf.for
// CHECK: fa.mask
// CHECK-NOT: = scf.for
// CHECK: return
func.func @key_limit_inside(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %lim = arith.subi %nk, %k0 : index
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%lim) causal_offset(%off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}
