"""The compiler half: fa-mlir's passes and pipelines, in process.

Binds the C++ compiler directly (the nanobind module _fa_mlir_compiler,
linked against the fa libraries and Debian's libMLIR; not the MLIR C API):
parse MLIR text, run any pass pipeline, stop at any stage, get PTX and the
launch plans. Every diagnostic becomes a CompileError carrying the MLIR
messages and locations.

    from fa_mlir import compiler
    text = compiler.build_attention(q_heads=32, kv_heads=8, head_dim=128,
                                    dtype="bf16", causal=True)
    l3 = compiler.compile(text, stage="L3", options={"block-m": 64, "block-n": 64})
    module = compiler.compile(text)             # PTX + launch plan
    module.plans[0].ptx, module.plans[0].plan

Importing this file needs no native module; calling into the compiler does
(CompilerUnavailableError otherwise).
"""
import hashlib
import importlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List

from .errors import CompileError, CompilerUnavailableError, Diagnostic
from .spec import AttentionSpec

_native = None
_version = None

# fa-to-ptx's options (include/fa/Pipelines/Pipelines.h) and the stage
# passes that take them.
PTX_OPTIONS = ("block-m", "block-n", "num-warps", "key-groups", "kv-stages", "l2-prefetch",
               "swizzle-shared", "query-home", "rescale",
               "mma-pipeline", "pack-gqa", "dq", "splits", "warp-block-skip",
               "stage-block-scalars", "chip", "atom", "features", "opt-level", "index-bitwidth",
               "copy", "release", "pingpong", "mbarrier-timeout-ms")
# Checked here: LLVM's option parser reports a bad number on stderr only.
_INT_OPTIONS = ("block-m", "block-n", "num-warps", "key-groups", "kv-stages", "l2-prefetch", "splits",
                "opt-level", "index-bitwidth", "mbarrier-timeout-ms")
_BOOL_OPTIONS = ("pack-gqa", "warp-block-skip")
# Checked here for the stage pipelines, which read them (fa-to-ptx checks
# its own).
_CHOICE_OPTIONS = {"atom": ("auto", "mma_sync", "wgmma"),
                   "stage-block-scalars": ("auto", "on", "off"),
                   "copy": ("auto", "cp-async", "tma"),
                   "release": ("auto", "barrier", "mbarrier"),
                   "pingpong": ("auto", "off", "on")}
STAGES = ("L0", "L1", "L2", "L3", "L4", "L5")


def native():
    """The _fa_mlir_compiler module: inside the installed package, or on
    sys.path / FA_MLIR_NATIVE_DIR (the build tree's build/python_packages)."""
    global _native
    if _native is not None:
        return _native
    errors = []
    try:
        _native = importlib.import_module("fa_mlir._fa_mlir_compiler")
        return _native
    except ImportError as e:
        errors.append(str(e))
    extra = os.environ.get("FA_MLIR_NATIVE_DIR")
    if extra and extra not in sys.path:
        sys.path.insert(0, extra)
    try:
        _native = importlib.import_module("_fa_mlir_compiler")
        return _native
    except ImportError as e:
        errors.append(str(e))
    raise CompilerUnavailableError(
        "the fa-mlir compiler module _fa_mlir_compiler is not available (%s). Build it with "
        "`pip install ./python_bindings`, or configure with -DFA_ENABLE_PYTHON=ON and put "
        "build/python_packages on PYTHONPATH (or FA_MLIR_NATIVE_DIR). Without it, only "
        "precompiled kernels can run (python -m fa_mlir.aot on a compiler machine)."
        % "; ".join(errors))


def available():
    """True when the compiler module can be imported here."""
    try:
        native()
        return True
    except CompilerUnavailableError:
        return False


