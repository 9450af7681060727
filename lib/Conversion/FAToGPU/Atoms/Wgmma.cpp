//===- Wgmma.cpp - The sm_90a atom: wgmma.mma_async on warpgroups ---------===//
//
// AtomLowering of #fa.wgmma. Per warp the fragments are #fa.mma_sync's at 16
// rows a warp (the wgmma m64nNk16 accumulator and register-A layouts,
// restricted to one warp of the warpgroup, are the mma.m16n8k16 ones), so
// this class derives from the sm_80 lowering and replaces what touches the
// instruction or the shared layout:
//
//   matmuls       one `wgmma.mma_async.m64nNk16` per k step, N the whole
//                 tile width; A from registers (Q, P) or by descriptor from
//                 shared memory, B (K, V) by descriptor;
//   shared tiles  one of wgmma's two canonical layouts (K-major for K
//                 [n][k], MN-major for V [k][n]), chosen by the tile's
//                 #fa.block_shared `swizzled`:
//                 * unswizzled: 8 x 8 core matrices of 128 contiguous
//                   bytes, row-major over the core-matrix grid: element
//                   (r, c) of an R x C tile at ((r / 8) * (C / 8) + c / 8) *
//                   128 + (r % 8) * 16 + (c % 8) * 2 bytes;
//                 * swizzled (128-byte swizzle): column blocks of 64
//                   elements, each R rows of 128 bytes: element (r, c) at
//                   (c / 64) * R * 128 + r * 128 + ((c % 64) / 8 ^ r % 8) *
//                   16 + (c % 8) * 2 bytes. The hardware applies the XOR to
//                   address bits 4-6 from bits 7-9, so tiles start on 1024
//                   bytes (sharedAlignment()) and so does the dynamic shared
//                   memory (`fa.shared_alignment` on the kernel);
//   copies        cp.async of 16 bytes, then `fence.proxy.async` so that
//                 wgmma (the async proxy) sees what cp.async (the generic
//                 proxy) wrote. Unswizzled: 8 lanes on the 8 rows of one
//                 core matrix (128 contiguous bytes: no bank conflicts; the
//                 4 chunks a warp takes of each row are 64 contiguous bytes
//                 of global memory). Swizzled: 8 lanes on the 8 chunks of
//                 one 128-byte row segment (128 contiguous bytes of global
//                 memory into one 128-byte line of shared memory).
//
// Inline PTX: MLIR 22's nvgpu.warpgroup.mma takes A only as a descriptor
// (shared memory), and P is produced in registers. Each matmul is therefore
// one `llvm.inline_asm`: wgmma.fence, the k steps, commit_group and
// wait_group 0, so the accumulators are complete when the asm returns and
// no value is read while an MMA is in flight (ptxas sees the asynchrony and
// keeps the registers in place). An `async` fa.qk / fa.pv leaves the
// wait_group out; its fa.mma_wait is an asm of its own, `wait_group N`,
// whose operands and results are the accumulators (tied), so every read of
// them depends on the wait and none can be scheduled before it.
//
//===----------------------------------------------------------------------===//

#include "Atoms/MmaSyncLowering.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#include <string>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::atoms;

namespace {

/// Bytes of one 8 x 8 core matrix of 16-bit elements.
constexpr int64_t kCoreBytes = 128;
/// Rows of a warpgroup's wgmma tile; warps of a warpgroup.
constexpr int64_t kGroupRows = 64, kWarpsPerGroup = 4;

/// Bytes of one 128-byte swizzle atom: 8 rows of 128 bytes. Swizzled tiles
/// start on a multiple of it.
constexpr int64_t kSwizzleAtomBytes = 1024;
/// Elements (16-bit) of a swizzled tile's column block: one 128-byte row.
constexpr int64_t kSwizzleCols = 64;

/// A wgmma shared-memory matrix descriptor: the start address, the two
/// strides and the swizzle (PTX ISA, "Matrix Descriptor Format"; the
/// strides are stored in 16-byte units). Unswizzled, the strides are
/// between core matrices: leading along K (K-major) or along M/N
/// (MN-major), stride along the other dimension. With the 128-byte
/// swizzle, the stride is between groups of 8 rows of 128 bytes (1024),
/// the leading one between column blocks of an MN-major tile (unused for
/// K-major).
struct Descriptor {
  Value address;            // Byte address in the shared window (index).
  int64_t leadingBytes = 0;
  int64_t strideBytes = 0;
  bool swizzle128 = false;
  /// Swizzled K-major tiles: bytes of one 64-column block (rows * 128).
  int64_t blockBytes = 0;

