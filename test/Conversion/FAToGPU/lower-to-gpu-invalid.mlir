// Every diagnostic of --fa-lower-to-gpu a user can reach (LowerToGPU.cpp,
// Outline.cpp, KernelLowering.cpp, Patterns/*.cpp, Atoms/MmaSync.cpp): a
// configuration or an L3 the GPU lowering cannot take is a compile-time
// error that names the problem, never a kernel that fails at launch. The
// inputs are minimal hand-written L3 loop nests.
//
// Not reachable, so not here: the mapping's size and the form of the stores
// (scf.forall and tensor.parallel_insert_slice verify them first), a truncf
// that changes the layout (arith.truncf's verifier), two MMA atoms in one
// kernel or an atom without a lowering (#fa.mma_sync is the only atom), and
// an M that is not a multiple of 16 x warps (the tile encodings verify it).

// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu -verify-diagnostics

//     Options (checked before any IR; reported once per split).
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=SM75
// SM75: error: fa-lower-to-gpu: option chip must be one of sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a, sm_121, sm_121a (the kernels use cp.async and mma.sync.m16n8k16), got 'sm_75'
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_999" 2>&1 | FileCheck %s --check-prefix=SM999
// SM999: error: fa-lower-to-gpu: option chip must be one of sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a, sm_121, sm_121a (the kernels use cp.async and mma.sync.m16n8k16), got 'sm_999'
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_100f" 2>&1 | FileCheck %s --check-prefix=SM100F
// SM100F: error: fa-lower-to-gpu: option chip must be one of {{.*}}, got 'sm_100f'
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=ampere" 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: error: fa-lower-to-gpu: option chip must be one of sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a, sm_121, sm_121a (the kernels use cp.async and mma.sync.m16n8k16), got 'ampere'
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="index-bitwidth=16" 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: fa-lower-to-gpu: option index-bitwidth must be 32 or 64, got 16

//     The shared-memory limit is the chip's: the 104448 bytes of
//     @shared_memory_sm86 fit on sm_80 (163 KiB) but not on sm_86 (99 KiB);
//     the 174080 bytes of @shared_memory_sm80 fit on sm_90 (227 KiB).
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_86" 2>&1 | FileCheck %s --check-prefix=SM86
// SM86-DAG: error: fa-lower-to-gpu: the shared tiles need 104448 bytes of shared memory, more than the 101376 a thread block may use on sm_86: choose smaller blocks or fewer stages
// SM86-DAG: error: fa-lower-to-gpu: the shared tiles need 174080 bytes of shared memory, more than the 101376 a thread block may use on sm_86: choose smaller blocks or fewer stages
// RUN: not fa-opt %s -split-input-file --fa-lower-to-gpu="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// SM90-NOT: error: fa-lower-to-gpu: the shared tiles need
// SM90: error: fa-lower-to-gpu: the loop nest has no grid mapping
// SM90-NOT: error: fa-lower-to-gpu: the shared tiles need

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @no_mapping(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the loop nest has no grid mapping; run --fa-map-warps first}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  }
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @thread_mapping(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the loop nest must be mapped to #gpu.block<x|y|z>, got #gpu.thread<x>}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.thread<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @linear_block_mapping(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the loop nest must be mapped to #gpu.block<x|y|z>, got #gpu.block<linear_dim_0>}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @duplicate_grid_dims(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: two loops of the nest are mapped to the same grid dimension: [#gpu.block<y>, #gpu.block<y>]}}
  %r = scf.forall (%i, %j) in (1, 1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.block<y>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// The outliner's own check of the mapping's size is unreachable: scf.forall
// verifies it first.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @mapping_size(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{'scf.forall' op mapping attribute size must match op rank}}
  %r = scf.forall (%i, %j) in (1, 1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @four_dims(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: a grid has at most 3 dimensions, the loop nest has 4}}
  %r = scf.forall (%i, %j, %k, %l) in (1, 1, 1, 1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>, #gpu.block<linear_dim_3>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// A mapped loop nest with fa ops but no #fa.warp_rows tile (L1/L2 IR).
func.func @no_warp_layout(%o: tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the loop nest has no warp layout; run --fa-map-warps first}}
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %s = arith.constant dense<0.0> : tensor<32x16xf32>
    %sm = fa.mask %s[%c0, %c0] key_limit(%c16) : tensor<32x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %sm into %oo[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<32x16xf32> into tensor<1x1x32x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf32>
}

// -----

#rows1 = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#rows2 = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @mixed_num_warps(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: all tiles of one kernel must be held by the same number of warps (num_warps x replicas), got 1 x 1 and 2 x 1 ('tensor<32xf32, #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>>')}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows1>
    %m1 = arith.constant dense<1.0> : tensor<32xf32, #rows2>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows1> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @captured_memref(%m: tensor<1x1x16xf32>, %buf: memref<16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the loop nest uses a value of type 'memref<16xf32>' from outside that a kernel cannot take}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %x = memref.load %buf[%c0] : memref<16xf32>
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// An index value of the host the kernel cannot recompute from the sizes of
// the tensors it reads and its integer parameters (the function's integer
// arguments): one read from a host tensor.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @captured_index(%m: tensor<1x1x?xf32>, %t: tensor<index>) -> tensor<1x1x?xf32> {
  %n = tensor.extract %t[] : tensor<index>
  // expected-error @+1 {{fa-lower-to-gpu: cannot compute in the kernel an index value the loop nest uses: it is not index arithmetic on tensor sizes}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x?xf32>) {
    %c0 = arith.constant 0 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%n] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %n] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
