// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-op-generic | fa-opt -split-input-file | FileCheck %s

// Round trip of the tile-level ops in their current syntax: first as
// --fa-tile-q-outer writes them (L1, no layouts), then with the layout
// encodings of --fa-map-warps and the futures of --fa-pipeline-kv (L3). The
// second RUN line goes through the generic form, so every attribute and
// operand segment must survive it too.

// L1, one K/V step: fa.qk has no scale; the three forms of fa.mask
// (key_limit and causal_offset, key_limit only, causal_offset only) keep
// their operands in place; fa.online_softmax takes the f32 scale as an SSA
// operand and one type per state; fa.rescale brings the accumulator to the
// new max before fa.pv (which has no alpha); fa.finalize names the three
// operand types and the output type, and returns (O, LSE).
// CHECK-LABEL: func.func @l1_step
// CHECK-SAME: (%[[Q:.*]]: tensor<128x64xf16>, %[[K:.*]]: tensor<64x64xf16>, %[[V:.*]]: tensor<64x32xf16>, %[[M:.*]]: tensor<128xf32>, %[[L:.*]]: tensor<128xf32>, %[[ACC:.*]]: tensor<128x32xf32>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[N:.*]]: index, %[[OFF:.*]]: index, %[[SCALE:.*]]: f32)
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[R0]], %[[C0]]] key_limit(%[[N]]) causal_offset(%[[OFF]]) : tensor<128x64xf32>
// CHECK: %[[SK:.*]] = fa.mask %[[SM]][%[[C0]], %[[R0]]] key_limit(%[[N]]) : tensor<128x64xf32>
// CHECK: %[[SC:.*]] = fa.mask %[[SK]][%[[R0]], %[[C0]]] causal_offset(%[[OFF]]) : tensor<128x64xf32>
// CHECK: %[[P:.*]], %[[MNEW:.*]], %[[LNEW:.*]], %[[ALPHA:.*]] = fa.online_softmax %[[SC]], %[[M]], %[[L]] scale(%[[SCALE]]) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<128x64xf32> to tensor<128x64xf16>
// CHECK: %[[ACCR:.*]] = fa.rescale %[[ACC]], %[[ALPHA]] : tensor<128x32xf32>, tensor<128xf32>
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[P16]], %[[V]], %[[ACCR]] : tensor<128x64xf16>, tensor<64x32xf16>, tensor<128x32xf32>
// CHECK: %[[O:.*]], %[[LSE:.*]] = fa.finalize %[[ACCNEW]], %[[MNEW]], %[[LNEW]] : tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x32xbf16>
// CHECK: return %[[O]], %[[LSE]]
func.func @l1_step(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x32xf16>,
                   %m: tensor<128xf32>, %l: tensor<128xf32>, %acc: tensor<128x32xf32>,
                   %r0: index, %c0: index, %n: index, %off: index, %scale: f32)
    -> (tensor<128x32xbf16>, tensor<128xf32>) {
  %s = fa.qk %q, %k : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  %s1 = fa.mask %s[%r0, %c0] key_limit(%n) causal_offset(%off) : tensor<128x64xf32>
  %s2 = fa.mask %s1[%c0, %r0] key_limit(%n) : tensor<128x64xf32>
  %s3 = fa.mask %s2[%r0, %c0] causal_offset(%off) : tensor<128x64xf32>
  %p, %m2, %l2, %alpha = fa.online_softmax %s3, %m, %l scale(%scale) : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
  %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x32xf32>, tensor<128xf32>
  %acc2 = fa.pv %p16, %v, %acc1 : tensor<128x64xf16>, tensor<64x32xf16>, tensor<128x32xf32>
  %o, %lse = fa.finalize %acc2, %m2, %l2 : tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x32xbf16>
  return %o, %lse : tensor<128x32xbf16>, tensor<128xf32>
}

// -----