  /// Where k step `kk` (16 columns) of a K-major tile starts, from
  /// `address`: two core matrices along K each, unswizzled; swizzled, 32
  /// bytes into the rows of column block kk / 4 (the XOR is the
  /// hardware's, on the final address).
  int64_t kMajorStep(int64_t kk) const {
    if (!swizzle128)
      return kk * 2 * kCoreBytes;
    return (kk / 4) * blockBytes + (kk % 4) * 32;
  }
};

class WgmmaLowering : public MmaSyncLowering {
public:
  LogicalResult checkMatmulShape(Location loc, int64_t m, int64_t n,
                                 int64_t k) const override {
    if (numWarps % kWarpsPerGroup != 0 || m != kTileRows * numWarps ||
        n % 8 != 0 || n < 8 || n > 256 || k % kStepK != 0)
      return mlir::emitError(loc)
             << "fa-lower-to-gpu: #fa.wgmma multiplies [M, K] x [K, N] tiles "
                "with M = 16 x num-warps (a multiple of 4 warps: "
             << numWarps << " here), N a multiple of 8 up to 256 and K a "
                            "multiple of 16; got M = "
             << m << ", N = " << n << ", K = " << k;
    return success();
  }

  SmallVector<Value> matmulTransposedB(OpBuilder &b, Location loc,
                                       const TileOperand &a,
                                       const TileOperand &bTile,
                                       RankedTensorType accType,
                                       ValueRange acc, bool async) override;
  SmallVector<Value> matmul(OpBuilder &b, Location loc, const TileOperand &a,
                            const TileOperand &bTile, RankedTensorType accType,
                            ValueRange acc, bool async) override;
  FailureOr<SmallVector<Value>> convertLayout(OpBuilder &b, Location loc,
                                              const TileOperand &from,
                                              RankedTensorType to) override;
  void copyTileAsync(OpBuilder &b, Location loc, Value source,
                     const TileRows &rows, RankedTensorType tile,
                     Value sharedOffset, int64_t l2PrefetchBytes) override;
  LogicalResult copyTileByTma(OpBuilder &b, Location loc, Value map,
                              const TileRows &rows, RankedTensorType tile,
                              Value sharedOffset, Value barrier) override;
  LogicalResult zeroTileRows(OpBuilder &b, Location loc, RankedTensorType tile,
                             Value sharedOffset, Value fromRow) override;
  void waitCopies(OpBuilder &b, Location loc, int64_t pending) override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
    createAsmStatement(b, loc, "fence.proxy.async.shared::cta;");
    gpu::BarrierOp::create(b, loc);
  }
  void storeAccToShared(OpBuilder &b, Location loc, RankedTensorType acc,
                        ValueRange frags, Value sharedOffset) override;
  // Tiles start on 1024 bytes, where a 128-byte swizzle pattern starts:
  // the padded bytes of #fa.mma_sync's layout (which the unswizzled core
  // matrices and the output's staging tile use), rounded up.
  int64_t sharedTileBytes(RankedTensorType type) const override {
    return llvm::alignTo(MmaSyncLowering::sharedTileBytes(type),
                         kSwizzleAtomBytes);
  }
  int64_t sharedAlignment() const override { return kSwizzleAtomBytes; }
  SmallVector<Value> waitMatmuls(OpBuilder &b, Location loc, int64_t pending,
                                 ValueRange acc) override {
    return accumulatorAsm(
        b, loc, acc,
        "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";");
  }

private:
  /// The shared tile at `offset` of the dynamic shared memory as a 4-D
  /// memref whose row-major order is the layout's: unswizzled, the grid of
  /// core matrices, memref<(rows/8) x (cols/8) x 8 x 8 x T>; swizzled, the
  /// column blocks of 128-byte rows, memref<(cols/64) x rows x 8 x 8 x T>
  /// (block, row, stored chunk, element).
  Value tileView(OpBuilder &b, Location loc, Value offset, int64_t rows,
                 int64_t cols, Type elemTy, bool swizzled) {
    SmallVector<int64_t, 4> shape =
        swizzled ? SmallVector<int64_t, 4>{cols / kSwizzleCols, rows, 8, 8}
                 : SmallVector<int64_t, 4>{rows / 8, cols / 8, 8, 8};
    auto tileTy = MemRefType::get(
        shape, elemTy, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    return memref::ViewOp::create(b, loc, tileTy, dynamicShared, offset,
                                  ValueRange());
  }
  /// Indices of element (row, col) in an unswizzled tileView().
  static SmallVector<Value> coreIndices(OpBuilder &b, Location loc, Value row,
                                        Value col) {
    auto div = [&](Value v) {
      return arith::DivUIOp::create(b, loc, v, cidx(b, loc, 8)).getResult();
    };
    auto rem = [&](Value v) {
      return arith::RemUIOp::create(b, loc, v, cidx(b, loc, 8)).getResult();
    };
    return {div(row), div(col), rem(row), rem(col)};
  }
  /// Whether a shared tile of `type` takes the 128-byte swizzle.
  static bool isSwizzled(RankedTensorType type) {
    return storedLayout(type).second;
  }

  /// The byte address, in the shared window, of `sharedOffset` in the
  /// dynamic shared memory.
  Value sharedAddress(OpBuilder &b, Location loc, Value sharedOffset) {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dynamicShared);
    return arith::AddIOp::create(b, loc, base, sharedOffset);
  }
  /// The 64-bit descriptor of `d`, advanced by `bytes`.
  Value descriptorValue(OpBuilder &b, Location loc, const Descriptor &d,
                        int64_t bytes) {
    Type i64 = b.getI64Type();
    Value addr = arith::IndexCastUIOp::create(
        b, loc, i64,
        arith::AddIOp::create(b, loc, d.address, cidx(b, loc, bytes)));
    // Bits 0-13: address >> 4 (the shared window is below 256 KiB).
    Value start = arith::ShRUIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, addr,
                              arith::ConstantIntOp::create(b, loc, i64,
                                                           0x3FFFF)),
        arith::ConstantIntOp::create(b, loc, i64, 4));
    // Bits 16-29 and 32-45: the strides >> 4; bits 49-51 (base offset):
    // 0, tiles start on 1024 bytes; bits 62-63: 1 for the 128-byte
    // swizzle, 0 for none.
    uint64_t fields = (uint64_t(d.leadingBytes >> 4) << 16) |
                      (uint64_t(d.strideBytes >> 4) << 32) |
                      (uint64_t(d.swizzle128 ? 1 : 0) << 62);
    return arith::OrIOp::create(
        b, loc, start,
        arith::ConstantIntOp::create(b, loc, i64, int64_t(fields)));
  }

  /// One k step of a wgmma chain: A as four registers or a descriptor, B
  /// as a descriptor.
  struct Step {
    SmallVector<Value, 4> aRegs;
    Value aDesc, bDesc;
  };
  /// acc + the products of `steps`, one wgmma.m64nNk16 each, as one asm
  /// that commits them as one group and, unless `async`, waits for it.
  SmallVector<Value> wgmmaChain(OpBuilder &b, Location loc, int64_t n,
                                Type elemTy, bool transB, ArrayRef<Step> steps,
                                ValueRange accFrags, bool async);
  /// One asm over the thread's accumulators `accs` (f32, in and out):
  /// `text`, with the accumulators tied so that no read of them is moved
  /// before it.
  SmallVector<Value> accumulatorAsm(OpBuilder &b, Location loc,
                                    ValueRange accFrags, StringRef text);
  /// The thread's accumulators in wgmma's register order: n-tile by n-tile,
  /// [h][e] within (rows g, g + 8; columns 2t, 2t + 1), as the fragments.
  SmallVector<Value> accumulatorScalars(OpBuilder &b, Location loc,
                                        ValueRange accFrags) {
    SmallVector<Value> accs;
    for (Value frag : accFrags)
      for (int64_t e = 0; e < 4; ++e)
        accs.push_back(extractAccElement(b, loc, frag, e));
    return accs;
  }
  /// The fragments of `accFrags`' types from the f32 results of `asmOp`.
  SmallVector<Value> accumulatorFragments(OpBuilder &b, Location loc,
                                          ValueRange accFrags,
                                          LLVM::InlineAsmOp asmOp) {
    SmallVector<Value> out;
    for (auto [f, frag] : llvm::enumerate(accFrags)) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < 4; ++e)
        elems.push_back(LLVM::ExtractValueOp::create(
            b, loc, asmOp.getResult(0), ArrayRef<int64_t>{int64_t(4 * f + e)}));
      out.push_back(buildAccFragment(b, loc, frag.getType(), elems));
    }
    return out;
  }
  /// The 4 A registers (i32) of an operand_a fragment vector<4x2xT>.
  static SmallVector<Value, 4> aRegisters(OpBuilder &b, Location loc,
                                          Value frag);
  /// The warpgroup of the executing warp, and its first row.
  Value warpgroupRow0(OpBuilder &b, Location loc) {
    Value group =
        arith::DivUIOp::create(b, loc, warp, cidx(b, loc, kWarpsPerGroup));
    return arith::MulIOp::create(b, loc, group, cidx(b, loc, kGroupRows));
  }
  /// Descriptor of the [rows][k] shared tile `tile` read K-major from row
  /// `row0` (a multiple of 8) on; its k steps at kMajorStep().
  Descriptor kMajor(OpBuilder &b, Location loc, const TileOperand &tile,
                    Value row0) {
    int64_t rows = tile.type.getDimSize(0), k = tile.type.getDimSize(1);
    Value address = sharedAddress(b, loc, tile.sharedOffset);
    if (!isSwizzled(tile.type)) {
      // Row group row0 / 8 starts (k / 8) core matrices further; a k step
      // is two core matrices along K.
      Value rowBytes = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, row0, cidx(b, loc, 8)),
          cidx(b, loc, (k / 8) * kCoreBytes));
      return Descriptor{arith::AddIOp::create(b, loc, address, rowBytes),
                        kCoreBytes, (k / 8) * kCoreBytes};
    }
    // 128-byte rows: row0 is row0 * 128 bytes into every column block. The
    // leading stride is unused.
    Value rowBytes =
        arith::MulIOp::create(b, loc, row0, cidx(b, loc, 2 * kSwizzleCols));
    return Descriptor{arith::AddIOp::create(b, loc, address, rowBytes),
                      /*leadingBytes=*/16, kSwizzleAtomBytes,
                      /*swizzle128=*/true, rows * 2 * kSwizzleCols};
  }
  static std::string typeSuffix(Type elemTy) {
    return elemTy.isBF16() ? "bf16" : "f16";
  }
};

