"""AttentionSpec, its MLIR text and the kernel configurations (pure Python)."""
import pytest

from fa_mlir import AttentionSpec
from fa_mlir.compiler import build_attention
from fa_mlir.kernels import aot_command, attention_config, describe
from fa_mlir.spec import KernelConfig, dtype_name


def test_mlir_text_dynamic_sizes_and_attributes():
    text = build_attention(32, 128, "bf16", kv_heads=8, causal=True, window=(256, 7),
                           softcap=50.0, scale=0.125, name="f")
    assert "func.func @f(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>" in text
    # causal keeps the window's right side at 0.
    assert "scale(0.125) causal window(256, 0) softcap(50.0)" in text
    assert "-> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>" in text


def test_mlir_text_static_sizes_without_lse():
    text = AttentionSpec(q_heads=4, head_dim=64, batch=2, q_len=100, kv_len=300,
                         with_lse=False).mlir("g")
    assert "%o: tensor<2x4x100x64xf16>) -> (tensor<2x4x100x64xf16>)" in text
    assert "outs(%o : tensor<2x4x100x64xf16>)" in text
    assert "%lse" not in text


@pytest.mark.parametrize("value, text", [
    (50, "50.0"), (0.125, "0.125"), (1e-05, "1.0e-05"), (1e16, "1.0e+16"), (2.5e-7, "2.5e-07")])
def test_floats_are_written_as_mlir_float_literals(value, text):
    # MLIR's float literal needs a decimal point: "1e-05" does not parse.
    assert "scale(%s)" % text in AttentionSpec(q_heads=8, head_dim=64, scale=value).mlir("f")
    assert "softcap(%s)" % text in AttentionSpec(q_heads=8, head_dim=64, softcap=value).mlir("f")


def test_defaults_and_normalisation():
    s = AttentionSpec(q_heads=8, head_dim=64, dtype="torch.bfloat16")
    assert (s.kv_heads, s.v_head_dim, s.dtype) == (8, 64, "bf16")
    assert AttentionSpec(q_heads=8, head_dim=64, window=(-1, -1)).window is None
    assert AttentionSpec(q_heads=8, head_dim=64, causal=True, window=(-1, 5)).window is None
    assert AttentionSpec(q_heads=8, head_dim=64, causal=True, window=(3, 5)).window == (3, 0)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(q_heads=8, head_dim=64, kv_heads=3), ValueError, "multiple of kv_heads"),
    (dict(q_heads=8, head_dim=0), ValueError, "head_dim must be positive"),
    (dict(q_heads=8, head_dim=64.0), TypeError, "head_dim must be an int"),
    (dict(q_heads=8, head_dim=64, dtype="f64"), TypeError, "unsupported dtype"),
    (dict(q_heads=8, head_dim=64, window=(5,)), TypeError, "pair of ints"),
    (dict(q_heads=8, head_dim=64, window=(-2, 0)), ValueError, "-1 for unbounded"),
    (dict(q_heads=8, head_dim=64, window=(0, 2**30)), ValueError, "below 2\\*\\*30"),
    (dict(q_heads=8, head_dim=64, window=(2**63, 0)), ValueError, "below 2\\*\\*30"),
    (dict(q_heads=8, head_dim=64, softcap=-1.0), ValueError, "softcap must be a positive"),
    (dict(q_heads=8, head_dim=64, scale=float("nan")), ValueError, "scale must be"),
    (dict(q_heads=8, head_dim=64, batch=-2), ValueError, "batch must be positive"),
    (dict(q_heads=8, head_dim=64, causal=1), TypeError, "bools"),
])
def test_bad_specs_raise_naming_the_problem(kwargs, error, words):
    with pytest.raises(error, match=words):
        AttentionSpec(**kwargs)


def test_function_names_are_identifiers_and_distinct():
    names = {AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, **kw).function_name() for kw in (
        {}, {"causal": True}, {"window": (16, 0)}, {"softcap": 30.0}, {"softcap": 0.5},
        {"scale": 0.1}, {"with_lse": False}, {"batch": 2}, {"dtype": "bf16"})}
    assert len(names) == 9
    with pytest.raises(ValueError, match="not an MLIR/PTX identifier"):
        AttentionSpec(q_heads=8, head_dim=64).mlir("bad name")


def test_dtype_names():
    assert dtype_name("float16") == dtype_name("f16") == dtype_name("half") == "f16"
    with pytest.raises(TypeError):
        dtype_name("int8")


