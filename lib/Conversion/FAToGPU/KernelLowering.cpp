//===- KernelLowering.cpp - Type converter and shared-memory plan ---------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fa;

FragmentTypeConverter::FragmentTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t, SmallVectorImpl<Type> &out)
                    -> std::optional<LogicalResult> {
    Attribute encoding = t.getEncoding();
    if (auto rows = dyn_cast_or_null<WarpRowsAttr>(encoding)) {
      llvm::append_range(out, rows.getAtom().getFragmentTypes(
                                  rows.getRole(), rows.groupShape(t.getShape()),
                                  t.getElementType(), rows.getNumWarps()));
      return success();
    }
    if (isa_and_nonnull<BlockSharedAttr>(encoding)) {
      out.push_back(IndexType::get(t.getContext()));
      return success();
    }
    return std::nullopt;
  });
  addConversion([](FutureType f) -> Type {
    return IndexType::get(f.getContext());
  });
}

SharedMemoryPlan::Ring SharedMemoryPlan::newRing(int64_t slotBytes,
                                                 int64_t numSlots) {
  ringBytes = llvm::alignTo(ringBytes, alignment);
  Ring ring{ringBytes, slotBytes, numSlots};
  ringBytes += slotBytes * numSlots;
  return ring;
}

SharedMemoryPlan::Ring SharedMemoryPlan::convertRing(ConvertLayoutOp convert,
                                                     int64_t bytes) {
  // The atom's store into shared memory waits at a barrier until every warp
  // is done with the buffer's previous tile, so a buffer whose tiles are
  // all read (synchronously: not by an atom's async matmuls) before this
  // conversion, in the same block, can take its tile: the backward's P^T
  // and dS^T under column groups share one.
  Block *block = convert->getBlock();
  auto readBefore = [&](ConvertLayoutOp earlier) {
    if (earlier->getBlock() != block)
      return false;
    return llvm::all_of(earlier.getResult().getUsers(), [&](Operation *user) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      return inBlock && inBlock->isBeforeInBlock(convert);
    });
  };
  MmaAtomAttrInterface atom = getTileAtom(convert.getResult().getType());
  if (atom && !atom.hasAsyncMatmuls())
    for (auto &[ring, converts] : convertBuffers)
      if (ring.slotBytes >= bytes && llvm::all_of(converts, readBefore)) {
        converts.push_back(convert);
        return ring;
      }
  convertBuffers.push_back({newRing(bytes, 1), {convert}});
  return convertBuffers.back().first;
}

