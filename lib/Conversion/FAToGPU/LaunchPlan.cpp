//===- LaunchPlan.cpp - What a runtime needs to run the kernels -----------===//

#include "LaunchPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
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
  SmallVector<Attribute> scalarAttrs;
  for (const Scalar &s : scalars)
    scalarAttrs.push_back(b.getDictionaryAttr(
        {named("name", str(s.name)), named("dtype", str(dtypeName(s.type))),
         named("value", s.value ? s.value : Attribute(b.getUnitAttr()))}));
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
  return b.getDictionaryAttr({
      named("format", str(kFormat)),
      named("version", b.getI64IntegerAttr(kVersion)),
      named("name", str(name)),
      named("chip", str(chip)),
      named("index_bitwidth", b.getI64IntegerAttr(indexBitwidth)),
      named("tensors", b.getArrayAttr(tensorAttrs)),
      named("scalars", b.getArrayAttr(scalarAttrs)),
      named("workspaces", b.getArrayAttr({})),
      named("kernels", b.getArrayAttr(kernelAttrs)),
  });
}

FailureOr<Attribute>
mlir::fa::gridExpression(Value v,
                         const DenseMap<Value, std::string> &tensorNames) {
  Builder b(v.getContext());
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return Attribute(b.getI64IntegerAttr(constant.getSExtValue()));
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
