//===- IndexMaterializer.h - Host index math -> kernel index math -*- C++ -*-===//
//
// The tiled loop nest computes its offsets and bounds (q0, the key/value head,
// rows in a partial block, loop bounds of causal block skipping) with index
// arithmetic on the forall induction variables and on tensor sizes. The GPU
// kernel needs the same values: this class clones those computations into the
// kernel, reading tensor sizes from the kernel's memref arguments and the
// induction variables from the block ids.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_INDEXMATERIALIZER_H
#define FA_LIB_CONVERSION_FATOGPU_INDEXMATERIALIZER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace fa {

class IndexMaterializer {
public:
  /// `tensorToMemref` maps host tensors to the kernel memrefs that hold them
  /// (for tensor.dim); `mapping` holds the values already known in the kernel
  /// (induction variables).
  IndexMaterializer(DenseMap<Value, Value> tensorToMemref, IRMapping mapping)
      : tensorToMemref(std::move(tensorToMemref)),
        mapping(std::move(mapping)) {}

  /// A scope that also maps `hostValue` to `kernelValue` (a loop induction
  /// variable); values cloned in it stay in it.
  IndexMaterializer withValue(Value hostValue, Value kernelValue) const {
    IndexMaterializer scope = *this;
    scope.mapping.map(hostValue, kernelValue);
    return scope;
  }

  /// The kernel value of host index value `v`, cloning its computation at the
  /// builder's insertion point; failure if it depends on anything but index
  /// arithmetic, tensor sizes and mapped values.
  FailureOr<Value> get(OpBuilder &b, Value v);
  FailureOr<Value> get(OpBuilder &b, OpFoldResult ofr);

private:
  DenseMap<Value, Value> tensorToMemref;
  IRMapping mapping;
};

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_INDEXMATERIALIZER_H
