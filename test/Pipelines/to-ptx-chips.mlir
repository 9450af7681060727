// The chips --fa-to-ptx accepts (fa/Dialect/FA/IR/Chips.h), the PTX version
// it asks for on each, and the options it rejects before any pass runs: an
// unknown chip or one without the sm_80 instructions, a PTX version LLVM does
// not know or the chip cannot take, an opt-level past 3. (LLVM's NVPTX
// backend would stop the process on the last two.)

// Default features: PTX 8.0, or the chip's minimum where that is newer.
// RUN: fa-opt %s --fa-to-ptx | FileCheck %s --check-prefix=SM80
// SM80-LABEL: gpu.binary @attention_kernel_module
// SM80-SAME: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// RUN: fa-opt %s --fa-to-ptx="chip=sm_90a" | FileCheck %s --check-prefix=SM90A
// SM90A: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// RUN: fa-opt %s --fa-to-ptx="chip=sm_100" | FileCheck %s --check-prefix=SM100
// SM100: #nvvm.target<O = 3, chip = "sm_100", features = "+ptx86">
// RUN: fa-opt %s --fa-to-ptx="chip=sm_120a" | FileCheck %s --check-prefix=SM120A
// SM120A: #nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">
// RUN: fa-opt %s --fa-to-ptx="chip=sm_103 features=+ptx90" | FileCheck %s --check-prefix=SM103
// SM103: #nvvm.target<O = 3, chip = "sm_103", features = "+ptx90">

// RUN: not fa-opt %s --fa-to-ptx="chip=sm_75" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// BAD-CHIP: error: fa-to-ptx: option chip must be one of sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a, sm_121, sm_121a, got 'sm_75'
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_999" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-999
// BAD-999: error: fa-to-ptx: option chip must be one of {{.*}}, got 'sm_999'
// RUN: not fa-opt %s --fa-to-ptx="chip=" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-EMPTY
// BAD-EMPTY: error: fa-to-ptx: option chip must be one of {{.*}}, got ''
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_100 features=+ptx80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD-PTX
// OLD-PTX: error: fa-to-ptx: PTX 8.0 (features=+ptx80) cannot target sm_100, which needs PTX 8.6 or later
// RUN: not fa-opt %s --fa-to-ptx="chip=sm_90 features=+ptx70" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD-PTX90
// OLD-PTX90: error: fa-to-ptx: PTX 7.0 (features=+ptx70) cannot target sm_90, which needs PTX 7.8 or later
// RUN: not fa-opt %s --fa-to-ptx="features=+ptx99" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PTX
// UNKNOWN-PTX: error: fa-to-ptx: option features must be +ptxNN with a PTX version from 6.0 to 9.0 (e.g. +ptx80), got '+ptx99'
// RUN: not fa-opt %s --fa-to-ptx="features=+sm80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOT-PTX
// NOT-PTX: error: fa-to-ptx: option features must be +ptxNN {{.*}}, got '+sm80'
// RUN: not fa-opt %s --fa-to-ptx="opt-level=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: fa-to-ptx: option opt-level must be 0 to 3, got 4

// On 99 KB chips the default tiles of d = 128 (128 x 64, 104448 bytes of
// shared tiles) do not fit; --fa-tile-q-outer{auto-blocks chip} halves the
// K/V block.
// RUN: rm -rf %t && fa-opt %s --fa-to-ptx="chip=sm_86 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM86 < %t/attention_kernel.json
// SM86: "chip": "sm_86",
// SM86: "dynamic_shared_memory": 69632,

func.func @attention(%q: tensor<?x16x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>,
                     %o: tensor<?x16x?x128xf16>) -> tensor<?x16x?x128xf16> {
  %0 = fa.attention ins(%q, %k, %v : tensor<?x16x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>)
                    outs(%o : tensor<?x16x?x128xf16>) causal -> tensor<?x16x?x128xf16>
  return %0 : tensor<?x16x?x128xf16>
}
