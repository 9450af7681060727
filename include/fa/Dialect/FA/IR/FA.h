//===- FA.h - FlashAttention dialect ----------------------------*- C++ -*-===//
//
// Include this header to use the `fa` dialect and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_FA_IR_FA_H
#define FA_DIALECT_FA_IR_FA_H

#include "fa/Dialect/FA/IR/Chips.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fa/Dialect/FA/IR/FAOpsDialect.h.inc"

#include "fa/Dialect/FA/IR/FAEnums.h.inc"

namespace mlir {
namespace fa {
/// A window side (fa.attention's window(left, right)) must be below this.
/// The kernels compute a row's key bounds as row + (Nk - Nq) +- side in the
/// index width (32 bits by default); with the sizes 32-bit indices address
/// (fewer than 2^31 elements a tensor, so fewer than 2^27 rows at head dim
/// 16) a side below 2^30 cannot overflow that, and a wider side would bound
/// nothing anyway: -1 is the unbounded side.
constexpr int64_t kWindowSideLimit = int64_t(1) << 30;

/// Values a kernel keeps live beside its fragments that the plain kernel
/// does not: a sliding window's left bound (per-row key bounds), a soft cap,
/// per-sequence bounds read from memory (packed sequences, K/V-cache
/// lengths, page tables). --fa-schedule-softmax counts them (0 to
/// kAllExtraLiveValues).
constexpr int64_t kAllExtraLiveValues = 3;

/// Those values by kind, and split-KV's chunk bounds (not in the count:
/// --fa-schedule-softmax leaves them out). What each keeps live differs: a
/// window two key bounds per row, per-sequence bounds and chunk bounds
/// scalars that bound every K/V loop, a soft cap one scalar used once per
/// score.
struct ExtraLiveValues {
  bool window = false, softcap = false, sequenceBounds = false,
       split = false;
  /// The count of TileConfig (kAllExtraLiveValues at most).
  int64_t count() const {
    return int64_t(window) + int64_t(softcap) + int64_t(sequenceBounds);
  }
};

/// Tile sizes of the GPU kernel: Q rows and K/V rows per block, warps per
/// thread block, K/V blocks resident in shared memory. For kernels with a
/// sliding window or per-sequence bounds (values that stay live next to the
/// fragments), and with a soft cap where `windowTilesWithSoftcap`: the Q
/// and K/V blocks to use instead of `blockM` and `blockN` (0: the same),
/// and the Q block for kernels with two extra live values or more
/// (`crowdedBlockM`, 0: the same; warps stay at 16 rows or more). And how
/// many extra live values (above) the accumulator's
/// rescale before the exponentials tolerates when the register budget
/// allows it (`--fa-schedule-softmax`, `rescale=auto`), with these tiles
/// and with the window tiles: past it, the rescale goes after them.
struct TileConfig {
  int64_t blockM, blockN, numWarps, stages;
  int64_t earlyRescaleExtras = kAllExtraLiveValues;
  int64_t windowBlockM = 0, windowBlockN = 0;
  int64_t windowEarlyRescaleExtras = kAllExtraLiveValues;
  bool windowTilesWithSoftcap = false;
  int64_t crowdedBlockM = 0;
  /// The K/V stages of the window tiles (0: the table's).
  int64_t windowStages = 0;
};
} // namespace fa
} // namespace mlir

#include "fa/Dialect/FA/IR/FAAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fa/Dialect/FA/IR/FAOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "fa/Dialect/FA/IR/FAOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace fa {
/// Registers the bufferization models of `fa.attention` and
/// `fa.attention_backward` (tensor form -> memref form) so that
/// `--one-shot-bufferize` handles them.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

/// Replaces `op` by its two halves at its position, fa.running_max then
/// fa.softmax_exp: the definition of the online-softmax step that the CPU
/// lowering, --fa-schedule-softmax and the GPU lowering all use.
std::pair<RunningMaxOp, SoftmaxExpOp> splitOnlineSoftmax(RewriterBase &rewriter,
                                                         OnlineSoftmaxOp op);

/// The layout encoding of a tile type (`#fa.warp_rows` or `#fa.block_shared`),
/// or null for a plain tensor or any other type.
Attribute getTileEncoding(Type type);

/// The atom named by `type`'s layout encoding, or null.
MmaAtomAttrInterface getTileAtom(Type type);

/// The L2 prefetch sizes PTX's `cp.async` accepts (`.L2::64B`, `.L2::128B`,
/// `.L2::256B`): the values of `fa.async_load`'s `l2_prefetch` and of
/// `--fa-pipeline-kv{l2-prefetch}` (where 0 means none).
inline bool isValidL2PrefetchBytes(int64_t bytes) {
  return bytes == 64 || bytes == 128 || bytes == 256;
}

/// True if `type` is a tensor with an `fa` layout encoding or a future: a
/// value only the GPU lowering (or the CPU path's type erasure) understands.
bool hasFALayout(Type type);
} // namespace fa
} // namespace mlir

#endif // FA_DIALECT_FA_IR_FA_H
