// RUN: fa-opt %s -split-input-file --fa-decompose-tiles | FileCheck %s

// The CPU lowering of the tile ops (L1..L3): each op becomes the
// linalg.generic ops of its definition (the arithmetic of
// fa/Dialect/FA/Semantics/AttentionMath.h), layouts are erased, and
// fa.async_load / fa.await become plain tile loads.

// S = Q K^T: loops (r, c, k), S[r, c] += f32(Q[r, k]) * f32(K[c, k]), from 0.
// No scale: the softmax ops apply it.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @qk
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<32x16xf16>, %[[K:[^:]*]]: tensor<16x16xf16>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<32x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<32x16xf32>)
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<32x16xf16>, tensor<16x16xf16>) outs(%[[INIT]] : tensor<32x16xf32>)
// CHECK: ^bb0(%[[QE:.*]]: f16, %[[KE:.*]]: f16, %[[SE:.*]]: f32):
// CHECK-DAG: %[[KF:.*]] = arith.extf %[[KE]] : f16 to f32
// CHECK-DAG: %[[QF:.*]] = arith.extf %[[QE]] : f16 to f32
// CHECK: %[[PROD:.*]] = arith.mulf %[[QF]], %[[KF]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[SE]], %[[PROD]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
// CHECK-NOT: arith.mulf
// CHECK: return %[[S]]
func.func @qk(%q: tensor<32x16xf16>, %k: tensor<16x16xf16>) -> tensor<32x16xf32> {
  %s = fa.qk %q, %k : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
  return %s : tensor<32x16xf32>
}

// -----

