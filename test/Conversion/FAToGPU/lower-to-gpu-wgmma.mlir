// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu=chip=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP

// fa.qk and fa.pv (Patterns/Matmul.cpp) on the #fa.wgmma atom
// (Atoms/Wgmma.cpp): shared tiles as 8 x 8 core matrices (a 4-D view),
// filled by cp.async with 8 lanes a core matrix and published to the async
// proxy by fence.proxy.async; A from registers (ldmatrix.x4 from the core
// matrices), B by a shared-memory descriptor; one inline-asm statement per
// matmul: wgmma.fence, one wgmma.mma_async.m64nNk16 per k step,
// commit_group, wait_group 0. Hand-written L3 kernels on one warpgroup (64
// rows, 4 warps).

// CHIP: error: fa-lower-to-gpu: the #fa.wgmma atom needs chip=sm_90a (wgmma is an sm_90a instruction), got chip=sm_90

// S = Q K^T, head dim 32 (two k steps), K [16 x 32]: K-major descriptor,
// LBO = 128 bytes (the next core matrix along K), SBO = 4 x 128 (the next
// 8 rows of K): (8 << 16) | (32 << 32). The second k step starts 256 bytes
// (two core matrices) further. Q: per k step one ldmatrix.x4 from the Q
// tile's core matrices (64 x 32: 8 x 4 of them).
// CHECK-LABEL: gpu.func @qk_q_in_registers_kernel
// CHECK-DAG: %[[KMAJOR:.*]] = arith.constant 137439477760 : i64
// CHECK-DAG: %[[MASK:.*]] = arith.constant 262143 : i64
//     Q [64 x 32]: chunk q = tid (+ 128) goes to core matrix (q / 8 / 4,
//     (q / 8) % 4), row q % 8.
// CHECK: %[[QV:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8x4x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: %[[Q8:.*]] = arith.divui %thread_id_x, %c8 : index
// CHECK: %[[QROWS:.*]] = arith.divui %[[Q8]], %c4 : index
// CHECK: %[[QCHUNK:.*]] = arith.remui %[[Q8]], %c4 : index
// CHECK: %[[QROW:.*]] = arith.remui %thread_id_x, %c8 : index
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[QV]][%[[QROWS]], %[[QCHUNK]], %[[QROW]], %c0], 8
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[QV]][
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", ""
// CHECK-NEXT: gpu.barrier
//     Q to A registers: one ldmatrix.x4 per k step, chunks 2 kk + lane / 16.
// CHECK: %[[QA0:.*]] = nvgpu.ldmatrix %[[QV2:.*]][%[[R8:.*]], %[[C0:.*]], %[[RIN:.*]], %c0] {numTiles = 4 : i32, transpose = false} : memref<8x4x8x8xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c2 : index
// CHECK: %[[QA1:.*]] = nvgpu.ldmatrix %[[QV2]][%[[R8]], %[[C1]], %[[RIN]], %c0]
//     K [16 x 32]: 64 chunks, threads 0-63.
// CHECK: memref.view {{.*}} to memref<2x4x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
//     The descriptors: the shared address >> 4 in bits 0-13, the strides.
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[KADDR0:.*]] = arith.addi %[[BASE]], %[[KOFF:.*]] : index
// CHECK: %[[KA0:.*]] = arith.index_castui %[[KADDR0]] : index to i64
// CHECK: %[[KM0:.*]] = arith.andi %[[KA0]], %[[MASK]] : i64
// CHECK: %[[KS0:.*]] = arith.shrui %[[KM0]], %c4_i64 : i64
// CHECK: %[[KDESC0:.*]] = arith.ori %[[KS0]], %[[KMAJOR]] : i64
// CHECK: %[[QI0:.*]] = vector.bitcast %[[QA0]] : vector<4x2xf16> to vector<4x1xi32>
// CHECK: %[[A00:.*]] = vector.extract %[[QI0]][0, 0] : i32 from vector<4x1xi32>
// CHECK: %[[KDESC1:.*]] = arith.ori %{{.*}}, %[[KMAJOR]] : i64
// CHECK: %[[S:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $16, 0;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$17, $18, $19, $20}, $21, p, 1, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$22, $23, $24, $25}, $26, p, 1, 1, 0;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,r,r,r,r,r,l,r,r,r,r,l" %{{.*}}, %c1_i32, %[[A00]], %{{.*}}, %{{.*}}, %{{.*}}, %[[KDESC0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[KDESC1]] : {{.*}} -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK: llvm.extractvalue %[[S]][7]
// CHECK-NOT: wgmma.mma_async
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>
func.func @qk_q_in_registers(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %s: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%so = %s) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<64x32xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<16x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x32xf16> to tensor<16x32xf16, #shared>
    %sc = fa.qk %qa, %kt : tensor<64x32xf16, #opA>, tensor<16x32xf16, #shared> -> tensor<64x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// O = P V, bf16, P [64 x 32] (two k steps), V [32 x 16] stored [k][n]:
