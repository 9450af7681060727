#!/usr/bin/env python3
"""Randomized differential test of the GPU kernels against an fp32 reference.

A seeded generator draws kernel configurations (head dim, dtype, head counts
with GQA/MQA, causal, sliding window, soft cap, explicit scale, with or
without LSE) and, for each case, run-time shapes (B, Nq and Nk from 0 to
16k, ragged, Nq != Nk both ways) and a memory layout: [B, H, N, D]
contiguous, or a strided [B, N, H, D] view (flash_attn_func's layout). The
criterion is check_gpu.py's (FlashAttention-2's): max error at most twice
PyTorch's own low-precision error + 1e-5 against fp32, LSE within 1e-3,
rows that see no key give O = 0 and LSE = -inf.

Cases with inf or NaN in the inputs (a few per run) check what the kernels
promise there: they finish, write every output element, and non-finite
values reach only the rows whose visible keys or query hold them; all other
rows pass the criterion above.

Two steps, because the GPU machine has no compiler:

  # on the compiler machine: compile every kernel the cases need
  random_check.py compile --seed 2026 --cases 600 --out build/random
      [--options "warp-block-skip=true"]   (a variant of the pipeline)
      [--drop-rejected]                    (leave out, named, the cases whose
                                            kernel fa-opt rejects with --options)
      [--decode-share 0.3]                 (kernels for one static query)
  # on the GPU machine (torch, cuda-python): run them
  random_check.py run --dir build/random --json results.json
      [--only-small N] [--first K]     (subsets, e.g. under compute-sanitizer)

Exits non-zero if any case fails; each failing case prints its seed and
index, which regenerate it exactly (keep it in configs.check_cases()).
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import configs  # noqa: E402

HEAD_DIMS = configs.HEAD_DIMS
# Query heads over key/value heads: MHA, GQA of several ratios, MQA.
HEADS = ((1, 1), (4, 4), (6, 6), (8, 2), (12, 4), (16, 1), (32, 8), (10, 5))
# Scores of all (B, Hq) pairs held by the fp32 reference at once.
MAX_SCORES = 1 << 29
SEQ_POINTS = (0, 1, 2, 7, 16, 17, 63, 64, 65, 127, 128, 129, 255, 300, 511, 512, 777,
              1000, 1024, 2049, 4096, 5000, 8192, 16384)


def draw_config(rng):
    d = rng.choices(HEAD_DIMS, weights=(2, 5, 2, 5, 1, 2, 2))[0]
    hq, hkv = rng.choice(HEADS)
    causal = rng.random() < 0.4
    window = None
    if rng.random() < 0.25:
        left = rng.choice((-1, 0, 1, 16, 100, 256, 1024, 5000))
        right = 0 if causal else rng.choice((-1, 0, 3, 64, 700))
        if (left, right) != (-1, -1):
            window = (left, right)
    softcap = rng.choice((5.0, 30.0, 50.0)) if rng.random() < 0.2 else None
    scale = rng.choice((0.05, 0.5, 1.0)) if rng.random() < 0.15 else None
    c = configs.config(d, rng.choice(("f16", "bf16")), causal, hq, hkv,
                       window=window, softcap=softcap)
    c["scale"] = scale
    c["lse"] = rng.random() < 0.75
    return c


def draw_shape(rng, c):
    def seq():
        if rng.random() < 0.5:
            return rng.choice(SEQ_POINTS)
        return int(math.exp(rng.uniform(0, math.log(16384))))
    while True:
        b = rng.choice((1, 1, 2, 3, 4))
        nq, nk = seq(), seq()
        if rng.random() < 0.3:
            nk = nq  # square, the common prefill case
        if b * c["hq"] * nq * nk <= MAX_SCORES:
            return dict(b=b, nq=nq, nk=nk, layout=rng.choice(("bhnd", "bnhd")))


def generate(seed, count, decode_share=0.0):
    """`count` cases over a pool of about count / 4 kernels (a kernel is
    compiled once for all the shapes it serves). With `decode_share`, that
    share of the kernels is compiled for one static query (a decode step:
    static_nq = 1, their cases get Nq = 1), chosen by a generator of its
    own so that the other cases of a seed stay what they were."""
    rng = random.Random(seed)
    pool = [draw_config(rng) for _ in range(max(1, count // 4))]
    decode_rng = random.Random(seed * 7919 + 1)
    for c in pool:
        if decode_rng.random() < decode_share:
            c["static_nq"] = 1
    cases = []
    for i in range(count):
        c = dict(rng.choice(pool))
        c.update(draw_shape(rng, c))
        if c.get("static_nq"):
            c["nq"] = 1
        c["index"] = i
        # A few cases with a non-finite input element.
        c["poison"] = rng.choice(("q_nan", "k_inf", "v_nan")) if rng.random() < 0.03 else None
        cases.append(c)
    return cases


def compile_step(a):
    import compile_kernels
    cases = generate(a.seed, a.cases, a.decode_share)
    os.makedirs(a.out, exist_ok=True)
    seen = {}
    for c in cases:
        seen.setdefault(configs.kernel_name(c), c)
    start = time.time()
    rejected = set()
    for name, c in sorted(seen.items()):
        if os.path.exists(os.path.join(a.out, name + ".json")):
            continue
        try:
            compile_kernels.compile_one(a.fa_opt, a.out, dict(c, options=a.options))
        except subprocess.CalledProcessError:
            # A variant (--options) need not apply to every configuration
            # (e.g. key-groups where the tiles leave no shared memory for
            # its exchange): with --drop-rejected its cases are left out.
            if not a.drop_rejected:
                raise
            rejected.add(name)
    cases = [c for c in cases if configs.kernel_name(c) not in rejected]
    with open(os.path.join(a.out, "cases.json"), "w") as f:
        json.dump(dict(seed=a.seed, cases=cases), f, indent=0)
    print("%d cases, %d kernels compiled into %s in %.0f s%s" % (
        len(cases), len(seen) - len(rejected), a.out, time.time() - start,
        "; %d configurations rejected by fa-opt with these options, their cases left out: %s"
        % (len(rejected), ", ".join(sorted(rejected))) if rejected else ""))
    return 0


# -- GPU side ------------------------------------------------------------------

def make_inputs(torch, c, dt, gen):
    def tensor(heads, n):
        if c["layout"] == "bnhd":
            t = torch.randn(c["b"], n, heads, c["d"], device="cuda", dtype=dt, generator=gen)
            return t.transpose(1, 2)  # a strided [B, H, N, D] view
        return torch.randn(c["b"], heads, n, c["d"], device="cuda", dtype=dt, generator=gen)
    q, k, v = tensor(c["hq"], c["nq"]), tensor(c["hkv"], c["nk"]), tensor(c["hkv"], c["nk"])
    if c.get("softcap"):
        q = q * 4  # large scores, where the cap matters
    return q, k, v


def poison(torch, c, q, k, v, gen):
    """Puts one inf or NaN into Q, K or V; returns the [B, Hq, Nq] rows that
    may become non-finite (None if nothing was poisoned)."""
    kind = c.get("poison")
    target = {"q_nan": q, "k_inf": k, "v_nan": v}.get(kind)
    if target is None or target.numel() == 0:
        return None
    b, h, n = (int(torch.randint(0, s, (1,), generator=gen, device="cuda")) for s in target.shape[:3])
    target[b, h, n, 0] = float("nan") if kind.endswith("nan") else float("inf")
    import check_gpu
    rows = torch.zeros(c["b"], c["hq"], c["nq"], dtype=torch.bool, device="cuda")
    group = c["hq"] // c["hkv"]
    if kind == "q_nan":
        rows[b, h, n] = True
    elif kind == "k_inf":
        # A masked score is replaced (not added to), so only rows that see
        # the key can take the inf.
        sees = check_gpu.visible_mask(c["nq"], c["nk"], c, "cuda")[:, n]
        rows[b, h * group:(h + 1) * group, :] = sees
    else:
        # P V multiplies the NaN by the probability, 0 for a masked key: a
        # row that shares the K/V block gets NaN too (as in the fp32
        # reference's matmul and FlashAttention-2).
        rows[b, h * group:(h + 1) * group, :] = True
    return rows


def run_one(torch, plans, directory, c, seed):
    import check_gpu
    from fa_mlir.runtime import Plan
    name = configs.kernel_name(c)
    if name not in plans:
        plans[name] = Plan(directory, name)
    plan = plans[name]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed * 100003 + c["index"])
    dt = check_gpu.DTYPES[c["dtype"]]
    q, k, v = make_inputs(torch, c, dt, gen)
    bad_rows = poison(torch, c, q, k, v, gen)
    out = torch.full((c["b"], c["hq"], c["nq"], c["d"]), float("nan"), device="cuda", dtype=dt)
    lse = torch.full((c["b"], c["hq"], c["nq"]), float("nan"), device="cuda")
    plan.attention(q, k, v, out, lse if c.get("lse", True) else None)
    torch.cuda.synchronize()
    o_ref, lse_ref = check_gpu.reference(q, k, v, c)
    o_torch = check_gpu.torch_low_precision(q, k, v, c)
    good = torch.ones(c["b"], c["hq"], c["nq"], dtype=torch.bool, device="cuda")
    leaked = False
    if bad_rows is not None:
        good = ~bad_rows
        # Non-finite values only where the poison can reach.
        row_bad = ~torch.isfinite(out.float()).all(dim=-1)
        leaked = bool((row_bad & good).any())
    sel = good[..., None].expand_as(out)
    o32 = out.float()
    err = (o32 - o_ref).abs()[sel].max().item() if sel.any() else 0.0
    if torch.isnan(o32[sel]).any():
        err = float("nan")
    torch_err = (o_torch.float() - o_ref).abs()[sel].max().item() if sel.any() else 0.0
    lse_ok, lse_err = True, 0.0
    if c.get("lse", True):
        finite = torch.isfinite(lse_ref) & good
        minus_inf = torch.isinf(lse_ref) & (lse_ref < 0) & good
        lse_ok = bool((torch.isinf(lse[minus_inf]) & (lse[minus_inf] < 0)).all()) and \
            bool(torch.isfinite(lse[finite]).all())
        lse_err = (lse[finite] - lse_ref[finite]).abs().max().item() if finite.any() else 0.0
    ok = (err <= 2 * torch_err + 1e-5) and lse_ok and lse_err <= 1e-3 and not leaked
    return dict(ok=ok, err=err, torch_err=torch_err, lse_err=lse_err, lse_ok=lse_ok,
                leaked=leaked)


def run_step(a):
    import torch
    with open(os.path.join(a.dir, "cases.json")) as f:
        spec = json.load(f)
    cases = spec["cases"]
    if a.only_small:
        cases = [c for c in cases if max(c["nq"], c["nk"]) <= a.only_small]
    if a.first:
        cases = cases[:a.first]
    plans, rows, failures = {}, [], 0
    start = time.time()
    for c in cases:
        try:
            r = run_one(torch, plans, a.dir, c, spec["seed"])
        except Exception as e:  # A launch error is a failure, not the end of the run.
            r = dict(ok=False, error="%s: %s" % (type(e).__name__, e))
        failures += not r["ok"]
        rows.append(dict(c, **r))
        if not r["ok"] or a.verbose:
            print("%s case %d (seed %d) %s b=%d nq=%d nk=%d %s: %s" % (
                "FAIL" if not r["ok"] else "ok", c["index"], spec["seed"], configs.kernel_name(c),
                c["b"], c["nq"], c["nk"], c["layout"],
                {k: v for k, v in r.items() if k != "ok"}), flush=True)
    ratios = [r["err"] / r["torch_err"] for r in rows
              if r.get("torch_err") and not math.isnan(r.get("err", float("nan")))]
    summary = dict(seed=spec["seed"], cases=len(rows), failures=failures, kernels=len(plans),
                   worst_ratio=max(ratios) if ratios else 0.0,
                   worst_lse_err=max((r.get("lse_err", 0.0) for r in rows), default=0.0),
                   poisoned=sum(1 for r in rows if r.get("poison")),
                   seconds=round(time.time() - start, 1),
                   device=torch.cuda.get_device_name())
    print(json.dumps(summary))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(summary=summary, cases=rows), f, indent=0)
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="step", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--fa-opt", default="build/bin/fa-opt")
    c.add_argument("--seed", type=int, default=2026)
    c.add_argument("--cases", type=int, default=600)
    c.add_argument("--out", default="build/random")
    c.add_argument("--decode-share", type=float, default=0.0,
                   help="share of the kernels compiled for one static query (decode)")
    c.add_argument("--options", default="",
                   help="more --fa-to-ptx options, e.g. 'warp-block-skip=true'")
    c.add_argument("--drop-rejected", action="store_true",
                   help="leave out the cases whose kernel fa-opt rejects with --options "
                        "(its diagnostic is printed) instead of stopping")
    r = sub.add_parser("run")
    r.add_argument("--dir", default="build/random")
    r.add_argument("--json")
    r.add_argument("--only-small", type=int, default=0, help="only cases with Nq, Nk <= this")
    r.add_argument("--first", type=int, default=0, help="only the first K cases")
    r.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    return compile_step(a) if a.step == "compile" else run_step(a)


if __name__ == "__main__":
    sys.exit(main())
