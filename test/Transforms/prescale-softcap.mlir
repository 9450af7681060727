// RUN: fa-opt %s -split-input-file --fa-prescale-softcap | FileCheck %s

// The pass is idempotent: its output has nothing left to prescale.
// RUN: fa-opt %s -split-input-file --fa-prescale-softcap -o %t
// RUN: fa-opt %t -split-input-file --fa-prescale-softcap | diff %t -

// A soft-capped product fa.softcap(fa.qk(Q, K), a) whose Q is held in
// registers for the whole K/V loop becomes fa.softcap(fa.qk(Q', K), 1.0)
// with Q' = fa.scale_tile Q, a: one multiply per element of Q instead of
// one per score. Q' is made once, before the first loop, and shared.

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#opA = #fa.warp_rows<operand_a, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// L3, Q in registers (operand_a), two loops (the causal split).
// CHECK-LABEL: func @q_in_registers
// CHECK-SAME: (%[[QS:.*]]: tensor<128x64xbf16, #shared>, %[[K:.*]]: tensor<64x64xbf16, #shared>, %[[A:.*]]: f32, %[[N:.*]]: index)
// CHECK: %[[QA:.*]] = fa.convert_layout %[[QS]]
// CHECK: %[[QSC:.*]] = fa.scale_tile %[[QA]], %[[A]] : tensor<128x64xbf16, #opA_w4>
// CHECK-NEXT: scf.for
// CHECK: %[[S:.*]] = fa.qk %[[QSC]], %[[K]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: fa.softcap %[[S]] scale(%[[ONE]])
// CHECK: scf.for
// CHECK: %[[S2:.*]] = fa.qk %[[QSC]], %[[K]]
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: fa.softcap %[[S2]] scale(%[[ONE2]])
// CHECK-NOT: fa.scale_tile
func.func @q_in_registers(%qs: tensor<128x64xbf16, #shared>, %k: tensor<64x64xbf16, #shared>,
                          %a: f32, %n: index) -> (tensor<128x64xf32, #acc>, tensor<128x64xf32, #acc>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %qa = fa.convert_layout %qs : tensor<128x64xbf16, #shared> -> tensor<128x64xbf16, #opA>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
  %r1 = scf.for %i = %c0 to %n step %c64 iter_args(%t = %zero) -> (tensor<128x64xf32, #acc>) {
    %s = fa.qk %qa, %k : tensor<128x64xbf16, #opA>, tensor<64x64xbf16, #shared> -> tensor<128x64xf32, #acc>
    %c = fa.softcap %s scale(%a) : tensor<128x64xf32, #acc>
    scf.yield %c : tensor<128x64xf32, #acc>
  }
  %r2 = scf.for %i = %n to %n step %c64 iter_args(%t = %r1) -> (tensor<128x64xf32, #acc>) {
    %s = fa.qk %qa, %k : tensor<128x64xbf16, #opA>, tensor<64x64xbf16, #shared> -> tensor<128x64xf32, #acc>
    %c = fa.softcap %s scale(%a) : tensor<128x64xf32, #acc>
    scf.yield %c : tensor<128x64xf32, #acc>
  }
  return %r1, %r2 : tensor<128x64xf32, #acc>, tensor<128x64xf32, #acc>
}

// -----

#acc = #fa.warp_rows<acc, num_warps = 4, atom = #fa.mma_sync>
#shared = #fa.block_shared<atom = #fa.mma_sync>

// L3, Q read from shared memory every block (head dim 128): left alone.
// CHECK-LABEL: func @q_in_shared
// CHECK-NOT: fa.scale_tile
// CHECK: fa.softcap %{{.*}} scale(%arg2)
func.func @q_in_shared(%qs: tensor<128x128xbf16, #shared>, %k: tensor<64x128xbf16, #shared>,
                       %a: f32, %n: index) -> tensor<128x64xf32, #acc> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%t = %zero) -> (tensor<128x64xf32, #acc>) {
    %s = fa.qk %qs, %k : tensor<128x128xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x64xf32, #acc>
    %c = fa.softcap %s scale(%a) : tensor<128x64xf32, #acc>
    scf.yield %c : tensor<128x64xf32, #acc>
  }
  return %r : tensor<128x64xf32, #acc>
}

// -----

// L2 (no layouts yet), a soft cap with its cap operand (the backward
// tiling's form): Q scaled, the cap kept.
// CHECK-LABEL: func @no_layouts
// CHECK: %[[QSC:.*]] = fa.scale_tile %arg0, %arg2 : tensor<64x32xf16>
// CHECK: scf.for
// CHECK: %[[S:.*]] = fa.qk %[[QSC]], %arg1
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: fa.softcap %[[S]] scale(%[[ONE]]) cap(%arg3)
func.func @no_layouts(%q: tensor<64x32xf16>, %k: tensor<32x32xf16>, %a: f32, %cap: f32,
                      %n: index) -> tensor<64x32xf32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %r = scf.for %i = %c0 to %n step %c32 iter_args(%t = %zero) -> (tensor<64x32xf32>) {
    %s = fa.qk %q, %k : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
    %c = fa.softcap %s scale(%a) cap(%cap) : tensor<64x32xf32>
    scf.yield %c : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// -----

// Left alone: the scores have another use (they would be scaled too), Q
// changes every iteration (the backward's K/V-outer nest), the factor is
// computed in the loop, and a product outside any loop.
// CHECK-LABEL: func @not_prescalable
// CHECK-NOT: fa.scale_tile
// CHECK: fa.softcap %{{.*}} scale(%arg2)
// CHECK: fa.softcap %{{.*}} scale(%arg2)
// CHECK: fa.softcap %{{.*}} scale(%[[AI:.*]])
// CHECK: fa.softcap %{{.*}} scale(%arg2)
// CHECK-NOT: fa.scale_tile
func.func @not_prescalable(%q: tensor<64x32xf16>, %k: tensor<32x32xf16>, %a: f32, %n: index,
                           %qs: tensor<4x64x32xf16>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %zero) -> (tensor<64x32xf32>) {
    %s = fa.qk %q, %k : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
    %c = fa.softcap %s scale(%a) : tensor<64x32xf32>
    %sum = arith.addf %c, %s : tensor<64x32xf32>
    scf.yield %sum : tensor<64x32xf32>
  }
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %zero) -> (tensor<64x32xf32>) {
    %qi = tensor.extract_slice %qs[%i, 0, 0] [1, 64, 32] [1, 1, 1] : tensor<4x64x32xf16> to tensor<64x32xf16>
    %s = fa.qk %qi, %k : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
    %c = fa.softcap %s scale(%a) : tensor<64x32xf32>
    scf.yield %c : tensor<64x32xf32>
  }
  %r3 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %zero) -> (tensor<64x32xf32>) {
    %ai = arith.mulf %a, %a : f32
    %s = fa.qk %q, %k : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
    %c = fa.softcap %s scale(%ai) : tensor<64x32xf32>
    scf.yield %c : tensor<64x32xf32>
  }
  %s4 = fa.qk %q, %k : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
  %r4 = fa.softcap %s4 scale(%a) : tensor<64x32xf32>
  return %r1, %r2, %r3, %r4 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}
