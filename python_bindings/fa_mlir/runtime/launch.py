"""Runs launch plans on PyTorch tensors with the CUDA driver (cuda-python).

Pure Python: torch and `cuda.bindings.driver` are imported when the first
plan is loaded, never by `import fa_mlir`, so the compiler half and the CPU
tests need neither.

    plan = Plan("build/kernels", "fa_d64_f16_causal_h8x2_kernel")  # files
    out, lse = plan.attention(q, k, v)          # fa.attention's tensors
    plan(q=q, k=k, v=v, o=out, lse=lse)         # any plan: tensors by name

The plan, not this file, says everything about the launch (plan.py checks
the tensors against it before any launch). PTX is loaded per device on first
use and kept; launches go to PyTorch's current stream unless one is given.
"""
import ctypes
import math
import os
import struct
import threading

from .plan import LaunchPlan, TensorInfo, attention_scalars, load_plan_file
from .tensor_maps import TensorMapCache

_torch = None
_cu = None
_DTYPE_NAMES = None
_TORCH_DTYPES = None


def _imports():
    """torch and cuda.bindings.driver, imported on first use."""
    global _torch, _cu, _DTYPE_NAMES, _TORCH_DTYPES
    if _torch is None:
        try:
            import torch
            from cuda.bindings import driver
        except ImportError as e:
            raise ImportError(
                "running fa-mlir kernels needs PyTorch and cuda-python "
                "(pip install torch cuda-python): %s" % e) from e
        _DTYPE_NAMES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
                        torch.int32: "i32"}
        _TORCH_DTYPES = {name: dtype for dtype, name in _DTYPE_NAMES.items()}
        _cu, _torch = driver, torch
    return _torch, _cu


def check_cuda(result):
    """The value(s) of a cuda-python driver call; RuntimeError on an error."""
    err = result[0] if isinstance(result, tuple) else result
    if err != _cu.CUresult.CUDA_SUCCESS:
        _, name = _cu.cuGetErrorName(err)
        raise RuntimeError("CUDA driver error: %s" % (name.decode() if name else err))
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


# struct codes of the parameter kinds, each value in an 8-byte slot; a TMA
# tensor map (TENSOR_MAP) in a 128-byte slot on 64 bytes.
TENSOR_MAP = "tensor_map"
_SLOT_CODES = {ctypes.c_void_p: "Q", ctypes.c_int32: "i4x", ctypes.c_int64: "q",
               ctypes.c_float: "f4x", TENSOR_MAP: "128s"}


class ParamBuffer:
    """A kernel's flattened parameters in one buffer, and the array of
    pointers into it that cuLaunchKernel takes as `kernelParams` (by
    address). One struct.pack_into per launch instead of cuda-python
    converting every value; the driver copies the values when the launch
    is issued (or captured), so the buffer is reused, under a lock."""

    def __init__(self, types):
        codes, offsets, offset = [], [], 0
        for t in types:
            size, align = (128, 64) if t == TENSOR_MAP else (8, 8)
            pad = -offset % align
            codes.append("%dx" % pad if pad else "")
            offset += pad
            offsets.append(offset)
            codes.append(_SLOT_CODES[t])
            offset += size
        self.struct = struct.Struct("=" + "".join(codes))
        # 64 more bytes: the slots are placed from a 64-byte aligned start.
        self.data = ctypes.create_string_buffer(max(offset, 8) + 64)
        self.start = -ctypes.addressof(self.data) % 64
        base = ctypes.addressof(self.data) + self.start
        self.pointers = (ctypes.c_void_p * max(len(types), 1))(
            *[base + o for o in offsets])
        self.address = ctypes.addressof(self.pointers)
        self.lock = threading.Lock()

    def pack(self, values):
        """Writes `values`; returns the kernelParams address."""
        self.struct.pack_into(self.data, self.start, *values)
        return self.address


# FA_MLIR_LAUNCH_PARAMS=tuples passes (values, ctypes) tuples to cuda-python
# instead (slower; the reference the packed buffer is tested against).
_TUPLE_PARAMS = os.environ.get("FA_MLIR_LAUNCH_PARAMS") == "tuples"


_primary_contexts = {}


def ensure_context(index):
    """Makes device `index`'s primary context (the one PyTorch uses) current
    on this thread. A thread that has not made a CUDA runtime call yet, such
    as autograd's backward worker running fa_mlir.attention's backward, has
    no current context, and the driver calls below would fail with
    CUDA_ERROR_INVALID_CONTEXT (a PyTorch allocation served from its cache
    makes no runtime call)."""
    ctx = _primary_contexts.get(index)
    if ctx is None:
        device = check_cuda(_cu.cuDeviceGet(index))
        ctx = _primary_contexts[index] = check_cuda(_cu.cuDevicePrimaryCtxRetain(device))
    current = check_cuda(_cu.cuCtxGetCurrent())
    if current is None or int(current) != int(ctx):
        check_cuda(_cu.cuCtxSetCurrent(ctx))


