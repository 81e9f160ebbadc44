"""The fluent builder: schemas users can read, errors that say what to fix."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan


@pytest.fixture
def t():
    return pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "x": pa.array([1.5, None, 3.0]),
        "s": pa.array(["a", None, "c"]),
    }, schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("x", pa.float64()),
                         pa.field("s", pa.string())]))


def test_scan_schema_carries_relation_type_and_nullability(t):
    p = plan.scan("t", t)
    assert [str(f) for f in p.schema] == ["t.id:int64 NOT NULL", "t.x:double", "t.s:string"]


def test_projection_keeps_relation_of_plain_columns_and_names_computed_ones(t):
    p = plan.scan("t", t).project(["id", tk.field("x") + 1, tk.field("s")], names=None)
    assert [(f.relation, f.name) for f in p.schema] == [("t", "id"), (None, "add_checked(x, 1)"), ("t", "s")]
    renamed = plan.scan("t", t).project(["id"], names=["key"])
    assert (renamed.schema[0].relation, renamed.schema[0].name) == (None, "key")


def test_functions_know_their_logical_field_from_null_handling(t):
    p = plan.scan("t", t).project(
        [tk.field("id") + 1, tk.field("x") + tk.field("id"), tk.is_null(tk.field("x")),
         tk.coalesce(tk.field("x"), 0.0), tk.coalesce(tk.field("x"), tk.field("x")),
         tk.if_else(tk.field("id") > 1, tk.field("id"), 0)],
        names=["a", "b", "c", "d", "e", "f"])
    got = {f.name: (str(f.type), f.nullable) for f in p.schema}
    assert got == {
        "a": ("int64", False),   # INTERSECTION of a NOT NULL column and a literal
        "b": ("double", True),   # INTERSECTION with a nullable column
        "c": ("bool", False),    # OUTPUT_NOT_NULL
        "d": ("double", False),  # coalesce: one argument never null
        "e": ("double", True),   # coalesce of nullables
        "f": ("int64", False),   # if_else over a NOT NULL condition and branches
    }


def test_aggregate_output_fields_follow_the_aggregate_rules(t):
    p = plan.scan("t", t).aggregate(
        ["s"], [("sum", "id", "total"), ("count", None, "n"), ("mean", "x", "avg"),
                ("min", "s", "first"), ("count", "x")])
    assert [(f.qualified_name, str(f.type), f.nullable) for f in p.schema] == [
        ("t.s", "string", True), ("total", "int64", False), ("n", "int64", False),
        ("avg", "double", True), ("first", "string", True), ("count(x)", "int64", False)]
    overall = plan.scan("t", t).aggregate([], [("sum", "id", "total")])
    assert overall.schema[0].nullable  # a global sum over no rows is null


def test_left_join_makes_the_right_side_nullable(t):
    other = pa.table({"id": pa.array([1], pa.int64()), "y": pa.array([10])},
                     schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("y", pa.int64(), False)]))
    inner = plan.scan("t", t).join(plan.scan("u", other), on=[("id", "id")])
    left = plan.scan("t", t).join(plan.scan("u", other), on="id", how="left")
    assert [f.nullable for f in inner.schema] == [False, True, True, False, False]
    assert [f.nullable for f in left.schema] == [False, True, True, True, True]
    assert left.schema.qualified_names == ["t.id", "t.x", "t.s", "u.id", "u.y"]


def test_after_a_join_a_bare_shared_name_is_ambiguous(t):
    joined = plan.scan("t", t).join(plan.scan("u", t), on="id")
    with pytest.raises(plan.AmbiguousColumnError, match="t.id, u.id"):
        joined.filter(tk.field("id") > 1)
    assert joined.filter(tk.field("u.id") > 1).predicate.to_string() == "(u.id > 1)"


def test_errors_name_what_is_wrong(t):
    p = plan.scan("t", t)
    with pytest.raises(plan.PlanError, match="must be boolean"):
        p.filter(tk.field("id") + 1)
    with pytest.raises(plan.PlanError, match="different types"):
        p.join(plan.scan("u", t), on=[("id", "x")])
    with pytest.raises(plan.PlanError, match="unknown aggregate function 'median'"):
        p.aggregate([], [("median", "x", "m")])
    with pytest.raises(plan.PlanError, match="sum does not accept string"):
        p.aggregate([], [("sum", "s", "m")])
    with pytest.raises(plan.PlanError, match="join type"):
        p.join(plan.scan("u", t), on="id", how="outer")
    with pytest.raises(plan.PlanError, match="cannot read a int"):
        plan.scan("t", 3)
    with pytest.raises(plan.ColumnNotFoundError, match="valid columns are: t.id, t.x, t.s"):
        p.sort([("nope", "ascending")])


def test_plans_are_renderer_friendly(t):
    p = plan.scan("t", t).filter(tk.field("x") > 1).project(["id"])
    assert p.children[0].children[0].label() == "TableScan: t"
    assert p.label() == "Projection: t.id"
    bundle = p._repr_mimebundle_()
    assert "text/plain" in bundle or bundle
    physical = plan.create_physical_plan(p)
    assert physical.label().startswith("ProjectionExec")
    assert physical.schema == pa.schema([pa.field("id", pa.int64(), False)])


def test_strings_are_columns_or_expression_text(t):
    p = plan.scan("t", t).filter("x > 1 and s = 'c'").project(["id", "id * 10", "t.s"])
    assert p.schema.qualified_names == ["t.id", "id * 10", "t.s"]
    assert plan.create_physical_plan(p).collect().to_pylist() == [
        {"id": 3, "id * 10": 30, "s": "c"}]
    agg = plan.scan("t", t).aggregate([], [("sum", "x * 2"), ("max", "id", "top")])
    assert agg.schema.names == ["sum(x * 2)", "top"]
    with pytest.raises(plan.ColumnNotFoundError, match="did you mean 'id'"):
        plan.scan("t", t).project(["idd * 10"])
    with pytest.raises(plan.ColumnNotFoundError, match="no column named 'no such column'"):
        plan.scan("t", t).project(["no such column"])
