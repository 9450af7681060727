#!/usr/bin/env python3
"""Speed of the sliding window, soft-capping and the head-dim table, side by
side with the peers, in one run.

* window: N = 16k, window 1024 to the left, causal, head dims 64 and 128,
  bf16: our window kernel, our causal kernel (the same N) and FlexAttention
  (torch.compile'd flex_attention with the same mask_mod and a block mask).
  FLOPs are counted on the (row, key) pairs each implementation must visit
  (4 D per pair): the window's for the window kernels, the causal triangle's
  for the causal one, so TFLOP/s compare work rates.
* softcap: the FlashAttention-2 paper shapes, causal, soft cap 50: our
  soft-capped kernel, our plain kernel, FlexAttention with the same
  score_mod (c * tanh(s / c)).
* headdims: head dims 32 .. 256 at hidden 2048, bf16, seqlen 2k and 8k,
  causal or not: ours (the pipeline's default tiles) against SDPA-FLASH and
  SDPA-CUDNN.

Each output is checked first (against FlexAttention or SDPA; max |diff| <=
6e-2 for bf16 / 2e-2 for fp16, and within 2 x the peer's own error where the
peer has no exact counterpart). Every implementation of a shape is timed
`--repeats` times, interleaved (round r starts at the r-th implementation);
the tables give the median.

  bench_features.py --kernels ../build/kernels --json features.json
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

import configs
from timing import interleaved_times
# The runtime lives in python_bindings/fa_mlir (pure Python, torch and
# cuda-python only); the GPU machine uses it from the source tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "python_bindings"))
from fa_mlir.runtime import Plan  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {"f16": 2e-2, "bf16": 6e-2}


def time_ms(fn):
    ms = triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
    # Eager timing reads the host's launch cost (about 100 us for a plan of
    # two kernels through cuda-python) when the GPU work is shorter: below
    # 300 us, time the launches as a CUDA graph instead.
    if ms < 0.3:
        with torch.cuda.stream(torch.cuda.Stream()):
            ms = triton.testing.do_bench_cudagraph(fn, rep=50, return_mode="median")
    return ms


def interleaved(calls, repeats):
    """{name: median ms} of `calls` timed round by round (timing.py)."""
    times = interleaved_times(calls, repeats, timer=time_ms)
    return {n: statistics.median(t) for n, t in times.items()}


def ours(kernels, c):
    plan = Plan(kernels, configs.kernel_name(c))
    return lambda q, k, v, out: plan.attention(q, k, v, out)[0]


_flex = None


def flex(q, k, v, score_mod=None, block_mask=None):
    global _flex
    if _flex is None:
        import torch._dynamo
        from torch.nn.attention.flex_attention import flex_attention
        # One compile per shape: without a higher limit dynamo silently falls
        # back to the unfused path after a few.
        torch._dynamo.config.recompile_limit = 1000
        torch._dynamo.config.cache_size_limit = 1000
        _flex = torch.compile(flex_attention, dynamic=False)
    return _flex(q, k, v, score_mod=score_mod, block_mask=block_mask)


def window_mask(left):
    def mask_mod(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (kv_idx >= q_idx - left)
    return mask_mod


def causal_mask(b, h, q_idx, kv_idx):
    return kv_idx <= q_idx


def pairs_window(n, left):
    # Row i sees min(i, left) + 1 keys.
    return sum(min(i, left) + 1 for i in range(n)) if n <= 4096 else \
        (left + 1) * n - left * (left + 1) // 2


def run_window(a):
    from torch.nn.attention.flex_attention import create_block_mask
    rows = []
    n, left = 16384, 1024
    for d in a.window_dims:
        h = configs.paper_heads(d)
        b = 16384 // n
        torch.manual_seed(0)
        q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        # The masks ignore batch and head: one block mask broadcasts over
        # both (a [b, h] mask would be built from b * h * n * n booleans).
        wmask = create_block_mask(window_mask(left), None, None, n, n, device="cuda")
        cmask = create_block_mask(causal_mask, None, None, n, n, device="cuda")
        ref = flex(q, k, v, block_mask=wmask)
        out = torch.empty_like(q)
        win = ours(a.kernels, configs.config(d, "bf16", True, h, h, window=(left, 0)))
        cau = ours(a.kernels, configs.config(d, "bf16", True, h, h))
        err = (win(q, k, v, out).float() - ref.float()).abs().max().item()
        if not err <= TOLERANCE["bf16"]:
            raise RuntimeError("window d=%d: max |diff| %.3g against FlexAttention" % (d, err))
        calls = {"ours_window": lambda: win(q, k, v, out),
                 "ours_causal": lambda: cau(q, k, v, out),
                 "flex_window": lambda: flex(q, k, v, block_mask=wmask),
                 "flex_causal": lambda: flex(q, k, v, block_mask=cmask)}
        # Other builds of the window kernel (e.g. other tiles), each checked.
        for spec in a.window_variants:
            name, directory = spec.split("=", 1)
            vc = configs.config(d, "bf16", True, h, h, window=(left, 0))
            if not os.path.exists(os.path.join(directory, configs.kernel_name(vc) + ".json")):
                continue  # This variant has no kernel for this head dim.
            fn = ours(directory, vc)
            verr = (fn(q, k, v, out).float() - ref.float()).abs().max().item()
            if not verr <= TOLERANCE["bf16"]:
                raise RuntimeError("window variant %s d=%d: max |diff| %.3g" % (name, d, verr))
            calls[name + "_window"] = lambda fn=fn: fn(q, k, v, out)
            # The variant's causal kernel too, if built (A/B of a change to both).
            cc = configs.config(d, "bf16", True, h, h)
            if os.path.exists(os.path.join(directory, configs.kernel_name(cc) + ".json")):
                cfn = ours(directory, cc)
                cref = cau(q, k, v, out).clone()
                cerr = (cfn(q, k, v, out).float() - cref.float()).abs().max().item()
                if not cerr <= TOLERANCE["bf16"]:
                    raise RuntimeError("causal variant %s d=%d: max |diff| %.3g" % (name, d, cerr))
                calls[name + "_causal"] = lambda cfn=cfn: cfn(q, k, v, out)
        ms = interleaved(calls, a.repeats)
        wflops = 4 * b * h * d * pairs_window(n, left)
        cflops = 4 * b * h * d * (n * (n + 1) // 2)
        row = dict(d=d, seqlen=n, window=left, batch=b, heads=h, max_diff=err)
        for name, t in ms.items():
            f = wflops if name.endswith("window") else cflops
            row[name] = dict(ms=t, tflops=f / t / 1e9)
        row["window_over_causal_tflops"] = row["ours_window"]["tflops"] / row["ours_causal"]["tflops"]
        rows.append(row)
        print("window d=%d N=%d left=%d | %s | ours window/causal TFLOP/s %.2f" % (
            d, n, left, " ".join("%s %.2f ms %.0f TF" % (k_, row[k_]["ms"], row[k_]["tflops"])
                                 for k_ in ms), row["window_over_causal_tflops"]), flush=True)
    return rows


def run_softcap(a):
    rows = []
    cap = 50.0
    for d in a.softcap_dims:
        for n in a.seqlens:
            for dtype in ("f16", "bf16"):
                h, b = configs.paper_heads(d), 16384 // n
                torch.manual_seed(0)
                dt = DTYPES[dtype]
                q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dt) for _ in range(3))
                q = q * 4  # Large scores, where the cap matters.
                out = torch.empty_like(q)
                capped = ours(a.kernels, configs.config(d, dtype, True, h, h, softcap=cap))
                plain = ours(a.kernels, configs.config(d, dtype, True, h, h))
                cmask = None
                if not a.no_flex:
                    # Broadcast over batch and head: built per (b, h), the
                    # mask took 64 GiB at N = 16k and an 80 GB card ran out.
                    from torch.nn.attention.flex_attention import create_block_mask
                    cmask = create_block_mask(causal_mask, None, None, n, n, device="cuda")

                def score_mod(score, b_, h_, q_idx, kv_idx):
                    return cap * torch.tanh(score / cap)
                if a.no_flex:
                    # A/B runs of kernel variants: the reference is our
                    # soft-capped kernel, itself checked against
                    # FlexAttention in the full runs.
                    ref = capped(q, k, v, out).clone()
                else:
                    ref = flex(q, k, v, score_mod=score_mod, block_mask=cmask)
                err = (capped(q, k, v, out).float() - ref.float()).abs().max().item()
                if not err <= TOLERANCE[dtype]:
                    raise RuntimeError("softcap d=%d N=%d %s: max |diff| %.3g against FlexAttention" % (
                        d, n, dtype, err))
                calls = {"ours_softcap": lambda: capped(q, k, v, out),
                         "ours_plain": lambda: plain(q, k, v, out)}
                if not a.no_flex:
                    calls["flex_softcap"] = lambda: flex(q, k, v, score_mod=score_mod, block_mask=cmask)
                # Other builds of the soft-capped kernel, each checked.
                for spec in a.softcap_variants:
                    name, directory = spec.split("=", 1)
                    vc = configs.config(d, dtype, True, h, h, softcap=cap)
                    if not os.path.exists(os.path.join(directory, configs.kernel_name(vc) + ".json")):
                        continue
                    fn = ours(directory, vc)
                    verr = (fn(q, k, v, out).float() - ref.float()).abs().max().item()
                    if not verr <= TOLERANCE[dtype]:
                        raise RuntimeError("softcap variant %s d=%d N=%d: max |diff| %.3g" % (
                            name, d, n, verr))
                    calls[name + "_softcap"] = lambda fn=fn: fn(q, k, v, out)
                    pc = configs.config(d, dtype, True, h, h)
                    if os.path.exists(os.path.join(directory, configs.kernel_name(pc) + ".json")):
                        pfn = ours(directory, pc)
                        pref = plain(q, k, v, out).clone()
                        perr = (pfn(q, k, v, out).float() - pref.float()).abs().max().item()
                        if not perr <= TOLERANCE[dtype]:
                            raise RuntimeError("plain variant %s d=%d N=%d: max |diff| %.3g" % (
                                name, d, n, perr))
                        calls[name + "_plain"] = lambda pfn=pfn: pfn(q, k, v, out)
                ms = interleaved(calls, a.repeats)
                f = 4 * b * h * n * n * d / 2
                row = dict(d=d, seqlen=n, dtype=dtype, batch=b, heads=h, softcap=cap, max_diff=err)
                for name, t in ms.items():
                    row[name] = dict(ms=t, tflops=f / t / 1e9)
                row["softcap_over_plain"] = row["ours_softcap"]["tflops"] / row["ours_plain"]["tflops"]
                rows.append(row)
                print("softcap d=%d N=%5d %-4s | %s | softcap/plain %.3f" % (
                    d, n, dtype, " ".join("%s %.0f" % (k_, row[k_]["tflops"]) for k_ in ms),
                    row["softcap_over_plain"]), flush=True)
    return rows


def sdpa(backend, q, k, v, causal):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def run_headdims(a):
    rows = []
    for d in configs.HEAD_DIMS:
        for n in (2048, 8192):
            for causal in (False, True):
                h, b = configs.paper_heads(d), 16384 // n
                torch.manual_seed(0)
                q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                out = torch.empty_like(q)
                fn = ours(a.kernels, configs.config(d, "bf16", causal, h, h))
                ref = sdpa(SDPBackend.MATH if d > 256 else SDPBackend.FLASH_ATTENTION, q, k, v, causal)
                err = (fn(q, k, v, out).float() - ref.float()).abs().max().item()
                if not err <= TOLERANCE["bf16"]:
                    raise RuntimeError("d=%d N=%d: max |diff| %.3g against SDPA" % (d, n, err))
                calls = {"ours": lambda: fn(q, k, v, out)}
                for name, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION),
                                      ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
                    try:
                        sdpa(backend, q, k, v, causal)
                        calls[name] = lambda backend=backend: sdpa(backend, q, k, v, causal)
                    except Exception:
                        pass
                ms = interleaved(calls, a.repeats)
                f = 4 * b * h * n * n * d / (2 if causal else 1)
                row = dict(d=d, seqlen=n, causal=causal, batch=b, heads=h, max_diff=err)
                for name, t in ms.items():
                    row[name] = dict(ms=t, tflops=f / t / 1e9)
                rows.append(row)
                print("d=%3d N=%5d causal=%d | %s" % (d, n, causal, " ".join(
                    "%s %.0f" % (k_, row[k_]["tflops"]) for k_ in ms)), flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default="../build/kernels")
    p.add_argument("--tables", nargs="+", default=["window", "softcap", "headdims"])
    p.add_argument("--seqlens", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--window-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--window-variants", nargs="*", default=[],
                   help="NAME=DIR: more window kernels (same names, other builds) timed side by side")
    p.add_argument("--softcap-variants", nargs="*", default=[],
                   help="NAME=DIR: other builds of the soft-capped kernels, timed beside them")
    p.add_argument("--softcap-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--no-flex", action="store_true",
                   help="leave FlexAttention out of the softcap table (A/B runs of our variants)")
    p.add_argument("--json")
    a = p.parse_args()
    start = time.time()
    result = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                  date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), repeats=a.repeats)
    runners = dict(window=run_window, softcap=run_softcap, headdims=run_headdims)
    for table in a.tables:
        result[table] = runners[table](a)
        if table == "softcap":
            ratios = [r["softcap_over_plain"] for r in result[table]]
            result["softcap_geomean"] = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print("softcap/plain geometric mean %.3f" % result["softcap_geomean"])
    print("%.0f s" % (time.time() - start))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