def version():
    """The compiler's identity, for cache keys: git revision, LLVM version
    and a digest of the native module file (which links every fa pass
    statically, so any rebuild of the compiler changes it)."""
    global _version
    if _version is None:
        mod = native()
        h = hashlib.sha256()
        with open(mod.__file__, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _version = "fa-mlir %s, LLVM %s, module %s" % (
            mod.git_revision, mod.llvm_version(), h.hexdigest()[:16])
    return _version


def _raise_if_failed(result, source, what):
    if not result["ok"]:
        raise CompileError([Diagnostic.from_native(d) for d in result["diagnostics"]],
                           source, what)


def _source_text(source):
    if isinstance(source, AttentionSpec):
        return source.mlir()
    if not isinstance(source, str):
        raise TypeError("expected MLIR text (str) or an AttentionSpec, got %s"
                        % type(source).__name__)
    return source


def run_pipeline(source, pipeline="", *, generic=False, debug_info=False, verify_each=True,
                 source_name="<input>"):
    """`source` (MLIR text or AttentionSpec) after the textual pass pipeline
    `pipeline` (e.g. "fa-tile-q-outer{block-m=64},cse"; "" only parses and
    verifies), printed. CompileError on any error."""
    text = _source_text(source)
    if not isinstance(pipeline, str):
        raise TypeError("pipeline must be a str, got %s" % type(pipeline).__name__)
    result = native().run_pipeline(text, source_name, pipeline, True, generic, debug_info,
                                   False, verify_each)
    _raise_if_failed(result, text, "pipeline '%s' failed" % pipeline if pipeline
                     else "the input does not parse or verify")
    return result["ir"]


def canonical_pipeline(pipeline):
    """`pipeline` as MLIR prints it back (every option spelled out)."""
    result = native().canonical_pipeline(pipeline)
    _raise_if_failed(result, None, "bad pass pipeline")
    return result["pipeline"]


def ptx_options(options):
    """fa-to-ptx's option string from a dict ({"block-m": 64, ...}, keys
    with - or _); ValueError for a key fa-to-ptx does not have."""
    parts = []
    blocks = {"block-m": 0, "block-n": 0}
    for key, value in sorted((options or {}).items()):
        name = key.replace("_", "-")
        if name == "output-dir":
            raise ValueError("output-dir is not an option here: use CompiledModule.write(dir)")
        if name not in PTX_OPTIONS:
            raise ValueError("unknown fa-to-ptx option %r (known: %s)" % (
                key, ", ".join(PTX_OPTIONS)))
        if isinstance(value, bool):
            value = "true" if value else "false"
        value = str(value)
        if not value or any(c in value for c in " {}=,\"'"):
            raise ValueError("bad value %r for fa-to-ptx option %s" % (value, name))
        # ASCII digits only (str.isdigit also takes "²" or "٤"); l2-prefetch's
        # -1 is its documented default (each nest's own choice).
        if name in _INT_OPTIONS and not (re.fullmatch(r"[0-9]+", value) or
                                         (name == "l2-prefetch" and value == "-1")):
            raise ValueError("fa-to-ptx option %s takes a non-negative integer%s, got %r" % (
                name, " or -1" if name == "l2-prefetch" else "", value))
        if name in _BOOL_OPTIONS and value not in ("true", "false"):
            raise ValueError("fa-to-ptx option %s takes true or false, got %r" % (name, value))
        if name in _CHOICE_OPTIONS and value not in _CHOICE_OPTIONS[name]:
            raise ValueError("fa-to-ptx option %s takes one of %s, got %r" % (
                name, ", ".join(_CHOICE_OPTIONS[name]), value))
        if name in blocks:
            blocks[name] = int(value)
        parts.append("%s=%s" % (name, value))
    if (blocks["block-m"] == 0) != (blocks["block-n"] == 0):
        raise ValueError("fa-to-ptx options block-m and block-n go together: give both, or "
                         "neither for the atom's tiles per head dim (got block-m=%d, "
                         "block-n=%d)" % (blocks["block-m"], blocks["block-n"]))
    return " ".join(parts)


def stage_pipeline(stage, options=None):
    """The pass pipeline that takes fa.attention (L0) to `stage` with the
    fa-to-ptx options `options`: the first passes of fa-to-ptx (L1-L4), or
    fa-to-ptx itself (L5)."""
    if stage not in STAGES:
        raise ValueError("stage must be one of %s, got %r" % (", ".join(STAGES), stage))
    opts = {k.replace("_", "-"): v for k, v in (options or {}).items()}
    ptx_options(opts)  # Validates the keys and values.
    if stage == "L5":
        text = ptx_options(opts)
        return "fa-to-ptx{%s}" % text if text else "fa-to-ptx"
    get = lambda name, default: str(opts.get(name, default))
    m, n = int(opts.get("block-m", 0)), int(opts.get("block-n", 0))
    pack = get("pack-gqa", "true").lower()
    pack = "true" if pack in ("true", "1") else "false"
    splits = int(opts.get("splits", 1))
    # atom=auto: fa-tile-q-outer picks the atom per loop nest (#fa.wgmma on
    # sm_90a where it fits, else #fa.mma_sync) and fa-map-warps applies it.
    atom = get("atom", "auto")
    stage_scalars = get("stage-block-scalars", "auto")
    passes = []
    if m == 0 and n == 0:
        passes.append("fa-tile-q-outer{auto-blocks=true pack-gqa=%s%s chip=%s atom=%s%s%s}" % (
            pack, " for-split-kv=true" if splits != 1 else "", get("chip", "sm_80"), atom,
            # fa-tile-q-outer's stage-block-scalars is true by default.
            " stage-block-scalars=false" if stage_scalars == "off" else "",
            # Unswizzled (padded) shared tiles are counted as such.
            " padded-shared=true" if get("swizzle-shared", "auto") == "off" else ""))
    else:
        passes.append("fa-tile-q-outer{block-m=%d block-n=%d pack-gqa=%s chip=%s atom=%s}" % (
            m, n, pack, get("chip", "sm_80"), atom))
    passes.append("fa-causal-block-skip")
    l2 = len(passes)
    if splits != 1:
        passes += ["fa-split-kv{splits=%d}" % splits, "fa-tile-combine"]
    passes.append("fa-map-warps{num-warps=%s query-home=%s atom=%s key-groups=%s swizzle-shared=%s "
                  "chip=%s}" % (
        get("num-warps", 0), get("query-home", "auto"), atom, get("key-groups", 0),
        get("swizzle-shared", "auto"), get("chip", "sm_80")))
    passes.append("fa-schedule-softmax{rescale=%s}" % get("rescale", "auto"))
    # mma-pipeline=auto defers P V where the atom's matmuls are async (the
    # pass decides from the layouts); on: every atom; off: not at all.
    mma = get("mma-pipeline", "auto")
    if mma != "off":
        passes.append("fa-pipeline-mma{all-atoms=%s}" % ("true" if mma == "on" else "false"))
    # As fa-to-ptx (ToPTX.cpp): pingpong=auto takes turns in loops of K/V
    # blocks of 128 keys or more, release=auto frees those loops' slots by
    # mbarrier (barrier everywhere without turns).
    pingpong, release = get("pingpong", "auto"), get("release", "auto")
    if release == "auto" and pingpong == "off":
        release = "barrier"
    passes.append("fa-pipeline-kv{stages=%s l2-prefetch=%s copy=%s release=%s}" % (
        get("kv-stages", 0), get("l2-prefetch", -1), get("copy", "auto"), release))
    if pingpong != "off":
        passes.append("fa-pingpong{issuer-last=true min-block-keys=%d}"
                      % (128 if pingpong == "auto" else 0))
    if get("warp-block-skip", "false").lower() in ("true", "1"):
        passes.append("fa-warp-block-skip")
    l3 = len(passes)
    passes.append("fa-lower-to-gpu{chip=%s index-bitwidth=%s mbarrier-timeout-ms=%s}" % (
        get("chip", "sm_80"), get("index-bitwidth", 32), get("mbarrier-timeout-ms", 0)))
    passes += ["canonicalize", "cse"]
    if stage_scalars != "off":
        passes.append("fa-stage-block-scalars{all-kernels=%s}" % (
            "true" if stage_scalars == "on" else "false"))
    count = {"L0": 0, "L1": 1, "L2": l2, "L3": l3, "L4": len(passes)}[stage]
    return ",".join(passes[:count])


@dataclass
class CompiledPlan:
    """One launch plan (docs/launch-plan.md) and the PTX of its kernels."""
    name: str
    plan: dict
    ptx: Dict[str, str]

    @property
    def plan_json(self):
        return json.dumps(self.plan, indent=2, sort_keys=True) + "\n"

    def write(self, directory):
        """Writes <kernel>.ptx and <name>.json into `directory`, as
        fa-to-ptx{output-dir=...} does; returns the plan's path."""
        os.makedirs(directory, exist_ok=True)
        for kernel, text in self.ptx.items():
            _write_atomically(os.path.join(directory, kernel + ".ptx"), text)
        path = os.path.join(directory, self.name + ".json")
        _write_atomically(path, self.plan_json)
        return path

    def load(self):
        """The plan loaded for launching (needs torch and cuda-python)."""
        from .runtime.launch import LoadedPlan
        return LoadedPlan(self.plan, self.ptx)


@dataclass
class Kernel:
    name: str
    ptx: str
    plan_name: str


@dataclass
class CompiledModule:
    """The result of compiling to PTX: the launch plans with their kernels,
    and the final IR."""
    plans: List[CompiledPlan]
    ir: str = ""
    compiler_version: str = ""
    kernels: List[Kernel] = field(default_factory=list)

    def plan(self, name=None):
        """The only plan, or the one called `name`."""
        if name is None:
            if len(self.plans) != 1:
                raise ValueError("the module has %d plans; name one of %s" % (
                    len(self.plans), [p.name for p in self.plans]))
            return self.plans[0]
        for p in self.plans:
            if p.name == name:
                return p
        raise KeyError("no plan %r (plans: %s)" % (name, [p.name for p in self.plans]))

    def write(self, directory):
        return [p.write(directory) for p in self.plans]


def _write_atomically(path, text):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def compile(source, pipeline=None, options=None, stage=None, *, keep_ir=False,
            source_name="<input>"):
    """Compiles MLIR text or an AttentionSpec.

    * stage="L0".."L4": returns the IR at that stage (str); "L5" (or no stage)
      compiles to PTX and returns a CompiledModule.
    * pipeline: a textual pass pipeline instead of the stages (returns the
      IR, or a CompiledModule when the result holds launch plans with PTX).
    * options: fa-to-ptx's options as a dict ({"block-m": 64, "chip":
      "sm_90", ...}), for stages and the default pipeline.
    """
    text = _source_text(source)
    if isinstance(pipeline, (list, tuple)):
        pipeline = ",".join(pipeline)
    if pipeline is not None and stage is not None:
        raise ValueError("give a pipeline or a stage, not both")
    if pipeline is not None and options:
        raise ValueError("options go with stages; write them into the pipeline text")
    if pipeline is None:
        stage = stage or "L5"
        pipeline = stage_pipeline(stage, options)
        want_kernels = stage == "L5"
    else:
        want_kernels = any(name in pipeline for name in
                           ("fa-to-ptx", "fa-linalg-to-ptx", "gpu-module-to-binary"))
    result = native().run_pipeline(text, source_name, pipeline, keep_ir or not want_kernels,
                                   False, False, want_kernels, True)
    _raise_if_failed(result, text, "compiling with '%s' failed" % pipeline)
    if not want_kernels:
        return result["ir"]
    # One entry per kernel; the kernels of a multi-kernel plan (split-KV)
    # share its name and JSON.
    plans, by_name = [], {}
    for k in result["kernels"]:
        compiled = by_name.get(k["plan_name"])
        if compiled is None:
            compiled = CompiledPlan(k["plan_name"], json.loads(k["plan_json"]), {})
            by_name[k["plan_name"]] = compiled
            plans.append(compiled)
        compiled.ptx[k["kernel_name"]] = k["ptx"]
    if not plans:
        raise CompileError([], text, "the pipeline produced no kernel with a launch plan "
                           "(is there an fa.attention in the input? For attention written "
                           "with linalg ops, pipeline='fa-linalg-to-ptx' raises it first)")
    return CompiledModule(plans, result["ir"], version(),
                          [Kernel(k["kernel_name"], k["ptx"], k["plan_name"])
                           for k in result["kernels"]])


def build_attention(q_heads, head_dim, dtype="f16", *, kv_heads=None, v_head_dim=None,
                    batch=None, q_len=None, kv_len=None, causal=False, window=None,
                    softcap=None, scale=None, with_lse=True, name=None):
    """MLIR text of a func.func holding one fa.attention (None sizes are
    dynamic `?`). Pure Python: needs no compiler."""
    spec = AttentionSpec(q_heads=q_heads, head_dim=head_dim, dtype=dtype, kv_heads=kv_heads,
                         v_head_dim=v_head_dim, batch=batch, q_len=q_len, kv_len=kv_len,
                         causal=causal, window=window, softcap=softcap, scale=scale,
                         with_lse=with_lse)
    return spec.mlir(name)
