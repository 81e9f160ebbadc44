"""Cost of tracing: off (no trace active) and on (a 1M-row traced evaluation).

    python benchmarks/bench_trace.py               # 1M rows
    python benchmarks/bench_trace.py --rows 200000 # a quick check
    python benchmarks/bench_trace.py --part pictures --rows 5000000  # wide nodes only
    python benchmarks/bench_trace.py --part peers     # every bench_peers shape, 2M rows

Two ratios, each the median of interleaved runs (so drift on a shared machine
hits both sides alike), in wall time and in CPU time of the whole process (all
evaluator threads; the steadier figure when other work shares the cores):

- off: `evaluate` with no trace active, against the same evaluation with the
  engine's observer lookup compiled out (`active_observers` replaced by a
  function returning no observer). Target: within 2% (ratio <= 1.02).
- on: `evaluate` inside `with tk.trace():`, against untraced. Target: <= 1.5.
- read (for information): traced, then every branch's row indices read, as a
  renderer or `to_json` does (they are built on first read).

- pictures: a traced `case_when` of 250 branches against one of 25 on the same rows:
  `to_svg` of its step, the explorer opened on it (tree and selection view), and
  `write_report`. A wide node draws its ends and folds its middle, so 10x the
  branches costs at most ~10x (target), not the 100x of drawing every branch.
- null rows: `to_svg` of an `if_else` whose condition is null on a fifth of the rows
  (drawn with a strip of its null rows) against the same `if_else` with no null
  condition. Target: <= 5 (finding the null rows is one pass over the rows that
  reached the form; a hash of every row index made it ~45 at 1M rows).

- peers: every shape of `bench_peers.py` on its table (2,000,000 rows unless
  `--rows` says otherwise), each evaluated traced and untraced in interleaved runs:
  the ratio of the medians, per shape, in wall and CPU time, and the load average
  as each shape finished. Target: <= 1.2 in CPU time on every shape (wall time on a
  shared machine moves by several times between calls). Each result is let go at once,
  so a traced run pays for its sample then; with `--keep` the results and traces are
  kept while timed, as `r = tk.evaluate(...)` keeps them, and the sample waits for a read.

The expression is the product's headline, `if_else(a != 0, b / a, 0)`, plus a
`case_when` and a `coalesce`, so special forms record their selection vectors.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import pyarrow as pa

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import importlib

import toolkit as tk
from toolkit.execution import fused_kernels

# the module (the package re-exports a function of the same name)
evaluate_module = importlib.import_module("toolkit.execution.evaluation")

OFF_TARGET = 1.02
ON_TARGET = 1.5
PEERS_TARGET = 1.2
PEERS_ROWS = 2_000_000


def make_table(rows: int, seed: int = 11) -> pa.Table:
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 6, rows)
    b = rng.integers(-1000, 1000, rows)
    mask = rng.random(rows) < 0.05
    return pa.table({"a": pa.array(a), "b": pa.array(b, mask=mask),
                     "c": pa.array(rng.random(rows))})


def expressions() -> list[tk.Expression]:
    a, b, c = tk.field("a"), tk.field("b"), tk.field("c")
    return [
        tk.if_else(a != 0, b / a, 0),
        tk.case_when([(c > 0.9, b * 2), (c > 0.5, b + 1)], else_=a),
        tk.coalesce(b, a * 10) + 1,
    ]


def _time(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _ratio(slow, fast, repeats: int, between=None) -> dict[str, tuple[float, float, float]]:
    """For wall and cpu: median(slow) / median(fast), runs interleaved, and both medians in ms
    (`between()` runs after each pair, untimed)."""
    slow_t, fast_t = [], []
    for _ in range(repeats):
        fast_t.append(_time(fast))
        slow_t.append(_time(slow))
        if between is not None:
            between()
    out = {}
    for k, name in enumerate(("wall", "cpu")):
        s = statistics.median(t[k] for t in slow_t)
        f = statistics.median(t[k] for t in fast_t)
        out[name] = (s / f, s * 1000, f * 1000)
    return out


WIDE_TARGET = 10.0


def wide_trace(branches: int, table: pa.Table):
    """A trace of one `case_when` with `branches` branches over `table` (nulls in `b`)."""
    b, c = tk.field("b"), tk.field("c")
    expr = tk.case_when([(c < (k + 1) / (branches + 1), b * k) for k in range(branches)],
                        else_=b)
    with tk.trace() as t:
        tk.evaluate(expr, table)
    return t


def picture_ratios(table: pa.Table, repeats: int) -> dict[str, tuple[float, float, float]]:
    """For to_svg, the explorer and write_report: (250 branches / 25, ms at 250, ms at 25),
    each the median of `repeats` runs on traces made fresh for every run (nothing cached)."""
    import tempfile

    from widgets import Explorer

    folder = tempfile.mkdtemp()
    tasks = {
        "to_svg": lambda t: tk.to_svg(t.evaluations[0]),
        "explorer": lambda t: Explorer(t),
        "write_report": lambda t: tk.write_report(t, os.path.join(folder, "wide.html")),
    }
    out = {}
    for name, task in tasks.items():
        times = {25: [], 250: []}
        for _ in range(repeats):
            for branches in (25, 250):
                t = wide_trace(branches, table)
                start = time.perf_counter()
                task(t)
                times[branches].append(time.perf_counter() - start)
        wide, narrow = (statistics.median(times[n]) for n in (250, 25))
        out[name] = (wide / narrow, wide * 1000, narrow * 1000)
    return out


NULL_ROWS_TARGET = 5.0


def null_rows_ratio(table: pa.Table, repeats: int) -> tuple[float, float, float]:
    """`to_svg` of an if_else with a fifth of its conditions null against one with none:
    (ratio, ms with null conditions, ms without), medians of fresh traces."""
    rng = np.random.default_rng(5)
    c = table["c"].to_numpy()
    nulls = pa.array(c > 0.5, mask=rng.random(len(c)) < 0.2)
    expr = tk.if_else(tk.field("k"), tk.field("b") * 2, tk.field("b"))
    times = {True: [], False: []}
    for _ in range(repeats):
        for with_nulls in (True, False):
            k = nulls if with_nulls else pa.array(c > 0.5)
            with tk.trace() as t:
                tk.evaluate(expr, table.append_column("k", k))
            start = time.perf_counter()
            tk.to_svg(t.evaluations[0])
            times[with_nulls].append(time.perf_counter() - start)
    slow, fast = (statistics.median(times[w]) for w in (True, False))
    return slow / fast, slow * 1000, fast * 1000


def print_pictures(table: pa.Table, repeats: int) -> bool:
    ratios = picture_ratios(table, repeats)
    print(f"pictures of a traced case_when on {table.num_rows:,} rows, 250 branches against 25, "
          f"median of {repeats} runs (wall)")
    for name, (r, wide_ms, narrow_ms) in ratios.items():
        print(f"  {name:12}: 250 branches {wide_ms:8.1f} ms vs 25 branches {narrow_ms:8.1f} ms  "
              f"ratio {r:5.2f}  (target <= {WIDE_TARGET:g})  "
              f"{'ok' if r <= WIDE_TARGET else 'OVER'}")
    r, slow_ms, fast_ms = null_rows_ratio(table, repeats)
    print(f"  null rows   : 20% null conditions {slow_ms:8.1f} ms vs none {fast_ms:8.1f} ms  "
          f"ratio {r:5.2f}  (target <= {NULL_ROWS_TARGET:g})  "
          f"{'ok' if r <= NULL_ROWS_TARGET else 'OVER'}")
    return all(r <= WIDE_TARGET for r, _, _ in ratios.values()) and r <= NULL_ROWS_TARGET


def peer_shape_ratios(rows: int, repeats: int, only: str = "",
                      keep: bool = False) -> dict[str, dict]:
    """shape name -> {"wall": (traced / untraced, traced ms, untraced ms), "cpu": ...}
    for every shape of bench_peers.py over its own table, medians of interleaved runs;
    `keep`: each result (and trace) is kept until the pair of runs is timed, as a caller
    writing `r = tk.evaluate(...)` keeps it (the sample is then taken when read, not
    when the result is let go at once)."""
    import bench_peers

    pa.set_cpu_count(bench_peers.THREADS)
    table = bench_peers.make_table(rows)
    out = {}
    for name, (text, _sql) in bench_peers.shapes().items():
        if only not in name:
            continue
        bound = tk.bind(tk.parse(text), table.schema)

        kept = []

        def untraced(bound=bound, kept=kept):
            value = tk.evaluate(bound, table)
            if keep:
                kept.append(value)

        def traced(bound=bound, kept=kept):
            with tk.trace() as t:
                value = tk.evaluate(bound, table)
            if keep:
                kept.append((value, t))

        untraced(), traced()  # warm caches and the thread pool
        fused_kernels.settle()  # the loops both asked for compiled: the steady state
        kept.clear()
        out[name] = _ratio(traced, untraced, repeats, between=kept.clear)
        r, slow_ms, fast_ms = out[name]["wall"]
        cpu = out[name]["cpu"][0]
        print(f"  {name:<28} traced {slow_ms:8.1f} ms  untraced {fast_ms:8.1f} ms  "
              f"wall {r:5.2f}  cpu {cpu:5.2f}  {'ok' if cpu <= PEERS_TARGET else 'OVER'}  "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    return out


def print_peer_shapes(rows: int, repeats: int, only: str = "", keep: bool = False) -> bool:
    print(f"tracing cost on every bench_peers shape, {rows:,} rows, "
          f"median of {repeats} interleaved runs (target traced/untraced <= {PEERS_TARGET})"
          + ("; results kept while timed" if keep else "; results let go at once"))
    ratios = peer_shape_ratios(rows, repeats, only, keep)
    worst = max(ratios.items(), key=lambda kv: kv[1]["cpu"][0])
    print(f"  worst: {worst[0]} {worst[1]['cpu'][0]:.2f} (cpu)")
    return all(r["cpu"][0] <= PEERS_TARGET for r in ratios.values())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None,
                        help="rows (default 1,000,000; 2,000,000 for --part peers)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--part", choices=("tracing", "pictures", "peers", "all"),
                        default="all")
    parser.add_argument("--only", default="", help="peers: the shapes whose name contains this")
    parser.add_argument("--keep", action="store_true",
                        help="peers: keep each result and trace while timed (the sample is "
                             "taken when read, not when the result goes at once)")
    args = parser.parse_args(argv)
    if args.part == "peers":
        ok = print_peer_shapes(args.rows or PEERS_ROWS, args.repeats, args.only, args.keep)
        return 0 if ok else 1
    args.rows = args.rows or 1_000_000
    pictures_ok = True
    if args.part in ("pictures", "all"):
        pictures_ok = print_pictures(make_table(args.rows), max(3, args.repeats // 5))
        if args.part == "pictures":
            return 0 if pictures_ok else 1

    table = make_table(args.rows)
    bound = [e.bind(table.schema) for e in expressions()]

    def run():
        for e in bound:
            tk.evaluate(e, table)

    def run_traced():
        with tk.trace():
            run()

    real_lookup = evaluate_module.active_observers

    def run_compiled_out():
        evaluate_module.active_observers = lambda explicit=None: ()
        try:
            run()
        finally:
            evaluate_module.active_observers = real_lookup

    def run_traced_and_read():
        """Traced, then every branch's row indices read (what a renderer or to_json does)."""
        with tk.trace() as t:
            run()
        for event in t.evaluations:
            for branch in event.branches:
                branch.rows  # noqa: B018 - built on first read

    run(), run_traced(), run_compiled_out()  # warm caches and thread pools

    off = _ratio(run, run_compiled_out, args.repeats)
    on = _ratio(run_traced, run, args.repeats)
    read = _ratio(run_traced_and_read, run, args.repeats)

    print(f"tracing cost on {args.rows:,} rows, {len(bound)} expressions, "
          f"median of {args.repeats} interleaved runs")
    for clock in ("wall", "cpu"):
        r, slow_ms, fast_ms = off[clock]
        print(f"  off ({clock:4}): no trace active {slow_ms:7.1f} ms vs observers compiled out "
              f"{fast_ms:7.1f} ms  ratio {r:.3f}  (target <= {OFF_TARGET})  "
              f"{'ok' if r <= OFF_TARGET else 'OVER'}")
    for clock in ("wall", "cpu"):
        r, slow_ms, fast_ms = on[clock]
        print(f"  on  ({clock:4}): traced          {slow_ms:7.1f} ms vs untraced               "
              f"{fast_ms:7.1f} ms  ratio {r:.3f}  (target <= {ON_TARGET})  "
              f"{'ok' if r <= ON_TARGET else 'OVER'}")
    for clock in ("wall", "cpu"):
        r, slow_ms, fast_ms = read[clock]
        print(f"  read({clock:4}): traced, rows read {slow_ms:7.1f} ms vs untraced             "
              f"{fast_ms:7.1f} ms  ratio {r:.3f}  (indices built on first read)")
    return 0 if off["cpu"][0] <= OFF_TARGET and on["cpu"][0] <= ON_TARGET and pictures_ok \
        else 1

if __name__ == "__main__":
    sys.exit(main())
