"""The compiler in process: parsing, stages, PTX, options, diagnostics."""
import json
import os
import subprocess

import pytest

from fa_mlir import AttentionSpec, CompileError
from fa_mlir.compiler import build_attention, stage_pipeline
from fa_mlir.runtime.plan import evaluate

GQA = AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, dtype="f16", causal=True)


def test_parse_and_print_round_trip(compiler):
    text = compiler.run_pipeline(GQA)
    assert "fa.attention ins(" in text and "causal" in text
    assert "func.func @fa_d64_f16_causal_h8x2(" in text
    generic = compiler.run_pipeline(GQA, generic=True)
    assert '"fa.attention"' in generic


def test_each_stage_has_its_ops(compiler):
    # L0: the op; L1: the Q-outer loop nest with tile ops; L2: causal block
    # skipping (the mask only where needed); L3: warp layouts; L4: a GPU
    # kernel and its launch; L5: PTX.
    ir = {s: compiler.compile(GQA, stage=s, options={"block-m": 64, "block-n": 64})
          for s in ("L0", "L1", "L2", "L3", "L4")}
    assert "fa.attention" in ir["L0"] and "scf.forall" not in ir["L0"]
    assert "scf.forall" in ir["L1"] and "fa.attention" not in ir["L1"]
    assert "fa.qk" in ir["L1"]
    assert ir["L2"] != ir["L1"]
    assert "#fa.warp" in ir["L3"] or "#fa." in ir["L3"]
    assert ir["L3"] != ir["L2"]
    assert "gpu.launch_func" in ir["L4"] and "gpu.func" in ir["L4"]
    assert "fa.launch_plan" in ir["L4"]
    module = compiler.compile(GQA, stage="L5", options={"block-m": 64, "block-n": 64})
    [plan] = module.plans
    [ptx] = plan.ptx.values()
    assert ".entry fa_d64_f16_causal_h8x2_kernel" in ptx and ".target sm_80" in ptx
    assert plan.plan["kernels"][0]["grid"][0]["args"][1] == 64  # block-m


def test_stage_pipelines_mirror_fa_to_ptx(compiler):
    assert stage_pipeline("L0") == ""
    assert stage_pipeline("L2") == \
        "fa-tile-q-outer{auto-blocks=true pack-gqa=true chip=sm_80 atom=auto}," \
        "fa-causal-block-skip"
    # Explicit blocks: the tiling still names the chip and the atom (auto
    # picks #fa.wgmma on sm_90a for whole warpgroups).
    assert stage_pipeline("L1", {"block-m": 64, "block-n": 64, "chip": "sm_90a"}) == \
        "fa-tile-q-outer{block-m=64 block-n=64 pack-gqa=true chip=sm_90a atom=auto}"
    with pytest.raises(ValueError, match="atom takes one of auto, mma_sync, wgmma, got 'hmma'"):
        stage_pipeline("L3", {"atom": "hmma"})
    # Split-KV: the split and the merge's loop nest belong to the tiled stages.
    assert stage_pipeline("L3", {"splits": 4}).startswith(
        "fa-tile-q-outer{auto-blocks=true pack-gqa=true for-split-kv=true chip=sm_80 "
        "atom=auto},"
        "fa-causal-block-skip,fa-split-kv{splits=4},fa-tile-combine,fa-map-warps")
    assert stage_pipeline("L5", {"chip": "sm_90", "block_m": 64, "block-n": 32}) == \
        "fa-to-ptx{block-m=64 block-n=32 chip=sm_90}"
    with pytest.raises(ValueError, match="block-m and block-n go together.*block-m=64, block-n=0"):
        stage_pipeline("L3", {"block_m": 64})
    # P V deferred by a block where the atom's MMAs are async (the pass
    # checks the layouts), before the K/V pipeline, as in fa-to-ptx.
    assert "fa-schedule-softmax{rescale=auto},fa-pipeline-mma{all-atoms=false}," \
        "fa-pipeline-kv" in stage_pipeline("L3")
    assert "fa-pipeline-mma{all-atoms=true}" in stage_pipeline("L3", {"mma-pipeline": "on"})
    assert "fa-pipeline-mma" not in stage_pipeline("L3", {"mma_pipeline": "off"})
    # Block scalars staged at L4 where the tiling asks (auto, the default,
    # as is the tiling's asking), everywhere (on), or nowhere (off, and the
    # tiling told not to ask).
    auto = stage_pipeline("L4")
    assert auto == stage_pipeline("L4", {"stage-block-scalars": "auto"})
    assert auto.endswith("canonicalize,cse,fa-stage-block-scalars{all-kernels=false}")
    assert "stage-block-scalars=" not in auto
    assert stage_pipeline("L4", {"stage-block-scalars": "on"}).endswith(
        "fa-stage-block-scalars{all-kernels=true}")
    off = stage_pipeline("L4", {"stage_block_scalars": "off"})
    assert " stage-block-scalars=false}" in off and "fa-stage-block-scalars" not in off
    with pytest.raises(ValueError, match="stage-block-scalars takes one of auto, on, off"):
        stage_pipeline("L4", {"stage-block-scalars": "sometimes"})
    for stage in ("L1", "L2", "L3", "L4", "L5"):  # every one parses
        assert compiler.canonical_pipeline(stage_pipeline(stage, {"num-warps": 4}))
    with pytest.raises(ValueError, match="stage must be one of"):
        stage_pipeline("L9")
    with pytest.raises(ValueError, match="unknown fa-to-ptx option 'blockm'"):
        stage_pipeline("L3", {"blockm": 64})


