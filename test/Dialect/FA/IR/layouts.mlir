// RUN: fa-opt %s -split-input-file | fa-opt -split-input-file | FileCheck %s
// RUN: fa-opt %s -split-input-file -mlir-print-local-scope | fa-opt -split-input-file -mlir-print-local-scope | FileCheck %s --check-prefix=LOCAL

// Parse/print of the layout encodings (#fa.warp_rows, #fa.block_shared),
// the atom they name (#fa.mma_sync) and !fa.future. The default printer
// gives each encoding the short alias Triton-style IR reads
// (`#<role>_w<num_warps>`, `#shared`); the LOCAL run prints them inline, so
// the full syntax round-trips as well.

// Every role, on the smallest tile it allows for its number of warps: acc
// (rank 2, 16 * num_warps rows, columns % 8), operand_a (columns % 16),
// rows and partial_rows (rank 1, f32); the alias names the role (acc, opA,
// rows, partial) and num_warps (1, 2, 4, 8). Aliases are printed in front of
// the module and used in every type.
// CHECK-DAG: #acc_w1 = #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>
// CHECK-DAG: #opA_w2 = #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w4 = #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #partial_w8 = #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>
// CHECK-LABEL: func.func @roles
// CHECK-SAME: (%{{.*}}: tensor<16x8xf32, #acc_w1>, %{{.*}}: tensor<32x16xbf16, #opA_w2>, %{{.*}}: tensor<64xf32, #rows_w4>, %{{.*}}: tensor<128xf32, #partial_w8>)
// LOCAL-LABEL: func.func @roles
// LOCAL-SAME: (%{{.*}}: tensor<16x8xf32, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>>, %{{.*}}: tensor<32x16xbf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>>, %{{.*}}: tensor<64xf32, #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>>, %{{.*}}: tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>>)
func.func @roles(%acc: tensor<16x8xf32, #fa.warp_rows<acc, num_warps = 1, atom = #fa.mma_sync>>,
                 %opa: tensor<32x16xbf16, #fa.warp_rows<operand_a, num_warps = 2, atom = #fa.mma_sync>>,
                 %rows: tensor<64xf32, #fa.warp_rows<rows, num_warps = 4, atom = #fa.mma_sync>>,
                 %partial: tensor<128xf32, #fa.warp_rows<partial_rows, num_warps = 8, atom = #fa.mma_sync>>) {
  return
}

// -----

