"""Speed: lazy special forms against eager evaluation, in one run.

    python benchmarks/bench_special_forms.py                # 10M rows
    python benchmarks/bench_special_forms.py --rows 1000000 # a quick check
    python benchmarks/bench_special_forms.py --threshold    # the dense-path threshold

Main table: a `case_when` with four costly branches (string functions, a
float-to-string cast of a square root) over a cheap `else`. At selectivity S
the four conditions send S of the rows to the costly branches (S/4 each), the
rest to `else`. Eager (Arrow today) evaluates every branch on every row; lazy
evaluates each branch on its own rows. Targets: lazy >= 3x faster at 10%, and
no more than 1.15x slower at 100%. A worst case follows: an `if_else` whose
costly branch is taken on every row, so laziness saves nothing and only its
bookkeeping shows.

`--threshold` times one costly or cheap branch at densities from 10% to 100%,
forced compact (gather, kernel) and forced dense (kernel on every row with the
unselected ones masked, then take), which is how `dense_path.DENSE_THRESHOLD`
was chosen.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of

import toolkit as tk
from toolkit.execution import dense_path

WORDS = pa.array(["alpha", "Beta", "gamma ray", "Delta-9", "epsilon", "zeta", "Eta", "theta x",
                  "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi"])


def make_table(rows: int, chunk_rows: int, seed: int = 7) -> pa.Table:
    rng = np.random.default_rng(seed)
    table = pa.table({
        "k": pa.array(rng.integers(0, 10_000, rows)),
        "x": pa.array(rng.random(rows) * 1000.0),
        "y": pa.array(rng.random(rows)),
        "s": pc.take(WORDS, pa.array(rng.integers(0, len(WORDS), rows))),
    })
    return pa.Table.from_batches(table.to_batches(max_chunksize=chunk_rows))




k, x, y, s = tk.field("k"), tk.field("x"), tk.field("y"), tk.field("s")


def costly_branches():
    upper = tk.call("utf8_upper", [s])
    return [
        upper,
        tk.call("binary_join_element_wise", [tk.call("utf8_lower", [s]), s, tk.literal("-")]),
        tk.call("round", [tk.call("sqrt", [x]) * 100.0]).cast(pa.string()),
        tk.call("utf8_slice_codeunits", [tk.call("binary_join_element_wise",
                                                 [s, upper, tk.literal("|")])],
                pc.SliceOptions(1, 12)),
    ]


def case_when_at(selectivity: float):
    cut = selectivity * 10_000
    cases = [(k < int(cut * (i + 1) / 4), v) for i, v in enumerate(costly_branches())]
    return tk.case_when(cases, else_=s)


def main_table(table: pa.Table, repeat: int) -> None:
    print(f"case_when, four costly branches, {table.num_rows:,} rows, "
          f"{table.column('k').num_chunks} chunks, best of {repeat}")
    print(f"{'selectivity':>12} {'eager s':>9} {'lazy s':>9} {'eager/lazy':>11}")
    for selectivity in (0.01, 0.10, 0.50, 1.00):
        expr = tk.bind(case_when_at(selectivity), table.schema)
        lazy_out = tk.evaluate(expr, table)
        eager_out = tk.evaluate(expr, table, mode="eager")
        assert lazy_out.equals(eager_out), "lazy and eager disagree"
        eager = lazy = float("inf")
        for _ in range(repeat):  # interleaved, so a busy moment of the machine hits both
            eager = min(eager, best_of(lambda: tk.evaluate(expr, table, mode="eager"), 1))  # noqa: B023
            lazy = min(lazy, best_of(lambda: tk.evaluate(expr, table), 1))  # noqa: B023
        print(f"{selectivity:>12.0%} {eager:>9.3f} {lazy:>9.3f} {eager / lazy:>10.2f}x")
    worst = tk.bind(tk.if_else(k >= 0, costly_branches()[3], s), table.schema)
    eager = best_of(lambda: tk.evaluate(worst, table, mode="eager"), repeat)
    lazy = best_of(lambda: tk.evaluate(worst, table), repeat)
    print(f"worst case if_else, costly branch on 100% of rows: eager {eager:.3f}s "
          f"lazy {lazy:.3f}s  lazy/eager {lazy / eager:.2f}x slower")


def threshold_table(table: pa.Table, repeat: int) -> None:
    shapes = {
        "cheap: x * 2.0 + y": x * 2.0 + y,
        "failing: y / x": y / x,
        "costly: utf8_upper(s)": tk.call("utf8_upper", [s]),
    }
    saved = dense_path.DENSE_THRESHOLD, dense_path.MIN_DENSE_ROWS, dense_path.CHEAP_MAX_CALLS
    print(f"dense vs compact branch, {table.num_rows:,} rows, best of {repeat} "
          "(seconds; ratio < 1 means dense is faster)")
    try:
        dense_path.MIN_DENSE_ROWS = 0
        for name, branch in shapes.items():
            print(name)
            for density in (0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
                fallback = tk.literal(pa.scalar(None, pa.string())) if "upper" in name \
                    else tk.literal(0.0)
                expr = tk.bind(tk.if_else(k < int(density * 10_000), branch, fallback),
                               table.schema)
                timings = {}
                for label, threshold, cheap in (("compact", 2.0, -1), ("dense", 0.0, -1)):
                    # the cheap-branch rule (always dense) is off: both ways are forced
                    dense_path.DENSE_THRESHOLD, dense_path.CHEAP_MAX_CALLS = threshold, cheap
                    timings[label] = best_of(lambda: tk.evaluate(expr, table), repeat)  # noqa: B023
                print(f"  density {density:>4.0%}: compact {timings['compact']:.4f} "
                      f"dense {timings['dense']:.4f} "
                      f"dense/compact {timings['dense'] / timings['compact']:.2f}")
    finally:
        dense_path.DENSE_THRESHOLD, dense_path.MIN_DENSE_ROWS, dense_path.CHEAP_MAX_CALLS = saved


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--chunk-rows", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threshold", action="store_true",
                        help="measure the dense-path threshold instead")
    args = parser.parse_args(argv)
    table = make_table(args.rows, args.chunk_rows)
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs "
          "(the machine may be shared: compare ratios, not seconds)")
    if args.threshold:
        threshold_table(table, args.repeat)
    else:
        main_table(table, args.repeat)


if __name__ == "__main__":
    main()