// L1 after --fa-schedule-softmax: fa.running_max gives (new max, alpha) from
// S and the old max; fa.softmax_exp takes S, the new max, alpha and the old
// sum, in that order, and gives (P, new sum). Both carry the same scale
// operand. f32 tiles (no truncf before fa.pv) are allowed too.
// CHECK-LABEL: func.func @l1_split_softmax
// CHECK-SAME: (%[[S:.*]]: tensor<64x32xf32>, %[[M:.*]]: tensor<64xf32>, %[[L:.*]]: tensor<64xf32>, %[[V:.*]]: tensor<32x16xf32>, %[[ACC:.*]]: tensor<64x16xf32>, %[[SCALE:.*]]: f32)
// CHECK: %[[MNEW:.*]], %[[ALPHA:.*]] = fa.running_max %[[S]], %[[M]] scale(%[[SCALE]]) : tensor<64x32xf32>, tensor<64xf32>
// CHECK: %[[ACCR:.*]] = fa.rescale %[[ACC]], %[[ALPHA]] : tensor<64x16xf32>, tensor<64xf32>
// CHECK: %[[P:.*]], %[[LNEW:.*]] = fa.softmax_exp %[[S]], %[[MNEW]], %[[ALPHA]], %[[L]] scale(%[[SCALE]]) : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[P]], %[[V]], %[[ACCR]] : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>
// CHECK: return %[[ACCNEW]], %[[MNEW]], %[[LNEW]]
func.func @l1_split_softmax(%s: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>,
                            %v: tensor<32x16xf32>, %acc: tensor<64x16xf32>, %scale: f32)
    -> (tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>) {
  %m2, %alpha = fa.running_max %s, %m scale(%scale) : tensor<64x32xf32>, tensor<64xf32>
  %acc1 = fa.rescale %acc, %alpha : tensor<64x16xf32>, tensor<64xf32>
  %p, %l2 = fa.softmax_exp %s, %m2, %alpha, %l scale(%scale) : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  %acc2 = fa.pv %p, %v, %acc1 : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>
  return %acc2, %m2, %l2 : tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
#partial = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
#sh = #fa.block_shared<atom = #fa.mma_sync>

// L3, one K/V step with layouts, Q in registers: the encodings come back
// under the aliases the dialect chooses (#acc_w4, #opA_w4, #partial_w4,
// #rows_w4, #shared), whatever the input called them. Q is an operand_a
// tile, K and V shared tiles, S/P/acc acc tiles, m and alpha rows, l
// partial_rows; P is converted from acc to operand_a before fa.pv; the LSE
// of fa.finalize is a rows tile (same type as m).
// CHECK-DAG: #acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #opA_w4 = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w4 = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #partial_w4 = #fa.warp_rows<partial_rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-LABEL: func.func @l3_step
// CHECK-SAME: (%[[Q:.*]]: tensor<128x64xbf16, #opA_w4>, %[[K:.*]]: tensor<64x64xbf16, #shared>, %[[V:.*]]: tensor<64x64xbf16, #shared>, %[[M:.*]]: tensor<128xf32, #rows_w4>, %[[L:.*]]: tensor<128xf32, #partial_w4>, %[[ACC:.*]]: tensor<128x64xf32, #acc_w4>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[N:.*]]: index, %[[SCALE:.*]]: f32)
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] : tensor<128x64xbf16, #opA_w4>, tensor<64x64xbf16, #shared> -> tensor<128x64xf32, #acc_w4>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[R0]], %[[C0]]] key_limit(%[[N]]) : tensor<128x64xf32, #acc_w4>
// CHECK: %[[MNEW:.*]], %[[ALPHA:.*]] = fa.running_max %[[SM]], %[[M]] scale(%[[SCALE]]) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>
// CHECK: %[[ACCR:.*]] = fa.rescale %[[ACC]], %[[ALPHA]] : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>
// CHECK: %[[P:.*]], %[[LNEW:.*]] = fa.softmax_exp %[[SM]], %[[MNEW]], %[[ALPHA]], %[[L]] scale(%[[SCALE]]) : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4>
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<128x64xf32, #acc_w4> to tensor<128x64xbf16, #acc_w4>
// CHECK: %[[PA:.*]] = fa.convert_layout %[[P16]] : tensor<128x64xbf16, #acc_w4> -> tensor<128x64xbf16, #opA_w4>
// CHECK: %[[ACCNEW:.*]] = fa.pv %[[PA]], %[[V]], %[[ACCR]] : tensor<128x64xbf16, #opA_w4>, tensor<64x64xbf16, #shared>, tensor<128x64xf32, #acc_w4>
// CHECK: %[[O:.*]], %[[LSE:.*]] = fa.finalize %[[ACCNEW]], %[[MNEW]], %[[LNEW]] : tensor<128x64xf32, #acc_w4>, tensor<128xf32, #rows_w4>, tensor<128xf32, #partial_w4> -> tensor<128x64xbf16, #acc_w4>
// CHECK: return %[[O]], %[[LSE]] : tensor<128x64xbf16, #acc_w4>, tensor<128xf32, #rows_w4>
func.func @l3_step(%q: tensor<128x64xbf16, #opA>, %k: tensor<64x64xbf16, #sh>, %v: tensor<64x64xbf16, #sh>,
                   %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #partial>, %acc: tensor<128x64xf32, #acc>,
                   %r0: index, %c0: index, %n: index, %scale: f32)
    -> (tensor<128x64xbf16, #acc>, tensor<128xf32, #rows>) {
  %s = fa.qk %q, %k : tensor<128x64xbf16, #opA>, tensor<64x64xbf16, #sh> -> tensor<128x64xf32, #acc>
  %s1 = fa.mask %s[%r0, %c0] key_limit(%n) : tensor<128x64xf32, #acc>
  %m2, %alpha = fa.running_max %s1, %m scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>
  %p, %l2 = fa.softmax_exp %s1, %m2, %alpha, %l scale(%scale) : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial>
  %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xbf16, #acc>
  %pa = fa.convert_layout %p16 : tensor<128x64xbf16, #acc> -> tensor<128x64xbf16, #opA>
  %acc2 = fa.pv %pa, %v, %acc1 : tensor<128x64xbf16, #opA>, tensor<64x64xbf16, #sh>, tensor<128x64xf32, #acc>
  %o, %lse = fa.finalize %acc2, %m2, %l2 : tensor<128x64xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #partial> -> tensor<128x64xbf16, #acc>
  return %o, %lse : tensor<128x64xbf16, #acc>, tensor<128xf32, #rows>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
#rows = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
#sh = #fa.block_shared<atom = #fa.mma_sync>

// L3 with Q re-read from shared memory (query-home=shared), 8 warps, the
// unsplit fa.online_softmax and both mask bounds: the query tile of fa.qk
// may be #shared; the alias follows num_warps (#acc_w8, #rows_w8); a rows
// sum is accepted where partial_rows is (fa.online_softmax, fa.finalize).
// CHECK-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w8 = #fa.warp_rows<rows, num_warps = 8, atom = #fa.mma_sync>
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-LABEL: func.func @l3_query_shared
// CHECK-SAME: (%[[Q:.*]]: tensor<128x128xf16, #shared>, %[[K:.*]]: tensor<32x128xf16, #shared>, %[[M:.*]]: tensor<128xf32, #rows_w8>, %[[L:.*]]: tensor<128xf32, #rows_w8>, %[[ACC:.*]]: tensor<128x128xf32, #acc_w8>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[N:.*]]: index, %[[OFF:.*]]: index, %[[SCALE:.*]]: f32)
// CHECK: %[[S:.*]] = fa.qk %[[Q]], %[[K]] : tensor<128x128xf16, #shared>, tensor<32x128xf16, #shared> -> tensor<128x32xf32, #acc_w8>
// CHECK: %[[SM:.*]] = fa.mask %[[S]][%[[R0]], %[[C0]]] key_limit(%[[N]]) causal_offset(%[[OFF]]) : tensor<128x32xf32, #acc_w8>
// CHECK: %[[SC:.*]] = fa.mask %[[SM]][%[[R0]], %[[C0]]] causal_offset(%[[OFF]]) : tensor<128x32xf32, #acc_w8>
// CHECK: %[[P:.*]], %[[MNEW:.*]], %[[LNEW:.*]], %[[ALPHA:.*]] = fa.online_softmax %[[SC]], %[[M]], %[[L]] scale(%[[SCALE]]) : tensor<128x32xf32, #acc_w8>, tensor<128xf32, #rows_w8>, tensor<128xf32, #rows_w8>
// CHECK: %[[ACCR:.*]] = fa.rescale %[[ACC]], %[[ALPHA]] : tensor<128x128xf32, #acc_w8>, tensor<128xf32, #rows_w8>
// CHECK: %[[O:.*]], %[[LSE:.*]] = fa.finalize %[[ACCR]], %[[MNEW]], %[[LNEW]] : tensor<128x128xf32, #acc_w8>, tensor<128xf32, #rows_w8>, tensor<128xf32, #rows_w8> -> tensor<128x128xf16, #acc_w8>
// CHECK: return %[[P]], %[[O]], %[[LSE]]
func.func @l3_query_shared(%q: tensor<128x128xf16, #sh>, %k: tensor<32x128xf16, #sh>,
                           %m: tensor<128xf32, #rows>, %l: tensor<128xf32, #rows>, %acc: tensor<128x128xf32, #acc>,
                           %r0: index, %c0: index, %n: index, %off: index, %scale: f32)
    -> (tensor<128x32xf32, #acc>, tensor<128x128xf16, #acc>, tensor<128xf32, #rows>) {
  %s = fa.qk %q, %k : tensor<128x128xf16, #sh>, tensor<32x128xf16, #sh> -> tensor<128x32xf32, #acc>
  %s1 = fa.mask %s[%r0, %c0] key_limit(%n) causal_offset(%off) : tensor<128x32xf32, #acc>
  %s2 = fa.mask %s1[%r0, %c0] causal_offset(%off) : tensor<128x32xf32, #acc>
  %p, %m2, %l2, %alpha = fa.online_softmax %s2, %m, %l scale(%scale) : tensor<128x32xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #rows>
  %acc1 = fa.rescale %acc, %alpha : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>
  %o, %lse = fa.finalize %acc1, %m2, %l2 : tensor<128x128xf32, #acc>, tensor<128xf32, #rows>, tensor<128xf32, #rows> -> tensor<128x128xf16, #acc>
  return %p, %o, %lse : tensor<128x32xf32, #acc>, tensor<128x128xf16, #acc>, tensor<128xf32, #rows>
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#sh = #fa.block_shared<atom = #fa.mma_sync>

// L3 after --fa-pipeline-kv: fa.async_load of one source without a
// predicate (the Q tile, slot 0 of 1) and of two sources with `if` (K and V,
// slot %s of 2); the sources, the [batch, head, row_start] indices, rows,
// slot and predicate keep their order; the result is a qualified
// !fa.future of #shared tiles, one per source. fa.await keeps `pending`
// and returns one result per tile of the future, with the future's tile
// types; the Q tile goes to registers by fa.convert_layout (#shared ->
// #opA_w4).
// CHECK-DAG: #opA_w4 = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-LABEL: func.func @l3_pipeline
// CHECK-SAME: (%[[QS:.*]]: tensor<?x8x?x64xf16>, %[[KS:.*]]: tensor<?x2x?x64xf16>, %[[VS:.*]]: tensor<?x2x?x32xf16>, %[[B:.*]]: index, %[[H:.*]]: index, %[[KVH:.*]]: index, %[[R0:.*]]: index, %[[N:.*]]: index, %[[SLOT:.*]]: index, %[[IN:.*]]: i1)
// CHECK: %[[FQ:.*]] = fa.async_load %[[QS]][%[[B]], %[[H]], %[[R0]]] rows(%[[N]]) slot(%[[SLOT]]) of 1 : tensor<?x8x?x64xf16> -> !fa.future<tensor<128x64xf16, #shared>>
// CHECK: %[[FKV:.*]] = fa.async_load %[[KS]], %[[VS]][%[[B]], %[[KVH]], %[[N]]] rows(%[[R0]]) slot(%[[SLOT]]) of 3 if(%[[IN]]) l2_prefetch(128) : tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> !fa.future<tensor<64x64xf16, #shared>, tensor<64x32xf16, #shared>>
// CHECK: %[[QT:.*]] = fa.await %[[FQ]] pending(1) : !fa.future<tensor<128x64xf16, #shared>>
// CHECK: %[[QA:.*]] = fa.convert_layout %[[QT]] : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA_w4>
// CHECK: %[[KV:.*]]:2 = fa.await %[[FKV]] pending(0) : !fa.future<tensor<64x64xf16, #shared>, tensor<64x32xf16, #shared>>
// CHECK: return %[[QA]], %[[KV]]#1, %[[KV]]#0 : tensor<128x64xf16, #opA_w4>, tensor<64x32xf16, #shared>, tensor<64x64xf16, #shared>
func.func @l3_pipeline(%qs: tensor<?x8x?x64xf16>, %ks: tensor<?x2x?x64xf16>, %vs: tensor<?x2x?x32xf16>,
                       %b: index, %h: index, %kvh: index, %r0: index, %n: index, %slot: index, %in: i1)
    -> (tensor<128x64xf16, #opA>, tensor<64x32xf16, #sh>, tensor<64x64xf16, #sh>) {
  %fq = fa.async_load %qs[%b, %h, %r0] rows(%n) slot(%slot) of 1 : tensor<?x8x?x64xf16> -> !fa.future<tensor<128x64xf16, #sh>>
  %fkv = fa.async_load %ks, %vs[%b, %kvh, %n] rows(%r0) slot(%slot) of 3 if (%in) l2_prefetch(128) : tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> !fa.future<tensor<64x64xf16, #sh>, tensor<64x32xf16, #sh>>
  %qt = fa.await %fq pending(1) : !fa.future<tensor<128x64xf16, #sh>>
  %qa = fa.convert_layout %qt : tensor<128x64xf16, #sh> -> tensor<128x64xf16, #opA>
  %kt, %vt = fa.await %fkv pending(0) : !fa.future<tensor<64x64xf16, #sh>, tensor<64x32xf16, #sh>>
  return %qa, %vt, %kt : tensor<128x64xf16, #opA>, tensor<64x32xf16, #sh>, tensor<64x64xf16, #sh>
}

// -----

#sh = #fa.block_shared<atom = #fa.mma_sync>

// A future is an ordinary SSA type: it can be carried by scf.for, as
// --fa-pipeline-kv does across the K/V loop, and prints qualified in the
// loop's types too.
// CHECK-LABEL: func.func @future_iter_arg
// CHECK-SAME: (%[[F:.*]]: !fa.future<tensor<64x64xbf16, #shared>>, %[[SRC:.*]]: tensor<1x1x?x64xbf16>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[IT:.*]] = %[[F]]) -> (!fa.future<tensor<64x64xbf16, #shared>>) {
// CHECK:   %[[T:.*]] = fa.await %[[IT]] pending(0) : !fa.future<tensor<64x64xbf16, #shared>>
// CHECK:   %[[NEXT:.*]] = fa.async_load %[[SRC]][%[[LB]], %[[LB]], %[[I]]] rows(%[[STEP]]) slot(%[[LB]]) of 2 : tensor<1x1x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #shared>>
// CHECK:   scf.yield %[[NEXT]] : !fa.future<tensor<64x64xbf16, #shared>>
// CHECK: return %[[R]] : !fa.future<tensor<64x64xbf16, #shared>>
func.func @future_iter_arg(%f: !fa.future<tensor<64x64xbf16, #sh>>, %src: tensor<1x1x?x64xbf16>,
                           %lb: index, %ub: index, %step: index) -> !fa.future<tensor<64x64xbf16, #sh>> {
  %r = scf.for %i = %lb to %ub step %step iter_args(%it = %f) -> (!fa.future<tensor<64x64xbf16, #sh>>) {
    %t = fa.await %it pending(0) : !fa.future<tensor<64x64xbf16, #sh>>
    %next = fa.async_load %src[%lb, %lb, %i] rows(%step) slot(%lb) of 2 : tensor<1x1x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #sh>>
    scf.yield %next : !fa.future<tensor<64x64xbf16, #sh>>
  }
  return %r : !fa.future<tensor<64x64xbf16, #sh>>
}

// -----

// A sliding window (L1): fa.mask takes window_offset alone or after
// key_limit and causal_offset, the three always printed in that order and
// each keeping its operand; fa.softcap sits between fa.qk and fa.mask and
// takes the f32 scale (attention scale over the cap) and cap operands, in
// that order, or the scale alone (tanh only: the cap is then in the
// softmax's scale, as --fa-tile-q-outer emits it).
// CHECK-LABEL: func.func @l1_window_softcap
// CHECK-SAME: (%[[S:.*]]: tensor<64x32xf32>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[N:.*]]: index, %[[OFF:.*]]: index, %[[WIN:.*]]: index, %[[X:.*]]: f32, %[[CAP:.*]]: f32)
// CHECK: %[[SC:.*]] = fa.softcap %[[S]] scale(%[[X]]) cap(%[[CAP]]) : tensor<64x32xf32>
// CHECK: %[[M1:.*]] = fa.mask %[[SC]][%[[R0]], %[[C0]]] window_offset(%[[WIN]]) : tensor<64x32xf32>
// CHECK: %[[M2:.*]] = fa.mask %[[M1]][%[[R0]], %[[C0]]] key_limit(%[[N]]) causal_offset(%[[OFF]]) window_offset(%[[WIN]]) : tensor<64x32xf32>
// CHECK: %[[M3:.*]] = fa.mask %[[M2]][%[[C0]], %[[R0]]] key_limit(%[[N]]) window_offset(%[[OFF]]) : tensor<64x32xf32>
// CHECK: %[[M4:.*]] = fa.mask %[[M3]][%[[R0]], %[[C0]]] causal_offset(%[[WIN]]) window_offset(%[[OFF]]) : tensor<64x32xf32>
// CHECK: %[[T:.*]] = fa.softcap %[[M4]] scale(%[[X]]) : tensor<64x32xf32>
// CHECK: return %[[T]]
func.func @l1_window_softcap(%s: tensor<64x32xf32>, %r0: index, %c0: index, %n: index, %off: index, %win: index,
                             %x: f32, %cap: f32) -> tensor<64x32xf32> {
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<64x32xf32>
  %m1 = fa.mask %sc[%r0, %c0] window_offset(%win) : tensor<64x32xf32>
  %m2 = fa.mask %m1[%r0, %c0] key_limit(%n) causal_offset(%off) window_offset(%win) : tensor<64x32xf32>
  %m3 = fa.mask %m2[%c0, %r0] key_limit(%n) window_offset(%off) : tensor<64x32xf32>
  %m4 = fa.mask %m3[%r0, %c0] causal_offset(%win) window_offset(%off) : tensor<64x32xf32>
  %t = fa.softcap %m4 scale(%x) : tensor<64x32xf32>
  return %t : tensor<64x32xf32>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>

// L3: fa.softcap and the windowed fa.mask on acc tiles keep the encoding
// (one type for operand and result).
// CHECK-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// CHECK-LABEL: func.func @l3_window_softcap
// CHECK-SAME: (%[[S:.*]]: tensor<128x32xf32, #acc_w8>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[WIN:.*]]: index, %[[X:.*]]: f32, %[[CAP:.*]]: f32)
// CHECK: %[[SC:.*]] = fa.softcap %[[S]] scale(%[[X]]) cap(%[[CAP]]) : tensor<128x32xf32, #acc_w8>
// CHECK: %[[M:.*]] = fa.mask %[[SC]][%[[R0]], %[[C0]]] window_offset(%[[WIN]]) : tensor<128x32xf32, #acc_w8>
// CHECK: return %[[M]] : tensor<128x32xf32, #acc_w8>
func.func @l3_window_softcap(%s: tensor<128x32xf32, #acc>, %r0: index, %c0: index, %win: index,
                             %x: f32, %cap: f32) -> tensor<128x32xf32, #acc> {
  %sc = fa.softcap %s scale(%x) cap(%cap) : tensor<128x32xf32, #acc>
  %m = fa.mask %sc[%r0, %c0] window_offset(%win) : tensor<128x32xf32, #acc>
  return %m : tensor<128x32xf32, #acc>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>

// fa.warp_row_range: two index results, from the type of a tile with or
// without a layout.
// CHECK-LABEL: func.func @warp_row_range
// CHECK-SAME: (%[[M:.*]]: tensor<128xf32, #rows_w4>, %[[P:.*]]: tensor<64x16xf32>)
// CHECK: %[[F:.*]], %[[N:.*]] = fa.warp_row_range %[[M]] : tensor<128xf32, #rows_w4>
// CHECK: %[[F2:.*]], %[[N2:.*]] = fa.warp_row_range %[[P]] : tensor<64x16xf32>
// CHECK: return %[[F]], %[[N]], %[[F2]], %[[N2]]
func.func @warp_row_range(%m: tensor<128xf32, #rows>, %p: tensor<64x16xf32>) -> (index, index, index, index) {
  %first, %count = fa.warp_row_range %m : tensor<128xf32, #rows>
  %first2, %count2 = fa.warp_row_range %p : tensor<64x16xf32>
  return %first, %count, %first2, %count2 : index, index, index, index
}

// -----

// CHECK-LABEL: func @varlen_block
// CHECK-SAME: (%[[CUQ:[a-z0-9]+]]: tensor<?xi32>, %[[CUK:[a-z0-9]+]]: tensor<5xi32>, %[[I:[a-z0-9]+]]: index)
// CHECK: %sequence, %block, %query_start, %num_queries, %key_start, %num_keys = fa.varlen_block %[[CUQ]], %[[CUK]][%[[I]]] block_rows(128) : tensor<?xi32>, tensor<5xi32>
func.func @varlen_block(%cq: tensor<?xi32>, %ck: tensor<5xi32>, %i: index) -> (index, index, index, index, index, index) {
  %s, %b, %q0, %nq, %k0, %nk = fa.varlen_block %cq, %ck[%i] block_rows(128) : tensor<?xi32>, tensor<5xi32>
  return %s, %b, %q0, %nq, %k0, %nk : index, index, index, index, index, index
}

// -----

// Asynchronous products and their waits (--fa-pipeline-mma): `async` on
// fa.qk and fa.pv, read through fa.mma_wait with the number of later
// products that may stay in flight.
// CHECK-LABEL: func @async_products
// CHECK: %[[S:.*]] = fa.qk %{{.*}}, %{{.*}} {async} : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>
// CHECK: %[[O:.*]] = fa.pv %{{.*}}, %{{.*}}, %{{.*}} {async} : tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>
// CHECK: fa.mma_wait %[[S]] pending(1) : tensor<64x16xf32>
// CHECK: fa.mma_wait %[[O]] pending(0) : tensor<64x16xf32>
func.func @async_products(%q: tensor<64x16xf16>, %k: tensor<16x16xf16>, %p: tensor<64x16xf16>,
                          %v: tensor<16x16xf16>, %acc: tensor<64x16xf32>)
    -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %s = fa.qk %q, %k {async} : tensor<64x16xf16>, tensor<16x16xf16> -> tensor<64x16xf32>
  %o = fa.pv %p, %v, %acc {async} : tensor<64x16xf16>, tensor<16x16xf16>, tensor<64x16xf32>
  %s1 = fa.mma_wait %s pending(1) : tensor<64x16xf32>
  %o1 = fa.mma_wait %o pending(0) : tensor<64x16xf32>
  return %s1, %o1 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>

// A TMA ring whose slots are released: the load waits for the release
// phase of its slot's fill before (after_release, after tma), the await
// names the completion phase, fa.release (with or without `if`) frees the
// slot; all print back in this form.
// CHECK-LABEL: func.func @released_ring
// CHECK-SAME: (%[[K:.*]]: tensor<?x2x?x64xbf16>, %[[I:.*]]: index, %[[P:.*]]: index, %[[C:.*]]: i1)
// CHECK: %[[F:.*]] = fa.async_load %[[K]][%[[I]], %[[I]], %[[I]]] rows(%[[I]]) slot(%[[I]]) of 2 if(%[[C]]) tma after_release(%[[P]]) : tensor<?x2x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>>
// CHECK: %[[T:.*]] = fa.await %[[F]] pending(0) phase(%[[P]]) : !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>>
// CHECK: fa.release %[[F]] if(%[[C]]) : !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>>
// CHECK: fa.release %[[F]] : !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>>
func.func @released_ring(%k: tensor<?x2x?x64xbf16>, %i: index, %p: index, %c: i1) -> tensor<64x64xbf16, #swz> {
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 2 if (%c) tma after_release(%p) : tensor<?x2x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #swz>>
  %t = fa.await %f pending(0) phase(%p) : !fa.future<tensor<64x64xbf16, #swz>>
  fa.release %f if (%c) : !fa.future<tensor<64x64xbf16, #swz>>
  fa.release %f : !fa.future<tensor<64x64xbf16, #swz>>
  return %t : tensor<64x64xbf16, #swz>
}

// -----

#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>

// An await that zeroes the rows past a TMA block's own (zero_from, after
// the phase) prints back in this form.
// CHECK-LABEL: func.func @zero_tail
// CHECK-SAME: (%[[K:.*]]: tensor<?x2x?x64xbf16>, %[[I:.*]]: index, %[[P:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[F:.*]] = fa.async_load %[[K]][%[[I]], %[[I]], %[[I]]] rows(%[[N]]) slot(%[[I]]) of 2 tma
// CHECK: fa.await %[[F]] pending(0) phase(%[[P]]) zero_from(%[[N]]) : !fa.future<tensor<64x64xbf16, #shared_swz_wgmma>>
func.func @zero_tail(%k: tensor<?x2x?x64xbf16>, %i: index, %p: index, %n: index) -> tensor<64x64xbf16, #swz> {
  %f = fa.async_load %k[%i, %i, %i] rows(%n) slot(%i) of 2 tma : tensor<?x2x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #swz>>
  %t = fa.await %f pending(0) phase(%p) zero_from(%n) : !fa.future<tensor<64x64xbf16, #swz>>
  return %t : tensor<64x64xbf16, #swz>
}

