"""Growth of the printers with what they print: text of a wide case_when, the report of a plan.

    python benchmarks/bench_printers.py            # 100 -> 1,000 branches, 10 -> 100 filters
    python benchmarks/bench_printers.py --quick    # 30 -> 300 branches, 5 -> 50 filters

Two ratios, each the median of interleaved runs (drift on a shared machine hits
both sizes alike), in wall time (graphviz runs in child processes):

- text: `tk.to_text` of a traced `case_when`, 10x the branches against 1x.
  Target <= 12 (linear: a label costs the same for every argument).
- report: `tk.write_report` of a traced `plan.optimize` of a chain of filters,
  10x the filters against 1x. Target <= 12; passes that changed nothing are one
  step with one picture, so graphviz runs about once per change, not once per pass.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import toolkit as tk
from toolkit import plan


def _case_when_trace(branches: int) -> tk.Trace:
    x = tk.field("x")
    conds = [tk.equal(x, tk.literal(k)) for k in range(branches)]
    struct = tk.call("make_struct", conds, pc.MakeStructOptions([str(k) for k in range(branches)]))
    expr = tk.call("case_when", [struct, *[tk.literal(k) for k in range(branches)],
                                 tk.literal(-1)])
    table = pa.table({"x": np.arange(20_000) % (branches + branches // 10)})  # same rows
    with tk.trace() as t:
        tk.evaluate(expr, table)
    return t


def _plan_trace(filters: int) -> tk.Trace:
    p = plan.scan("t", pa.table({"a": list(range(10)), "b": list(range(10))}))
    for i in range(filters):
        p = p.filter(tk.field("a") > i)
    with tk.trace() as t:
        plan.optimize(p)
    return t


def _wall(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _ratio(small, large, runs: int) -> tuple[float, float, float]:
    """Median wall seconds of `small()` and `large()`, interleaved, and their ratio."""
    a, b = [], []
    small()  # the first call loads the renderer
    for _ in range(runs):
        a.append(_wall(small))
        b.append(_wall(large))
    ms, ml = statistics.median(a), statistics.median(b)
    return ms, ml, ml / ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    branches, filters = (30, 5) if args.quick else (100, 10)
    small, large = _case_when_trace(branches), _case_when_trace(10 * branches)
    s, l, r = _ratio(lambda: tk.to_text(small, color=False),
                     lambda: tk.to_text(large, color=False), args.runs)
    print(f"to_text case_when {branches} -> {10 * branches} branches: "
          f"{s:.3f} s -> {l:.3f} s, ratio {r:.1f} (target <= 12)")
    out = os.path.join(tempfile.mkdtemp(), "report.html")
    small, large = _plan_trace(filters), _plan_trace(10 * filters)
    s, l, r = _ratio(lambda: tk.write_report(small, out), lambda: tk.write_report(large, out),
                     args.runs)
    print(f"write_report plan of {filters} -> {10 * filters} filters "
          f"({len(small.passes)} -> {len(large.passes)} passes): "
          f"{s:.2f} s -> {l:.2f} s, ratio {r:.1f} (target <= 12)")


if __name__ == "__main__":
    main()
