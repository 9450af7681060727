"""Runs fa-mlir kernels by their launch plan (docs/launch-plan.md).

Pure Python: torch and cuda-python (`cuda.bindings.driver`) on the GPU
machine, nothing from the compiler. `fa-opt --fa-to-ptx{output-dir=DIR}`
writes DIR/<kernel>.ptx for each kernel and DIR/<plan>.json for each lowered
fa.attention; `Plan(DIR, name)` loads them:

    plan = Plan("build/kernels", "fa_d64_f16_causal_h32x32_kernel")
    out, lse = plan.attention(q, k, v)             # fa.attention's tensors
    plan(q=q, k=k, v=v, o=out, lse=lse)            # any plan: tensors by name

The plan, not this file, says everything about the launch: which tensors the
kernels take (names, dtypes, the static dims they were compiled for), the
scalars (with their compile-time values), and per kernel its grid (as
expressions of the tensors' sizes), block, dynamic shared memory and
parameter order. Inputs are checked against it before any launch.
"""
import ctypes
import json
import math
import os

import torch
from cuda.bindings import driver as cu

PLAN_FORMAT = "fa-mlir-launch-plan"
PLAN_VERSION = 1
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
# Grid limits of every CUDA GPU: x up to 2^31 - 1 blocks, y and z 65535.
GRID_LIMITS = (2 ** 31 - 1, 65535, 65535)

_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "divui": lambda a, b: a // b,
    "divsi": lambda a, b: int(a / b),
    "floordivsi": lambda a, b: a // b,
    "ceildivui": lambda a, b: -(-a // b),
    "ceildivsi": lambda a, b: -(-a // b),
    "remui": lambda a, b: a % b,
    "remsi": lambda a, b: int(math.fmod(a, b)),
    "minsi": min, "minui": min, "maxsi": max, "maxui": max,
}


def evaluate(expr, shapes):
    """A grid expression of the plan, for tensors of the given shapes."""
    if isinstance(expr, int):
        return expr
    if "dim" in expr:
        name, index = expr["dim"]
        return shapes[name][index]
    args = [evaluate(a, shapes) for a in expr["args"]]
    return _OPS[expr["op"]](*args)


def _check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise RuntimeError("CUDA driver error: %s" % name.decode())
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


class _Kernel:
    def __init__(self, directory, record):
        self.record = record
        with open(os.path.join(directory, record["ptx"]), "rb") as f:
            ptx = f.read() + b"\0"
        self.module = _check(cu.cuModuleLoadData(ptx))
        self.function = _check(cu.cuModuleGetFunction(self.module, record["name"].encode()))
        self.shared_bytes = int(record["dynamic_shared_memory"])
        _check(cu.cuFuncSetAttribute(
            self.function,
            cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            self.shared_bytes))


class Plan:
    def __init__(self, directory, name):
        with open(os.path.join(directory, name + ".json")) as f:
            self.plan = json.load(f)
        if self.plan.get("format") != PLAN_FORMAT or self.plan.get("version") != PLAN_VERSION:
            raise ValueError("%s.json is not a version-%d fa-mlir launch plan" % (name, PLAN_VERSION))
        torch.cuda.init()
        torch.empty(1, device="cuda")  # Makes the primary context current.
        self.tensors = {t["name"]: t for t in self.plan["tensors"]}
        self.scalars = {s["name"]: s for s in self.plan["scalars"]}
        if self.plan["workspaces"]:
            raise NotImplementedError("plans with workspaces are not supported yet")
        self.kernels = [_Kernel(directory, k) for k in self.plan["kernels"]]
        bits = int(self.plan["index_bitwidth"])
        self.index_type = ctypes.c_int32 if bits == 32 else ctypes.c_int64
        self.index_limit = 2 ** (bits - 1)

    # -- checks ----------------------------------------------------------
    def _validate(self, arrays):
        for name, spec in self.tensors.items():
            if name not in arrays:
                raise ValueError("missing tensor %r" % name)
            t = arrays[name]
            if not isinstance(t, torch.Tensor) or not t.is_cuda:
                raise TypeError("%s: expected a CUDA tensor" % name)
            if t.dtype != DTYPES[spec["dtype"]]:
                raise TypeError("%s: expected %s, got %s" % (name, spec["dtype"], t.dtype))
            shape = spec["shape"]
            if t.dim() != len(shape) or any(s is not None and s != n for s, n in zip(shape, t.shape)):
                raise ValueError("%s: expected shape %s (None = any), got %s" % (
                    name, shape, tuple(t.shape)))
            if t.numel() and t.stride(-1) != 1:
                raise ValueError("%s: the last dimension must be contiguous" % name)
            if t.element_size() == 2 and t.numel():
                # Rows move in 16-byte chunks (cp.async, vector stores).
                if t.data_ptr() % 16 or any(st % 8 for st in t.stride()[:-1]):
                    raise ValueError("%s: base pointer must be 16-byte aligned and strides "
                                     "multiples of 8 elements, got strides %s" % (name, t.stride()))
            reach = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
            if reach >= self.index_limit:
                raise ValueError("%s reaches %d elements, more than the kernels' %d-bit indices "
                                 "address; compile with index-bitwidth=64" % (
                                     name, reach, int(self.plan["index_bitwidth"])))

    # -- launch ----------------------------------------------------------
    def __call__(self, stream=None, **arguments):
        """Runs the plan's kernels, in order, on tensors (and optionally
        scalars) given by name; scalars default to their compile-time value."""
        arrays = {n: arguments[n] for n in self.tensors if n in arguments}
        self._validate(arrays)
        scalars = {}
        for name, spec in self.scalars.items():
            value = arguments.get(name, spec["value"])
            if value is None:
                raise ValueError("scalar %r has no compile-time value: pass it" % name)
            scalars[name] = float(value)
        shapes = {n: tuple(t.shape) for n, t in arrays.items()}
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        for kernel in self.kernels:
            grid = [evaluate(e, shapes) for e in kernel.record["grid"]]
            if min(grid) <= 0:
                continue  # Nothing to compute (an empty batch or sequence).
            for g, limit in zip(grid, GRID_LIMITS):
                if g > limit:
                    raise ValueError("grid %s exceeds the GPU's limits %s" % (grid, GRID_LIMITS))
            values, types = [], []
            for param in kernel.record["params"]:
                if param in arrays:
                    t = arrays[param]
                    values += [t.data_ptr(), t.data_ptr(), 0] + list(t.shape) + list(t.stride())
                    types += [ctypes.c_void_p] * 2 + [self.index_type] * (1 + 2 * t.dim())
                else:
                    values.append(scalars[param])
                    types.append(ctypes.c_float)
            _check(cu.cuLaunchKernel(kernel.function, *grid, *kernel.record["block"],
                                     kernel.shared_bytes, stream,
                                     (tuple(values), tuple(types)), 0))

    def attention(self, q, k, v, out=None, lse=None, scale=None, stream=None):
        """fa.attention: O (and LSE if the plan has it) for q, k, v, allocated
        unless given. `scale` overrides the compiled softmax scale."""
        if out is None:
            out = torch.empty(q.shape[:3] + v.shape[3:], dtype=q.dtype, device=q.device)
        arguments = dict(q=q, k=k, v=v, o=out)
        if "lse" in self.tensors:
            if lse is None:
                lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
            arguments["lse"] = lse
        if scale is not None:
            arguments["softmax_scale_log2"] = scale * math.log2(math.e)
        self(stream=stream, **arguments)
        return out, (lse if "lse" in self.tensors else None)
