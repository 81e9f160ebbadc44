"""Speed: exprscope (lazy and eager) against Acero, DuckDB, DataFusion and Polars.

    python benchmarks/bench_peers.py                 # 5M rows, the headline
    python benchmarks/bench_peers.py --rows 500000   # a quick run
    python benchmarks/bench_peers.py --only case     # shapes whose name contains "case"

Every engine takes the same Arrow table (one chunk per 1M rows) and returns
Arrow; each runs with two threads. For each shape the engines run in
interleaved rounds (a busy moment hits all of them; each round runs
them in a new random order), and the best of
`--repeat` rounds is kept. Printed per shape: milliseconds per engine, then
every other engine's time over lazy's (above 1.0: lazy is faster). Acero runs
the expression as a pyarrow Expression in a `project` node; a shape an engine
cannot run (or a peer that is not installed) shows as "-". DataFusion and
Polars come from the `bench` extra (`pip install -e .[bench]`).

"lazy" is exprscope's default: lazy evaluation, its cheap subtrees fused (one
loop compiled by numba per group instead of one Arrow kernel per node) once the
tree has seen a million rows and the loop is compiled (the benchmark waits for the
compilation after its first call: the rounds time the steady state). Three
references of exprscope's own: "fused" is lazy evaluation with `fuse=True` (every
group fused, whatever the size: the default fuses no evaluation under 4,096 rows,
so on the 1,000-row batch "lazy" is unfused), "unfused" is lazy evaluation with
`fuse=False` (one Arrow kernel per node, the default before fusion), and "floor"
is the memory-bandwidth floor: numpy reading the same columns once and writing
one column of the result's width, on two threads (one chunk each at a time);
for a shape reading more than two columns, a numpy add per further column.

The last table is the fixed cost: the same shapes on a 1,000-row batch, in
microseconds per call.
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_evaluate import run_acero, to_pyarrow
from timing import best_of_each

import toolkit as tk
from toolkit.execution import fused_kernels

THREADS = 2
WORDS = pa.array(["alpha", "Beta", "gamma ray", "Delta-9", "epsilon", None, "Eta", "theta x"])


def make_table(rows: int, chunk_rows: int = 1 << 20, seed: int = 29) -> pa.Table:
    """int64 `a` (10% zeros, else 1..49), float64 `b`, float64 `x`, `y`, `z`, `w` (50% nulls),
    int64 `k` (0..999), float64 `r` (uniform in [0, 1), for selectivity), string `s`."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 50, rows)
    a[rng.random(rows) < 0.1] = 0

    def half_null():
        return pa.array(rng.random(rows) * 100.0, mask=rng.random(rows) < 0.5)

    table = pa.table({
        "a": pa.array(a), "b": pa.array(rng.random(rows) * 100.0),
        "x": half_null(), "y": half_null(), "z": half_null(), "w": half_null(),
        "k": pa.array(rng.integers(0, 1000, rows)), "r": pa.array(rng.random(rows)),
        "s": pc.take(WORDS, pa.array(rng.integers(0, len(WORDS), rows))),
    })
    return pa.Table.from_batches(table.to_batches(max_chunksize=chunk_rows))


def _case_when(n: int, column: str, top: int, value: str) -> tuple[str, str]:
    """A case_when of `n` whens `column < t_i then b * i` with thresholds spread below `top`."""
    step = top / (n + 1)
    whens = [f"when {column} < {max(1, round(step * (i + 1)))} then b * {i}" for i in range(n)]
    text = "case " + " ".join(whens) + f" else {value} end"
    return text, text


