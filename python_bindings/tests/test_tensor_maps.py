"""TMA tensor maps of a launch plan (runtime/tensor_maps.py): the plan's
entries are checked, the driver's cuTensorMapEncodeTiled gets the tensor
innermost dimension first with byte strides, and a map takes a 128-byte,
64-aligned parameter slot. No GPU: the encoding itself is the driver's."""
import copy
import ctypes
import struct

import pytest

from fa_mlir.runtime import plan as P
from fa_mlir.runtime import tensor_maps as T
from fa_mlir.runtime.launch import TENSOR_MAP, ParamBuffer

from test_plan import PLAN, arrays, contiguous


def tma_plan():
    plan = copy.deepcopy(PLAN)
    plan["chip"] = "sm_90a"
    plan["tensor_maps"] = [
        {"name": "k_map", "tensor": "k", "box": [1, 1, 64, 64], "swizzle": 128,
         "l2_promotion": 128},
        {"name": "v_map", "tensor": "v", "box": [1, 1, 64, 64], "swizzle": 128,
         "l2_promotion": 128}]
    plan["kernels"][0]["params"] += ["k_map", "v_map"]
    return plan


def test_maps_are_parameters_after_the_others():
    plan = P.LaunchPlan(tma_plan())
    a = arrays(b=3, nq=100, nk=77)
    values, kinds = plan.params(plan.kernels[0], a, {"softmax_scale_log2": 0.5})
    assert kinds[-2:] == ["tensor_map", "tensor_map"]
    assert values[-2] == (plan.tensor_maps["k_map"], a["k"])
    assert values[-1] == (plan.tensor_maps["v_map"], a["v"])


def test_map_arguments_are_innermost_first_in_bytes():
    spec = P.LaunchPlan(tma_plan()).tensor_maps["k_map"]
    # [B, H, N, D] = [3, 2, 77, 64], contiguous: strides 9856, 4928, 64, 1.
    args = T.map_arguments(spec, contiguous("f16", (3, 2, 77, 64), address=1 << 20))
    assert args.dims == [64, 77, 2, 3]
    assert args.strides == [128, 77 * 128, 2 * 77 * 128]
    assert args.box == [64, 64, 1, 1]
    assert args.element_strides == [1, 1, 1, 1]
    assert (args.data_type, args.rank, args.address) == (6, 4, 1 << 20)
    assert (args.swizzle, args.l2) == (3, 2)  # 128-byte swizzle, L2 128 B
    bf16 = T.map_arguments(spec, contiguous("bf16", (3, 2, 77, 64)))
    assert bf16.data_type == 9


def test_strided_layouts_and_size_one_dimensions():
    spec = P.LaunchPlan(tma_plan()).tensor_maps["k_map"]
    # [B, N, H, D] memory viewed as [B, H, N, D]: strides (N*H*D, D, H*D, 1).
    info = P.TensorInfo("f16", (2, 4, 100, 64), (100 * 4 * 64, 64, 4 * 64, 1), 1 << 20)
    assert T.map_arguments(spec, info).strides == [4 * 64 * 2, 64 * 2, 100 * 4 * 64 * 2]
    # A size-1 head dimension with a stride TMA would refuse is not used.
    one = P.TensorInfo("f16", (2, 1, 100, 64), (100 * 64, 3, 64, 1), 1 << 20)
    assert T.map_arguments(spec, one).strides == [128, 100 * 128, 100 * 64 * 2]


def test_empty_tensors_get_no_map():
    spec = P.LaunchPlan(tma_plan()).tensor_maps["k_map"]
    assert T.map_arguments(spec, contiguous("f16", (2, 2, 0, 64))) is None
    assert T.encode(None) == bytes(128)


def test_what_tma_cannot_address_is_named():
    spec = P.LaunchPlan(tma_plan()).tensor_maps["k_map"]
    with pytest.raises(ValueError, match="16-byte aligned"):
        T.map_arguments(spec, contiguous("f16", (2, 2, 10, 64), address=(1 << 20) + 8))


@pytest.mark.parametrize("change, words", [
    (lambda m: m.update(tensor="x"), "names no tensor"),
    (lambda m: m.update(tensor="lse"), "f16 or bf16"),
    (lambda m: m.update(box=[1, 1, 64]), "box must give"),
    (lambda m: m.update(box=[1, 1, 512, 64]), "box must give"),
    (lambda m: m.update(box=[1, 1, 64, 4]), "multiple of 16 bytes"),
    (lambda m: m.update(box=[1, 1, 64, 128]), "swizzle span"),
    (lambda m: m.update(swizzle=96), "swizzle must be"),
    (lambda m: m.update(name="k"), "name of another"),
])
def test_malformed_tensor_maps_are_refused(change, words):
    plan = tma_plan()
    change(plan["tensor_maps"][0])
    with pytest.raises(P.PlanFormatError, match=words):
        P.LaunchPlan(plan)


def test_unknown_map_parameter_is_refused():
    plan = tma_plan()
    plan["kernels"][0]["params"].append("q_map")
    with pytest.raises(P.PlanFormatError, match="unknown parameter 'q_map'"):
        P.LaunchPlan(plan)


def test_param_buffer_places_maps_on_64_bytes():
    types = (ctypes.c_void_p, ctypes.c_float, TENSOR_MAP, ctypes.c_int32, TENSOR_MAP)
    buf = ParamBuffer(types)
    k_map, v_map = bytes(range(128)), bytes(range(128, 256))
    address = buf.pack([0x1234, 1.5, k_map, -7, v_map])
    pointers = list((ctypes.c_void_p * len(types)).from_address(address))
    assert pointers[2] % 64 == 0 and pointers[4] % 64 == 0
    assert ctypes.string_at(pointers[2], 128) == k_map
    assert ctypes.string_at(pointers[4], 128) == v_map
    assert ctypes.c_void_p.from_address(pointers[0]).value == 0x1234
    assert struct.unpack("f", ctypes.string_at(pointers[1], 4))[0] == 1.5
    assert ctypes.c_int32.from_address(pointers[3]).value == -7