// (An integer argument of the function would do: it becomes an input of the
// plan. A value read from a host tensor would not.)
func.func @grid_not_from_sizes(%m: tensor<1x1x16xf32>, %t: tensor<index>) -> tensor<1x1x16xf32> {
  %n = tensor.extract %t[] : tensor<index>
  // expected-error @+1 {{fa-lower-to-gpu: the grid size of dimension 0 is not arithmetic on the sizes of the tensors the kernel reads}}
  %r = scf.forall (%i) in (%n) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @grid_too_large(%m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: grid dimension 1 would have 65536 blocks, more than the 65535 a GPU allows}}
  %r = scf.forall (%i) in (65536) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<y>]}
  return %r : tensor<1x1x16xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @rank0_output(%m: tensor<1x1x16xf32>, %s: tensor<f32>) -> (tensor<1x1x16xf32>, tensor<f32>) {
  // expected-error @+1 {{fa-lower-to-gpu: a shared output of the loop nest must be a tensor of rank 1 or more, got 'tensor<f32>'}}
  %r:2 = scf.forall (%i) in (1) shared_outs(%mo = %m, %so = %s) -> (tensor<1x1x16xf32>, tensor<f32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x1x16xf32>, tensor<f32>
}

// -----

// Q K^T with 8 keys: #fa.mma_sync's ldmatrix.x4 brings B fragments for two
// 8-column n-tiles at a time.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @qk_n8(%q: tensor<1x1x32x16xf16>, %k: tensor<1x1x8x16xf16>, %s: tensor<1x1x32x8xf16>) -> tensor<1x1x32x8xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%so = %s) -> (tensor<1x1x32x8xf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %ks = tensor.extract_slice %k[%c0, %c0, 0, 0] [1, 1, 8, 16] [1, 1, 1, 1] : tensor<1x1x8x16xf16> to tensor<8x16xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<8x16xf16> to tensor<8x16xf16, #shared>
    // expected-error @+2 {{fa-lower-to-gpu: #fa.mma_sync multiplies [M, K] x [K, N] tiles with M a multiple of 16 x 2 warps and N, K multiples of 16; got M = 32, N = 8, K = 16}}
    // expected-error @+1 {{failed to legalize operation 'fa.qk' that was explicitly marked illegal}}
    %sc = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<8x16xf16, #shared> -> tensor<32x8xf32, #acc>
    %s16 = arith.truncf %sc : tensor<32x8xf32, #acc> to tensor<32x8xf16, #acc>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s16 into %so[%c0, %c0, 0, 0] [1, 1, 32, 8] [1, 1, 1, 1] : tensor<32x8xf16, #acc> into tensor<1x1x32x8xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x8xf16>
}

// -----

