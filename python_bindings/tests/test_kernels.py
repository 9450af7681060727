"""Kernel directories, the disk cache, compile on a miss, and AOT."""
import json
import os
import subprocess
import sys

import pytest

from fa_mlir import MissingKernelError
from fa_mlir.compiler import CompiledPlan
from fa_mlir.kernels import INDEX_FORMAT, KernelCache, KernelDir, attention_config

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
CONFIG = attention_config("f16", 4, 2, 32, causal=True)


def fake_plan(name="p"):
    plan = {"format": "fa-mlir-launch-plan", "version": 1, "name": name,
            "chip": dict(CONFIG.options)["chip"],
            "index_bitwidth": 32, "tensors": [], "scalars": [], "workspaces": [],
            "kernels": [{"name": name + "_k", "ptx": name + "_k.ptx", "grid": [1, 1, 1],
                         "block": [32, 1, 1], "dynamic_shared_memory": 0, "params": []}]}
    return CompiledPlan(name, plan, {name + "_k": "// ptx of %s\n" % name})


def test_kernel_dir_store_and_lookup(tmp_path):
    d = KernelDir(tmp_path / "k")
    assert d.lookup(CONFIG) is None
    entry = d.store(CONFIG, fake_plan(), "v1")
    assert os.path.basename(entry) == CONFIG.key()
    plan, ptx, meta = d.lookup(CONFIG)
    assert plan["name"] == "p" and ptx == {"p_k": "// ptx of p\n"}
    assert meta["compiler_version"] == "v1" and meta["config"] == CONFIG.as_dict()
    # A second store keeps the first entry (another process won the race).
    d.store(CONFIG, fake_plan("q"), "v2")
    assert d.lookup(CONFIG)[2]["compiler_version"] == "v1"
    assert not [n for n in os.listdir(d.path) if n.startswith(".tmp")]
    index = json.loads(open(d.write_index("v1")).read())
    assert index["format"] == INDEX_FORMAT and index["entries"][0]["key"] == CONFIG.key()


def test_entry_for_another_configuration_is_ignored(tmp_path):
    d = KernelDir(tmp_path)
    d.store(CONFIG, fake_plan(), "v1")
    other = attention_config("f16", 4, 2, 32, causal=False)
    os.rename(d.entry_path(CONFIG), d.entry_path(other))  # meta.json names CONFIG
    assert d.lookup(other) is None


def test_kernel_dirs_come_first_then_missing_kernel_error(tmp_path, monkeypatch):
    from fa_mlir import compiler
    monkeypatch.setattr(compiler, "available", lambda: False)
    KernelDir(tmp_path / "aot").store(CONFIG, fake_plan(), "v1")
    cache = KernelCache()
    monkeypatch.setenv("FA_MLIR_KERNEL_DIR", str(tmp_path / "aot"))
    plan, ptx, where = cache.find(CONFIG)
    assert where == str(tmp_path / "aot") and plan["name"] == "p"
    missing = attention_config("bf16", 32, 8, 128, causal=False, window=(256, 0))
    with pytest.raises(MissingKernelError) as info:
        cache.find(missing)
    text = str(info.value)
    assert "bf16, q_heads=32, kv_heads=8, head_dim=128" in text
    assert "python -m fa_mlir.aot --out DIR --dtypes bf16 --heads 32:8 --head-dims 128 " \
           "--causal no --windows 256:0" in text
    assert "FA_MLIR_KERNEL_DIR" in text