LogicalResult SharedMemoryPlan::build(gpu::GPUFuncOp kernel,
                                      AtomLowering &atom) {
  alignment = atom.sharedAlignment();
  WalkResult walk = kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto load = dyn_cast<AsyncLoadOp>(op)) {
      auto future = cast<FutureType>(load.getFuture().getType());
      bool loopCarried = llvm::any_of(load.getFuture().getUsers(),
                                      [](Operation *u) {
                                        return !isa<AwaitOp>(u);
                                      });
      if (load.getNumSlots() == 1 && !loopCarried) {
        for (RankedTensorType tile : future.getTiles())
          privateRings[load].push_back(newRing(atom.sharedTileBytes(tile), 1));
        if (load.getTma())
          privateBarriers[load] = 8 * barrierCount++;
        return WalkResult::advance();
      }
      // Loads of one ring are all TMA copies or none (one kind of
      // completion per slot).
      const void *typeKey = future.getAsOpaquePointer();
      bool knownRing = asyncRings.count({typeKey, 0});
      if (knownRing && asyncBarriers.count(typeKey) != load.getTma()) {
        load.emitOpError("fa-lower-to-gpu: loads into the same ring of shared "
                         "tiles must all be tma copies or all cp.async");
        return WalkResult::interrupt();
      }
      if (knownRing && releaseBarrierOffsets.count(typeKey) !=
                           static_cast<bool>(load.getReleasePhase())) {
        load.emitOpError("fa-lower-to-gpu: loads into the same ring of shared "
                         "tiles must all wait for releases (after_release) "
                         "or none");
        return WalkResult::interrupt();
      }
      if (!knownRing && load.getTma()) {
        asyncBarriers[typeKey] = 8 * barrierCount;
        barrierCount += load.getNumSlots();
        if (load.getReleasePhase()) {
          releaseBarrierOffsets[typeKey] = 8 * barrierCount;
          releaseBarrierRanges.push_back(
              {barrierCount, static_cast<int64_t>(load.getNumSlots())});
          barrierCount += load.getNumSlots();
        }
      }
      for (auto [i, tile] : llvm::enumerate(future.getTiles())) {
        auto key = std::make_pair(future.getAsOpaquePointer(),
                                  static_cast<unsigned>(i));
        auto it = asyncRings.find(key);
        if (it == asyncRings.end()) {
          asyncRings[key] =
              newRing(atom.sharedTileBytes(tile), load.getNumSlots());
        } else if (it->second.numSlots !=
                   static_cast<int64_t>(load.getNumSlots())) {
          load.emitOpError("fa-lower-to-gpu: loads into the same ring of "
                           "shared tiles disagree on the number of slots (")
              << it->second.numSlots << " and " << load.getNumSlots() << ")";
          return WalkResult::interrupt();
        }
      }
    } else if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      auto tile = cast<RankedTensorType>(pad.getResult().getType());
      if (isa_and_nonnull<BlockSharedAttr>(tile.getEncoding()))
        syncRings[pad] = newRing(atom.sharedTileBytes(tile), 1);
    } else if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
      auto tile = cast<RankedTensorType>(convert.getResult().getType());
      if (isa_and_nonnull<BlockSharedAttr>(tile.getEncoding()) &&
          isa_and_nonnull<WarpRowsAttr>(
              cast<RankedTensorType>(convert.getSource().getType())
                  .getEncoding()))
        syncRings[convert] = convertRing(convert, atom.sharedTileBytes(tile));
    } else if (auto combine = dyn_cast<CombineSplitsOp>(op)) {
      // Groups of warps that merge different splits of the same tile
      // exchange one f32 per value each thread holds: the LSE's row values
      // and the output's elements (the largest exchange, the sums).
      auto outTy = cast<RankedTensorType>(combine.getOut().getType());
      auto lseTy = cast<RankedTensorType>(combine.getLse().getType());
      auto acc = dyn_cast_or_null<WarpRowsAttr>(outTy.getEncoding());
      auto rows = dyn_cast_or_null<WarpRowsAttr>(lseTy.getEncoding());
      if (acc && rows && acc.getReplicas() > 1) {
        int64_t values =
            rows.getAtom()
                .getFragmentTypes(rows.getRole(), lseTy.getShape(),
                                  lseTy.getElementType(), rows.getNumWarps())
                .size() +
            acc.getAtom()
                    .getFragmentTypes(acc.getRole(), outTy.getShape(),
                                      outTy.getElementType(),
                                      acc.getNumWarps())
                    .size() *
                atom.elementsPerAccFragment();
        int64_t threadsPerGroup = 32 * acc.getNumWarps();
        syncRings[combine] = newRing(
            acc.getReplicas() * values * threadsPerGroup * 4, 1);
      }
    } else if (isa<RunningMaxOp, OnlineSoftmaxOp>(op) &&
               dividesKeys(op->getOperand(0).getType())) {
      // Key groups exchange one f32 per row value a thread holds (one ring
      // for every such op, laid out after the walk).
      auto scores = cast<RankedTensorType>(op->getOperand(0).getType());
      auto rows = cast<WarpRowsAttr>(scores.getEncoding());
      int64_t rowValues =
          rows.getAtom()
              .getFragmentTypes(FragmentRole::Rows, {scores.getDimSize(0)},
                                Float32Type::get(op->getContext()),
                                rows.getNumWarps())
              .size();
      keyGroupExchangeBytes =
          std::max(keyGroupExchangeBytes, rows.getReplicas() * rowValues * 32 *
                                              rows.getNumWarps() * 4);
    } else if (auto finalize = dyn_cast<FinalizeOp>(op)) {
      // Key groups add up their accumulators and running sums: one f32 per
      // value a thread holds, from every group, over the staging space.
      auto accTy = cast<RankedTensorType>(finalize.getAcc().getType());
      auto sumTy = cast<RankedTensorType>(finalize.getSum().getType());
      auto acc = dyn_cast_or_null<WarpRowsAttr>(accTy.getEncoding());
      auto sum = dyn_cast_or_null<WarpRowsAttr>(sumTy.getEncoding());
      if (acc && sum && acc.getShare() == ReplicaShare::Sum) {
        int64_t values =
            acc.getAtom()
                    .getFragmentTypes(acc.getRole(), accTy.getShape(),
                                      accTy.getElementType(),
                                      acc.getNumWarps())
                    .size() *
                atom.elementsPerAccFragment() +
            sum.getAtom()
                .getFragmentTypes(sum.getRole(), sumTy.getShape(),
                                  sumTy.getElementType(), sum.getNumWarps())
                .size();
        stagingBytes = std::max(stagingBytes, acc.getReplicas() * values *
                                                  32 * acc.getNumWarps() * 4);
      }
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // A tile held by warps that is stored goes through shared memory.
      auto tile = dyn_cast<RankedTensorType>(slice.getSource().getType());
      auto rows =
          tile ? dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding()) : nullptr;
      if (rows && rows.getRole() == FragmentRole::Acc && !storedSplat(slice))
        stagingBytes = std::max(stagingBytes, atom.sharedTileBytes(tile));
    }
    return WalkResult::advance();
  });
  if (keyGroupExchangeBytes)
    keyGroupExchange = newRing(keyGroupExchangeBytes, 1);
  barrierStart = llvm::alignTo(std::max(ringBytes, stagingBytes), 8);
  return failure(walk.wasInterrupted());
}

