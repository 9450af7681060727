#!/usr/bin/env python3
"""Timing probes for issue 16 made by editing the PTX of #fa.wgmma kernels
(not compiler output; what a compiler change would buy, measured first).

* `nobar`: the thread-block barrier of every in-loop `fa.await`
  (`cp.async.wait_group 1` ... `bar.sync 0`) deleted, so the two
  warpgroups of a thread block are no longer held in lock-step by the K/V
  ring. UNSAFE: slots are reused and read without the barrier that orders
  them (results may be wrong; time them with ab_compare.py --unchecked).
* `pingpong`: FlashAttention-3's warpgroup schedule by named barriers:
  warpgroup w waits on barrier 1 + w before issuing a K/V step's matmuls
  (S_j and the deferred P V) and then arrives on the other warpgroup's
  barrier, so the tensor cores take the two warpgroups' matmuls in turn
  and one's softmax runs under the other's matmuls. Warpgroup 1 arrives
  once on barrier 1 before the loops, warpgroup 0 waits on it once after
  them, so the arrivals balance for any number of steps. Safe with the
  in-loop barriers kept; `pingpong-nobar` combines both edits.

  ptx_probe_pingpong.py --kernels DIR --out DIR2 --edits pingpong [nobar]
"""
import argparse
import os
import re
import shutil
import sys

WG = "mov.u32 pp_t, %tid.x;\nshr.u32 pp_t, pp_t, 7;\n"


def block(body):
    return "\t{\n.reg .u32 pp_t;\n.reg .pred pp_p;\n" + WG + body + "\t}\n"


SYNC_OWN = block("add.u32 pp_t, pp_t, 1;\nbar.sync pp_t, 256;\n")
ARRIVE_OTHER = block("sub.u32 pp_t, 2, pp_t;\nbar.arrive pp_t, 256;\n")
PRE_ARRIVE = block("setp.eq.u32 pp_p, pp_t, 1;\n@pp_p bar.arrive 1, 256;\n")
FINAL_SYNC = block("setp.eq.u32 pp_p, pp_t, 0;\n@pp_p bar.sync 1, 256;\n")


def asm_blocks(lines):
    """(begin, end) line indices of each inline-asm block holding a wgmma."""
    out, start = [], None
    for i, line in enumerate(lines):
        if line.strip() == "// begin inline asm":
            start = i
        elif line.strip() == "// end inline asm" and start is not None:
            if any("wgmma.mma_async" in x for x in lines[start:i]):
                out.append((start, i))
            start = None
    return out


def edit(ptx, edits):
    lines = ptx.split("\n")
    inserts = {}  # line index -> text inserted before it
    deletes = set()
    blocks = asm_blocks(lines)
    steps = []  # (QK block begin, PV block end) of each pipelined K/V step
    for i, line in enumerate(lines):
        if re.match(r"\s*wgmma\.wait_group\.sync\.aligned 1;", line):
            prev = [b for b in blocks if b[1] < i]
            if len(prev) >= 2:
                steps.append((prev[-2][0], prev[-1][1]))
    if not steps:
        raise SystemExit("no pipelined K/V step found (a --fa-pipeline-mma kernel is needed)")
    if "nobar" in edits:
        # The barrier of each step's fa.await: the last one before its S.
        for qk_begin, _ in steps:
            deletes.add(max(i for i in range(qk_begin) if re.match(r"\s*bar\.sync\s+0;", lines[i])))
    if "pingpong" in edits:
        for qk_begin, pv_end in steps:
            inserts[qk_begin] = inserts.get(qk_begin, "") + SYNC_OWN
            inserts[pv_end + 1] = inserts.get(pv_end + 1, "") + ARRIVE_OTHER
        # Before the loops: after the kernel's first barrier (Q's await).
        pre = next(i for i, l in enumerate(lines) if re.match(r"\s*bar\.sync\s+0;", l))
        assert pre < steps[0][0]
        inserts[pre + 1] = PRE_ARRIVE + inserts.get(pre + 1, "")
        # After the loops: before the epilogue's cp.async.wait_group 0.
        post = next(i for i in range(max(inserts), len(lines))
                    if re.match(r"\s*cp\.async\.wait_group\s+0;", lines[i]))
        inserts[post] = FINAL_SYNC + inserts.get(post, "")
    out = []
    for i, line in enumerate(lines):
        if i in inserts:
            out.append(inserts[i].rstrip("\n"))
        if i not in deletes:
            out.append(line)
    return "\n".join(out), len(deletes)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--edits", nargs="+", choices=["nobar", "pingpong"], required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in sorted(os.listdir(a.kernels)):
        src = os.path.join(a.kernels, name)
        if name.endswith(".ptx"):
            with open(src) as f:
                text, removed = edit(f.read(), a.edits)
            with open(os.path.join(a.out, name), "w") as f:
                f.write(text)
            print("%s: %s, %d barriers removed" % (name, "+".join(a.edits), removed))
        elif name.endswith(".json"):
            shutil.copy(src, os.path.join(a.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
