"""Launch plans (docs/launch-plan.md) read and checked without a GPU.

Everything here is pure Python and knows nothing of torch or CUDA: a tensor
is described by a `TensorInfo` (dtype name, shape, strides in elements, base
address), so the checks, the grid arithmetic and the packing of kernel
parameters run (and are tested) on a machine without either. `launch.py`
turns torch tensors into `TensorInfo`s and hands the packed parameters to the
CUDA driver.
"""
import json
import math
import os
from collections import namedtuple

from .tensor_maps import check_spec as check_tensor_map

PLAN_FORMAT = "fa-mlir-launch-plan"
PLAN_VERSION = 1
# Grid limits of every CUDA GPU: x up to 2^31 - 1 blocks, y and z 65535.
GRID_LIMITS = (2 ** 31 - 1, 65535, 65535)
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4}
# Scalar parameters: a 4-byte float, or an integer of index_bitwidth bits.
SCALAR_DTYPES = ("f32", "index")

# What the plan needs to know of a tensor. `strides` are in elements, like
# torch's; `data_ptr` is the address of element [0, ..., 0].
TensorInfo = namedtuple("TensorInfo", "dtype shape strides data_ptr")

_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "divui": lambda a, b: a // b,
    "divsi": lambda a, b: _div_toward_zero(a, b),
    "floordivsi": lambda a, b: a // b,
    "ceildivui": lambda a, b: -(-a // b),
    "ceildivsi": lambda a, b: -(-a // b),
    "remui": lambda a, b: a % b,
    "remsi": lambda a, b: a - b * _div_toward_zero(a, b),
    "minsi": min, "minui": min, "maxsi": max, "maxui": max,
}


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _div_toward_zero(a, b):
    """arith.divsi: the quotient truncated toward zero, exact for any size
    (a float division loses it past 2^53)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class PlanFormatError(ValueError):
    """A launch plan this runtime cannot follow (unknown format, version,
    operator, or a malformed field)."""


# Deeper than any expression the compiler writes (a handful of levels).
_MAX_EXPRESSION_DEPTH = 64


def evaluate(expr, shapes, scalars=None, _depth=0):
    """A grid or workspace expression of the plan, for tensors of the given
    shapes ({name: tuple of sizes}) and integer scalars ({name: int}, e.g.
    a run-time `num_splits`)."""
    if _depth > _MAX_EXPRESSION_DEPTH:
        raise PlanFormatError("grid expression nested deeper than %d" % _MAX_EXPRESSION_DEPTH)
    if isinstance(expr, bool):
        raise PlanFormatError("a boolean is not a grid expression: %r" % (expr,))
    if isinstance(expr, int):
        return expr
    if not isinstance(expr, dict):
        raise PlanFormatError("not a grid expression: %r" % (expr,))
    if "dim" in expr:
        ref = expr["dim"]
        if not (isinstance(ref, list) and len(ref) == 2 and isinstance(ref[0], str)
                and isinstance(ref[1], int) and not isinstance(ref[1], bool)):
            raise PlanFormatError("a dim is [tensor name, axis], got %r" % (ref,))
        name, index = ref
        if name not in shapes:
            raise PlanFormatError("grid expression names unknown tensor %r" % name)
        if not 0 <= index < len(shapes[name]):
            raise PlanFormatError("grid expression names axis %d of %r, which has %d" % (
                index, name, len(shapes[name])))
        return shapes[name][index]
    if "scalar" in expr:
        name = expr["scalar"]
        if not scalars or name not in scalars:
            raise PlanFormatError("grid expression names unknown integer scalar %r" % (name,))
        return scalars[name]
    op = expr.get("op")
    if op not in _OPS:
        raise PlanFormatError("unknown operator %r in a grid expression" % (op,))
    if not isinstance(expr.get("args"), list):
        raise PlanFormatError("operator %r needs a list of args, got %r" % (op, expr.get("args")))
    args = [evaluate(a, shapes, scalars, _depth + 1) for a in expr["args"]]
    if len(args) != 2:
        raise PlanFormatError("operator %r takes two arguments, got %d" % (op, len(args)))
    if op in ("divui", "divsi", "floordivsi", "ceildivui", "ceildivsi", "remui", "remsi") \
            and args[1] == 0:
        raise ValueError("grid expression divides by zero: %r" % (expr,))
    return _OPS[op](*args)


class LaunchPlan:
    """A parsed launch plan: its tensors, scalars and kernels, with the
    checks every launch must pass and the kernel parameters it packs."""

    def __init__(self, plan):
        try:
            self._parse(plan)
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            # A field missing or of the wrong kind, found where it is read.
            raise PlanFormatError("malformed launch plan %r: %s: %s" % (
                plan.get("name") if isinstance(plan, dict) else None,
                type(e).__name__, e)) from None

    def _parse(self, plan):
        if not isinstance(plan, dict) or plan.get("format") != PLAN_FORMAT \
                or plan.get("version") != PLAN_VERSION:
            raise PlanFormatError("not a version-%d %s (format %r, version %r)" % (
                PLAN_VERSION, PLAN_FORMAT,
                plan.get("format") if isinstance(plan, dict) else None,
                plan.get("version") if isinstance(plan, dict) else None))
        self.plan = plan
        self.name = plan["name"]
        self.chip = plan.get("chip")
        self.tensors = {t["name"]: t for t in plan["tensors"]}
        self.scalars = {s["name"]: s for s in plan["scalars"]}
        for t in plan["tensors"]:
            if t["dtype"] not in ELEMENT_BYTES:
                raise PlanFormatError("tensor %r has unsupported dtype %r" % (t["name"], t["dtype"]))
        for s in plan["scalars"]:
            if s["dtype"] not in SCALAR_DTYPES:
                raise PlanFormatError("scalar %r has unsupported dtype %r" % (s["name"], s["dtype"]))
        # Integer scalars (index_bitwidth bits): inputs the caller passes
        # (value null, e.g. num_splits), which grids, workspaces and computed
        # scalars may name, and parameters the runtime computes (value: an
        # expression of the tensors' sizes and the inputs).
        self.index_scalars = [n for n, s in self.scalars.items()
                              if s["dtype"] == "index" and s["value"] is None]
        self.computed = {}
        for n, s in self.scalars.items():
            if isinstance(s["value"], dict):
                if s["dtype"] != "index":
                    raise PlanFormatError("scalar %r: only index scalars are computed" % n)
                self.computed[n] = s["value"]
        # Buffers the runtime allocates (contiguous) for the kernels: one
        # kernel writes them, a later one reads them (split-KV's partials).
        self.workspaces = {}
        for w in plan.get("workspaces", []):
            if w["dtype"] not in ELEMENT_BYTES:
                raise PlanFormatError("workspace %r has unsupported dtype %r" % (
                    w["name"], w["dtype"]))
            if w["name"] in self.tensors or w["name"] in self.scalars:
                raise PlanFormatError("workspace %r has the name of a tensor or scalar"
                                      % w["name"])
            self.workspaces[w["name"]] = w
        # TMA tensor maps the runtime makes from a tensor (tensor_maps.py).
        self.tensor_maps = {}
        for m in plan.get("tensor_maps", []):
            try:
                check_tensor_map(m, self.tensors)
            except ValueError as e:
                raise PlanFormatError(str(e)) from None
            if m["name"] in self.tensors or m["name"] in self.scalars \
                    or m["name"] in self.workspaces or m["name"] in self.tensor_maps:
                raise PlanFormatError("tensor map %r has the name of another entry" % m["name"])
            self.tensor_maps[m["name"]] = m
        self.kernels = plan["kernels"]
        for k in self.kernels:
            for p in k["params"]:
                if p not in self.tensors and p not in self.scalars \
                        and p not in self.workspaces and p not in self.tensor_maps:
                    raise PlanFormatError("kernel %s takes unknown parameter %r" % (k["name"], p))
            if len(k["grid"]) != 3 or len(k["block"]) != 3:
                raise PlanFormatError("kernel %s: grid and block must have 3 entries" % k["name"])
            block, smem = k["block"], k.get("dynamic_shared_memory", 0)
            if not all(_is_int(b) and b > 0 for b in block) or block[0] * block[1] * block[2] > 1024:
                raise PlanFormatError("kernel %s: block %r is not 1 to 1024 threads" % (
                    k["name"], block))
            if not (_is_int(smem) and smem >= 0):
                raise PlanFormatError("kernel %s: dynamic_shared_memory %r is not a byte count" % (
                    k["name"], smem))
        if len(self.tensors) != len(plan["tensors"]):
            raise PlanFormatError("two tensors of the plan have one name")
        self.index_bitwidth = plan["index_bitwidth"]
        if not _is_int(self.index_bitwidth) or self.index_bitwidth not in (32, 64):
            raise PlanFormatError("index_bitwidth must be 32 or 64, got %r" % (self.index_bitwidth,))
        self.index_limit = 2 ** (self.index_bitwidth - 1)

    @classmethod
    def from_file(cls, path):
        with open(path) as f:
            return cls(json.load(f))

    def ptx_files(self):
        """{kernel name: PTX file name} as the plan records them."""
        return {k["name"]: k["ptx"] for k in self.kernels}

    # -- checks ----------------------------------------------------------
    def check(self, arrays):
        """Raises ValueError/TypeError naming the first tensor in `arrays`
        ({name: TensorInfo}) the kernels cannot take."""
        for name, spec in self.tensors.items():
            if name not in arrays:
                raise ValueError("missing tensor %r" % name)
            t = arrays[name]
            if t.dtype != spec["dtype"]:
                raise TypeError("%s: expected %s, got %s" % (name, spec["dtype"], t.dtype))
            shape = spec["shape"]
            if len(t.shape) != len(shape) or any(
                    s is not None and s != n for s, n in zip(shape, t.shape)):
                raise ValueError("%s: expected shape %s (None = any), got %s" % (
                    name, shape, tuple(t.shape)))
            numel = 1
            for n in t.shape:
                numel *= n
            if not numel:
                continue
            if t.strides[-1] != 1:
                raise ValueError("%s: the last dimension must be contiguous (stride 1), "
                                 "got strides %s" % (name, tuple(t.strides)))
            if any(st < 0 for st in t.strides):
                raise ValueError("%s: negative strides %s" % (name, tuple(t.strides)))
            if ELEMENT_BYTES[t.dtype] == 2:
                # Rows move in 16-byte chunks (cp.async, vector stores).
                if t.data_ptr % 16 or any(st % 8 for n, st in zip(t.shape[:-1], t.strides[:-1])
                                          if n > 1):
                    raise ValueError(
                        "%s: the base address must be 16-byte aligned and every stride but "
                        "the last a multiple of 8 elements, got address %% 16 = %d and "
                        "strides %s" % (name, t.data_ptr % 16, tuple(t.strides)))
            reach = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.strides))
            for n in list(t.shape) + [reach]:
                if n >= self.index_limit:
                    raise ValueError(
                        "%s spans %d elements, more than the kernels' %d-bit indices "
                        "address (%d); split the batch or compile with index-bitwidth=64" % (
                            name, reach, self.index_bitwidth, self.index_limit - 1))

    def scalar_values(self, overrides):
        """{scalar name: float, or int for an index scalar}: `overrides`
        first, else the compiled value."""
        values = {}
        for name, spec in self.scalars.items():
            if name in self.computed:
                if name in overrides:
                    raise ValueError("scalar %r is computed from the tensors' sizes and "
                                     "cannot be passed" % name)
                continue  # computed_scalars() gives it.
            value = overrides.get(name, spec.get("value"))
            if value is None:
                raise ValueError("scalar %r has no compile-time value: pass it" % name)
            if spec["dtype"] != "index":
                values[name] = float(value)
                continue
            if isinstance(value, bool) or not isinstance(value, int) and not (
                    hasattr(value, "__index__")):
                raise TypeError("scalar %r is an integer, got %r" % (name, value))
            value = int(value)
            if not 0 <= value < self.index_limit:
                raise ValueError("scalar %r must be in [0, %d), got %d" % (
                    name, self.index_limit, value))
            values[name] = value
        return values

    def computed_scalars(self, shapes, inputs):
        """{name: int} of the scalars the runtime computes, for tensors (and
        workspaces) of `shapes` and the integer `inputs`."""
        values = {}
        for name, expr in self.computed.items():
            value = evaluate(expr, shapes, inputs)
            if not 0 <= value < self.index_limit:
                raise ValueError("scalar %s would be %d, outside the kernels' %d-bit indices"
                                 % (name, value, self.index_bitwidth))
            values[name] = value
        return values

    # -- launch geometry and parameters ------------------------------------
    def workspace_shapes(self, shapes, scalars=None):
        """{workspace name: shape} for tensors of `shapes` and the integer
        `scalars` (the shapes of earlier workspaces may be used by later
        ones)."""
        known = dict(shapes)
        result = {}
        for name, w in self.workspaces.items():
            shape = tuple(evaluate(e, known, scalars) for e in w["shape"])
            if any(n < 0 for n in shape):
                raise ValueError("workspace %s would have shape %s" % (name, shape))
            numel = 1
            for n in shape:
                numel *= n
            if numel >= self.index_limit:
                raise ValueError(
                    "workspace %s needs %d elements, more than the kernels' %d-bit indices "
                    "address; split the batch or compile with index-bitwidth=64" % (
                        name, numel, self.index_bitwidth))
            result[name] = known[name] = shape
        return result

    def grid(self, kernel, shapes, scalars=None):
        """(x, y, z) blocks of `kernel` for tensors of `shapes` (and integer
        `scalars`), or None when one is 0 (nothing to compute: an empty
        batch or sequence)."""
        grid = tuple(evaluate(e, shapes, scalars) for e in kernel["grid"])
        if min(grid) < 0:
            raise PlanFormatError("grid %s of kernel %r is negative for these sizes" % (
                grid, kernel.get("name")))
        if min(grid) == 0:
            return None
        for g, limit in zip(grid, GRID_LIMITS):
            if g > limit:
                raise ValueError("grid %s exceeds the GPU's limits %s" % (grid, GRID_LIMITS))
        return grid

    def params(self, kernel, arrays, scalars):
        """The kernel's arguments, flattened as the parameter ABI says:
        (values, kinds) with kinds "ptr", "index", "f32" or "tensor_map"
        (the value: the map's plan entry and its tensor). `arrays` holds
        the tensors and the workspaces by name; an index scalar is passed
        as an "index"."""
        values, kinds = [], []
        for param in kernel["params"]:
            if param in self.tensor_maps:
                # (spec, tensor): launch.py encodes the 128 bytes.
                spec = self.tensor_maps[param]
                values.append((spec, arrays[spec["tensor"]]))
                kinds.append("tensor_map")
                continue
            if param in self.tensors or param in self.workspaces:
                t = arrays[param]
                # allocated pointer, aligned pointer, offset, sizes, strides.
                values += [t.data_ptr, t.data_ptr, 0]
                values += list(t.shape) + list(t.strides)
                kinds += ["ptr", "ptr"] + ["index"] * (1 + 2 * len(t.shape))
            else:
                values.append(scalars[param])
                kinds.append("index" if self.scalars[param]["dtype"] == "index" else "f32")
        return values, kinds


def load_plan_file(directory, name):
    """The plan DIR/<name>.json and its PTX {kernel name: bytes}."""
    plan = LaunchPlan.from_file(os.path.join(directory, name + ".json"))
    ptx = {}
    for kernel, file_name in plan.ptx_files().items():
        if os.path.basename(file_name) != file_name:
            raise PlanFormatError("kernel %s: PTX file %r is not a plain file name" % (
                kernel, file_name))
        with open(os.path.join(directory, file_name), "rb") as f:
            ptx[kernel] = f.read()
    return plan, ptx


LOG2E = math.log2(math.e)


def attention_scalars(plan, scale, softcap=None):
    """The scalar parameters of an fa.attention plan for softmax scale
    `scale` and soft cap `softcap` (None: none). Without a cap the kernel
    takes scale * log2(e). With one, the kernel computes tanh(scale * s /
    cap) (`softcap_scale` = scale / cap) and the softmax takes the cap in
    its scale, cap * log2(e) (docs/launch-plan.md; test/Pipelines/to-ptx.mlir,
    SOFTCAP). A plan that also has a `softcap` parameter multiplies by the
    cap itself and takes log2(e) as the softmax scale (the form before
    2026-12-01, which hand-written plans may still use)."""
    has_cap = "softcap_scale" in plan.scalars
    if "softmax_scale_log2" not in plan.scalars:
        raise PlanFormatError("plan %s has no softmax_scale_log2 parameter" % plan.name)
    if has_cap != (softcap is not None):
        raise ValueError("plan %s was compiled %s a soft cap, called %s one" % (
            plan.name, "with" if has_cap else "without", "with" if softcap is not None
            else "without"))
    if not has_cap:
        return {"softmax_scale_log2": scale * LOG2E}
    if "softcap" in plan.scalars:
        return {"softcap_scale": scale / softcap, "softcap": float(softcap),
                "softmax_scale_log2": LOG2E}
    return {"softcap_scale": scale / softcap, "softmax_scale_log2": softcap * LOG2E}


def backward_scalars(plan, scale, softcap=None):
    """The scalar parameters of an fa.attention_backward plan: the softmax
    scale (folded into dS), the exp2 scale of P (scale * log2(e), or log2(e)
    for capped scores, which include the scale), and with a cap the cap and
    fa.softcap's scale / cap (docs/backward.md)."""
    has_cap = "softcap_scale" in plan.scalars
    if "softmax_scale" not in plan.scalars or "softmax_scale_log2" not in plan.scalars:
        raise PlanFormatError("plan %s is not a backward plan (no softmax_scale)" % plan.name)
    if has_cap != (softcap is not None):
        raise ValueError("plan %s was compiled %s a soft cap, called %s one" % (
            plan.name, "with" if has_cap else "without", "with" if softcap is not None
            else "without"))
    if not has_cap:
        return {"softmax_scale": scale, "softmax_scale_log2": scale * LOG2E}
    return {"softmax_scale": scale, "softmax_scale_log2": LOG2E,
            "softcap_scale": scale / softcap, "softcap": float(softcap)}
