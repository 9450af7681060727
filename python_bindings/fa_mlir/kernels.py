"""Where compiled kernels live: in memory, in kernel directories, on disk.

Pure Python (no torch, no compiler needed to read).

A *kernel directory* holds one sub-directory per configuration, named by the
configuration's digest (KernelConfig.key()):

    DIR/index.json                      written by `python -m fa_mlir.aot`
    DIR/<key>/meta.json                 configuration + compiler version
    DIR/<key>/<plan>.json               the launch plan (docs/launch-plan.md)
    DIR/<key>/<kernel>.ptx              the PTX it names

The same layout serves two uses. An AOT directory (FA_MLIR_KERNEL_DIR, or
`add_kernel_dir`) is made on a compiler machine and read on a GPU machine
without one: any compiler version is accepted there (it is recorded). The
disk cache (FA_MLIR_CACHE_DIR, default ~/.cache/fa_mlir) keeps one kernel
directory per compiler version, `<cache>/<digest of version>/`, so a
rebuilt compiler never reads its predecessor's kernels.
"""
import json
import os
import shutil
import tempfile
import threading
import time
import warnings

from .errors import MissingKernelError
from .spec import AttentionSpec, KernelConfig, digest

INDEX_FORMAT = "fa-mlir-kernel-dir"
INDEX_VERSION = 1


def _damaged(entry, error):
    warnings.warn("fa_mlir: ignoring the damaged kernel entry %s (%s: %s); "
                  "a `python -m fa_mlir.aot` run over it rewrites it" % (
                      entry, type(error).__name__, error), RuntimeWarning, stacklevel=3)
    return None


def _check_plan_matches(plan, plan_file, config):
    """ValueError unless the launch plan is the one meta.json's
    configuration names: its file name, chip, and Q's dtype and head dim (a
    plan copied or edited into the wrong entry would launch with the wrong
    grid or read tensors with the wrong strides)."""
    if not isinstance(plan, dict) or plan.get("format") != "fa-mlir-launch-plan":
        raise ValueError("%s is not a launch plan" % plan_file)
    if plan.get("name", "") + ".json" != plan_file:
        raise ValueError("%s holds the plan %r" % (plan_file, plan.get("name")))
    chip = dict(config.options).get("chip")
    if plan.get("chip") != chip:
        raise ValueError("the plan is for %s, the configuration for %s" % (plan.get("chip"), chip))
    spec = config.spec
    for t in plan.get("tensors", []):
        if t.get("name") == "q" and (t.get("dtype") != spec.dtype
                                     or t.get("shape", [None])[-1] != spec.head_dim):
            raise ValueError("the plan's q is %s x %s, the configuration's %s with head dim %d"
                             % (t.get("dtype"), t.get("shape"), spec.dtype, spec.head_dim))