SmallVector<Value, 4> WgmmaLowering::aRegisters(OpBuilder &b, Location loc,
                                                Value frag) {
  auto fragTy = cast<VectorType>(frag.getType());
  auto asI32 = vector::BitCastOp::create(
      b, loc, VectorType::get({fragTy.getDimSize(0), 1}, b.getI32Type()),
      frag);
  SmallVector<Value, 4> regs;
  for (int64_t i = 0; i < fragTy.getDimSize(0); ++i)
    regs.push_back(vector::ExtractOp::create(b, loc, asI32,
                                             ArrayRef<int64_t>{i, 0}));
  return regs;
}

SmallVector<Value> WgmmaLowering::wgmmaChain(OpBuilder &b, Location loc,
                                             int64_t n, Type elemTy,
                                             bool transB,
                                             ArrayRef<Step> steps,
                                             ValueRange accFrags, bool async) {
  SmallVector<Value> accs = accumulatorScalars(b, loc, accFrags);
  int64_t numAcc = accs.size();
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  auto sep = [&] {
    if (!constraints.empty())
      cs << ",";
  };
  for (int64_t i = 0; i < numAcc; ++i) {
    sep();
    cs << "=f";
  }
  SmallVector<Value> operands(accs);
  for (int64_t i = 0; i < numAcc; ++i)
    cs << "," << i;
  std::string accList;
  for (int64_t i = 0; i < numAcc; ++i)
    accList += (i ? ", $" : "$") + std::to_string(i);
  int64_t next = 2 * numAcc;
  // scale-d = 1 (accumulate), as a predicate set from a register.
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  cs << ",r";
  int64_t scaleD = next++;
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << scaleD << ", 0;\n"
     << "wgmma.fence.sync.aligned;\n";
  std::string ty = typeSuffix(elemTy);
  for (const Step &step : steps) {
    os << "wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << ty << "."
       << ty << " {" << accList << "}, ";
    if (step.aDesc) {
      operands.push_back(step.aDesc);
      cs << ",l";
      os << "$" << next++ << ", ";
    } else {
      os << "{";
      for (auto [i, reg] : llvm::enumerate(step.aRegs)) {
        operands.push_back(reg);
        cs << ",r";
        os << (i ? ", $" : "$") << next++;
      }
      os << "}, ";
    }
    operands.push_back(step.bDesc);
    cs << ",l";
    os << "$" << next++ << ", p, 1, 1, ";
    if (step.aDesc)
      os << "0, ";
    os << (transB ? 1 : 0) << ";\n";
  }
  os << "wgmma.commit_group.sync.aligned;\n";
  if (!async)
    os << "wgmma.wait_group.sync.aligned 0;\n";
  os << "}";
  auto resultTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultTy, operands, os.str(), cs.str(),
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return accumulatorFragments(b, loc, accFrags, asmOp);
}