def test_options_reach_the_kernel(compiler):
    plan = compiler.compile(GQA, options={"block-m": 64, "block-n": 32, "num-warps": 2,
                                          "kv-stages": 3, "chip": "sm_90",
                                          "index-bitwidth": 64}).plan()
    k = plan.plan["kernels"][0]
    assert k["block"] == [64, 1, 1] and plan.plan["index_bitwidth"] == 64
    assert plan.plan["chip"] == "sm_90" and ".target sm_90" in plan.ptx[k["name"]]


def test_l2_prefetch_option(compiler):
    """The copies' L2 prefetch size: 128 bytes by default, in the L3 IR and
    the PTX alike; l2-prefetch=0 drops it; a size PTX has no form for is the
    pass's error."""
    def ptx(options=None):
        [text] = compiler.compile(GQA, options=options).plan().ptx.values()
        return text
    assert "l2_prefetch(128)" in compiler.compile(GQA, stage="L3")
    assert "cp.async.cg.shared.global.L2::128B" in ptx()
    wide = ptx({"l2-prefetch": 256})
    assert "L2::256B" in wide and "L2::128B" not in wide
    none = ptx({"l2_prefetch": 0})
    assert "L2::" not in none and "cp.async.cg.shared.global [" in none
    assert "l2_prefetch" not in compiler.compile(GQA, stage="L3", options={"l2-prefetch": 0})
    with pytest.raises(Exception, match="l2-prefetch must be 0, 64, 128 or 256 .bytes., or -1"):
        compiler.compile(GQA, options={"l2-prefetch": 100})
    with pytest.raises(ValueError, match="l2-prefetch"):
        compiler.compile(GQA, options={"l2-prefetch": "lots"})


def test_swizzle_shared_option(compiler):
    """The K/V tiles' shared layout: auto swizzles them where the register
    budget allows (head dim 64 here; 128 only for sm_90, with a soft cap but
    not a window),
    in the staged pipeline and fa-to-ptx alike; on/off force it; other values
    are errors."""
    def l3(options=None):
        return compiler.compile(GQA, stage="L3", options=options)
    assert "swizzled = true" in l3()
    assert "swizzled = true" not in l3({"swizzle-shared": "off"})
    d128 = AttentionSpec(q_heads=8, kv_heads=2, head_dim=128, dtype="f16", causal=True)
    auto80 = compiler.compile(d128, stage="L3")
    assert "swizzled = true" not in auto80
    sm90 = {"chip": "sm_90"}
    assert "swizzled = true" in compiler.compile(d128, stage="L3", options=sm90)
    capped = AttentionSpec(q_heads=8, kv_heads=2, head_dim=128, dtype="f16", causal=True,
                           softcap=30.0)
    assert "swizzled = true" in compiler.compile(capped, stage="L3", options=sm90)
    assert "swizzled = true" not in compiler.compile(capped, stage="L3")
    windowed = AttentionSpec(q_heads=8, kv_heads=2, head_dim=128, dtype="f16", causal=True,
                             window=(256, 0))
    assert "swizzled = true" not in compiler.compile(windowed, stage="L3", options=sm90)
    # fa-to-ptx (L5) decides alike: the swizzled rings have no padding.
    ring = lambda spec, opts: compiler.compile(spec, options=opts).plan().plan[
        "kernels"][0]["dynamic_shared_memory"]
    assert ring(d128, sm90) < ring(d128, {"chip": "sm_90", "swizzle-shared": "off"})
    assert "swizzled = true" in compiler.compile(d128, stage="L3", options={"swizzle_shared": "on"})
    # The whole pipeline: the swizzled K/V rings are smaller (no padding).
    padded = compiler.compile(GQA, options={"swizzle-shared": "off"}).plan()
    swizzled = compiler.compile(GQA).plan()
    assert (swizzled.plan["kernels"][0]["dynamic_shared_memory"]
            < padded.plan["kernels"][0]["dynamic_shared_memory"])
    with pytest.raises(Exception, match="swizzle-shared must be auto, on or off"):
        compiler.compile(GQA, options={"swizzle-shared": "sometimes"})


