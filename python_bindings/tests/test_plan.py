"""Launch plans without a GPU: parsing, checks, grids, kernel parameters.

Tensors are plan.TensorInfo records (dtype, shape, strides, address), as
launch.py makes them from torch tensors.
"""
import copy
import functools
import math

import pytest

from fa_mlir.runtime import plan as P

PLAN = {
    "format": "fa-mlir-launch-plan", "version": 1,
    "name": "fa_d64_f16_causal_h8x2_kernel", "chip": "sm_80", "index_bitwidth": 32,
    "tensors": [
        {"name": "q", "dtype": "f16", "shape": [None, 8, None, 64], "output": False},
        {"name": "k", "dtype": "f16", "shape": [None, 2, None, 64], "output": False},
        {"name": "v", "dtype": "f16", "shape": [None, 2, None, 64], "output": False},
        {"name": "o", "dtype": "f16", "shape": [None, 8, None, 64], "output": True},
        {"name": "lse", "dtype": "f32", "shape": [None, 8, None], "output": True},
    ],
    "scalars": [{"name": "softmax_scale_log2", "dtype": "f32", "value": 0.1803368777}],
    "workspaces": [],
    "kernels": [{
        "name": "fa_d64_f16_causal_h8x2_kernel", "ptx": "fa_d64_f16_causal_h8x2_kernel.ptx",
        "grid": [{"op": "ceildivui", "args": [{"dim": ["q", 2]}, 128]}, 8, {"dim": ["q", 0]}],
        "block": [128, 1, 1], "dynamic_shared_memory": 55296,
        "params": ["q", "k", "v", "o", "lse", "softmax_scale_log2"]}],
}


def contiguous(dtype, shape, address=1 << 20):
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return P.TensorInfo(dtype, tuple(shape), tuple(strides), address)


def arrays(b=2, nq=300, nk=100):
    return {"q": contiguous("f16", (b, 8, nq, 64)), "k": contiguous("f16", (b, 2, nk, 64)),
            "v": contiguous("f16", (b, 2, nk, 64)), "o": contiguous("f16", (b, 8, nq, 64)),
            "lse": contiguous("f32", (b, 8, nq))}


def test_grid_follows_the_expressions():
    plan = P.LaunchPlan(PLAN)
    shapes = {n: t.shape for n, t in arrays(b=3, nq=300).items()}
    assert plan.grid(plan.kernels[0], shapes) == (3, 8, 3)   # ceil(300 / 128)
    shapes = {n: t.shape for n, t in arrays(b=3, nq=256).items()}
    assert plan.grid(plan.kernels[0], shapes) == (2, 8, 3)


def test_empty_grid_is_not_launched():
    plan = P.LaunchPlan(PLAN)
    assert plan.grid(plan.kernels[0], {n: t.shape for n, t in arrays(b=0).items()}) is None
    assert plan.grid(plan.kernels[0], {n: t.shape for n, t in arrays(nq=0).items()}) is None


def test_parameters_are_flattened_memref_descriptors():
    plan = P.LaunchPlan(PLAN)
    a = arrays(b=2, nq=300, nk=100)
    values, kinds = plan.params(plan.kernels[0], a, {"softmax_scale_log2": 0.5})
    # 5 tensors: 2 pointers + offset + rank sizes + rank strides; 1 scalar.
    assert len(values) == 4 * (3 + 2 * 4) + (3 + 2 * 3) + 1
    q = a["q"]
    assert values[:11] == [q.data_ptr, q.data_ptr, 0, 2, 8, 300, 64,
                           8 * 300 * 64, 300 * 64, 64, 1]
    assert kinds[:11] == ["ptr", "ptr"] + ["index"] * 9
    assert values[-1] == 0.5 and kinds[-1] == "f32"


