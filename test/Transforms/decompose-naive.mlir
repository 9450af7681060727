// RUN: fa-opt %s -split-input-file --fa-decompose-naive | FileCheck %s

// The naive decomposition of fa.attention (the CPU oracle): S = Q K^T over
// the whole key range, the scale and the causal mask, a row max, exp, a row
// sum, E V, and one division by the row sum; LSE = M + log(L).

// Causal GQA 4:2, f16, dynamic Nq and Nk, Dv = 16 != D = 8, with LSE.

//     Loops (b, h, i, j, d) of Q K^T and (b, h, i, e, j) of E V: K and V are
//     read at head h floordiv 2.
// CHECK-DAG: #[[$QMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[$SMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ROW4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @causal_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x?x8xf16>, %[[K:[^:]*]]: tensor<1x2x?x8xf16>, %[[V:[^:]*]]: tensor<1x2x?x16xf16>, %[[O:[^:]*]]: tensor<1x4x?x16xf16>, %[[L:[^:]*]]: tensor<1x4x?xf32>)
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %c2{{[_0-9]*}} : tensor<1x4x?x8xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %c2{{[_0-9]*}} : tensor<1x2x?x8xf16>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
//     Scores [1, 4, Nq, Nk] accumulated in f32 from zero: S += f32(q) * f32(k).
// CHECK: %[[S_EMPTY:.*]] = tensor.empty(%[[NQ]], %[[NK]]) : tensor<1x4x?x?xf32>
// CHECK: %[[S_ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S_EMPTY]] : tensor<1x4x?x?xf32>)
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$KMAP]], #[[$SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>) outs(%[[S_ZERO]] : tensor<1x4x?x?xf32>)
// CHECK: ^bb0(%[[QE:.*]]: f16, %[[KE:.*]]: f16, %[[SE:.*]]: f32):
// CHECK-DAG: %[[KF:.*]] = arith.extf %[[KE]] : f16 to f32
// CHECK-DAG: %[[QF:.*]] = arith.extf %[[QE]] : f16 to f32
// CHECK: %[[PROD:.*]] = arith.mulf %[[QF]], %[[KF]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[SE]], %[[PROD]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
//     Scale 1/sqrt(8), then the bottom-right causal mask (AttentionMath.h
//     isHidden): key j is hidden from row i iff j >= i + (Nk - Nq) + 1.
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK: %[[MASKED:.*]] = linalg.generic {indexing_maps = [#[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[S]] : tensor<1x4x?x?xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[I]], %[[OFFSET]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %[[ONE]] : index
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge, %[[J]], %[[ROW_END]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[SCALED]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
//     M = rowmax(S) from -inf, with maxnumf (a NaN score is not the max).
// CHECK: %[[M_INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x?xf32>)
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ROW4]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[MASKED]] : tensor<1x4x?x?xf32>) outs(%[[M_INIT]] : tensor<1x4x?xf32>)
// CHECK: ^bb0(%[[MS:.*]]: f32, %[[MACC:.*]]: f32):
// CHECK: %[[MAX:.*]] = arith.maxnumf %[[MS]], %[[MACC]] : f32
// CHECK: linalg.yield %[[MAX]] : f32
//     E = exp(S - M'), M' = 0 for a row that sees no key (M = -inf).
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[$ROW4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[M]] : tensor<1x4x?xf32>) outs(%[[MASKED]] : tensor<1x4x?x?xf32>)
// CHECK: ^bb0(%[[EM:.*]]: f32, %[[ES:.*]]: f32):
// CHECK: %[[EMPTY_ROW:.*]] = arith.cmpf oeq, %[[EM]], %[[NEG_INF]] : f32
// CHECK: %[[BASE:.*]] = arith.select %[[EMPTY_ROW]], %[[ZERO]], %[[EM]] : f32
// CHECK: %[[DIFF:.*]] = arith.subf %[[ES]], %[[BASE]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[DIFF]] : f32
// CHECK: linalg.yield %[[EXP]] : f32
//     L = rowsum(E) from 0.
// CHECK: %[[L_INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x?xf32>)
// CHECK: %[[ROWSUM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ROW4]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[E]] : tensor<1x4x?x?xf32>) outs(%[[L_INIT]] : tensor<1x4x?xf32>)
// CHECK: arith.addf
//     U = E V (V at head h floordiv 2), accumulated in f32 from zero.
// CHECK: %[[U_EMPTY:.*]] = tensor.empty(%[[NQ]]) : tensor<1x4x?x16xf32>
// CHECK: %[[U_ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[U_EMPTY]] : tensor<1x4x?x16xf32>)
// CHECK: %[[U:.*]] = linalg.generic {indexing_maps = [#[[$QMAP]], #[[$VMAP]], #[[$SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[E]], %[[V]] : tensor<1x4x?x?xf32>, tensor<1x2x?x16xf16>) outs(%[[U_ZERO]] : tensor<1x4x?x16xf32>)
// CHECK: ^bb0(%[[UE:.*]]: f32, %[[UV:.*]]: f16, %[[UACC:.*]]: f32):
// CHECK: %[[VF:.*]] = arith.extf %[[UV]] : f16 to f32
// CHECK: %[[UPROD:.*]] = arith.mulf %[[UE]], %[[VF]] : f32
// CHECK: arith.addf %[[UACC]], %[[UPROD]] : f32
//     The one division, 0 for rows that see no key (L = 0), then f16, into O.
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ROW4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[U]], %[[ROWSUM]] : tensor<1x4x?x16xf32>, tensor<1x4x?xf32>) outs(%[[O]] : tensor<1x4x?x16xf16>)
// CHECK: ^bb0(%[[OU:.*]]: f32, %[[OL:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[NO_KEY:.*]] = arith.cmpf oeq, %[[OL]], %[[ZERO]] : f32
// CHECK: %[[QUOT:.*]] = arith.divf %[[OU]], %[[OL]] : f32
// CHECK: %[[OSEL:.*]] = arith.select %[[NO_KEY]], %[[ZERO]], %[[QUOT]] : f32
// CHECK: %[[O16:.*]] = arith.truncf %[[OSEL]] : f32 to f16
// CHECK: linalg.yield %[[O16]] : f16
//     LSE = M + log(L), into the LSE destination.
// CHECK: %[[LSE:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[M]], %[[ROWSUM]] : tensor<1x4x?xf32>, tensor<1x4x?xf32>) outs(%[[L]] : tensor<1x4x?xf32>)
// CHECK: ^bb0(%[[LM:.*]]: f32, %[[LL:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LOG:.*]] = math.log %[[LL]] : f32
// CHECK: %[[LSUM:.*]] = arith.addf %[[LM]], %[[LOG]] : f32
// CHECK: linalg.yield %[[LSUM]] : f32
// CHECK: return %[[OUT]], %[[LSE]]
// CHECK-NOT: fa.attention
func.func @causal_gqa(%q: tensor<1x4x?x8xf16>, %k: tensor<1x2x?x8xf16>, %v: tensor<1x2x?x16xf16>,
                      %o: tensor<1x4x?x16xf16>, %l: tensor<1x4x?xf32>) -> (tensor<1x4x?x16xf16>, tensor<1x4x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<1x4x?x8xf16>, tensor<1x2x?x8xf16>, tensor<1x2x?x16xf16>)
                        outs(%o, %l : tensor<1x4x?x16xf16>, tensor<1x4x?xf32>) causal
                        -> tensor<1x4x?x16xf16>, tensor<1x4x?xf32>
  return %0, %1 : tensor<1x4x?x16xf16>, tensor<1x4x?xf32>
}

