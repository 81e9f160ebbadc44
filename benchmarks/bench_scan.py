"""explain_scan against pyarrow's own pruning of the same dataset, as a ratio.

    python benchmarks/bench_scan.py                      # 1,000 files x 20 row groups
    python benchmarks/bench_scan.py --files 100 --groups 5

pyarrow's side is what a scan does before it reads data: list the fragments
that survive the partition filter (`get_fragments(filter=)`) and, for each,
the row groups that survive their statistics (`fragment.subset(filter=)`).
exprscope's side is `tk.explain_scan` on the same dataset and filter. Each
round opens the dataset afresh for both, so neither finds Parquet footers
already read by the other. Target: ratio <= 10.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import toolkit as tk

FILTERS = {
    "partition + stats": (pc.field("part") >= 500) & (pc.field("x") < 100),
    "stats only": pc.field("x") < 50,
    "partition only": pc.field("part").isin([3, 30, 300]),
}


def write(root: str, files: int, groups: int, rows_per_group: int) -> None:
    n = files * groups * rows_per_group
    part = np.repeat(np.arange(files, dtype=np.int32), groups * rows_per_group)
    x = np.tile(np.arange(groups * rows_per_group, dtype=np.int64), files)
    table = pa.table({"part": part, "x": x, "y": np.random.default_rng(1).random(n)})
    ds.write_dataset(table, root, format="parquet", partitioning=["part"],
                     partitioning_flavor="hive", min_rows_per_group=rows_per_group,
                     max_rows_per_group=rows_per_group, max_rows_per_file=groups * rows_per_group)


def open_dataset(root: str) -> ds.Dataset:
    return ds.dataset(root, format="parquet", partitioning="hive")


def pyarrow_prune(root: str, flt) -> int:
    dataset = open_dataset(root)
    groups = 0
    for fragment in dataset.get_fragments(filter=flt):
        groups += len(fragment.subset(filter=flt, schema=dataset.schema).row_groups)
    return groups


def exprscope_explain(root: str, flt) -> int:
    scan = tk.explain_scan(open_dataset(root), flt)
    return scan.row_groups[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--rows-per-group", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        write(root, args.files, args.groups, args.rows_per_group)
        print(f"{args.files:,} files x {args.groups} row groups; best of {args.repeat}, "
              "interleaved")
        for name, flt in FILTERS.items():
            best = [float("inf"), float("inf")]
            for _ in range(args.repeat):
                for i, fn in enumerate((pyarrow_prune, exprscope_explain)):
                    started = time.perf_counter()
                    kept = fn(root, flt)
                    best[i] = min(best[i], time.perf_counter() - started)
                    if i == 0:
                        arrow_kept = kept
                    elif kept != arrow_kept:
                        raise SystemExit(f"{name}: exprscope keeps {kept} row groups, "
                                         f"pyarrow {arrow_kept}")
            print(f"  {name:18s} pyarrow {best[0]:7.3f} s   exprscope {best[1]:7.3f} s   "
                  f"ratio {best[1] / best[0]:6.2f}   ({arrow_kept:,} row groups kept)")


if __name__ == "__main__":
    main()