def shapes() -> dict[str, tuple[str, str]]:
    """name -> (exprscope text, SQL text) of every shape timed; the SQL may be a dict
    {"*": text, engine: text} where an engine spells the same computation its own way."""
    out = {
        "guarded divide": ("if(a != 0, b / a, 0.0)",
                           "CASE WHEN a <> 0 THEN b / a ELSE 0.0 END"),
        "case_when 2 (issue)": (
            "case when a > 40 then b * 3 when a > 10 then b + 1 else 0.0 end",) * 2,
        "case_when 20 on a (issue)": (
            "case " + " ".join(f"when a < {2 * (i + 1)} then b * {i}" for i in range(20))
            + " else 0.0 end",) * 2,
        "coalesce(x, y * 2, 0.0)": ("coalesce(x, y * 2, 0.0)",) * 2,
        "a != 0 and b / a > 2": ("a != 0 and b / a > 2", "a <> 0 AND b / a > 2"),
        "(b * 2 + x) * 3 - b / 7": ("(b * 2 + x) * 3 - b / 7",) * 2,
    }
    for p in (1, 10, 50, 90, 100):
        cut = p / 100
        out[f"if costly branch {p}%"] = (
            f"if(r < {cut}, ln(b + 1) * sqrt(b) + exp(b / 100), 0.0)",
            f"CASE WHEN r < {cut} THEN ln(b + 1) * sqrt(b) + exp(b / 100) ELSE 0.0 END")
    for p in (1, 10, 50, 90, 100):
        cut = p / 100
        out[f"if failing branch {p}%"] = (
            f"if(r < {cut} and a != 0, k / a, 0)",
            # integer division: DuckDB and Polars spell it //, DataFusion's / on integers is one
            {"*": f"CASE WHEN r < {cut} AND a <> 0 THEN k // a ELSE 0 END",
             "datafusion": f"CASE WHEN r < {cut} AND a <> 0 THEN k / a ELSE 0 END"})
    for n in (2, 5, 20, 100):
        out[f"case_when {n} on k"] = _case_when(n, "k", 1000, "0.0")
    out["coalesce 2"] = ("coalesce(x, y)",) * 2
    out["coalesce 5"] = ("coalesce(x, y, z, w, 0.0)",) * 2
    out["and chain 2"] = ("a > 5 and b < 50",) * 2
    terms = ["a > 1", "b < 95", "k > 20", "r < 0.9", "a < 48", "b > 3",
             "k < 990", "r > 0.05", "a != 7", "b != 50.0", "k != 500", "r != 0.5"]
    out["and chain 12"] = (" and ".join(terms),) * 2
    eq = [f"k = {7 * i}" for i in range(12)]
    out["or chain 2"] = ("a < 5 or b > 50",) * 2
    out["or chain 12"] = (" or ".join(eq),) * 2
    out["string branches"] = (
        "case when a < 10 then utf8_upper(s) when a < 30 then utf8_lower(s) else s end",
        "CASE WHEN a < 10 THEN upper(s) WHEN a < 30 THEN lower(s) ELSE s END")
    return out


SMALL_SHAPES = ("guarded divide", "case_when 20 on a (issue)", "coalesce(x, y * 2, 0.0)",
                "a != 0 and b / a > 2", "(b * 2 + x) * 3 - b / 7")


class Engines:
    """Each engine as `name -> (shape text, sql) -> a function running it on one table`."""

    def __init__(self, table: pa.Table):
        self.table = table
        self.names = ["lazy", "fused", "unfused", "eager", "acero", "floor"]
        self.duckdb = self.datafusion = self.polars = None
        try:
            import duckdb
            self.duckdb = duckdb.connect()
            self.duckdb.execute(f"SET threads TO {THREADS}")
            self.duckdb.register("t", table)
            self.names.append("duckdb")
        except ImportError:
            print("DuckDB not installed: skipped")
        try:
            import datafusion
            config = datafusion.SessionConfig().with_target_partitions(THREADS)
            self.datafusion = datafusion.SessionContext(config)
            self.datafusion.register_record_batches("t", [table.to_batches()])
            self.names.append("datafusion")
        except ImportError:
            print("DataFusion not installed (pip install -e .[bench]): skipped")
        try:
            import polars
            os.environ.setdefault("POLARS_MAX_THREADS", str(THREADS))
            self.polars = polars.SQLContext(t=polars.from_arrow(table))
            self.names.append("polars")
        except ImportError:
            print("Polars not installed (pip install -e .[bench]): skipped")

    def runners(self, text: str, sql: str, data) -> list:
        """One function per engine (None: the engine cannot run this shape)."""
        expr = tk.parse(text)
        bound = tk.bind(expr, data.schema)
        # eager fails where an untaken branch would fail on a row: only lazy runs it
        out = [lambda: tk.evaluate(bound, data, mode="lazy"),
               _working(lambda: tk.evaluate(bound, data, mode="lazy", fuse=True)),
               _working(lambda: tk.evaluate(bound, data, mode="lazy", fuse=False)),
               _working(lambda: tk.evaluate(bound, data, mode="eager"))]
        reference = to_pyarrow(expr)
        out.append(_working(lambda: run_acero(reference, data)))
        floor = numpy_floor(bound, data)
        out.append(None if floor is None else _working(floor))
        duck, fusion, polar = (f"SELECT {_sql_for(sql, name)} AS out FROM t"
                               for name in ("duckdb", "datafusion", "polars"))
        if self.duckdb is not None:
            out.append(_working(lambda: self.duckdb.sql(duck).to_arrow_table()))
        if self.datafusion is not None:
            out.append(_working(lambda: self.datafusion.sql(fusion).to_arrow_table()))
        if self.polars is not None:
            out.append(_working(lambda: self.polars.execute(polar, eager=True).to_arrow()))
        return out


