"""Peak memory of an evaluation against Acero's, as multiples of the input's size.

    python benchmarks/bench_memory.py                 # 50M int64 rows
    python benchmarks/bench_memory.py --rows 5000000

Each expression runs in a fresh process for each engine, so one's peak cannot
hide the other's. The process's peak resident size is reset once the input is
loaded (Linux's /proc/self/clear_refs), and the figure is (input + what the
evaluation added at its peak) / input: the memory a user needs, in multiples of
the data. (exprscope writes large outputs into numpy buffers, outside the Arrow
pool, so the pool alone would not compare.) The target is exprscope <= 1.5x.
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
}

_CHILD = r"""
import json, sys
import numpy as np, pyarrow as pa, pyarrow.compute as pc
sys.path.insert(0, {root!r})
rows, engine, text = {rows}, {engine!r}, {text!r}
rng = np.random.default_rng(0)
table = pa.table({{"a": rng.integers(0, 1000, rows), "b": rng.integers(0, 1000, rows)}})
input_bytes = table.nbytes
import toolkit as tk
expr = tk.parse(text)
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
pa.default_memory_pool().release_unused()
open("/proc/self/clear_refs", "w").write("5")  # the peak starts again from here
base = rss("VmRSS:")
if engine == "exprscope":
    out = tk.evaluate(expr, table)
else:
    from pyarrow import acero
    decl = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expr.to_pyarrow()], ["out"]))])
    out = decl.to_table().column("out")
print(json.dumps({{"input": input_bytes, "added": rss("VmHWM:") - base, "rows": len(out)}}))
"""


def measure(rows: int, engine: str, text: str) -> dict:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CHILD.format(root=root, rows=rows, engine=engine, text=text)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    args = parser.parse_args()
    print(f"{args.rows:,} rows of two int64 columns; (input + added at the peak) / input")
    print(f"{'expression':<30}{'exprscope':>12}{'Acero':>10}")
    for name, text in EXPRESSIONS.items():
        ours, acero = measure(args.rows, "exprscope", text), measure(args.rows, "acero", text)
        row = [1 + ours["added"] / ours["input"], 1 + acero["added"] / acero["input"]]
        print(f"{name:<30}" + "".join(f"{v:>9.2f}x" for v in row))


if __name__ == "__main__":
    main()
