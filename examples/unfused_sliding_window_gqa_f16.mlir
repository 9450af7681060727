// A Mistral-style attention layer written without fa ops, the way a frontend
// exports it to linalg on tensors: 32 query heads over 8 key/value heads
// (torch's repeat_kv: a broadcast, then a reshape), head dim 128, f16 with f32
// scores, a causal mask limited to the last 512 keys (j > i - 512, j <= i),
// linalg.softmax, P rounded to f16 for P V. The main job compiles it with
// --fa-linalg-to-ptx: --fa-raise-attention replaces it with
// `fa.attention ... scale(0.0883883) causal window(511, 0)` first.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @unfused_sliding_window_gqa_f16(%q: tensor<?x32x2048x128xf16>, %k8: tensor<?x8x2048x128xf16>,
                                          %v8: tensor<?x8x2048x128xf16>) -> tensor<?x32x2048x128xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b = tensor.dim %q, %c0 : tensor<?x32x2048x128xf16>
  // repeat_kv: [B, 8, N, D] -> [B, 8, 4, N, D] -> [B, 32, N, D].
  %e5 = tensor.empty(%b) : tensor<?x8x4x2048x128xf16>
  %k5 = linalg.broadcast ins(%k8 : tensor<?x8x2048x128xf16>) outs(%e5 : tensor<?x8x4x2048x128xf16>) dimensions = [2]
  %v5 = linalg.broadcast ins(%v8 : tensor<?x8x2048x128xf16>) outs(%e5 : tensor<?x8x4x2048x128xf16>) dimensions = [2]
  %k = tensor.collapse_shape %k5 [[0], [1, 2], [3], [4]] : tensor<?x8x4x2048x128xf16> into tensor<?x32x2048x128xf16>
  %v = tensor.collapse_shape %v5 [[0], [1, 2], [3], [4]] : tensor<?x8x4x2048x128xf16> into tensor<?x32x2048x128xf16>
  // S = Q K^T in f32.
  %es = tensor.empty(%b) : tensor<?x32x2048x2048xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x32x2048x2048xf32>) -> tensor<?x32x2048x2048xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x32x2048x128xf16>, tensor<?x32x2048x128xf16>) outs(%zs : tensor<?x32x2048x2048xf32>) {
  ^bb0(%a: f16, %bb: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %bb : f16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x32x2048x2048xf32>
  // Scale by 1/sqrt(128), keep 0 <= i - j < 512.
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x32x2048x2048xf32>) outs(%es : tensor<?x32x2048x2048xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c512 = arith.constant 512 : index
    %scale = arith.constant 0.0883883461 : f32
    %scaled = arith.mulf %in, %scale : f32
    %past = arith.cmpi sle, %j, %i : index
    %lo = arith.subi %i, %c512 : index
    %near = arith.cmpi sgt, %j, %lo : index
    %visible = arith.andi %past, %near : i1
    %r = arith.select %visible, %scaled, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<?x32x2048x2048xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<?x32x2048x2048xf32>) outs(%es : tensor<?x32x2048x2048xf32>) -> tensor<?x32x2048x2048xf32>
  %ep16 = tensor.empty(%b) : tensor<?x32x2048x2048xf16>
  %p16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<?x32x2048x2048xf32>) outs(%ep16 : tensor<?x32x2048x2048xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<?x32x2048x2048xf16>
  // O = P V in f32, rounded to f16.
  %eo = tensor.empty(%b) : tensor<?x32x2048x128xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x32x2048x128xf32>) -> tensor<?x32x2048x128xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p16, %v : tensor<?x32x2048x2048xf16>, tensor<?x32x2048x128xf16>) outs(%zo : tensor<?x32x2048x128xf32>) {
  ^bb0(%a: f16, %bb: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %bb : f16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x32x2048x128xf32>
  %eo16 = tensor.empty(%b) : tensor<?x32x2048x128xf16>
  %o16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : tensor<?x32x2048x128xf32>) outs(%eo16 : tensor<?x32x2048x128xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<?x32x2048x128xf16>
  return %o16 : tensor<?x32x2048x128xf16>
}
