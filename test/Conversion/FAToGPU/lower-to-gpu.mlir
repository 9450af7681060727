// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=64 block-n=32" --fa-causal-block-skip \
// RUN:   --fa-map-warps="num-warps=2" --fa-lower-to-gpu --canonicalize --cse | FileCheck %s

// L3 -> L4: the tiled, warp-mapped loop nest becomes a gpu.func (its own
// gpu.module) and a gpu.launch_func over (Q blocks, heads, batch).

//     Host side: the tensors' buffers, the launch, the results.
// CHECK-LABEL: func.func @causal_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x?x64xf16>, %[[K:[^:]*]]: tensor<?x2x?x64xf16>, %[[V:[^:]*]]: tensor<?x2x?x64xf16>, %[[O:[^:]*]]: tensor<?x8x?x64xf16>, %[[L:[^:]*]]: tensor<?x8x?xf32>)
// CHECK-DAG: %[[NQB:.*]] = arith.ceildivui
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[Q]], %c0
// CHECK-DAG: %[[QB:.*]] = bufferization.to_buffer %[[Q]]
// CHECK-DAG: %[[OB:.*]] = bufferization.to_buffer %[[O]]
// CHECK-DAG: %[[LB:.*]] = bufferization.to_buffer %[[L]]
// CHECK: gpu.launch_func @causal_gqa_kernel_module::@causal_gqa_kernel blocks in (%[[NQB]], %c8, %[[B]]) threads in (%c64, %c1, %c1) dynamic_shared_memory_size %c{{[0-9]+}}_i32 args(
// CHECK-SAME: : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-SAME: : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
// CHECK-SAME: fa.launch = {block = [64, 1, 1], block_m = 64 : i64, block_n = 32 : i64, causal = true, chip = "sm_80", dtype = "f16"
// CHECK-SAME: grid = ["ceildiv(Nq, 64)", "Hq", "B"], head_dim = 64 : i64, index_bitwidth = 32 : i64, kernel = "causal_gqa_kernel", kv_stages = 2 : i64, num_heads = 8 : i64, num_kv_heads = 2 : i64, num_warps = 2 : i64
// CHECK-SAME: params = ["q", "k", "v", "o", "lse"]
// CHECK: %[[OT:.*]] = bufferization.to_tensor %[[OB]] restrict writable
// CHECK: %[[LT:.*]] = bufferization.to_tensor %[[LB]] restrict writable
// CHECK: return %[[OT]], %[[LT]]

//     The kernel: 64 threads, dynamic shared memory.
// CHECK: gpu.module @causal_gqa_kernel_module
// CHECK: gpu.func @causal_gqa_kernel(%{{.*}}: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, {{.*}}, %{{.*}}: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-DAG: gpu.block_id z
// CHECK-DAG: gpu.block_id y
// CHECK-DAG: gpu.block_id x
// CHECK-DAG: gpu.thread_id x
//     GQA: the key/value head is the query head (block y) / 4.
// CHECK-DAG: arith.divui %block_id_y, %c4
// CHECK-DAG: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
//     Prologue: Q and block 0 as one cp.async group, 16 bytes per copy,
//     zero-filled past the sequence end.
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
//     The unmasked loop over K/V blocks; the online-softmax state is
//     loop-carried in registers: 2 rows x (max, sum) and 8 C tiles of O.
// CHECK: %[[R1:.*]]:24 = scf.for %[[K0:.*]] = %c0 to %[[FULL:.*]] step %c32 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, vector<2x2xf32>
//     Block j has landed and every warp is done with block j - 1, whose
//     stage now takes block j + 1: one barrier per block.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
//     S = Q K^T: ldmatrix and mma.sync m16n8k16, f32 accumulate.
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<{{.*}}, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: arith.cmpi sle
//     Online softmax: row max by quad shuffles; the rescale by alpha only
//     when some row max of the warp moved (before the exponentials at this
//     size: rescale-order.mlir); one FMA + exp2 per score.
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: %[[MOVED:.*]] = nvvm.vote.sync  any %c-1_i32, %{{.*}} -> i1
// CHECK: scf.if %[[MOVED]] -> (vector<2x2xf32>
// CHECK: arith.mulf
// CHECK: math.fma
// CHECK: math.exp2
//     P V: P converted in registers, V through ldmatrix.trans.
// CHECK: arith.truncf %{{.*}} : vector<2x2xf32> to vector<2x2xf16>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3] : vector<2x2xf16>, vector<2x2xf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
//     The masked loop continues the state; its scores are compared with the
//     per-row limit (a constant per column) and set to -inf.
// CHECK: %[[R2:.*]]:24 = scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %c32 iter_args(%{{.*}} = %[[R1]]#0,
// CHECK: nvgpu.mma.sync
// CHECK: arith.cmpi sle, %{{.*}}, %c0_i32 : i32
// CHECK: arith.select %{{.*}}, %cst{{.*}}, %{{.*}} : f32
// CHECK: math.exp2
// CHECK: scf.yield
//     Epilogue: O / l through shared memory to 16-byte stores; LSE.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: math.log2
// CHECK: memref.store %{{.*}} : memref<?xf32, strided<[1], offset: ?>>
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<?x64xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: gpu.return
func.func @causal_gqa(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %l: tensor<?x8x?xf32>) -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %0, %1 = fa.attention ins(%q, %k, %v : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)
                        outs(%o, %l : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) causal
                        -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// -----

// bf16: nvgpu.mma.sync has no bf16 form, so the kernel uses nvvm.mma.sync on
// packed registers. Without LSE, no log is computed and no LSE parameter.
// CHECK-LABEL: func.func @bf16_no_lse
// CHECK: gpu.launch_func @bf16_no_lse_kernel_module::@bf16_no_lse_kernel
// CHECK-SAME: params = ["q", "k", "v", "o"]
// CHECK: gpu.func @bf16_no_lse_kernel(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}: memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>) kernel
// CHECK: nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<4x2xbf16> to vector<4x1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-NOT: math.log2
// CHECK: gpu.return
func.func @bf16_no_lse(%q: tensor<2x4x?x32xbf16>, %k: tensor<2x4x?x32xbf16>, %o: tensor<2x4x?x32xbf16>) -> tensor<2x4x?x32xbf16> {
  %0 = fa.attention ins(%q, %k, %k : tensor<2x4x?x32xbf16>, tensor<2x4x?x32xbf16>, tensor<2x4x?x32xbf16>)
                    outs(%o : tensor<2x4x?x32xbf16>) -> tensor<2x4x?x32xbf16>
  return %0 : tensor<2x4x?x32xbf16>
}
