//===- AtomLowering.h - How an MMA atom's instructions are emitted -*- C++ -*-===//
//
// The code side of an MMA atom. `MmaAtomAttrInterface` (the IR side) says
// which fragments a tile becomes and how a shared tile is laid out; an
// AtomLowering emits the instructions on those fragments: the matmuls, the
// lane exchanges of row reductions, the copies between global memory,
// shared memory and registers. The conversion patterns of --fa-lower-to-gpu
// call it through this interface and never name an instruction family.
//
// Fragment geometry (what the elementwise and per-row patterns need): an
// `acc` tile becomes fragments of `elementsPerAccFragment()` scalars; element
// (f, e) is in row `accRowValue(f, e)` of the thread's per-row values and at
// column `accColumn(f, e)` counted from `threadFirstColumn()`. A `rows`
// vector becomes one scalar per row a thread holds; value i is tile row
// `rowOfRowValue(i)`.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_ATOMS_ATOMLOWERING_H
#define FA_LIB_CONVERSION_FATOGPU_ATOMS_ATOMLOWERING_H

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/IR/Builders.h"

#include <memory>

namespace mlir {
namespace fa {

/// Where a matmul operand is: fragments in registers, or a shared tile at a
/// byte offset of the dynamic shared memory.
struct TileOperand {
  RankedTensorType type;
  ValueRange fragments; // When in registers.
  Value sharedOffset;   // When in shared memory.
  /// A B operand stored [k][n] (matmul) may be read from column
  /// `sharedColumn` on (warp-uniform, a multiple of 16, at most
  /// `maxSharedColumn`): the columns of the executing group's share of an
  /// accumulator whose groups divide its columns. Null: from column 0.
  Value sharedColumn;
  int64_t maxSharedColumn = 0;
  bool inShared() const { return static_cast<bool>(sharedOffset); }
};

/// The rows of a [B, H, N, ...] kernel argument a tile covers: tile row r
/// is `arg[batch, head, row + r]`, or with `alongHeads` (GQA packing of one
/// query position) `arg[batch, head + r, row]`; rows r < count exist.
/// With `col` (rows of a 4-D argument), the tile covers columns [col, col +
/// cols) of those rows (split-KV's merge tiles the columns), else all.
struct TileRows {
  Value batch, head, row, count;
  bool alongHeads = false;
  Value col;
  int64_t cols = 0;
};

class AtomLowering {
public:
  virtual ~AtomLowering() = default;

  /// Emits, at the kernel's entry, the thread geometry every other method
  /// uses (lane, warp, per-lane offsets). `threadId` is gpu.thread_id x of a
  /// block of `replicas` groups of `numWarps` warps (#fa.warp_rows: every
  /// group holds every tile); `dynamicShared` the dynamic shared memory.
  /// Fragment geometry is that of the executing thread's group; the stores
  /// and atomics below are issued by group 0 only, the copies by all.
  virtual void setUp(OpBuilder &b, Location loc, Value threadId,
                     Value dynamicShared, int64_t numWarps,
                     int64_t replicas) = 0;
  /// Runs `body` (which lowers an op on `tile`) with the warp geometry of
  /// `tile`'s layout when it differs from the kernel's: a product whose
  /// accumulator only leaves the kernel (fa.accumulate_rows) may take a
  /// warp grid of its own with the same threads (--fa-map-warps; the
  /// outliner allows it nowhere else), so fa.pv and fa.accumulate_rows
  /// lower through this. Atoms without such tiles run `body` as is.
  virtual void withTileGeometry(OpBuilder &b, Location loc,
                                RankedTensorType tile,
                                function_ref<void()> body) {
    body();
  }

  //===--------------------------------------------------------------------===//
  // Fragment geometry
  //===--------------------------------------------------------------------===//

  virtual int64_t elementsPerAccFragment() const = 0;
  /// The per-row value (of a rows vector of the same tile rows) that element
  /// `elem` of acc fragment `frag` belongs to.
  virtual int64_t accRowValue(RankedTensorType acc, int64_t frag,
                              int64_t elem) const = 0;
  /// Column of element (frag, elem), counted from threadFirstColumn().
  virtual int64_t accColumn(RankedTensorType acc, int64_t frag,
                            int64_t elem) const = 0;
  /// The first tile column this thread holds in every acc fragment row.
  virtual Value threadFirstColumn(OpBuilder &b, Location loc) = 0;
  /// Tile row of per-row value `i` of a tile of `rows` rows.
  virtual Value rowOfRowValue(OpBuilder &b, Location loc, int64_t rows,
                              int64_t i) = 0;
  /// The first tile row of the executing warp's slice of a `rows`-row tile
  /// (warp-uniform), and the slice's row count.
  virtual std::pair<Value, int64_t> warpRowRange(OpBuilder &b, Location loc,
                                                 int64_t rows) = 0;
  /// Element `elem` of an acc fragment, and the fragment with it replaced.
  virtual Value extractAccElement(OpBuilder &b, Location loc, Value frag,
                                  int64_t elem) = 0;
  virtual Value buildAccFragment(OpBuilder &b, Location loc, Type fragType,
                                 ArrayRef<Value> elems) = 0;

