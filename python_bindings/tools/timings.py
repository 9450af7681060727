#!/usr/bin/env python3
"""Timings of the Python package, written as JSON.

  timings.py compile --json out.json     (compiler machine) compile on a cache
        miss, a disk-cache hit, and the same through `fa-opt` for comparison
  timings.py gpu --json out.json         (GPU machine, kernels from
        FA_MLIR_KERNEL_DIR) first load of a kernel in a fresh process, and the
        host overhead of a warm call against SDPA's

Host overhead: many calls on a tiny problem (the GPU finishes each kernel
before the host has issued the next), wall time per call with one
synchronisation at the end; the kernels' own GPU time is given beside it
(CUDA events) to show it is the smaller one.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
sys.path.insert(0, PACKAGE_ROOT)

# The configuration both modes time: GQA 8:2, head dim 64, causal, fp16.
CONFIG = dict(dtype="f16", q_heads=8, kv_heads=2, head_dim=64, causal=True)


def compile_timings(a):
    from fa_mlir import compiler
    from fa_mlir.kernels import KernelCache, attention_config
    out = {"compiler_version": compiler.version()}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FA_MLIR_CACHE_DIR"] = tmp
        rows = []
        for d in (64, 128):
            for causal in (False, True):
                config = attention_config("f16", 32, 8, d, causal=causal)
                cache = KernelCache()
                t0 = time.perf_counter()
                cache.find(config)             # miss: compile + store
                miss = time.perf_counter() - t0
                t0 = time.perf_counter()
                KernelCache().find(config)     # disk-cache hit
                hit = time.perf_counter() - t0
                rows.append(dict(head_dim=d, causal=causal, miss_s=miss, disk_hit_s=hit))
        out["cache"] = rows
        fa_opt = os.path.join(a.build, "bin", "fa-opt")
        if os.path.exists(fa_opt):
            spec = attention_config("f16", 32, 8, 128, causal=True).spec
            src = os.path.join(tmp, "a.mlir")
            with open(src, "w") as f:
                f.write(spec.mlir())
            t0 = time.perf_counter()
            subprocess.run([fa_opt, src, "--fa-to-ptx=output-dir=" + tmp, "-o", os.devnull],
                           check=True)
            out["fa_opt_subprocess_s"] = time.perf_counter() - t0
    return out


def _first_load_child():
    """Runs in a fresh process: times import, torch/CUDA start, first call."""
    t0 = time.perf_counter()
    import torch
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    t_cuda = time.perf_counter()
    import fa_mlir
    from fa_mlir.kernels import default_cache
    q = torch.randn(1, CONFIG["q_heads"], 256, CONFIG["head_dim"], device="cuda",
                    dtype=torch.float16)
    k = torch.randn(1, CONFIG["kv_heads"], 256, CONFIG["head_dim"], device="cuda",
                    dtype=torch.float16)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    fa_mlir.attention(q, k, k, causal=True)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    fa_mlir.attention(q, k, k, causal=True)
    torch.cuda.synchronize()
    t3 = time.perf_counter()
    print(json.dumps(dict(torch_cuda_start_s=t_cuda - t0, first_call_s=t2 - t1,
                          second_call_s=t3 - t2,
                          plan_load_s=default_cache.stats["load_seconds"],
                          source=next(iter(default_cache._memory.values())).source)))


def _per_call(fn, n):
    import torch
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n


def _gpu_time(fn, n=50):
    import torch
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n / 1e3


def gpu_timings(a):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "python": platform.python_version(),
           "kernel_dir": os.environ.get("FA_MLIR_KERNEL_DIR")}
    loads = []
    for _ in range(2):  # the second process may find the driver's JIT cache warm
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "_first_load"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode:
            raise RuntimeError(r.stderr)
        loads.append(json.loads(r.stdout.strip().splitlines()[-1]))
    out["first_load"] = loads

    import fa_mlir
    from fa_mlir import ops
    from fa_mlir.runtime.plan import attention_scalars
    rows = []
    for n in (128, 1024):
        q = torch.randn(1, 8, n, 64, device="cuda", dtype=torch.float16)
        k = torch.randn(1, 2, n, 64, device="cuda", dtype=torch.float16)
        v = torch.randn(1, 2, n, 64, device="cuda", dtype=torch.float16)
        fa_mlir.attention(q, k, v, causal=True)
        plan = ops.plan_for("f16", 8, 2, 64, 64, True, (-1, -1), False)
        o = torch.empty_like(q)
        lse = torch.empty(1, 8, n, device="cuda")
        scalars = attention_scalars(plan.plan, 0.125)
        calls = {
            "fa_mlir.attention": lambda: fa_mlir.attention(q, k, v, causal=True),
            "fa_mlir custom op (dispatcher)": lambda: torch.ops.fa_mlir.attention(
                q, k, v, True, 0.125, -1, -1, 0.0, "bhnd"),
            "LoadedPlan call (preallocated O, LSE)": lambda: plan(q=q, k=k, v=v, o=o, lse=lse,
                                                                  **scalars),
            "sdpa default": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                   enable_gqa=True),
        }
        for name, backend in (("sdpa FLASH", SDPBackend.FLASH_ATTENTION),
                              ("sdpa EFFICIENT", SDPBackend.EFFICIENT_ATTENTION)):
            def call(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                          enable_gqa=True)
            calls[name] = call
        for name, fn in calls.items():
            try:
                rows.append(dict(n=n, call=name, per_call_us=_per_call(fn, a.calls) * 1e6,
                                 gpu_us=_gpu_time(fn) * 1e6))
            except Exception as e:  # noqa: BLE001 - a backend that refuses the shape
                rows.append(dict(n=n, call=name, error=str(e).splitlines()[0][:200]))
            print(rows[-1], flush=True)
    out["warm_calls"] = rows
    return out


def main():
    if sys.argv[1:] == ["_first_load"]:
        return _first_load_child()
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["compile", "gpu"])
    p.add_argument("--json", required=True)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--build", default=os.path.join(os.path.dirname(PACKAGE_ROOT), "build"))
    a = p.parse_args()
    result = compile_timings(a) if a.mode == "compile" else gpu_timings(a)
    result["date"] = time.strftime("%Y-%m-%d")
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