Attribute mlir::fa::storedSplat(tensor::ExtractSliceOp slice) {
  auto tile = dyn_cast<RankedTensorType>(slice.getSource().getType());
  auto rows =
      tile ? dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding()) : nullptr;
  SplatElementsAttr splat;
  if (!rows || rows.getRole() != FragmentRole::Acc || tile.getRank() != 2 ||
      !matchPattern(slice.getSource(), m_Constant(&splat)))
    return {};
  return splat.getSplatValue<Attribute>();
}

TileOperand mlir::fa::tileOperand(Value original, ValueRange converted) {
  auto type = cast<RankedTensorType>(original.getType());
  if (isa_and_nonnull<BlockSharedAttr>(type.getEncoding()))
    return TileOperand{type, ValueRange(), converted.front()};
  return TileOperand{groupTile(type), converted, Value()};
}

RankedTensorType mlir::fa::groupTile(RankedTensorType tile) {
  auto rows = dyn_cast_or_null<WarpRowsAttr>(tile.getEncoding());
  if (!rows || rows.getShare() != ReplicaShare::Columns)
    return tile;
  auto whole = WarpRowsAttr::get(tile.getContext(), rows.getRole(),
                                 rows.getNumWarps(), rows.getAtom(),
                                 rows.getReplicas(), ReplicaShare::Whole);
  return RankedTensorType::get(rows.groupShape(tile.getShape()),
                               tile.getElementType(), whole);
}

bool mlir::fa::dividesKeys(Type type) {
  auto rows = dyn_cast_or_null<WarpRowsAttr>(getTileEncoding(type));
  return rows && rows.getShare() == ReplicaShare::Columns;
}

TileOperand mlir::fa::groupKeyRows(OpBuilder &b, Location loc,
                                   AtomLowering &atom, const TileOperand &tile,
                                   int64_t groups) {
  RankedTensorType type = tile.type;
  auto rowsTy = RankedTensorType::get(
      {type.getDimSize(0) / groups, type.getDimSize(1)}, type.getElementType(),
      type.getEncoding());
  Value groupBytes = arith::MulIOp::create(
      b, loc, atom.replica(b, loc),
      arith::ConstantIndexOp::create(b, loc, atom.sharedTileBytes(rowsTy)));
  return TileOperand{
      rowsTy, ValueRange(),
      arith::AddIOp::create(b, loc, tile.sharedOffset, groupBytes)};
}

Value mlir::fa::kernelBuffer(Value tensor) {
  if (auto cast = tensor.getDefiningOp<tensor::CastOp>())
    tensor = cast.getSource();
  auto toTensor = tensor.getDefiningOp<bufferization::ToTensorOp>();
  return toTensor ? toTensor.getBuffer() : Value();
}

std::optional<int64_t> mlir::fa::blockThreads(Operation *op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  std::optional<ArrayRef<int32_t>> block =
      kernel ? kernel.getKnownBlockSize() : std::nullopt;
  if (!block)
    return std::nullopt;
  return (*block)[0];
}
