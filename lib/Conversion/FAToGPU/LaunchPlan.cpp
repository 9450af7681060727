//===- LaunchPlan.cpp - What a runtime needs to run the kernels -----------===//

#include "LaunchPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa;

/// f16, bf16, f32, i32, ... as the runtime names them.
static std::string dtypeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

DictionaryAttr LaunchPlan::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  auto str = [&](StringRef s) { return b.getStringAttr(s); };
  auto named = [&](StringRef key, Attribute value) {
    return b.getNamedAttr(key, value);
  };
  SmallVector<Attribute> tensorAttrs;
  for (const Tensor &t : tensors) {
    SmallVector<Attribute> shape;
    for (int64_t d : t.type.getShape())
      shape.push_back(ShapedType::isDynamic(d) ? Attribute(b.getUnitAttr())
                                               : b.getI64IntegerAttr(d));
    tensorAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(t.name)),
         named("dtype", str(dtypeName(t.type.getElementType()))),
         named("shape", b.getArrayAttr(shape)),
         named("output", b.getBoolAttr(t.output))}));
  }
  // The inputs, then the parameters; an input, or a parameter the caller
  // passes, has value null; a parameter the runtime computes has its
  // expression as its value. (A parameter that is an input passed as is is
  // listed once.)
  SmallVector<Attribute> scalarAttrs;
  llvm::StringSet<> listed;
  auto addScalar = [&](const Scalar &s) {
    if (!listed.insert(s.name).second)
      return;
    Attribute value = s.expression ? s.expression : s.value;
    scalarAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(s.name)), named("dtype", str(dtypeName(s.type))),
         named("value", value ? value : Attribute(b.getUnitAttr()))}));
  };
  llvm::for_each(inputs, addScalar);
  llvm::for_each(scalars, addScalar);
  SmallVector<Attribute> workspaceAttrs;
  for (const Workspace &w : workspaces)
    workspaceAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(w.name)),
         named("dtype", str(dtypeName(w.elementType))),
         named("shape", b.getArrayAttr(w.shape))}));
  SmallVector<Attribute> mapAttrs;
  for (const TensorMap &m : tensorMaps)
    mapAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(m.name)), named("tensor", str(m.tensor)),
         named("box", b.getI64ArrayAttr(m.box)),
         named("swizzle", b.getI64IntegerAttr(128)),
         named("l2_promotion", b.getI64IntegerAttr(128))}));
  SmallVector<Attribute> kernelAttrs;
  for (const Kernel &k : kernels) {
    SmallVector<Attribute> params;
    for (const std::string &p : k.params)
      params.push_back(str(p));
    kernelAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(k.name)), named("ptx", str(k.name + ".ptx")),
         named("grid", b.getArrayAttr(k.grid)),
         named("block", b.getI64ArrayAttr({k.threads, 1, 1})),
         named("dynamic_shared_memory", b.getI64IntegerAttr(k.sharedBytes)),
         named("params", b.getArrayAttr(params))}));
  }
  SmallVector<NamedAttribute> fields = {
      named("format", str(kFormat)),
      named("version", b.getI64IntegerAttr(kVersion)),
      named("name", str(name)),
      named("chip", str(chip)),
      named("index_bitwidth", b.getI64IntegerAttr(indexBitwidth)),
      named("tensors", b.getArrayAttr(tensorAttrs)),
      named("scalars", b.getArrayAttr(scalarAttrs)),
      named("workspaces", b.getArrayAttr(workspaceAttrs)),
      named("kernels", b.getArrayAttr(kernelAttrs)),
  };
  // Only plans with TMA copies have the field (a loader that does not
  // know it refuses their kernels' unknown parameters).
  if (!mapAttrs.empty())
    fields.push_back(named("tensor_maps", b.getArrayAttr(mapAttrs)));
  return b.getDictionaryAttr(fields);
}