// Head dim 8 (Q in shared memory): the k of mma.m16n8k16 is 16.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @qk_k8(%q: tensor<1x1x32x8xf16>, %k: tensor<1x1x16x8xf16>, %s: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%so = %s) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 32, 8] [1, 1, 1, 1] : tensor<1x1x32x8xf16> to tensor<32x8xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x8xf16> to tensor<32x8xf16, #shared>
    %ks = tensor.extract_slice %k[%c0, %c0, 0, 0] [1, 1, 16, 8] [1, 1, 1, 1] : tensor<1x1x16x8xf16> to tensor<16x8xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<16x8xf16> to tensor<16x8xf16, #shared>
    // expected-error @+2 {{fa-lower-to-gpu: #fa.mma_sync multiplies [M, K] x [K, N] tiles with M a multiple of 16 x 2 warps and N, K multiples of 16; got M = 32, N = 16, K = 8}}
    // expected-error @+1 {{failed to legalize operation 'fa.qk' that was explicitly marked illegal}}
    %sc = fa.qk %qt, %kt : tensor<32x8xf16, #shared>, tensor<16x8xf16, #shared> -> tensor<32x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s16 into %so[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<32x16xf16, #acc> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

// P V with a value dim of 8.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @pv_n8(%p: tensor<1x1x32x16xf16>, %v: tensor<1x1x16x8xf16>, %o: tensor<1x1x32x8xf16>) -> tensor<1x1x32x8xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x8xf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %ps = tensor.extract_slice %p[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    %pt = tensor.pad %ps low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %pa = fa.convert_layout %pt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    %vs = tensor.extract_slice %v[%c0, %c0, 0, 0] [1, 1, 16, 8] [1, 1, 1, 1] : tensor<1x1x16x8xf16> to tensor<16x8xf16>
    %vt = tensor.pad %vs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<16x8xf16> to tensor<16x8xf16, #shared>
    %a0 = arith.constant dense<0.0> : tensor<32x8xf32, #acc>
    // expected-error @+2 {{fa-lower-to-gpu: #fa.mma_sync multiplies [M, K] x [K, N] tiles with M a multiple of 16 x 2 warps and N, K multiples of 16; got M = 32, N = 8, K = 16}}
    // expected-error @+1 {{failed to legalize operation 'fa.pv' that was explicitly marked illegal}}
    %acc = fa.pv %pa, %vt, %a0 : tensor<32x16xf16, #opA>, tensor<16x8xf16, #shared>, tensor<32x8xf32, #acc>
    %o16 = arith.truncf %acc : tensor<32x8xf32, #acc> to tensor<32x8xf16, #acc>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %o16 into %oo[%c0, %c0, 0, 0] [1, 1, 32, 8] [1, 1, 1, 1] : tensor<32x8xf16, #acc> into tensor<1x1x32x8xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x8xf16>
}

// -----

// S [32 x 512] on 2 warps: 256 registers of fragments a thread.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @register_budget(%q: tensor<1x1x32x16xf16>, %k: tensor<1x1x512x16xf16>, %s: tensor<1x1x32x512xf16>) -> tensor<1x1x32x512xf16> {
  // expected-error @+1 {{fa-lower-to-gpu: a thread would hold 256 registers of S, O (and Q) fragments, more than the 192 that fit in 255 without spilling: use smaller blocks or more warps}}
  %r = scf.forall (%i) in (1) shared_outs(%so = %s) -> (tensor<1x1x32x512xf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %ks = tensor.extract_slice %k[%c0, %c0, 0, 0] [1, 1, 512, 16] [1, 1, 1, 1] : tensor<1x1x512x16xf16> to tensor<512x16xf16>
    %kt = tensor.pad %ks low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<512x16xf16> to tensor<512x16xf16, #shared>
    %sc = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<512x16xf16, #shared> -> tensor<32x512xf32, #acc>
    %s16 = arith.truncf %sc : tensor<32x512xf32, #acc> to tensor<32x512xf16, #acc>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s16 into %so[%c0, %c0, 0, 0] [1, 1, 32, 512] [1, 1, 1, 1] : tensor<32x512xf16, #acc> into tensor<1x1x32x512xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x512xf16>
}

// -----

