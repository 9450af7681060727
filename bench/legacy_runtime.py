"""The loader of fa-mlir kernels as they were up to commit ffb817e (JSON
launch record, grid from the tensors), kept only so that bench/ab_compare.py
can time the kernels of that compiler next to the current ones. Loads fa-mlir kernels (PTX + JSON launch record) and runs them on PyTorch
tensors through the CUDA driver API (cuda-python).

Pure Python: needs torch and cuda-python on the GPU machine, nothing from the
compiler. `--fa-to-ptx{output-dir=DIR}` writes DIR/<kernel>.ptx and
DIR/<kernel>.json; `Kernel(DIR, name)` loads them.

The JSON record gives the launch ABI: grid (ceildiv(Nq, block_m), Hq, B),
block, dynamic shared memory, and the parameters q, k, v, o[, lse], each a
flattened memref descriptor (allocated ptr, aligned ptr, offset, sizes,
strides; integers of `index_bitwidth` bits, in elements).
"""
import ctypes
import json
import os

import torch
from cuda.bindings import driver as cu

_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def _check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise RuntimeError("CUDA driver error: %s" % name.decode())
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


class Kernel:
    def __init__(self, directory, name):
        with open(os.path.join(directory, name + ".json")) as f:
            self.record = json.load(f)
        with open(os.path.join(directory, name + ".ptx"), "rb") as f:
            ptx = f.read() + b"\0"
        torch.cuda.init()
        torch.empty(1, device="cuda")  # Makes the primary context current.
        self.module = _check(cu.cuModuleLoadData(ptx))
        self.function = _check(cu.cuModuleGetFunction(self.module, name.encode()))
        self.shared_bytes = int(self.record["dynamic_shared_memory"])
        _check(cu.cuFuncSetAttribute(
            self.function,
            cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            self.shared_bytes))
        self.dtype = _DTYPES[self.record["dtype"]]
        self.block_m = int(self.record["block_m"])
        self.threads = int(self.record["block"][0])
        self.has_lse = "lse" in self.record["params"]
        # Sizes, strides and offsets are passed as index_bitwidth integers.
        self.index_bits = int(self.record.get("index_bitwidth", 64))
        self.index_type = ctypes.c_int32 if self.index_bits == 32 else ctypes.c_int64

    def _validate(self, q, k, v):
        # The kernel reads B, H and N from its arguments; it bakes in the head
        # dims, the dtype and the ratio Hq / Hkv.
        r = self.record
        group = r["num_heads"] // r["num_kv_heads"]
        for name, t, dim in (("q", q, r["head_dim"]), ("k", k, r["head_dim"]),
                             ("v", v, r["value_head_dim"])):
            if t.dtype != self.dtype or t.dim() != 4 or t.shape[3] != dim:
                raise ValueError("%s: expected [B, H, N, %d] %s, got %s %s" % (
                    name, dim, self.dtype, tuple(t.shape), t.dtype))
            if t.stride(3) != 1 or not t.is_cuda:
                raise ValueError("%s: must be a CUDA tensor with contiguous rows" % name)
            # The kernel moves rows in 16-byte chunks (cp.async, stores).
            if t.data_ptr() % 16 or any(st % 8 for st in t.stride()[:3]):
                raise ValueError("%s: base pointer must be 16-byte aligned and strides "
                                 "multiples of 8 elements, got strides %s" % (name, t.stride()))
        if q.shape[1] != group * k.shape[1]:
            raise ValueError("this kernel was compiled for Hq / Hkv = %d, got %d / %d" % (
                group, q.shape[1], k.shape[1]))
        if k.shape[:3] != v.shape[:3] or q.shape[0] != k.shape[0]:
            raise ValueError("q, k, v: batch, heads or key lengths differ")

    def _check_index_range(self, tensors):
        # With 32-bit indices the kernel computes element offsets in int32.
        limit = 2 ** (self.index_bits - 1)
        for t in tensors:
            reach = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
            if reach >= limit:
                raise ValueError(
                    "tensor of shape %s reaches %d elements, more than this kernel's "
                    "%d-bit indices address; compile with index-bitwidth=64" % (
                        tuple(t.shape), reach, self.index_bits))

    def __call__(self, q, k, v, out=None, lse=None, stream=None):
        """Runs attention; returns (out, lse) (lse None without an LSE output)."""
        self._validate(q, k, v)
        batch, heads, nq = q.shape[0], q.shape[1], q.shape[2]
        if out is None:
            out = torch.empty(batch, heads, nq, v.shape[3], dtype=q.dtype, device=q.device)
        if self.has_lse and lse is None:
            lse = torch.empty(batch, heads, nq, dtype=torch.float32, device=q.device)
        tensors = (q, k, v, out) + ((lse,) if self.has_lse else ())
        self._check_index_range(tensors)
        values, types = [], []
        for t in tensors:
            values += [t.data_ptr(), t.data_ptr(), 0] + list(t.shape) + list(t.stride())
            types += [ctypes.c_void_p, ctypes.c_void_p] + [self.index_type] * (1 + 2 * t.dim())
        grid = ((nq + self.block_m - 1) // self.block_m, heads, batch)
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        if nq > 0:
            _check(cu.cuLaunchKernel(self.function, *grid, self.threads, 1, 1,
                                     self.shared_bytes, stream,
                                     (tuple(values), tuple(types)), 0))
        return out, (lse if self.has_lse else None)
