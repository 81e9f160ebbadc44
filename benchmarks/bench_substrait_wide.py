"""Wide Substrait plans: reading and writing grow linearly in the number of columns.

    python benchmarks/bench_substrait_wide.py                  # 2,000 and 16,000 columns
    python benchmarks/bench_substrait_wide.py --widths 1000 10000

For each width n, DataFusion writes `select c0 * 2 + 1 as d0, ... from w` over an
n-column table; exprscope reads that message (`plan.from_substrait`), and
DataFusion reads it back into its own logical plan (`Serde.deserialize_bytes` and
`Consumer.from_substrait_plan`), the peer. exprscope also reads a plain read of
the n-column table, and writes its own projection of n computed columns
(`LogicalPlan.to_substrait`). Reported per width: seconds (best of 3, the peers
interleaved), then the growth t(big)/t(small) against the width ratio (linear is
a ratio near it) and exprscope's time over DataFusion's in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))

import pyarrow as pa
from datafusion import SessionContext
from datafusion.substrait import Consumer, Serde
from timing import best_of_each

import toolkit as tk
from toolkit import plan


def measure(n: int) -> dict[str, float]:
    table = pa.table({f"c{i}": pa.array([i, None], pa.int64()) for i in range(n)})
    ctx = SessionContext()
    ctx.register_record_batches("w", [table.to_batches()])
    sql = "select " + ", ".join(f"c{i} * 2 + 1 as d{i}" for i in range(n)) + " from w"
    data = Serde.serialize_bytes(sql, ctx)
    scan = plan.scan("w", table)
    read_only = scan.to_substrait()
    computed = scan.project([tk.field(f"c{i}") * 2 + 1 for i in range(n)],
                            names=[f"d{i}" for i in range(n)])
    times = best_of_each([
        lambda: plan.from_substrait(data, {"w": table}),
        lambda: Consumer.from_substrait_plan(ctx, Serde.deserialize_bytes(data)),
        lambda: plan.from_substrait(read_only, {"w": scan.source}),
        computed.to_substrait,
    ], repeat=3)
    return dict(zip(["read DataFusion's projection", "DataFusion reads it",
                     "read a plain read", "write a projection"], times))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--widths", type=int, nargs=2, default=[2_000, 16_000])
    small, big = parser.parse_args().widths
    results = {n: measure(n) for n in (small, big)}
    ratio = big / small
    print(f"{'':32}{small:>10,}{big:>10,}   growth (width x{ratio:g})   /DataFusion")
    for phase in results[small]:
        a, b = results[small][phase], results[big][phase]
        peer = ""
        if phase == "read DataFusion's projection":
            peer = f"{a / results[small]['DataFusion reads it']:.2f} -> " \
                   f"{b / results[big]['DataFusion reads it']:.2f}"
        print(f"{phase:32}{a:10.3f}{b:10.3f}   {b / a:8.1f}                {peer}")


if __name__ == "__main__":
    main()