// fa.mask: element (r, c) is row i = r0 + r against key j = c0 + c; it is
// -inf iff j >= end(i) = min(key_limit, i + causal_offset + 1)
// (AttentionMath.h visibleKeysEnd / isHidden).
// CHECK-LABEL: func @mask
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[R0:[^:]*]]: index, %[[C0:[^:]*]]: index, %[[LIMIT:[^:]*]]: index, %[[OFF:[^:]*]]: index)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel"]} outs(%[[S]] : tensor<32x16xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %[[I]] : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %[[J]] : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %[[ONE]] : index
// CHECK: %[[END:.*]] = arith.minsi %[[LIMIT]], %[[ROW_END]] : index
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge, %[[COL]], %[[END]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[X]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: return %[[R]]
func.func @mask(%s: tensor<32x16xf32>, %r0: index, %c0: index, %limit: index, %off: index) -> tensor<32x16xf32> {
  %m = fa.mask %s[%r0, %c0] key_limit(%limit) causal_offset(%off) : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// Key limit only: end(i) = key_limit for every row.
// CHECK-LABEL: func @mask_key_limit_only
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[R0:[^:]*]]: index, %[[C0:[^:]*]]: index, %[[LIMIT:[^:]*]]: index)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %[[J]] : index
// CHECK-NOT: arith.minsi
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge, %[[COL]], %[[LIMIT]] : index
// CHECK: arith.select %[[HIDDEN]]
func.func @mask_key_limit_only(%s: tensor<32x16xf32>, %r0: index, %c0: index, %limit: index) -> tensor<32x16xf32> {
  %m = fa.mask %s[%r0, %c0] key_limit(%limit) : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// Causal offset only: end(i) = i + causal_offset + 1.
// CHECK-LABEL: func @mask_causal_only
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[R0:[^:]*]]: index, %[[C0:[^:]*]]: index, %[[OFF:[^:]*]]: index)
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %{{.*}} : index
// CHECK-NOT: arith.minsi
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge, %[[COL]], %[[ROW_END]] : index
// CHECK: arith.select %[[HIDDEN]]
func.func @mask_causal_only(%s: tensor<32x16xf32>, %r0: index, %c0: index, %off: index) -> tensor<32x16xf32> {
  %m = fa.mask %s[%r0, %c0] causal_offset(%off) : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// All three bounds: hidden iff j >= end(i) or j < begin(i) = i +
// window_offset (AttentionMath.h visibleKeysBegin / isHidden): the two
// compares ORed into the select.
// CHECK-LABEL: func @mask_window
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[R0:[^:]*]]: index, %[[C0:[^:]*]]: index, %[[LIMIT:[^:]*]]: index, %[[OFF:[^:]*]]: index, %[[WIN:[^:]*]]: index)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<32x16xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.minsi %[[LIMIT]], %[[ROW_END]] : index
// CHECK: %[[AFTER:.*]] = arith.cmpi sge, %[[COL]], %[[END]] : index
// CHECK: %[[BEGIN:.*]] = arith.addi %[[ROW]], %[[WIN]] : index
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[COL]], %[[BEGIN]] : index
// CHECK: %[[HIDDEN:.*]] = arith.ori %[[AFTER]], %[[BEFORE]] : i1
// CHECK: %[[SEL:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[X]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: return %[[R]]
func.func @mask_window(%s: tensor<32x16xf32>, %r0: index, %c0: index, %limit: index, %off: index, %win: index) -> tensor<32x16xf32> {
  %m = fa.mask %s[%r0, %c0] key_limit(%limit) causal_offset(%off) window_offset(%win) : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// Window offset only: one compare, j < i + window_offset.
// CHECK-LABEL: func @mask_window_only
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[R0:[^:]*]]: index, %[[C0:[^:]*]]: index, %[[WIN:[^:]*]]: index)
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK-NEXT: %[[BEGIN:.*]] = arith.addi %[[ROW]], %[[WIN]] : index
// CHECK-NEXT: %[[BEFORE:.*]] = arith.cmpi slt, %[[COL]], %[[BEGIN]] : index
// CHECK-NEXT: arith.select %[[BEFORE]]
func.func @mask_window_only(%s: tensor<32x16xf32>, %r0: index, %c0: index, %win: index) -> tensor<32x16xf32> {
  %m = fa.mask %s[%r0, %c0] window_offset(%win) : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>

// fa.softcap: cap * tanh(scale * s) per element (AttentionMath.h softcap),
// with the op's own f32 operands; the layout is erased.
// CHECK-LABEL: func @softcap
// CHECK-SAME: (%[[S:[^:]*]]: tensor<64x16xf32>, %[[X:[^:]*]]: f32, %[[CAP:[^:]*]]: f32) -> tensor<64x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel"]} outs(%[[S]] : tensor<64x16xf32>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT: %[[XS:.*]] = arith.mulf %[[E]], %[[X]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[XS]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.mulf %[[CAP]], %[[T]] : f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
// CHECK: return %[[R]] : tensor<64x16xf32>
func.func @softcap(%s: tensor<64x16xf32, #acc>, %x: f32, %cap: f32) -> tensor<64x16xf32, #acc> {
  %r = fa.softcap %s scale(%x) cap(%cap) : tensor<64x16xf32, #acc>
  return %r : tensor<64x16xf32, #acc>
}

// -----

// Without a cap, tanh(scale * s) alone (the cap is in the softmax's scale).
// CHECK-LABEL: func @tanh_only
// CHECK-SAME: (%[[S:[^:]*]]: tensor<64x16xf32>, %[[X:[^:]*]]: f32) -> tensor<64x16xf32>
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT: %[[XS:.*]] = arith.mulf %[[E]], %[[X]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[XS]] : f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
func.func @tanh_only(%s: tensor<64x16xf32>, %x: f32) -> tensor<64x16xf32> {
  %r = fa.softcap %s scale(%x) : tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// fa.online_softmax is fa.running_max then fa.softmax_exp, each lowered to
// its generics; `scale` (the f32 operand) multiplies the raw scores.
// CHECK-DAG: #[[$TILE:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW2:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ROW1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func @online_softmax
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[M:[^:]*]]: tensor<32xf32>, %[[L:[^:]*]]: tensor<32xf32>, %[[SCALE:[^:]*]]: f32)
//     rowmax(S) = max_c S[r, c], from -inf.
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[RM_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[ROWMAX:.*]] = linalg.generic {indexing_maps = [#[[$TILE]], #[[$ROW2]]], iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<32x16xf32>) outs(%[[RM_INIT]] : tensor<32xf32>)
// CHECK: ^bb0(%[[RS:.*]]: f32, %[[RACC:.*]]: f32):
// CHECK: %[[RMAX:.*]] = arith.maxnumf %[[RACC]], %[[RS]] : f32
// CHECK: linalg.yield %[[RMAX]]
//     m_new = max(m, scale * rowmax(S)).
// CHECK: %[[MNEW:.*]] = linalg.generic {indexing_maps = [#[[$ROW1]], #[[$ROW1]], #[[$ROW1]]], iterator_types = ["parallel"]} ins(%[[M]], %[[ROWMAX]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: ^bb0(%[[MOLD:.*]]: f32, %[[MROW:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[MSCALED:.*]] = arith.mulf %[[MROW]], %[[SCALE]] : f32
// CHECK: %[[MMAX:.*]] = arith.maxnumf %[[MOLD]], %[[MSCALED]] : f32
// CHECK: linalg.yield %[[MMAX]]
//     alpha = exp2(m - base), base = (m_new == -inf ? 0 : m_new).
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: ^bb0(%[[AOLD:.*]]: f32, %[[ANEW:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ANINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[AEMPTY:.*]] = arith.cmpf oeq, %[[ANEW]], %[[ANINF]] : f32
// CHECK: %[[AZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ABASE:.*]] = arith.select %[[AEMPTY]], %[[AZERO]], %[[ANEW]] : f32
// CHECK: %[[ADIFF:.*]] = arith.subf %[[AOLD]], %[[ABASE]] : f32
// CHECK: %[[AEXP:.*]] = math.exp2 %[[ADIFF]] : f32
// CHECK: linalg.yield %[[AEXP]]
//     P = exp2(fma(S, scale, -base)).
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$TILE]], #[[$ROW2]], #[[$TILE]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]], %[[MNEW]] : tensor<32x16xf32>, tensor<32xf32>)
// CHECK: ^bb0(%[[PS:.*]]: f32, %[[PNEW:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[PEMPTY:.*]] = arith.cmpf oeq, %[[PNEW]], %{{.*}} : f32
// CHECK: %[[PBASE:.*]] = arith.select %[[PEMPTY]], %{{.*}}, %[[PNEW]] : f32
// CHECK: %[[PNEG:.*]] = arith.negf %[[PBASE]] : f32
// CHECK: %[[PFMA:.*]] = math.fma %[[PS]], %[[SCALE]], %[[PNEG]] : f32
// CHECK: %[[PEXP:.*]] = math.exp2 %[[PFMA]] : f32
// CHECK: linalg.yield %[[PEXP]]
//     rowsum(P), from 0.
// CHECK: %[[RSUM_INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[ROWSUM:.*]] = linalg.generic {indexing_maps = [#[[$TILE]], #[[$ROW2]]], iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<32x16xf32>) outs(%[[RSUM_INIT]] : tensor<32xf32>)
// CHECK: ^bb0(%[[SP:.*]]: f32, %[[SACC:.*]]: f32):
// CHECK: arith.addf %[[SACC]], %[[SP]] : f32
//     l_new = fma(alpha, l, rowsum(P)).
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]], %[[ROWSUM]] : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
// CHECK: ^bb0(%[[LA:.*]]: f32, %[[LL:.*]]: f32, %[[LR:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LFMA:.*]] = math.fma %[[LA]], %[[LL]], %[[LR]] : f32
// CHECK: linalg.yield %[[LFMA]]
//     Results in the op's order: P, m_new, l_new, alpha. No division.
// CHECK-NOT: arith.divf
// CHECK: return %[[P]], %[[MNEW]], %[[LNEW]], %[[ALPHA]]
// CHECK-NOT: fa.
func.func @online_softmax(%s: tensor<32x16xf32>, %m: tensor<32xf32>, %l: tensor<32xf32>, %c: f32)
    -> (tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
  %p, %m2, %l2, %a = fa.online_softmax %s, %m, %l scale(%c) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
  return %p, %m2, %l2, %a : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
}

