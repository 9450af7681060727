#!/usr/bin/env python3
"""Compares the numbers printed by printMemrefF32 against expected numbers.

Two ways to give the expected numbers:

  compare_memrefs.py ACTUAL --expected-file REF      (another printMemref dump)
  compare_memrefs.py ACTUAL --expected-in TEST.mlir [--tag T]
                                          (lines `// T: ...`, T = EXPECTED
                                           by default)

ACTUAL may be `-` for stdin. Every memref printed in ACTUAL is flattened, in
order, into one list; so is the expected side. An element passes when
|actual - expected| <= atol + rtol * |expected|; NaN and +-inf must match
exactly. Prints one summary line (`PASS ...` or `FAIL ...` with the worst
element) and exits non-zero on failure, so a lit RUN line fails by itself.
"""
import argparse
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)")


def numbers_in_memref_dump(text):
    """The data values of every `Unranked Memref ... data =` block."""
    values = []
    for block in re.split(r"Unranked Memref[^\n]*data =", text)[1:]:
        # A block ends where the next non-data line starts (e.g. other prints).
        data = []
        for line in block.splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith("["):
                break
            data.append(stripped)
        values += [float(x) for x in NUMBER.findall(" ".join(data))]
    return values


def numbers_in_expected_lines(path, tag):
    values = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*" + re.escape(tag) + r":(.*)", line)
            if m:
                values += [float(x) for x in NUMBER.findall(m.group(1))]
    return values


def close(a, e, atol, rtol):
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    if math.isinf(e) or math.isinf(a):
        return a == e
    return abs(a - e) <= atol + rtol * abs(e)


def compare(actual, expected, atol, rtol):
    """Returns (ok, one-line summary) for two flat lists of numbers."""
    if not expected:
        return False, "no expected values found"
    if len(actual) != len(expected):
        return False, "%d values printed, %d expected" % (len(actual), len(expected))
    worst, worst_i, bad = 0.0, 0, 0
    for i, (a, e) in enumerate(zip(actual, expected)):
        good = close(a, e, atol, rtol)
        bad += not good
        if math.isfinite(a) and math.isfinite(e):
            err = abs(a - e)
        else:
            err = 0.0 if good else math.inf
        if err > worst:
            worst, worst_i = err, i
    summary = "%d values, max abs err %.3g at #%d (actual %r, expected %r), atol %g rtol %g" % (
        len(actual), worst, worst_i, actual[worst_i], expected[worst_i], atol, rtol)
    if bad:
        summary = "%d mismatches; %s" % (bad, summary)
    return bad == 0, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("actual")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--expected-file")
    group.add_argument("--expected-in")
    parser.add_argument("--tag", default="EXPECTED")
    parser.add_argument("--atol", type=float, required=True)
    parser.add_argument("--rtol", type=float, required=True)
    args = parser.parse_args()

    text = sys.stdin.read() if args.actual == "-" else open(args.actual).read()
    actual = numbers_in_memref_dump(text)
    if args.expected_file:
        expected = numbers_in_memref_dump(open(args.expected_file).read())
    else:
        expected = numbers_in_expected_lines(args.expected_in, args.tag)

    ok, summary = compare(actual, expected, args.atol, args.rtol)
    print(("PASS: " if ok else "FAIL: ") + summary)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
