//===- LaunchPlan.h - What a runtime needs to run the kernels ---*- C++ -*-===//
//
// The one definition of the launch ABI. --fa-lower-to-gpu builds a
// LaunchPlan for each loop nest it lowers and attaches it to the launch as
// the `fa.launch_plan` attribute; --fa-export-kernels writes it as JSON next
// to the PTX; bench/fa_runtime.py (and any runtime) follows it. The format
// is documented in docs/launch-plan.md.
//
//===----------------------------------------------------------------------===//

#ifndef FA_LIB_CONVERSION_FATOGPU_LAUNCHPLAN_H
#define FA_LIB_CONVERSION_FATOGPU_LAUNCHPLAN_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <string>

namespace mlir {
namespace fa {

struct LaunchPlan {
  static constexpr StringLiteral kFormat = "fa-mlir-launch-plan";
  static constexpr int64_t kVersion = 1;
  /// The attribute that carries the plan on the gpu.launch_func.
  static constexpr StringLiteral kAttrName = "fa.launch_plan";

  /// A tensor the kernels read or write, passed by the caller.
  struct Tensor {
    std::string name;      // q, k, v, o, lse (or in<i> / out<i>)
    RankedTensorType type; // static dims are what the kernels were built for
    bool output;
  };
  /// A scalar kernel parameter, or an integer input of the plan.
  struct Scalar {
    std::string name;     // softmax_scale_log2, num_splits, index<i>, ...
    Type type;            // f32, or index (an integer of index_bitwidth bits)
    Attribute value;      // The compile-time value, or null.
    /// For an index parameter the runtime computes: its expression (see
    /// gridExpression) of the tensors' sizes and the integer inputs.
    Attribute expression;
  };
  /// A buffer the runtime allocates for the plan's kernels (written by one
  /// kernel, read by a later one), e.g. split-KV's partial results.
  struct Workspace {
    std::string name;
    Type elementType;
    SmallVector<Attribute> shape; // Expressions (see gridExpression).
  };
  /// A TMA tensor map the runtime makes from a tensor (cuTensorMapEncodeTiled)
  /// and passes by value (128 bytes): `box` in the tensor's dimension order
  /// (outermost first), the 128-byte swizzle, L2 promotion of 128 bytes,
  /// zeros past the tensor's extent.
  struct TensorMap {
    std::string name;   // <tensor>_map
    std::string tensor; // A tensor of the plan.
    SmallVector<int64_t, 4> box;
  };
  /// One kernel launch, in order.
  struct Kernel {
    std::string name;          // Symbol in the PTX; <name>.ptx on disk.
    SmallVector<Attribute> grid; // x, y, z expressions (see gridExpression).
    int64_t threads = 0;       // Block size (x); y = z = 1.
    int64_t sharedBytes = 0;   // Dynamic shared memory.
    SmallVector<std::string> params; // Tensor and scalar names, in order.
  };

  std::string name;
  std::string chip;
  unsigned indexBitwidth = 32;
  SmallVector<Tensor> tensors;
  /// Integer values the caller passes that no kernel takes as they are: the
  /// grid, workspace and parameter expressions name them (num_splits).
  SmallVector<Scalar> inputs;
  SmallVector<Scalar> scalars; // The kernels' scalar parameters.
  SmallVector<Workspace> workspaces;
  SmallVector<TensorMap> tensorMaps;
  SmallVector<Kernel> kernels;

  DictionaryAttr toAttr(MLIRContext *ctx) const;
};

/// One lowered loop nest as the host sees it: its launch, the host values
/// it takes (the plan's tensors, then its scalars, in parameter order), its
/// grid sizes and its own plan.
struct LoweredKernel {
  Operation *launch;
  SmallVector<Value> hostArgs;
  SmallVector<Value, 3> grid;
  LaunchPlan plan;
  SmallVector<Value> inputArgs; // The host values of plan.inputs.
};

/// The one plan of several kernels launched in order by one function (e.g.
/// split-KV's attention and merge kernels): a tensor that one kernel writes
/// and a later one reads becomes a workspace (it must be a tensor.empty of
/// the host code, whose sizes give its shape), every other tensor is the
/// caller's, and tensors, scalars and the grids are named once. Fails with a
/// diagnostic on the first launch when that cannot be expressed.
FailureOr<LaunchPlan> mergeLaunchPlans(ArrayRef<LoweredKernel> kernels);

/// The tensor a host value of a launch is a view of (through tensor.cast
/// and the to_tensor(to_buffer(x)) pairs that lowered launches leave).
Value launchTensorRoot(Value v);

/// The host index value `v` (a grid size) as an expression a runtime can
/// evaluate: an integer, {"dim": [tensor, i]} for a dimension of a named
/// tensor, {"scalar": name} for a named integer scalar parameter, or {"op": name, "args": [...]} with name in add, sub, mul,
/// divui, ceildivui, floordivsi, ceildivsi, divsi, remui, remsi, minsi,
/// maxsi, minui, maxui. Failure for anything else.
FailureOr<Attribute>
gridExpression(Value v, const DenseMap<Value, std::string> &tensorNames);

} // namespace fa
} // namespace mlir

#endif // FA_LIB_CONVERSION_FATOGPU_LAUNCHPLAN_H