// -----

// Without `causal` there is no mask, only the scale; MHA reads K and V at
// head h; f32 needs no conversion; without an LSE destination no log is
// computed.
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-DAG: #[[$VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-LABEL: func @plain_f32
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x2x3x4xf32>, %[[K:[^:]*]]: tensor<2x2x5x4xf32>, %[[V:[^:]*]]: tensor<2x2x5x4xf32>, %[[O:[^:]*]]: tensor<2x2x3x4xf32>)
// CHECK-NOT: tensor.dim
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$KMAP]], #{{.*}}]{{.*}} ins(%[[Q]], %[[K]] : {{.*}}) outs(%{{.*}} : tensor<2x2x3x5xf32>)
// CHECK-NOT: arith.extf
// CHECK: %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2x2x3x5xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SCALED]] : tensor<2x2x3x5xf32>) outs(%{{.*}} : tensor<2x2x3xf32>)
// CHECK: arith.maxnumf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$VMAP]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[V]] : tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} outs(%[[O]] : tensor<2x2x3x4xf32>)
// CHECK: arith.divf
// CHECK-NOT: arith.truncf
// CHECK: linalg.yield
// CHECK-NOT: math.log
// CHECK: return %[[OUT]] : tensor<2x2x3x4xf32>
func.func @plain_f32(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>,
                     %o: tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = fa.attention ins(%q, %k, %v : tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>)
                    outs(%o : tensor<2x2x3x4xf32>) scale(0.5) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// -----

// MQA (4 query heads on 1 key/value head), bf16, static Nq = 6 > Nk = 3,
// causal: the offset is Nk - Nq of the two constant sizes (negative: the
// first rows see no key), and the output is rounded to bf16.
// CHECK-DAG: #[[$KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d3, d4)>
// CHECK-LABEL: func @mqa_bf16_more_queries
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$KMAP]], #{{.*}}]
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK-DAG: %[[NQ:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[NK:.*]] = arith.constant 3 : index
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: linalg.generic
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[I:.*]] = linalg.index 2
// CHECK: %[[J:.*]] = linalg.index 3
// CHECK: %[[DIAG:.*]] = arith.addi %[[I]], %[[OFFSET]]
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %{{.*}}
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sge, %[[J]], %[[ROW_END]]
// CHECK: arith.select %[[HIDDEN]], %[[NEG_INF]], %[[SCALED]]
// CHECK: arith.truncf {{.*}} : f32 to bf16
func.func @mqa_bf16_more_queries(%q: tensor<2x4x6x16xbf16>, %k: tensor<2x1x3x16xbf16>, %o: tensor<2x4x6x16xbf16>) -> tensor<2x4x6x16xbf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<2x4x6x16xbf16>, tensor<2x1x3x16xbf16>, tensor<2x1x3x16xbf16>)
                    outs(%o : tensor<2x4x6x16xbf16>) causal -> tensor<2x4x6x16xbf16>
  return %0 : tensor<2x4x6x16xbf16>
}