// The same role with different num_warps gets different aliases; acc holds
// f32, f16 and bf16, operand_a f16 and bf16. Values and constants of an
// encoded type print the alias too.
// CHECK-DAG: #acc_w4 = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
// CHECK-DAG: #acc_w8 = #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>
// CHECK-DAG: #opA_w4 = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
// CHECK-LABEL: func.func @element_types
// CHECK-SAME: (%{{.*}}: tensor<64x8xf16, #acc_w4>, %{{.*}}: tensor<128x24xbf16, #acc_w8>, %{{.*}}: tensor<64x32xf16, #opA_w4>)
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x64xf32, #acc_w8>
// LOCAL-LABEL: func.func @element_types
// LOCAL: arith.constant dense<0.000000e+00> : tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>>
func.func @element_types(%a: tensor<64x8xf16, #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>>,
                         %b: tensor<128x24xbf16, #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>>,
                         %c: tensor<64x32xf16, #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>>)
    -> tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>> {
  %z = arith.constant dense<0.0> : tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>>
  return %z : tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 8, atom = #fa.mma_sync>>
}

// -----

// Replicas: groups of warps that each hold the whole tile. The default (1) is
// not printed; other counts are, and the alias gets `x<replicas>`.
// CHECK-DAG: #acc_w2x8 = #fa.warp_rows<acc, num_warps = 2, replicas = 8, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w2x8 = #fa.warp_rows<rows, num_warps = 2, replicas = 8, atom = #fa.mma_sync>
// CHECK-DAG: #rows_w2 = #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>
// CHECK-LABEL: func.func @replicas
// CHECK-SAME: (%{{.*}}: tensor<32x8xf32, #acc_w2x8>, %{{.*}}: tensor<32xf32, #rows_w2x8>, %{{.*}}: tensor<32xf32, #rows_w2>)
// LOCAL-LABEL: func.func @replicas
// LOCAL-SAME: (%{{.*}}: tensor<32x8xf32, #fa.warp_rows<acc, num_warps = 2, replicas = 8, atom = #fa.mma_sync>>, %{{.*}}: tensor<32xf32, #fa.warp_rows<rows, num_warps = 2, replicas = 8, atom = #fa.mma_sync>>, %{{.*}}: tensor<32xf32, #fa.warp_rows<rows, num_warps = 2, atom = #fa.mma_sync>>)
func.func @replicas(%acc: tensor<32x8xf32, #fa.warp_rows<acc, num_warps = 2, replicas = 8, atom = #fa.mma_sync>>,
                    %rows: tensor<32xf32, #fa.warp_rows<rows, num_warps = 2, replicas = 8, atom = #fa.mma_sync>>,
                    %one: tensor<32xf32, #fa.warp_rows<rows, num_warps = 2, replicas = 1, atom = #fa.mma_sync>>) {
  return
}

// -----

// #fa.block_shared: one alias, #shared, whatever the tile (f16 and bf16,
// any number of rows >= 1, columns % 8).
// CHECK: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-NOT: #shared{{.*}} =
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%{{.*}}: tensor<1x8xf16, #shared>, %{{.*}}: tensor<64x128xbf16, #shared>)
// LOCAL-LABEL: func.func @shared
// LOCAL-SAME: (%{{.*}}: tensor<1x8xf16, #fa.block_shared<atom = #fa.mma_sync>>, %{{.*}}: tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>)
func.func @shared(%a: tensor<1x8xf16, #fa.block_shared<atom = #fa.mma_sync>>,
                  %b: tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>) {
  return
}

// -----

// Swizzled tiles (rows of a multiple of 128 bytes, at least 8 of them) get
// their own alias, #shared_swz, and so do their transposed views.
// CHECK-DAG: #shared_swz = #fa.block_shared<atom = #fa.mma_sync, swizzled = true>
// CHECK-DAG: #shared_t_swz = #fa.block_shared<atom = #fa.mma_sync, transposed = true, swizzled = true>
// CHECK-LABEL: func.func @swizzled
// CHECK-SAME: (%{{.*}}: tensor<8x64xf16, #shared_swz>, %{{.*}}: tensor<64x256xbf16, #shared_swz>, %{{.*}}: tensor<128x16xf16, #shared_t_swz>)
func.func @swizzled(%a: tensor<8x64xf16, #fa.block_shared<atom = #fa.mma_sync, swizzled = true>>,
                    %b: tensor<64x256xbf16, #fa.block_shared<atom = #fa.mma_sync, swizzled = true>>,
                    %c: tensor<128x16xf16, #fa.block_shared<atom = #fa.mma_sync, transposed = true, swizzled = true>>) {
  return
}

// -----

// #fa.wgmma's swizzled tiles (its 128-byte-swizzled canonical layout) are
// #shared_swz_wgmma.
// CHECK: #shared_swz_wgmma = #fa.block_shared<atom = #fa.wgmma, swizzled = true>
// CHECK-LABEL: func.func @swizzled_wgmma
// CHECK-SAME: (%{{.*}}: tensor<64x128xbf16, #shared_swz_wgmma>)
func.func @swizzled_wgmma(%k: tensor<64x128xbf16, #fa.block_shared<atom = #fa.wgmma, swizzled = true>>) {
  return
}

// -----

// The input's own alias names do not survive: the dialect's aliases replace
// them.
// CHECK-NOT: #my_acc
// CHECK-NOT: #my_smem
// CHECK-DAG: #acc_w2 = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-LABEL: func.func @user_aliases
// CHECK-SAME: (%{{.*}}: tensor<32x64xf32, #acc_w2>, %{{.*}}: tensor<64x64xf16, #shared>)
#my_acc = #fa.warp_rows<acc, num_warps = 2, atom = #fa.mma_sync>
#my_smem = #fa.block_shared<atom = #fa.mma_sync>
func.func @user_aliases(%a: tensor<32x64xf32, #my_acc>, %b: tensor<64x64xf16, #my_smem>) {
  return
}

// -----

// The atom and the encodings as plain attributes (no tensor, so no shape
// rule applies): #fa.mma_sync has no alias and prints as is; the encodings
// print their aliases wherever they appear. !fa.future prints qualified, with
// its tiles in order.
// CHECK-DAG: #shared = #fa.block_shared<atom = #fa.mma_sync>
// CHECK-DAG: #partial_w1 = #fa.warp_rows<partial_rows, num_warps = 1, atom = #fa.mma_sync>
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: attributes {atom = #fa.mma_sync, atoms = [#fa.mma_sync, #shared], enc = #partial_w1, future = !fa.future<tensor<8x8xf16, #shared>, tensor<16x64xbf16, #shared>>}
// LOCAL-LABEL: func.func @attributes
// LOCAL-SAME: attributes {atom = #fa.mma_sync, atoms = [#fa.mma_sync, #fa.block_shared<atom = #fa.mma_sync>], enc = #fa.warp_rows<partial_rows, num_warps = 1, atom = #fa.mma_sync>, future = !fa.future<tensor<8x8xf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<16x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>>}
func.func @attributes() attributes {
    atom = #fa.mma_sync,
    atoms = [#fa.mma_sync, #fa.block_shared<atom = #fa.mma_sync>],
    enc = #fa.warp_rows<partial_rows, num_warps = 1, atom = #fa.mma_sync>,
    future = !fa.future<tensor<8x8xf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<16x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>>} {
  return
}

// -----

// !fa.future with one and with two tiles, as a function argument and
// result type.
// CHECK-LABEL: func.func @futures
// CHECK-SAME: (%[[A:.*]]: !fa.future<tensor<128x64xf16, #shared>>, %[[B:.*]]: !fa.future<tensor<64x64xbf16, #shared>, tensor<64x128xbf16, #shared>>) -> (!fa.future<tensor<64x64xbf16, #shared>, tensor<64x128xbf16, #shared>>, !fa.future<tensor<128x64xf16, #shared>>)
// CHECK: return %[[B]], %[[A]] :
// LOCAL-LABEL: func.func @futures
// LOCAL-SAME: (%{{.*}}: !fa.future<tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>, %{{.*}}: !fa.future<tensor<64x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>>)
func.func @futures(%a: !fa.future<tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>,
                   %b: !fa.future<tensor<64x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>>)
    -> (!fa.future<tensor<64x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>>,
        !fa.future<tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>) {
  return %b, %a : !fa.future<tensor<64x64xbf16, #fa.block_shared<atom = #fa.mma_sync>>, tensor<64x128xbf16, #fa.block_shared<atom = #fa.mma_sync>>>,
                  !fa.future<tensor<128x64xf16, #fa.block_shared<atom = #fa.mma_sync>>>
}

// -----

// The sm_90a atom round-trips: 16 rows a warp (64 rows on one warpgroup,
// 128 on two), shared tiles of whole core-matrix rows.
// The aliases name the atom when it is not #fa.mma_sync.
// CHECK-DAG: #acc_w4_wgmma = #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>
// CHECK-DAG: #shared_wgmma = #fa.block_shared<atom = #fa.wgmma>
// CHECK-LABEL: func.func @wgmma_atom
// CHECK-SAME: (%{{.*}}: tensor<64x128xf32, #acc_w4_wgmma>, %{{.*}}: tensor<128x64xbf16, #opA_w8_wgmma>, %{{.*}}: tensor<64x128xf16, #shared_wgmma>, %{{.*}}: tensor<128x64xf32, #acc_w8_wgmma>)
// LOCAL-LABEL: func.func @wgmma_atom
// LOCAL-SAME: (%{{.*}}: tensor<64x128xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>>, %{{.*}}: tensor<128x64xbf16, #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.wgmma>>, %{{.*}}: tensor<64x128xf16, #fa.block_shared<atom = #fa.wgmma>>,
func.func @wgmma_atom(%acc: tensor<64x128xf32, #fa.warp_rows<acc, num_warps = 4, atom = #fa.wgmma>>,
                      %a: tensor<128x64xbf16, #fa.warp_rows<operand_a, num_warps = 8, atom = #fa.wgmma>>,
                      %s: tensor<64x128xf16, #fa.block_shared<atom = #fa.wgmma>>,
                      %w: tensor<128x64xf32, #fa.warp_rows<acc, num_warps = 8, atom = #fa.wgmma>>) {
  return
}
