#!/usr/bin/env python3
"""An experiment, not a compiler feature: what would scaling Q once, instead
of every score, save in the soft-capped kernel?

The soft-capped forward kernel computes tanh(scale / c * S) per score: one
FMUL and one MUFU.TANH beside the plain kernel's work (docs/performance.md,
"Soft-capping"). Multiplying the Q fragments by scale / c once per thread
block (rounded to f16/bf16, as Triton's tutorial kernel scales Q) would
drop the FMUL. This script edits the PTX of kernels whose Q stays in
registers (head dim 64 with the default tiles): it scales the Q fragments
right after their ldmatrix and turns each multiply that feeds a tanh into a
move. Kernels that re-read Q from shared memory every block (head dim 128)
are skipped: only their first fragments would be scaled.

  python3 bench/compile_kernels.py --fa-opt build/bin/fa-opt --out build/sc/base \\
      --head-dims 64 --dtypes f16 bf16 --causal yes --heads 32x32 --softcap 50
  python3 bench/compile_kernels.py --fa-opt build/bin/fa-opt --out build/sc/base \\
      --head-dims 64 --dtypes f16 bf16 --causal yes --heads 32x32
  python3 bench/ptx_softcap_prescale.py build/sc/base build/sc/qpre
  # GPU machine, the variant beside the kernels it came from, checked first:
  cd bench && python3 bench_features.py --kernels ../build/sc/base --tables softcap \\
      --softcap-dims 64 --seqlens 1024 4096 16384 --no-flex \\
      --softcap-variants qpre=../build/sc/qpre --repeats 5
"""
import os
import re
import shutil
import sys

LDMATRIX = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def prescale(lines, f16):
    """Edits the PTX lines in place; returns (cap register, multiplies
    dropped, Q registers scaled), or None where Q is not held in registers."""
    caps, dropped = set(), 0
    for i, line in enumerate(lines):
        found = re.search(r"tanh.approx.f32 %r\d+, (%r\d+);", line)
        if not found:
            continue
        for j in range(i - 1, i - 4, -1):
            mul = re.match(r"\s*mul.rn.f32\s+(%r\d+), (%r\d+), (%r\d+);", lines[j])
            if mul and mul.group(1) == found.group(1):
                caps.add(mul.group(2))
                lines[j] = "\tmov.b32 \t%s, %s;" % (mul.group(1), mul.group(3))
                dropped += 1
                break
    if len(caps) != 1:
        return None
    cap = caps.pop()
    # The Q fragments: the first run of non-transposed ldmatrix.
    first = next(i for i, line in enumerate(lines) if LDMATRIX in line)
    last, regs = first, []
    while LDMATRIX in lines[last]:
        regs += re.findall(r"%r\d+", lines[last].split("}")[0])
        last += 1
    code = ["\t{", "\t.reg .b32 qlo, qhi;"] + (["\t.reg .b16 hlo, hhi;"] if f16 else [])
    for r in regs:
        if f16:
            code += ["\tmov.b32 {hlo, hhi}, %s;" % r, "\tcvt.f32.f16 qlo, hlo;",
                     "\tcvt.f32.f16 qhi, hhi;"]
        else:  # bf16 -> f32: the high half of an f32
            code += ["\tshl.b32 qlo, %s, 16;" % r, "\tand.b32 qhi, %s, -65536;" % r]
        code += ["\tmul.rn.f32 qlo, qlo, %s;" % cap, "\tmul.rn.f32 qhi, qhi, %s;" % cap,
                 "\tcvt.rn.%sx2.f32 %s, qhi, qlo;" % ("f16" if f16 else "bf16", r)]
    lines[last:last] = code + ["\t}"]
    return cap, dropped, len(regs)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if "_cap" not in name or not name.endswith(".ptx"):
            continue
        lines = open(os.path.join(src, name)).read().split("\n")
        # Q stays in registers at d = 64 (the atom's budget,
        # MmaSyncAtom.cpp); at d = 128 it is re-read every block.
        if "_d64_" not in name:
            print("%s: skipped (Q re-read from shared memory)" % name)
            continue
        result = prescale(lines, "_f16_" in name)
        if result is None:
            print("%s: skipped (no single tanh scale found)" % name)
            continue
        open(os.path.join(dst, name), "w").write("\n".join(lines))
        shutil.copy(os.path.join(src, name[:-4] + ".json"), dst)
        print("%s: scale %s, %d multiplies dropped, %d Q registers scaled" % ((name,) + result))


if __name__ == "__main__":
    main()