// -----

// A sliding window, not causal, window(3, 2), dynamic Nq and Nk: row i sees
// keys i + (Nk - Nq) - 3 <= j <= i + (Nk - Nq) + 2 (AttentionMath.h
// isHidden): hidden iff j >= i + (Nk - Nq + 2) + 1 or j < i + (Nk - Nq - 3),
// the two bounds ORed into the select predicate, after the scale.
// CHECK-LABEL: func @window
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x?x8xf32>, %[[K:[^:]*]]: tensor<1x2x?x8xf32>
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %c2{{[_0-9]*}} : tensor<1x2x?x8xf32>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %c2{{[_0-9]*}} : tensor<1x2x?x8xf32>
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
//     The two offsets: causal_offset = Nk - Nq + right, window_offset =
//     Nk - Nq - left.
// CHECK: %[[OFFSET:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: %[[RIGHT:.*]] = arith.constant 2 : index
// CHECK: %[[END_OFF:.*]] = arith.addi %[[OFFSET]], %[[RIGHT]] : index
// CHECK: %[[LEFT:.*]] = arith.constant -3 : index
// CHECK: %[[BEGIN_OFF:.*]] = arith.addi %[[OFFSET]], %[[LEFT]] : index
// CHECK: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x?x?xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[I]], %[[END_OFF]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %[[ONE]] : index
// CHECK: %[[AFTER:.*]] = arith.cmpi sge, %[[J]], %[[ROW_END]] : index
// CHECK: %[[ROW_BEGIN:.*]] = arith.addi %[[I]], %[[BEGIN_OFF]] : index
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[J]], %[[ROW_BEGIN]] : index
// CHECK: %[[HIDDEN:.*]] = arith.ori %[[AFTER]], %[[BEFORE]] : i1
// CHECK: %[[SEL:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[SCALED]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: arith.maxnumf
func.func @window(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %o: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>)
                    outs(%o : tensor<1x2x?x8xf32>) window(3, 2) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}

// -----

