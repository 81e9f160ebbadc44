"""Random exprscope plans written as Substrait, run by Acero: the same rows as exprscope's.

The plans are the random plans of up to 12 nodes the optimizer's property draws
(filters, projections that rename and recompute, aggregates, sorts, limits right
after a sort on every column, inner and left joins) over tables with nulls in
every column: all of it has a Substrait form both sides run. Acero
(`pyarrow.substrait.run_query`) is the oracle of the whole plan; the same bytes
read back with `plan.from_substrait` give the very plan that was written.
"""

from __future__ import annotations

import pyarrow.substrait as pa_substrait
from hypothesis import HealthCheck, given, settings

from tests.interop.rows import rows
from tests.plan.test_random_plans_optimize import BASE, RIGHT, random_plans
from toolkit import plan

SUBSTRAIT_JOINS = ("inner", "left")  # the joins exprscope writes as Substrait's JoinRel
EXAMPLES = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _table(names, schema):
    """Acero's table_provider: the relation `t` is BASE, each joined `u<n>` is RIGHT."""
    return BASE if names == ["t"] else RIGHT


def _sources(p: plan.LogicalPlan) -> dict:
    return {node.relation: node.source for node in p.walk() if isinstance(node, plan.TableScan)}


@EXAMPLES
@given(drawn=random_plans(join_kinds=SUBSTRAIT_JOINS, join_conditions=False))
def test_acero_runs_the_written_plan_to_exprscope_rows(drawn):
    p, ordered = drawn
    data = p.to_substrait()
    got = pa_substrait.run_query(data, table_provider=_table).read_all()
    want = plan.create_physical_plan(p).collect()
    assert got.schema.names == want.schema.names, p.explain()
    assert [f.type for f in got.schema] == [f.type for f in want.schema], p.explain()
    assert rows(got, ordered) == rows(want, ordered), p.explain()


@EXAMPLES
@given(drawn=random_plans(join_kinds=SUBSTRAIT_JOINS, join_conditions=False))
def test_the_written_plan_reads_back_equal(drawn):
    p, _ = drawn
    back = plan.from_substrait(p.to_substrait(), _sources(p))
    assert back.equals(p), (p.explain(), back.explain())
