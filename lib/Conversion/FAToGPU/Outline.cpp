//===- Outline.cpp - A warp-mapped loop nest -> gpu.func + launch ---------===//

#include "Outline.h"

#include "IndexMaterializer.h"
#include "KernelLowering.h"

#include "fa/Dialect/FA/IR/FA.h"
#include "fa/Transforms/TiledAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

std::string mlir::fa::ptxIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id.push_back(llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_');
  if (id.empty() || llvm::isDigit(id.front()))
    id.insert(id.begin(), '_');
  return id;
}

namespace {

/// The kernel parameter type for a tensor: any sizes and strides but the
/// innermost ones (a static row length, contiguous rows).
MemRefType kernelArgType(RankedTensorType tensorTy) {
  int64_t dyn = ShapedType::kDynamic;
  int64_t rank = tensorTy.getRank();
  SmallVector<int64_t> shape(rank, dyn), strides(rank, dyn);
  shape.back() = tensorTy.getShape().back();
  strides.back() = 1;
  return MemRefType::get(shape, tensorTy.getElementType(),
                         StridedLayoutAttr::get(tensorTy.getContext(), dyn,
                                                strides));
}

/// The kernel parameter type for a buffer the launch plan allocates (a
/// workspace: contiguous, row-major): dynamic sizes but the static trailing
/// ones, and the identity layout, whose strides over static dims are
/// constants (the atomics into the backward's dq_accum then address a row
/// from one base with immediate offsets).
MemRefType contiguousArgType(RankedTensorType tensorTy) {
  SmallVector<int64_t> shape(tensorTy.getShape());
  for (int64_t i = 0, e = shape.size(); i + 1 < e; ++i)
    shape[i] = ShapedType::kDynamic;
  return MemRefType::get(shape, tensorTy.getElementType());
}

/// Whether a memref the nest reads and writes in place will be a workspace
/// of the launch plan, which the runtime allocates itself, contiguous
/// (docs/launch-plan.md): the buffer of a tensor.empty of the host code
/// that a later loop nest of the same block reads (through
/// bufferization.to_tensor of it). A buffer the caller could pass in, with
/// any strides, keeps the general parameter type.
bool isWorkspaceBuffer(Value m, scf::ForallOp nest) {
  if (!launchTensorRoot(m).getDefiningOp<tensor::EmptyOp>())
    return false;
  while (auto cast = m.getDefiningOp<memref::CastOp>())
    m = cast.getSource();
  auto readLater = [&](Operation *reader) {
    Operation *loop = reader;
    while (loop && !isa<scf::ForallOp>(loop))
      loop = loop->getParentOp();
    return loop && loop != nest && loop->getBlock() == nest->getBlock() &&
           nest->isBeforeInBlock(loop);
  };
  return llvm::any_of(m.getUsers(), [&](Operation *user) {
    auto toTensor = dyn_cast<bufferization::ToTensorOp>(user);
    return toTensor && llvm::any_of(toTensor->getUsers(), readLater);
  });
}

/// Whether a tensor a nest reads is the sums of a workspace (the
/// bufferization.to_tensor of a buffer isWorkspaceBuffer would call one:
/// the atomic dQ's rounding nest reading dq_accum), which the runtime
/// allocates contiguous, so it can take the identity layout too.
bool isWorkspaceSums(Value t) {
  auto toTensor = t.getDefiningOp<bufferization::ToTensorOp>();
  return toTensor &&
         launchTensorRoot(toTensor.getBuffer()).getDefiningOp<tensor::EmptyOp>();
}

/// Follows a tile value through the score ops and layout changes to the
/// backward op that consumes it: the fa.probs_from_lse of a score product,
/// the fa.score_grad (as dP) of a gradient product, or null (a forward
/// product).
Operation *backwardConsumer(Value scores) {
  SmallVector<Value> work = {scores};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ProbsFromLseOp>(user) ||
          (isa<ScoreGradOp>(user) && use.getOperandNumber() == 1))
        return user;
      if (isa<MaskOp, SoftcapOp>(user) && use.getOperandNumber() == 0)
        work.push_back(user->getResult(0));
    }
  }
  return nullptr;
}

bool isTransposed(Operation *op) {
  if (auto p = dyn_cast<ProbsFromLseOp>(op))
    return p.getTransposed();
  return cast<ScoreGradOp>(op).getTransposed();
}

/// The role of operand `n` of an fa.qk: the forward's and the backward's
/// score product S = Q K^T (or S^T = K Q^T) and the backward's
/// dP = dO V^T (or dP^T = V dO^T).
StringRef qkOperandRole(QKOp qk, unsigned n) {
  Operation *consumer = backwardConsumer(qk.getScores());
  bool transposed = consumer && isTransposed(consumer);
  bool first = (n == 0) != transposed;
  if (consumer && isa<ScoreGradOp>(consumer))
    return first ? "do" : "v";
  return first ? "q" : "k";
}