// -----

// The two halves as --fa-schedule-softmax leaves them: fa.softmax_exp reads
// the new max and alpha of fa.running_max, and the old sum.
// CHECK-LABEL: func @running_max_softmax_exp
// CHECK-SAME: (%[[S:[^:]*]]: tensor<32x16xf32>, %[[M:[^:]*]]: tensor<32xf32>, %[[L:[^:]*]]: tensor<32xf32>, %[[SCALE:[^:]*]]: f32)
// CHECK: %[[ROWMAX:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<32x16xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[MNEW:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[ROWMAX]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: math.exp2
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[MNEW]] : tensor<32x16xf32>, tensor<32xf32>)
// CHECK: math.fma %{{.*}}, %[[SCALE]], %{{.*}}
// CHECK: %[[ROWSUM:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<32x16xf32>)
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]], %[[ROWSUM]] : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
// CHECK: return %[[MNEW]], %[[ALPHA]], %[[P]], %[[LNEW]]
func.func @running_max_softmax_exp(%s: tensor<32x16xf32>, %m: tensor<32xf32>, %l: tensor<32xf32>, %c: f32)
    -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<32xf32>) {
  %m2, %a = fa.running_max %s, %m scale(%c) : tensor<32x16xf32>, tensor<32xf32>
  %p, %l2 = fa.softmax_exp %s, %m2, %a, %l scale(%c) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
  return %m2, %a, %p, %l2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<32xf32>
}