// A 640 x 128 f16 shared tile: 640 x 272 bytes = 174080 > 163 KiB (sm_80).
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @shared_memory_sm80(%q: tensor<1x1x640x128xf16>, %m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+1 {{fa-lower-to-gpu: the shared tiles need 174080 bytes of shared memory, more than the 166912 a thread block may use on sm_80: choose smaller blocks or fewer stages}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 640, 128] [1, 1, 1, 1] : tensor<1x1x640x128xf16> to tensor<640x128xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<640x128xf16> to tensor<640x128xf16, #shared>
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// 384 x 128: 104448 bytes, fine on sm_80 (the SM86 run rejects it).
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @shared_memory_sm86(%q: tensor<1x1x384x128xf16>, %m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 384, 128] [1, 1, 1, 1] : tensor<1x1x384x128xf16> to tensor<384x128xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<384x128xf16> to tensor<384x128xf16, #shared>
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// operand_a -> acc: #fa.mma_sync moves tiles into A registers only.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @convert_opa_to_acc(%q: tensor<1x1x32x16xf16>, %o: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %qa = fa.convert_layout %qt : tensor<32x16xf16, #shared> -> tensor<32x16xf16, #opA>
    // expected-error @+2 {{'fa.convert_layout' op fa-lower-to-gpu: the MMA atom cannot convert 'tensor<32x16xf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>>' to 'tensor<32x16xf16, #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.convert_layout' that was explicitly marked illegal}}
    %qc = fa.convert_layout %qa : tensor<32x16xf16, #opA> -> tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %qc[0, 0] [%c32, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, 0, 0] [1, 1, %c32, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @non_splat_constant(%m: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    // expected-error @+2 {{'arith.constant' op fa-lower-to-gpu: a tile held by warps can only be initialised with a splat constant, got dense<[0.000000e+00, 1.000000e+00,}}
    // expected-error @+1 {{failed to legalize operation 'arith.constant' that was explicitly marked illegal}}
    %m0 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c32] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