/// Whether an fa.pv multiplies a backward tile (P^T, dS or dS^T), whose
/// value operand is named by its other uses.
bool isBackwardProduct(PVOp pv) {
  Value probs = pv.getProbs();
  while (Operation *def = probs.getDefiningOp()) {
    if (!isa<ConvertLayoutOp, arith::TruncFOp>(def))
      return isa<ProbsFromLseOp, ScoreGradOp>(def);
    probs = def->getOperand(0);
  }
  return false;
}

/// "q", "k" or "v" when tiles loaded from `tensor` reach the query or key of
/// an fa.qk or the value of an fa.pv (through loads, futures, loops and
/// layout changes); "partial_o" or "partial_lse" for split-KV's partial
/// results read by fa.combine_splits.
/// Whether `v` is one of the buffers fa.accumulate_rows adds into, or a
/// tensor of one (bufferization.to_tensor of it, or the tensor it is the
/// to_buffer of): the atomic dQ's f32 sums.
bool isAccumulatedBuffer(Value v, const AccumulatedBuffers &accumulated) {
  if (auto toTensor = v.getDefiningOp<bufferization::ToTensorOp>())
    v = toTensor.getBuffer();
  if (isa<MemRefType>(v.getType()))
    return accumulated.contains(v);
  return llvm::any_of(v.getUsers(), [&](Operation *user) {
    auto toBuffer = dyn_cast<bufferization::ToBufferOp>(user);
    return toBuffer && accumulated.contains(toBuffer.getResult());
  });
}

std::optional<StringRef> inputRole(Value tensor,
                                   const AccumulatedBuffers &accumulated) {
  if (isAccumulatedBuffer(tensor, accumulated))
    return StringRef("dq_accum");
  SmallVector<std::pair<Value, int64_t>> work = {{tensor, -1}};
  DenseSet<std::pair<Value, int64_t>> seen;
  while (!work.empty()) {
    auto [v, index] = work.pop_back_val();
    if (!seen.insert({v, index}).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      unsigned n = use.getOperandNumber();
      // Read element by element: packed sequences' offsets (cu_seqlens,
      // read by fa.varlen_block), a K/V cache's per-sequence key counts
      // [B] or its block table [B, max_pages] (AttentionMath.h).
      if (auto block = dyn_cast<VarlenBlockOp>(user); block && v == tensor)
        return StringRef(v == block.getCuSeqlensQ() ? "cu_seqlens_q"
                                                    : "cu_seqlens_k");
      if (auto extract = dyn_cast<tensor::ExtractOp>(user); extract && v == tensor) {
        if (extract.getIndices().size() == 2)
          return StringRef("block_table");
        return StringRef("key_lengths");
      }
      if (isa<tensor::ExtractSliceOp, tensor::PadOp, ConvertLayoutOp>(user) &&
          n == 0) {
        work.push_back({user->getResult(0), -1});
      } else if (auto load = dyn_cast<AsyncLoadOp>(user)) {
        if (n < load.getSources().size())
          work.push_back({load.getFuture(), n});
      } else if (auto await = dyn_cast<AwaitOp>(user)) {
        if (index >= 0 && index < await.getNumResults())
          work.push_back({await.getResult(index), -1});
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (n >= 3) {
          work.push_back({loop.getRegionIterArg(n - 3), index});
          work.push_back({loop->getResult(n - 3), index});
        }
      } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp())) {
          work.push_back({loop.getRegionIterArg(n), index});
          work.push_back({loop->getResult(n), index});
        }
      } else if (auto qk = dyn_cast<QKOp>(user)) {
        return qkOperandRole(qk, n);
      } else if (auto pv = dyn_cast<PVOp>(user); pv && n == 1) {
        if (!isBackwardProduct(pv))
          return StringRef("v");
      } else if (isa<ProbsFromLseOp>(user) && n == 1) {
        return StringRef("lse");
      } else if (isa<ScoreGradOp>(user) && n == 2) {
        return StringRef("delta");
      } else if (isa<RowDotOp>(user)) {
        return n == 0 ? StringRef("do") : StringRef("o");
      } else if (isa<CombineSplitsOp>(user)) {
        return n == 0 ? StringRef("partial_o") : StringRef("partial_lse");
      }
    }
  }
  return std::nullopt;
}