// -----

#swz = #fa.block_shared<atom = #fa.wgmma, swizzled = true>

// The warpgroups' turns at their matmuls (fa.mma_turn, four steps) and a
// TMA load issued by another thread than 0 (issuer, after after_release)
// print back in this form.
// CHECK-LABEL: func.func @turns
// CHECK: fa.mma_turn open of 2
// CHECK: fa.async_load %{{.*}} of 2 tma after_release(%{{.*}}) issuer(128) : tensor<?x2x?x64xbf16>
// CHECK: fa.mma_turn take of 2
// CHECK: fa.mma_turn pass of 2
// CHECK: fa.mma_turn close of 3
func.func @turns(%k: tensor<?x2x?x64xbf16>, %i: index, %p: index) {
  fa.mma_turn open of 2
  %f = fa.async_load %k[%i, %i, %i] rows(%i) slot(%i) of 2 tma after_release(%p) issuer(128) : tensor<?x2x?x64xbf16> -> !fa.future<tensor<64x64xbf16, #swz>>
  fa.mma_turn take of 2
  fa.mma_turn pass of 2
  fa.mma_turn close of 3
  return
}

// -----

// CHECK-LABEL: func @varlen_block_per_sequence
// CHECK-SAME: %{{[a-z0-9]+}}: index, %[[P:[a-z0-9]+]]: index)
// CHECK: fa.varlen_block %{{.*}}, %{{.*}}[%{{.*}}] block_rows(64) per_sequence(%[[P]]) : tensor<?xi32>, tensor<?xi32>
func.func @varlen_block_per_sequence(%cu: tensor<?xi32>, %i: index, %p: index) -> (index, index) {
  %s, %b, %q0, %nq, %k0, %nk = fa.varlen_block %cu, %cu[%i] block_rows(64) per_sequence(%p) : tensor<?xi32>, tensor<?xi32>
  return %s, %b : index, index
}
