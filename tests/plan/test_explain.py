"""EXPLAIN and EXPLAIN VERBOSE: what a user reads."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan


@pytest.fixture
def p():
    t = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "x": pa.array([1.0, None, 3.0]),
                  "s": pa.array(["a", "b", "c"]), "unused": pa.array([0, 0, 0])})
    return (plan.scan("t", t).project(["id", "x", "s"]).filter(tk.field("x") > 1)
            .aggregate(["s"], [("sum", "id", "total")]).sort([("total", "descending")]).limit(2))


def test_explain_is_the_plan_as_an_indented_tree(p):
    assert p.explain().splitlines() == [
        "Limit: skip=0, fetch=2",
        "  Sort: total DESC NULLS LAST",
        "    Aggregate: groupBy=[t.s], aggr=[sum(t.id) AS total]",
        "      Filter: (t.x > 1)",
        "        Projection: t.id, t.x, t.s",
        "          TableScan: t",
    ]
    assert str(p) == p.explain()


def test_explain_with_schema_shows_each_nodes_fields(p):
    text = p.explain(schema=True)
    assert "    schema: [t.s:string, total:int64]" in text
    assert "schema: [t.id:int64, t.x:double, t.s:string, t.unused:int64]" in text


def test_verbose_shows_the_plan_after_every_rule_that_changed_it(p):
    text = p.explain(verbose=True)
    titles = [line for line in text.splitlines() if not line.startswith(" ")]
    assert titles[0] == "initial_logical_plan:"
    assert any(t.startswith("logical_plan after push_down_filter (pushed (t.x > 1) below a "
                            "projection") for t in titles)
    assert any(t.startswith("logical_plan after prune_columns (scan of t reads 3 of 4 columns")
               for t in titles)
    assert titles[-3:] == ["logical_plan:", "physical_plan:", "invariant_checks:"]
    checks = text.split("invariant_checks:\n")[1].splitlines()
    assert any(line.startswith("  physical schema invariant under planning (MUST): ")
               for line in checks)
    assert any(line.startswith("  unique (relation, name) (MUST): ") for line in checks)
    assert any(t.startswith("rules that changed nothing: ") and "eliminate_filter" in t
               for t in titles)
    assert "      MemoryExec: t memory rows=3 projection=[id, x, s]" in text
    after_push = text.split("logical_plan after push_down_filter")[1].split("\n", 1)[1]
    assert "Filter: (t.x > 1)\n            TableScan: t" in after_push


def test_physical_explain_names_the_operators(p):
    physical = plan.create_physical_plan(plan.optimize(p))
    lines = physical.explain().splitlines()
    assert [line.strip().split(":")[0] for line in lines] == [
        "GlobalLimitExec", "SortExec", "HashAggregateExec", "ProjectionExec", "FilterExec",
        "MemoryExec"]
    assert "schema: [s:string, total:int64]" in physical.explain(schema=True)