/// "o" or "lse" for a shared output the terminator stores fa.finalize's
/// (or fa.combine_splits') output tile or LSE into.
std::optional<StringRef> outputRole(scf::ForallOp forall, unsigned i,
                                    const AccumulatedBuffers &accumulated) {
  if (isAccumulatedBuffer(forall.getResult(i), accumulated))
    return StringRef("dq_accum"); // The D nest zeroes it.
  for (Operation &op : forall.getTerminator().getYieldingOps()) {
    auto store = dyn_cast<tensor::ParallelInsertSliceOp>(op);
    if (!store || store.getDest() != forall.getRegionIterArgs()[i])
      continue;
    Value source = store.getSource();
    if (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>())
      source = slice.getSource();
    if (auto finalize = source.getDefiningOp<FinalizeOp>())
      return source == finalize.getOut() ? StringRef("o") : StringRef("lse");
    if (auto combine = source.getDefiningOp<CombineSplitsOp>())
      return source == combine.getOut() ? StringRef("o") : StringRef("lse");
    if (source.getDefiningOp<RowDotOp>())
      return StringRef("delta");
    // A backward gradient: its accumulator, rounded, out of its loops; named
    // by what the fa.pv adding into it multiplies.
    if (auto trunc = source.getDefiningOp<arith::TruncFOp>())
      source = trunc.getIn();
    // The atomic dQ's rounding nest: dQ is its f32 sums, rounded.
    if (auto read = source.getDefiningOp<ReadRowsOp>())
      if (isAccumulatedBuffer(read.getSums(), accumulated))
        return StringRef("dq");
    while (auto result = dyn_cast<OpResult>(source)) {
      auto loop = dyn_cast<scf::ForOp>(result.getOwner());
      if (!loop)
        break;
      source = loop.getYieldedValues()[result.getResultNumber()];
    }
    if (auto pv = source.getDefiningOp<PVOp>(); pv && isBackwardProduct(pv)) {
      Value probs = pv.getProbs();
      while (isa_and_nonnull<ConvertLayoutOp, arith::TruncFOp>(
          probs.getDefiningOp()))
        probs = probs.getDefiningOp()->getOperand(0);
      if (probs.getDefiningOp<ProbsFromLseOp>())
        return StringRef("dv");
      return probs.getDefiningOp<ScoreGradOp>().getTransposed()
                 ? StringRef("dk")
                 : StringRef("dq");
    }
  }
  return std::nullopt;
}

/// `v` is operand `n` of some `OpTy`.
template <typename OpTy>
bool usedAs(Value v, unsigned n) {
  return llvm::any_of(v.getUses(), [&](OpOperand &use) {
    return isa<OpTy>(use.getOwner()) && use.getOperandNumber() == n;
  });
}

bool usedAsSoftmaxScale(Value v) {
  return llvm::any_of(v.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    return (isa<OnlineSoftmaxOp>(user) && use.getOperandNumber() == 3) ||
           (isa<RunningMaxOp>(user) && use.getOperandNumber() == 2) ||
           (isa<SoftmaxExpOp>(user) && use.getOperandNumber() == 4);
  });
}

/// Names unique within the plan: the role, or `fallback<i>`.
std::string uniqueName(std::optional<StringRef> role, StringRef fallback,
                       size_t i, StringSet<> &taken) {
  std::string name =
      role ? role->str() : (fallback + Twine(i)).str();
  for (int k = 1; taken.contains(name); ++k)
    name = (role ? role->str() : fallback.str()) + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

/// The integer and index arguments of the host function that the index
/// value `v` is computed from (through scalar arithmetic), e.g. split-KV's
/// run-time split count in a chunk size.
void collectIndexArguments(Value v, SetVector<Value> &args) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!x.getType().isIntOrIndex() || !seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        args.insert(arg);
      continue;
    }
    for (Value operand : x.getDefiningOp()->getOperands())
      work.push_back(operand);
  }
}

/// The plan's name of an integer argument of the host function: its role
/// (`num_splits`, --fa-split-kv splits=0; `max_seqlen_q`, marked by
/// --fa-tile-q-outer), else none.
std::optional<StringRef> indexArgumentRole(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
                  : FunctionOpInterface();
  if (!func)
    return std::nullopt;
  for (StringRef role : {"num_splits", "max_seqlen_q"})
    if (func.getArgAttr(arg.getArgNumber(), ("fa." + role).str()))
      return role;
  return std::nullopt;
}

class Outliner {
public:
  Outliner(scf::ForallOp forall, ModuleOp module, StringRef chip,
           unsigned indexBitwidth, const AccumulatedBuffers &accumulated)
      : forall(forall), module(module), loc(forall.getLoc()),
        accumulated(accumulated) {
    nest.forall = forall;
    nest.plan.chip = chip.str();
    nest.plan.indexBitwidth = indexBitwidth;
    this->indexBitwidth = indexBitwidth;
  }

  FailureOr<OutlinedLoopNest> run();

private:
  InFlightDiagnostic error() {
    return mlir::emitError(loc, "fa-lower-to-gpu: ");
  }
  LogicalResult readMapping();
  LogicalResult readWarps();
  LogicalResult classifyCaptured();
  LogicalResult buildKernel();
  LogicalResult planGrid();
  /// Names the integer inputs (indexArgs) not named yet, in the plan's
  /// inputs and in tensorNames (for expressions).
  void nameIndexArguments();

  scf::ForallOp forall;
  ModuleOp module;
  unsigned indexBitwidth;
  Location loc;
  OutlinedLoopNest nest;
  const AccumulatedBuffers &accumulated;