def test_grid_expression_operators():
    shapes = {"q": (7, 3)}
    e = lambda op, a, b: {"op": op, "args": [a, b]}
    assert P.evaluate(e("ceildivui", {"dim": ["q", 0]}, 2), shapes) == 4
    assert P.evaluate(e("divui", {"dim": ["q", 0]}, 2), shapes) == 3
    assert P.evaluate(e("remui", {"dim": ["q", 0]}, 4), shapes) == 3
    assert P.evaluate(e("maxsi", e("mul", {"dim": ["q", 1]}, 2), 5), shapes) == 6
    with pytest.raises(P.PlanFormatError, match="unknown operator 'pow'"):
        P.evaluate(e("pow", 2, 3), shapes)
    with pytest.raises(P.PlanFormatError, match="unknown tensor 'x'"):
        P.evaluate({"dim": ["x", 0]}, shapes)
    with pytest.raises(ValueError, match="divides by zero"):
        P.evaluate(e("divui", 1, 0), shapes)


@pytest.mark.parametrize("change, error, words", [
    (lambda a: a.pop("lse"), ValueError, "missing tensor 'lse'"),
    (lambda a: a.update(q=a["q"]._replace(dtype="bf16")), TypeError, "q: expected f16, got bf16"),
    (lambda a: a.update(k=contiguous("f16", (2, 4, 100, 64))), ValueError,
     r"k: expected shape \[None, 2, None, 64\]"),
    (lambda a: a.update(v=contiguous("f16", (2, 2, 100))), ValueError, "v: expected shape"),
    (lambda a: a.update(q=a["q"]._replace(strides=(8 * 300 * 64, 300 * 64, 64, 2))),
     ValueError, "q: the last dimension must be contiguous"),
    (lambda a: a.update(k=a["k"]._replace(data_ptr=(1 << 20) + 8)), ValueError,
     "k: the base address must be 16-byte aligned"),
    (lambda a: a.update(v=a["v"]._replace(strides=(2 * 100 * 68, 100 * 68, 68, 1))),
     ValueError, r"v: .*multiple of 8 elements.*\(13600, 6800, 68, 1\)"),
])
def test_bad_tensors_are_named(change, error, words):
    plan = P.LaunchPlan(PLAN)
    a = arrays()
    change(a)
    with pytest.raises(error, match=words):
        plan.check(a)


def test_index_width_limit():
    plan = P.LaunchPlan(PLAN)
    a = arrays()
    big = 2 ** 31 // (8 * 64) + 1  # rows: q spans just over 2^31 elements
    a["q"] = contiguous("f16", (1, 8, big, 64))
    with pytest.raises(ValueError, match="more than the kernels' 32-bit indices"):
        plan.check(a)
    wide = copy.deepcopy(PLAN)
    wide["index_bitwidth"] = 64
    P.LaunchPlan(wide).check(a)  # 64-bit indices take it.


def test_size_one_dimensions_may_have_any_stride():
    plan = P.LaunchPlan(PLAN)
    a = arrays(b=1)
    a["q"] = a["q"]._replace(strides=(3, 300 * 64, 64, 1))
    plan.check(a)


def test_strided_views_pass():
    # [B, N, H, D] storage seen as [B, H, N, D]: strides (N*H*D, D, H*D, 1).
    plan = P.LaunchPlan(PLAN)
    a = arrays(b=2, nq=300, nk=100)
    a["q"] = P.TensorInfo("f16", (2, 8, 300, 64), (300 * 8 * 64, 64, 8 * 64, 1), 1 << 20)
    plan.check(a)