def test_wgmma_atom(compiler):
    # The sm_90a atom through the same passes: #fa.wgmma in L3, wgmma in PTX.
    options = {"chip": "sm_90a", "atom": "wgmma"}
    assert "atom=wgmma" in stage_pipeline("L3", options)
    l3 = compiler.compile(GQA, stage="L3", options=options)
    assert "#fa.wgmma" in l3 and "#fa.mma_sync" not in l3
    plan = compiler.compile(GQA, options=options).plan()
    [ptx] = plan.ptx.values()
    assert ".target sm_90a" in ptx and "wgmma.mma_async.sync.aligned.m64n" in ptx
    with pytest.raises(CompileError, match="atom=wgmma needs chip=sm_90a"):
        compiler.compile(GQA, options={"atom": "wgmma"})


def test_same_kernel_as_fa_opt(compiler, fa_opt, tmp_path):
    text = GQA.mlir()
    (tmp_path / "in.mlir").write_text(text)
    subprocess.run([fa_opt, str(tmp_path / "in.mlir"), "--fa-to-ptx=output-dir=%s" % tmp_path,
                    "-o", os.devnull], check=True)
    plan = compiler.compile(text).plan()
    name = plan.plan["kernels"][0]["name"]
    assert plan.ptx[name] == (tmp_path / (name + ".ptx")).read_text()
    assert plan.plan == json.loads((tmp_path / (plan.name + ".json")).read_text())
    # write() lays out the files as fa-opt does.
    out = tmp_path / "written"
    plan.write(str(out))
    assert (out / (name + ".ptx")).read_text() == plan.ptx[name]
    assert json.loads((out / (plan.name + ".json")).read_text()) == plan.plan


def test_pipeline_as_a_list_and_generic_passes(compiler):
    text = compiler.compile(GQA, pipeline=["fa-tile-q-outer{block-m=64 block-n=32}", "cse"])
    assert "scf.forall" in text
    assert "fa.attention" in compiler.run_pipeline(GQA, "canonicalize")


def test_unfused_attention_through_the_raise(compiler):
    # torch-mlir's export of a Llama-style GQA attention in plain linalg:
    # fa-linalg-to-ptx raises it to fa.attention and compiles it; the stage
    # pipelines (fa-to-ptx) take fa.attention only and say where to go.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "test", "Transforms",
                        "Inputs", "torch", "by_hand_gqa_f16.mlir")
    with open(path) as f:
        text = f.read()
    module = compiler.compile(text, pipeline="fa-linalg-to-ptx")
    [plan] = module.plans
    [ptx] = plan.ptx.values()
    assert "mma.sync.aligned.m16n8k16" in ptx
    with pytest.raises(CompileError, match="pipeline='fa-linalg-to-ptx' raises it first"):
        compiler.compile(text)


def test_static_shapes_without_lse(compiler):
    spec = AttentionSpec(q_heads=4, head_dim=32, batch=2, q_len=100, kv_len=50,
                         with_lse=False)
    plan = compiler.compile(spec).plan()
    assert [t["name"] for t in plan.plan["tensors"]] == ["q", "k", "v", "o"]
    assert plan.plan["tensors"][0]["shape"] == [2, 4, 100, 32]