  SmallVector<gpu::Dimension> dims; // Of each forall induction variable.
  SmallVector<Value> tensorParams, memrefParams, scalarParams, indexValues,
      constants;
  // Integer arguments of the host function the nest's index values (or its
  // grid) are computed from: the plan's integer inputs, which the caller
  // passes (a run-time split count).
  SetVector<Value> indexArgs;
  // Captured index values computed from them (or such an argument itself):
  // scalar parameters the runtime computes from the plan's expressions, so
  // that the kernel does not redo host arithmetic on a run-time value (a
  // division by the split count, e.g., which also costs ptxas a slower K/V
  // loop: docs/performance.md).
  SetVector<Value> derivedParams;
  DenseMap<Value, std::string> tensorNames; // And the integer inputs'.
  StringSet<> taken;                         // The plan's names.
  unsigned computedScalars = 0;              // index<i> parameters named.
};

void Outliner::nameIndexArguments() {
  for (Value arg : indexArgs) {
    if (tensorNames.count(arg))
      continue;
    std::string name =
        uniqueName(indexArgumentRole(arg), "input", nest.plan.inputs.size(),
                   taken);
    tensorNames[arg] = name;
    nest.plan.inputs.push_back(LaunchPlan::Scalar{name, arg.getType(), {}, {}});
    nest.inputArgs.push_back(arg);
  }
}

LogicalResult Outliner::readMapping() {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return error() << "the loop nest has no grid mapping; run --fa-map-warps "
                      "first";
  if (forall.getRank() > 3)
    return error() << "a grid has at most 3 dimensions, the loop nest has "
                   << forall.getRank();
  if (static_cast<int64_t>(mapping->size()) != forall.getRank())
    return error() << "the mapping names " << mapping->size()
                   << " grid dimensions for " << forall.getRank() << " loops";
  for (Attribute attr : *mapping) {
    auto block = dyn_cast<gpu::GPUBlockMappingAttr>(attr);
    if (!block || block.getBlock() > gpu::MappingId::DimZ)
      return error() << "the loop nest must be mapped to #gpu.block<x|y|z>, "
                        "got "
                     << attr;
    auto dim = static_cast<gpu::Dimension>(block.getBlock());
    if (llvm::is_contained(dims, dim))
      return error() << "two loops of the nest are mapped to the same grid "
                        "dimension: "
                     << *mapping;
    dims.push_back(dim);
  }
  return success();
}

/// Whether a tile held by a warp grid other than its kernel's is where the
/// lowering runs it on its own grid (AtomLowering::withTileGeometry): a
/// product's accumulator, made by a constant or an fa.pv and used only as
/// an fa.pv's accumulator or by fa.accumulate_rows (the atomic dQ's).
static bool mayHoldOwnGrid(Value tile) {
  Operation *def = tile.getDefiningOp();
  if (!isa_and_nonnull<arith::ConstantOp, PVOp>(def))
    return false;
  return llvm::all_of(tile.getUses(), [](OpOperand &use) {
    if (auto pv = dyn_cast<PVOp>(use.getOwner()))
      return use.get() == pv.getAcc() && use.getOperandNumber() == 2;
    return isa<AccumulateRowsOp>(use.getOwner());
  });
}

LogicalResult Outliner::readWarps() {
  // The kernel's grid is that of its first tile that must be on it (the
  // first tile when every one may have its own); every other grid has the
  // kernel's threads.
  SmallVector<Value> tiles;
  WarpRowsAttr kernelGrid;
  forall.getBody()->walk([&](Operation *op) {
    for (Value v : op->getResults()) {
      auto rows = dyn_cast_or_null<WarpRowsAttr>(getTileEncoding(v.getType()));
      if (!rows)
        continue;
      tiles.push_back(v);
      if (!kernelGrid && !mayHoldOwnGrid(v))
        kernelGrid = rows;
    }
  });
  if (tiles.empty())
    return error() << "the loop nest has no warp layout; run --fa-map-warps "
                      "first";
  if (!kernelGrid)
    kernelGrid = cast<WarpRowsAttr>(getTileEncoding(tiles.front().getType()));
  nest.numWarps = kernelGrid.getNumWarps();
  nest.replicas = kernelGrid.getReplicas();
  for (Value tile : tiles) {
    auto rows = cast<WarpRowsAttr>(getTileEncoding(tile.getType()));
    if (rows.getNumWarps() == nest.numWarps &&
        rows.getReplicas() == nest.replicas)
      continue;
    if (rows.getNumWarps() * rows.getReplicas() != nest.threads() / 32)
      return error() << "all tiles of one kernel must be held by the same "
                        "number of warps (num_warps x replicas), got "
                     << nest.numWarps << " x " << nest.replicas << " and "
                     << rows.getNumWarps() << " x " << rows.getReplicas()
                     << " (" << tile.getType() << ")";
    if (!mayHoldOwnGrid(tile))
      return error() << "tile " << tile.getType()
                     << " is held by a warp grid other than the kernel's ("
                     << rows.getNumWarps() << " x " << rows.getReplicas()
                     << " warps against " << nest.numWarps << " x "
                     << nest.replicas
                     << "): only a product's accumulator that leaves the "
                        "kernel through fa.accumulate_rows may have its own";
  }
  return success();
}