def _check_fits(plan, index):
    """UnsupportedDeviceError (fa_mlir.chips) naming the chip to compile for
    when `plan` cannot run on device `index`: PTX for a newer chip, or more
    shared memory a thread block than the GPU has. Without this the driver
    answers CUDA_ERROR_NO_BINARY_FOR_GPU or CUDA_ERROR_INVALID_VALUE."""
    from ..chips import check_plan_fits
    attr = _cu.CUdevice_attribute
    device = check_cuda(_cu.cuDeviceGet(index))
    major = check_cuda(_cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                                device))
    minor = check_cuda(_cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                                device))
    optin = check_cuda(_cu.cuDeviceGetAttribute(
        attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device))
    check_plan_fits(plan.name, plan.chip, plan.kernels, major, minor, optin)


class _DeviceKernels:
    """The plan's kernels loaded into one device's primary context."""

    def __init__(self, plan, ptx, index):
        _check_fits(plan, index)
        self.modules, self.functions = [], []
        for kernel in plan.kernels:
            image = ptx[kernel["name"]]
            if isinstance(image, str):
                image = image.encode()
            module = check_cuda(_cu.cuModuleLoadData(image + b"\0"))
            self.modules.append(module)
            function = check_cuda(_cu.cuModuleGetFunction(module, kernel["name"].encode()))
            check_cuda(_cu.cuFuncSetAttribute(
                function,
                _cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(kernel["dynamic_shared_memory"])))
            self.functions.append(function)


