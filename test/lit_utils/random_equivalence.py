#!/usr/bin/env python3
"""Random configurations for equivalence.py: the tiled nest against the naive
oracle on the CPU, drawn over what the fixed lit lines pick by hand.

Each configuration draws a dtype (f32 only without warps: the mma_sync atom
takes f16/bf16), B, Hq:Hkv (MHA, GQA 2:1 to 8:1), Nq and Nk from 1 to 400
(Nq = 1 included), head dims 16 to 128, blocks, causal, windows (either
side, unbounded or not), a soft cap, static or dynamic B/N, causal block
skipping, split-KV (without warps), and with warps the L3 stages: 1 or 2
warps, 2 or 3 K/V stages, key groups for one-query steps, GQA packing for
small Nq. Tolerances are equivalence.py's usual ones per dtype.

  random_equivalence.py --seed 1 --count 20 --runner-libs LIBS [--backward]

With --backward the configurations are fa.attention_backward's, through
backward_check.py --against naive: the K/V-outer tiling
(--fa-tile-kv-outer), or the GPU's three nests (--fa-tile-backward, dq
atomic, deterministic or auto), against the naive gradient.

Prints one line per configuration (the arguments that reproduce it) and
exits non-zero if any fails.
"""
import argparse
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCES = {"f32": ["--atol", "2e-5", "--rtol", "2e-5"],
              "f16": ["--atol", "2e-3", "--rtol", "2e-3"],
              "bf16": ["--atol", "1e-2", "--rtol", "1e-2"]}


def draw(rng, index):
    dtype = rng.choice(["f32", "f16", "bf16"])
    warps = rng.choice([0, 1, 2]) if dtype != "f32" else 0
    hkv, group = rng.choice([1, 2, 3]), rng.choice([1, 2, 3, 4, 8])
    nq = rng.choice([1, 1, 2, 5, 16, 33, 70, 130])
    nk = rng.choice([1, 3, 16, 17, 64, 100, 150, 257, 400])
    block_m, block_n = rng.choice([16, 32]), rng.choice([16, 32, 64, 128])
    if warps:
        block_m = max(block_m, 16 * warps)
    args = ["--dtype", dtype] + TOLERANCES[dtype] + [
        "--B", str(rng.choice([1, 2])), "--Hq", str(hkv * group), "--Hkv", str(hkv),
        "--Nq", str(nq), "--Nk", str(nk), "--D", str(rng.choice([16, 32, 64, 128])),
        "--block-m", str(block_m), "--block-n", str(block_n), "--seed", str(index)]
    if rng.random() < 0.5:
        args.append("--causal")
    if rng.random() < 0.15 and not warps:
        args += ["--split-kv", str(rng.choice([2, 3]))]
    if rng.random() < 0.25:
        args += ["--window", str(rng.choice([0, 3, 20, 200])), str(rng.choice([-1, 0, 4]))]
    if rng.random() < 0.2:
        args += ["--softcap", "2.0"]
    if rng.random() < 0.2:
        args.append("--dynamic")
    if rng.random() < 0.7:
        args.append("--skip")
    if warps:
        args += ["--warps", str(warps), "--stages", str(rng.choice([2, 3]))]
        # Key groups: one-query steps whose warp owns 16 rows.
        if nq == 1 and block_m // warps == 16 and rng.random() < 0.7:
            groups = rng.choice([2, 4])
            if block_n % (16 * groups) == 0:
                args += ["--key-groups", str(groups)]
        if nq <= 2 and group > 1 and rng.random() < 0.4:
            args.append("--pack-gqa")
    return args


BACKWARD_TOLERANCES = {"f32": ["--atol", "1e-5", "--rtol", "1e-5"],
                       "f16": ["--atol", "1e-3", "--rtol", "1e-3"],
                       "bf16": ["--atol", "8e-3", "--rtol", "8e-3"]}


def draw_backward(rng, index):
    dtype = rng.choice(["f32", "f16", "bf16"])
    hkv, group = rng.choice([1, 2]), rng.choice([1, 2, 4])
    args = ["--dtype", dtype] + BACKWARD_TOLERANCES[dtype] + [
        "--B", str(rng.choice([1, 2])), "--Hq", str(hkv * group), "--Hkv", str(hkv),
        "--Nq", str(rng.choice([1, 2, 7, 13, 17, 33])), "--Nk", str(rng.choice([1, 3, 9, 16, 21, 40])),
        "--D", str(rng.choice([8, 16])), "--tile", str(rng.choice([4, 8, 16])), str(rng.choice([4, 8, 16])),
        "--seed", str(index)]
    if rng.random() < 0.3:
        args += ["--Dv", str(rng.choice([4, 8]))]
    if rng.random() < 0.5:
        args.append("--causal")
    if rng.random() < 0.25:
        args += ["--window", str(rng.choice([0, 2, 5])), str(rng.choice([-1, 0, 3]))]
    if rng.random() < 0.2:
        args += ["--softcap", "0.5"]
    if rng.random() < 0.2:
        args.append("--dynamic")
    if rng.random() < 0.6:
        args += ["--gpu-form", "--dq", rng.choice(["auto", "atomic", "deterministic"])]
    return args


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--runner-libs", required=True)
    p.add_argument("--backward", action="store_true",
                   help="fa.attention_backward configurations (backward_check.py)")
    args = p.parse_args()
    script, drawer, extra = "equivalence.py", draw, []
    if args.backward:
        script, drawer, extra = "backward_check.py", draw_backward, ["--against", "naive"]
    failures = 0
    for index in range(args.count):
        config = drawer(random.Random("%d-%d" % (args.seed, index)), index)
        done = subprocess.run([sys.executable, os.path.join(HERE, script),
                               "--runner-libs", args.runner_libs] + extra + config,
                              capture_output=True, text=True)
        ok = done.returncode == 0
        failures += not ok
        print("%s %d/%d %s" % ("ok" if ok else "FAIL", args.seed, index, " ".join(config)), flush=True)
        if not ok:
            print("   ", (done.stdout + done.stderr).strip()[-2000:])
    print("%d configurations, %d failed" % (args.count, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