SmallVector<Value> WgmmaLowering::accumulatorAsm(OpBuilder &b, Location loc,
                                                 ValueRange accFrags,
                                                 StringRef text) {
  SmallVector<Value> accs = accumulatorScalars(b, loc, accFrags);
  int64_t numAcc = accs.size();
  std::string constraints;
  for (int64_t i = 0; i < numAcc; ++i)
    constraints += (i ? ",=f" : "=f");
  for (int64_t i = 0; i < numAcc; ++i)
    constraints += "," + std::to_string(i);
  auto resultTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultTy, accs, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return accumulatorFragments(b, loc, accFrags, asmOp);
}

SmallVector<Value> WgmmaLowering::matmulTransposedB(
    OpBuilder &b, Location loc, const TileOperand &a, const TileOperand &bTile,
    RankedTensorType accType, ValueRange acc, bool async) {
  // S = Q K^T: B = K^T with K stored [n][k], i.e. K-major.
  int64_t n = accType.getDimSize(1), k = a.type.getDimSize(1);
  Type elemTy = a.type.getElementType();
  Descriptor keys = kMajor(b, loc, bTile, cidx(b, loc, 0));
  std::optional<Descriptor> queries;
  if (a.inShared())
    queries = kMajor(b, loc, a, warpgroupRow0(b, loc));
  SmallVector<Step> steps;
  for (int64_t kk = 0; kk < k / kStepK; ++kk) {
    Step step;
    step.bDesc = descriptorValue(b, loc, keys, keys.kMajorStep(kk));
    if (queries)
      step.aDesc = descriptorValue(b, loc, *queries, queries->kMajorStep(kk));
    else
      step.aRegs = aRegisters(b, loc, a.fragments[kk]);
    steps.push_back(step);
  }
  return wgmmaChain(b, loc, n, elemTy, /*transB=*/false, steps, acc, async);
}