LogicalResult Outliner::classifyCaptured() {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(forall.getRegion(), captured);
  for (Value v : captured) {
    Type t = v.getType();
    Operation *def = v.getDefiningOp();
    bool feedsFAOp = llvm::any_of(v.getUsers(), [](Operation *user) {
      return isa<FADialect>(user->getDialect());
    });
    if (isa<FloatType>(t) &&
        (feedsFAOp || !def || !def->hasTrait<OpTrait::ConstantLike>())) {
      // The scale and the cap even when constant: one kernel then serves
      // every value.
      scalarParams.push_back(v);
    } else if (def && def->hasTrait<OpTrait::ConstantLike>()) {
      constants.push_back(v);
    } else if (auto tensor = dyn_cast<RankedTensorType>(t);
               tensor && !tensor.getEncoding() && tensor.getRank() >= 1) {
      tensorParams.push_back(v);
    } else if (auto memref = dyn_cast<MemRefType>(t);
               memref && isAccumulatedBuffer(v, accumulated) && memref.getRank() >= 1 &&
               memref.getLayout().isIdentity()) {
      // A buffer the nest adds into (the atomic dQ's sums): read and
      // written in place. The plan names it through the tensor it is the
      // buffer of (a workspace, or the caller's tensor).
      Value root = v;
      while (auto cast = root.getDefiningOp<memref::CastOp>())
        root = cast.getSource();
      if (!isa<BlockArgument>(root) &&
          !root.getDefiningOp<bufferization::ToBufferOp>())
        return error() << "the buffer fa.accumulate_rows adds into must be "
                          "an argument of the function or a "
                          "bufferization.to_buffer of a tensor (a workspace "
                          "or the caller's), got "
                       << v;
      memrefParams.push_back(v);
    } else if (t.isIntOrIndex()) {
      // Index arithmetic on tensor sizes is recomputed in the kernel; what
      // the host computes from its own integer arguments comes in as a
      // scalar parameter.
      SetVector<Value> args;
      collectIndexArguments(v, args);
      if (args.empty()) {
        indexValues.push_back(v);
      } else {
        indexArgs.insert(args.begin(), args.end());
        derivedParams.insert(v);
      }
    } else {
      return error() << "the loop nest uses a value of type " << t
                     << " from outside that a kernel cannot take";
    }
  }
  llvm::append_range(scalarParams, derivedParams);
  return success();
}

/// The kernel writes its outputs into the buffers of the nest's
/// destination tensors (replaceWithLaunch). That is right only where
/// nothing else reads the destination's contents: besides this operand,
/// only tensor.dim uses (not also an input, another op's destination or a
/// result of the function), in the region that defines it (not a value a
/// loop around the nest keeps reading). Any other destination is copied
/// into a fresh tensor first, as one-shot bufferization would, and the
/// nest writes the copy.
Value writableDestination(scf::ForallOp forall, unsigned i) {
  OpOperand &operand = forall.getOutputsMutable()[i];
  Value dest = operand.get();
  bool onlyWriter = llvm::all_of(dest.getUses(), [&](OpOperand &use) {
    return &use == &operand || isa<tensor::DimOp>(use.getOwner());
  });
  if (onlyWriter && dest.getParentRegion() == forall->getParentRegion())
    return dest;
  OpBuilder b(forall);
  Value copy = bufferization::AllocTensorOp::create(
      b, forall.getLoc(), cast<RankedTensorType>(dest.getType()),
      ValueRange(), dest);
  operand.set(copy);
  return copy;
}

