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

// A sliding window (hand-written L1 of window(100, 5), not causal; M = 32,
// N = 16, dynamic q0, Nk and Nk - Nq): row i sees keys [begin(i), end(i))
// with begin(i) = i + window_offset (AttentionMath.h visibleKeysBegin) and
// end(i) = min(key_limit, i + causal_offset + 1), so the K/V loop becomes
// THREE loops over whole blocks (but the last bound):
//   left    [begin, full_start), masked: keys the first rows do not see,
//   middle  [full_start, full_end), unmasked: keys every row sees,
//   right   [full_end, end), masked: keys the last rows see only,
// with
//   begin        = floor(max(0, begin(q0)) / N) * N
//   first_full   = ceil(max(0, begin(q0 + M - 1)) / N) * N
//   last_block   = max(begin, ceil(end / N) * N)
//   full_start   = min(max(first_full, begin), last_block)
//   full_end     = min(max(floor(end(q0) / N) * N, full_start), last_block)
// each loop continuing the previous one's state. The right loop's keys are
// all at or after begin(last row): no window bound there. The window is
// 105 >= M + N - 3 = 45 keys wide: every key of the left loop is at or
// before the first row's diagonal, so no causal bound there.
// CHECK-LABEL: func @window_three_loops
// CHECK-SAME: (%{{[^:]*}}: tensor<32x16xf16>, %{{[^:]*}}: tensor<16x16xf16>, %{{[^:]*}}: tensor<16x16xf16>, %[[Q0:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[OFF:[^:]*]]: index, %{{[^:]*}}: f32)
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[CAUSAL_OFF:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: %[[WINDOW_OFF:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<32xf32>
// CHECK: %[[N:.*]] = arith.constant 16 : index
// CHECK: %[[LAST_ROW:.*]] = arith.addi %[[Q0]], %{{.*}} : index
//     floor(end(q0) / N) * N and end = end(q0 + M - 1), as without a window.
// CHECK: %[[DIAG_A:.*]] = arith.addi %[[Q0]], %[[CAUSAL_OFF]] : index
// CHECK: %[[CLAMPED_A:.*]] = arith.maxsi
// CHECK: %[[FIRST_END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_A]] : index
// CHECK: %[[FE_BLOCKS:.*]] = arith.divui %[[FIRST_END]], %[[N]] : index
// CHECK: %[[FULL_END0:.*]] = arith.muli %[[FE_BLOCKS]], %[[N]] : index
// CHECK: %[[DIAG_B:.*]] = arith.addi %[[LAST_ROW]], %[[CAUSAL_OFF]] : index
// CHECK: %[[CLAMPED_B:.*]] = arith.maxsi
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_B]] : index
//     begin: the first row's first key, clamped at 0, down to a block.
// CHECK: %[[BEGIN_A:.*]] = arith.addi %[[Q0]], %[[WINDOW_OFF]] : index
// CHECK: %[[BEGIN_A0:.*]] = arith.maxsi %[[BEGIN_A]], %{{.*}} : index
// CHECK: %[[B_BLOCKS:.*]] = arith.divui %[[BEGIN_A0]], %[[N]] : index
// CHECK: %[[BEGIN:.*]] = arith.muli %[[B_BLOCKS]], %[[N]] : index
//     first_full: the last row's first key, clamped at 0, up to a block.
// CHECK: %[[BEGIN_B:.*]] = arith.addi %[[LAST_ROW]], %[[WINDOW_OFF]] : index
// CHECK: %[[BEGIN_B0:.*]] = arith.maxsi %[[BEGIN_B]], %{{.*}} : index
// CHECK: %[[FF_BLOCKS:.*]] = arith.ceildivui %[[BEGIN_B0]], %[[N]] : index
// CHECK: %[[FIRST_FULL:.*]] = arith.muli %[[FF_BLOCKS]], %[[N]] : index
//     last_block, full_start, full_end.
// CHECK: %[[END_BLOCKS:.*]] = arith.ceildivui %[[END]], %[[N]] : index
// CHECK: %[[END_UP:.*]] = arith.muli %[[END_BLOCKS]], %[[N]] : index
// CHECK: %[[LAST_BLOCK:.*]] = arith.maxsi %[[BEGIN]], %[[END_UP]] : index
// CHECK: %[[FS0:.*]] = arith.maxsi %[[FIRST_FULL]], %[[BEGIN]] : index
// CHECK: %[[FULL_START:.*]] = arith.minsi %[[FS0]], %[[LAST_BLOCK]] : index
// CHECK: %[[FE1:.*]] = arith.maxsi %[[FULL_END0]], %[[FULL_START]] : index
// CHECK: %[[FULL_END:.*]] = arith.minsi %[[FE1]], %[[LAST_BLOCK]] : index
//     Left: key limit and window, no causal bound.
// CHECK: %[[R1:.*]]:3 = scf.for %[[K1:.*]] = %[[BEGIN]] to %[[FULL_START]] step %[[C16]] iter_args(%{{.*}} = %[[M0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[K1]]] key_limit(%[[NK]]) window_offset(%[[WINDOW_OFF]]) : tensor<32x16xf32>
// CHECK: scf.yield
//     Middle: no mask.
// CHECK: %[[R2:.*]]:3 = scf.for %{{.*}} = %[[FULL_START]] to %[[FULL_END]] step %[[C16]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// CHECK-NOT: fa.mask
// CHECK: scf.yield
//     Right: key limit and causal bound, no window.
// CHECK: %[[R3:.*]]:3 = scf.for %[[K3:.*]] = %[[FULL_END]] to %[[END]] step %[[C16]] iter_args(%{{.*}} = %[[R2]]#0, %{{.*}} = %[[R2]]#1, %{{.*}} = %[[R2]]#2)
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[K3]]] key_limit(%[[NK]]) causal_offset(%[[CAUSAL_OFF]]) : tensor<32x16xf32>
// CHECK: scf.yield
// CHECK: return %[[R3]]#2
func.func @window_three_loops(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %right = arith.constant 5 : index
  %left = arith.constant -100 : index
  %causal_off = arith.addi %off, %right : index
  %window_off = arith.addi %off, %left : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%causal_off) window_offset(%window_off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// The same window with concrete bounds (canonicalized): q0 = 128, M = 32,
// N = 16, Nq = Nk = 300 (offset 0), window(100, 5): row 128 sees keys
// [28, 133], row 159 [59, 164]. begin = 16, first_full = 64, floor(134 /
// 16) * 16 = 128, end = 165: left [16, 64), middle [64, 128), right
// [128, 165).
// FOLDED-LABEL: func @window_static_bounds
// FOLDED-DAG: %[[C16:.*]] = arith.constant 16 : index
// FOLDED-DAG: %[[C64:.*]] = arith.constant 64 : index
// FOLDED-DAG: %[[C128:.*]] = arith.constant 128 : index
// FOLDED-DAG: %[[C165:.*]] = arith.constant 165 : index
// FOLDED-DAG: %[[C300:.*]] = arith.constant 300 : index
// FOLDED-DAG: %[[C5:.*]] = arith.constant 5 : index
// FOLDED-DAG: %[[CM100:.*]] = arith.constant -100 : index
// FOLDED: %[[R1:.*]]:3 = scf.for %[[K1:.*]] = %[[C16]] to %[[C64]] step %[[C16]]
// FOLDED: fa.mask %{{.*}}[%[[C128]], %[[K1]]] key_limit(%[[C300]]) window_offset(%[[CM100]]) : tensor<32x16xf32>
// FOLDED: %[[R2:.*]]:3 = scf.for %{{.*}} = %[[C64]] to %[[C128]] step %[[C16]] iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1, %{{.*}} = %[[R1]]#2)
// FOLDED-NOT: fa.mask
// FOLDED: scf.yield
// FOLDED: %[[R3:.*]]:3 = scf.for %[[K3:.*]] = %[[C128]] to %[[C165]] step %[[C16]] iter_args(%{{.*}} = %[[R2]]#0, %{{.*}} = %[[R2]]#1, %{{.*}} = %[[R2]]#2)
// FOLDED: fa.mask %{{.*}}[%[[C128]], %[[K3]]] key_limit(%[[C300]]) causal_offset(%[[C5]]) : tensor<32x16xf32>
// FOLDED: return %[[R3]]#2
func.func @window_static_bounds(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %q0 = arith.constant 128 : index
  %nq = arith.constant 300 : index
  %nk = arith.constant 300 : index
  %right = arith.constant 5 : index
  %left = arith.constant -100 : index
  %off = arith.subi %nk, %nq : index
  %causal_off = arith.addi %off, %right : index
  %window_off = arith.addi %off, %left : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%causal_off) window_offset(%window_off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// Causal with a narrow window, window(20, 0) (as --fa-tile-q-outer writes
// it: causal_offset = Nk - Nq, window_offset = Nk - Nq - 20), q0 = 128,
// M = 32, N = 16, Nq = Nk = 300: row 128 sees [108, 128], row 159
// [139, 159]. The window (20 keys) is narrower than M + N - 3 = 45: the left
// loop [96, 144) keeps the causal bound (key 143 is past row 128's
// diagonal). No block is seen whole (the middle loop [144, 144) is empty
// and folds away); the right loop [144, 160), one block (inlined), drops
// the window.
// FOLDED-LABEL: func @causal_narrow_window
// FOLDED-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLDED-DAG: %[[C16:.*]] = arith.constant 16 : index
// FOLDED-DAG: %[[C96:.*]] = arith.constant 96 : index
// FOLDED-DAG: %[[C144:.*]] = arith.constant 144 : index
// FOLDED-DAG: %[[C128:.*]] = arith.constant 128 : index
// FOLDED-DAG: %[[C300:.*]] = arith.constant 300 : index
// FOLDED-DAG: %[[CM20:.*]] = arith.constant -20 : index
// FOLDED: %[[R1:.*]]:3 = scf.for %[[K1:.*]] = %[[C96]] to %[[C144]] step %[[C16]]
// FOLDED: fa.mask %{{.*}}[%[[C128]], %[[K1]]] key_limit(%[[C300]]) causal_offset(%[[C0]]) window_offset(%[[CM20]]) : tensor<32x16xf32>
// FOLDED: scf.yield
// FOLDED-NEXT: }
// FOLDED-NOT: scf.for
// FOLDED: fa.mask %{{.*}}[%[[C128]], %[[C144]]] key_limit(%[[C300]]) causal_offset(%[[C0]]) : tensor<32x16xf32>
// FOLDED-NEXT: fa.online_softmax %{{.*}}, %[[R1]]#0, %[[R1]]#1
// FOLDED: return
func.func @causal_narrow_window(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %q0 = arith.constant 128 : index
  %nq = arith.constant 300 : index
  %nk = arith.constant 300 : index
  %left = arith.constant -20 : index
  %off = arith.subi %nk, %nq : index
  %window_off = arith.addi %off, %left : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) window_offset(%window_off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// The width rule at its edge (M = 32, N = 16: M + N - 3 = 45), causal,
// dynamic: window(45, 0) drops the left loop's causal bound, window(44, 0)
// keeps it. Both right loops drop the window.
// CHECK-LABEL: func @causal_window_width_edge
// CHECK-SAME: %[[Q0:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[OFF:[^:]*]]: index, %{{[^:]*}}: f32)
// CHECK: %[[W45:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: %[[W44:.*]] = arith.addi %[[OFF]], %{{.*}} : index
//     window(45, 0): left, middle, right.
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%[[NK]]) window_offset(%[[W45]]) : tensor<32x16xf32>
// CHECK: scf.for
// CHECK-NOT: fa.mask
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%[[NK]]) causal_offset(%[[OFF]]) : tensor<32x16xf32>
//     window(44, 0).
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%[[NK]]) causal_offset(%[[OFF]]) window_offset(%[[W44]]) : tensor<32x16xf32>
// CHECK: scf.for
// CHECK-NOT: fa.mask
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%[[NK]]) causal_offset(%[[OFF]]) : tensor<32x16xf32>
// CHECK: return
func.func @causal_window_width_edge(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %cm45 = arith.constant -45 : index
  %cm44 = arith.constant -44 : index
  %w45 = arith.addi %off, %cm45 : index
  %w44 = arith.addi %off, %cm44 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) window_offset(%w45) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  %r2:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%off) window_offset(%w44) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2, %r2#2 : tensor<32x16xf32>, tensor<32x16xf32>
}

