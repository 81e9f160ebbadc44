"""What the "Arrow may lose rows" check adds to printing a scan, as a ratio to explaining it.

    python benchmarks/bench_scan_lost_rows.py              # 1,000 and 10,000 row groups

A float column with a NaN in some row groups, filtered so that nearly every row
group is skipped: printing the explanation asks each skipped group whether NaN
rows (left out of Parquet's statistics) could match. The ratio is the printer's
time (that check included) to `tk.explain_scan`'s in the same run; the growth is
the printer's time at 10x the row groups. Targets: ratio <= 1, growth <= 12.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import toolkit as tk

ROWS_PER_GROUP = 20


def measure(folder: str, groups: int) -> tuple[float, float]:
    path = os.path.join(folder, f"x{groups}.parquet")
    x = np.arange(groups * ROWS_PER_GROUP, dtype=np.float64)
    x[::250] = np.nan
    pq.write_table(pa.table({"x": x}), path, row_group_size=ROWS_PER_GROUP)
    flt = ~(pc.field("x") <= float(len(x) - 50))
    started = time.perf_counter()
    scan = tk.explain_scan(ds.dataset(path), flt)
    explained = time.perf_counter()
    tk.to_text(scan, color=False)
    return explained - started, time.perf_counter() - explained


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        explain_small, text_small = measure(folder, 1_000)
        explain_big, text_big = measure(folder, 10_000)
    for groups, explain, text in ((1_000, explain_small, text_small),
                                  (10_000, explain_big, text_big)):
        print(f"{groups:>6,} row groups  explain_scan {explain:.3f} s  to_text {text:.3f} s  "
              f"ratio {text / explain:.2f}")
    print(f"growth of to_text at 10x the row groups: {text_big / text_small:.1f}x")


if __name__ == "__main__":
    main()