def test_split_kv_is_one_plan_of_two_kernels_with_workspaces(compiler, fa_opt, tmp_path):
    spec = AttentionSpec(q_heads=32, kv_heads=8, head_dim=128, dtype="bf16", q_len=1)
    module = compiler.compile(spec, options={"splits": 4})
    assert len(module.plans) == 1
    plan = module.plans[0]
    attn, merge = plan.plan["kernels"]
    assert sorted(plan.ptx) == sorted([attn["name"], merge["name"]])
    assert [w["name"] for w in plan.plan["workspaces"]] == ["partial_o", "partial_lse"]
    assert attn["params"][3:5] == ["partial_o", "partial_lse"]
    assert merge["params"] == ["partial_o", "partial_lse", "o", "lse"]
    assert [t["name"] for t in plan.plan["tensors"]] == ["q", "k", "v", "o", "lse"]
    # fa-opt writes the same plan once and both kernels' PTX.
    (tmp_path / "in.mlir").write_text(spec.mlir())
    subprocess.run([fa_opt, str(tmp_path / "in.mlir"),
                    "--fa-to-ptx=splits=4 output-dir=%s" % tmp_path, "-o", os.devnull],
                   check=True)
    assert plan.plan == json.loads((tmp_path / (plan.name + ".json")).read_text())
    for name, text in plan.ptx.items():
        assert (tmp_path / (name + ".ptx")).read_text() == text


def test_backward_is_one_plan_of_three_kernels(compiler):
    spec = AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, dtype="bf16", causal=True,
                         softcap=30.0, backward=True)
    assert spec.function_name().endswith("_bwd")
    module = compiler.compile(spec)
    assert len(module.plans) == 1
    plan = module.plans[0].plan
    # FlashAttention-2's atomic dQ: the dK/dV kernel adds into dq_accum,
    # which the first kernel zeroes and the last rounds into dq.
    dot, dkdv, dq = plan["kernels"]
    assert dot["params"] == ["do", "o", "delta", "dq_accum"]
    assert {"dk", "dv", "delta", "lse", "dq_accum"} <= set(dkdv["params"])
    assert dq["params"] == ["dq_accum", "dq"]
    assert [w["name"] for w in plan["workspaces"]] == ["delta", "dq_accum"]
    assert sorted(t["name"] for t in plan["tensors"]) == sorted(
        ["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv"])
    assert sorted(s["name"] for s in plan["scalars"]) == sorted(
        ["softmax_scale", "softmax_scale_log2", "softcap_scale", "softcap"])
    # The forward's identity (and so its kernel-cache keys) is unchanged.
    assert "backward" not in AttentionSpec(q_heads=8, head_dim=64).as_dict()


def test_deterministic_backward_computes_dq_in_its_own_kernel(compiler):
    from fa_mlir.kernels import attention_config
    config = attention_config("f16", 4, 4, 64, causal=True, backward=True, deterministic=True)
    assert config.pipeline_options()["dq"] == "deterministic"
    plan = compiler.compile(config.spec, options=config.pipeline_options()).plans[0].plan
    dot, dkdv, dq = plan["kernels"]
    assert dot["params"] == ["do", "o", "delta"]
    assert {"dq", "delta", "lse", "q", "k", "v"} <= set(dq["params"])
    assert [w["name"] for w in plan["workspaces"]] == ["delta"]
    # The option is part of the configuration's identity.
    assert config.key() != attention_config("f16", 4, 4, 64, causal=True,
                                            backward=True).key()


# -- diagnostics ---------------------------------------------------------

def test_syntax_error_carries_location_and_source_line(compiler):
    text = build_attention(8, 64, "f16", name="f").replace("fa.attention ins", "fa.attentio ins")
    with pytest.raises(CompileError) as info:
        compiler.run_pipeline(text, source_name="mine.mlir")
    d = info.value.diagnostics[0]
    assert d.severity == "error" and "fa.attentio" in d.message
    assert d.location.startswith("mine.mlir:2:") and d.line == 2 and d.column > 1
    assert "fa.attentio ins" in str(info.value)  # the source line is shown
    assert "^" in str(info.value)


def test_verifier_error_names_the_rule(compiler):
    text = build_attention(8, 64, "f16", kv_heads=2, name="f").replace(
        "tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>)", "tensor<?x3x?x64xf16>, tensor<?x3x?x64xf16>)")
    text = text.replace("%k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>",
                        "%k: tensor<?x3x?x64xf16>, %v: tensor<?x3x?x64xf16>")
    with pytest.raises(CompileError) as info:
        compiler.compile(text)
    assert any("3" in d.message and "head" in d.message for d in info.value.diagnostics), \
        info.value.diagnostics
    assert info.value.diagnostics[0].line == 2


