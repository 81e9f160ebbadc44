"""Deep traces: growth of tracing, `to_text` and the explorer with tree depth.

    python benchmarks/bench_deep_trace.py                  # depths 1,000 and 10,000
    python benchmarks/bench_deep_trace.py --depths 300 3000

A nested `if_else(a != k, <deeper>, k)` (four nodes per level) evaluated on
2,000 rows under `tk.trace()`, then drawn as text and opened in
`widgets.Explorer` on the evaluation step. Each depth runs in its own process so
its peak memory (max RSS above the input's) is its own; `to_text`'s own memory
(peak, the text included) is traced on a second drawing. Reported: seconds per phase, memory,
and for each pair of depths the growth ratio t(big)/t(small) against the depth
ratio (linear is a growth ratio near the depth ratio).

Targets: at 10,000 deep the explorer opens in under 3 s and `to_text` stays
under 200 MB above the process's baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

ROOT = os.path.join(os.path.dirname(__file__), "..")


def measure(depth: int) -> dict:
    sys.path.insert(0, ROOT)
    import numpy as np
    import pyarrow as pa

    import toolkit as tk

    sys.setrecursionlimit(max(10_000, 4 * depth))  # only for building the input below
    from widgets import Explorer

    rng = np.random.default_rng(3)
    table = pa.table({"a": pa.array(rng.integers(0, 2_000, 2_000))})
    a = tk.field("a")
    expr: tk.Expression = tk.literal(-1)
    for k in range(depth):
        expr = tk.if_else(a != k, expr, k)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"depth": depth}
    t0 = time.perf_counter()
    with tk.trace() as trace:
        tk.evaluate(expr.bind(table.schema), table)
    out["trace_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = tk.to_text(trace)
    out["to_text_s"] = time.perf_counter() - t0
    out["to_text_chars"] = len(text)
    del text
    tracemalloc.start()  # a second drawing, for the memory it takes (its own, the text included)
    tk.to_text(trace)
    out["to_text_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    t0 = time.perf_counter()
    explorer = Explorer(trace)
    explorer.go(len(explorer.steps) - 1)
    out["explorer_s"] = time.perf_counter() - t0
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline) / 1024
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one)))
        return 0
    rows = []
    for depth in args.depths:
        done = subprocess.run([sys.executable, __file__, "--one", str(depth)],
                              capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'depth':>7} {'trace s':>8} {'to_text s':>10} {'to_text MB':>11} "
          f"{'explorer s':>11} {'peak MB':>8}")
    for r in rows:
        print(f"{r['depth']:>7,} {r['trace_s']:>8.2f} {r['to_text_s']:>10.2f} "
              f"{r['to_text_mb']:>11.0f} {r['explorer_s']:>11.2f} {r['peak_mb']:>8.0f}")
    for small, big in zip(rows, rows[1:]):
        n = big["depth"] / small["depth"]
        growth = {k: big[k] / max(small[k], 1e-3) for k in ("trace_s", "to_text_s", "explorer_s")}
        print(f"{small['depth']:,} -> {big['depth']:,} ({n:.0f}x deeper): "
              + ", ".join(f"{k[:-2]} {v:.1f}x" for k, v in growth.items()))
    big = rows[-1]
    if big["depth"] >= 10_000:
        ok = big["explorer_s"] < 3 and big["to_text_mb"] < 200
        print(f"at {big['depth']:,} deep: explorer {big['explorer_s']:.2f} s (target < 3), "
              f"to_text {big['to_text_mb']:.0f} MB (target < 200): {'ok' if ok else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
