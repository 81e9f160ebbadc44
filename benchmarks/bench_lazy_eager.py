"""Lazy against eager on every shape of `bench_peers.py`: large tables and 1,000-row batches.

    python benchmarks/bench_lazy_eager.py                   # 5M rows, then 1,000-row batches
    python benchmarks/bench_lazy_eager.py --rows 1000000    # a quicker large run
    python benchmarks/bench_lazy_eager.py --only case       # shapes whose name contains "case"

Lazy evaluation (the default; its cheap subtrees fused once the tree has seen a
million rows and their loops are compiled, which the benchmark waits for after the
first call) must never be behind eager evaluation (every argument
first, Arrow's own kernels): where laziness spares no work, it must cost nothing. For
each shape of `bench_peers.py` the two modes run on the same data in interleaved
rounds (each round in a random order; two threads), best of `--repeat`; printed:
milliseconds (large) or microseconds (batch) per call and eager / lazy (>= 1.0: lazy
is at least as fast). A shape eager evaluation cannot run (a guarded division by
zero that eager evaluation computes anyway) shows as "-".

`--cpu`: each mode in the caller's thread only (`parallel.serial()`), timed in CPU
time of the process, median of `--repeat` interleaved rounds: the steadier figure when
other work shares the cores (wall times then move by several times between calls).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import pyarrow as pa

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_peers import THREADS, make_table, shapes
from timing import best_of_each

import toolkit as tk
from toolkit.execution import fused_kernels
from toolkit.execution.parallel import serial

BATCH_ROWS = 1000


def cpu_medians(fns: list, repeat: int) -> list[float]:
    """CPU seconds of each function, serial, median of `repeat` interleaved rounds."""
    times = [[] for _ in fns]
    with serial():
        for _ in range(repeat):
            for fn, seen in zip(fns, times):
                started = time.process_time()
                fn()
                seen.append(time.process_time() - started)
    return [statistics.median(t) for t in times]


def ratios(data, chosen: dict, repeat: int, per_call: float, unit: str,
           cpu: bool = False) -> list[float]:
    """Print each shape's lazy and eager times and eager / lazy; return the ratios."""
    print(f"{'shape':<28} {'lazy':>10} {'eager':>10} {'eager/lazy':>11}")
    found = []
    for name, (text, _sql) in chosen.items():
        bound = tk.bind(tk.parse(text), data.schema)

        def lazy(bound=bound):
            return tk.evaluate(bound, data, mode="lazy")

        def eager(bound=bound):
            return tk.evaluate(bound, data, mode="eager")

        try:
            want = eager()
        except tk.ExprscopeError:
            lazy()
            fused_kernels.settle()  # as below: time the loops compiled, not their compiling
            t = best_of_each([lazy], repeat)[0] * per_call
            print(f"{name:<28} {t:>10.2f} {'-':>10} {'-':>11}", flush=True)
            continue
        assert lazy().equals(want), f"{name}: lazy and eager differ"
        fused_kernels.settle()  # a large table's loops, compiled after the first call
        timed = cpu_medians([lazy, eager], repeat) if cpu \
            else best_of_each([lazy, eager], repeat, shuffle=True)
        lazy_t, eager_t = (t * per_call for t in timed)
        found.append(eager_t / lazy_t)
        print(f"{name:<28} {lazy_t:>10.2f} {eager_t:>10.2f} {eager_t / lazy_t:>11.2f}",
              flush=True)
    if found:
        how = "CPU, serial, median" if cpu else "best"
        print(f"lowest eager/lazy {min(found):.2f} ({unit} per call, {how} of {repeat} "
              "interleaved rounds)")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="", help="run the shapes whose name contains this")
    parser.add_argument("--cpu", action="store_true",
                        help="serial, CPU time, medians (steadier on a shared machine)")
    args = parser.parse_args(argv)
    pa.set_cpu_count(THREADS)
    chosen = {k: v for k, v in shapes().items() if args.only in k}
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} (a shared machine: compare ratios, not times)")
    print(f"\n{args.rows:,} rows (bench_peers' table)")
    large = ratios(make_table(args.rows), chosen, args.repeat, 1e3, "ms", args.cpu)
    print(f"\n{BATCH_ROWS:,}-row batch (fixed cost per call)")
    batch = make_table(BATCH_ROWS).combine_chunks().to_batches()[0]
    small = ratios(batch, chosen, args.repeat * 40, 1e6, "us", args.cpu)
    return 0 if min(large + small, default=1.0) >= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