def test_unknown_pass_and_bad_option_values(compiler):
    with pytest.raises(CompileError, match="fa-no-such-pass"):
        compiler.run_pipeline(GQA, "fa-no-such-pass")
    with pytest.raises(CompileError, match="query-home must be auto, registers or shared, "
                                           "got 'sideways'"):
        compiler.compile(GQA, options={"query-home": "sideways"})
    with pytest.raises(CompileError, match="chip must be one of"):
        compiler.compile(GQA, options={"chip": "sm_75"})
    with pytest.raises(ValueError, match="block-m takes a non-negative integer, got 'abc'"):
        compiler.compile(GQA, options={"block-m": "abc"})
    with pytest.raises(CompileError, match="fa-to-ptx: cannot parse the options 'nonsense'"):
        compiler.run_pipeline(GQA, "fa-to-ptx{nonsense}")
    with pytest.raises(ValueError, match="bad value"):
        compiler.compile(GQA, options={"chip": "sm_80 output-dir=/tmp"})


def test_pass_failure_is_an_exception_not_a_crash(compiler):
    # Shared memory beyond what sm_80 has: fa-lower-to-gpu refuses.
    with pytest.raises(CompileError, match="shared memory"):
        compiler.compile(AttentionSpec(q_heads=2, head_dim=256),
                         options={"block-m": 128, "block-n": 128, "kv-stages": 4,
                                  "num-warps": 8})


def test_input_without_attention_gives_no_kernel(compiler):
    with pytest.raises(CompileError, match="no kernel with a launch plan"):
        compiler.compile("func.func @f() { return }")


def test_wrong_argument_types(compiler):
    with pytest.raises(TypeError, match="MLIR text"):
        compiler.compile(42)
    with pytest.raises(ValueError, match="a pipeline or a stage"):
        compiler.compile(GQA, pipeline="cse", stage="L1")


def test_version_names_the_compiler(compiler):
    v = compiler.version()
    assert v.startswith("fa-mlir ") and "LLVM 22" in v and "module " in v
    assert v == compiler.version()


def test_paged_cache_plan_names_the_cache_operands(compiler):
    spec = AttentionSpec(q_heads=32, kv_heads=8, head_dim=128, dtype="bf16", q_len=1,
                         causal=True, page_size=64)
    plan = compiler.compile(spec, options={"splits": 2}).plans[0].plan
    tensors = {t["name"]: t for t in plan["tensors"]}
    assert list(tensors) == ["q", "k", "v", "key_lengths", "block_table", "o", "lse"]
    assert tensors["k"]["shape"] == [None, 64, 8, 128]
    assert tensors["key_lengths"]["dtype"] == "i32" and tensors["key_lengths"]["shape"] == [None]
    assert tensors["block_table"]["shape"] == [None, None]
    assert plan["kernels"][0]["params"][3:5] == ["key_lengths", "block_table"]


def test_page_size_the_atom_cannot_tile_is_a_compile_error(compiler):
    spec = AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, dtype="f16", page_size=40)
    with pytest.raises(CompileError, match="page size 40 is not a multiple of 16"):
        compiler.compile(spec)


