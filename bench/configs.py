"""Kernel configurations the GPU scripts use, and their names.

Pure Python (no torch): compile_kernels.py (on the compiler machine) and
check_gpu.py / bench.py (on the GPU machine) agree on names through it.

A configuration is a dict: d (head dim), dtype ("f16" | "bf16"), causal,
hq, hkv (head counts), window ((left, right), -1 = unbounded, or None),
softcap (float or None), tiles ((block_m, block_n, warps, stages) or None
for the pipeline's defaults); optionally scale (float, default 1/sqrt(d)),
lse (bool, default True: the op has the LSE output), static_nq (a static
query count, e.g. 1 for a decode step; default dynamic) and splits (split-KV:
the keys of each Q block in this many chunks, merged by a second kernel;
default 1). A check case adds its shape (b, nq, nk) to the configuration's
dict.
"""


def kernel_name(c):
    """fa_d64_f16_causal_h8x2[_w256x0][_cap30][_m128n64w4s2]_kernel."""
    name = "fa_d%d_%s_%s_h%dx%d" % (c["d"], c["dtype"], "causal" if c["causal"] else "full",
                                    c["hq"], c["hkv"])
    if c.get("window"):
        name += "_w%sx%s" % tuple("n" if w < 0 else str(w) for w in c["window"])
    if c.get("softcap"):
        name += "_cap%g" % c["softcap"]
    if c.get("scale") is not None:
        name += "_s%s" % ("%g" % c["scale"]).replace(".", "p").replace("-", "m")
    if not c.get("lse", True):
        name += "_nolse"
    if c.get("static_nq") is not None:
        name += "_q%d" % c["static_nq"]
    if c.get("splits", 1) != 1:
        name += "_kv%d" % c["splits"]
    if c.get("tiles"):
        name += "_m%dn%dw%ds%d" % tuple(c["tiles"])
    return name + "_kernel"


def config(d, dtype, causal, hq, hkv, window=None, softcap=None, tiles=None):
    return dict(d=d, dtype=dtype, causal=causal, hq=hq, hkv=hkv, window=window,
                softcap=softcap, tiles=tiles)


# Head counts of the FlashAttention-2 paper shapes (hidden 2048).
def paper_heads(d):
    return 2048 // d


HEAD_DIMS = (32, 64, 96, 128, 160, 192, 256)


def check_cases():
    """The GPU correctness matrix (check_gpu.py): shapes and configurations."""
    out = []
    for d in HEAD_DIMS:
        for dtype in ("f16", "bf16"):
            for causal in (False, True):
                seqs = (1, 17, 128, 1000, 4096) if d in (64, 128) else (17, 300)
                for n in seqs:
                    out.append((config(d, dtype, causal, 4, 4), dict(b=2, nq=n, nk=n)))
                if d in (64, 128):
                    out.append((config(d, dtype, causal, 8, 2), dict(b=2, nq=100, nk=300)))
                    out.append((config(d, dtype, causal, 8, 2), dict(b=2, nq=300, nk=100)))
                    out.append((config(d, dtype, causal, 8, 1), dict(b=3, nq=513, nk=513)))
    # Sliding windows (with and without causal, wider than N, one side
    # unbounded) and soft-capping, on ragged and Nq != Nk shapes with GQA.
    for d in (64, 128):
        for dtype in ("f16", "bf16"):
            for window, causal in (((64, 0), True), ((100, 50), False), ((0, 0), False),
                                   ((300, -1), False), ((-1, 40), False), ((5000, 5000), False),
                                   ((1024, 0), True)):
                for b, nq, nk in ((2, 300, 300), (1, 257, 1000), (2, 1000, 257), (1, 1, 700)):
                    out.append((config(d, dtype, causal, 8, 2, window=window), dict(b=b, nq=nq, nk=nk)))
            for softcap, causal in ((30.0, True), (50.0, False), (5.0, False)):
                for b, nq, nk in ((2, 300, 300), (1, 257, 1000), (2, 1000, 257)):
                    out.append((config(d, dtype, causal, 8, 2, softcap=softcap), dict(b=b, nq=nq, nk=nk)))
            out.append((config(d, dtype, True, 8, 2, window=(256, 0), softcap=30.0),
                        dict(b=2, nq=700, nk=900)))
    # Soft caps (and a window with one) at the other head dims: a cap at
    # d = 96 takes the window tiles, at d = 192 the rescale after the
    # exponentials (MmaSyncAtom.cpp's table).
    for d in HEAD_DIMS:
        if d not in (64, 128):
            for dtype in ("f16", "bf16"):
                out.append((config(d, dtype, True, 8, 2, softcap=30.0), dict(b=2, nq=300, nk=300)))
                out.append((config(d, dtype, False, 8, 2, softcap=50.0), dict(b=1, nq=257, nk=1000)))
                out.append((config(d, dtype, True, 8, 2, window=(256, 0), softcap=30.0),
                            dict(b=2, nq=700, nk=900)))
    # A static Nq below the table's Q block (decode steps and short chunks:
    # 16-, 32- and 64-row Q blocks on 1, 2 and 4 warps).
    for d in (64, 128):
        for dtype in ("f16", "bf16"):
            for nq, nk, extra in ((1, 700, {}), (1, 1000, dict(window=(64, 0))),
                                  (1, 300, dict(softcap=30.0)), (5, 4, {}), (17, 300, {}),
                                  (33, 257, dict(window=(100, 50))), (64, 1000, {})):
                causal = extra.get("window") != (100, 50)
                c = dict(config(d, dtype, causal, 8, 2, **extra), static_nq=nq)
                out.append((c, dict(b=3, nq=nq, nk=nk)))
    out += split_kv_cases()
    return out