SmallVector<Value> WgmmaLowering::matmul(OpBuilder &b, Location loc,
                                         const TileOperand &a,
                                         const TileOperand &bTile,
                                         RankedTensorType accType,
                                         ValueRange acc, bool async) {
  // O += P V: V stored [k][n], i.e. MN-major (transposed B): core matrices
  // adjacent along N are 128 bytes apart, along K a row of them.
  int64_t n = accType.getDimSize(1), k = a.type.getDimSize(1);
  Type elemTy = a.type.getElementType();
  if (isTransposedView(a)) {
    // (Only the backward's dQ has one, and it is mapped to #fa.mma_sync.)
    mlir::emitError(loc) << "fa-lower-to-gpu: #fa.wgmma has no A operand "
                            "stored [k][m] (a transposed shared view)";
    return SmallVector<Value>(acc);
  }
  // Unswizzled: core matrices adjacent along N are 128 bytes apart, along
  // K a row of them; a k step (16 rows of V) is two rows of core matrices.
  // Swizzled: 64-column blocks of kRows rows of 128 bytes (the leading
  // stride), 8-row groups 1024 bytes apart; a k step is 16 rows.
  int64_t kRows = bTile.type.getDimSize(0);
  bool swizzledValues = isSwizzled(bTile.type);
  Descriptor values =
      swizzledValues
          ? Descriptor{sharedAddress(b, loc, bTile.sharedOffset),
                       kRows * 2 * kSwizzleCols, kSwizzleAtomBytes,
                       /*swizzle128=*/true}
          : Descriptor{sharedAddress(b, loc, bTile.sharedOffset),
                       (n / 8) * kCoreBytes, kCoreBytes};
  int64_t valueStepBytes = swizzledValues ? kStepK * 2 * kSwizzleCols
                                          : 2 * (n / 8) * kCoreBytes;
  std::optional<Descriptor> probs;
  if (a.inShared())
    probs = kMajor(b, loc, a, warpgroupRow0(b, loc));
  SmallVector<Step> steps;
  for (int64_t kk = 0; kk < k / kStepK; ++kk) {
    Step step;
    step.bDesc = descriptorValue(b, loc, values, kk * valueStepBytes);
    if (probs)
      step.aDesc = descriptorValue(b, loc, *probs, probs->kMajorStep(kk));
    else
      step.aRegs = aRegisters(b, loc, a.fragments[kk]);
    steps.push_back(step);
  }
  return wgmmaChain(b, loc, n, elemTy, /*transB=*/true, steps, acc, async);
}