// -----

// A window with the right side unbounded, window(10, -1), not causal: no
// causal_offset, end(i) = Nk for every row. Still three loops; the right
// loop keeps only the key limit. Canonicalized, q0 = 128, Nq = Nk = 300:
// begin = floor(118 / 16) * 16 = 112, first_full = ceil(149 / 16) * 16 =
// 160, full_end = floor(300 / 16) * 16 = 288, end = 300.
// FOLDED-LABEL: func @window_right_unbounded
// FOLDED-DAG: %[[C16:.*]] = arith.constant 16 : index
// FOLDED-DAG: %[[C112:.*]] = arith.constant 112 : index
// FOLDED-DAG: %[[C160:.*]] = arith.constant 160 : index
// FOLDED-DAG: %[[C288:.*]] = arith.constant 288 : index
// FOLDED-DAG: %[[C300:.*]] = arith.constant 300 : index
// FOLDED-DAG: %[[CM10:.*]] = arith.constant -10 : index
// FOLDED: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[C112]] to %[[C160]] step %[[C16]]
// FOLDED: fa.mask %{{.*}} key_limit(%[[C300]]) window_offset(%[[CM10]]) : tensor<32x16xf32>
// FOLDED: %[[R2:.*]]:3 = scf.for %{{.*}} = %[[C160]] to %[[C288]] step %[[C16]] iter_args(%{{.*}} = %[[R1]]#0,
// FOLDED-NOT: fa.mask
// FOLDED: scf.yield
//     The right loop is one block (288): inlined.
// FOLDED: fa.mask %{{.*}}[%{{.*}}, %[[C288]]] key_limit(%[[C300]]) : tensor<32x16xf32>
// FOLDED: return
func.func @window_right_unbounded(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %q0 = arith.constant 128 : index
  %nq = arith.constant 300 : index
  %nk = arith.constant 300 : index
  %left = arith.constant -10 : index
  %off = arith.subi %nk, %nq : index
  %window_off = arith.addi %off, %left : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) window_offset(%window_off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// A window with the left side unbounded, window(-1, 3): --fa-tile-q-outer
// writes only causal_offset = Nk - Nq + 3, and the split is the two-loop
// form of causal attention with that offset: [0, full_end) unmasked,
// [full_end, end) masked, end(i) = min(Nk, i + Nk - Nq + 3 + 1).
// CHECK-LABEL: func @window_left_unbounded
// CHECK-SAME: %[[Q0:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[OFF:[^:]*]]: index, %{{[^:]*}}: f32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[CAUSAL_OFF:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: %[[DIAG_A:.*]] = arith.addi %[[Q0]], %[[CAUSAL_OFF]] : index
// CHECK: %[[FULL_END:.*]] = arith.muli
// CHECK: %[[DIAG_B:.*]] = arith.addi %{{.*}}, %[[CAUSAL_OFF]] : index
// CHECK: %[[CLAMPED_B:.*]] = arith.maxsi
// CHECK: %[[END:.*]] = arith.minsi %[[NK]], %[[CLAMPED_B]] : index
// CHECK-NOT: arith.ceildivui
// CHECK: %[[R1:.*]]:3 = scf.for %{{.*}} = %[[C0]] to %[[FULL_END]]
// CHECK-NOT: fa.mask
// CHECK: scf.yield
// CHECK: %[[R2:.*]]:3 = scf.for %[[K2:.*]] = %[[FULL_END]] to %[[END]] {{.*}} iter_args(%{{.*}} = %[[R1]]#0,
// CHECK: fa.mask %{{.*}}[%[[Q0]], %[[K2]]] key_limit(%[[NK]]) causal_offset(%[[CAUSAL_OFF]]) : tensor<32x16xf32>
// CHECK-NOT: = scf.for
// CHECK: return %[[R2]]#2
func.func @window_left_unbounded(%qt: tensor<32x16xf16>, %kt: tensor<16x16xf16>, %vt: tensor<16x16xf16>,
    %q0: index, %nk: index, %off: index, %scale: f32) -> tensor<32x16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %right = arith.constant 3 : index
  %causal_off = arith.addi %off, %right : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %nk step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) causal_offset(%causal_off) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %p16 = arith.truncf %p : tensor<32x16xf32> to tensor<32x16xf16>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p16, %vt, %acc1 : tensor<32x16xf16>, tensor<16x16xf16>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#2 : tensor<32x16xf32>
}

