"""TMA tensor maps: the launch plan's `tensor_maps` (docs/launch-plan.md).

A kernel compiled with `copy=tma` reads its K and V tiles with
`cp.async.bulk.tensor` from 128-byte tensor maps it takes by value. The
runtime makes each from the tensor the plan names with the driver's
`cuTensorMapEncodeTiled` (through ctypes on libcuda: the call is a host-side
encoding, no launch), per call, cached by everything the map holds (the
base address among them). `map_arguments` is pure Python, so what the map
describes is tested without a GPU (tests/test_runtime_plan.py).
"""
import ctypes
from collections import OrderedDict, namedtuple

# The driver's enums (cuda.h): CUtensorMapDataType, CUtensorMapSwizzle,
# CUtensorMapL2promotion; interleave NONE and the zero out-of-bounds fill
# are 0.
DATA_TYPES = {"f16": 6, "bf16": 9}
SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
L2_PROMOTION = {0: 0, 64: 1, 128: 2, 256: 3}
MAP_BYTES = 128
ELEMENT_BYTES = {"f16": 2, "bf16": 2}

# cuTensorMapEncodeTiled's arguments, innermost dimension first (the
# reverse of torch's order); strides in bytes for all but the innermost.
MapArguments = namedtuple(
    "MapArguments", "data_type rank address dims strides box element_strides swizzle l2")


def check_spec(spec, tensors):
    """ValueError naming what is wrong with a plan's tensor map entry."""
    name = spec.get("name")
    tensor = tensors.get(spec.get("tensor"))
    if tensor is None:
        raise ValueError("tensor map %r names no tensor of the plan: %r" % (
            name, spec.get("tensor")))
    if tensor["dtype"] not in DATA_TYPES:
        raise ValueError("tensor map %r: TMA copies f16 or bf16 tensors here, %r is %s" % (
            name, spec["tensor"], tensor["dtype"]))
    box = spec.get("box")
    if not isinstance(box, list) or len(box) != len(tensor["shape"]) or not all(
            isinstance(b, int) and 1 <= b <= 256 for b in box):
        raise ValueError("tensor map %r: box must give 1 to 256 elements for each of "
                         "the %d dimensions of %r, got %r" % (
                             name, len(tensor["shape"]), spec["tensor"], box))
    if box[-1] * ELEMENT_BYTES[tensor["dtype"]] % 16:
        raise ValueError("tensor map %r: the box's rows must be a multiple of 16 bytes" % name)
    if spec.get("swizzle") not in SWIZZLE or spec.get("l2_promotion") not in L2_PROMOTION:
        raise ValueError("tensor map %r: swizzle must be one of %s and l2_promotion one "
                         "of %s bytes, got %r and %r" % (
                             name, sorted(SWIZZLE), sorted(L2_PROMOTION),
                             spec.get("swizzle"), spec.get("l2_promotion")))
    if spec["swizzle"] and box[-1] * ELEMENT_BYTES[tensor["dtype"]] > spec["swizzle"]:
        raise ValueError("tensor map %r: a swizzled box's rows are at most the swizzle "
                         "span (%d bytes)" % (name, spec["swizzle"]))


def map_arguments(spec, info):
    """The cuTensorMapEncodeTiled arguments of tensor map `spec` (a plan
    entry) for the tensor `info` (a TensorInfo that passed the plan's
    checks), or None when the tensor has no element (the kernel then issues
    no copy from it). A size-1 dimension's stride is not used: it is
    replaced by one TMA accepts (a multiple of 16 bytes)."""
    if any(n == 0 for n in info.shape):
        return None
    size = ELEMENT_BYTES[info.dtype]
    rank = len(info.shape)
    dims = list(reversed(info.shape))
    strides = []
    for i in range(rank - 2, -1, -1):
        n, stride = info.shape[i], info.strides[i] * size
        if n == 1:
            inner = info.shape[i + 1] * info.strides[i + 1] * size
            stride = max(16, -(-inner // 16) * 16)
        strides.append(stride)
    if info.data_ptr % 16 or any(s % 16 or s >= 2 ** 40 for s in strides) or any(
            d >= 2 ** 32 for d in dims):
        raise ValueError(
            "%s: TMA needs a 16-byte aligned base, strides that are multiples of 16 "
            "bytes below 2^40 and dimensions below 2^32, got address %% 16 = %d, "
            "strides %s bytes, shape %s" % (spec["tensor"], info.data_ptr % 16,
                                            strides, tuple(info.shape)))
    return MapArguments(DATA_TYPES[info.dtype], rank, info.data_ptr, dims, strides,
                        list(reversed(spec["box"])), [1] * rank, SWIZZLE[spec["swizzle"]],
                        L2_PROMOTION[spec["l2_promotion"]])


_libcuda = None


def _encode_tiled():
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
        f = _libcuda.cuTensorMapEncodeTiled
        u32, u64p, u32p = ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64), \
            ctypes.POINTER(ctypes.c_uint32)
        f.argtypes = [ctypes.c_void_p, ctypes.c_int, u32, ctypes.c_void_p, u64p, u64p,
                      u32p, u32p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        f.restype = ctypes.c_int
    return _libcuda.cuTensorMapEncodeTiled


def encode(args):
    """The 128 bytes of the tensor map `args` describes (zeros for None)."""
    if args is None:
        return bytes(MAP_BYTES)
    out = (ctypes.c_uint64 * (MAP_BYTES // 8))()
    u64s = lambda xs: (ctypes.c_uint64 * len(xs))(*xs)
    u32s = lambda xs: (ctypes.c_uint32 * len(xs))(*xs)
    err = _encode_tiled()(ctypes.addressof(out), args.data_type, args.rank, args.address,
                          u64s(args.dims), u64s(args.strides or [0]), u32s(args.box),
                          u32s(args.element_strides), 0, args.swizzle, args.l2, 0)
    if err:
        raise RuntimeError("cuTensorMapEncodeTiled failed (CUresult %d) for %s" % (err, args))
    return bytes(out)


class TensorMapCache:
    """Encoded maps by their arguments (a map holds the base address, so a
    new tensor is a new map); bounded."""

    def __init__(self, limit=256):
        self.maps = OrderedDict()
        self.limit = limit

    def get(self, spec, info):
        args = map_arguments(spec, info)
        key = None if args is None else (args.data_type, args.address, tuple(args.dims),
                                         tuple(args.strides), tuple(args.box), args.swizzle,
                                         args.l2)
        data = self.maps.get(key)
        if data is None:
            data = self.maps[key] = encode(args)
            if len(self.maps) > self.limit:
                self.maps.popitem(last=False)
        return data