def test_config_keys_are_stable_and_round_trip():
    a = attention_config("f16", 32, 8, 128, causal=True)
    b = attention_config("f16", 32, 8, 128, causal=True)
    assert a.key() == b.key()
    assert KernelConfig.from_dict(a.as_dict()) == a
    assert attention_config("f16", 32, 8, 128, causal=False).key() != a.key()
    assert attention_config("f16", 32, 8, 128, causal=True, chip="sm_90").key() != a.key()


def test_runtime_configs_leave_out_scale_and_cap_value():
    c = attention_config("bf16", 8, 2, 64, softcap=True)
    assert c.spec.scale is None and c.spec.softcap == 1.0 and c.spec.with_lse
    assert c.spec.batch is None and c.spec.q_len is None and c.spec.kv_len is None


def test_chip_from_environment(monkeypatch):
    monkeypatch.setenv("FA_MLIR_CHIP", "sm_90")
    assert attention_config("f16", 8, 8, 64).pipeline_options()["chip"] == "sm_90"


def test_descriptions_and_aot_commands_name_the_configuration():
    c = attention_config("bf16", 32, 8, 128, causal=False, window=(256, 0), softcap=True)
    assert "bf16, q_heads=32, kv_heads=8, head_dim=128" in describe(c)
    cmd = aot_command(c)
    assert cmd.startswith("python -m fa_mlir.aot --out DIR --dtypes bf16 --heads 32:8 "
                          "--head-dims 128 --causal no --windows 256:0 --softcap yes")


def test_kv_cache_specs():
    paged = AttentionSpec(q_heads=32, kv_heads=8, head_dim=128, dtype="bf16", q_len=1,
                          causal=True, page_size=64)
    assert paged.key_lengths  # A paged cache implies per-sequence lengths.
    assert paged.function_name() == "fa_d128_bf16_causal_h32x8_q1_paged64"
    text = paged.mlir()
    assert "%k: tensor<?x64x8x128xbf16>" in text
    assert "key_lengths(%lens : tensor<?xi32>) block_table(%table : tensor<?x?xi32>)" in text
    dense = AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, key_lengths=True)
    assert dense.function_name().endswith("_kvlens")
    assert "key_lengths(%lens : tensor<?xi32>) outs(" in dense.mlir()
    assert "block_table" not in dense.mlir()
    # The configurations before these fields keep their digests: the
    # fields at their defaults are not part of as_dict.
    plain = AttentionSpec(q_heads=8, kv_heads=2, head_dim=64)
    assert "key_lengths" not in plain.as_dict() and "page_size" not in plain.as_dict()
    assert AttentionSpec.from_dict(paged.as_dict()) == paged
    c = attention_config("bf16", 32, 8, 128, q_len=1, key_lengths=True, page_size=256)
    assert c.key() != attention_config("bf16", 32, 8, 128, q_len=1, key_lengths=True).key()
    assert "page_size=256" in describe(c)
    assert "--kv-cache paged:256" in aot_command(c)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(page_size=0), ValueError, "page_size must be positive"),
    (dict(page_size=64, kv_len=128), ValueError, "a paged cache has no kv_len"),
    (dict(key_lengths=1), TypeError, "key_lengths must be a bool"),
    (dict(key_lengths=True, backward=True), ValueError, "for the forward only"),
])
def test_bad_kv_cache_specs(kwargs, error, words):
    with pytest.raises(error, match=words):
        AttentionSpec(q_heads=8, kv_heads=2, head_dim=64, **kwargs)


def test_varlen_specs():
    s = AttentionSpec(q_heads=32, kv_heads=8, head_dim=128, dtype="bf16", causal=True,
                      varlen=True)
    assert s.batch == 1 and s.function_name().endswith("_b1_varlen")
    assert "cu_seqlens(%cu_q, %cu_k : tensor<?xi32>, tensor<?xi32>)" in s.mlir()
    assert "%q: tensor<1x32x?x128xbf16>" in s.mlir()
    assert "varlen" not in AttentionSpec(q_heads=8, head_dim=64).as_dict()
    assert AttentionSpec.from_dict(s.as_dict()) == s
    c = attention_config("bf16", 32, 8, 128, causal=True, varlen=True)
    assert ", varlen" in describe(c) and "--varlen yes" in aot_command(c)
    with pytest.raises(ValueError, match="batch of one"):
        AttentionSpec(q_heads=8, head_dim=64, varlen=True, batch=2)
    with pytest.raises(ValueError, match="without a K/V cache"):
        AttentionSpec(q_heads=8, head_dim=64, varlen=True, page_size=64)