// MN-major (trans-b = 1), LBO = 2 x 128 bytes (the next 8 keys: a row of
// core matrices), SBO = 128 (the next 8 columns): (16 << 16) | (8 << 32);
// the second k step starts 512 bytes (16 keys) further.
// CHECK-LABEL: gpu.func @pv_bf16_kernel
// CHECK-DAG: %[[MNMAJOR:.*]] = arith.constant 34360786944 : i64
// CHECK: memref.view {{.*}} to memref<4x2x8x8xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.ori %{{.*}}, %[[MNMAJOR]] : i64
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$17, $18, $19, $20}, $21, p, 1, 1, 1;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;\0Awgmma.commit_group
// CHECK-NOT: wgmma.mma_async
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>
func.func @pv_bf16(%p: tensor<1x1x?x32xbf16>, %v: tensor<1x1x?x16xbf16>, %o: tensor<1x1x?x16xbf16>) -> tensor<1x1x?x16xbf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %p, %c2 : tensor<1x1x?x32xbf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xbf16>) {
    %zero = arith.constant 0.0 : bf16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %ps = tensor.extract_slice %p[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xbf16> to tensor<?x32xbf16>
    %pt = tensor.pad %ps low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<?x32xbf16> to tensor<64x32xbf16, #shared>
    %pa = fa.convert_layout %pt : tensor<64x32xbf16, #shared> -> tensor<64x32xbf16, #opA>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x?x16xbf16> to tensor<32x16xbf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : bf16
    } : tensor<32x16xbf16> to tensor<32x16xbf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %acc = fa.pv %pa, %vt, %a0 : tensor<64x32xbf16, #opA>, tensor<32x16xbf16, #shared>, tensor<64x16xf32, #acc>
    %o16 = arith.truncf %acc : tensor<64x16xf32, #acc> to tensor<64x16xbf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xbf16, #acc> to tensor<?x16xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xbf16> into tensor<1x1x?x16xbf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xbf16>
}

// -----

// P through shared memory (fa.convert_layout acc -> #shared): the acc pairs
// are stored into P's core matrices, published to the async proxy, and
// P V reads P by a K-major descriptor (A from shared: `$desc, $desc, p, 1,
// 1, 0, 1`: no transposed A, transposed B). P [64 x 16]: LBO 128, SBO 2 x
// 128: (8 << 16) | (16 << 32).
// CHECK-LABEL: gpu.func @pv_p_in_shared_kernel
// CHECK-DAG: %[[PMAJOR:.*]] = arith.constant 68720001024 : i64
// CHECK: %[[PT:.*]] = memref.view {{.*}} to memref<8x2x8x8xf16, #gpu.address_space<workgroup>>
// CHECK: vector.store %{{.*}}, %[[PT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<8x2x8x8xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
// CHECK-NEXT: gpu.barrier
// CHECK: %[[PDESC:.*]] = arith.ori %{{.*}}, %[[PMAJOR]] : i64
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, $17, $18, p, 1, 1, 0, 1;\0Awgmma.commit_group{{.*}}", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,r,l,l" {{.*}}%[[PDESC]]
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>
func.func @pv_p_in_shared(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<64x32xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<16x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x32xf16> to tensor<16x32xf16, #shared>
    %sc = fa.qk %qa, %kt : tensor<64x32xf16, #opA>, tensor<16x32xf16, #shared> -> tensor<64x16xf32, #acc>
    %p16 = arith.truncf %sc : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %ps = fa.convert_layout %p16 : tensor<64x16xf16, #acc> -> tensor<64x16xf16, #shared>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %acc = fa.pv %ps, %vt, %a0 : tensor<64x16xf16, #shared>, tensor<16x16xf16, #shared>, tensor<64x16xf32, #acc>
    %o16 = arith.truncf %acc : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

// Async products (--fa-pipeline-mma): an `async` fa.qk / fa.pv is its asm
// without the wait_group; fa.mma_wait is an asm of its own,
// `wgmma.wait_group N`, whose operands and results are the accumulators
// (tied: "=f"... then "0", "1", ...), so no read of them moves above it.
// The deferred P V's V: a tensor.empty shared tile is offset 0 and
// arith.select picks between the two offsets.
// CHECK-LABEL: gpu.func @async_products_kernel
// CHECK: %[[S:.*]] = llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16{{.*}}wgmma.commit_group.sync.aligned;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,r,r,r,r,r,l,r,r,r,r,l"
// CHECK: %[[S0:.*]] = llvm.extractvalue %[[S]][0]
// CHECK: %[[SW:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7" %[[S0]],
// CHECK: llvm.extractvalue %[[SW]][7]
// CHECK: %[[VOFF:.*]] = arith.select %{{.*}}, %c0, %{{.*}} : index
// CHECK: %[[O:.*]] = llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;\0Awgmma.commit_group.sync.aligned;\0A}"
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7"
// CHECK-NOT: wgmma.wait_group
// CHECK: gpu.return
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.wgmma>
#shared = #fa.block_shared<atom = #fa.wgmma>
func.func @async_products(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c64 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c64 : index
    %qpad = arith.subi %c64, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<64x32xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
    %ks = tensor.extract_slice %k[%b, %h, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<16x32xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x32xf16> to tensor<16x32xf16, #shared>
    %vs = tensor.extract_slice %v[%b, %h, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<16x16xf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
    %sc = fa.qk %qa, %kt {async} : tensor<64x32xf16, #opA>, tensor<16x32xf16, #shared> -> tensor<64x16xf32, #acc>
    %sd = fa.mma_wait %sc pending(1) : tensor<64x16xf32, #acc>
    %p16 = arith.truncf %sd : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %pa = fa.convert_layout %p16 : tensor<64x16xf16, #acc> -> tensor<64x16xf16, #opA>
    %placeholder = tensor.empty() : tensor<16x16xf16, #shared>
    %later = arith.cmpi sgt, %qb, %c2 : index
    %vsel = arith.select %later, %placeholder, %vt : tensor<16x16xf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
    %acc = fa.pv %pa, %vsel, %a0 {async} : tensor<64x16xf16, #opA>, tensor<16x16xf16, #shared>, tensor<64x16xf32, #acc>
    %accd = fa.mma_wait %acc pending(0) : tensor<64x16xf32, #acc>
    %o16 = arith.truncf %accd : tensor<64x16xf32, #acc> to tensor<64x16xf16, #acc>
    %os = tensor.extract_slice %o16[0, 0] [%qn, 16] [1, 1] : tensor<64x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}
