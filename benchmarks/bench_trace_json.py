"""Saved traces of deep optimizations: size and time of `to_json` and `from_json` with depth.

    python benchmarks/bench_trace_json.py                  # depths 1,000 and 10,000
    python benchmarks/bench_trace_json.py --depths 300 3000

The expression has a rewrite at every other level (a fold of `1 + 1` under
each `if_else(a > k, <deeper>, k)`), traced through `tk.optimize`. Each depth
runs in its own process; the live trace is frozen for the collector while it is
written and gone while it is read back (see `measure`). Peers in the same run: `json.dumps` of the document
`to_json` writes (the floor for writing it) and `json.loads` of its text (the
floor for reading, before any check). Reported: JSON bytes, seconds (best of
3, interleaved with the peer), the ratio to the peer, and for each pair of
depths the growth t(big)/t(small) against the depth ratio (linear is a growth
near the depth ratio; the target is at most about 12x for 10x the depth).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(__file__), "..")


def measure(depth: int) -> dict:
    sys.path.insert(0, ROOT)
    sys.path.insert(0, os.path.dirname(__file__))
    import pyarrow as pa
    from timing import best_of_each

    import toolkit as tk
    from toolkit.tracing.json_steps import steps_to_doc

    a = tk.field("a")
    expr = a
    for k in range(depth):
        expr = expr + (tk.literal(1) + 1) if k % 2 else tk.if_else(a > k, expr, tk.literal(k))
    started = time.perf_counter()
    with tk.trace() as trace:
        tk.optimize(expr, pa.schema([("a", pa.int64())]))
    out = {"depth": depth, "optimize_s": time.perf_counter() - started,
           "rewrites": sum(len(p.rewrites) for p in trace.passes)}
    text = trace.to_json()
    doc = steps_to_doc(trace.steps)
    out["json_bytes"] = len(text)
    # the live trace (its expressions, its firings and their tables of positions):
    # frozen, so the collector's walks over them are not charged to the writer
    gc.freeze()
    out["to_json_s"], out["dumps_s"] = best_of_each(
        [trace.to_json, lambda: json.dumps(doc)], 3)
    trace = doc = None  # the live trace and its document are gone while reading back
    gc.unfreeze()
    gc.collect()
    out["from_json_s"], out["loads_s"] = best_of_each(
        [lambda: tk.Trace.from_json(text), lambda: json.loads(text)], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child)))
        return
    rows = []
    for depth in args.depths:
        done = subprocess.run([sys.executable, __file__, "--child", str(depth)],
                              capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("| depth | rewrites | optimize | JSON | to_json (x json.dumps) "
          "| from_json (x json.loads) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['depth']:,} | {r['rewrites']:,} | {r['optimize_s']:.2f} s "
              f"| {r['json_bytes'] / 1e6:.1f} MB "
              f"| {r['to_json_s']:.2f} s ({r['to_json_s'] / r['dumps_s']:.1f}x) "
              f"| {r['from_json_s']:.2f} s ({r['from_json_s'] / r['loads_s']:.1f}x) |")
    for small, big in itertools.pairwise(rows):
        print(f"\n{big['depth'] / small['depth']:.0f}x the depth: JSON "
              f"{big['json_bytes'] / small['json_bytes']:.1f}x, to_json "
              f"{big['to_json_s'] / small['to_json_s']:.1f}x, from_json "
              f"{big['from_json_s'] / small['from_json_s']:.1f}x, optimize "
              f"{big['optimize_s'] / small['optimize_s']:.1f}x")


if __name__ == "__main__":
    main()
