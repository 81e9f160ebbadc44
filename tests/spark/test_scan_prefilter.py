"""Spark's scan pre-filter keeps every row exprscope's filter keeps (NaN, -0.0, nulls included),
and engine mode with it gives exprscope's exact answer."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan

pytestmark = pytest.mark.spark

NAN = float("nan")
TABLE = pa.table({
    "x": pa.array([NAN, -0.0, 0.0, 1.5, None, float("inf"), -2.0, 3.0], pa.float64()),
    "i": pa.array([1, None, 0, -5, 7, 2, 2, 9], pa.int64()),
    "s": pa.array(["b", "a", None, "é", "B", "ab", "", "z"], pa.string()),
    "d": pa.array([datetime.date(1994, 1, d) for d in (1, 2, 3, 4, 5, 6, 7, 8)], pa.date32()),
})
OPS = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
CONSTANTS = {"x": [0.0, 1.5], "i": [2], "s": ["b", "é"],
             "d": [datetime.date(1994, 1, 4)]}


def _comparisons():
    for column, constants in CONSTANTS.items():
        for value in constants:
            literal = tk.literal(pa.scalar(value, TABLE.schema.field(column).type))
            for op in OPS:
                yield tk.call(op, [tk.field(column), literal])
                yield tk.call(op, [literal, tk.field(column)])  # constant on the left


def test_the_prefilter_keeps_a_superset_of_the_rows_exprscope_keeps(spark):
    from toolkit import spark as tks
    from toolkit.spark.running.scan_prefilter import prefilter_column, prefilter_conjuncts

    comparisons = [c.bind(TABLE.schema) for c in _comparisons()]
    pushed = [prefilter_conjuncts(c, TABLE.schema) for c in comparisons]
    assert all(len(p) == 1 for p in pushed)  # every one of them is pushable
    df = tks.dataframe(TABLE, spark)
    spark_keeps = df.select(*[prefilter_column(p).alias(f"k{n}") for n, p in enumerate(pushed)]) \
        .toArrow()
    wider = 0
    for n, comparison in enumerate(comparisons):
        ours = [v is True for v in tk.evaluate(comparison, TABLE).to_pylist()]
        theirs = [v is True for v in spark_keeps.column(f"k{n}").to_pylist()]
        assert all(t for o, t in zip(ours, theirs) if o), (str(comparison), ours, theirs)
        wider += sum(t and not o for o, t in zip(ours, theirs))
    assert wider > 0  # NaN > 0.0 is true in Spark: the case that relies on exprscope's filter


def test_only_column_versus_constant_conjuncts_are_pushed():
    from toolkit.spark.running.scan_prefilter import prefilter_conjuncts

    x, i = tk.field("x"), tk.field("i")
    predicate = tk.and_([x > 0.0, i + 1 > 2, tk.is_valid(x),
                         tk.or_(i > 1, i < -1), x < tk.literal(NAN),
                         tk.literal(3, pa.int64()) > i])
    pushed = prefilter_conjuncts(predicate.bind(TABLE.schema), TABLE.schema)
    assert [(name, op, value.as_py()) for name, op, value in pushed] == \
        [("x", "greater", 0.0), ("i", "less", 3)]


def test_engine_mode_with_the_prefilter_gives_exprscopes_answer(spark):
    from toolkit import spark as tks

    df = tks.dataframe(TABLE, spark)
    predicate = tk.and_([tk.field("x") >= 0.0, tk.field("i") != tk.literal(0, pa.int64()),
                         tk.field("s") > tk.literal("a")])

    def q(source):
        return plan.scan("t", source).filter(predicate).project(["x", "i", "s"])

    local = plan.create_physical_plan(plan.optimize(q(TABLE))).collect()
    assert local.column("s").to_pylist() == ["é", "ab", "z"]  # NaN >= 0.0 is false here
    with_prefilter = tks.run(q(df), mode="engine")
    assert with_prefilter.to_arrow().equals(local)
    assert any("Spark pre-filters the scan" in s for s in with_prefilter.stages)
    without = tks.run(q(df), mode="engine", prefilter=False)
    assert without.to_arrow().equals(local)
    assert not any("pre-filters" in s for s in without.stages)
