#!/usr/bin/env python3
"""Pure-Python (double precision) attention reference, no dependencies.

Used to compute the expected values written into the integration tests, and
as a library by other test helpers. Shapes follow fa.attention:
q[B][Hq][Nq][D], k[B][Hkv][Nk][D], v[B][Hkv][Nk][Dv].
"""
import math


def attention(q, k, v, scale=None, causal=False):
    """Returns (o, lse) as nested lists: o[B][Hq][Nq][Dv], lse[B][Hq][Nq]."""
    batch, hq, nq, d = len(q), len(q[0]), len(q[0][0]), len(q[0][0][0])
    hkv, nk = len(k[0]), len(k[0][0])
    dv = len(v[0][0][0])
    group = hq // hkv
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    o = [[[[0.0] * dv for _ in range(nq)] for _ in range(hq)] for _ in range(batch)]
    lse = [[[0.0] * nq for _ in range(hq)] for _ in range(batch)]
    for b in range(batch):
        for h in range(hq):
            g = h // group
            for i in range(nq):
                visible = [j for j in range(nk) if not causal or j <= i + nk - nq]
                if not visible:
                    lse[b][h][i] = -math.inf
                    continue
                s = {j: scale * sum(q[b][h][i][x] * k[b][g][j][x] for x in range(d))
                     for j in visible}
                m = max(s.values())
                e = {j: math.exp(s[j] - m) for j in visible}
                total = sum(e.values())
                for x in range(dv):
                    o[b][h][i][x] = sum(e[j] * v[b][g][j][x] for j in visible) / total
                lse[b][h][i] = m + math.log(total)
    return o, lse


def flatten(nested):
    if isinstance(nested, list):
        return [x for item in nested for x in flatten(item)]
    return [nested]


if __name__ == "__main__":
    # The worked example of the seed document (N=6, d=2, scale 1).
    q = [[[[2, -1], [-2, 5], [4, 1], [0, 2], [3, 0], [1, -3]]]]
    kt = [[1, 0, 4, -1, 5, 2], [-2, 3, 1, 2, 0, -4]]
    k = [[[[kt[0][j], kt[1][j]] for j in range(6)]]]
    v = [[[[3, 0], [1, 2], [-2, 1], [5, -3], [4, 0], [-1, 2]]]]
    for causal in (False, True):
        o, lse = attention(q, k, v, scale=1.0, causal=causal)
        print("causal" if causal else "non-causal")
        print("  O  ", ["%.6g" % x for x in flatten(o)])
        print("  LSE", ["%.6g" % x for x in flatten(lse)])