def test_compile_on_miss_fills_the_disk_cache(compiler, tmp_path, monkeypatch):
    monkeypatch.setenv("FA_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    cache = KernelCache()
    plan, ptx, where = cache.find(CONFIG)
    assert where == "compiled" and cache.stats["compiles"] == 1
    assert ".entry" in ptx[plan["kernels"][0]["name"]]
    # The entry is stored under the compiler's version, with the version.
    disk = cache.disk_cache(compiler.version())
    assert disk.lookup(CONFIG)[2]["compiler_version"] == compiler.version()
    again = KernelCache()
    plan2, ptx2, where2 = again.find(CONFIG)
    assert where2 == disk.path and again.stats["compiles"] == 0 and ptx2 == ptx
    # Another compiler version does not see it.
    assert cache.disk_cache(compiler.version() + " changed").lookup(CONFIG) is None


def test_disk_cache_can_be_turned_off(compiler, monkeypatch):
    monkeypatch.setenv("FA_MLIR_CACHE_DIR", "off")
    cache = KernelCache()
    assert cache.disk_cache(compiler.version()) is None
    assert cache.find(CONFIG)[2] == "compiled"
    assert cache.find(CONFIG)[2] == "compiled"  # nothing stored
    assert cache.stats["compiles"] == 2


def test_aot_directory_loads_on_a_machine_without_the_compiler(compiler, tmp_path):
    out = tmp_path / "aot"
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
    r = subprocess.run([sys.executable, "-m", "fa_mlir.aot", "--out", str(out), "--head-dims",
                        "32", "--dtypes", "f16", "--heads", "4:2", "--causal", "both"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 configurations" in r.stdout
    index = KernelDir(out).read_index()
    assert index["compiler_version"] == compiler.version() and len(index["entries"]) == 2
    # Again: nothing to compile.
    r = subprocess.run([sys.executable, "-m", "fa_mlir.aot", "--out", str(out), "--head-dims",
                        "32", "--dtypes", "f16", "--heads", "4:2", "--causal", "both"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.count("have") == 2, r.stdout
    r = subprocess.run([sys.executable, "-m", "fa_mlir.aot", "--out", str(out), "--head-dims",
                        "32", "--dtypes", "f16", "--heads", "4:2", "--causal", "yes", "--force"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "have" not in r.stdout, r.stdout
    assert len(KernelDir(out).read_index()["entries"]) == 2
    # A GPU machine: no native module, the directory in FA_MLIR_KERNEL_DIR.
    code = ("import sys\n"
            "sys.modules['_fa_mlir_compiler'] = None\n"
            "from fa_mlir.kernels import KernelCache, attention_config\n"
            "from fa_mlir import MissingKernelError\n"
            "plan, ptx, where = KernelCache().find(attention_config('f16', 4, 2, 32, causal=True))\n"
            "print(plan['name'], where)\n"
            "try:\n"
            "    KernelCache().find(attention_config('f16', 4, 2, 64, causal=True))\n"
            "except MissingKernelError as e:\n"
            "    print('missing:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(env, FA_MLIR_KERNEL_DIR=str(out), FA_MLIR_NATIVE_DIR="/none"))
    assert r.returncode == 0, r.stderr
    assert "fa_d32_f16_causal_h4x2_cap" not in r.stdout
    assert r.stdout.startswith("fa_d32_f16_causal_h4x2_kernel %s" % out)
    assert "missing: no compiled kernel" in r.stdout and "--head-dims 64" in r.stdout


def test_aot_list_and_errors(compiler, tmp_path, capsys):
    from fa_mlir import aot
    assert aot.main(["--out", str(tmp_path / "a"), "--head-dims", "32", "--dtypes", "bf16",
                     "--heads", "2", "--causal", "no", "--windows", "8:8",
                     "--softcap", "yes"]) == 0
    capsys.readouterr()
    assert aot.main(["--list", str(tmp_path / "a")]) == 0
    listed = capsys.readouterr().out
    assert "compiler: fa-mlir" in listed and "fa_d32_bf16_full_h2x2_w8x8_cap1_kernel" in listed
    with pytest.raises(SystemExit):
        aot.main(["--head-dims", "32"])  # no --out


def test_decode_configuration_has_one_static_query(compiler, tmp_path, monkeypatch):
    """q_len=1 (what fa_mlir.attention asks for on a decode step): the op has
    a static Nq of 1, the pipeline gives it a 16-row Q block on one warp (in 4 key groups),
    and the messages that name the configuration say so."""
    from fa_mlir.kernels import aot_command, describe
    decode = attention_config("bf16", 8, 2, 64, causal=True, q_len=1)
    assert decode.key() != attention_config("bf16", 8, 2, 64, causal=True).key()
    assert decode.spec.function_name() == "fa_d64_bf16_causal_h8x2_q1"
    assert "q_len=1" in describe(decode) and aot_command(decode).endswith("--decode yes")
    monkeypatch.setenv("FA_MLIR_CACHE_DIR", "off")
    plan, ptx, where = KernelCache().find(decode)
    q = next(t for t in plan["tensors"] if t["name"] == "q")
    assert q["shape"] == [None, 8, 1, 64]
    # One warp's 16 rows, in 4 groups along the keys (128 threads).
    assert plan["kernels"][0]["block"] == [128, 1, 1]


def test_aot_decode_kernels(compiler, tmp_path):
    from fa_mlir import aot
    assert aot.main(["--out", str(tmp_path / "a"), "--head-dims", "64", "--dtypes", "f16",
                     "--heads", "4:2", "--causal", "yes", "--decode", "both"]) == 0
    specs = [e["config"]["spec"] for e in KernelDir(tmp_path / "a").read_index()["entries"]]
    assert sorted(str(s["q_len"]) for s in specs) == ["1", "None"]


def test_aot_split_kv_decode_kernels(compiler, tmp_path):
    """--splits compiles the split-KV variants of the decode kernels only;
    each is one plan of two kernels, found again by its configuration."""
    from fa_mlir import aot
    from fa_mlir.kernels import aot_command
    assert aot.main(["--out", str(tmp_path / "a"), "--head-dims", "64", "--dtypes", "f16",
                     "--heads", "8:2", "--causal", "yes", "--decode", "both",
                     "--splits", "1,4"]) == 0
    d = KernelDir(tmp_path / "a")
    entries = d.read_index()["entries"]
    kinds = sorted((str(e["config"]["spec"]["q_len"]), e["config"]["options"].get("splits", "1"))
                   for e in entries)
    assert kinds == [("1", "1"), ("1", "4"), ("None", "1")]
    split = attention_config("f16", 8, 2, 64, causal=True, q_len=1, splits=4)
    plan, ptx, _ = d.lookup(split)
    assert [w["name"] for w in plan["workspaces"]] == ["partial_o", "partial_lse"]
    assert len(plan["kernels"]) == 2 and sorted(ptx) == sorted(k["name"] for k in plan["kernels"])
    assert aot_command(split).endswith("--decode yes --splits 4")
    with pytest.raises(SystemExit):
        aot.main(["--out", str(tmp_path / "b"), "--splits", "-1"])


def test_aot_run_time_split_count(compiler, tmp_path):
    """--splits 0: the split-KV decode kernels whose count is the plan's
    integer input num_splits, one plan for every count (the kernels take
    what the runtime computes from it)."""
    from fa_mlir import aot
    assert aot.main(["--out", str(tmp_path / "a"), "--head-dims", "64", "--dtypes", "f16",
                     "--heads", "8:2", "--causal", "yes", "--decode", "yes",
                     "--splits", "0"]) == 0
    runtime = attention_config("f16", 8, 2, 64, causal=True, q_len=1, splits=0)
    plan, ptx, _ = KernelDir(tmp_path / "a").lookup(runtime)
    assert {"name": "num_splits", "dtype": "index", "value": None} in plan["scalars"]
    computed = {s["name"] for s in plan["scalars"] if isinstance(s["value"], dict)}
    assert computed and all(k["params"][-1] in computed for k in plan["kernels"])


def test_aot_kv_cache_argument():
    import argparse
    from fa_mlir.aot import _kv_caches
    assert _kv_caches("none,lengths,paged:64") == [(False, None), (True, None), (True, 64)]
    for bad in ("paged:", "paged:x", "paged:0", "pages"):
        with pytest.raises(argparse.ArgumentTypeError, match="none, lengths or paged"):
            _kv_caches(bad)


def test_aot_replaces_damaged_entries_and_lookup_skips_them(tmp_path, compiler):
    import warnings
    from fa_mlir import aot
    from fa_mlir.kernels import KernelDir
    out = tmp_path / "k"
    args = ["--out", str(out), "--head-dims", "64", "--dtypes", "f16", "--causal", "no"]
    assert aot.main(args) == 0
    [entry] = [p for p in out.iterdir() if p.is_dir()]
    config = attention_config("f16", 32, 32, 64, causal=False)  # What aot built.
    # A missing PTX: a warning and a miss (the next directory is tried), then
    # the AOT run rewrites the entry.
    for ptx in entry.glob("*.ptx"):
        ptx.unlink()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert KernelDir(out).lookup(config) is None
    assert any("damaged kernel entry" in str(w.message) for w in caught)
    assert aot.main(args) == 0
    assert KernelDir(out).lookup(config) is not None
    # A plan named outside the entry is damaged too.
    meta = json.loads((entry / "meta.json").read_text())
    meta["plan"] = "../other/plan.json"
    (entry / "meta.json").write_text(json.dumps(meta))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert KernelDir(out).lookup(config) is None
    assert aot.main(args) == 0
    assert KernelDir(out).lookup(config) is not None
    # A plan that is not the configuration's (another chip, dtype or head
    # dim; another plan's file) is damaged too, and rewritten.
    plan_path = entry / json.loads((entry / "meta.json").read_text())["plan"]
    good = json.loads(plan_path.read_text())
    q = next(t for t in good["tensors"] if t["name"] == "q")
    for edit, words in [(dict(chip="sm_90" if good["chip"] != "sm_90" else "sm_80"), "plan is for"),
                        (dict(name="other"), "holds the plan 'other'"),
                        (dict(tensors=[dict(q, dtype="bf16")]), "the plan's q is bf16"),
                        (dict(tensors=[dict(q, shape=q["shape"][:-1] + [128])]), "head dim 64")]:
        plan_path.write_text(json.dumps(dict(good, **edit)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert KernelDir(out).lookup(config) is None
        assert any(words in str(w.message) for w in caught), (edit, caught)
        assert aot.main(args + ["--force"]) == 0
        assert KernelDir(out).lookup(config) is not None


def test_aot_variant_options_keep_the_looked_up_configuration(tmp_path, compiler):
    """--variant-options: compiled with the options, stored under the
    configuration fa_mlir looks up (an A/B kernel directory)."""
    from fa_mlir import aot
    from fa_mlir import compiler as fa_compiler
    base = ["--head-dims", "64", "--dtypes", "f16", "--heads", "8:2", "--causal", "yes",
            "--chip", "sm_80"]
    config = attention_config("f16", 8, 2, 64, causal=True, chip="sm_80")
    assert aot.main(base + ["--out", str(tmp_path / "default")]) == 0
    assert aot.main(base + ["--out", str(tmp_path / "variant"),
                            "--variant-options", "num_warps=8"]) == 0
    _, default_ptx, _ = KernelDir(tmp_path / "default").lookup(config)
    _, variant_ptx, meta = KernelDir(tmp_path / "variant").lookup(config)
    eight = fa_compiler.compile(config.spec, options=dict(config.pipeline_options(),
                                                          **{"num-warps": "8"})).plan()
    assert variant_ptx == eight.ptx and variant_ptx != default_ptx
    assert meta["compiler_version"].endswith("(variant: num-warps=8)")


@pytest.mark.parametrize("argv, words", [
    (["--heads", "a:b"], "argument --heads"),
    (["--windows", "5"], "windows are left:right"),
    (["--heads", "32:7", "--head-dims", "64"], "must be a multiple of kv_heads"),
    (["--list", "/nonexistent/dir"], "--list: cannot read"),
    (["--options", "splits=4"], "use --splits"),
    (["--variant-options", "splits=4"], "part of the configuration"),
])
def test_aot_bad_arguments_are_argparse_errors(argv, words, capsys, tmp_path):
    from fa_mlir import aot
    with pytest.raises(SystemExit) as e:
        aot.main(["--out", str(tmp_path / "o")] + argv)
    assert e.value.code == 2
    assert words in capsys.readouterr().err


def test_aot_compile_errors_are_messages(capsys, tmp_path, compiler):
    from fa_mlir import aot
    args = ["--out", str(tmp_path / "o"), "--head-dims", "64", "--dtypes", "f16",
            "--causal", "no"]
    assert aot.main(args + ["--options", "kv-stages=x"]) == 1
    assert "kv-stages takes a non-negative integer" in capsys.readouterr().err
    assert aot.main(args + ["--chip", "sm_75"]) == 1
    assert "option chip must be one of" in capsys.readouterr().err