def numpy_floor(bound, data):
    """A function making one numpy pass over the bytes `bound` reads and writes: each
    column it reads (its values as unsigned 8-byte integers, whatever their type: no
    conversion, no slow denormal floats) read once into one column of the result's
    width, chunks spread over THREADS threads."""
    names = sorted({leaf.ref.name for leaf in _fields(bound)})
    table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
    if not all(pa.types.is_primitive(table.schema.field(n).type)
               and table.schema.field(n).type.bit_width >= 8 for n in names):
        return None  # strings, booleans: no floor drawn
    chunks = [[_words(c) for c in table.column(n).chunks] for n in names]
    pieces = list(zip(*chunks))
    boolean = bound.type == pa.bool_()
    pool = ThreadPoolExecutor(THREADS)

    def one(columns):
        first, *rest = columns
        if boolean:
            return np.greater(first, rest[0] if rest else first)
        out = np.add(first, rest[0] if rest else first)
        for more in rest[1:]:
            np.add(out, more, out=out)
        return out

    return lambda: list(pool.map(one, pieces))


def _fields(expr):
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.kind == "field":
            yield node
        elif node.is_call:
            stack.extend(node.args)


def _words(chunk: pa.Array) -> np.ndarray:
    """A fixed-width column's values as uint64 words (a view for 8-byte types)."""
    width = chunk.type.bit_width // 8
    values = np.frombuffer(chunk.buffers()[1], np.uint8)[chunk.offset * width:]
    words = values[:len(chunk) * width].view(np.dtype(f"u{width}"))
    return words if width == 8 else words.astype(np.uint64)  # one word per value


def _sql_for(sql, engine: str) -> str:
    """A shape's SQL for one engine: one text for all, or {"*": text, engine: its own}."""
    return sql.get(engine, sql["*"]) if isinstance(sql, dict) else sql


def _working(fn):
    """`fn` if it runs, else None (the engine cannot run this shape)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - each peer has its own error types
        print(f"    ({str(exc).splitlines()[0][:90]})")
        return None
    return fn


def _checked(lazy, unfused, name: str) -> None:
    if unfused is None:
        return
    got, want = lazy(), unfused()
    assert got.equals(want), f"{name}: lazy (the default) and unfused differ"


def compare(engines: Engines, shapes_: dict, data, repeat: int, per_call: float = 1e3,
            unit: str = "ms") -> None:
    names = engines.names
    head = " ".join(f"{n:>10}" for n in names)
    peers = " ".join(f"{n[:7]:>7}" for n in names[1:])
    print(f"{'shape':<28} {head}   x/lazy: {peers}")
    for name, (text, sql) in shapes_.items():
        runners = engines.runners(text, sql, data)
        _checked(runners[0], runners[2], name)
        fused_kernels.settle()  # the default's loops, compiled after its first call
        live = [r for r in runners if r is not None]
        times = iter(best_of_each(live, repeat, shuffle=True))
        best = [next(times) * per_call if r is not None else None for r in runners]
        cells = " ".join(f"{t:>10.2f}" if t is not None else f"{'-':>10}" for t in best)
        ratios = " ".join(f"{_ratio(t, best[0]):>7}" for t in best[1:])
        print(f"{name:<28} {cells}           {ratios}", flush=True)
    print(f"({unit} per call, best of {repeat} interleaved rounds)")


def _ratio(top, bottom) -> str:
    return "-" if top is None or bottom is None else f"{top / bottom:.2f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="",
                        help="run the shapes whose name contains this (a|b: either)")
    args = parser.parse_args(argv)
    pa.set_cpu_count(THREADS)
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs, {args.rows:,} rows "
          "(the machine may be shared: compare ratios, not milliseconds); load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    table = make_table(args.rows)
    wanted = args.only.split("|")
    chosen = {k: v for k, v in shapes().items() if any(w in k for w in wanted)}
    engines = Engines(table)
    compare(engines, chosen, table, args.repeat)
    print("load average after: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    small = make_table(1000).combine_chunks()
    small_shapes = {k: v for k, v in chosen.items() if k in SMALL_SHAPES}
    if small_shapes:
        print("\n1,000-row batch (fixed cost)")
        batch = small.to_batches()[0]
        engines = Engines(small)
        compare(engines, small_shapes, batch, args.repeat * 40, per_call=1e6, unit="us")


if __name__ == "__main__":
    main()