@pytest.mark.parametrize("change, words", [
    (lambda p: p.update(version=2), "not a version-1 fa-mlir-launch-plan"),
    (lambda p: p.update(format="other"), "not a version-1"),
    (lambda p: p["kernels"][0]["params"].append("bias"), "unknown parameter 'bias'"),
    (lambda p: p.update(workspaces=[{"name": "w", "dtype": "f8", "shape": [1]}]),
     "workspace 'w' has unsupported dtype"),
    (lambda p: p.update(workspaces=[{"name": "q", "dtype": "f32", "shape": [1]}]),
     "workspace 'q' has the name of a tensor"),
    (lambda p: p.update(index_bitwidth=16), "index_bitwidth must be 32 or 64"),
    (lambda p: p["tensors"][0].update(dtype="f8"), "unsupported dtype 'f8'"),
    (lambda p: p.update(index_bitwidth="32"), "index_bitwidth must be 32 or 64"),
    (lambda p: p["kernels"][0].update(block=[0, 1, 1]), "is not 1 to 1024 threads"),
    (lambda p: p["kernels"][0].update(block=[4096, 1, 1]), "is not 1 to 1024 threads"),
    (lambda p: p["kernels"][0].update(block=["128", 1, 1]), "is not 1 to 1024 threads"),
    (lambda p: p["kernels"][0].update(dynamic_shared_memory=-1), "is not a byte count"),
    (lambda p: p["tensors"].append(dict(p["tensors"][0])), "two tensors of the plan have one"),
    (lambda p: p.pop("kernels"), "malformed launch plan .*KeyError: 'kernels'"),
    (lambda p: p["scalars"][0].pop("value"), "malformed launch plan .*KeyError: 'value'"),
    (lambda p: p.update(tensors=[1, 2]), "malformed launch plan .*TypeError"),
])
def test_plans_this_runtime_cannot_follow_are_refused(change, words):
    bad = copy.deepcopy(PLAN)
    change(bad)
    with pytest.raises(P.PlanFormatError, match=words):
        P.LaunchPlan(bad)


def test_scalars_default_to_compiled_values():
    plan = P.LaunchPlan(PLAN)
    assert plan.scalar_values({}) == {"softmax_scale_log2": pytest.approx(0.1803368777)}
    assert plan.scalar_values({"softmax_scale_log2": 2}) == {"softmax_scale_log2": 2.0}
    unknown = copy.deepcopy(PLAN)
    unknown["scalars"][0]["value"] = None
    with pytest.raises(ValueError, match="no compile-time value"):
        P.LaunchPlan(unknown).scalar_values({})


def test_attention_scalars():
    plan = P.LaunchPlan(PLAN)
    assert P.attention_scalars(plan, 0.125) == {
        "softmax_scale_log2": pytest.approx(0.125 * math.log2(math.e))}
    with pytest.raises(ValueError, match="compiled without a soft cap, called with one"):
        P.attention_scalars(plan, 0.125, 30.0)
    # What --fa-to-ptx emits: tanh(scale / cap * s), the cap in the softmax's
    # scale.
    capped = copy.deepcopy(PLAN)
    capped["scalars"] = [{"name": n, "dtype": "f32", "value": 1.0}
                         for n in ("softcap_scale", "softmax_scale_log2")]
    capped = P.LaunchPlan(capped)
    assert P.attention_scalars(capped, 0.125, 50.0) == {
        "softcap_scale": pytest.approx(0.125 / 50),
        "softmax_scale_log2": pytest.approx(50 * math.log2(math.e))}
    with pytest.raises(ValueError, match="compiled with a soft cap, called without"):
        P.attention_scalars(capped, 0.125)
    # A plan whose kernel multiplies by the cap itself (a `softcap`
    # parameter): the softmax then takes log2(e).
    legacy = copy.deepcopy(PLAN)
    legacy["scalars"] = [{"name": n, "dtype": "f32", "value": 1.0}
                         for n in ("softcap_scale", "softcap", "softmax_scale_log2")]
    legacy = P.LaunchPlan(legacy)
    assert P.attention_scalars(legacy, 0.125, 50.0) == {
        "softcap_scale": pytest.approx(0.125 / 50), "softcap": 50.0,
        "softmax_scale_log2": pytest.approx(math.log2(math.e))}


def test_load_plan_file_refuses_paths_outside_the_directory(tmp_path):
    import json
    bad = copy.deepcopy(PLAN)
    bad["kernels"][0]["ptx"] = "../evil.ptx"
    (tmp_path / "p.json").write_text(json.dumps(bad))
    with pytest.raises(P.PlanFormatError, match="not a plain file name"):
        P.load_plan_file(str(tmp_path), "p")


