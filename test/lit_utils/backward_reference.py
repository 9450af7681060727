#!/usr/bin/env python3
"""Pure-Python (double precision) attention forward and gradient, no deps.

The reference for fa.attention_backward, computed independently of the
compiler's definitions: the scores and the softmax are evaluated directly
(no LSE, no online softmax), and the softmax gradient is taken from its
Jacobian, dS[i, j] = P[i, j] * (dP[i, j] - sum_k P[i, k] dP[i, k]), rather
than through D = rowsum(dO * O) as the compiler does. `--self-test` checks
the gradient itself against central finite differences of the loss
sum(O * dO) on small cases of every feature.

Shapes follow fa.attention: q[B][Hq][Nq][D], k[B][Hkv][Nk][D],
v[B][Hkv][Nk][Dv], do[B][Hq][Nq][Dv]. The mask is bottom-right aligned:
row i sees key j iff i + Nk - Nq - left <= j <= i + Nk - Nq + right
(left/right None = unbounded; causal forces right = 0).
"""
import argparse
import math
import random
import sys


def visible_keys(i, nq, nk, causal, window):
    left, right = (None, None)
    if window is not None:
        left = window[0] if window[0] >= 0 else None
        right = window[1] if window[1] >= 0 else None
    if causal:
        right = 0
    diag = i + nk - nq
    return [j for j in range(nk)
            if (right is None or j <= diag + right) and (left is None or j >= diag - left)]


def zeros(*shape):
    if len(shape) == 1:
        return [0.0] * shape[0]
    return [zeros(*shape[1:]) for _ in range(shape[0])]


def forward_and_backward(q, k, v, do, scale=None, causal=False, window=None, softcap=None):
    """Returns (o, lse, dq, dk, dv) as nested lists of floats."""
    batch, hq, nq, d = len(q), len(q[0]), len(q[0][0]), len(q[0][0][0])
    hkv, nk, dv_dim = len(k[0]), len(k[0][0]), len(v[0][0][0])
    group = hq // hkv
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    o = zeros(batch, hq, nq, dv_dim)
    lse = zeros(batch, hq, nq)
    dq = zeros(batch, hq, nq, d)
    dk = zeros(batch, hkv, nk, d)
    dv = zeros(batch, hkv, nk, dv_dim)
    for b in range(batch):
        for h in range(hq):
            g = h // group
            for i in range(nq):
                keys = visible_keys(i, nq, nk, causal, window)
                if not keys:
                    lse[b][h][i] = -math.inf
                    continue  # O = 0 and no gradient flows through the row.
                # t: scaled score; s: what the softmax sees (capped t).
                t = {j: scale * sum(q[b][h][i][x] * k[b][g][j][x] for x in range(d)) for j in keys}
                s = {j: softcap * math.tanh(t[j] / softcap) if softcap else t[j] for j in keys}
                m = max(s.values())
                e = {j: math.exp(s[j] - m) for j in keys}
                total = sum(e.values())
                p = {j: e[j] / total for j in keys}
                lse[b][h][i] = m + math.log(total)
                for x in range(dv_dim):
                    o[b][h][i][x] = sum(p[j] * v[b][g][j][x] for j in keys)
                # Backward through O = P V and the softmax Jacobian.
                dp = {j: sum(do[b][h][i][x] * v[b][g][j][x] for x in range(dv_dim)) for j in keys}
                mean = sum(p[j] * dp[j] for j in keys)
                for j in keys:
                    ds = p[j] * (dp[j] - mean)
                    if softcap:
                        ds *= 1.0 - math.tanh(t[j] / softcap) ** 2
                    for x in range(d):
                        dq[b][h][i][x] += scale * ds * k[b][g][j][x]
                        dk[b][g][j][x] += scale * ds * q[b][h][i][x]
                    for x in range(dv_dim):
                        dv[b][g][j][x] += p[j] * do[b][h][i][x]
    return o, lse, dq, dk, dv


def flatten(nested):
    if isinstance(nested, list):
        return [x for item in nested for x in flatten(item)]
    return [nested]


def _cells(nested):
    """(container, index) of every scalar of a nested list, in order."""
    if isinstance(nested[0], list):
        return [c for item in nested for c in _cells(item)]
    return [(nested, i) for i in range(len(nested))]


def finite_difference_error(cfg, seed=0, step=1e-5):
    """Max |analytic - numeric| over every gradient entry of one case."""
    rng = random.Random(seed)
    B, Hq, Hkv, Nq, Nk, D, Dv = (cfg[x] for x in ("B", "Hq", "Hkv", "Nq", "Nk", "D", "Dv"))
    rand = lambda *shape: [[[[rng.uniform(-1, 1) for _ in range(shape[3])] for _ in range(shape[2])]
                            for _ in range(shape[1])] for _ in range(shape[0])]
    q, k, v, do = rand(B, Hq, Nq, D), rand(B, Hkv, Nk, D), rand(B, Hkv, Nk, Dv), rand(B, Hq, Nq, Dv)
    opts = dict(scale=cfg.get("scale"), causal=cfg.get("causal", False),
                window=cfg.get("window"), softcap=cfg.get("softcap"))

    def loss():
        o = forward_and_backward(q, k, v, do, **opts)[0]
        return sum(a * b for a, b in zip(flatten(o), flatten(do)))

    _, _, dq, dk, dv = forward_and_backward(q, k, v, do, **opts)
    worst = 0.0
    for tensor, grad in ((q, dq), (k, dk), (v, dv)):
        for (cell, idx), g in zip(_cells(tensor), flatten(grad)):
            old = cell[idx]
            cell[idx] = old + step
            up = loss()
            cell[idx] = old - step
            down = loss()
            cell[idx] = old
            worst = max(worst, abs((up - down) / (2 * step) - g))
    return worst


SELF_TEST_CASES = [
    dict(B=1, Hq=1, Hkv=1, Nq=3, Nk=4, D=3, Dv=2),
    dict(B=2, Hq=2, Hkv=1, Nq=4, Nk=4, D=2, Dv=3, causal=True),
    dict(B=1, Hq=4, Hkv=2, Nq=5, Nk=3, D=2, Dv=2, causal=True),  # Nq > Nk: empty rows
    dict(B=1, Hq=2, Hkv=2, Nq=3, Nk=6, D=2, Dv=2, causal=True, scale=0.7),
    dict(B=1, Hq=3, Hkv=1, Nq=5, Nk=5, D=2, Dv=2, window=(1, 1)),
    dict(B=1, Hq=1, Hkv=1, Nq=4, Nk=6, D=3, Dv=2, window=(2, -1), causal=True),
    dict(B=1, Hq=2, Hkv=1, Nq=4, Nk=4, D=2, Dv=2, softcap=0.5, scale=2.0),
    dict(B=1, Hq=2, Hkv=2, Nq=4, Nk=3, D=2, Dv=3, softcap=1.5, causal=True, window=(1, 0)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true",
                        help="check the gradient against finite differences")
    parser.add_argument("--tol", type=float, default=1e-7)
    args = parser.parse_args()
    if not args.self_test:
        parser.error("nothing to do (use --self-test, or import this module)")
    worst = 0.0
    for cfg in SELF_TEST_CASES:
        err = finite_difference_error(cfg)
        worst = max(worst, err)
        if err > args.tol:
            print("FAIL: %r: gradient differs from finite differences by %.3g (tol %g)"
                  % (cfg, err, args.tol))
            return 1
    print("PASS: %d cases, max |analytic - finite difference| %.3g (tol %g)"
          % (len(SELF_TEST_CASES), worst, args.tol))
    return 0


if __name__ == "__main__":
    sys.exit(main())
