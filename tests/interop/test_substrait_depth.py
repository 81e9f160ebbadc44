"""Deep trees in Substrait: what exprscope writes every reader takes back, and what
no reader could take is refused, naming how deep it is and the readers' limit.

protobuf's readers (Python's upb, pyarrow's C++, DataFusion's prost) all refuse a
message nesting more than 100 messages below it. The writers measure a tree
before they write it (a 250-level expression once ran out of Python's stack
instead), and check the bytes they wrote against that limit.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.substrait as pa_substrait
import pytest
from datafusion.substrait import Serde
from substrait import algebra_pb2, plan_pb2
from substrait.extended_expression_pb2 import ExtendedExpression

import toolkit as tk
from toolkit import plan

SCHEMA = pa.schema([("x", pa.int64())])
T = pa.table({"x": pa.array([1, 2, None], pa.int64())})


def _chain(levels: int) -> tk.Expression:
    """x + 0 + 1 + ... : `levels` levels, the field at the bottom among them."""
    e = tk.field("x")
    for i in range(levels - 1):
        e = e + i
    return e


def _deepest_written(write) -> int:
    """The most levels of `_chain` that `write` takes (it refuses one more)."""
    levels = 2
    while True:
        try:
            write(_chain(levels + 1))
        except tk.SubstraitError:
            return levels
        levels += 1


@pytest.mark.parametrize("levels", [250, 1_000, 5_000])
def test_a_deep_expression_is_refused_naming_its_depth_and_the_limit(levels):
    with pytest.raises(tk.SubstraitError, match=rf"{levels:,} levels deep.*100") as info:
        _chain(levels).to_substrait(SCHEMA)
    assert "Recursion" not in str(info.value)


@pytest.mark.parametrize("levels", [250, 1_000, 5_000])
def test_a_deep_expression_in_a_plan_is_refused_naming_its_node(levels):
    for p in (plan.scan("t", T).project([_chain(levels)], names=["y"]),
              plan.scan("t", T).filter(_chain(levels - 1) > 0)):
        with pytest.raises(tk.SubstraitError, match=rf"in (Projection|Filter).*"
                                                    rf"{levels:,} levels deep.*100"):
            p.to_substrait()


def test_the_deepest_expression_written_reads_back_in_exprscope_and_pyarrow():
    deepest = _deepest_written(lambda e: e.to_substrait(SCHEMA))
    assert 25 <= deepest <= 40  # a call nests three messages: about 30 levels fit
    e = _chain(deepest)
    data = e.to_substrait(SCHEMA)
    assert tk.from_substrait(data).equals(e.bind(SCHEMA))
    got = pa_substrait.deserialize_expressions(data).expressions["expression"]
    assert str(got).count("add") == deepest - 1
    with pytest.raises(tk.SubstraitError, match=rf"'expression' \({deepest + 1} levels deep\) "
                                                r"is written as messages nested 10\d deep.*"
                                                r"take 100 at most"):
        _chain(deepest + 1).to_substrait(SCHEMA)


def test_the_deepest_plan_written_reads_back_in_exprscope_datafusion_and_acero():
    def filters(depth):
        p = plan.scan("t", T)
        for i in range(depth - 1):
            p = p.filter(tk.field("x") > i - 100)
        return p

    depth = 2
    while True:
        try:
            filters(depth + 1).to_substrait()
        except tk.SubstraitError as exc:
            assert "nested 10" in str(exc) and "100 at most" in str(exc), exc
            break
        depth += 1
    assert depth >= 40
    p = filters(depth)
    data = p.to_substrait()
    assert plan.from_substrait(data, {"t": _source(p)}).equals(p)
    Serde.deserialize_bytes(data)  # DataFusion's reader takes it (it refuses one more)
    ran = pa_substrait.run_query(data, table_provider=lambda names, schema: T).read_all()
    assert ran.column("x").to_pylist() == [1, 2]


def _source(p):
    while p.children:
        p = p.children[0]
    return p.source


def test_a_plan_deeper_than_any_reader_takes_is_refused_before_it_is_written():
    p = plan.scan("t", T)
    for i in range(5_000):
        p = p.filter(tk.field("x") > i)
    with pytest.raises(tk.SubstraitError, match=r"5,001 nodes deep.*100 deep at most"):
        p.to_substrait()


def test_a_deep_expression_within_a_shallow_plan_names_the_plans_nesting():
    p = plan.scan("t", T).project([_chain(40)], names=["y"])
    with pytest.raises(tk.SubstraitError, match=r"deepest expression 40 levels, in Projection.*"
                                                r"nested 1\d\d deep.*100 at most"):
        p.to_substrait()


def test_a_message_object_nested_past_the_limit_is_refused_not_recursed():
    """A message built in memory may nest deeper than any reader of its bytes takes."""
    message = ExtendedExpression.FromString(tk.field("x").to_substrait(SCHEMA))
    inner = message.referred_expr[0].expression
    for _ in range(1_000):
        outer = algebra_pb2.Expression()
        outer.cast.type.i64.SetInParent()
        outer.cast.input.CopyFrom(inner)
        inner = outer
    message.referred_expr[0].expression.CopyFrom(inner)
    with pytest.raises(tk.SubstraitError, match=r"nests 2,00\d messages deep.*at most 100"):
        tk.from_substrait(message)
    deep_plan = plan_pb2.Plan.FromString(plan.scan("t", T).filter(tk.field("x") > 1)
                                         .to_substrait())
    condition = deep_plan.relations[0].root.input.filter.condition
    condition.CopyFrom(inner)
    with pytest.raises(tk.SubstraitError, match=r"nests 2,0\d\d messages deep.*at most 100"):
        plan.from_substrait(deep_plan, {"t": T})


def test_a_type_nested_past_the_limit_is_refused_by_both_writers():
    t = pa.int64()
    for _ in range(500):
        t = pa.list_(t)
    deep = pa.schema([("x", t)])
    with pytest.raises(tk.SubstraitError, match=r"nests 501 types deep.*100"):
        tk.field("x").to_substrait(deep)
    with pytest.raises(tk.SubstraitError, match=r"TableScan: t.*nests 501 types deep"):
        plan.scan("t", deep.empty_table()).to_substrait()
    with pytest.raises(tk.SubstraitError, match=r"nests 501 types deep"):
        tk.literal(pa.scalar(None, t)).to_substrait(SCHEMA)


def test_a_tree_sharing_subtrees_is_refused_where_it_unfolds_past_a_million_nodes():
    """Substrait has no shared subtrees: x + x, doubled 40 times, is 2**40 nodes written."""
    e = tk.field("x")
    for _ in range(40):
        e = e + e
    with pytest.raises(tk.SubstraitError, match=r"shares subtrees.*1,000,000 nodes"):
        e.to_substrait(SCHEMA)
    small = tk.field("x")
    for _ in range(4):
        small = small + small
    assert tk.from_substrait(small.to_substrait(SCHEMA)).equals(small.bind(SCHEMA))
