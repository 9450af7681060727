//===- FADialect.cpp - FlashAttention dialect -----------------------------===//

#include "fa/Dialect/FA/IR/FA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa;

#include "fa/Dialect/FA/IR/FAOpsDialect.cpp.inc"

#include "fa/Dialect/FA/IR/FAEnums.cpp.inc"

#include "fa/Dialect/FA/IR/FAAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fa/Dialect/FA/IR/FAOpsTypes.cpp.inc"

namespace {
/// Short aliases for the layout encodings, as Triton prints `#mma` and
/// `#blocked`: L3 IR then reads `tensor<128x64xf32, #acc_w4>` (and
/// `#acc_w8_wgmma` for the sm_90a atom).
struct FAOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (auto rows = dyn_cast<WarpRowsAttr>(attr)) {
      switch (rows.getRole()) {
      case FragmentRole::Acc:
        os << "acc";
        break;
      case FragmentRole::OperandA:
        os << "opA";
        break;
      case FragmentRole::Rows:
        os << "rows";
        break;
      case FragmentRole::PartialRows:
        os << "partial";
        break;
      }
      os << "_w" << rows.getNumWarps();
      if (rows.getReplicas() != 1)
        os << "x" << rows.getReplicas();
      if (rows.getShare() == ReplicaShare::Columns)
        os << "_cols";
      else if (rows.getShare() == ReplicaShare::Sum)
        os << "_sum";
      if (isa<WgmmaAtomAttr>(rows.getAtom()))
        os << "_wgmma";
      return AliasResult::OverridableAlias;
    }
    if (auto shared = dyn_cast<BlockSharedAttr>(attr)) {
      os << (shared.getTransposed() ? "shared_t" : "shared");
      if (shared.getSwizzled())
        os << "_swz";
      // The sm_90a atom's tiles say so (#acc_w8_wgmma, #shared_wgmma).
      if (isa<WgmmaAtomAttr>(shared.getAtom()))
        os << "_wgmma";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void FADialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/FA/IR/FAOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fa/Dialect/FA/IR/FAAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "fa/Dialect/FA/IR/FAOpsTypes.cpp.inc"
      >();
  addInterfaces<FAOpAsmInterface>();
}

//===----------------------------------------------------------------------===//
// Layout encodings
//===----------------------------------------------------------------------===//

LogicalResult
WarpRowsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FragmentRole role, int64_t numWarps,
                     MmaAtomAttrInterface atom, int64_t replicas,
                     ReplicaShare share) {
  if (numWarps != 1 && numWarps != 2 && numWarps != 4 && numWarps != 8)
    return emitError() << "num_warps must be 1, 2, 4 or 8, got " << numWarps;
  if (!atom)
    return emitError() << "atom must be an MMA atom attribute";
  // (A thread block has at most 32 warps.)
  if (replicas < 1 || numWarps * replicas > 32)
    return emitError() << "replicas must be at least 1 and num_warps x "
                          "replicas at most 32 (1024 threads), got replicas = "
                       << replicas << " with num_warps = " << numWarps;
  if (share == ReplicaShare::Whole)
    return success();
  if (replicas == 1)
    return emitError() << "share = " << stringifyReplicaShare(share)
                       << " divides a tile between groups of warps: it needs "
                          "replicas > 1";
  // The groups' shares are lowered for the sm_80 atom's row-padded shared
  // tiles (a group's keys are a row range of the K and V tiles).
  if (!isa<MmaSyncAtomAttr>(atom))
    return emitError() << "share = " << stringifyReplicaShare(share)
                       << " is implemented for #fa.mma_sync only, got "
                       << atom;
  if (share == ReplicaShare::Columns && role != FragmentRole::Acc &&
      role != FragmentRole::OperandA)
    return emitError() << "share = columns divides the columns of an acc or "
                          "operand_a tile, not a "
                       << stringifyFragmentRole(role) << " vector";
  if (share == ReplicaShare::Sum && role != FragmentRole::Acc &&
      role != FragmentRole::PartialRows)
    return emitError() << "share = sum holds summands of an acc tile or a "
                          "partial_rows vector, not of a "
                       << stringifyFragmentRole(role) << " tile";
  return success();
}

LogicalResult
WarpRowsAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                             function_ref<InFlightDiagnostic()> emitError) const {
  if (ShapedType::isDynamicShape(shape))
    return emitError() << "a tile held in registers must have a static shape";
  if (getShare() == ReplicaShare::Columns &&
      (shape.size() != 2 || shape[1] % getReplicas() != 0))
    return emitError() << "share = columns divides the columns of a 2-D tile "
                          "evenly between the "
                       << getReplicas() << " groups, got shape ["
                       << shape << "]";
  return getAtom().verifyFragment(getRole(), groupShape(shape), elementType,
                                  getNumWarps(), emitError);
}

LogicalResult BlockSharedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (ShapedType::isDynamicShape(shape))
    return emitError() << "a shared tile must have a static shape";
  SmallVector<int64_t> stored = storedShape(shape);
  if (failed(getAtom().verifySharedTile(stored, elementType, emitError)))
    return failure();
  if (!getSwizzled())
    return success();
  if (!isSwizzlable(stored, elementType))
    return emitError() << "a swizzled shared tile stores rows of a multiple "
                          "of 128 bytes, at least 8 and a multiple of 8 of "
                          "them, got ["
                       << stored << "] x " << elementType;
  return success();
}

LogicalResult FutureType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<RankedTensorType> tiles) {
  if (tiles.empty())
    return emitError() << "a future holds at least one tile";
  for (RankedTensorType tile : tiles)
    if (!isa_and_nonnull<BlockSharedAttr>(tile.getEncoding()))
      return emitError() << "a future holds shared tiles (#fa.block_shared), "
                            "got "
                         << tile;
  return success();
}

Attribute mlir::fa::getTileEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  Attribute encoding = tensor.getEncoding();
  if (isa_and_nonnull<WarpRowsAttr, BlockSharedAttr>(encoding))
    return encoding;
  return {};
}

MmaAtomAttrInterface mlir::fa::getTileAtom(Type type) {
  Attribute encoding = getTileEncoding(type);
  if (auto rows = dyn_cast_or_null<WarpRowsAttr>(encoding))
    return rows.getAtom();
  if (auto shared = dyn_cast_or_null<BlockSharedAttr>(encoding))
    return shared.getAtom();
  return {};
}

bool mlir::fa::hasFALayout(Type type) {
  return isa<FutureType>(type) || getTileEncoding(type);
}
