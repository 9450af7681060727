//===- Chips.cpp - The GPUs the fa kernels can target ---------------------===//

#include "fa/Dialect/FA/IR/Chips.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fa;

namespace {
constexpr int64_t KiB = 1024;

// Every chip from Ampere on has the instructions of the sm_80 atom. The `a`
// variants (architecture-specific features) run the same kernel; sm_90a gets
// it until a Hopper atom exists. Minimum PTX versions are those of LLVM's
// NVPTX backend (NVPTX.td), which stops the process on an older one.
// Family (`f`) variants, sm_88, sm_101 and sm_110 are left out: ptxas 13
// and the programming guide disagree on some of them, and none is tested.
const ChipInfo kChips[] = {
    {"sm_80", 70, 163 * KiB},   {"sm_86", 71, 99 * KiB},
    {"sm_87", 74, 163 * KiB},   {"sm_89", 78, 99 * KiB},
    {"sm_90", 78, 227 * KiB},   {"sm_90a", 80, 227 * KiB},
    {"sm_100", 86, 227 * KiB},  {"sm_100a", 86, 227 * KiB},
    {"sm_103", 88, 227 * KiB},  {"sm_103a", 88, 227 * KiB},
    {"sm_120", 87, 99 * KiB},   {"sm_120a", 87, 99 * KiB},
    {"sm_121", 88, 99 * KiB},   {"sm_121a", 88, 99 * KiB},
};
} // namespace

const ChipInfo *fa::lookupChip(StringRef name) {
  const ChipInfo *it = llvm::find_if(
      kChips, [&](const ChipInfo &chip) { return chip.name == name; });
  return it == std::end(kChips) ? nullptr : it;
}

const ChipInfo *fa::lookupChipOption(StringRef name, Location loc,
                                     StringRef pass) {
  const ChipInfo *chip = lookupChip(name);
  if (!chip)
    mlir::emitError(loc) << pass << ": option chip must be one of "
                         << supportedChipNames() << ", got '" << name << "'";
  return chip;
}

std::string fa::supportedChipNames() {
  return llvm::join(llvm::map_range(kChips,
                                    [](const ChipInfo &c) { return c.name; }),
                    ", ");
}

int fa::defaultPTXVersion(const ChipInfo &chip) {
  return std::max(80, chip.minPTXVersion);
}
