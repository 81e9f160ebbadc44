"""Plan nodes cannot change once built, and the validation mode travels one way.

A plan is shared by the optimizer's before and after, by traces and by Spark's
fragments, so a node changed in place would change all of them at once.
"""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.spark.running import shipping

DATA = pa.table({"a": pa.array(range(100), pa.int64()), "b": pa.array(range(100), pa.int64())})


def _logical():
    return (plan.scan("t", DATA).filter(tk.field("a") > 1)
            .project([tk.field("a"), tk.field("b") * 2], names=["a", "b2"]).limit(5))


def test_a_built_logical_node_refuses_to_change():
    p = _logical()
    with pytest.raises(plan.PlanError, match="Limit cannot change once built.*'fetch'"):
        p.fetch = 10
    with pytest.raises(plan.PlanError, match="cannot change once built"):
        p.input.exprs = []
    with pytest.raises(plan.PlanError, match="cannot change once built"):
        del p.input.input.predicate


def test_a_built_physical_node_refuses_to_change():
    physical = plan.create_physical_plan(plan.optimize(_logical()))
    for node in [physical, *physical.children]:
        with pytest.raises(plan.PlanError, match="cannot change once built"):
            node.validation = "off"


def test_rules_still_build_new_nodes_and_plans_still_travel_as_bytes():
    logical = _logical()
    optimized = plan.optimize(logical)
    assert optimized is not logical and "Limit" in logical.explain()
    physical = plan.create_physical_plan(optimized, validation="off")
    again = shipping.loads(shipping.dumps(physical))  # as Spark ships a fragment to workers
    assert again.collect().equals(physical.collect())
    with pytest.raises(plan.PlanError, match="cannot change once built"):
        again.validation = "always"


def _count(node) -> int:
    return 1 + sum(_count(child) for child in node.children)


def _schema_checks(physical, recorder, **run):
    recorder.checks.clear()
    physical.collect(**run)
    return sum(c.name == "physical schema consistent with data" for c in recorder.checks)


def test_the_planner_mode_sits_on_the_plan_it_returns_and_reaches_every_node(recorder):
    physical = plan.create_physical_plan(plan.optimize(_logical()), validation="off")
    assert physical.validation == "off"
    assert all(node.validation is None for node in physical.children)
    with plan.validation("always"):  # the planner's mode wins over the block's
        assert _schema_checks(physical, recorder) == 0
    # an explicit mode wins over both, on every node below the root as well
    assert _schema_checks(physical, recorder, validation="always") == _count(physical) == 4


def test_without_a_planner_mode_the_block_at_execution_decides(recorder):
    physical = plan.create_physical_plan(plan.optimize(_logical()))
    assert physical.validation is None
    with plan.validation("off"):
        assert _schema_checks(physical, recorder) == 0
    assert _schema_checks(physical, recorder) > 0
