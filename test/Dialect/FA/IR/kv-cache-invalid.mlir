// RUN: fa-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of fa.attention's K/V cache operands
// (key_lengths, block_table), of the paged K/V pools and of packed
// sequences (cu_seqlens).

func.func @table_without_lengths(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x2x64xf16>, %v: tensor<10x16x2x64xf16>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{block_table needs key_lengths: a page pool holds no sequence lengths of its own}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x2x64xf16>, tensor<10x16x2x64xf16>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @lengths_i64(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %n: tensor<2xi64>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{key_lengths must be a rank-1 i32 [B], got 'tensor<2xi64>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) key_lengths(%n : tensor<2xi64>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @lengths_rank2(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %n: tensor<2x1xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{key_lengths must be a rank-1 i32 [B], got 'tensor<2x1xi32>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) key_lengths(%n : tensor<2x1xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @lengths_batch(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %n: tensor<3xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{key_lengths has 3 entries for a batch of 2}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) key_lengths(%n : tensor<3xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @table_f32(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x2x64xf16>, %v: tensor<10x16x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xf32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{block_table must be a rank-2 i32 [B, max_pages], got 'tensor<2x4xf32>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x2x64xf16>, tensor<10x16x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xf32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @table_batch(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x2x64xf16>, %v: tensor<10x16x2x64xf16>, %n: tensor<2xi32>, %t: tensor<4x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{block_table has 4 rows for a batch of 2}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x2x64xf16>, tensor<10x16x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<4x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @table_no_pages(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x2x64xf16>, %v: tensor<10x16x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x0xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{block_table needs at least one page per sequence, got 'tensor<2x0xi32>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x2x64xf16>, tensor<10x16x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x0xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @dynamic_page_size(%q: tensor<2x8x1x64xf16>, %k: tensor<10x?x2x64xf16>, %v: tensor<10x?x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{page_size (dim 1 of the key and value pools) must be static and positive, got key [10, ?, 2, 64]}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x?x2x64xf16>, tensor<10x?x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @pools_differ(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x2x64xf16>, %v: tensor<10x32x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{key and value pools must have the same pages, got key [10, 16, 2, 64] and value [10, 32, 2, 64]}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x2x64xf16>, tensor<10x32x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @empty_pool(%q: tensor<2x8x1x64xf16>, %k: tensor<0x16x2x64xf16>, %v: tensor<0x16x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{the key and value pools need at least one page, got key [0, 16, 2, 64]}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<0x16x2x64xf16>, tensor<0x16x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @paged_heads(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x3x64xf16>, %v: tensor<10x16x3x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{query heads (8) must be a multiple of key/value heads (3) for grouped-query attention}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x3x64xf16>, tensor<10x16x3x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @paged_rank(%q: tensor<2x8x1x64xf16>, %k: tensor<10x16x64xf16>, %v: tensor<10x16x2x64xf16>, %n: tensor<2xi32>, %t: tensor<2x4xi32>, %o: tensor<2x8x1x64xf16>) {
  // expected-error @+1 {{key must have rank 4 [num_pages, page_size, Hkv, D], got rank 3}}
  %r = fa.attention ins(%q, %k, %v : tensor<2x8x1x64xf16>, tensor<10x16x64xf16>, tensor<10x16x2x64xf16>) key_lengths(%n : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) outs(%o : tensor<2x8x1x64xf16>) -> tensor<2x8x1x64xf16>
  return
}

// -----

func.func @lengths_memref_mix(%q: memref<2x8x1x64xf16>, %k: memref<2x2x128x64xf16>, %v: memref<2x2x128x64xf16>, %n: tensor<2xi32>, %o: memref<2x8x1x64xf16>) {
  // expected-error @+1 {{expects all operands to be ranked tensors or all to be memrefs, got 'memref<2x8x1x64xf16>' and 'tensor<2xi32>' (operand #3)}}
  fa.attention ins(%q, %k, %v : memref<2x8x1x64xf16>, memref<2x2x128x64xf16>, memref<2x2x128x64xf16>) key_lengths(%n : tensor<2xi32>) outs(%o : memref<2x8x1x64xf16>)
  return
}

// -----

func.func @cu_q_only(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %cq: tensor<3xi32>, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{cu_seqlens needs both arrays, cu_seqlens(q, k)}}
  %r = "fa.attention"(%q, %k, %v, %cq, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0, 1>}> : (tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<3xi32>, tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @cu_i64(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %cq: tensor<3xi64>, %ck: tensor<3xi64>, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{cu_seqlens must be rank-1 i32 [S + 1], got 'tensor<3xi64>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) cu_seqlens(%cq, %ck : tensor<3xi64>, tensor<3xi64>) outs(%o : tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @cu_lengths_differ(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %cq: tensor<3xi32>, %ck: tensor<4xi32>, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{cu_seqlens arrays must have one length, got 'tensor<3xi32>' and 'tensor<4xi32>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<4xi32>) outs(%o : tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @cu_empty(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %cq: tensor<0xi32>, %ck: tensor<0xi32>, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{cu_seqlens needs S + 1 >= 1 entries, got 'tensor<0xi32>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) cu_seqlens(%cq, %ck : tensor<0xi32>, tensor<0xi32>) outs(%o : tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @cu_batch(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>, %o: tensor<?x8x?x64xf16>) {
  // expected-error @+1 {{with cu_seqlens the sequences are packed along N of a batch of one: dim 0 must be 1, got 'tensor<?x8x?x64xf16>'}}
  %r = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>) cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) outs(%o : tensor<?x8x?x64xf16>) -> tensor<?x8x?x64xf16>
  return
}

// -----

func.func @cu_with_cache(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %n: tensor<1xi32>, %cq: tensor<3xi32>, %ck: tensor<3xi32>, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{cu_seqlens (packed sequences) and key_lengths (a K/V cache) cannot be combined}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) key_lengths(%n : tensor<1xi32>) cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) outs(%o : tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @max_seqlen_without_cu(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %m: index, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{max_seqlen_q bounds the lengths of packed sequences: it needs cu_seqlens}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>) max_seqlen_q(%m) outs(%o : tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}

// -----

func.func @max_seqlen_i32(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>, %m: i32, %o: tensor<1x8x?x64xf16>) {
  // expected-error @+1 {{operand #5 must be index}}
  %r = "fa.attention"(%q, %k, %v, %cq, %ck, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 1>}> : (tensor<1x8x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<3xi32>, tensor<3xi32>, i32, tensor<1x8x?x64xf16>) -> tensor<1x8x?x64xf16>
  return
}
