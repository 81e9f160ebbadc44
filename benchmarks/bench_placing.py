"""Placing rule firings: calls, bytes and time of observed rewrites of deep trees.

    python benchmarks/bench_placing.py                   # depths 300 and 3,000
    python benchmarks/bench_placing.py --depths 1000 10000

Two runs whose every level fires a rule, each observed, so every firing is placed
(`RewriteLog.resolve`): a traced `tk.optimize` of the expression of
`bench_trace_json.py` (a fold of `1 + 1` under each `if_else(a > k, <deeper>, k)`),
and EXPLAIN VERBOSE of a chain of filters (`a > i % 50`, all merged). Each depth
runs in its own process. Reported per depth: Python function calls (cProfile),
peak bytes allocated (tracemalloc) and seconds (best of 3), each from its own
run; then the growth big/small of each. Calls and bytes are the steady figures on
a loaded machine; linear is a growth near the depth ratio (target: at most ~12x
for 10x the depth).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tracemalloc

ROOT = os.path.join(os.path.dirname(__file__), "..")


def runs(depth: int) -> dict:
    sys.path.insert(0, ROOT)
    import pyarrow as pa

    import toolkit as tk
    from toolkit import plan

    a = tk.field("a")
    expr = a
    for k in range(depth):
        expr = expr + (tk.literal(1) + 1) if k % 2 else tk.if_else(a > k, expr, tk.literal(k))
    schema = pa.schema([("a", pa.int64())])
    chain = plan.scan("t", pa.table({"a": list(range(200))}))
    for i in range(depth):
        chain = chain.filter(tk.field("a") > i % 50)

    def traced_optimize():
        with tk.trace():
            tk.optimize(expr, schema)

    return {"traced optimize": traced_optimize,
            "explain(verbose=True), filters": lambda: chain.explain(verbose=True)}


def measure(depth: int) -> dict:
    sys.path.insert(0, os.path.dirname(__file__))
    from timing import best_of

    out = {}
    for name, fn in runs(depth).items():
        profile = cProfile.Profile()
        profile.enable()
        fn()
        profile.disable()
        tracemalloc.start()
        fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out[name] = (pstats.Stats(profile).total_calls, peak, best_of(fn, 3))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs=2, default=[300, 3_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child)))
        return
    small, big = args.depths
    results = {}
    for depth in (small, big):
        done = subprocess.run([sys.executable, __file__, "--child", str(depth)],
                              capture_output=True, text=True, check=True)
        results[depth] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"depth {small:,} -> {big:,} (x{big / small:g})")
    print("| run | calls | calls x | peak MB | bytes x | s | time x |")
    print("|---|---|---|---|---|---|---|")
    for name in results[small]:
        (c1, b1, t1), (c2, b2, t2) = results[small][name], results[big][name]
        print(f"| {name} | {c1:,} -> {c2:,} | {c2 / c1:.1f} | {b1 / 1e6:.1f} -> {b2 / 1e6:.1f} "
              f"| {b2 / b1:.1f} | {t1:.3f} -> {t2:.3f} | {t2 / t1:.1f} |")


if __name__ == "__main__":
    main()
