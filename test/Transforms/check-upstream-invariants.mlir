// RUN: fa-opt %s --fa-check-upstream-invariants -split-input-file -verify-diagnostics --mlir-print-op-generic | FileCheck %s
// RUN: not fa-opt %s --fa-lower-to-cpu -split-input-file 2>&1 | FileCheck %s --check-prefix=PIPELINE
// fa-opt runs the check before any passes, none given included: without
// it, printing the module would crash in upstream's tensor.pad printer.
// RUN: not fa-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=PIPELINE

// A pad whose lists match its operands (static and dynamic amounts) is left
// alone.
// CHECK-LABEL: "func.func"() <{function_type = (tensor<?x16xf16>, index) -> tensor<32x16xf16>, sym_name = "well_formed"}>
// CHECK: "tensor.pad"(%{{.*}}, %[[HIGH:.*]]) <{
// CHECK-SAME: static_high = array<i64: -9223372036854775808, 0>
// CHECK-SAME: static_low = array<i64: 0, 0>
func.func @well_formed(%t: tensor<?x16xf16>, %high: index) -> tensor<32x16xf16> {
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %t low[0, 0] high[%high, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f16
  } : tensor<?x16xf16> to tensor<32x16xf16>
  return %p : tensor<32x16xf16>
}

// -----

// The literal kDynamic sentinel in high[...]: one dynamic entry, no operand.
// Upstream's printer and bufferization read the missing operand and crash
// (docs/reliability.md); --fa-lower-to-cpu used to crash in bufferization.
// PIPELINE: error: tensor.pad: 'high' has 2 entries for a rank-2 source and 1 dynamic entries but 0 operands
func.func @sentinel_high(%t: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %zero = arith.constant 0.0 : f16
  // expected-error @+1 {{tensor.pad: 'high' has 2 entries for a rank-2 source and 1 dynamic entries but 0 operands}}
  %p = tensor.pad %t low[0, 0] high[0, -9223372036854775808] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f16
  } : tensor<16x16xf16> to tensor<16x16xf16>
  return %p : tensor<16x16xf16>
}

// -----

// The same in low[...], with a second pad reported too (every one is
// named, not only the first).
// PIPELINE: error: tensor.pad: 'low' has 2 entries for a rank-2 source and 1 dynamic entries but 0 operands
func.func @sentinel_low(%t: tensor<16x16xf16>) -> (tensor<16x16xf16>, tensor<16x16xf16>) {
  %zero = arith.constant 0.0 : f16
  // expected-error @+1 {{tensor.pad: 'low' has 2 entries for a rank-2 source and 1 dynamic entries but 0 operands}}
  %p = tensor.pad %t low[-9223372036854775808, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f16
  } : tensor<16x16xf16> to tensor<16x16xf16>
  // expected-error @+1 {{tensor.pad: 'high' has 2 entries}}
  %q = tensor.pad %t low[0, 0] high[0, -9223372036854775808] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f16
  } : tensor<16x16xf16> to tensor<16x16xf16>
  return %p, %q : tensor<16x16xf16>, tensor<16x16xf16>
}
