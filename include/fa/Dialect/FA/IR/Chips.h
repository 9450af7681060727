//===- Chips.h - The GPUs the fa kernels can target -------------*- C++ -*-===//
//
// One table of the NVPTX processors the GPU pipeline accepts, used by every
// place that needs a fact about the chip: the option checks of
// --fa-to-ptx, the PTX version it asks LLVM for, the shared memory budget of
// --fa-lower-to-gpu and the tile choice of --fa-tile-q-outer{auto-blocks}.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_FA_IR_CHIPS_H
#define FA_DIALECT_FA_IR_CHIPS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace fa {

/// A GPU the sm_80 kernels (mma.sync.m16n8k16, ldmatrix, cp.async) run on.
struct ChipInfo {
  /// LLVM's NVPTX processor name, also the PTX `.target`.
  StringRef name;
  /// The oldest PTX ISA version (x 10) with this `.target`.
  int minPTXVersion;
  /// Dynamic shared memory one thread block may use (with the opt-in
  /// attribute), from the CUDA C Programming Guide's table of compute
  /// capabilities.
  int64_t maxSharedMemoryPerBlock;

  /// Hopper (sm_90, sm_90a): its ptxas allocates registers differently
  /// from sm_80's, which some layout choices depend on (swizzled tiles).
  bool isHopper() const { return name == "sm_90" || name == "sm_90a"; }
  /// Whether the chip has wgmma.mma_async and TMA (#fa.wgmma): the
  /// architecture-specific sm_90a target only.
  bool hasWgmma() const { return name == "sm_90a"; }
};

/// The entry for `name`, or null for a chip the pipeline does not support.
const ChipInfo *lookupChip(StringRef name);

/// The entry for a pass's `chip` option; null, after the diagnostic
/// "<pass>: option chip must be one of ..., got '<name>'" at `loc`, for an
/// unsupported chip.
const ChipInfo *lookupChipOption(StringRef name, Location loc,
                                 StringRef pass);

/// "sm_80, sm_86, ...": every supported chip, for diagnostics.
std::string supportedChipNames();

/// The PTX version the pipeline emits for `chip` unless told otherwise:
/// 8.0, or the chip's minimum where that is newer.
int defaultPTXVersion(const ChipInfo &chip);

} // namespace fa
} // namespace mlir

#endif // FA_DIALECT_FA_IR_CHIPS_H
