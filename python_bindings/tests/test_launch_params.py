"""The packed kernel-parameter buffer (launch.ParamBuffer) holds exactly the
values cuda-python's own (values, ctypes) packing would pass the driver.

Needs cuda-python (cuda.bindings.driver), not a GPU: cuda-python packs a
tuple into a void** array when it is assigned to a
CUDA_KERNEL_NODE_PARAMS.kernelParams; both arrays are read back here.
"""
import ctypes
import math

import pytest

driver = pytest.importorskip("cuda.bindings.driver")

from fa_mlir.runtime.launch import ParamBuffer  # noqa: E402
from fa_mlir.runtime.plan import LaunchPlan  # noqa: E402

from test_plan import PLAN, arrays  # noqa: E402


def read(address, types):
    """The values a void** array at `address` points to, as `types`."""
    pointers = (ctypes.c_void_p * len(types)).from_address(address)
    return [t.from_address(p).value for t, p in zip(types, pointers)]


def raw(address, types):
    pointers = (ctypes.c_void_p * len(types)).from_address(address)
    return [ctypes.string_at(p, ctypes.sizeof(t)) for t, p in zip(types, pointers)]


TYPES = {"ptr": ctypes.c_void_p, "f32": ctypes.c_float}


@pytest.mark.parametrize("index", [ctypes.c_int32, ctypes.c_int64])
def test_packed_buffer_equals_cuda_python_packing(index):
    plan = LaunchPlan(PLAN)
    a = arrays(b=3, nq=1000, nk=77)
    a["q"] = a["q"]._replace(data_ptr=0x7F12_3456_7890)
    values, kinds = plan.params(plan.kernels[0], a, {"softmax_scale_log2": 0.1803368777})
    types = tuple(TYPES.get(k, index) for k in kinds)
    buffer = ParamBuffer(types)  # kept alive: it owns the memory read below
    ours = buffer.pack(values)
    node = driver.CUDA_KERNEL_NODE_PARAMS()
    node.kernelParams = (tuple(values), types)
    theirs = int(node.kernelParams)
    assert raw(ours, types) == raw(theirs, types)
    got = read(ours, types)
    assert got[:11] == [0x7F12_3456_7890, 0x7F12_3456_7890, 0, 3, 8, 1000, 64,
                        8 * 1000 * 64, 1000 * 64, 64, 1]
    assert math.isclose(got[-1], 0.1803368777, rel_tol=1e-7)


def test_buffer_is_reused_and_rewritten():
    types = (ctypes.c_void_p, ctypes.c_int32, ctypes.c_float)
    buf = ParamBuffer(types)
    first = buf.pack([16, -5, 1.5])
    assert read(first, types) == [16, -5, 1.5]
    assert buf.pack([32, 7, -2.0]) == first
    assert read(first, types) == [32, 7, -2.0]


def test_values_out_of_range_are_refused():
    import struct
    buf = ParamBuffer((ctypes.c_int32,))
    with pytest.raises(struct.error):
        buf.pack([2 ** 31])