  //===--------------------------------------------------------------------===//
  // Lane exchanges
  //===--------------------------------------------------------------------===//

  /// Max or sum of a per-row value over the lanes that hold parts of the row.
  virtual Value reduceAcrossRowLanes(OpBuilder &b, Location loc, Value v,
                                     bool isMax) = 0;
  /// How many lanes hold parts of each acc row (those reduceAcrossRowLanes
  /// combines), and the executing lane's index among them.
  virtual int64_t lanesPerRow() const = 0;
  virtual Value laneInRow(OpBuilder &b, Location loc) = 0;
  /// True in every lane of the warp if `pred` is true in any (warp-uniform).
  virtual Value anyInWarp(OpBuilder &b, Location loc, Value pred) = 0;

  //===--------------------------------------------------------------------===//
  // Replicas (groups of warps holding the same tiles)
  //===--------------------------------------------------------------------===//

  virtual int64_t numReplicas() const = 0;
  /// The executing thread's group, in [0, numReplicas()).
  virtual Value replica(OpBuilder &b, Location loc) = 0;
  /// Each of `values` (f32, one per thread) reduced (max, or sum) over the
  /// threads at the same place in every group, in group order, so that
  /// every group gets the same bits; through the shared memory at
  /// `sharedOffset` (replicaExchangeBytes), barriers before and after.
  virtual SmallVector<Value> reduceAcrossReplicas(OpBuilder &b, Location loc,
                                                  ValueRange values,
                                                  Value sharedOffset,
                                                  bool isMax) = 0;

  //===--------------------------------------------------------------------===//
  // Matmuls (f32 accumulators)
  //===--------------------------------------------------------------------===//

  /// Whether the atom's MMAs cover an [m, k] x [k, n] product exactly;
  /// failure, with a diagnostic at `loc`, if they do not.
  virtual LogicalResult checkMatmulShape(Location loc, int64_t m, int64_t n,
                                         int64_t k) const = 0;

  /// acc + Q K^T for a query operand (registers or shared) and a key tile
  /// in shared memory stored [n][k]. `async` (an async fa.qk): issued and
  /// not waited for; the result is read after waitMatmuls. Atoms whose
  /// matmuls are synchronous ignore it.
  virtual SmallVector<Value> matmulTransposedB(OpBuilder &b, Location loc,
                                               const TileOperand &a,
                                               const TileOperand &bTile,
                                               RankedTensorType accType,
                                               ValueRange acc, bool async) = 0;
  /// acc + P V for P in A-operand registers or in shared memory (stored
  /// [m][k], or [k][m] for a transposed view) and V in shared memory [k][n]
  /// (its columns from `sharedColumn` on); `async` as for
  /// matmulTransposedB.
  virtual SmallVector<Value> matmul(OpBuilder &b, Location loc,
                                    const TileOperand &a,
                                    const TileOperand &bTile,
                                    RankedTensorType accType, ValueRange acc,
                                    bool async) = 0;
  /// The accumulators `acc` of an async matmul once it has completed, with
  /// at most `pending` later async matmuls of the thread still in flight
  /// (fa.mma_wait). The identity for synchronous atoms.
  virtual SmallVector<Value> waitMatmuls(OpBuilder &b, Location loc,
                                         int64_t pending, ValueRange acc) {
    return SmallVector<Value>(acc);
  }

  //===--------------------------------------------------------------------===//
  // Layout conversions
  //===--------------------------------------------------------------------===//