LogicalResult Outliner::buildKernel() {
  MLIRContext *ctx = forall.getContext();
  // Parameters: the tensors read, the shared outputs, the scalars.
  SmallVector<Type> argTypes;
  // q, k, v first (as fa.attention lists them), then any other input.
  auto rank = [&](Value t) {
    std::optional<StringRef> role = inputRole(t, accumulated);
    return role == "q" ? 0 : role == "k" ? 1 : role == "v" ? 2 : 3;
  };
  llvm::stable_sort(tensorParams,
                    [&](Value a, Value b) { return rank(a) < rank(b); });
  for (auto [i, t] : llvm::enumerate(tensorParams)) {
    std::string name = uniqueName(inputRole(t, accumulated), "in", i, taken);
    tensorNames[t] = name;
    auto type = cast<RankedTensorType>(t.getType());
    nest.plan.tensors.push_back(LaunchPlan::Tensor{name, type, false});
    argTypes.push_back(isWorkspaceSums(t) ? contiguousArgType(type)
                                          : kernelArgType(type));
    nest.hostArgs.push_back(t);
  }
  for (Value m : memrefParams) {
    std::string name = uniqueName(inputRole(m, accumulated), "buffer", 0, taken);
    auto type = memref::getTensorTypeFromMemRefType(m.getType());
    tensorNames[m] = name;
    nest.plan.tensors.push_back(
        LaunchPlan::Tensor{name, cast<RankedTensorType>(type), true});
    argTypes.push_back(
        isWorkspaceBuffer(m, forall)
            ? contiguousArgType(cast<RankedTensorType>(type))
            : kernelArgType(cast<RankedTensorType>(type)));
    nest.hostArgs.push_back(m);
  }
  nest.outputBase = nest.hostArgs.size();
  for (auto [i, out] : llvm::enumerate(forall.getOutputs())) {
    auto type = dyn_cast<RankedTensorType>(out.getType());
    if (!type || type.getRank() < 1)
      return error() << "a shared output of the loop nest must be a tensor "
                        "of rank 1 or more, got "
                     << out.getType();
    out = writableDestination(forall, i);
    std::string name = uniqueName(outputRole(forall, i, accumulated), "out", i, taken);
    tensorNames[out] = name;
    nest.plan.tensors.push_back(LaunchPlan::Tensor{name, type, true});
    argTypes.push_back(kernelArgType(type));
    nest.hostArgs.push_back(out);
  }
  // Offsets inside the kernel are computed in the index width: a tensor
  // whose static dims alone reach 2^(width-1) elements would overflow them.
  // (Dynamic sizes are checked by the runtime against the launch plan's
  // index_bitwidth.)
  for (const LaunchPlan::Tensor &t : nest.plan.tensors) {
    APInt elements(128, 1);
    for (int64_t dim : t.type.getShape())
      if (!ShapedType::isDynamic(dim))
        elements *= APInt(128, dim);
    if (elements.getActiveBits() >= indexBitwidth)
      return error() << "tensor '" << t.name << "' (" << t.type
                     << ") has 2^" << elements.logBase2() << " or more "
                     << "elements, more than " << indexBitwidth
                     << "-bit indices address"
                     << (indexBitwidth == 32 ? "; use index-bitwidth=64" : "");
  }
  // The integer inputs first: the derived parameters' expressions name them.
  nameIndexArguments();
  for (auto [i, s] : llvm::enumerate(scalarParams)) {
    std::optional<StringRef> role;
    if (usedAsSoftmaxScale(s) || usedAs<ProbsFromLseOp>(s, 2))
      role = "softmax_scale_log2";
    else if (usedAs<ScoreGradOp>(s, 3))
      role = "softmax_scale";
    else if (usedAs<SoftcapOp>(s, 1))
      role = "softcap_scale";
    else if (usedAs<SoftcapOp>(s, 2))
      role = "softcap";
    Attribute value;
    matchPattern(s, m_Constant(&value));
    if (derivedParams.contains(s)) {
      // An input passed through as is, or a value the runtime computes.
      if (indexArgs.contains(s)) {
        nest.plan.scalars.push_back(
            LaunchPlan::Scalar{tensorNames[s], s.getType(), {}, {}});
      } else {
        FailureOr<Attribute> expr = gridExpression(s, tensorNames);
        if (failed(expr))
          return error() << "an index value the loop nest uses is computed "
                            "from an integer argument of the function, but "
                            "not by arithmetic on the tensors' sizes and "
                            "the integer arguments";
        std::string name =
            uniqueName(std::nullopt, "index", computedScalars++, taken);
        nest.plan.scalars.push_back(
            LaunchPlan::Scalar{name, s.getType(), {}, *expr});
      }
    } else {
      nest.plan.scalars.push_back(LaunchPlan::Scalar{
          uniqueName(role, "scalar", i, taken), s.getType(), value, {}});
    }
    argTypes.push_back(s.getType());
    nest.hostArgs.push_back(s);
  }

  // The kernel, alone in its gpu.module so that its PTX is its own.
  auto func = forall->getParentOfType<FunctionOpInterface>();
  std::string base =
      ptxIdentifier((func ? func.getName() : StringRef("attention")).str() +
                    "_kernel");
  SymbolTable symbols(module);
  std::string name = base;
  for (int i = 1; symbols.lookup(name + "_module"); ++i)
    name = base + "_" + std::to_string(i);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, name + "_module");
  symbols.insert(gpuModule);
  b.setInsertionPointToStart(gpuModule.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(nest.threads()), 1, 1}));
  if (forall->hasAttr(kStageBlockScalarsAttrName))
    kernel->setAttr(kStageBlockScalarsAttrName, b.getUnitAttr());
  nest.kernel = kernel;
  nest.plan.name = name;

  Block &entry = kernel.getBody().front();
  entry.clear();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  // Induction variables: the block ids the mapping names.
  for (auto [iv, dim] : llvm::zip(forall.getInductionVars(), dims))
    map.map(iv, gpu::BlockIdOp::create(b, loc, dim));
  // Tensors: views of the memref parameters, with the host tensor types.
  DenseMap<Value, Value> tensorToMemref;
  ValueRange args = kernel.getArguments();
  for (auto [i, t] : llvm::enumerate(tensorParams)) {
    Value arg = args[i];
    tensorToMemref[t] = arg;
    Value view = bufferization::ToTensorOp::create(
        b, loc, memref::getTensorTypeFromMemRefType(arg.getType()), arg,
        /*restrict=*/true, /*writable=*/false);
    map.map(t, tensor::CastOp::create(b, loc, t.getType(), view));
  }
  for (auto [i, m] : llvm::enumerate(memrefParams))
    map.map(m, args[tensorParams.size() + i]);
  for (auto [i, out] : llvm::enumerate(forall.getOutputs()))
    tensorToMemref.try_emplace(out, args[nest.outputBase + i]);
  for (auto [i, s] : llvm::enumerate(scalarParams))
    map.map(s, args[nest.outputBase + forall.getOutputs().size() + i]);
  for (Value c : constants)
    map.map(c, b.clone(*c.getDefiningOp())->getResult(0));
  // Index values from outside: recomputed from the memref sizes and the
  // integer parameters.
  IRMapping knownIndices;
  for (Value derived : derivedParams)
    knownIndices.map(derived, map.lookup(derived));
  IndexMaterializer materializer(tensorToMemref, knownIndices);
  for (Value v : indexValues) {
    FailureOr<Value> inKernel = materializer.get(b, v);
    if (failed(inKernel))
      return error() << "cannot compute in the kernel an index value the "
                        "loop nest uses: it is not index arithmetic on "
                        "tensor sizes";
    map.map(v, *inKernel);
  }

  // The body, op for op.
  for (Operation &op : forall.getBody()->without_terminator())
    b.clone(op, map);
  // tensor.dim of a parameter reads the memref's size.
  kernel.walk([&](tensor::DimOp dim) {
    Value source = dim.getSource();
    if (auto cast = source.getDefiningOp<tensor::CastOp>())
      source = cast.getSource();
    if (Value memref = kernelBuffer(source)) {
      OpBuilder db(dim);
      dim.replaceAllUsesWith(
          memref::DimOp::create(db, dim.getLoc(), memref, dim.getIndex())
              .getResult());
      dim.erase();
    }
  });
  // tensor.extract of a parameter (a K/V cache's key lengths and block
  // table) reads the memref's element.
  kernel.walk([&](tensor::ExtractOp extract) {
    Value source = extract.getTensor();
    if (auto cast = source.getDefiningOp<tensor::CastOp>())
      source = cast.getSource();
    if (Value memref = kernelBuffer(source)) {
      OpBuilder eb(extract);
      extract.replaceAllUsesWith(
          memref::LoadOp::create(eb, extract.getLoc(), memref,
                                 extract.getIndices())
              .getResult());
      extract.erase();
    }
  });

  // The stores of the terminator.
  for (Operation &op : forall.getTerminator().getYieldingOps()) {
    auto store = dyn_cast<tensor::ParallelInsertSliceOp>(op);
    auto dest = store ? dyn_cast<BlockArgument>(store.getDest())
                      : BlockArgument();
    if (!dest || dest.getOwner() != forall.getBody())
      return error() << "the loop nest must store into its shared outputs "
                        "with tensor.parallel_insert_slice";
    Value memref =
        args[nest.outputBase + dest.getArgNumber() - forall.getRank()];
    auto lookup = [&](SmallVector<OpFoldResult> ofrs) {
      for (OpFoldResult &ofr : ofrs)
        if (auto v = dyn_cast<Value>(ofr))
          ofr = map.lookupOrDefault(v);
      return ofrs;
    };
    auto source = cast<RankedTensorType>(store.getSourceType());
    SmallVector<OpFoldResult> offsets = lookup(store.getMixedOffsets()),
                              sizes = lookup(store.getMixedSizes()),
                              strides = lookup(store.getMixedStrides());
    auto viewTy = memref::SubViewOp::inferRankReducedResultType(
        source.getShape(), cast<MemRefType>(memref.getType()), offsets, sizes,
        strides);
    Value view = memref::SubViewOp::create(b, loc, cast<MemRefType>(viewTy),
                                           memref, offsets, sizes, strides);
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        b, loc, map.lookup(store.getSource()), view);
    materialize.setRestrict(true);
    materialize.setWritable(true);
  }
  gpu::ReturnOp::create(b, loc);
  return success();
}