// -----

// fa.rescale: acc[r, e] = alpha[r] * acc[r, e]; fa.pv: acc[r, e] +=
// f32(P[r, c]) * f32(V[c, e]) (loops (r, e, c), V not transposed), into the
// rescaled accumulator.
// CHECK-DAG: #[[$TILE:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW2:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @rescale_pv
// CHECK-SAME: (%[[ACC:[^:]*]]: tensor<32x64xf32>, %[[ALPHA:[^:]*]]: tensor<32xf32>, %[[P:[^:]*]]: tensor<32x16xbf16>, %[[V:[^:]*]]: tensor<16x64xbf16>)
// CHECK: %[[RESCALED:.*]] = linalg.generic {indexing_maps = [#[[$ROW2]], #[[$TILE]]], iterator_types = ["parallel", "parallel"]} ins(%[[ALPHA]] : tensor<32xf32>) outs(%[[ACC]] : tensor<32x64xf32>)
// CHECK: ^bb0(%[[RA:.*]]: f32, %[[RACC:.*]]: f32):
// CHECK: %[[RMUL:.*]] = arith.mulf %[[RA]], %[[RACC]] : f32
// CHECK: linalg.yield %[[RMUL]]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[V]] : tensor<32x16xbf16>, tensor<16x64xbf16>) outs(%[[RESCALED]] : tensor<32x64xf32>)
// CHECK: ^bb0(%[[PE:.*]]: bf16, %[[VE:.*]]: bf16, %[[OE:.*]]: f32):
// CHECK-DAG: %[[VF:.*]] = arith.extf %[[VE]] : bf16 to f32
// CHECK-DAG: %[[PF:.*]] = arith.extf %[[PE]] : bf16 to f32
// CHECK: %[[PROD:.*]] = arith.mulf %[[PF]], %[[VF]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[OE]], %[[PROD]] : f32
// CHECK: linalg.yield %[[SUM]]
// CHECK: return %[[R]]
func.func @rescale_pv(%acc: tensor<32x64xf32>, %alpha: tensor<32xf32>, %p: tensor<32x16xbf16>, %v: tensor<16x64xbf16>) -> tensor<32x64xf32> {
  %r = fa.rescale %acc, %alpha : tensor<32x64xf32>, tensor<32xf32>
  %n = fa.pv %p, %v, %r : tensor<32x16xbf16>, tensor<16x64xbf16>, tensor<32x64xf32>
  return %n : tensor<32x64xf32>
}

// -----