  /// The fragments of `to` for a tile held as `from`; failure if this atom
  /// cannot convert between the two.
  virtual FailureOr<SmallVector<Value>>
  convertLayout(OpBuilder &b, Location loc, const TileOperand &from,
                RankedTensorType to) = 0;

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Bytes of a shared tile of `type` (the atom's shared layout).
  virtual int64_t sharedTileBytes(RankedTensorType type) const = 0;
  /// The alignment, in bytes, of every shared tile (and so of the dynamic
  /// shared memory): 16 for 16-byte copies; more where the hardware
  /// derives a layout from address bits (wgmma's 128-byte swizzle).
  virtual int64_t sharedAlignment() const { return 16; }
  /// All threads of the block start copying the rows `rows` of `source` (a
  /// 4-D memref) into the shared tile at `sharedOffset`, zero-filling the
  /// tile rows past `rows.count`. `l2PrefetchBytes` (0, or 64/128/256:
  /// fa.async_load's l2_prefetch) is the L2 prefetch size each copy asks for.
  virtual void copyTileAsync(OpBuilder &b, Location loc, Value source,
                             const TileRows &rows, RankedTensorType tile,
                             Value sharedOffset,
                             int64_t l2PrefetchBytes) = 0;
  /// TMA (fa.async_load {tma}): the copies of rows `rows` of the tensor
  /// that the tensor map `map` (!llvm.ptr to the 128-byte map, box: the
  /// tile's rows x 64 columns, 128-byte swizzle) describes into the shared
  /// tile at `sharedOffset`, completing on the mbarrier `barrier`
  /// (!llvm.ptr<3>). Issued by the calling thread alone. Fails for an atom
  /// whose shared layout TMA does not write.
  virtual LogicalResult copyTileByTma(OpBuilder &b, Location loc, Value map,
                                      const TileRows &rows,
                                      RankedTensorType tile,
                                      Value sharedOffset, Value barrier) {
    return failure();
  }
  /// Zeroes rows [fromRow, rows) of the shared tile of `tile` at
  /// `sharedOffset` (rows a TMA box brought past the loaded ones), every
  /// thread of the block taking a share; the caller orders them before
  /// the reads. Only atoms with TMA copies can.
  virtual LogicalResult zeroTileRows(OpBuilder &b, Location loc,
                                     RankedTensorType tile, Value sharedOffset,
                                     Value fromRow) {
    return failure();
  }
  /// `sharedOffset` (bytes into the dynamic shared memory) as an
  /// !llvm.ptr<3> (an mbarrier's address).
  virtual Value sharedPointer(OpBuilder &b, Location loc,
                              Value sharedOffset) = 0;
  /// Closes the copies issued so far into one group.
  virtual void commitCopies(OpBuilder &b, Location loc) = 0;
  /// Waits until at most `pending` groups are in flight, then makes the
  /// shared tiles visible to (and their previous reads done by) all threads.
  virtual void waitCopies(OpBuilder &b, Location loc, int64_t pending) = 0;
  /// Stores rows [0, rows.count) of an acc tile held in `frags` to the rows
  /// `rows` of `dest` (4-D memref), going through the shared tile at
  /// `stagingOffset` (which every warp must be done with).
  virtual void storeAccTile(OpBuilder &b, Location loc, RankedTensorType acc,
                            ValueRange frags, Value dest, const TileRows &rows,
                            Value stagingOffset) = 0;
  /// Stores rows [0, rows.count) of a tile whose every element is `value`
  /// (a splat constant: the backward's zeroed dq_accum) to the rows `rows`
  /// of `dest`: no fragments and no staging, every thread of the block
  /// stores vectors of it along the rows.
  virtual void storeSplatTile(OpBuilder &b, Location loc,
                              RankedTensorType tile, Value value, Value dest,
                              const TileRows &rows) = 0;
  /// Every warp's acc fragments (16-bit) of a tile written into the shared
  /// tile at `sharedOffset`, which every thread then reads: barriers before
  /// (the tile's previous readers are done) and after.
  virtual void storeAccToShared(OpBuilder &b, Location loc,
                                RankedTensorType acc, ValueRange frags,
                                Value sharedOffset) = 0;
  /// Adds, atomically, the elements of an f32 acc tile in tile rows
  /// [0, rows.count) (tile columns, when `transposed`) into the rows `rows`
  /// of `dest` (4-D f32 memref), element (r, c) at column c (at row c and
  /// column r, when `transposed`). With `fragmentOrder` (whole tiles that
  /// span dest's last dimension) element i of thread t's fragments goes to
  /// position i * T + t of the block of rows instead (fa.accumulate_rows).
  virtual void accumulateAccTile(OpBuilder &b, Location loc,
                                 RankedTensorType acc, ValueRange frags,
                                 Value dest, const TileRows &rows,
                                 bool transposed, bool fragmentOrder) = 0;
  /// The acc fragments of rows `rows` of `source` (4-D f32 memref), rows
  /// past `rows.count` equal to `pad`: a tile read straight into registers.
  /// With `fragmentOrder`, a whole block that accumulateAccTile wrote in
  /// fragment order with the same layout (`pad` unused).
  virtual SmallVector<Value> loadAccTile(OpBuilder &b, Location loc,
                                         Value source, const TileRows &rows,
                                         RankedTensorType acc, Value pad,
                                         bool fragmentOrder) = 0;
  /// Stores rows [0, rows.count) of a per-row vector to the rows `rows` of
  /// `dest` (3-D memref).
  virtual void storeRows(OpBuilder &b, Location loc, RankedTensorType rowsTy,
                         ValueRange values, Value dest,
                         const TileRows &rows) = 0;
};

/// A PTX statement without operands or results, kept in place for its side
/// effect (a fence: fence.proxy.async, fence.mbarrier_init).
void createAsmStatement(OpBuilder &b, Location loc, StringRef text);

/// The lowering of #fa.wgmma (Wgmma.cpp).
std::unique_ptr<AtomLowering> createWgmmaLowering();

/// The lowering of `atom`, or null for an atom without one.
std::unique_ptr<AtomLowering> createAtomLowering(MmaAtomAttrInterface atom);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_ATOMS_ATOMLOWERING_H