LogicalResult Outliner::planGrid() {
  // Grid dimension `dim` runs the induction variable mapped to it.
  nest.grid.assign(3, Value());
  SmallVector<Attribute> exprs(3);
  OpBuilder b(forall);
  Builder attrs(forall.getContext());
  // A grid computed from integer arguments (Q blocks x a run-time split
  // count) names them as inputs.
  for (OpFoldResult ub : forall.getMixedUpperBound())
    if (auto v = dyn_cast<Value>(ub))
      collectIndexArguments(v, indexArgs);
  nameIndexArguments();
  for (auto [ub, dim] : llvm::zip(forall.getMixedUpperBound(), dims)) {
    unsigned d = static_cast<unsigned>(dim);
    nest.grid[d] = getValueOrCreateConstantIndexOp(b, loc, ub);
    FailureOr<Attribute> expr = gridExpression(nest.grid[d], tensorNames);
    if (failed(expr))
      return error() << "the grid size of dimension " << d
                     << " is not arithmetic on the sizes of the tensors the "
                        "kernel reads";
    exprs[d] = *expr;
    // Hardware limits of static grid sizes: 2^31 - 1 blocks on x, 65535 on
    // y and z (the runtime checks the dynamic ones).
    std::optional<int64_t> size = getConstantIntValue(ub);
    int64_t limit = d == 0 ? std::numeric_limits<int32_t>::max() : 65535;
    if (size && *size > limit)
      return error() << "grid dimension " << d << " would have " << *size
                     << " blocks, more than the " << limit << " a GPU allows";
  }
  for (unsigned d = 0; d < 3; ++d) {
    if (!nest.grid[d]) {
      nest.grid[d] = arith::ConstantIndexOp::create(b, loc, 1);
      exprs[d] = attrs.getI64IntegerAttr(1);
    }
  }
  LaunchPlan::Kernel k;
  k.name = nest.plan.name;
  k.grid.assign(exprs.begin(), exprs.end());
  k.threads = nest.threads();
  for (const LaunchPlan::Tensor &t : nest.plan.tensors)
    k.params.push_back(t.name);
  for (const LaunchPlan::Scalar &s : nest.plan.scalars)
    k.params.push_back(s.name);
  nest.plan.kernels.push_back(k);
  return success();
}

