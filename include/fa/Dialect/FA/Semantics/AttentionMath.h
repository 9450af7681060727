//===- AttentionMath.h - One definition of each step of attention -*- C++ -*-===//
//
// The arithmetic of the mask, the online-softmax step and the final
// normalisation, as builders of scalar (or elementwise vector) ops. Every
// lowering calls these: the naive CPU decomposition (the mask and the row
// max), the CPU lowering of the tile ops inside linalg.generic bodies, and
// the GPU patterns on register fragments. A change to one of them changes
// every path at once, so the CPU equivalence tests cover what the GPU runs.
//
//===----------------------------------------------------------------------===//

#ifndef FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H
#define FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir {
namespace fa {
class MaskOp;
namespace semantics {

//===----------------------------------------------------------------------===//
// The mask
//===----------------------------------------------------------------------===//

/// What hides a key from a query row (index values; null = absent).
struct MaskSpec {
  /// Keys at or past this are hidden (the end of the sequence).
  Value keyLimit;
  /// Causal (and a window's right side): row i sees keys
  /// j <= i + causalOffset (bottom-right aligned with causalOffset =
  /// Nk - Nq + right context).
  Value causalOffset;
  /// A window's left side: row i sees keys j >= i + windowOffset
  /// (windowOffset = Nk - Nq - left context).
  Value windowOffset;
  /// Every row of the tile is the same query (fa.mask's single_query: GQA
  /// packing of one query position).
  bool singleQuery = false;

  static MaskSpec of(MaskOp op);