FailureOr<SmallVector<Value>>
WgmmaLowering::convertLayout(OpBuilder &b, Location loc,
                             const TileOperand &from, RankedTensorType to) {
  if (!from.inShared())
    return MmaSyncLowering::convertLayout(b, loc, from, to);
  auto toRows = dyn_cast_or_null<WarpRowsAttr>(to.getEncoding());
  if (!toRows || toRows.getRole() != FragmentRole::OperandA ||
      isTransposedView(from))
    return failure();
  // Shared -> A registers: per k step one ldmatrix.x4 of the warp's 16
  // rows; lane l addresses row l % 16 of chunk 2 kk + l / 16 (in either
  // layout, the 8 rows of one matrix meet no bank twice).
  int64_t m = to.getDimSize(0), k = to.getDimSize(1);
  Type elemTy = to.getElementType();
  bool swizzled = isSwizzled(from.type);
  Value tile =
      tileView(b, loc, from.sharedOffset, m, k, elemTy, swizzled);
  Value lane = arith::RemUIOp::create(b, loc, threadId, cidx(b, loc, 32));
  Value row = arith::AddIOp::create(
      b, loc, warpRow0(b, loc, m),
      arith::RemUIOp::create(b, loc, lane, cidx(b, loc, 16)));
  Value laneChunk = arith::DivUIOp::create(b, loc, lane, cidx(b, loc, 16));
  auto fragTy = VectorType::get({4, 2}, elemTy);
  // Unswizzled: row l % 8 of core matrix (row / 8, 2 kk + l / 16).
  // Swizzled: row `row` of column block kk / 4 at chunk (2 (kk % 4) +
  // l / 16) ^ (row % 8), row % 8 being l % 8 (warps start on 16 rows).
  Value rowGroup = arith::DivUIOp::create(b, loc, row, cidx(b, loc, 8));
  Value inRow = arith::RemUIOp::create(b, loc, lane, cidx(b, loc, 8));
  SmallVector<Value> out;
  for (int64_t kk = 0; kk < k / kStepK; ++kk) {
    SmallVector<Value, 4> indices;
    if (swizzled) {
      int64_t perBlock = kSwizzleCols / kStepK;
      Value chunk = arith::AddIOp::create(b, loc, laneChunk,
                                          cidx(b, loc, 2 * (kk % perBlock)));
      indices = {cidx(b, loc, kk / perBlock), row,
                 arith::XOrIOp::create(b, loc, chunk, inRow),
                 cidx(b, loc, 0)};
    } else {
      indices = {rowGroup,
                 arith::AddIOp::create(b, loc, laneChunk, cidx(b, loc, 2 * kk)),
                 inRow, cidx(b, loc, 0)};
    }
    out.push_back(nvgpu::LdMatrixOp::create(b, loc, fragTy, tile, indices,
                                            /*transpose=*/false,
                                            /*numTiles=*/4));
  }
  return out;
}

