"""Speed: tk.evaluate against pyarrow's Acero on the same expressions.

    python benchmarks/bench_evaluate.py                 # 10M rows
    python benchmarks/bench_evaluate.py --rows 1000000  # a quick check

For each expression, `--repeat` rounds of `tk.evaluate` (bound once, as a
prepared query would be) and of an Acero `table_source -> project` plan of the
same expression built with `pc.Expression._call`, interleaved; the results
(values, type, and the caller's chunking) are checked first. Ratio = Acero time
/ exprscope time (>= 1.0: exprscope is at least as fast), two ways: the best
run of each side, and the median of the per-round ratios (steadier on a shared
machine, where one side's best can be a lucky quiet moment). Then the fixed
cost per node: a chain of additions on a 1,000-row batch, per added node, for
exprscope, plain `pc.add` calls and Acero. Last, the arithmetic chain over
other shapes of input: a single RecordBatch of 262,144 rows (Spark's engine
mode) and of 1M rows, and the whole table as one chunk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import acero

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of, best_of_each

import toolkit as tk

WORDS = pa.array(["alpha", "Beta", "gamma ray", "Delta-9", "epsilon", None, "Eta", "theta x"])


def make_table(rows: int, chunk_rows: int, seed: int = 3) -> pa.Table:
    rng = np.random.default_rng(seed)
    valid = rng.random(rows) > 0.1
    table = pa.table({
        "a": pa.array(rng.integers(0, 1000, rows), mask=~valid),
        "b": pa.array(rng.integers(0, 1000, rows)),
        "c": pa.array(rng.integers(0, 10, rows)),
        "d": pa.array(rng.random(rows)),
        "f32": pa.array(rng.random(rows).astype(np.float32)),
        "i32": pa.array(rng.integers(-500, 500, rows).astype(np.int32)),
        "s": pc.take(WORDS, pa.array(rng.integers(0, len(WORDS), rows))),
    })
    return pa.Table.from_batches(table.to_batches(max_chunksize=chunk_rows))


a, b, c, d = tk.field("a"), tk.field("b"), tk.field("c"), tk.field("d")
f32, i32, s = tk.field("f32"), tk.field("i32"), tk.field("s")

EXPRESSIONS = {
    "arithmetic chain": (a * 2 + b - c) * 3 + d * 0.5,
    "comparisons under and/or": ((a > 10) & (b < 500)) | ((c == 3) & (d >= 0.5)),
    "string function": tk.call("utf8_upper", [s]),
    "mixed-type casts": a.cast(pa.float32()) + i32 + f32 + d.cast(pa.float32()),
    "nested case_when": tk.case_when(
        [(a < 100, tk.case_when([(b < 300, a * 2)], else_=b)), (a < 600, c + 1)],
        else_=tk.literal(0)),
}


def to_pyarrow(expr) -> pc.Expression:
    """The same (unbound) tree as a pyarrow Expression; Acero binds it itself."""
    done: dict[int, pc.Expression] = {}
    for node in _postorder(expr):
        if node.is_literal:
            done[id(node)] = pc.scalar(node.value)
        elif node.is_field:
            done[id(node)] = pc.field(node.ref.name)
        else:
            done[id(node)] = pc.Expression._call(node.name, [done[id(x)] for x in node.args],
                                                 node.options)
    return done[id(expr)]


def _postorder(expr):
    out, stack = [], [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
        else:
            stack.append((node, True))
            stack.extend((x, False) for x in reversed(node.args))
    return out


def run_acero(expression: pc.Expression, data) -> pa.ChunkedArray:
    table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expression], ["out"])),
    ])
    return plan.to_table().column("out")




def compare_with_acero(table: pa.Table, repeat: int) -> None:
    print(f"{table.num_rows:,} rows, {table.column('a').num_chunks} chunks, {repeat} rounds")
    print(HEADER)
    for name, expr in EXPRESSIONS.items():
        print(_compare(name, expr, table, repeat))


def compare_shapes(table: pa.Table, repeat: int) -> None:
    """The arithmetic chain over other shapes of input: one batch, one big chunk."""
    print(f"arithmetic chain over other shapes, {repeat} rounds")
    print(HEADER.replace("expression", "input     "))
    shapes = {
        "batch, 262,144 rows": table.slice(0, 262_144).combine_chunks().to_batches()[0],
        "batch, 1M rows": table.slice(0, 1_000_000).combine_chunks().to_batches()[0],
        f"table, {table.num_rows // 1_000_000}M rows, 1 chunk": table.combine_chunks(),
    }
    for name, data in shapes.items():
        print(_compare(name, EXPRESSIONS["arithmetic chain"], data, repeat))


HEADER = (f"{'expression':<26} {'exprscope s':>11} {'acero s':>9} {'best/best':>10} "
          f"{'median of rounds':>17}")


def _compare(name: str, expr, data, repeat: int) -> str:
    """One line: exprscope and Acero over `data`, checked equal, then timed interleaved."""
    bound = tk.bind(expr, data.schema)
    reference = to_pyarrow(expr)
    ours, theirs = tk.evaluate(bound, data), run_acero(reference, data)
    if isinstance(data, pa.Table):
        assert ours.num_chunks == data.column("a").num_chunks, name  # the caller's chunks
        ours = ours.combine_chunks()
    assert ours.type == theirs.type, (name, ours.type, theirs.type)
    assert ours.equals(theirs.combine_chunks()), name
    t_ours, t_acero, ratios = float("inf"), float("inf"), []
    # interleaved, alternating who goes first, so a busy moment hits both
    pair = [lambda: tk.evaluate(bound, data), lambda: run_acero(reference, data)]
    for i in range(repeat):
        first, second = best_of_each(pair if i % 2 == 0 else pair[::-1], 1)
        mine, acero_time = (first, second) if i % 2 == 0 else (second, first)
        t_ours, t_acero = min(t_ours, mine), min(t_acero, acero_time)
        ratios.append(acero_time / mine)
    return (f"{name:<26} {t_ours:>11.4f} {t_acero:>9.4f} {t_acero / t_ours:>9.2f}x "
            f"{statistics.median(ratios):>16.2f}x")


def fixed_cost_per_node(repeat: int) -> None:
    batch = pa.record_batch({"a": pa.array(np.arange(1000))})
    table = pa.Table.from_batches([batch])
    short, long_ = 1, 201

    def chain(n):
        expr = a
        for _ in range(n):
            expr = expr + 1
        return expr

    def ours(n):  # as written: simplification would fold the chain's constants away
        bound = tk.bind(chain(n), batch.schema)
        return best_of(lambda: tk.evaluate(bound, batch, simplify=False), repeat * 5)

    def plain(n):
        column = batch.column(0)

        def run():
            value = column
            for _ in range(n):
                value = pc.add(value, 1)
        return best_of(run, repeat * 5)

    def theirs(n):
        reference = to_pyarrow(chain(n))
        return best_of(lambda: run_acero(reference, table), repeat * 5)

    print("fixed cost per node, 1,000-row batch (chain of additions), microseconds:")
    for label, fn in (("exprscope tk.evaluate", ours), ("plain pc.add calls", plain),
                      ("Acero project", theirs)):
        per_node = (fn(long_) - fn(short)) / (long_ - short) * 1e6
        print(f"  {label:<22} {per_node:8.1f} us/node")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--chunk-rows", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs "
          "(the machine may be shared: compare ratios, not seconds)")
    table = make_table(args.rows, args.chunk_rows)
    compare_with_acero(table, args.repeat)
    compare_shapes(table, args.repeat)
    fixed_cost_per_node(args.repeat)


if __name__ == "__main__":
    main()
