"""Prints a packed-sequence launch plan's grid x and computed parameters
for given lengths and max_seqlen_q, as the Python runtime evaluates them
(fa_mlir.runtime.plan.evaluate): the numbers a FileCheck test can pin.

  varlen_grid.py PLAN.json MAX_SEQLEN LENGTH...
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python_bindings"))
from fa_mlir.runtime.plan import evaluate  # noqa: E402

plan = json.load(open(sys.argv[1]))
max_seqlen, lengths = int(sys.argv[2]), [int(n) for n in sys.argv[3:]]
q = next(t for t in plan["tensors"] if t["name"] == "q")
shapes = {"q": (1, q["shape"][1], sum(lengths), q["shape"][3]),
          "cu_seqlens_q": (len(lengths) + 1,)}
values = {"max_seqlen_q": max_seqlen}
computed = ["%s=%d" % (s["name"], evaluate(s["value"], shapes, values))
            for s in plan["scalars"] if s["dtype"] == "index" and s["value"] is not None]
print("grid.x=%d" % evaluate(plan["kernels"][0]["grid"][0], shapes, values), *computed)