FailureOr<OutlinedLoopNest> Outliner::run() {
  if (failed(readMapping()) || failed(readWarps()) ||
      failed(classifyCaptured()) || failed(buildKernel()))
    return failure();
  if (failed(planGrid())) {
    nest.kernel->getParentOp()->erase();
    return failure();
  }
  return nest;
}

} // namespace

AccumulatedBuffers mlir::fa::collectAccumulatedBuffers(ModuleOp module) {
  AccumulatedBuffers buffers;
  module.walk([&](AccumulateRowsOp op) {
    // The buffer and what it is a cast of (canonicalization casts away
    // static sizes).
    Value buffer = op.getBuffer();
    buffers.insert(buffer);
    while (auto cast = buffer.getDefiningOp<memref::CastOp>())
      buffers.insert(buffer = cast.getSource());
  });
  return buffers;
}

FailureOr<OutlinedLoopNest>
mlir::fa::outlineLoopNest(scf::ForallOp forall, ModuleOp module,
                          StringRef chip, unsigned indexBitwidth,
                          const AccumulatedBuffers &accumulated) {
  return Outliner(forall, module, chip, indexBitwidth, accumulated).run();
}

gpu::LaunchFuncOp mlir::fa::replaceWithLaunch(OutlinedLoopNest &nest) {
  scf::ForallOp forall = nest.forall;
  Location loc = forall.getLoc();
  OpBuilder b(forall);
  MLIRContext *ctx = forall.getContext();
  // Tensors become their buffers, cast to the kernel's parameter types.
  SmallVector<Value> args, buffers;
  for (auto [value, argTy] :
       llvm::zip(nest.hostArgs, nest.kernel.getArgumentTypes())) {
    if (isa<MemRefType>(value.getType())) {
      buffers.push_back(value);
      args.push_back(memref::CastOp::create(b, loc, argTy, value));
      continue;
    }
    auto tensorTy = dyn_cast<RankedTensorType>(value.getType());
    if (!tensorTy) {
      args.push_back(value);
      continue;
    }
    auto bufferTy = MemRefType::get(
        tensorTy.getShape(), tensorTy.getElementType(),
        StridedLayoutAttr::get(
            ctx, ShapedType::kDynamic,
            SmallVector<int64_t>(tensorTy.getRank(), ShapedType::kDynamic)));
    Value buffer = bufferization::ToBufferOp::create(b, loc, bufferTy, value);
    buffers.push_back(buffer);
    args.push_back(memref::CastOp::create(b, loc, argTy, buffer));
  }
  const LaunchPlan::Kernel &k = nest.plan.kernels.front();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, k.threads);
  Value sharedBytes =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.sharedBytes);
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, nest.kernel,
      gpu::KernelDim3{nest.grid[0], nest.grid[1], nest.grid[2]},
      gpu::KernelDim3{threads, one, one}, sharedBytes, args);
  launch->setAttr(LaunchPlan::kAttrName, nest.plan.toAttr(ctx));

  // The results: the output buffers, written by the kernel.
  SmallVector<Value> results;
  for (auto [i, out] : llvm::enumerate(forall.getOutputs())) {
    Value buffer = buffers[nest.outputBase + i];
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, out.getType(), buffer, /*restrict=*/true, /*writable=*/true));
  }
  forall->replaceAllUsesWith(results);
  forall->erase();
  return launch;
}
