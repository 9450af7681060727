// RUN: not fa-opt %s --fa-stage-block-scalars=max-scalars=-1 2>&1 | FileCheck %s
// RUN: not fa-opt %s --fa-to-ptx=stage-block-scalars=sometimes 2>&1 | FileCheck %s --check-prefix=PIPELINE

// CHECK: error: fa-stage-block-scalars: option max-scalars must be at least 0, got -1
// PIPELINE: option stage-block-scalars must be auto, on or off, got 'sometimes'
module {
}