// fa.finalize: O = acc * (l == 0 ? 0 : 1 / l), rounded to O's element type;
// LSE = (l == 0 ? -inf : ln(2) * (m + log2(l))).
// CHECK-LABEL: func @finalize
// CHECK-SAME: (%[[ACC:[^:]*]]: tensor<32x64xf32>, %[[M:[^:]*]]: tensor<32xf32>, %[[L:[^:]*]]: tensor<32xf32>)
// CHECK: %[[O_INIT:.*]] = tensor.empty() : tensor<32x64xbf16>
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[ACC]], %[[L]] : tensor<32x64xf32>, tensor<32xf32>) outs(%[[O_INIT]] : tensor<32x64xbf16>)
// CHECK: ^bb0(%[[OA:.*]]: f32, %[[OL:.*]]: f32, %{{.*}}: bf16):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NO_KEY:.*]] = arith.cmpf oeq, %[[OL]], %[[ZERO]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[INV:.*]] = arith.divf %[[ONE]], %[[OL]] : f32
// CHECK: %[[INV_SEL:.*]] = arith.select %[[NO_KEY]], %[[ZERO]], %[[INV]] : f32
// CHECK: %[[OMUL:.*]] = arith.mulf %[[OA]], %[[INV_SEL]] : f32
// CHECK: %[[OBF:.*]] = arith.truncf %[[OMUL]] : f32 to bf16
// CHECK: linalg.yield %[[OBF]] : bf16
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[L]] : tensor<32xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK: ^bb0(%[[LM:.*]]: f32, %[[LL:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LZERO:.*]] = arith.cmpf oeq, %[[LL]], %{{.*}} : f32
// CHECK: %[[LOG2:.*]] = math.log2 %[[LL]] : f32
// CHECK-DAG: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG: %[[LADD:.*]] = arith.addf %[[LM]], %[[LOG2]] : f32
// CHECK: %[[LMUL:.*]] = arith.mulf %[[LADD]], %[[LN2]] : f32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[LSEL:.*]] = arith.select %[[LZERO]], %[[NINF]], %[[LMUL]] : f32
// CHECK: linalg.yield %[[LSEL]] : f32
// CHECK: return %[[O]], %[[LSE]]
func.func @finalize(%acc: tensor<32x64xf32>, %m: tensor<32xf32>, %l: tensor<32xf32>) -> (tensor<32x64xbf16>, tensor<32xf32>) {
  %o, %lse = fa.finalize %acc, %m, %l : tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x64xbf16>
  return %o, %lse : tensor<32x64xbf16>, tensor<32xf32>
}

// -----

// An f32 output needs no rounding.
// CHECK-LABEL: func @finalize_f32
// CHECK: arith.divf
// CHECK-NOT: arith.truncf
// CHECK: math.log2
func.func @finalize_f32(%acc: tensor<32x64xf32>, %m: tensor<32xf32>, %l: tensor<32xf32>) -> (tensor<32x64xf32>, tensor<32xf32>) {
  %o, %lse = fa.finalize %acc, %m, %l : tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32x64xf32>
  return %o, %lse : tensor<32x64xf32>, tensor<32xf32>
}

// -----

// A pipelined L3 loop (written by hand: 2 warps, 32 x 16 tiles, Q in
// registers, the rescale before the exponentials). On the CPU:
//   * every fa layout encoding is dropped;
//   * fa.convert_layout is its operand (Q and P feed the matmuls directly);
//   * fa.async_load without a predicate is a zero-padded tile load, with a
//     predicate an scf.if (load, or a zero tile), one per source;
//   * fa.await is the loaded tiles: the future iter_arg of the loop becomes
//     one iter_arg per tile (K, V), initialised by the prologue's loads and
//     yielded from the loads in the body.

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func @l3_pipelined_loop
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x1x?x16xf16>, %[[K:[^:]*]]: tensor<1x1x?x16xf16>, %[[V:[^:]*]]: tensor<1x1x?x16xf16>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[Q0:[^:]*]]: index, %[[QROWS:[^:]*]]: index, %[[NK:[^:]*]]: index, %[[SCALE:[^:]*]]: f32)
// CHECK-NOT: #fa.
// CHECK-NOT: fa.async_load
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
//     The Q load (no predicate): rows [q0, q0 + qrows) of Q[b, h], padded to 32.
// CHECK: %[[QSLICE:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, %[[QROWS]], 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
// CHECK: %[[QTILE:.*]] = tensor.pad %[[QSLICE]] low[0, 0]
// CHECK: } : tensor<?x16xf16> to tensor<32x16xf16>
//     The predicated K/V load of block 0: one scf.if per source.
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[C0]], %[[NK]] : index
// CHECK: %[[K0TILE:.*]] = scf.if %[[IN0]] -> (tensor<16x16xf16>) {
// CHECK: %[[K0SLICE:.*]] = tensor.extract_slice %[[K]][%[[B]], %[[H]], %[[C0]], 0] [1, 1, %[[C16]], 16]
// CHECK: %[[K0PAD:.*]] = tensor.pad %[[K0SLICE]]
// CHECK: scf.yield %[[K0PAD]] : tensor<16x16xf16>
// CHECK: } else {
// CHECK: %[[ZTILE:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf16>
// CHECK: scf.yield %[[ZTILE]] : tensor<16x16xf16>
// CHECK: }
// CHECK: %[[V0TILE:.*]] = scf.if %[[IN0]] -> (tensor<16x16xf16>) {
// CHECK: tensor.extract_slice %[[V]][%[[B]], %[[H]], %[[C0]], 0]
// CHECK: } else {
//     The state constants without encodings.
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<0xFF800000> : tensor<32xf32>
// CHECK-DAG: %[[L0:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
//     The future is two tile iter_args.
// CHECK: %[[R:.*]]:5 = scf.for %[[K0:.*]] = %[[C0]] to %[[NK]] step %[[C16]] iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[ACC:.*]] = %[[ACC0]], %[[KT:.*]] = %[[K0TILE]], %[[VT:.*]] = %[[V0TILE]]) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x16xf16>, tensor<16x16xf16>) {
//     The load of the next block, at k0 + 16, predicated on k0 + 16 < Nk.
// CHECK: %[[K1:.*]] = arith.addi %[[K0]], %[[C16]] : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[K1]], %[[NK]] : index
// CHECK: %[[KNEXT:.*]] = scf.if %[[IN]] -> (tensor<16x16xf16>) {
// CHECK: tensor.extract_slice %[[K]][%[[B]], %[[H]], %[[K1]], 0] [1, 1, %[[C16]], 16]
// CHECK: %[[VNEXT:.*]] = scf.if %[[IN]] -> (tensor<16x16xf16>) {
// CHECK: tensor.extract_slice %[[V]][%[[B]], %[[H]], %[[K1]], 0] [1, 1, %[[C16]], 16]
//     Q K^T reads the padded Q tile itself (no convert) and the awaited K tile.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #{{.*}}], {{.*}} ins(%[[QTILE]], %[[KT]] : tensor<32x16xf16>, tensor<16x16xf16>) outs(%{{.*}} : tensor<32x16xf32>)
//     The mask of this block: column k0 + c against Nk.
// CHECK: %[[SM:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<32x16xf32>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = arith.addi %[[K0]], %[[J]] : index
// CHECK: arith.cmpi sge, %[[COL]], %[[NK]] : index
// CHECK: %[[MNEW:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>)
//     The rescale, where fa.rescale was: between the two softmax halves.
// CHECK: %[[RESCALED:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<32xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[SM]], %[[MNEW]] : tensor<32x16xf32>, tensor<32xf32>)
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]], %{{.*}} : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
//     P rounded, then P V with the awaited V tile (the convert is gone).
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK: %[[ACCNEW:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #{{.*}}], {{.*}} ins(%[[P16]], %[[VT]] : tensor<32x16xf16>, tensor<16x16xf16>) outs(%[[RESCALED]] : tensor<32x16xf32>)
// CHECK: scf.yield %[[MNEW]], %[[LNEW]], %[[ACCNEW]], %[[KNEXT]], %[[VNEXT]] : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x16xf16>, tensor<16x16xf16>
//     fa.finalize on the loop's (acc, m, l), then the plain slices.
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[R]]#2, %[[R]]#1 : tensor<32x16xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<32x16xf16>)
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[R]]#0, %[[R]]#1 : tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[OROWS:.*]] = tensor.extract_slice %[[O]][0, 0] [%[[QROWS]], 16] [1, 1] : tensor<32x16xf16> to tensor<?x16xf16>
// CHECK: %[[LROWS:.*]] = tensor.extract_slice %[[LSE]][0] [%[[QROWS]]] [1] : tensor<32xf32> to tensor<?xf32>
// CHECK: return %[[OROWS]], %[[LROWS]]
// CHECK-NOT: fa.
func.func @l3_pipelined_loop(%Q: tensor<1x1x?x16xf16>, %K: tensor<1x1x?x16xf16>, %V: tensor<1x1x?x16xf16>,
                             %b: index, %h: index, %q0: index, %qrows: index, %nk: index, %scale: f32)
    -> (tensor<?x16xf16>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %fq = fa.async_load %Q[%b, %h, %q0] rows(%qrows) slot(%c0) of 1
      : tensor<1x1x?x16xf16> -> !fa.future<tensor<32x16xf16, #shared>>
  %in0 = arith.cmpi slt, %c0, %nk : index
  %f0 = fa.async_load %K, %V[%b, %h, %c0] rows(%c16) slot(%c0) of 2 if(%in0)
      : tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
      -> !fa.future<tensor<16x16xf16, #shared>, tensor<16x16xf16, #shared>>
  %qs = fa.await %fq pending(1) : !fa.future<tensor<32x16xf16, #shared>>
  %qa = fa.convert_layout %qs : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32, #rows>
  %l0 = arith.constant dense<0.0> : tensor<32xf32, #partial>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
  %r:4 = scf.for %k0 = %c0 to %nk step %c16
      iter_args(%m = %m0, %l = %l0, %acc = %acc0, %f = %f0)
      -> (tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>,
          !fa.future<tensor<16x16xf16, #shared>, tensor<16x16xf16, #shared>>) {
    %kt, %vt = fa.await %f pending(0) : !fa.future<tensor<16x16xf16, #shared>, tensor<16x16xf16, #shared>>
    %k1 = arith.addi %k0, %c16 : index
    %blk = arith.divui %k1, %c16 : index
    %slot = arith.remui %blk, %c2 : index
    %in = arith.cmpi slt, %k1, %nk : index
    %fn = fa.async_load %K, %V[%b, %h, %k1] rows(%c16) slot(%slot) of 2 if(%in)
        : tensor<1x1x?x16xf16>, tensor<1x1x?x16xf16>
        -> !fa.future<tensor<16x16xf16, #shared>, tensor<16x16xf16, #shared>>
    %s = fa.qk %qa, %kt : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
    %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<32x16xf32, #acc>
    %m2, %alpha = fa.running_max %sm, %m scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>
    %p, %l2 = fa.softmax_exp %sm, %m2, %alpha, %l scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial>
    %p16 = arith.truncf %p : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<32x16xf16, #acc> -> tensor<32x16xf16, #opA>
    %acc2 = fa.pv %pa, %vt, %acc1 : tensor<32x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<32x16xf32, #acc>
    scf.yield %m2, %l2, %acc2, %fn : tensor<32xf32, #rows>, tensor<32xf32, #partial>, tensor<32x16xf32, #acc>,
        !fa.future<tensor<16x16xf16, #shared>, tensor<16x16xf16, #shared>>
  }
  %o, %lse = fa.finalize %r#2, %r#0, %r#1 : tensor<32x16xf32, #acc>, tensor<32xf32, #rows>, tensor<32xf32, #partial> -> tensor<32x16xf16, #acc>
  %orows = tensor.extract_slice %o[0, 0] [%qrows, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
  %lrows = tensor.extract_slice %lse[0] [%qrows] [1] : tensor<32xf32, #rows> to tensor<?xf32>
  return %orows, %lrows : tensor<?x16xf16>, tensor<?xf32>
}

// -----

// A hand-written L1 loop nest (no layouts): the tile ops are lowered in
// place and the surrounding loop is untouched.
// CHECK-LABEL: func @l1_loop
// CHECK-SAME: (%[[QT:[^:]*]]: tensor<32x16xf32>, %[[KT:[^:]*]]: tensor<16x16xf32>, %[[VT:[^:]*]]: tensor<16x16xf32>, %[[N:[^:]*]]: index, %[[SCALE:[^:]*]]: f32)
// CHECK: %[[R:.*]]:3 = scf.for %[[K0:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[QT]], %[[KT]] : tensor<32x16xf32>, tensor<16x16xf32>)
// CHECK-NOT: arith.extf
// CHECK: linalg.index
// CHECK: %[[MNEW:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[ALPHA:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MNEW]] : tensor<32x16xf32>, tensor<32xf32>)
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]], %{{.*}} : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
//     L1 order: the rescale after the exponentials, then P V (f32 P: no truncf).
// CHECK: %[[RESCALED:.*]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<32xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
// CHECK: %[[ACCNEW:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[VT]] : tensor<32x16xf32>, tensor<16x16xf32>) outs(%[[RESCALED]] : tensor<32x16xf32>)
// CHECK: scf.yield %[[MNEW]], %[[LNEW]], %[[ACCNEW]]
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @l1_loop(%qt: tensor<32x16xf32>, %kt: tensor<16x16xf32>, %vt: tensor<16x16xf32>, %n: index, %scale: f32)
    -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %m0 = arith.constant dense<0xFF800000> : tensor<32xf32>
  %l0 = arith.constant dense<0.0> : tensor<32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<32x16xf32>
  %r:3 = scf.for %k0 = %c0 to %n step %c16 iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>) {
    %s = fa.qk %qt, %kt : tensor<32x16xf32>, tensor<16x16xf32> -> tensor<32x16xf32>
    %sm = fa.mask %s[%c0, %k0] key_limit(%n) : tensor<32x16xf32>
    %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<32x16xf32>, tensor<32xf32>, tensor<32xf32>
    %acc1 = fa.rescale %acc, %alpha : tensor<32x16xf32>, tensor<32xf32>
    %acc2 = fa.pv %p, %vt, %acc1 : tensor<32x16xf32>, tensor<16x16xf32>, tensor<32x16xf32>
    scf.yield %m2, %l2, %acc2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>
}