class KernelDir:
    """A kernel directory (see the module's docstring)."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def entry_path(self, config):
        return os.path.join(self.path, config.key())

    def lookup(self, config):
        """(plan dict, {kernel: PTX text}, meta dict) for `config`, or None.
        An entry whose meta.json names another configuration is ignored; a
        damaged one (unreadable or missing files, malformed JSON) too, with
        a warning, so that the next directory, the cache or the compiler is
        tried."""
        entry = self.entry_path(config)
        try:
            with open(os.path.join(entry, "meta.json")) as f:
                meta = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            return _damaged(entry, e)
        if not isinstance(meta, dict) or meta.get("format") != INDEX_FORMAT \
                or meta.get("config") != config.as_dict():
            return None
        try:
            plan_file = meta["plan"]
            if not isinstance(plan_file, str) or os.path.basename(plan_file) != plan_file:
                raise ValueError("meta.json names the plan %r outside the entry" % (plan_file,))
            with open(os.path.join(entry, plan_file)) as f:
                plan = json.load(f)
            _check_plan_matches(plan, plan_file, config)
            ptx = {}
            for kernel in plan["kernels"]:
                name = os.path.basename(kernel["ptx"])
                with open(os.path.join(entry, name)) as f:
                    ptx[kernel["name"]] = f.read()
                if not ptx[kernel["name"]].strip():
                    raise ValueError("%s is empty" % name)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            return _damaged(entry, e)
        return plan, ptx, meta

    def store(self, config, compiled_plan, compiler_version):
        """Writes `compiled_plan` (compiler.CompiledPlan) for `config`:
        into a temporary directory first, renamed into place, so readers
        never see half an entry. An entry already there is kept."""
        os.makedirs(self.path, exist_ok=True)
        final = self.entry_path(config)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=self.path)
        try:
            # mkdtemp makes it 0700; a shared kernel directory is read by others.
            os.chmod(tmp, 0o755)
            compiled_plan.write(tmp)
            meta = {"format": INDEX_FORMAT, "version": INDEX_VERSION,
                    "config": config.as_dict(), "key": config.key(),
                    "plan": compiled_plan.name + ".json",
                    "kernels": sorted(compiled_plan.ptx),
                    "compiler_version": compiler_version,
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
            with open(os.path.join(tmp, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1, sort_keys=True)
            try:
                os.rename(tmp, final)
            except OSError:
                if not os.path.isdir(final):
                    raise
                # Another process stored it first: keep theirs.
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
        return final

    def entries(self):
        """meta.json of every entry, sorted by plan name."""
        out = []
        if not os.path.isdir(self.path):
            return out
        for name in sorted(os.listdir(self.path)):
            meta_path = os.path.join(self.path, name, "meta.json")
            if name.startswith(".") or not os.path.isfile(meta_path):
                continue
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
                if not isinstance(meta, dict) or meta.get("format") != INDEX_FORMAT:
                    continue  # Not an entry of ours.
                missing = [k for k in ("key", "plan", "config", "compiler_version")
                           if k not in meta]
                if missing:
                    raise KeyError(missing[0])
            except (OSError, ValueError, KeyError) as e:
                _damaged(os.path.join(self.path, name), e)
                continue
            out.append(meta)
        return sorted(out, key=lambda m: m["plan"])

    def write_index(self, compiler_version):
        index = {"format": INDEX_FORMAT, "version": INDEX_VERSION,
                 "compiler_version": compiler_version,
                 "entries": [{"key": m["key"], "plan": m["plan"], "config": m["config"],
                              "compiler_version": m["compiler_version"]}
                             for m in self.entries()]}
        path = os.path.join(self.path, "index.json")
        with open(path + ".tmp", "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
        os.replace(path + ".tmp", path)
        return path

    def read_index(self):
        with open(os.path.join(self.path, "index.json")) as f:
            index = json.load(f)
        if index.get("format") != INDEX_FORMAT or index.get("version") != INDEX_VERSION:
            raise ValueError("%s/index.json is not a version-%d %s index" % (
                self.path, INDEX_VERSION, INDEX_FORMAT))
        return index


def attention_config(dtype, q_heads, kv_heads, head_dim, v_head_dim=None, causal=False,
                     window=None, softcap=False, chip=None, options=None, q_len=None,
                     splits=1, backward=False, deterministic=False, key_lengths=False,
                     page_size=None, varlen=False):
    """The kernel configuration fa_mlir.attention runs for these inputs.

    B, Nq and Nk are dynamic (Nq static with `q_len`: fa_mlir.attention
    asks for q_len=1 on a decode step); the softmax scale and the soft cap's value are
    kernel parameters (launch.attention_scalars), so the configuration only
    says whether there is a cap (compiled with the placeholder cap 1.0) and
    has no scale. LSE is always computed (the custom op returns it).
    `splits` > 1: the split-KV kernels (fa-to-ptx splits=S), which
    fa_mlir.attention picks for decode steps (runtime/splits.py). `backward`:
    the gradient's kernels (fa.attention_backward), which its autograd runs;
    with `deterministic`, its dQ is the bitwise reproducible form (fa-to-ptx
    dq=deterministic) at every head dim, without it the compiler's choice
    (dq=auto: FlashAttention-2's atomic form at head dim 64, and at 128 for
    Hopper chips, where its dK/dV kernel runs on a [4, 2] warp grid).
    `key_lengths`
    and `page_size`: a K/V cache (fa_mlir.attention_with_kvcache), dense
    with per-sequence lengths or paged. `varlen`: sequences packed along N
    (fa_mlir.attention_varlen)."""
    spec = AttentionSpec(q_heads=q_heads, kv_heads=kv_heads, head_dim=head_dim,
                         v_head_dim=v_head_dim, dtype=dtype, causal=causal, window=window,
                         softcap=1.0 if softcap else None, with_lse=True, q_len=q_len,
                         backward=backward, key_lengths=key_lengths, page_size=page_size,
                         varlen=varlen)
    opts = dict(options or {})
    opts["chip"] = chip or opts.get("chip") or os.environ.get("FA_MLIR_CHIP", "sm_80")
    if int(splits) != 1:
        opts["splits"] = int(splits)
    if backward and deterministic:
        opts["dq"] = "deterministic"
    return KernelConfig.make(spec, opts)


def describe(config):
    """A one-line description of an attention configuration."""
    s = config.spec
    text = "%s, q_heads=%d, kv_heads=%d, head_dim=%d" % (s.dtype, s.q_heads, s.kv_heads,
                                                          s.head_dim)
    if s.v_head_dim != s.head_dim:
        text += ", v_head_dim=%d" % s.v_head_dim
    text += ", causal=%s, window=%s, softcap=%s" % (s.causal, s.window, s.softcap is not None)
    if s.backward:
        text += ", backward"
    if s.q_len is not None:
        text += ", q_len=%d" % s.q_len
    if s.page_size is not None:
        text += ", page_size=%d" % s.page_size
    elif s.key_lengths:
        text += ", key_lengths"
    if s.varlen:
        text += ", varlen"
    opts = config.pipeline_options()
    text += ", " + ", ".join("%s=%s" % kv for kv in sorted(opts.items()))
    return text


def aot_command(config):
    """The `python -m fa_mlir.aot` command that compiles `config`."""
    s = config.spec
    opts = config.pipeline_options()
    cmd = "python -m fa_mlir.aot --out DIR --dtypes %s --heads %d:%d --head-dims %d" % (
        s.dtype, s.q_heads, s.kv_heads, s.head_dim)
    if s.v_head_dim != s.head_dim:
        cmd += " --v-head-dim %d" % s.v_head_dim
    cmd += " --causal %s" % ("yes" if s.causal else "no")
    if s.window:
        cmd += " --windows %d:%d" % s.window
    if s.softcap is not None:
        cmd += " --softcap yes"
    if s.q_len == 1:
        cmd += " --decode yes"
    if s.backward:
        cmd += " --backward yes"
    if s.page_size is not None:
        cmd += " --kv-cache paged:%d" % s.page_size
    elif s.key_lengths:
        cmd += " --kv-cache lengths"
    if s.varlen:
        cmd += " --varlen yes"
    if opts.get("splits", "1") != "1":
        cmd += " --splits %s" % opts["splits"]
    if opts.get("chip", "sm_80") != "sm_80":
        cmd += " --chip %s" % opts["chip"]
    extra = sorted((k, v) for k, v in opts.items() if k not in ("chip", "splits"))
    if extra:
        cmd += " --options " + ",".join("%s=%s" % kv for kv in extra)
    return cmd


class KernelCache:
    """Compiled plans by configuration: memory, then kernel directories,
    then (with the compiler) the disk cache and a compile on a miss.

    `find(config)` returns (plan, ptx, where) torch-free; `get(config)`
    returns a launchable runtime.LoadedPlan (kept in memory)."""

    def __init__(self):
        self._memory = {}
        self._dirs = []
        self._lock = threading.Lock()
        self.stats = {"memory_hits": 0, "dir_hits": 0, "disk_hits": 0, "compiles": 0,
                      "compile_seconds": [], "load_seconds": []}

    # -- where to look ----------------------------------------------------
    def add_kernel_dir(self, path):
        path = os.fspath(path)
        if path not in self._dirs:
            self._dirs.append(path)

    def kernel_dirs(self):
        env = [p for p in os.environ.get("FA_MLIR_KERNEL_DIR", "").split(os.pathsep) if p]
        return self._dirs + [p for p in env if p not in self._dirs]

    @staticmethod
    def cache_root():
        """FA_MLIR_CACHE_DIR, else ~/.cache/fa_mlir; None when
        FA_MLIR_CACHE_DIR is set to "off" (no disk cache)."""
        root = os.environ.get("FA_MLIR_CACHE_DIR")
        if root == "off":
            return None
        if root:
            return root
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
        return os.path.join(base, "fa_mlir")

    def disk_cache(self, compiler_version):
        root = self.cache_root()
        return None if root is None else KernelDir(os.path.join(root, digest(compiler_version)))

    # -- lookups ----------------------------------------------------------
    def find(self, config):
        """(plan dict, {kernel: PTX}, where) for `config`: from a kernel
        directory, the disk cache, or compiled now; MissingKernelError when
        none has it and the compiler is not here."""
        for d in self.kernel_dirs():
            hit = KernelDir(d).lookup(config)
            if hit:
                self.stats["dir_hits"] += 1
                return hit[0], hit[1], d
        from . import compiler
        if not compiler.available():
            raise MissingKernelError(
                "no compiled kernel for fa_mlir.attention with %s, in the kernel directories "
                "%s (FA_MLIR_KERNEL_DIR, fa_mlir.add_kernel_dir), and the compiler is not "
                "available here to compile one. On a machine with the compiler run\n  %s\n"
                "and point FA_MLIR_KERNEL_DIR at DIR here." % (
                    describe(config), self.kernel_dirs() or "(none)", aot_command(config)))
        version = compiler.version()
        cache = self.disk_cache(version)
        if cache is not None:
            hit = cache.lookup(config)
            if hit:
                self.stats["disk_hits"] += 1
                return hit[0], hit[1], cache.path
        start = time.perf_counter()
        compiled = compiler.compile(config.spec, options=config.pipeline_options()).plan()
        self.stats["compiles"] += 1
        self.stats["compile_seconds"].append(time.perf_counter() - start)
        if cache is not None:
            try:
                cache.store(config, compiled, version)
            except OSError as e:  # A read-only home must not stop a run.
                import warnings
                warnings.warn("fa_mlir: cannot write the kernel cache %s: %s" % (cache.path, e))
        return compiled.plan, compiled.ptx, "compiled"

    def get(self, config):
        """The runtime.LoadedPlan for `config` (loaded on first use)."""
        key = config.key()
        loaded = self._memory.get(key)
        if loaded is not None:
            self.stats["memory_hits"] += 1
            return loaded
        with self._lock:
            loaded = self._memory.get(key)
            if loaded is None:
                from .runtime.launch import LoadedPlan
                plan, ptx, where = self.find(config)
                start = time.perf_counter()
                loaded = LoadedPlan(plan, ptx)
                loaded.load()
                self.stats["load_seconds"].append(time.perf_counter() - start)
                loaded.source = where
                self._memory[key] = loaded
        return loaded

    def clear_memory(self):
        self._memory.clear()


default_cache = KernelCache()


def add_kernel_dir(path):
    """Adds a directory of precompiled kernels (python -m fa_mlir.aot) to
    those fa_mlir.attention searches first."""
    default_cache.add_kernel_dir(path)
