// --fa-schedule-softmax has no IR diagnostics (IR it cannot schedule, e.g.
// without layouts, gets after-exp); its only error is a bad option, which
// the option parser reports before the pass runs.

// RUN: not fa-opt %s --fa-schedule-softmax="rescale=early" 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: for the --rescale option: Cannot find option named 'early'!

// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{rescale=early})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: for the --rescale option: Cannot find option named 'early'!
// PIPELINE: failed to add `fa-schedule-softmax` with options `rescale=early`

// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{rescale=})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY
// EMPTY: for the --rescale option: Cannot find option named ''!

// An option of another pass (fa-pipeline-kv's stages) is not one of this pass.
// RUN: not fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{stages=2})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option stages
// UNKNOWN: failed to add `fa-schedule-softmax` with options `stages=2`

// The valid values are accepted.
// RUN: fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{rescale=auto})" | FileCheck %s --check-prefix=OK
// RUN: fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{rescale=before-exp})" | FileCheck %s --check-prefix=OK
// RUN: fa-opt %s --pass-pipeline="builtin.module(fa-schedule-softmax{rescale=after-exp})" | FileCheck %s --check-prefix=OK
// OK-LABEL: func @empty
// OK-NEXT: return

func.func @empty() {
  return
}