// Causal with window(3, 5) and softcap(30): causal clamps the right side to
// 0, so the end bound uses Nk - Nq itself (no + 5); the left bound is
// Nk - Nq - 3. Soft-capping replaces the scale: s * (scale / cap) with
// scale / cap = (1 / sqrt(8)) / 30 = 0.0117851133, tanh, times the cap,
// and the mask then selects on the capped score.
// CHECK-LABEL: func @causal_window_softcap
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[OFFSET:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NOT: arith.constant 5 : index
// CHECK: %[[LEFT:.*]] = arith.constant -3 : index
// CHECK: %[[BEGIN_OFF:.*]] = arith.addi %[[OFFSET]], %[[LEFT]] : index
// CHECK-DAG: %[[X_SCALE:.*]] = arith.constant 0.0117851133 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x?x?xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK: %[[XS:.*]] = arith.mulf %[[X]], %[[X_SCALE]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[XS]] : f32
// CHECK: %[[CAPPED:.*]] = arith.mulf %[[CAP]], %[[T]] : f32
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[I]], %[[OFFSET]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %{{.*}} : index
// CHECK: %[[AFTER:.*]] = arith.cmpi sge, %[[J]], %[[ROW_END]] : index
// CHECK: %[[ROW_BEGIN:.*]] = arith.addi %[[I]], %[[BEGIN_OFF]] : index
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[J]], %[[ROW_BEGIN]] : index
// CHECK: %[[HIDDEN:.*]] = arith.ori %[[AFTER]], %[[BEFORE]] : i1
// CHECK: %[[SEL:.*]] = arith.select %[[HIDDEN]], %[[NEG_INF]], %[[CAPPED]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
//     The softmax after it has no further scale: exp(S - M).
// CHECK: arith.maxnumf
// CHECK: %[[D:.*]] = arith.subf
// CHECK-NEXT: math.exp %[[D]] : f32
func.func @causal_window_softcap(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %o: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>)
                    outs(%o : tensor<1x2x?x8xf32>) causal window(3, 5) softcap(30.0) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}

// -----

// Soft-capping alone (explicit scale 0.5, cap 2): scale / cap = 0.25; no
// mask, so the capped score is the generic's result.
// CHECK-LABEL: func @softcap_only
// CHECK-DAG: %[[X_SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[CAPPED_S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[XS:.*]] = arith.mulf %[[X]], %[[X_SCALE]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[XS]] : f32
// CHECK-NEXT: %[[CAPPED:.*]] = arith.mulf %[[CAP]], %[[T]] : f32
// CHECK-NEXT: linalg.yield %[[CAPPED]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[CAPPED_S]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maxnumf
func.func @softcap_only(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
                    outs(%o : tensor<1x2x4x8xf32>) scale(0.5) softcap(2.0) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// window(-1, 1): the left side is unbounded, only the end bound (Nk - Nq +
// 1) is compared; window(-1, -1) masks nothing, as without a window.
// CHECK-LABEL: func @window_unbounded_sides
// CHECK: %[[OFFSET:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[RIGHT:.*]] = arith.constant 1 : index
// CHECK: %[[END_OFF:.*]] = arith.addi %[[OFFSET]], %[[RIGHT]] : index
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[I]], %[[END_OFF]] : index
// CHECK: %[[ROW_END:.*]] = arith.addi %[[DIAG]], %{{.*}} : index
// CHECK: %[[AFTER:.*]] = arith.cmpi sge, %[[J]], %[[ROW_END]] : index
// CHECK-NEXT: arith.select %[[AFTER]]
// CHECK-NOT: arith.cmpi slt
//     The second op: the scale alone.
// CHECK: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: linalg.index
// CHECK: return
func.func @window_unbounded_sides(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %0 = fa.attention ins(%q, %k, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
                    outs(%o : tensor<1x2x4x8xf32>) window(-1, 1) -> tensor<1x2x4x8xf32>
  %1 = fa.attention ins(%q, %k, %k : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
                    outs(%o : tensor<1x2x4x8xf32>) window(-1, -1) -> tensor<1x2x4x8xf32>
  return %0, %1 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// IR without fa.attention passes through unchanged.
// CHECK-LABEL: func @no_attention
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @no_attention(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
