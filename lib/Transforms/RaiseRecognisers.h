//===- RaiseRecognisers.h - The pieces matchAttention is made of -*- C++ -*-===//
//
// Internal to --fa-raise-attention: the recognisers AttentionMatchers.cpp
// combines into matchAttention, one file per kind of IR they read.
//
//   RaiseValueTracing.cpp  constants, linalg ops by shape, and "points": a
//                          scalar of one op's body with what that op's loops
//                          mean in the score domain, followed into producers
//   RaiseMasks.cpp         masks as bands around the diagonal: index
//                          comparisons, selects, additive and i1 constants
//   RaiseSoftmax.cpp       contractions (Q K^T, P V), row reductions and the
//                          softmax between them
//
// Everything reads the LinalgOp interface (maps, iterator types, bodies), so
// named ops and their linalg.generic forms are read alike. Nothing here
// changes IR.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_TRANSFORMS_RAISERECOGNISERS_H
#define FA_LIB_TRANSFORMS_RAISERECOGNISERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"

#include <limits>
#include <optional>

namespace mlir {
namespace fa {
namespace raise {
namespace detail {

//===----------------------------------------------------------------------===//
// Constants and ops by shape (RaiseValueTracing.cpp)
//===----------------------------------------------------------------------===//

/// The value of a float scalar constant (arith.constant).
std::optional<double> scalarConstant(Value v);

/// The scalar a tensor is filled with: linalg.fill, or its generalized form
/// (a parallel generic yielding a scalar input); null otherwise.
Value filledScalar(Value t);

/// The value every element of tensor `t` holds when it is a splat constant
/// or a fill of a constant.
std::optional<double> tensorConstant(Value t);

/// An i1 tensor every element of which is true: a splat constant or a fill.
bool isAllTrueTensor(Value t);

/// -inf, or (with `finfoMin`) the lowest finite value of `type` (what
/// `torch.finfo(t).min` masks use): both make exp(s - max) exactly 0 for
/// any score a row that still sees a key can have.
bool isMaskingValue(double value, Type type, bool finfoMin = true);

/// A LinalgOp on tensors with one init and one result, or null.
linalg::LinalgOp singleResultLinalg(Operation *op);

/// The producer of `t` when all its loops are parallel and it writes `t`
/// through the identity map (one output element per loop point), or null.
linalg::LinalgOp elementwiseProducer(Value t);

/// The value the body of a single-result linalg op yields.
Value yieldedValue(linalg::LinalgOp op);

/// Looks through float extensions and truncations.
Value stripCasts(Value v);

/// The input operand a body block argument of `op` reads, or null (an init
/// argument or a value from elsewhere).
OpOperand *inputOperandOf(linalg::LinalgOp op, Value v);

//===----------------------------------------------------------------------===//
// Points and index forms (RaiseValueTracing.cpp)
//===----------------------------------------------------------------------===//

/// An index as a linear form `i * qi + j * kj + c` of the score domain's
/// query row i and key j.
struct Lin {
  int64_t i = 0, j = 0, c = 0;
};

/// What each loop of an op means in the score domain (nullopt: a batch loop,
/// or anything that is not a linear form of i and j).
using Env = SmallVector<std::optional<Lin>>;

/// A scalar SSA value of one op's body, with that op's loop meanings.
struct Point {
  Value v;
  // Mutable: the interface's accessors are not const.
  mutable linalg::LinalgOp op;
  Env env;
};

/// The form of an affine expression of the loops of an op in `env`.
std::optional<Lin> linOfExpr(AffineExpr e, const Env &env);

/// The environment of the scores' own loops: batch loops, then i, then j.
Env scoreEnv(unsigned rank);

/// Follows `p` when it is a block argument reading a tensor that an
/// all-parallel identity-output op produced (possibly through static
/// reshapes): the point its body yields, with its loops' index forms.
std::optional<Point> enterProducer(const Point &p);

/// True when `p` reads a whole score-domain tensor element by element (sets
/// `tensor` to it).
bool readsIdentity(const Point &p, Value *tensor = nullptr);

/// Strips casts, then enters single-use elementwise producers read through
/// the identity map, as far as they go.
Point lookThrough(Point p);

/// The constant a point holds (a scalar constant, or an element of a
/// constant tensor whatever the map).
std::optional<double> constantOf(const Point &p);

/// An integer index as a linear form of i and j.
std::optional<Lin> linOfValue(const Point &p);

//===----------------------------------------------------------------------===//
// Masks (RaiseMasks.cpp)
//===----------------------------------------------------------------------===//

/// What a mask leaves visible: a band around the diagonal, row i sees key
/// j iff i - j <= left and j - i <= right. Causal is {kNoBound, 0}; a
/// sliding window of w keys with causal is {w, 0}.
constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();
struct Band {
  int64_t left = kNoBound, right = kNoBound;
};

/// Both masks applied: what each leaves visible.
Band intersect(Band a, Band b);

/// The score matrix a mask applies to.
struct MaskDomain {
  int64_t nq, nk; // static, or a constant mask is not read
  bool finfoMin;  // the lowest finite value masks like -inf
};

/// A boolean-valued point as a band: a comparison of indices, a negation, a
/// conjunction of visible sides (or disjunction of masked ones), or an
/// element of a (constant or generated) i1 tensor; visible where it is
/// `visibleWhenTrue`.
std::optional<Band> classifyPredicate(const Point &p, MaskDomain dom,
                                      bool visibleWhenTrue);

/// An additive mask term: 0 where visible, a masking value elsewhere. As a
/// select between two constants, or an element of a constant or generated
/// tensor.
std::optional<Band> classifyAdditiveMask(const Point &p, MaskDomain dom);

//===----------------------------------------------------------------------===//
// Contractions, row reductions, softmax (RaiseSoftmax.cpp)
//===----------------------------------------------------------------------===//

/// `out = lhs x rhs` over batch dims, each tensor's dims in any order
/// (einsum `bqhd,bkhd->bhqk`, a batch_matmul with transposed maps, ...). The
/// batch loops take one order (`BatchOrder`); each operand's dims are listed
/// for the roles [batch..., m, k] (lhs), [batch..., n, k] (rhs) and
/// [batch..., m, n] (result).
///
/// One batch loop may be missing from rhs (a second m loop, in linalg's
/// terms): the einsum form of GQA, `bkgqd,bksd->bkgqs`, where each K/V head
/// serves a group of query heads. It is `groupRole` (its index among the
/// batch loops), and rhsDims lists the other batch roles only.
struct Contraction {
  linalg::LinalgOp op;
  Value lhs, rhs;
  unsigned batchRank = 0;
  SmallVector<int64_t> lhsDims, rhsDims, outDims;
  std::optional<unsigned> groupRole;
  int64_t groupSize = 1;
};

/// Whose layout orders the batch loops, and must end with its two
/// non-batch dims: the result's (the scores, Q K^T) or the lhs's (P, in
/// P V: the scores' layout again).
enum class BatchOrder { Result, Lhs };

/// `maybeOp` as a contraction with a zero-filled init and a body
/// `acc + cast(a) * cast(b)`.
std::optional<Contraction> matchContraction(Operation *maybeOp,
                                            BatchOrder order);

enum class RowKind { Max, Sum, All };

/// `p` reads the per-row tensor produced by a reduction of `kind` (max with
/// a masking init, sum from 0, `and` from true) through the map the
/// reduction wrote it with; returns the reduced tensor.
std::optional<Value> readsRowReduce(const Point &p, RowKind kind);

/// Steps back from `p` through multiplications and divisions by constants
/// (`x * c`, `c * x`, `x / c`), multiplying their factors into `factor`.
/// False when a factor is not finite and positive.
bool peelConstantFactors(Point &p, double &factor);

/// softmax over the last dim of c X, named or decomposed into
/// M = rowmax(X), E = exp(c (X - M)), L = rowsum(E), P = E / L. Returns X
/// and sets `factor` to c. `extraReader`: one more op allowed to read X.
std::optional<Value> matchSoftmax(Value p, Operation *extraReader,
                                  double &factor);

} // namespace detail
} // namespace raise
} // namespace fa
} // namespace mlir

#endif // FA_LIB_TRANSFORMS_RAISERECOGNISERS_H
