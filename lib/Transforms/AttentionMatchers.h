//===- AttentionMatchers.h - Recognisers for unfused attention --*- C++ -*-===//
//
// The read-only half of --fa-raise-attention: small recognisers that walk
// backward from a P V contraction through the softmax, the mask, the scale
// and the Q K^T contraction, and through the layout ops around Q, K and V.
// They only inspect IR; RaiseAttention.cpp builds the replacement from the
// AttentionMatch they fill in.
//
// Vocabulary. The "score domain" is the iteration space of the scores
// S[batch..., i, j] (0 to 2 batch dims, then query row i and key j). Every
// elementwise op between the two contractions runs over it with an identity
// output map; a per-row value (max, sum) is read through a "row map" that
// drops j or pins it to 0 (a kept unit dim).
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_ATTENTIONMATCHERS_H
#define FA_LIB_TRANSFORMS_ATTENTIONMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <string>

namespace mlir {
namespace fa {
namespace raise {

/// Where one of Q, K, V comes from: a tensor of the program (`base`) and the
/// order in which its dims make the contraction operand.
struct OperandView {
  Value base;
  /// Base dims in the order [batch factors..., N, D]: the batch factors,
  /// outermost first, flatten into the contraction's batch index.
  SmallVector<int64_t> dims;
  /// GQA: the contraction's batch index is base's batch index times `group`
  /// plus a repeat index (each base head is broadcast to `group` heads).
  int64_t group = 1;
  /// GQA with the repeat index outside the head instead (torch's
  /// `k.repeat(1, group, 1, 1)`: query head h reads head h mod Hkv).
  bool groupOuter = false;
  /// Constant factors peeled off the way (a scale folded into Q or K).
  double factor = 1.0;

  unsigned numBatchFactors() const { return dims.size() - 2; }
};

/// A recognised attention: everything the rewrite needs.
struct AttentionMatch {
  OperandView query, key, value;
  /// The total scale on Q K^T (scores, Q and K factors combined).
  double scale = 1.0;
  bool causal = false;
  /// A sliding window's edges (fa.attention's window(left, right); right is
  /// -1 when unbounded), when the mask bounds the keys on the left.
  std::optional<int64_t> windowLeft, windowRight;
  /// Soft-capped scores c * tanh(S / c): c.
  std::optional<double> softcap;
  /// The op whose single result becomes fa.attention's O (the P V
  /// contraction, or a cast right after it).
  Operation *root = nullptr;
  /// Batch dims of the score domain (0, 1 or 2).
  unsigned batchRank = 0;
  /// The dims of the root's result holding O's [batch..., Nq, Dv].
  SmallVector<int64_t> resultDims;
};

struct MatchOptions {
  /// The lowest finite value of a type masks like -inf (torch.finfo.min).
  bool finfoMinMasks = true;
};

/// Tries to read `op` as the P V contraction of an attention, walking back to
/// Q, K and V. Returns nullopt (and changes nothing) when anything on the way
/// differs from the recognised forms; then, when `whyNot` is given and the
/// softmax was recognised (the program is attention), it says what stopped
/// the match.
std::optional<AttentionMatch> matchAttention(linalg::LinalgOp op,
                                            const MatchOptions &options,
                                            std::string *whyNot = nullptr);

} // namespace raise
} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_ATTENTIONMATCHERS_H
