// Bad input gets a diagnostic that names the problem and a non-zero exit
// status; never a crash. (`not` fails if fa-opt crashes: it expects a normal
// exit with a non-zero code.)

// RUN: echo 'func.func @f( {' | not fa-opt 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: error: expected non-function type

// RUN: echo 'fa.bogus' | not fa-opt 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP: error: custom op 'fa.bogus' is unknown

// An fa.attention missing its value operand.
// RUN: not fa-opt %s 2>&1 | FileCheck %s --check-prefix=MISSING-OPERAND
// MISSING-OPERAND: error: expected ','

// RUN: echo '' | not fa-opt --pass-pipeline='builtin.module(fa-decompose-naive{bogus=1})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-OPTION
// BAD-OPTION: no such option bogus
// BAD-OPTION: failed to add `fa-decompose-naive` with options `bogus=1`

// RUN: echo '' | not fa-opt --fa-no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: Unknown command line argument '--fa-no-such-pass'

// An invalid op is reported by the verifier right after parsing, before any
// pass runs.
// RUN: echo 'func.func @f(%%q: tensor<1x3x8x16xf32>, %%k: tensor<1x2x8x16xf32>, %%o: tensor<1x3x8x16xf32>) { \
// RUN:   %%0 = fa.attention ins(%%q, %%k, %%k : tensor<1x3x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) \
// RUN:   outs(%%o : tensor<1x3x8x16xf32>) -> tensor<1x3x8x16xf32> \
// RUN:   return }' | not fa-opt --fa-decompose-naive 2>&1 | FileCheck %s --check-prefix=INVALID-OP
// INVALID-OP: error: 'fa.attention' op query heads (3) must be a multiple of key/value heads (2)

func.func @missing_value(%q: tensor<1x1x8x16xf32>, %o: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  %0 = fa.attention ins(%q, %q : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>)
                    outs(%o : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return %0 : tensor<1x1x8x16xf32>
}