// -----

// The atomic dQ's step on the CPU (layouts erased): K^T is a
// linalg.transpose; fa.accumulate_rows {transposed} adds element (c, r) of
// the tile into buffer[b, h, q0 + r, c] for r < rows, with memref.atomic_rmw
// (the loop nest may run its iterations in parallel).
// CHECK-LABEL: func @atomic_dq
// CHECK-SAME: %[[K:[^:]*]]: tensor<32x64xf16>, %[[DS:[^:]*]]: tensor<32x16xf16>, %[[WS:[^:]*]]: memref<?x4x?x64xf32>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[Q0:[^:]*]]: index, %[[N:[^:]*]]: index
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<32x64xf16>) outs(%{{.*}} : tensor<64x32xf16>) permutation = [1, 0]
// CHECK: %[[DQT:.*]] = linalg.generic {{.*}} ins(%[[KT]], %[[DS]] : tensor<64x32xf16>, tensor<32x16xf16>) outs(%{{.*}} : tensor<64x16xf32>)
// CHECK: scf.for %[[R:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[Q0]], %[[R]] : index
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT: %[[X:.*]] = tensor.extract %[[DQT]][%[[C]], %[[R]]] : tensor<64x16xf32>
// CHECK-NEXT: memref.atomic_rmw addf %[[X]], %[[WS]][%[[B]], %[[H]], %[[ROW]], %[[C]]]
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @atomic_dq(%k: tensor<32x64xf16, #shared>, %ds: tensor<32x16xf16, #shared>,
                     %ws: memref<?x4x?x64xf32>, %b: index, %h: index, %q0: index, %n: index) {
  %z = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %kt = fa.transpose %k : tensor<32x64xf16, #shared> -> tensor<64x32xf16, #shared_t>
  %dqt = fa.pv %kt, %ds, %z : tensor<64x32xf16, #shared_t>, tensor<32x16xf16, #shared>, tensor<64x16xf32, #acc>
  fa.accumulate_rows %dqt into %ws[%b, %h, %q0] rows(%n) {transposed} : tensor<64x16xf32, #acc>, memref<?x4x?x64xf32>
  return
}