void WgmmaLowering::copyTileAsync(OpBuilder &b, Location loc, Value source,
                                  const TileRows &rows, RankedTensorType tile,
                                  Value sharedOffset,
                                  int64_t l2PrefetchBytes) {
  int64_t tileRows = tile.getDimSize(0), cols = tile.getDimSize(1);
  int64_t perRow = cols / 8, threads = numThreads();
  Type elemTy = tile.getElementType();
  Value zero = opaqueZero(b, loc);
  auto [view, first] = rowsView(b, loc, source, rows);
  Value global = withOpaqueStride(b, loc, view, zero);
  bool swizzled = isSwizzled(tile);
  Value dst = tileView(b, loc,
                       arith::AddIOp::create(b, loc, sharedOffset, zero),
                       tileRows, cols, elemTy, swizzled);
  // Chunk q = tid + i * threads. Unswizzled: row (q / 8 / perRow) * 8 +
  // q % 8, column chunk (q / 8) % perRow, so 8 consecutive lanes fill one
  // core matrix. Swizzled: row q / perRow, chunk q % perRow, so 8
  // consecutive lanes fill one 128-byte row segment.
  int64_t total = tileRows * perRow;
  Value chunkElems = cidx(b, loc, 8), none = cidx(b, loc, 0);
  for (int64_t firstChunk = 0; firstChunk < total; firstChunk += threads) {
    Value q = arith::AddIOp::create(b, loc, threadId,
                                    cidx(b, loc, firstChunk));
    Value row, chunk;
    SmallVector<Value, 4> sharedIndices;
    if (swizzled) {
      row = arith::DivUIOp::create(b, loc, q, cidx(b, loc, perRow));
      chunk = arith::RemUIOp::create(b, loc, q, cidx(b, loc, perRow));
      sharedIndices = {
          arith::DivUIOp::create(b, loc, chunk, cidx(b, loc, 8)), row,
          arith::XOrIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, chunk, cidx(b, loc, 8)),
              arith::RemUIOp::create(b, loc, row, cidx(b, loc, 8))),
          none};
    } else {
      Value q8 = arith::DivUIOp::create(b, loc, q, cidx(b, loc, 8));
      Value rowGroup =
          arith::DivUIOp::create(b, loc, q8, cidx(b, loc, perRow));
      chunk = arith::RemUIOp::create(b, loc, q8, cidx(b, loc, perRow));
      Value inRow = arith::RemUIOp::create(b, loc, q, cidx(b, loc, 8));
      row = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, rowGroup, cidx(b, loc, 8)),
          inRow);
      sharedIndices = {rowGroup, chunk, inRow, none};
    }
    auto copy = [&](OpBuilder &nb, Location l) {
      Value valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                          row, rows.count);
      Value srcElems = arith::SelectOp::create(nb, l, valid, chunkElems, none);
      Value srcRow = arith::AddIOp::create(nb, l, first, row);
      Value col = arith::MulIOp::create(nb, l, chunk, chunkElems);
      auto copyOp = nvgpu::DeviceAsyncCopyOp::create(
          nb, l, nvgpu::DeviceAsyncTokenType::get(nb.getContext()), dst,
          sharedIndices, global,
          ValueRange{srcRow, col}, nb.getIndexAttr(8), srcElems,
          nb.getUnitAttr());
      setL2Prefetch(copyOp, l2PrefetchBytes);
    };
    if (firstChunk + threads <= total) {
      copy(b, loc);
      continue;
    }
    Value inTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                                         cidx(b, loc, total));
    scf::IfOp::create(b, loc, inTile, [&](OpBuilder &nb, Location l) {
      copy(nb, l);
      scf::YieldOp::create(nb, l);
    });
  }
}

LogicalResult WgmmaLowering::zeroTileRows(OpBuilder &b, Location loc,
                                          RankedTensorType tile,
                                          Value sharedOffset, Value fromRow) {
  int64_t tileRows = tile.getDimSize(0), cols = tile.getDimSize(1);
  if (!isSwizzled(tile) || cols % kSwizzleCols != 0 ||
      tile.getElementTypeBitWidth() != 16)
    return failure();
  // Column block c holds the tile's rows as 128-byte lines from byte
  // c * tileRows * 128 (copyTileByTma): rows [from, tileRows) of a block
  // are one byte range, whatever order the swizzle gives the 16-byte
  // chunks within a line. Each thread zeroes every numThreads()-th chunk.
  constexpr int64_t kRowBytes = 2 * kSwizzleCols, kChunkBytes = 16;
  int64_t blockBytes = tileRows * kRowBytes;
  Value chunksPerBlock = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, cidx(b, loc, tileRows), fromRow),
      cidx(b, loc, kRowBytes / kChunkBytes));
  Value total = arith::MulIOp::create(b, loc, chunksPerBlock,
                                      cidx(b, loc, cols / kSwizzleCols));
  Value start = arith::AddIOp::create(
      b, loc, sharedOffset,
      arith::MulIOp::create(b, loc, fromRow, cidx(b, loc, kRowBytes)));
  auto chunkTy = VectorType::get({4}, b.getI32Type());
  Value zeros = arith::ConstantOp::create(b, loc, b.getZeroAttr(chunkTy));
  scf::ForOp::create(
      b, loc, threadId, total, cidx(b, loc, numThreads()), ValueRange(),
      [&](OpBuilder &lb, Location l, Value chunk, ValueRange) {
        Value block = arith::DivUIOp::create(lb, l, chunk, chunksPerBlock);
        Value within = arith::RemUIOp::create(lb, l, chunk, chunksPerBlock);
        Value offset = arith::AddIOp::create(
            lb, l, start,
            arith::AddIOp::create(
                lb, l,
                arith::MulIOp::create(lb, l, block, cidx(lb, l, blockBytes)),
                arith::MulIOp::create(lb, l, within,
                                      cidx(lb, l, kChunkBytes))));
        LLVM::StoreOp::create(lb, l, zeros, sharedPointer(lb, l, offset),
                              /*alignment=*/kChunkBytes);
        scf::YieldOp::create(lb, l);
      });
  return success();
}

