"""CPU time of string predicates: exprscope's LIKE search, equality and is_in against Arrow's.

    python benchmarks/bench_like.py --data /work/tpch-sf1   # TPC-H scale 1 Parquet there
    python benchmarks/bench_like.py --repeat 9

One thread, no engine around it: each kernel runs over the whole column (its chunks
as Parquet gives them), and the figure is the process CPU time per call (user +
system), the best of `--repeat` interleaved rounds, which a shared machine disturbs far
less than wall time. Columns: TPC-H orders.o_comment (1,500,000 rows) and
part.p_name (200,000 rows). Ratio = Arrow / exprscope (above 1: exprscope faster).
Both results are checked equal before timing.

A second table gives the CPU time of whole TPC-H string shapes of
`bench_tpch_expressions.py` through `tk.evaluate` (lazy, on the tree `tk.optimize`
gives, two threads: the CPU of both is counted), so that a checkout before a change
and one after can be compared on a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

sys.path.insert(0, os.path.dirname(__file__))

from bench_tpch_expressions import SHAPES as TPCH_SHAPES

import toolkit as tk
from toolkit.functions.registry import get_function

ENGINE_SHAPES = ["Q12 high line (case when)", "Q12 low line (case when)",
                 "Q12 mode = MAIL or SHIP (case when)", "Q13 o_comment not like",
                 "Q16 s_comment like", "Q3 c_mktsegment = 'BUILDING'"]
SHAPES = [  # (table, column, function, pattern)
    ("orders", "o_comment", "match_like", "%special%requests%"),  # Q13
    ("orders", "o_comment", "match_like", "%special%"),
    ("orders", "o_comment", "match_substring", "requests"),
    ("orders", "o_comment", "match_like", "%pending%deposits%"),
    ("orders", "o_comment", "match_like", "ironic%"),  # a prefix: Arrow's own kernel runs
    ("part", "p_name", "match_like", "%green%"),  # Q9
    ("part", "p_name", "match_like", "forest%green%"),
    ("part", "p_name", "match_like", "forest%green"),  # no middle piece: Arrow's kernel runs
]


COMPARISONS = [  # (table, column, function, literal or value set)
    ("lineitem", "l_shipmode", "equal", "MAIL"),
    ("lineitem", "l_shipmode", "not_equal", "MAIL"),
    ("lineitem", "l_shipinstruct", "equal", "NONE"),
    ("lineitem", "l_shipinstruct", "equal", "DELIVER IN PERSON"),  # Q19
    ("lineitem", "l_shipmode", "is_in", ["MAIL", "SHIP"]),  # Q12
    ("lineitem", "l_shipmode", "is_in", ["AIR", "AIR REG"]),  # Q19
    ("orders", "o_orderpriority", "is_in", ["1-URGENT", "2-HIGH"]),  # Q12
    ("orders", "o_orderpriority", "not_equal", "1-URGENT"),
    ("customer", "c_mktsegment", "equal", "BUILDING"),  # Q3
]


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def comparison_calls(name: str, values, literal):
    """(exprscope's call, Arrow's call) of one comparison against a literal or a set."""
    if name == "is_in":
        options = pc.SetLookupOptions(pa.array(literal))
        return (lambda: get_function(name)([values], options),
                lambda: pc.is_in(values, options=options))
    scalar = pa.scalar(literal)
    return (lambda: get_function(name)([values, scalar]),
            lambda: getattr(pc, name)(values, scalar))


def best_cpu_and_faults(ours, theirs, repeat: int) -> tuple[float, float, int, int]:
    """(our best CPU seconds, Arrow's, our faults in that round, our most faults)."""
    best, arrow, faults, most = float("inf"), float("inf"), 0, 0
    for _ in range(repeat):
        start, before = cpu_seconds(), minor_faults()
        ours()
        spent, faulted = cpu_seconds() - start, minor_faults() - before
        most = max(most, faulted)
        if spent < best:
            best, faults = spent, faulted
        start = cpu_seconds()
        theirs()
        arrow = min(arrow, cpu_seconds() - start)
    return best, arrow, faults, most


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best_cpu(calls, repeat: int) -> list[float]:
    best = [float("inf")] * len(calls)
    for _ in range(repeat):
        for i, call in enumerate(calls):
            start = cpu_seconds()
            call()
            best[i] = min(best[i], cpu_seconds() - start)
    return best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="a folder of <table>.parquet "
                        "(default: the scale 1 cache toolkit.spark.tpch fills)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    pa.set_cpu_count(1)
    if args.data is None:
        from toolkit.spark import tpch
        paths = tpch.tables(1.0, ["orders", "part", "lineitem", "supplier", "customer"])
    else:
        paths = {n: os.path.join(args.data, f"{n}.parquet")
                 for n in ("orders", "part", "lineitem", "supplier", "customer")}
    columns = {(t, c): pq.read_table(paths[t], columns=[c]).column(c)
               for t, c, _, _ in SHAPES + COMPARISONS}
    print(f"pyarrow {pa.__version__}; CPU ms per call, best of {args.repeat}")
    print(f"{'shape':<48}{'exprscope':>11}{'arrow':>11}{'ratio':>8}")
    for table, column, name, pattern in SHAPES:
        values = columns[(table, column)]
        options = pc.MatchSubstringOptions(pattern)
        ours = get_function(name)
        theirs = getattr(pc, name)
        assert ours([values], options).equals(theirs(values, options=options)), pattern
        mine, arrow = best_cpu([lambda f=ours, v=values, o=options: f([v], o),
                                lambda f=theirs, v=values, o=options: f(v, options=o)],
                               args.repeat)
        label = f"{column} {name} '{pattern}'"
        print(f"{label:<48}{mine * 1e3:>9.1f}ms{arrow * 1e3:>9.1f}ms{arrow / mine:>8.2f}")
    print(f"\n{'comparison against a literal':<48}{'exprscope':>11}{'arrow':>11}{'ratio':>8}"
          f"{'faults':>14}")
    for table, column, name, literal in COMPARISONS:
        ours, theirs = comparison_calls(name, columns[(table, column)], literal)
        assert ours().equals(theirs()), (column, name, literal)
        mine, arrow, faults, most = best_cpu_and_faults(ours, theirs, args.repeat)
        label = f"{column} {name} {literal!r}"
        print(f"{label:<48}{mine * 1e3:>9.1f}ms{arrow * 1e3:>9.1f}ms{arrow / mine:>8.2f}"
              f"{faults:>7} {most:>6}")
    pa.set_cpu_count(2)
    print(f"\n{'TPC-H shape, tk.evaluate lazy':<48}{'CPU':>11}{'faults':>33}")
    tables = {}
    for name in ENGINE_SHAPES:
        shape = TPCH_SHAPES[name]
        if shape.table not in tables:
            tables[shape.table] = pq.read_table(paths[shape.table])
        table = tables[shape.table]
        tree = tk.optimize(tk.parse(shape.text), table.schema)
        spent, _, faults, most = best_cpu_and_faults(
            lambda t=tree, d=table: tk.evaluate(t, d, mode="lazy"), lambda: None, args.repeat)
        print(f"{name:<48}{spent * 1e3:>9.1f}ms{'':>19}{faults:>7} {most:>6}")


if __name__ == "__main__":
    main()