// -----

// A single-query tile (GQA packing of a decode step, --fa-tile-q-outer
// pack-gqa: every row is query 0): the first and the last row are the same
// query, so every loop bound comes from row q0 = 0, never q0 + M - 1 (no
// constant 15 for M = 16). With causal and a window of 40 keys (N = 16),
// the left loop needs no causal bound (40 >= 1 + 16 - 3).
// CHECK-LABEL: func @single_query
// CHECK: scf.forall
// CHECK-NOT: arith.constant 15 : index
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) window_offset(%{{.*}}) {single_query}
// CHECK: scf.for
// CHECK-NOT: fa.mask
// CHECK: scf.for
// CHECK: fa.mask %{{.*}} key_limit(%{{.*}}) causal_offset(%{{.*}}) {single_query}
func.func @single_query(%arg0: tensor<2x8x1x16xf16>, %arg1: tensor<2x2x?x16xf16>, %arg2: tensor<2x2x?x16xf16>, %arg3: tensor<2x8x1x16xf16>, %arg4: tensor<2x8x1xf32>) -> (tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) {
  %c12 = arith.constant 12 : index
  %c-41 = arith.constant -41 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %cst_1 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %cst_2 = arith.constant 0.000000e+00 : f16
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %cst_3 = arith.constant 0.360673755 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %dim = tensor.dim %arg1, %c2 : tensor<2x2x?x16xf16>
  %0 = arith.subi %dim, %c1 : index
  %1 = arith.addi %dim, %c-41 : index
  %2:2 = scf.forall (%arg5, %arg6) in (2, 2) shared_outs(%arg7 = %arg3, %arg8 = %arg4) -> (tensor<2x8x1x16xf16>, tensor<2x8x1xf32>) {
    %3 = arith.muli %arg6, %c4 : index
    %extracted_slice = tensor.extract_slice %arg0[%arg5, %3, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : tensor<2x8x1x16xf16> to tensor<4x16xf16>
    %padded = tensor.pad %extracted_slice low[0, 0] high[%c12, 0] {
    ^bb0(%arg9: index, %arg10: index):
      tensor.yield %cst_2 : f16
    } : tensor<4x16xf16> to tensor<16x16xf16>
    %4:3 = scf.for %arg9 = %c0 to %dim step %c16 iter_args(%arg10 = %cst_1, %arg11 = %cst_0, %arg12 = %cst) -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
      %5 = arith.subi %dim, %arg9 : index
      %6 = arith.minsi %5, %c16 : index
      %extracted_slice_6 = tensor.extract_slice %arg1[%arg5, %arg6, %arg9, 0] [1, 1, %6, 16] [1, 1, 1, 1] : tensor<2x2x?x16xf16> to tensor<?x16xf16>
      %dim_7 = tensor.dim %extracted_slice_6, %c0 : tensor<?x16xf16>
      %7 = affine.apply affine_map<(d0) -> (-d0 + 16)>(%dim_7)
      %padded_8 = tensor.pad %extracted_slice_6 low[0, 0] high[%7, 0] {
      ^bb0(%arg13: index, %arg14: index):
        tensor.yield %cst_2 : f16
      } : tensor<?x16xf16> to tensor<16x16xf16>
      %extracted_slice_9 = tensor.extract_slice %arg2[%arg5, %arg6, %arg9, 0] [1, 1, %6, 16] [1, 1, 1, 1] : tensor<2x2x?x16xf16> to tensor<?x16xf16>
      %dim_10 = tensor.dim %extracted_slice_9, %c0 : tensor<?x16xf16>
      %8 = affine.apply affine_map<(d0) -> (-d0 + 16)>(%dim_10)
      %padded_11 = tensor.pad %extracted_slice_9 low[0, 0] high[%8, 0] {
      ^bb0(%arg13: index, %arg14: index):
        tensor.yield %cst_2 : f16
      } : tensor<?x16xf16> to tensor<16x16xf16>
      %9 = fa.qk %padded, %padded_8 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      %10 = fa.mask %9[%c0, %arg9] key_limit(%dim) causal_offset(%0) window_offset(%1) {single_query} : tensor<16x16xf32>
      %probs, %new_max, %new_sum, %alpha = fa.online_softmax %10, %arg10, %arg11 scale(%cst_3) : tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>
      %11 = arith.truncf %probs : tensor<16x16xf32> to tensor<16x16xf16>
      %12 = fa.rescale %arg12, %alpha : tensor<16x16xf32>, tensor<16xf32>
      %13 = fa.pv %11, %padded_11, %12 : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
      scf.yield %new_max, %new_sum, %13 : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
    }
    %out, %lse = fa.finalize %4#2, %4#0, %4#1 : tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x16xf16>
    %extracted_slice_4 = tensor.extract_slice %out[0, 0] [4, 16] [1, 1] : tensor<16x16xf16> to tensor<4x16xf16>
    %extracted_slice_5 = tensor.extract_slice %lse[0] [4] [1] : tensor<16xf32> to tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %extracted_slice_4 into %arg7[%arg5, %3, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : tensor<4x16xf16> into tensor<2x8x1x16xf16>
      tensor.parallel_insert_slice %extracted_slice_5 into %arg8[%arg5, %3, 0] [1, 4, 1] [1, 1, 1] : tensor<4xf32> into tensor<2x8x1xf32>
    }
  }
  return %2#0, %2#1 : tensor<2x8x1x16xf16>, tensor<2x8x1xf32>
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
