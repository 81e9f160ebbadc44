"""A row's story in the selection view costs a one-row explanation, and showing rows none.

    python benchmarks/bench_selection_story.py               # 2,000,000 rows
    python benchmarks/bench_selection_story.py --rows 500000

A 12-term `or` filter over a table with a null `x` on every 20th row, evaluated inside
tk.trace(); its SelectionView. Ratios against peers timed in the same run (best of N,
interleaved):

- `view.open_story(row)` for a row near the end (the story computed and drawn: the
  picture's SVG through graphviz) against what a notebook cell pays for the same story:
  `tk.explain_row(expr, table, row)` and its display. Target: about 1.
- The same on a view of a table a tenth as long: the story does not grow with the table.
- `view.go_to_row(row)` (the page found, the story opened), and one full `tk.evaluate`
  of the filter, for scale.
- Paging (`next_page`, `previous_page`) with a story open: no story is computed again.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
import pyarrow as pa
from timing import best_of_each

import toolkit as tk
from widgets import SelectionView, selection_rows
from widgets.rich_display import mimebundle

TERMS = 12


def _view(n: int):
    rng = np.random.default_rng(7)
    cols = {"x": pa.array(rng.integers(0, 100, n), mask=np.arange(n) % 20 == 3)}
    for i in range(1, TERMS):
        cols[f"c{i}"] = pa.array(rng.integers(0, 1000, n))
    table = pa.table(cols)
    expr = tk.parse(" or ".join(["x > 98"] + [f"c{i} = {i}" for i in range(1, TERMS)]))
    with tk.trace() as t:
        result = tk.evaluate(expr, table)
    view = SelectionView(t.evaluations[0])
    row = n - 17
    assert view.open_story(row).value.equals(result[row])
    assert tk.explain_row(expr, table, row).value.equals(result[row])
    return table, expr, view, row, t  # the trace holds the evaluation the view shows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.rows
    table, expr, view, row, _ = _view(n)
    small_table, _, small_view, small_row, _ = _view(n // 10)  # held: the view reads it

    calls = []
    real = selection_rows.story_of_batch
    selection_rows.story_of_batch = lambda *a, **k: calls.append(1) or real(*a, **k)

    def paging():
        view.next_page()
        view.previous_page()

    def in_a_cell():
        mimebundle(tk.explain_row(expr, table, row))

    assert small_view.open_story(small_row) is not None and small_table.num_rows == n // 10
    cell, story, small, go, full = best_of_each(
        [in_a_cell, lambda: view.open_story(row), lambda: small_view.open_story(small_row),
         lambda: view.go_to_row(row - 40), lambda: tk.evaluate(expr, table)], args.repeat)
    calls.clear()
    pages = best_of_each([paging], args.repeat)[0]
    print(f"{n:,} rows, a {TERMS}-term or, best of {args.repeat} (interleaved)")
    print(f"  tk.explain_row and its display  {cell * 1e3:8.1f} ms")
    print(f"  view.open_story(row)            {story * 1e3:8.1f} ms  {story / cell:6.2f} of it")
    print(f"  {f'the same, {n // 10:,} rows':<32}{small * 1e3:8.1f} ms  "
          f"{story / small:6.2f} (the big view over the small one)")
    print(f"  view.go_to_row(row)             {go * 1e3:8.1f} ms")
    print(f"  one full tk.evaluate            {full * 1e3:8.1f} ms")
    print(f"  a page forward and back         {pages * 1e3:8.1f} ms  "
          f"stories computed while paging: {len(calls)}")


if __name__ == "__main__":
    main()
