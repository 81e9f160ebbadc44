"""Peak memory of an evaluation against Acero's, as multiples of the input's size.

    python benchmarks/bench_memory.py                 # 50M int64 rows
    python benchmarks/bench_memory.py --rows 5000000

Each expression runs in a fresh process for each engine, so one's peak cannot
hide the other's, over the input as one chunk and in 5M-row chunks. Two
figures, each (input + what the evaluation added at its peak) / input, the
memory a user needs in multiples of the data: by the process's peak resident
size (reset once the input is loaded, through Linux's /proc/self/clear_refs),
and by the high-water mark of Arrow's memory pool (`max_memory()`; the input
wraps numpy arrays, outside the pool, so the pool holds only what the
evaluation allocated). An int64 output alone is 0.5x, so 1.5x is the floor for
the arithmetic and if_else rows. The target is exprscope <= 1.5x.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

EXPRESSIONS = {
    "arithmetic (a + 1) * 2 - b": "(a + 1) * 2 - b",
    "comparison mask a > b": "a > b",
    "if_else(a > b, a, b)": "if(a > b, a, b)",
    "guarded divide": "if(a != 0, b / cast(a as double), 0.0)",
    "case_when of 20 cases": "case " + " ".join(
        f"when a < {50 * (i + 1)} then b * {i}" for i in range(20)) + " else 0 end",
}

_CHILD = r"""
import json, sys
import numpy as np, pyarrow as pa, pyarrow.compute as pc
sys.path.insert(0, {root!r})
rows, chunk_rows, engine, text = {rows}, {chunk_rows}, {engine!r}, {text!r}
rng = np.random.default_rng(0)
table = pa.table({{"a": rng.integers(0, 1000, rows), "b": rng.integers(0, 1000, rows)}})
if chunk_rows:
    table = pa.Table.from_batches(table.to_batches(max_chunksize=chunk_rows))
input_bytes = table.nbytes
import toolkit as tk
expr = tk.parse(text)
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
pool = pa.default_memory_pool()
pool.release_unused()
open("/proc/self/clear_refs", "w").write("5")  # the peak starts again from here
base = rss("VmRSS:")
pool_base = pool.bytes_allocated()
if engine == "exprscope":
    out = tk.evaluate(expr, table)
else:
    from pyarrow import acero
    decl = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expr.to_pyarrow()], ["out"]))])
    out = decl.to_table().column("out")
print(json.dumps({{"input": input_bytes, "added": rss("VmHWM:") - base,
                  "pool_added": pool.max_memory() - pool_base, "rows": len(out)}}))
"""


def measure(rows: int, chunk_rows: int, engine: str, text: str) -> dict:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CHILD.format(root=root, rows=rows, chunk_rows=chunk_rows, engine=engine, text=text)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--chunk-rows", type=int, default=5_000_000,
                        help="the chunk size of the second shape of input")
    args = parser.parse_args()
    print(f"{args.rows:,} rows of two int64 columns; (input + added at the peak) / input")
    print(f"{'expression':<30}{'input':>22}{'resident: ours':>16}{'Acero':>8}{'ours/Acero':>12}"
          f"{'pool: ours':>12}{'Acero':>8}")
    shapes = {"one chunk": 0, f"{args.chunk_rows:,}-row chunks": args.chunk_rows}
    for name, text in EXPRESSIONS.items():
        for shape, chunk_rows in shapes.items():
            ours = measure(args.rows, chunk_rows, "exprscope", text)
            acero = measure(args.rows, chunk_rows, "acero", text)
            resident = [1 + ours["added"] / ours["input"], 1 + acero["added"] / acero["input"]]
            pool = [1 + ours["pool_added"] / ours["input"],
                    1 + acero["pool_added"] / acero["input"]]
            print(f"{name:<30}{shape:>22}{resident[0]:>15.2f}x{resident[1]:>7.2f}x"
                  f"{resident[0] / resident[1]:>11.2f}x{pool[0]:>11.2f}x{pool[1]:>7.2f}x")


if __name__ == "__main__":
    main()
