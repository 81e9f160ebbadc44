"""Fused cheap subtrees against one Arrow kernel per node, in CPU time.

    python benchmarks/bench_fusion_cpu.py                  # 5M rows, two threads
    python benchmarks/bench_fusion_cpu.py --threads 1      # one core's work

On a machine shared with other jobs, wall time measures the neighbours as much as
the engine: a process whose threads wait for a core shows long wall times for the
same work. CPU time (every thread of the process, `time.process_time`) counts the
work done, so the ratio unfused / fused says whether fusing saves work (above 1:
fused does less). Each shape is timed fused (`fuse=True`: one loop compiled by
numba per group, compiled before timing), unfused (`fuse=False`: one Arrow kernel
per node) and eager, interleaved, best of the rounds; wall time is printed beside.
The first call's time with `fuse=True` (the compilation included) is printed too.
The tables are bench_peers.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pyarrow as pa

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_peers import make_table

import toolkit as tk
from toolkit.execution import parallel

SHAPES = ["if(a != 0, b / a, 0.0)", "coalesce(x, y * 2, 0.0)", "a != 0 and b / a > 2",
          "(b * 2 + x) * 3 - b / 7", "if(x > 50, y * 2 + b, b / 3 - y)"]


def best(fn, repeat: int) -> tuple[float, float]:
    """(CPU ms, wall ms) of the fastest of `repeat` calls."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu * 1e3, wall * 1e3


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    pa.set_cpu_count(args.threads)
    table = make_table(args.rows)
    print(f"{args.rows:,} rows, {args.threads} thread(s), load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(f"{'shape':34} {'fused':>16} {'unfused':>16} {'eager':>16}  unfused/fused (CPU)"
          "  first fused call (compiling)")
    serial = parallel.serial() if args.threads == 1 else None
    if serial is not None:
        serial.__enter__()
    for text in SHAPES:
        bound = tk.bind(tk.parse(text), table.schema)
        first = best(lambda b=bound: tk.evaluate(b, table, fuse=True), 1)
        runs = {"fused": lambda b=bound: tk.evaluate(b, table, fuse=True),
                "unfused": lambda b=bound: tk.evaluate(b, table, fuse=False),
                "eager": lambda b=bound: tk.evaluate(b, table, mode="eager")}
        found = {name: (float("inf"), float("inf")) for name in runs}
        for _ in range(args.rounds):
            for name, fn in runs.items():
                cpu, wall = best(fn, 3)
                found[name] = (min(found[name][0], cpu), min(found[name][1], wall))
        cells = " ".join(f"{c:7.1f} ({w:6.1f})" for c, w in found.values())
        print(f"{text:34} {cells}  {found['unfused'][0] / found['fused'][0]:.2f}"
              f"  {first[0]:7.1f} ({first[1]:6.1f})", flush=True)
    if serial is not None:
        serial.__exit__(None, None, None)
    print("(CPU ms (wall ms) per evaluation); load average after "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