# Split-KV (--fa-to-ptx splits=4) of a decode step: the attention kernel
# writes the partial results into workspaces, the merge kernel reads them.
SPLIT_PLAN = copy.deepcopy(PLAN)
SPLIT_PLAN["workspaces"] = [
    {"name": "partial_o", "dtype": "f32",
     "shape": [{"op": "mul", "args": [{"dim": ["q", 0]}, 4]}, 8, {"dim": ["q", 2]}, 64]},
    {"name": "partial_lse", "dtype": "f32",
     "shape": [{"op": "mul", "args": [{"dim": ["q", 0]}, 4]}, 8, {"dim": ["q", 2]}]},
]
SPLIT_PLAN["kernels"] = [
    {"name": "attn", "ptx": "attn.ptx", "block": [32, 1, 1], "dynamic_shared_memory": 1024,
     "grid": [4, 2, {"dim": ["q", 0]}],
     "params": ["q", "k", "v", "partial_o", "partial_lse", "softmax_scale_log2"]},
    {"name": "attn_1", "ptx": "attn_1.ptx", "block": [32, 1, 1], "dynamic_shared_memory": 0,
     "grid": [1, {"dim": ["partial_o", 2]},
              {"op": "divui", "args": [{"dim": ["partial_o", 0]}, 4]}],
     "params": ["partial_o", "partial_lse", "o", "lse"]},
]


def test_workspace_shapes_and_grids_that_use_them():
    plan = P.LaunchPlan(SPLIT_PLAN)
    shapes = {n: t.shape for n, t in arrays(b=3, nq=1).items()}
    ws = plan.workspace_shapes(shapes)
    assert ws == {"partial_o": (12, 8, 1, 64), "partial_lse": (12, 8, 1)}
    shapes.update(ws)
    assert plan.grid(plan.kernels[1], shapes) == (1, 1, 3)


def test_workspaces_are_parameters_like_tensors():
    plan = P.LaunchPlan(SPLIT_PLAN)
    a = arrays(b=1, nq=1)
    a["partial_o"] = contiguous("f32", (4, 8, 1, 64), address=1 << 24)
    a["partial_lse"] = contiguous("f32", (4, 8, 1), address=1 << 25)
    values, kinds = plan.params(plan.kernels[1], a, {})
    assert values[:3] == [1 << 24, 1 << 24, 0]
    assert values[3:11] == [4, 8, 1, 64, 512, 64, 64, 1]
    assert kinds.count("ptr") == 8


def test_workspace_beyond_the_index_width_is_refused():
    plan = P.LaunchPlan(SPLIT_PLAN)
    shapes = {n: t.shape for n, t in arrays(b=1 << 20, nq=128).items()}
    with pytest.raises(ValueError, match="workspace partial_o needs"):
        plan.workspace_shapes(shapes)


# The same with the count a run-time parameter (--fa-to-ptx splits=0): the
# integer input num_splits sizes the workspaces and the attention grid; the
# kernels take what the host computes from it (the chunk of keys, the
# count), which the runtime computes from the plan's expressions.
RUNTIME_SPLIT_PLAN = copy.deepcopy(SPLIT_PLAN)
_S = {"op": "maxsi", "args": [{"scalar": "num_splits"}, 1]}
RUNTIME_SPLIT_PLAN["scalars"] = [
    {"name": "num_splits", "dtype": "index", "value": None},
    RUNTIME_SPLIT_PLAN["scalars"][0],
    {"name": "index0", "dtype": "index", "value": {
        "op": "mul", "args": [{"op": "ceildivui", "args": [
            {"op": "ceildivui", "args": [{"dim": ["k", 2]}, 64]}, _S]}, 64]}},
    {"name": "index1", "dtype": "index", "value": _S},
]
for _w in RUNTIME_SPLIT_PLAN["workspaces"]:
    _w["shape"][0] = {"op": "mul", "args": [{"dim": ["q", 0]}, _S]}
RUNTIME_SPLIT_PLAN["kernels"][0]["grid"][0] = {"op": "mul", "args": [1, _S]}
RUNTIME_SPLIT_PLAN["kernels"][1]["grid"][2] = {
    "op": "divui", "args": [{"dim": ["partial_o", 0]}, _S]}