FailureOr<Attribute>
mlir::fa::gridExpression(Value v,
                         const DenseMap<Value, std::string> &tensorNames) {
  Builder b(v.getContext());
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return Attribute(b.getI64IntegerAttr(constant.getSExtValue()));
  // An integer parameter of the plan (a run-time split count).
  if (auto it = tensorNames.find(v);
      it != tensorNames.end() && v.getType().isIntOrIndex())
    return Attribute(b.getDictionaryAttr(
        b.getNamedAttr("scalar", b.getStringAttr(it->second))));
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();
  if (auto dim = dyn_cast<tensor::DimOp>(def)) {
    auto it = tensorNames.find(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (it == tensorNames.end() || !index)
      return failure();
    return Attribute(b.getDictionaryAttr(b.getNamedAttr(
        "dim", b.getArrayAttr({b.getStringAttr(it->second),
                               b.getI64IntegerAttr(*index)}))));
  }
  if (auto cast = dyn_cast<arith::IndexCastOp>(def))
    return gridExpression(cast.getIn(), tensorNames);
  StringRef op =
      llvm::TypeSwitch<Operation *, StringRef>(def)
          .Case([](arith::AddIOp) { return "add"; })
          .Case([](arith::SubIOp) { return "sub"; })
          .Case([](arith::MulIOp) { return "mul"; })
          .Case([](arith::DivUIOp) { return "divui"; })
          .Case([](arith::DivSIOp) { return "divsi"; })
          .Case([](arith::CeilDivUIOp) { return "ceildivui"; })
          .Case([](arith::CeilDivSIOp) { return "ceildivsi"; })
          .Case([](arith::FloorDivSIOp) { return "floordivsi"; })
          .Case([](arith::RemUIOp) { return "remui"; })
          .Case([](arith::RemSIOp) { return "remsi"; })
          .Case([](arith::MinSIOp) { return "minsi"; })
          .Case([](arith::MaxSIOp) { return "maxsi"; })
          .Case([](arith::MinUIOp) { return "minui"; })
          .Case([](arith::MaxUIOp) { return "maxui"; })
          .Default([](Operation *) { return ""; });
  if (op.empty())
    return failure();
  SmallVector<Attribute> args;
  for (Value operand : def->getOperands()) {
    FailureOr<Attribute> arg = gridExpression(operand, tensorNames);
    if (failed(arg))
      return failure();
    args.push_back(*arg);
  }
  return Attribute(b.getDictionaryAttr(
      {b.getNamedAttr("op", b.getStringAttr(op)),
       b.getNamedAttr("args", b.getArrayAttr(args))}));
}

Value mlir::fa::launchTensorRoot(Value v) {
  // A buffer a kernel writes in place: the tensor it is the buffer of.
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  if (auto toBuffer = v.getDefiningOp<bufferization::ToBufferOp>())
    v = toBuffer.getTensor();
  while (true) {
    if (auto cast = v.getDefiningOp<tensor::CastOp>()) {
      v = cast.getSource();
      continue;
    }
    auto toTensor = v.getDefiningOp<bufferization::ToTensorOp>();
    if (!toTensor)
      return v;
    Value buffer = toTensor.getBuffer();
    while (auto cast = buffer.getDefiningOp<memref::CastOp>())
      buffer = cast.getSource();
    auto toBuffer = buffer.getDefiningOp<bufferization::ToBufferOp>();
    if (!toBuffer)
      return v;
    v = toBuffer.getTensor();
  }
}

FailureOr<LaunchPlan>
mlir::fa::mergeLaunchPlans(ArrayRef<LoweredKernel> kernels) {
  Operation *first = kernels.front().launch;
  auto error = [&]() {
    return first->emitError("fa-lower-to-gpu: cannot make one launch plan of "
                            "the kernels of this function: ");
  };
  // Every tensor (by root), in order of first appearance.
  struct Use {
    Value root;
    RankedTensorType type;
    std::string name;    // From the kernel that names it best.
    int64_t writer = -1; // Index of the first kernel that writes it.
    int64_t lastReader = -1;
  };
  SmallVector<Use> uses;
  DenseMap<Value, size_t> useOf;
  for (auto [k, kernel] : llvm::enumerate(kernels)) {
    for (auto [i, t] : llvm::enumerate(kernel.plan.tensors)) {
      Value root = launchTensorRoot(kernel.hostArgs[i]);
      auto [it, inserted] = useOf.try_emplace(root, uses.size());
      if (inserted)
        uses.push_back(Use{root, t.type, t.name});
      Use &use = uses[it->second];
      if (t.output && use.writer < 0)
        use.writer = k;
      if (!t.output) {
        use.lastReader = k;
        // A workspace is named after what its reader makes of it.
        if (use.writer >= 0 && use.writer < static_cast<int64_t>(k))
          use.name = t.name;
      }
    }
  }

  for (const LoweredKernel &kernel : kernels)
    if (!kernel.plan.tensorMaps.empty())
      return error() << "kernel " << kernel.plan.kernels.front().name
                     << " takes TMA tensor maps, which a plan of several "
                        "kernels does not carry yet";
  LaunchPlan merged;
  const LaunchPlan &head = kernels.front().plan;
  merged.name = head.name;
  merged.chip = head.chip;
  merged.indexBitwidth = head.indexBitwidth;
  StringSet<> taken;
  auto unique = [&](std::string name) {
    std::string base = name;
    for (int i = 1; taken.contains(name); ++i)
      name = base + "_" + std::to_string(i);
    taken.insert(name);
    return name;
  };
  DenseMap<Value, std::string> names; // Root and alias values -> name.
  SmallVector<size_t> workspaceUses;
  for (auto [u, use] : llvm::enumerate(uses)) {
    use.name = unique(use.name);
    names[use.root] = use.name;
    bool workspace = use.writer >= 0 && use.lastReader > use.writer;
    if (workspace)
      workspaceUses.push_back(u);
    else
      merged.tensors.push_back(
          LaunchPlan::Tensor{use.name, use.type, use.writer >= 0});
  }
  for (const LoweredKernel &kernel : kernels)
    for (auto [i, t] : llvm::enumerate(kernel.plan.tensors))
      names[kernel.hostArgs[i]] = names[launchTensorRoot(kernel.hostArgs[i])];
  // Integer inputs, once per host value: the expressions below name them.
  for (const LoweredKernel &kernel : kernels)
    for (auto [input, arg] : llvm::zip(kernel.plan.inputs, kernel.inputArgs)) {
      if (names.count(arg))
        continue;
      names[arg] = unique(input.name);
      merged.inputs.push_back(
          LaunchPlan::Scalar{names[arg], input.type, {}, {}});
    }
  for (size_t u : workspaceUses) {
    Use &use = uses[u];
    auto empty = use.root.getDefiningOp<tensor::EmptyOp>();
    if (!empty)
      return error() << "'" << use.name
                     << "' passes from one kernel to the next but is not a "
                        "tensor.empty the runtime can allocate";
    LaunchPlan::Workspace w{use.name, use.type.getElementType(), {}};
    Builder attrs(empty.getContext());
    for (OpFoldResult size : empty.getMixedSizes()) {
      if (std::optional<int64_t> c = getConstantIntValue(size)) {
        w.shape.push_back(attrs.getI64IntegerAttr(*c));
        continue;
      }
      FailureOr<Attribute> expr = gridExpression(cast<Value>(size), names);
      if (failed(expr))
        return error() << "the size of workspace '" << use.name
                       << "' is not arithmetic on the sizes of the tensors";
      w.shape.push_back(*expr);
    }
    merged.workspaces.push_back(std::move(w));
  }

  // Scalars, once per host value; a computed one re-expressed in the
  // merged names.
  DenseMap<Value, std::string> scalarNames;
  unsigned computed = 0;
  for (const LoweredKernel &kernel : kernels) {
    size_t base = kernel.plan.tensors.size();
    for (auto [i, s] : llvm::enumerate(kernel.plan.scalars)) {
      Value v = kernel.hostArgs[base + i];
      if (scalarNames.count(v))
        continue;
      // An input passed as is keeps the input's name (and is not a second
      // scalar of that name).
      if (auto it = names.find(v);
          it != names.end() && v.getType().isIntOrIndex()) {
        scalarNames[v] = it->second;
        continue;
      }
      // (Computed parameters are numbered afresh across the kernels.)
      scalarNames[v] = unique(s.expression ? "index" + std::to_string(computed++)
                                           : s.name);
      Attribute expr;
      if (s.expression) {
        FailureOr<Attribute> e = gridExpression(v, names);
        if (failed(e))
          return error() << "scalar '" << s.name
                         << "' is not arithmetic on the sizes of the tensors";
        expr = *e;
      }
      merged.scalars.push_back(
          LaunchPlan::Scalar{scalarNames[v], s.type, s.value, expr});
    }
  }

  for (const LoweredKernel &kernel : kernels) {
    LaunchPlan::Kernel k = kernel.plan.kernels.front();
    k.params.clear();
    size_t base = kernel.plan.tensors.size();
    for (auto [i, v] : llvm::enumerate(kernel.hostArgs))
      k.params.push_back(i < base ? names[v] : scalarNames[v]);
    // (The names are a superset of each kernel's own, with which its grid
    // was expressed already: a failure here would be an inconsistency of
    // this function, reported rather than asserted.)
    for (auto [d, size] : llvm::enumerate(kernel.grid)) {
      FailureOr<Attribute> expr = gridExpression(size, names);
      if (failed(expr))
        return error() << "grid dimension " << d << " of kernel " << k.name
                       << " is not arithmetic on the sizes of the tensors";
      k.grid[d] = *expr;
    }
    merged.kernels.push_back(std::move(k));
  }
  return merged;
}