def split_kv_cases():
    """Split-KV (two kernels and workspaces): decode steps (one static query,
    the heads of a GQA group packed) over short and long caches, fewer keys
    than splits (empty splits), MQA and MHA, a window, a soft cap; and
    dynamic-Nq kernels with causal Nq > Nk (rows no split sees)."""
    out = []
    for d in (64, 128):
        for dtype in ("f16", "bf16"):
            decode = lambda hq, hkv, s, **kw: dict(config(d, dtype, True, hq, hkv, **kw),
                                                  static_nq=1, splits=s)
            for c, shapes in (
                    (decode(32, 4, 8), ((1, 1), (4, 7), (2, 1000), (1, 32768))),
                    (decode(32, 8, 3), ((3, 129), (64, 2048))),
                    (decode(16, 1, 16), ((2, 5000),)),                      # MQA
                    (decode(8, 8, 5), ((5, 777),)),                          # MHA
                    (decode(32, 4, 4, window=(256, 0)), ((2, 3000),)),
                    (decode(32, 4, 4, softcap=30.0), ((2, 3000),))):
                for b, nk in shapes:
                    out.append((c, dict(b=b, nq=1, nk=nk)))
            full = dict(config(d, dtype, True, 8, 2), splits=4)
            for b, nq, nk in ((2, 300, 100), (1, 17, 2000), (2, 64, 64)):
                out.append((full, dict(b=b, nq=nq, nk=nk)))
    return out


def bench_configs():
    """The kernels of the speed tables (bench.py)."""
    out = []
    for d in (64, 128):
        for dtype in ("f16", "bf16"):
            for causal in (False, True):
                out.append(config(d, dtype, causal, paper_heads(d), paper_heads(d)))
                # Soft-capped (Gemma 2 uses 50 on the logits).
                out.append(config(d, dtype, causal, paper_heads(d), paper_heads(d), softcap=50.0))
        # Local attention at 16k: window 1024, causal (bf16).
        out.append(config(d, "bf16", True, paper_heads(d), paper_heads(d), window=(1024, 0)))
    for d in HEAD_DIMS:
        if d not in (64, 128):
            for causal in (False, True):
                out.append(config(d, "bf16", causal, paper_heads(d), paper_heads(d)))
    return out


def all_configs():
    """Every distinct kernel configuration check_gpu.py and bench.py need."""
    seen, out = set(), []
    for c in [c for c, _ in check_cases()] + bench_configs():
        name = kernel_name(c)
        if name not in seen:
            seen.add(name)
            out.append(c)
    return out