class LoadedPlan:
    """A launch plan with its PTX, runnable on torch tensors."""

    def __init__(self, plan, ptx):
        torch, _ = _imports()
        self.plan = plan if isinstance(plan, LaunchPlan) else LaunchPlan(plan)
        missing = [k["name"] for k in self.plan.kernels if k["name"] not in ptx]
        if missing:
            raise ValueError("no PTX for kernel(s) %s" % ", ".join(missing))
        self.ptx = dict(ptx)
        self.tensors = self.plan.tensors
        self.scalars = self.plan.scalars
        self.index_type = ctypes.c_int32 if self.plan.index_bitwidth == 32 else ctypes.c_int64
        # The ctypes of each kernel's flattened parameters (parameter ABI):
        # fixed by the plan, so computed once, not per launch.
        kinds = {"ptr": ctypes.c_void_p, "index": self.index_type, "f32": ctypes.c_float}
        # (A scalar's dtype, "f32" or "index", is its kind.)
        self._param_types = []
        for kernel in self.plan.kernels:
            types = []
            for p in kernel["params"]:
                buffer = self.plan.tensors.get(p) or self.plan.workspaces.get(p)
                if p in self.plan.tensor_maps:
                    types.append(TENSOR_MAP)
                elif buffer is not None:
                    rank = len(buffer["shape"])
                    types += [kinds["ptr"]] * 2 + [kinds["index"]] * (1 + 2 * rank)
                else:
                    types.append(kinds[self.plan.scalars[p]["dtype"]])
            self._param_types.append(tuple(types))
        self._buffers = [ParamBuffer(t) for t in self._param_types]
        # Tensor signatures (dtype, shape, strides, address mod 16) that
        # passed plan.check, with their grids: a repeated call skips the
        # checks' Python work.
        self._checked = {}
        self._devices = {}
        self._tensor_maps = TensorMapCache()

    def load(self, device=None):
        """Loads the PTX into `device`'s context (default: the current
        device) unless it is there; returns the per-device kernels."""
        torch, _ = _imports()
        index = torch.cuda.current_device() if device is None else device
        kernels = self._devices.get(index)
        if kernels is None:
            with torch.cuda.device(index):
                torch.cuda.init()
                torch.empty(1, device="cuda")  # Initialises the primary context.
                ensure_context(index)
                kernels = _DeviceKernels(self.plan, self.ptx, index)
            self._devices[index] = kernels
        return kernels

    def __call__(self, stream=None, **arguments):
        """Runs the plan's kernels, in order, on tensors (and optionally
        scalars) given by name; scalars default to their compile-time value."""
        torch, cu = _imports()
        arrays = {}
        device = None
        for name in self.plan.tensors:
            t = arguments.get(name)
            if t is None:
                raise ValueError("missing tensor %r" % name)
            if not isinstance(t, torch.Tensor) or not t.is_cuda:
                raise TypeError("%s: expected a CUDA tensor, got %s" % (
                    name, t.device if isinstance(t, torch.Tensor) else type(t).__name__))
            index = t.get_device()
            if device is None:
                device = index
            elif index != device:
                raise ValueError("%s is on cuda:%d, the other tensors on cuda:%d" % (
                    name, index, device))
            dtype = _DTYPE_NAMES.get(t.dtype)
            if dtype is None:
                raise TypeError("%s: unsupported dtype %s" % (name, t.dtype))
            arrays[name] = TensorInfo(dtype, t.shape, t.stride(), t.data_ptr())
        scalars = self.plan.scalar_values(
            {n: v for n, v in arguments.items() if n in self.plan.scalars})
        # Integer scalars (a run-time split count) size grids and workspaces.
        index_scalars = {n: scalars[n] for n in self.plan.index_scalars}
        signature = tuple((a.dtype, a.shape, a.strides, a.data_ptr & 15)
                          for a in arrays.values()) + tuple(index_scalars.values())
        checked = self._checked.get(signature)
        if checked is None:
            self.plan.check(arrays)
            shapes = {n: a.shape for n, a in arrays.items()}
            workspace_shapes = self.plan.workspace_shapes(shapes, index_scalars)
            shapes.update(workspace_shapes)
            grids = [self.plan.grid(k, shapes, index_scalars) for k in self.plan.kernels]
            computed = self.plan.computed_scalars(shapes, index_scalars)
            if len(self._checked) > 1024:
                self._checked.clear()
            checked = self._checked[signature] = (grids, workspace_shapes, computed)
        grids, workspace_shapes, computed = checked
        scalars.update(computed)
        explicit_stream = stream is not None
        if stream is None:
            stream = torch.cuda.current_stream(device).cuda_stream
        # Workspaces come from PyTorch's caching allocator (cheap per call,
        # and from the graph's pool under CUDA-graph capture); freed when
        # this call returns, they are reused only by work ordered after the
        # kernels on the current stream, or on `stream` once recorded there.
        # Contiguous: a kernel may take a workspace with constant strides
        # (docs/launch-plan.md).
        workspaces = []
        for name, shape in workspace_shapes.items():
            dtype = self.plan.workspaces[name]["dtype"]
            w = torch.empty(shape, dtype=_TORCH_DTYPES[dtype], device="cuda:%d" % device)
            if explicit_stream:
                w.record_stream(torch.cuda.ExternalStream(stream, device=device))
            workspaces.append(w)
            arrays[name] = TensorInfo(dtype, tuple(w.shape), w.stride(), w.data_ptr())
        kernels = self._devices.get(device) or self.load(device)
        ensure_context(device)
        for i, kernel in enumerate(self.plan.kernels):
            grid = grids[i]
            if grid is None:
                continue  # Nothing to compute (an empty batch or sequence).
            values, kinds = self.plan.params(kernel, arrays, scalars)
            if TENSOR_MAP in kinds:
                values = [self._tensor_maps.get(*v) if kind == TENSOR_MAP else v
                          for v, kind in zip(values, kinds)]
            function = kernels.functions[i]
            shared = int(kernel["dynamic_shared_memory"])
            # (cuda-python's tuples have no 128-byte kind: maps go packed.)
            if _TUPLE_PARAMS and TENSOR_MAP not in kinds:
                check_cuda(cu.cuLaunchKernel(function, *grid, *kernel["block"], shared, stream,
                                             (tuple(values), self._param_types[i]), 0))
                continue
            buffer = self._buffers[i]
            with buffer.lock:
                check_cuda(cu.cuLaunchKernel(function, *grid, *kernel["block"], shared, stream,
                                             buffer.pack(values), 0))

    def attention(self, q, k, v, out=None, lse=None, scale=None, softcap=None, stream=None,
                  num_splits=None):
        """fa.attention: O (and LSE if the plan has it) for q, k, v
        ([B, H, N, D], any strides the plan accepts), allocated unless given.
        `scale` (and, for a plan compiled with a cap, `softcap`) override the
        compiled values. `num_splits`: the split-KV chunk count of a plan
        compiled with a run-time count (fa-to-ptx splits=0; required there)."""
        torch, _ = _imports()
        if out is None:
            out = torch.empty(tuple(q.shape[:3]) + tuple(v.shape[3:]), dtype=q.dtype,
                              device=q.device)
        arguments = dict(q=q, k=k, v=v, o=out)
        if "lse" in self.plan.tensors:
            if lse is None:
                lse = torch.empty(tuple(q.shape[:3]), dtype=torch.float32, device=q.device)
            arguments["lse"] = lse
        if scale is not None or softcap is not None:
            if scale is None:
                scale = 1.0 / math.sqrt(q.shape[-1])
            arguments.update(attention_scalars(self.plan, scale, softcap))
        if num_splits is not None:
            if "num_splits" not in self.plan.scalars:
                raise ValueError("plan %s has no run-time split count (num_splits)"
                                 % self.plan.name)
            arguments["num_splits"] = num_splits
        self(stream=stream, **arguments)
        return out, (lse if "lse" in self.plan.tensors else None)


class Plan(LoadedPlan):
    """The plan DIR/<name>.json with the PTX files it names, as
    `fa-opt --fa-to-ptx{output-dir=DIR}` writes them."""

    def __init__(self, directory, name):
        plan, ptx = load_plan_file(directory, name)
        super().__init__(plan, ptx)
        self.load()