// A shared tile can only be loaded, not a constant.
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @shared_constant(%q: tensor<1x1x32x16xf16>, %s: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%so = %s) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    // expected-error @+2 {{'arith.constant' op fa-lower-to-gpu: only tiles held by warps can be constants, got 'tensor<16x16xf16, #fa.block_shared<atom = #fa.mma_sync>>'}}
    // expected-error @+1 {{failed to legalize operation 'arith.constant' that was explicitly marked illegal}}
    %kt = arith.constant dense<1.0> : tensor<16x16xf16, #shared>
    %sc = fa.qk %qt, %kt : tensor<32x16xf16, #shared>, tensor<16x16xf16, #shared> -> tensor<32x16xf32, #acc>
    %s16 = arith.truncf %sc : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %ss = tensor.extract_slice %s16[0, 0] [%c32, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ss into %so[%c0, %c0, 0, 0] [1, 1, %c32, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

// A tensor.pad into registers: tiles are loaded into shared memory.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @pad_into_registers(%x: tensor<1x1x32x16xf16>, %o: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f16
    %xs = tensor.extract_slice %x[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    // expected-error @+2 {{'tensor.pad' op fa-lower-to-gpu: tiles are loaded into shared memory (#fa.block_shared), or f32 tiles into acc fragments, got 'tensor<32x16xf16, #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>>'}}
    // expected-error @+1 {{failed to legalize operation 'tensor.pad' that was explicitly marked illegal}}
    %xt = tensor.pad %xs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %xt[0, 0] [%c32, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, 0, 0] [1, 1, %c32, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

// A shared tile padded from a tensor the kernel makes, not from a kernel
// argument.
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @load_from_non_argument(%m: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<1x1x32x16xf16>
    %es = tensor.extract_slice %e[%c0, %c0, 0, 0] [1, 1, 32, 16] [1, 1, 1, 1] : tensor<1x1x32x16xf16> to tensor<32x16xf16>
    // expected-error @+2 {{'tensor.pad' op fa-lower-to-gpu: a tile must be loaded from rows of one head of a kernel argument (tensor.pad of tensor.extract_slice)}}
    // expected-error @+1 {{failed to legalize operation 'tensor.pad' that was explicitly marked illegal}}
    %et = tensor.pad %es low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<32x16xf16> to tensor<32x16xf16, #shared>
    %m0 = arith.constant dense<1.0> : tensor<32xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c32] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @async_load_from_non_argument(%m: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %e = tensor.empty() : tensor<1x1x32x16xf16>
    // expected-error @+2 {{'fa.async_load' op fa-lower-to-gpu: tiles are loaded from kernel arguments}}
    // expected-error @+1 {{failed to legalize operation 'fa.async_load' that was explicitly marked illegal}}
    %f = fa.async_load %e[%c0, %c0, %c0] rows(%c32) slot(%c0) of 1 : tensor<1x1x32x16xf16> -> !fa.future<tensor<32x16xf16, #shared>>
    %t = fa.await %f pending(0) : !fa.future<tensor<32x16xf16, #shared>>
    %m0 = arith.constant dense<1.0> : tensor<32xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c32] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

// Two loads into one ring (futures of the same type) with 2 and 3 slots.
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @ring_slots_disagree(%k: tensor<1x1x64x16xf16>, %m: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %f0 = fa.async_load %k[%c0, %c0, %c0] rows(%c16) slot(%c0) of 2 : tensor<1x1x64x16xf16> -> !fa.future<tensor<16x16xf16, #shared>>
    // expected-error @+1 {{'fa.async_load' op fa-lower-to-gpu: loads into the same ring of shared tiles disagree on the number of slots (2 and 3)}}
    %f1 = fa.async_load %k[%c0, %c0, %c16] rows(%c16) slot(%c1) of 3 : tensor<1x1x64x16xf16> -> !fa.future<tensor<16x16xf16, #shared>>
    %t0 = fa.await %f0 pending(1) : !fa.future<tensor<16x16xf16, #shared>>
    %t1 = fa.await %f1 pending(0) : !fa.future<tensor<16x16xf16, #shared>>
    %m0 = arith.constant dense<1.0> : tensor<32xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c32] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

// Only rows [0, n) of a tile can be stored, whole rows.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @store_not_leading_rows(%o: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %a = arith.constant dense<1.0> : tensor<32x16xf16, #acc>
    // expected-error @+2 {{'tensor.extract_slice' op fa-lower-to-gpu: a tile held by warps can only be stored, rows [0, n) of it, into rows of one head (or one position of consecutive heads) of a kernel argument}}
    // expected-error @+1 {{failed to legalize operation 'tensor.extract_slice' that was explicitly marked illegal}}
    %os = tensor.extract_slice %a[16, 0] [%c16, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, 0, 0] [1, 1, %c16, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @store_some_columns(%o: tensor<1x1x32x8xf16>) -> tensor<1x1x32x8xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x8xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %a = arith.constant dense<1.0> : tensor<32x16xf16, #acc>
    // expected-error @+2 {{'tensor.extract_slice' op fa-lower-to-gpu: a tile held by warps can only be stored, rows [0, n) of it, into rows of one head (or one position of consecutive heads) of a kernel argument}}
    // expected-error @+1 {{failed to legalize operation 'tensor.extract_slice' that was explicitly marked illegal}}
    %os = tensor.extract_slice %a[0, 0] [%c32, 8] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x8xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, 0, 0] [1, 1, %c32, 8] [1, 1, 1, 1] : tensor<?x8xf16> into tensor<1x1x32x8xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x8xf16>
}

// -----

// Rows along the batch: neither rows of one head nor one position of
// consecutive heads.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @store_along_batch(%o: tensor<32x1x1x16xf16>) -> tensor<32x1x1x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<32x1x1x16xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %a = arith.constant dense<1.0> : tensor<32x16xf16, #acc>
    // expected-error @+2 {{'tensor.extract_slice' op fa-lower-to-gpu: a tile held by warps can only be stored, rows [0, n) of it, into rows of one head (or one position of consecutive heads) of a kernel argument}}
    // expected-error @+1 {{failed to legalize operation 'tensor.extract_slice' that was explicitly marked illegal}}
    %os = tensor.extract_slice %a[0, 0] [%c32, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[0, %c0, %c0, 0] [%c32, 1, 1, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<32x1x1x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<32x1x1x16xf16>
}

// -----

// A partial_rows tile holds a lane's share of each row sum: not a value.
#partial = #fa.warp_rows<partial_rows, num_warps = 2, atom = #fa.mma_sync>
func.func @store_partial_rows(%m: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %l = arith.constant dense<1.0> : tensor<32xf32, #partial>
    // expected-error @+2 {{'tensor.extract_slice' op fa-lower-to-gpu: cannot store a tile in the partial_rows role}}
    // expected-error @+1 {{failed to legalize operation 'tensor.extract_slice' that was explicitly marked illegal}}
    %ls = tensor.extract_slice %l[0] [%c32] [1] : tensor<32xf32, #partial> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ls into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

#opA = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
func.func @store_operand_a(%o: tensor<1x1x32x16xf16>) -> tensor<1x1x32x16xf16> {
  %r = scf.forall (%i) in (1) shared_outs(%oo = %o) -> (tensor<1x1x32x16xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %a = arith.constant dense<1.0> : tensor<32x16xf16, #opA>
    // expected-error @+2 {{'tensor.extract_slice' op fa-lower-to-gpu: cannot store a tile in the operand_a role}}
    // expected-error @+1 {{failed to legalize operation 'tensor.extract_slice' that was explicitly marked illegal}}
    %os = tensor.extract_slice %a[0, 0] [%c32, 16] [1, 1] : tensor<32x16xf16, #opA> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%c0, %c0, 0, 0] [1, 1, %c32, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x32x16xf16>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32x16xf16>
}

// -----

// A loop that does not advance would hang every thread block.
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @zero_step(%m: tensor<1x1x32xf32>, %n: index) -> tensor<1x1x32xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %m0 = arith.constant dense<1.0> : tensor<32xf32, #rows>
    // expected-error @+1 {{fa-lower-to-gpu: a loop of the kernel must have a step > 0, got 0}}
    %m1 = scf.for %j = %c0 to %n step %c0 iter_args(%x = %m0) -> (tensor<32xf32, #rows>) {
      scf.yield %x : tensor<32xf32, #rows>
    }
    %ms = tensor.extract_slice %m1[0] [%c32] [1] : tensor<32xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c32] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x32xf32>
}

// -----

// fa.warp_row_range of a shared tile: every warp reads all of it, no warp
// holds a slice of its rows.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @warp_row_range_shared(%q: tensor<1x1x16x16xf16>, %m: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f16
    %qs = tensor.extract_slice %q[%c0, %c0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x1x16x16xf16> to tensor<16x16xf16>
    %qt = tensor.pad %qs low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %zero : f16
    } : tensor<16x16xf16> to tensor<16x16xf16, #shared>
    // expected-error @+2 {{'fa.warp_row_range' op fa-lower-to-gpu: needs a tile held by warps (#fa.warp_rows), got 'tensor<16x16xf16, #fa.block_shared<atom = #fa.mma_sync>>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.warp_row_range' that was explicitly marked illegal}}
    %first, %count = fa.warp_row_range %qt : tensor<16x16xf16, #shared>
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[%first] [%count] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x16xf32>
}

// -----

// Split-KV's merge on whole tensors (not tiled by --fa-tile-combine): a
// diagnostic, not a host op left behind.
func.func @split_kv(%o: tensor<4x2x8x1x64xf32>, %l: tensor<4x2x8x1xf32>)
    -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{fa-lower-to-gpu: fa.combine_splits must be tiled into a loop nest first (--fa-tile-combine; --fa-to-ptx does that with splits > 1)}}
  %r:2 = fa.combine_splits %o, %l : tensor<4x2x8x1x64xf32>, tensor<4x2x8x1xf32>
      -> tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
  return %r#0 : tensor<2x8x1x64xf16>
}

// -----

// A tensor that one kernel writes and a later one reads becomes a workspace
// of their plan, which the runtime must be able to allocate: not the
// caller's argument.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @chained_through_an_argument(%w: tensor<1x1x32xf32>, %m2: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{fa-lower-to-gpu: cannot make one launch plan of the kernels of this function: 'in0' passes from one kernel to the next but is not a tensor.empty the runtime can allocate}}
  %r = scf.forall (%qb) in (2) shared_outs(%mo = %w) -> (tensor<1x1x32xf32>) {
    %q0 = arith.muli %qb, %c16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  %r2 = scf.forall (%qb) in (2) shared_outs(%mo = %m2) -> (tensor<1x1x32xf32>) {
    %q0 = arith.muli %qb, %c16 : index
    %read = tensor.extract_slice %r[0, 0, 0] [1, 1, 16] [1, 1, 1] : tensor<1x1x32xf32> to tensor<16xf32>
    %m0 = arith.constant dense<2.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r2 : tensor<1x1x32xf32>
}

// -----

// The merge of split-KV in its tile form, with plain (unencoded) results: no
// layout says which thread merges which elements (the kernel's other tiles
// are held by one warp).
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @combine_tile_without_layout(%po: tensor<2x16x16xf32>, %pl: tensor<2x16xf32>, %o0: tensor<1x16x1x16xf16>,
                                       %l0: tensor<1x1x16xf32>) -> (tensor<1x16x1x16xf16>, tensor<1x1x16xf32>) {
  %c16 = arith.constant 16 : index
  %r:2 = scf.forall (%bi) in (1) shared_outs(%o = %o0, %l = %l0) -> (tensor<1x16x1x16xf16>, tensor<1x1x16xf32>) {
    // expected-error @+2 {{fa-lower-to-gpu: fa.combine_splits must be tiled first (--fa-tile-combine)}}
    // expected-error @+1 {{failed to legalize operation 'fa.combine_splits' that was explicitly marked illegal}}
    %ot, %lt = fa.combine_splits %po, %pl : tensor<2x16x16xf32>, tensor<2x16xf32> -> tensor<16x16xf16>, tensor<16xf32>
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ot into %o[0, 0, 0, 0] [1, 16, 1, 16] [1, 1, 1, 1] : tensor<16x16xf16> into tensor<1x16x1x16xf16>
      tensor.parallel_insert_slice %ms into %l[0, 0, 0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x16xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r#0, %r#1 : tensor<1x16x1x16xf16>, tensor<1x1x16xf32>
}

// -----

// A workspace's size must be arithmetic on the sizes of the plan's tensors
// (the runtime computes it from them): not a number the caller has no way
// to pass.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @workspace_of_unknown_size(%n: index, %m2: tensor<1x1x32xf32>) -> tensor<1x1x32xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ws = tensor.empty(%n) : tensor<?x1x32xf32>
  // expected-error @+1 {{fa-lower-to-gpu: cannot make one launch plan of the kernels of this function: the size of workspace 'in0' is not arithmetic on the sizes of the tensors}}
  %r = scf.forall (%qb) in (2) shared_outs(%mo = %ws) -> (tensor<?x1x32xf32>) {
    %q0 = arith.muli %qb, %c16 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<?x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  %r2 = scf.forall (%qb) in (2) shared_outs(%mo = %m2) -> (tensor<1x1x32xf32>) {
    %q0 = arith.muli %qb, %c16 : index
    %read = tensor.extract_slice %r[0, 0, 0] [1, 1, 16] [1, 1, 1] : tensor<?x1x32xf32> to tensor<16xf32>
    %m0 = arith.constant dense<2.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%c16] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %q0] [1, 1, %c16] [1, 1, 1] : tensor<?xf32> into tensor<1x1x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r2 : tensor<1x1x32xf32>
}

// -----

// An index value computed from an integer argument of the function (an
// input of the plan) by an op the plan's expressions do not have.
#rows = #fa.warp_rows<rows, num_warps = 1, atom = #fa.mma_sync>
func.func @computed_not_expressible(%m: tensor<1x1x?xf32>, %n: index) -> tensor<1x1x?xf32> {
  %c16 = arith.constant 16 : index
  %small = arith.cmpi ult, %n, %c16 : index
  %rows = arith.select %small, %n, %c16 : index
  // expected-error @+1 {{fa-lower-to-gpu: an index value the loop nest uses is computed from an integer argument of the function, but not by arithmetic on the tensors' sizes and the integer arguments}}
  %r = scf.forall (%i) in (1) shared_outs(%mo = %m) -> (tensor<1x1x?xf32>) {
    %c0 = arith.constant 0 : index
    %m0 = arith.constant dense<1.0> : tensor<16xf32, #rows>
    %ms = tensor.extract_slice %m0[0] [%rows] [1] : tensor<16xf32, #rows> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ms into %mo[%c0, %c0, %c0] [1, 1, %rows] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}