LogicalResult WgmmaLowering::copyTileByTma(OpBuilder &b, Location loc,
                                           Value map, const TileRows &rows,
                                           RankedTensorType tile,
                                           Value sharedOffset, Value barrier) {
  int64_t tileRows = tile.getDimSize(0), cols = tile.getDimSize(1);
  if (!isSwizzled(tile) || rows.alongHeads || cols % kSwizzleCols != 0)
    return failure();
  // One box of tileRows x 64 elements per column block: TMA writes it as
  // rows of 128 bytes with the 128-byte swizzle, the swizzled layout's
  // column block (tileView). Coordinates innermost first: column, row,
  // head, batch; rows past the tensor's end come back as zeros.
  Type i32 = b.getI32Type();
  auto toI32 = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, i32, v);
  };
  Value row = toI32(rows.row), head = toI32(rows.head),
        batch = toI32(rows.batch);
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  int64_t blockBytes = tileRows * 2 * kSwizzleCols;
  for (int64_t c = 0; c < cols / kSwizzleCols; ++c) {
    Value dst = sharedPointer(
        b, loc,
        arith::AddIOp::create(b, loc, sharedOffset,
                              cidx(b, loc, c * blockBytes)));
    Value dstCluster = LLVM::AddrSpaceCastOp::create(b, loc, clusterPtr, dst);
    Value col = arith::ConstantIntOp::create(b, loc, i32, c * kSwizzleCols);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dstCluster, map, ValueRange{col, row, head, batch}, barrier,
        ValueRange(), Value(), Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
  }
  return success();
}

void WgmmaLowering::storeAccToShared(OpBuilder &b, Location loc,
                                     RankedTensorType acc, ValueRange frags,
                                     Value sharedOffset) {
  gpu::BarrierOp::create(b, loc);
  // (Conversions into shared memory are never swizzled: LowerConvertLayout.)
  Value tile = tileView(b, loc, sharedOffset, acc.getDimSize(0),
                        acc.getDimSize(1), acc.getElementType(),
                        /*swizzled=*/false);
  inFirstReplica(b, loc, [&](OpBuilder &b, Location loc) {
    for (auto [f, frag] : llvm::enumerate(frags))
      for (int64_t h = 0; h < 2; ++h) {
        auto [row, col] = accPairPosition(b, loc, acc, f, h);
        Value pair =
            vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{h});
        vector::StoreOp::create(b, loc, pair, tile,
                                coreIndices(b, loc, row, col),
                                /*nontemporal=*/false, llvm::MaybeAlign(4));
      }
  });
  // Written by the generic proxy, read by wgmma (the async proxy).
  createAsmStatement(b, loc, "fence.proxy.async.shared::cta;");
  gpu::BarrierOp::create(b, loc);
}

} // namespace

void mlir::fa::createAsmStatement(OpBuilder &b, Location loc,
                                  StringRef text) {
  LLVM::InlineAsmOp::create(b, loc, Type(), ValueRange(), text, "",
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false, LLVM::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

std::unique_ptr<AtomLowering> mlir::fa::createWgmmaLowering() {
  return std::make_unique<WgmmaLowering>();
}