  /// The diagonal bounds of an attention of `numQueries` rows over
  /// `numKeys` keys whose row i sees keys j with
  /// i + (Nk - Nq) - left <= j <= i + (Nk - Nq) + right (bottom-right
  /// aligned; nullopt = that side unbounded), as the attention ops'
  /// `getVisibleWindow()` gives them. `keyLimit` is left null.
  /// `indexConstant`, if given, makes the index constants (a pass that
  /// keeps one constant per value); by default they are created here.
  static MaskSpec
  forWindow(OpBuilder &b, Location loc, Value numQueries, Value numKeys,
            std::optional<int64_t> left, std::optional<int64_t> right,
            function_ref<Value(int64_t)> indexConstant = nullptr);
};

/// Row `row` sees exactly the keys in [begin(row), end(row)); both bounds
/// only grow with the row.

/// The query row of tile row `tileRow` of a mask whose tile starts at query
/// row `rowStart`: rowStart + tileRow, or rowStart for a single-query tile.
Value queryRow(OpBuilder &b, Location loc, Value rowStart, Value tileRow,
               const MaskSpec &spec);

/// The end of the keys row `row` sees: every key j >= end is hidden. Null
/// when nothing bounds it.
///   end(row) = min(keyLimit, row + causalOffset + 1)
Value visibleKeysEnd(OpBuilder &b, Location loc, Value row,
                     const MaskSpec &spec);

/// The first key row `row` sees: every key j < begin is hidden. Null when
/// nothing bounds it (begin = 0).
///   begin(row) = row + windowOffset
Value visibleKeysBegin(OpBuilder &b, Location loc, Value row,
                       const MaskSpec &spec);

/// The inverses, for loops that visit query rows per key block (the
/// backward's K/V-outer order): since begin() and end() only grow with the
/// row, the rows that see some key of [keyStart, keyEnd) are one interval.
/// The first row that can see a key at or after `keyStart` (every row
/// before it has end(row) <= keyStart): keyStart - causalOffset, or null
/// when nothing bounds it (row 0). Not clamped.
Value firstRowSeeing(OpBuilder &b, Location loc, Value keyStart,
                     const MaskSpec &spec);

/// The end of the rows that can see a key before `keyEnd` (every row from
/// it on has begin(row) >= keyEnd): keyEnd - windowOffset, or null when
/// nothing bounds it (all rows). Not clamped.
Value rowsSeeingEnd(OpBuilder &b, Location loc, Value keyEnd,
                    const MaskSpec &spec);

/// i1: some row of [firstRow, lastRow] may see some key of
/// [keyStart, keyEnd): end(lastRow) > keyStart and begin(firstRow) < keyEnd.
/// Since begin() and end() only grow with the row, false means that no row
/// of the range sees any key of the block; true may still hold for a range
/// whose rows see nothing (e.g. rows past the key limit). Null when nothing
/// bounds the mask (every row sees every key).
Value rowsMaySeeKeys(OpBuilder &b, Location loc, Value firstRow,
                     Value lastRow, Value keyStart, Value keyEnd,
                     const MaskSpec &spec);

/// i1: key `col` is hidden from query row `row` (col outside
/// [begin(row), end(row))).
Value isHidden(OpBuilder &b, Location loc, Value row, Value col,
               const MaskSpec &spec);

//===----------------------------------------------------------------------===//
// K/V caches (fa.attention's key_lengths and block_table)
//===----------------------------------------------------------------------===//

/// The keys sequence `batch` attends to: clamp(lengths[batch], 0,
/// capacity), for `lengths` an i32 tensor [B] (index result).
Value sequenceKeyCount(OpBuilder &b, Location loc, Value lengths, Value batch,
                       Value capacity);

/// Where key `key` of sequence `batch` is in a page pool: the page
/// table[batch, key / pageSize] and the row key mod pageSize in it. The
/// table column is clamped to the table's last (a key past the table, as a
/// pipelined load issues for a block past the end, reads an entry of the
/// table, never past it; such a load is never issued). Index results.
std::pair<Value, Value> pageOfKey(OpBuilder &b, Location loc, Value table,
                                  Value batch, Value key, int64_t pageSize);

//===----------------------------------------------------------------------===//
// Packed sequences (fa.attention's cu_seqlens)
//===----------------------------------------------------------------------===//

/// Reads element `i` (index) of a cu_seqlens array as an index.
using CuSeqlensReader = function_ref<Value(OpBuilder &, Location, Value)>;

/// The sequence holding row `row` of a packed dimension: the number of
/// t in [1, numSeqs] with cu[t] <= row (an scf.for over the sequences).
Value sequenceOfRow(OpBuilder &b, Location loc, CuSeqlensReader cu,
                    Value numSeqs, Value row);

/// The Q blocks of a packed loop nest (the grid) and how fa.varlen_block
/// numbers them: the walk's ceil(totalRows / blockRows) + numSeqs
/// iterations (perSequence = 0), or, given `maxRows` (fa.attention's
/// max_seqlen_q) and where it is fewer, p * numSeqs with p =
/// max(ceil(maxRows / blockRows), 1) slots a sequence (perSequence = p):
/// exact for equal lengths, where the walk's bound leaves up to numSeqs
/// iterations without rows. Only the arith ops the launch plan's
/// expressions know (docs/launch-plan.md), as its grid and a computed
/// parameter are these values. Without `maxRows`, perSequence is null.
struct VarlenGrid {
  Value blocks, perSequence;
};
VarlenGrid varlenGrid(OpBuilder &b, Location loc, Value totalRows,
                      Value numSeqs, Value maxRows, int64_t blockRows);

/// Where packed sequence `seq` is: rows [start, start + length) of the
/// packed dimension, cu[seq] and cu[seq + 1] - cu[seq] (a negative count
/// read as 0). Past the last sequence (seq >= numSeqs) both reads are
/// cu[numSeqs]: no rows. A null `numSeqs` reads cu[seq] and cu[seq + 1]
/// as they are, for a caller that knows seq < numSeqs.
struct SequenceRows {
  Value start, length;
};
SequenceRows sequenceRows(OpBuilder &b, Location loc, CuSeqlensReader cu,
                          Value numSeqs, Value seq);

/// fa.varlen_block's results, and what its lowerings check.
struct VarlenBlock {
  Value sequence, block;
  /// The sequence's queries (cu_seqlens_q) and keys (cu_seqlens_k).
  SequenceRows queries, keys;
  /// i1: the block has rows of its sequence (null for the walk, where the
  /// caller computes the rows anyway).
  Value hasRows;
  /// i1: the sequence has more than perSequence blocks, which that
  /// numbering cannot reach (an error; false for the walk).
  Value tooLong;
};

/// fa.varlen_block's numbering with `perSequence` p > 0 slots a sequence:
/// block index mod p of sequence index / p; (0, index) and empty ranges
/// past the last sequence. All four offsets are read at once.
VarlenBlock perSequenceBlock(OpBuilder &b, Location loc, CuSeqlensReader cuQ,
                             CuSeqlensReader cuK, Value numSeqs, Value index,
                             Value perSequence, int64_t blockRows);

/// fa.varlen_block: (sequence, block within it) of the `index`-th Q block
/// of `blockRows` rows, the blocks of sequences 0, 1, ... in order (an
/// scf.for over the sequences); (0, index) past the last block; and the
/// sequence's ranges. With a non-null `perSequence`, perSequenceBlock
/// where it is positive (scf.if).
VarlenBlock varlenBlock(OpBuilder &b, Location loc, CuSeqlensReader cuQ,
                        CuSeqlensReader cuK, Value numSeqs, Value index,
                        int64_t blockRows, Value perSequence = Value());

//===----------------------------------------------------------------------===//
// Score modifiers
//===----------------------------------------------------------------------===//

/// Soft-capping: cap * tanh(scale * s); tanh(scale * s) when `cap` is null
/// (the cap then sits in the softmax scale, see fa.softcap).
Value softcap(OpBuilder &b, Location loc, Value score, Value scale,
              Value cap);

//===----------------------------------------------------------------------===//
// The backward pass (natural-log domain, f32)
//===----------------------------------------------------------------------===//

/// P = exp(s - LSE) from the scaled (and capped) score `s` and the row's
/// log-sum-exp; 0 for a row that saw no key (LSE = -inf), where
/// exp(s - LSE) would be exp(-inf + inf) = NaN.
Value probFromLse(OpBuilder &b, Location loc, Value score, Value lse);

/// The softmax gradient of one score: dS = P * (dP - D), with
/// dP = dO . V[j] and D = dO . O = rowsum(dO * O).
Value scoreGrad(OpBuilder &b, Location loc, Value prob, Value gradProb,
                Value rowDot);

/// The tile ops' form (log2 domain, for exp2 on the GPU):
/// P = exp2(scale * s - lseLog2) with lseLog2 = log2(e) * LSE, 0 for a row
/// that saw no key (lseLog2 = -inf). `s` is the raw masked (or capped) score
/// and `scale` the softmax scale times log2(e) (log2(e) for capped scores).
Value probFromLseLog2(OpBuilder &b, Location loc, Value score, Value scale,
                      Value lseLog2);

/// log2(e) * LSE, the operand probFromLseLog2 takes (f32).
Value lseToLog2(OpBuilder &b, Location loc, Value lse);

/// The gradient of one raw score as fa.score_grad defines it:
/// scale * P * (dP - D), times softcapGrad(capped, cap) (0 where the score
/// is hidden, capped = -inf) when `cap` is non-null.
Value rawScoreGrad(OpBuilder &b, Location loc, Value prob, Value gradProb,
                   Value rowDot, Value scale, Value capped, Value cap);

/// The derivative of the soft cap, d(c * tanh(t / c)) / dt, written with
/// its output `capped` = c * tanh(t / c): 1 - (capped / c)^2.
Value softcapGrad(OpBuilder &b, Location loc, Value capped, Value cap);

//===----------------------------------------------------------------------===//
// The online-softmax step (log2 domain; `scale` = softmax scale * log2(e))
//===----------------------------------------------------------------------===//

/// Combines two row-max candidates: IEEE maxNum (a NaN score does not
/// become the max; its exp2 still makes the row NaN).
Value maxOf(OpBuilder &b, Location loc, Value x, Value y);

/// m_new = max(m, scale * rowMax), for the raw row max of one block of
/// scores (scale > 0, so max(scale * s) = scale * max(s)).
Value newRunningMax(OpBuilder &b, Location loc, Value oldMax, Value rowMax,
                    Value scale);

/// The exponent base of a row: m_new, or 0 while the row has seen no key
/// (m_new = -inf), so that exp2 gives 0 instead of NaN.
Value softmaxBase(OpBuilder &b, Location loc, Value newMax);

/// alpha = exp2(m_old - base): the factor that brings the old sum and
/// accumulator to the new max.
Value rescaleFactor(OpBuilder &b, Location loc, Value oldMax, Value base);

/// P = exp2(scale * s - base), as one fused multiply-add and one exp2;
/// `negBase` is -base.
Value expScore(OpBuilder &b, Location loc, Value score, Value scale,
               Value negBase);

/// l_new = alpha * l + rowSum(P), as one fused multiply-add.
Value newRunningSum(OpBuilder &b, Location loc, Value alpha, Value oldSum,
                    Value rowSumOfP);

//===----------------------------------------------------------------------===//
// The one normalisation
//===----------------------------------------------------------------------===//

/// 1 / l, or 0 for a row that saw no key (l = 0): O = acc * (1 / l).
Value inverseSum(OpBuilder &b, Location loc, Value sum);

/// LSE = ln(2) * (m + log2(l)), or -inf for a row that saw no key.
Value logSumExp(OpBuilder &b, Location loc, Value max, Value sum);

//===----------------------------------------------------------------------===//
// Combining splits (split-KV; natural-log domain, as LSE is stored)
//===----------------------------------------------------------------------===//

/// The base the split weights are taken against: the largest split LSE, or
/// 0 when every split is -inf (no key), so that exp gives 0, not NaN.
Value splitsBase(OpBuilder &b, Location loc, Value maxLse);

/// w_s = exp(LSE_s - base): the weight of one split's partial output.
Value splitWeight(OpBuilder &b, Location loc, Value splitLse, Value base);

/// LSE = base + log(W) over the weights' sum W, or -inf when W = 0.
/// (The output is sum_s w_s O_s * inverseSum(W).)
Value combinedLse(OpBuilder &b, Location loc, Value base, Value weightSum);

/// An f32 constant shaped like `like` (scalar or vector splat).
Value floatConstant(OpBuilder &b, Location loc, Type like, double value);

} // namespace semantics
} // namespace fa
} // namespace mlir

#endif // FA_DIALECT_FA_SEMANTICS_ATTENTIONMATH_H