// -----

// Two dynamic sizes in one group of an expand_shape (split-KV's [S * B] ->
// [S, B] with a run-time S and a dynamic B): the same tensor.reshape, which
// the CPU path bufferizes (upstream's expand-strided-metadata crashes on a
// memref.expand_shape like it).
// CHECK-LABEL: func.func @expand_two_dynamic
// CHECK-SAME: %[[WS:.*]]: tensor<?x4xf32>, %[[S:.*]]: index, %[[B:.*]]: index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[S]], %[[B]], %[[C4]] : tensor<3xindex>
// CHECK: tensor.reshape %[[WS]](%[[SHAPE]]) : (tensor<?x4xf32>, tensor<3xindex>) -> tensor<?x?x4xf32>
// CHECK-NOT: tensor.expand_shape
func.func @expand_two_dynamic(%ws: tensor<?x4xf32>, %s: index, %b: index) -> tensor<?x?x4xf32> {
  %e = tensor.expand_shape %ws [[0, 1], [2]] output_shape [%s, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  return %e : tensor<?x?x4xf32>
}

// -----

// One dynamic size a group stays an expand_shape.
// CHECK-LABEL: func.func @expand_one_dynamic
// CHECK: tensor.expand_shape
func.func @expand_one_dynamic(%ws: tensor<?x4xf32>, %b: index) -> tensor<2x?x4xf32> {
  %e = tensor.expand_shape %ws [[0, 1], [2]] output_shape [2, %b, 4] : tensor<?x4xf32> into tensor<2x?x4xf32>
  return %e : tensor<2x?x4xf32>
}