def test_varlen_plan_names_the_offsets(compiler):
    spec = AttentionSpec(q_heads=32, kv_heads=8, head_dim=128, dtype="bf16", causal=True,
                         varlen=True)
    plan = compiler.compile(spec).plans[0].plan
    assert [t["name"] for t in plan["tensors"]] == [
        "q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "o", "lse"]
    assert plan["kernels"][0]["params"][3:5] == ["cu_seqlens_q", "cu_seqlens_k"]
    scalars = {s["name"]: s for s in plan["scalars"]}
    assert scalars["max_seqlen_q"]["value"] is None  # the caller's input
    grid = plan["kernels"][0]["grid"]
    assert grid[1:] == [32, 1]

    def blocks(lengths, max_seqlen):
        shapes = {"q": (1, 32, sum(lengths), 128), "cu_seqlens_q": (len(lengths) + 1,)}
        values = {"max_seqlen_q": max_seqlen}
        per_sequence = [evaluate(s["value"], shapes, values) for s in plan["scalars"]
                        if s["name"] not in ("max_seqlen_q", "softmax_scale_log2")]
        return evaluate(grid[0], shapes, values), per_sequence

    # 128-row Q blocks. Equal lengths: ceil(512 / 128) slots a sequence,
    # no block without rows, where the walk's bound has 128 + 32.
    assert blocks([512] * 32, 512) == (128, [4])
    # A bound of total_q (what None passes) leaves the walk.
    assert blocks([512] * 32, 512 * 32) == (160, [0])
    # Mixed lengths: slots for the longest would be 16 x 32; the walk 62 + 16.
    assert blocks([4096] + [256] * 15, 4096) == (78, [0])
    # One sequence: its own blocks either way.
    assert blocks([1000], 1000) == (8, [8])


@pytest.mark.parametrize("kw", [dict(scale=1e-05), dict(scale=1e16, softcap=1e16),
                                dict(softcap=1e-05, scale=1e-05)])
def test_scales_and_caps_written_with_exponents_parse(compiler, kw):
    # repr() writes these with an exponent and no decimal point ("1e-05"),
    # which MLIR's float literal does not take; the spec adds one.
    text = compiler.run_pipeline(AttentionSpec(q_heads=8, head_dim=64, **kw))
    assert "fa.attention ins(" in text


def test_tma_copy_option(compiler):
    """copy=auto (the default) copies #fa.wgmma's swizzled K/V tiles by TMA,
    in the staged pipeline (L3: fa.async_load ... tma) and fa-to-ptx alike,
    with the tensor maps in the plan; copy=cp-async keeps cp.async;
    mbarrier-timeout-ms bounds the waits; bad values are errors."""
    hopper = {"chip": "sm_90a", "atom": "wgmma"}
    l3 = compiler.compile(GQA, stage="L3", options=hopper)
    assert ") tma " in l3 and "phase(" in l3
    assert ") tma " not in compiler.compile(GQA, stage="L3", options=dict(hopper, copy="cp-async"))
    assert ") tma " not in compiler.compile(GQA, stage="L3")  # mma_sync tiles
    plan = compiler.compile(GQA, options=hopper).plan()
    [text] = plan.ptx.values()
    assert "cp.async.bulk.tensor.4d" in text and "globaltimer" not in text
    assert [m["tensor"] for m in plan.plan["tensor_maps"]] == ["k", "v"]
    bounded = compiler.compile(GQA, options=dict(hopper, **{"mbarrier-timeout-ms": 500}))
    [text] = bounded.plan().ptx.values()
    assert "globaltimer" in text and "setp.gt.u64 p, t, 500000000;" in text
    staged = compiler.compile(GQA, stage="L4", options=dict(hopper, **{"mbarrier-timeout-ms": 500}))
    assert "globaltimer" in staged
    with pytest.raises(ValueError, match="copy takes one of auto, cp-async, tma"):
        compiler.compile(GQA, options={"copy": "bulk"})


def test_release_option(compiler):
    """release=mbarrier frees a TMA ring's slots with fa.release and release
    mbarriers instead of the await's barrier, in the staged pipeline and
    fa-to-ptx alike; release=barrier, and the default auto on these 64-key
    blocks, keep the barrier; a bad value is an error before any pass runs."""
    hopper = {"chip": "sm_90a", "atom": "wgmma"}
    released = dict(hopper, release="mbarrier")
    l3 = compiler.compile(GQA, stage="L3", options=released)
    assert "after_release(" in l3 and "fa.release" in l3
    for options in (hopper, dict(hopper, release="barrier")):
        barrier = compiler.compile(GQA, stage="L3", options=options)
        assert "phase(" in barrier and "after_release(" not in barrier and "fa.release" not in barrier
    [text] = compiler.compile(GQA, options=released).plan().ptx.values()
    assert "mbarrier.arrive.shared.b64" in text and "bar.warp.sync" in text
    [text] = compiler.compile(GQA, options=hopper).plan().ptx.values()
    assert "mbarrier.arrive.shared.b64" not in text
    with pytest.raises(ValueError, match="release takes one of auto, barrier, mbarrier"):
        compiler.compile(GQA, options={"release": "never"})
    with pytest.raises(ValueError, match="mbarrier-timeout-ms takes a non-negative integer"):
        compiler.compile(GQA, options={"mbarrier-timeout-ms": -1})


def test_pingpong_option(compiler):
    """pingpong=on orders the warpgroups' matmuls (fa.mma_turn after the K/V
    pipeline, the loops' TMA loads issued by thread 128) in the staged
    pipeline and fa-to-ptx alike; off does not; auto (the default) where
    the K/V blocks have 128 keys (d = 128), not at d = 64; a bad value is
    an error before any pass runs."""
    assert "fa-pingpong" not in stage_pipeline("L3", {"pingpong": "off"})
    assert "release=barrier}" in stage_pipeline("L3", {"pingpong": "off"})
    assert "fa-pipeline-kv{stages=0 l2-prefetch=-1 copy=auto release=mbarrier},fa-pingpong" \
        "{issuer-last=true min-block-keys=0}" \
        in stage_pipeline("L3", {"pingpong": "on", "release": "mbarrier"})
    # The default, auto: turns where the K/V blocks have 128 keys or more,
    # those loops' slots released by mbarrier.
    assert "release=auto},fa-pingpong{issuer-last=true min-block-keys=128}" \
        in stage_pipeline("L3")
    hopper = {"chip": "sm_90a", "pingpong": "on", "release": "mbarrier"}
    l3 = compiler.compile(GQA, stage="L3", options=hopper)
    assert "fa.mma_turn open of 2" in l3 and "fa.mma_turn take of 2" in l3
    assert "issuer(128)" in l3
    [text] = compiler.compile(GQA, options=hopper).plan().ptx.values()
    assert "bar.arrive 1, 256;" in text
    [text] = compiler.compile(GQA, options={"chip": "sm_90a"}).plan().ptx.values()
    assert "bar.arrive" not in text  # GQA's d = 64: 64-key blocks.
    d128 = AttentionSpec(q_heads=8, kv_heads=2, head_dim=128, dtype="bf16", causal=True)
    for options, turns in (({"chip": "sm_90a"}, True),
                           ({"chip": "sm_90a", "pingpong": "off"}, False)):
        [text] = compiler.compile(d128, options=options).plan().ptx.values()
        assert ("bar.arrive 1, 256;" in text) == turns, options
        assert "m64n128k16" in text
    with pytest.raises(ValueError, match="pingpong takes one of auto, off, on, got 'yes'"):
        compiler.compile(GQA, options={"pingpong": "yes"})


def test_atom_auto_is_wgmma_on_sm_90a(compiler):
    """atom=auto (the default): #fa.wgmma on sm_90a for a prefill's Q
    blocks, at every stage that names it and in the PTX; #fa.mma_sync on
    sm_90 and with atom=mma_sync; the staged pipeline and fa-to-ptx agree."""
    hopper = {"chip": "sm_90a"}
    assert "#fa.wgmma" in compiler.compile(GQA, stage="L3", options=hopper)
    [text] = compiler.compile(GQA, options=hopper).plan().ptx.values()
    assert "wgmma.mma_async" in text and "mma.sync" not in text
    for options in ({"chip": "sm_90"}, dict(hopper, atom="mma_sync")):
        assert "#fa.wgmma" not in compiler.compile(GQA, stage="L3", options=options)
        [text] = compiler.compile(GQA, options=options).plan().ptx.values()
        assert "mma.sync" in text and "wgmma" not in text
    # Explicit 32-row Q blocks are not a warpgroup's 64: #fa.mma_sync.
    small = dict(hopper, block_m=32, block_n=64)
    assert "#fa.wgmma" not in compiler.compile(GQA, stage="L3", options=small)


def test_unswizzled_tiles_are_fitted_padded(compiler):
    """swizzle-shared=off: the tiling counts the shared tiles padded
    (fa-tile-q-outer{padded-shared}), so d = 128 on sm_90a keeps 64-key
    blocks, which fit, where the swizzled default has 128."""
    assert "padded-shared=true" in stage_pipeline("L3", {"swizzle-shared": "off"})
    assert "padded-shared" not in stage_pipeline("L3")
    d128 = AttentionSpec(q_heads=8, kv_heads=2, head_dim=128, dtype="bf16", causal=True)
    for options, atom in (({"chip": "sm_90a", "swizzle-shared": "off"}, "m64n64k16"),
                          ({"chip": "sm_90a"}, "m64n128k16")):
        [text] = compiler.compile(d128, options=options).plan().ptx.values()
        assert atom in text, options