RUNTIME_SPLIT_PLAN["kernels"][0]["params"].append("index0")
RUNTIME_SPLIT_PLAN["kernels"][1]["params"].append("index1")


def test_run_time_split_count():
    plan = P.LaunchPlan(RUNTIME_SPLIT_PLAN)
    assert plan.index_scalars == ["num_splits"] and sorted(plan.computed) == ["index0", "index1"]
    with pytest.raises(ValueError, match="num_splits.*no compile-time value"):
        plan.scalar_values({})
    shapes = {n: t.shape for n, t in arrays(b=3, nq=1, nk=1000).items()}
    for n, s in ((5, 5), (1, 1), (0, 1)):
        scalars = plan.scalar_values({"num_splits": n})
        assert scalars["num_splits"] == n and isinstance(scalars["num_splits"], int)
        assert "index0" not in scalars
        inputs = {"num_splits": n}
        ws = plan.workspace_shapes(shapes, inputs)
        assert ws == {"partial_o": (3 * s, 8, 1, 64), "partial_lse": (3 * s, 8, 1)}
        grids = dict(shapes, **ws)
        assert plan.grid(plan.kernels[0], grids, inputs) == (s, 2, 3)
        assert plan.grid(plan.kernels[1], grids, inputs) == (1, 1, 3)
        # 16 blocks of 64 keys in chunks of ceil(16 / S) blocks.
        assert plan.computed_scalars(grids, inputs) == {
            "index0": -(-16 // s) * 64, "index1": s}
    a = arrays(b=1, nq=1)
    a["partial_o"] = contiguous("f32", (4, 8, 1, 64), address=1 << 24)
    a["partial_lse"] = contiguous("f32", (4, 8, 1), address=1 << 25)
    values, kinds = plan.params(plan.kernels[1], a, {"index1": 4})
    assert values[-1] == 4 and kinds[-1] == "index"
    for bad, error in ((2.5, TypeError), (True, TypeError), ("4", TypeError), (-1, ValueError),
                       (1 << 40, ValueError)):
        with pytest.raises(error, match="num_splits"):
            plan.scalar_values({"num_splits": bad})
    with pytest.raises(ValueError, match="index0.*computed"):
        plan.scalar_values({"num_splits": 2, "index0": 64})
    # An expression naming an integer scalar the plan does not pass.
    with pytest.raises(P.PlanFormatError, match="unknown integer scalar 'splits'"):
        P.evaluate({"scalar": "splits"}, shapes, {"num_splits": 2})
    bad = copy.deepcopy(RUNTIME_SPLIT_PLAN)
    bad["scalars"][0]["dtype"] = "i64"
    with pytest.raises(P.PlanFormatError, match="unsupported dtype 'i64'"):
        P.LaunchPlan(bad)
    bad = copy.deepcopy(RUNTIME_SPLIT_PLAN)
    bad["scalars"][1]["value"] = _S  # An f32 scalar with an expression.
    with pytest.raises(P.PlanFormatError, match="only index scalars are computed"):
        P.LaunchPlan(bad)


def test_split_count_rule():
    from fa_mlir.runtime.splits import choose_splits, decode_thread_blocks
    # GQA 32:4 packed: one thread block per K/V head and sequence.
    assert decode_thread_blocks(1, 32, 4) == 4 and decode_thread_blocks(8, 32, 8) == 64
    assert decode_thread_blocks(2, 64, 2) == 8          # 32 heads a group: 2 blocks each
    # Few thread blocks: as many splits as fill one per multiprocessor, at
    # most 4 sqrt(K/V blocks of 128 keys), each at least 1 block.
    assert choose_splits(4, 131072, 132) == 32
    assert choose_splits(8, 131072, 132) == 16
    assert choose_splits(4, 32768, 132) == 32
    assert choose_splits(4, 8192, 132) == 32
    assert choose_splits(8, 8192, 132) == 16
    assert choose_splits(4, 1024, 132) == 8
    assert choose_splits(4, 512, 132) == 4
    assert choose_splits(32, 32768, 132) == 4
    assert choose_splits(64, 1024, 132) == 2
    assert choose_splits(128, 32768, 132) == 1
    # A full GPU, a cache of fewer than 4 blocks, or nothing to do: no split.
    assert choose_splits(512, 8192, 132) == 1
    assert choose_splits(4, 384, 132) == 1 and choose_splits(4, 100, 132) == 1
    assert choose_splits(0, 1000, 132) == 1 and choose_splits(4, 0, 132) == 1
    assert choose_splits(4, 131072, 132, counts=(1, 2, 4)) == 4
    # The kernel the rule is for, from its launch record: 4 key groups (128
    # threads) are 128-key blocks, one a multiprocessor; a one-warp kernel
    # (small pages) 64-key blocks, two a multiprocessor where they fit.
    from fa_mlir.runtime.splits import kernel_shape
    assert kernel_shape({"block": [128, 1, 1], "dynamic_shared_memory": 144640}) == (128, 1)
    assert kernel_shape({"block": [32, 1, 1], "dynamic_shared_memory": 39168}) == (64, 2)
    assert kernel_shape({"block": [32, 1, 1], "dynamic_shared_memory": 160000}) == (64, 1)
    assert choose_splits(64, 8192, 132, keys_per_block=64, blocks_per_multiprocessor=2) == 4


def test_backward_scalars():
    def plan_with(*names):
        p = copy.deepcopy(PLAN)
        p["scalars"] = [{"name": n, "dtype": "f32", "value": 1.0} for n in names]
        return P.LaunchPlan(p)
    plain = plan_with("softmax_scale_log2", "softmax_scale")
    assert P.backward_scalars(plain, 0.125) == {
        "softmax_scale": 0.125, "softmax_scale_log2": pytest.approx(0.125 * math.log2(math.e))}
    capped = plan_with("softmax_scale_log2", "softmax_scale", "softcap_scale", "softcap")
    assert P.backward_scalars(capped, 0.125, 50.0) == {
        "softmax_scale": 0.125, "softmax_scale_log2": pytest.approx(math.log2(math.e)),
        "softcap_scale": pytest.approx(0.125 / 50), "softcap": 50.0}
    with pytest.raises(ValueError, match="compiled with a soft cap, called without"):
        P.backward_scalars(capped, 0.125)
    with pytest.raises(P.PlanFormatError, match="not a backward plan"):
        P.backward_scalars(P.LaunchPlan(PLAN), 0.125)


@pytest.mark.parametrize("expr, words", [
    ({"dim": ["q", -1]}, "axis -1 of 'q', which has 4"),
    ({"dim": ["q", 7]}, "axis 7 of 'q'"),
    ({"dim": ["q", True]}, "a dim is \\[tensor name, axis\\]"),
    ({"dim": "q"}, "a dim is"),
    ({"op": "add", "args": 3}, "needs a list of args"),
    (functools.reduce(lambda e, _: {"op": "add", "args": [e, 1]}, range(5000), 1),
     "nested deeper than"),
])
def test_malformed_grid_expressions_are_refused(expr, words):
    with pytest.raises(P.PlanFormatError, match=words):
        P.evaluate(expr, {"q": (2, 8, 300, 64)})


def test_signed_division_is_exact_and_truncates_toward_zero():
    # arith.divsi / remsi; a float division would lose 2^60 + 1.
    assert P.evaluate({"op": "divsi", "args": [2**60 + 1, 1]}, {}) == 2**60 + 1
    assert P.evaluate({"op": "divsi", "args": [-7, 2]}, {}) == -3
    assert P.evaluate({"op": "remsi", "args": [-7, 2]}, {}) == -1
    assert P.evaluate({"op": "remsi", "args": [7, -2]}, {}) == 1


def test_a_negative_grid_is_refused_not_skipped():
    bad = copy.deepcopy(PLAN)
    bad["kernels"][0]["grid"][1] = {"op": "sub", "args": [1, 5]}
    plan = P.LaunchPlan(bad)
    with pytest.raises(P.PlanFormatError, match="is negative"):
        plan.grid(plan.kernels[0], {n: t.shape for n, t in arrays().items()})
