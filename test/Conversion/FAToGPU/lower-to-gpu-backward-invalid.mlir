// RUN: fa-opt %s -split-input-file --fa-lower-to-gpu -verify-diagnostics

// What the backward's GPU patterns cannot lower is an error at the op.

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @lse_not_in_memory(%lse: tensor<1x1x?xf32>, %d: tensor<1x1x?xf32>, %o: tensor<1x1x?x16xf16>) -> tensor<1x1x?x16xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %scale = arith.constant 0.5 : f32
  %sl2 = arith.constant 0.72134752 : f32
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%oo = %o) -> (tensor<1x1x?x16xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %nq = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %pad = arith.subi %c32, %qn : index
    %ls = tensor.extract_slice %lse[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %lt = tensor.pad %ls low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %ninf : f32
    } : tensor<?xf32> to tensor<32xf32>
    %ds_ = tensor.extract_slice %d[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<1x1x?xf32> to tensor<?xf32>
    %dt = tensor.pad %ds_ low[0] high[%pad] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<?xf32> to tensor<32xf32>
    %s0 = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %s = scf.for %k0 = %c0 to %nq step %c16 iter_args(%si = %s0) -> (tensor<32x16xf32, #acc>) {
      %lc = arith.constant dense<0.0> : tensor<32xf32>
      // expected-error @+2 {{fa-lower-to-gpu: a tile read from memory must be rows of one head of a kernel argument}}
      // expected-error @+1 {{failed to legalize operation 'fa.probs_from_lse' that was explicitly marked illegal}}
      %p = fa.probs_from_lse %si, %lc scale(%sl2) : tensor<32x16xf32, #acc>, tensor<32xf32>
      %g = fa.score_grad %p, %si, %dt scale(%scale) : tensor<32x16xf32, #acc>, tensor<32xf32>
      scf.yield %g : tensor<32x16xf32, #acc>
    }
    %s16 = arith.truncf %s : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %os = tensor.extract_slice %s16[0, 0] [%qn, 16] [1, 1] : tensor<32x16xf16, #acc> to tensor<?x16xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %oo[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<?x16xf16> into tensor<1x1x?x16xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x16xf16>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @row_dot_without_layout(%do: tensor<1x1x?x16xf16>, %o: tensor<1x1x?x16xf16>, %d: tensor<1x1x?xf32>) -> tensor<1x1x?xf32> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%dd = %d) -> (tensor<1x1x?xf32>) {
    %zero = arith.constant 0.0 : f16
    %nq = tensor.dim %o, %c2 : tensor<1x1x?x16xf16>
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %pad = arith.subi %c32, %qn : index
    %dos = tensor.extract_slice %do[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %dot = tensor.pad %dos low[0, 0] high[%pad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16>
    %os = tensor.extract_slice %o[%b, %h, %q0, 0] [1, 1, %qn, 16] [1, 1, 1, 1] : tensor<1x1x?x16xf16> to tensor<?x16xf16>
    %ot = tensor.pad %os low[0, 0] high[%pad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x16xf16> to tensor<32x16xf16>
    // expected-error @+2 {{fa-lower-to-gpu: the result of fa.row_dot must be held by warps (--fa-map-warps)}}
    // expected-error @+1 {{failed to legalize operation 'fa.row_dot' that was explicitly marked illegal}}
    %t = fa.row_dot %dot, %ot : tensor<32x16xf16>, tensor<32x16xf16> -> tensor<32xf32>
    %z = arith.constant dense<0.0> : tensor<32x16xf32, #acc>
    %z16 = arith.truncf %z : tensor<32x16xf32, #acc> to tensor<32x16xf16, #acc>
    %ts = tensor.extract_slice %t[0] [%qn] [1] : tensor<32xf32> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ts into %dd[%b, %h, %q0] [1, 1, %qn] [1, 1, 1] : tensor<?xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}

// -----

// Each lane of a row reads an equal share of its columns: 6 columns do not
// split among the 4 lanes of an mma.sync row.
#rows = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
func.func @row_dot_columns_not_split(%do: tensor<1x1x?x6xf16>, %o: tensor<1x1x?x6xf16>, %d: tensor<1x1x?xf32>) -> tensor<1x1x?xf32> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq0 = tensor.dim %o, %c2 : tensor<1x1x?x6xf16>
  %nqb = arith.ceildivui %nq0, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%dd = %d) -> (tensor<1x1x?xf32>) {
    %q0 = arith.muli %qb, %c32 : index
    %dot = tensor.extract_slice %do[%b, %h, %q0, 0] [1, 1, 32, 6] [1, 1, 1, 1] : tensor<1x1x?x6xf16> to tensor<32x6xf16>
    %ot = tensor.extract_slice %o[%b, %h, %q0, 0] [1, 1, 32, 6] [1, 1, 1, 1] : tensor<1x1x?x6xf16> to tensor<32x6xf16>
    // expected-error @+2 {{fa-lower-to-gpu: fa.row_dot's columns (6) must divide among the 4 lanes of a row}}
    // expected-error @+1 {{failed to legalize operation 'fa.row_dot' that was explicitly marked illegal}}
    %t = fa.row_dot %dot, %ot : tensor<32x6xf16>, tensor<32x6xf16> -> tensor<32xf32, #rows>
    %ts = tensor.extract_slice %t[0] [32] [1] : tensor<32xf32, #rows> to tensor<32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ts into %dd[%b, %h, %q0] [1, 1, 32] [1, 1, 1] : tensor<32xf32> into tensor<1x1x?xf32>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?xf32>
}

// -----

// The atomic dQ's buffer must be something the launch plan can name: an
// argument, or the buffer of a tensor (a workspace); not host memory the
// function allocates.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @accumulate_into_alloc(%n: index, %out: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %ws = memref.alloc(%n) : memref<1x1x?x32xf32>
  // expected-error @+1 {{fa-lower-to-gpu: the buffer fa.accumulate_rows adds into must be an argument of the function or a bufferization.to_buffer of a tensor (a workspace or the caller's)}}
  %r = scf.forall (%b, %h, %qb) in (1, 1, 1) shared_outs(%o = %out) -> (tensor<1x1x?x32xf16>) {
    %c0 = arith.constant 0 : index
    %z = arith.constant dense<1.0> : tensor<32x32xf32, #acc>
    fa.accumulate_rows %z into %ws[%b, %h, %c0] rows(%n) : tensor<32x32xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A tile without a layout (a nest --fa-map-warps did not map) cannot be
// added: which thread holds which element is not said.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @accumulate_without_layout(%ws: memref<1x1x?x32xf32>, %n: index, %out: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %r = scf.forall (%b, %h, %qb) in (1, 1, 1) shared_outs(%o = %out) -> (tensor<1x1x?x32xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %w = arith.constant dense<1.0> : tensor<32x32xf32, #acc>
    %z = arith.constant dense<1.0> : tensor<32x32xf32>
    // expected-error @+2 {{fa-lower-to-gpu: accumulates an acc tile held by warps, got 'tensor<32x32xf32>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.accumulate_rows'}}
    fa.accumulate_rows %z into %ws[%b, %h, %c0] rows(%c16) : tensor<32x32xf32>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// Into shared memory only 16-bit acc tiles go (the atomic dQ's dS^T).
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @f32_into_shared(%ws: memref<1x1x?x32xf32>, %n: index, %out: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %r = scf.forall (%b, %h, %qb) in (1, 1, 1) shared_outs(%o = %out) -> (tensor<1x1x?x32xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant dense<1.0> : tensor<32x32xf32, #acc>
    %a = arith.constant dense<1.0> : tensor<32x32xf16, #acc>
    %oa = fa.convert_layout %a : tensor<32x32xf16, #acc> -> tensor<32x32xf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>>
    // expected-error @+2 {{fa-lower-to-gpu: a tile goes into shared memory (padded, not transposed) from 16-bit acc fragments, not 'tensor<32x32xf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>>' -> 'tensor<32x32xf16, #fa.block_shared<atom = #fa.mma_sync>>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.convert_layout'}}
    %s = fa.convert_layout %oa : tensor<32x32xf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>> -> tensor<32x32xf16, #shared>
    fa.accumulate_rows %z into %ws[%b, %h, %c0] rows(%c16) : tensor<32x32xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// ... into the padded layout: the fragments' stores do not swizzle.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
func.func @acc_into_swizzled(%ws: memref<1x1x?x64xf32>, %n: index, %out: tensor<1x1x?x64xf16>) -> tensor<1x1x?x64xf16> {
  %r = scf.forall (%b, %h, %qb) in (1, 1, 1) shared_outs(%o = %out) -> (tensor<1x1x?x64xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant dense<1.0> : tensor<32x64xf32, #acc>
    %a = arith.constant dense<1.0> : tensor<32x64xf16, #acc>
    // expected-error @+2 {{fa-lower-to-gpu: a tile goes into shared memory (padded, not transposed) from 16-bit acc fragments, not 'tensor<32x64xf16, #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>>' -> 'tensor<32x64xf16, #fa.block_shared<atom = #fa.mma_sync, swizzled = true>>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.convert_layout'}}
    %s = fa.convert_layout %a : tensor<32x64xf16, #acc> -> tensor<32x64xf16, #swz>
    fa.accumulate_rows %z into %ws[%b, %h, %c0] rows(%c16) : tensor<32x64xf32, #acc>, memref<1x1x?x64xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x64xf16>
}

// -----

// fa.transpose lowers as a view of a shared tile only; a tile in
// registers has no such view.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @transpose_without_layout(%ws: memref<1x1x?x32xf32>, %out: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %r = scf.forall (%b, %h, %qb) in (1, 1, 1) shared_outs(%o = %out) -> (tensor<1x1x?x32xf16>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %w = arith.constant dense<1.0> : tensor<32x32xf32, #acc>
    %t = arith.constant dense<1.0> : tensor<32x32xf16>
    // expected-error @+2 {{fa-lower-to-gpu: transposes shared tiles (#fa.block_shared) only, got 'tensor<32x32xf16>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.transpose'}}
    %tt = fa.transpose %t : tensor<32x32xf16> -> tensor<32x32xf16>
    fa.accumulate_rows %w into %ws[%b, %h, %c0] rows(%c16) : tensor<32x32xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A nest with layouts whose fa.read_rows has none.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @read_rows_no_layout(%sums: tensor<1x1x?x32xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    // expected-error @+2 {{'fa.read_rows' op fa-lower-to-gpu: reads into an acc tile held by warps, got 'tensor<32x32xf32>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.read_rows'}}
    %t = fa.read_rows %sums[%b, %h, %q0] rows(%n) : tensor<1x1x?x32xf32> -> tensor<32x32xf32>
    %t16 = arith.truncf %t : tensor<32x32xf32> to tensor<32x32xf16>
    %z = arith.constant dense<0.0> : tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// Sums that are no kernel argument's (a constant).
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @read_rows_constant_sums(%sums: tensor<1x1x?x32xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    %z = arith.constant dense<1.0> : tensor<1x1x64x32xf32>
    // expected-error @+2 {{'fa.read_rows' op fa-lower-to-gpu: reads the sums of a kernel argument (bufferization.to_tensor of it)}}
    // expected-error @+1 {{failed to legalize operation 'fa.read_rows'}}
    %t = fa.read_rows %z[%b, %h, %q0] rows(%n) : tensor<1x1x64x32xf32> -> tensor<32x32xf32, #acc>
    %t16 = arith.truncf %t : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A read in fragment order with no writer in fragment order.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @fragment_read_without_writer(%sums: tensor<1x1x?x32xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    // expected-error @+1 {{'fa.read_rows' op fa-lower-to-gpu: reads in fragment order, which needs every fa.accumulate_rows into the buffer to write in fragment order a tile of its type, 'tensor<32x32xf32, #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>>'}}
    %t = fa.read_rows %sums[%b, %h, %q0] rows(%c32) {fragment_order} : tensor<1x1x?x32xf32> -> tensor<32x32xf32, #acc>
    %t16 = arith.truncf %t : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A block written in fragment order that leaves the function.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
func.func @fragment_sums_returned(%k: tensor<1x1x?x32xf16>, %q: tensor<1x1x?x32xf16>, %dk: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> (tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>) {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %rows = arith.muli %nqb, %c32 : index
  %e = tensor.empty(%rows) : tensor<1x1x?x32xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dk) -> (tensor<1x1x?x32xf16>) {
    %zero = arith.constant 0.0 : f16
    %q0 = arith.muli %qb, %c32 : index
    %qleft = arith.subi %nq, %q0 : index
    %qn = arith.minsi %qleft, %c32 : index
    %qpad = arith.subi %c32, %qn : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qn, 32] [1, 1, 1, 1] : tensor<1x1x?x32xf16> to tensor<?x32xf16>
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x32xf16> to tensor<32x32xf16, #shared>
    %s = fa.qk %qt, %qt : tensor<32x32xf16, #shared>, tensor<32x32xf16, #shared> -> tensor<32x32xf32, #acc>
    // expected-error @+1 {{'fa.accumulate_rows' op fa-lower-to-gpu: writes in fragment order, which only an fa.read_rows {fragment_order} of the same tile type can read; the buffer is also used by 'bufferization.to_tensor'}}
    fa.accumulate_rows %s into %ws[%b, %h, %q0] rows(%c32) {fragment_order} : tensor<32x32xf32, #acc>, memref<1x1x?x32xf32>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  // expected-note @+1 {{the use}}
  %sums = bufferization.to_tensor %ws restrict writable : memref<1x1x?x32xf32> to tensor<1x1x?x32xf32>
  return %r, %sums : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf32>
}

// -----

// Sums whose row width is dynamic.
#acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
func.func @read_rows_dynamic_width(%sums: tensor<1x1x?x?xf32>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %nq = tensor.dim %dq, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c32 : index
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
    %q0 = arith.muli %qb, %c32 : index
    %left = arith.subi %nq, %q0 : index
    %n = arith.minsi %left, %c32 : index
    // expected-error @+2 {{'fa.read_rows' op fa-lower-to-gpu: the last dimension of sums (the tile's columns) must be static, got 'tensor<1x1x?x?xf32>'}}
    // expected-error @+1 {{failed to legalize operation 'fa.read_rows'}}
    %t = fa.read_rows %sums[%b, %h, %q0] rows(%n) : tensor<1x1x?x?xf32> -> tensor<32x32xf32, #acc>
    %t16 = arith.truncf %t : tensor<32x32xf32, #acc> to tensor<32x32xf16, #acc>
    %os = tensor.extract_slice %t16[0, 0] [%n, 32] [1, 1] : tensor<32x32xf16, #acc> to tensor<?x32xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %os into %out[%b, %h, %q0, 0] [1, 1, %n, 32] [1, 1, 1, 1] : tensor<?x32xf16> into tensor<1x1x?x32xf16>
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}

// -----

// A tile on a warp grid other than the kernel's that meets other ops
// (arith.truncf here) is refused: only products whose accumulator leaves
// the kernel through fa.accumulate_rows are lowered on their own grid.
#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#own = #fa.warp_rows<acc, num_warps = 2, replicas = 2, share = columns, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>
#shared_t = #fa.block_shared<atom = #fa.mma_sync, transposed = true>
func.func @own_grid_used_elsewhere(%q: tensor<1x1x?x32xf16>, %dq: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %nq = tensor.dim %q, %c2 : tensor<1x1x?x32xf16>
  %nqb = arith.ceildivui %nq, %c64 : index
  %rows = arith.muli %nqb, %c64 : index
  %e = tensor.empty(%rows) : tensor<1x1x?x64xf32>
  %ws = bufferization.to_buffer %e : tensor<1x1x?x64xf32> to memref<1x1x?x64xf32>
  %e2 = tensor.empty(%rows) : tensor<1x1x?x32xf32>
  %ws2 = bufferization.to_buffer %e2 : tensor<1x1x?x32xf32> to memref<1x1x?x32xf32>
  // expected-error @+1 {{fa-lower-to-gpu: tile 'tensor<32x32xf32, #fa.warp_rows<acc, num_warps = 2, replicas = 2, share = columns, atom = #fa.mma_sync>>' is held by a warp grid other than the kernel's (2 x 2 warps against 4 x 1): only a product's accumulator that leaves the kernel through fa.accumulate_rows may have its own}}
  %r = scf.forall (%b, %h, %qb) in (1, 1, %nqb) shared_outs(%out = %dq) -> (tensor<1x1x?x32xf16>) {
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
    %s = fa.qk %qt, %qt : tensor<64x32xf16, #shared>, tensor<64x32xf16, #shared> -> tensor<64x64xf32, #acc>
    fa.accumulate_rows %s into %ws[%b, %h, %q0] rows(%qn) : tensor<64x64xf32, #acc>, memref<1x1x?x64xf32>
    %qtt = fa.transpose %qt : tensor<64x32xf16, #shared> -> tensor<32x64xf16, #shared_t>
    %z = arith.constant dense<0.0> : tensor<32x32xf32, #own>
    %p = fa.pv %qtt, %qt, %z : tensor<32x64xf16, #shared_t>, tensor<64x32xf16, #shared>, tensor<32x32xf32, #own>
    fa.accumulate_rows %p into %ws2[%b, %h, %q0] rows(%c32) : tensor<32x32xf32, #own>, memref<1x1x?x32xf32>
    %p2 = fa.pv %qtt, %qt, %p : tensor<32x64xf16, #shared_t>, tensor<64x32xf16, #shared>, tensor<32x32xf32, #own>
    %t = arith.truncf %p2 : tensor<32x32xf32, #own> to tensor<32x32xf16, #own>
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<1x1x?x32xf16>
}
