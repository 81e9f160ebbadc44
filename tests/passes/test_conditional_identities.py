"""The conditional identities (passes/conditional_identities.py), each rule held to Acero.

Every rule is run alone on bound calls drawn over its input space (literal and column
conditions, null literals, nullable and non-nullable fields, columns full of nulls), and
what it returns must compute, on the drawn table, exactly what pyarrow's Acero computes
for the call it replaced; where it fires it names itself, where nothing is known it
leaves the call alone.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyarrow import acero

import toolkit as tk
from toolkit.passes.conditional_identities import (
    coalesce_truncation,
    constant_case_when,
    constant_if_else,
)

SCHEMA = pa.schema([pa.field("a", pa.int64()), pa.field("b", pa.int64()),
                    pa.field("c", pa.bool_()), pa.field("n", pa.int64(), nullable=False)])


def acero_values(expr: tk.Expression, table: pa.Table) -> list:
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expr.to_pyarrow()], ["out"])),
    ])
    return plan.to_table().column("out").to_pylist()


@st.composite
def tables(draw) -> pa.Table:
    rows = draw(st.integers(1, 40))
    ints = st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=rows, max_size=rows)
    return pa.table({
        "a": pa.array(draw(ints), pa.int64()),
        "b": pa.array(draw(ints), pa.int64()),
        "c": pa.array(draw(st.lists(st.one_of(st.none(), st.booleans()), min_size=rows,
                                    max_size=rows)), pa.bool_()),
        "n": pa.array(draw(st.lists(st.integers(-5, 5), min_size=rows, max_size=rows)),
                      pa.int64()),
    }, schema=SCHEMA)



def expr(text: str) -> tk.Expression:
    """A condition or value by name: `null` and `null_int` are typed null literals."""
    if text == "null":
        return tk.literal(None, pa.bool_())
    if text == "null_int":
        return tk.literal(None, pa.int64())
    return tk.parse(text)


LITERAL_CONDITIONS = ["true", "false", "null"]
CONDITIONS = [*LITERAL_CONDITIONS, "c", "a > 0", "b is null"]
VALUES = ["a", "b", "n", "a + 1", "7", "null_int"]


def check_rule(rule, built: tk.Expression, table: pa.Table):
    """The rule's answer on the bound call: None, or a node that Acero evaluates to what
    it evaluates the call to (and exprscope too). Returns the Transformed."""
    call = built.bind(SCHEMA)
    result = rule(call)
    if result is None:
        return None
    assert result.changed and result.firings, str(call)
    assert result.node.type == call.type, str(call)
    expected = acero_values(call, table)
    assert acero_values(result.node, table) == expected, str(call)
    got = tk.evaluate(result.node, table, simplify=False)
    got = [got.as_py()] * table.num_rows if isinstance(got, pa.Scalar) else got.to_pylist()
    assert got == expected, str(call)
    return result


@settings(max_examples=40, deadline=None)
@given(table=tables(), cond=st.sampled_from(CONDITIONS), then=st.sampled_from(VALUES),
       otherwise=st.sampled_from(VALUES))
def test_constant_if_else_keeps_what_acero_computes(table, cond, then, otherwise):
    result = check_rule(constant_if_else, tk.if_else(expr(cond), expr(then), expr(otherwise)),
                        table)
    if cond not in LITERAL_CONDITIONS:
        assert result is None  # nothing is known about a column's condition
    elif cond == "null":
        assert result.firings[0].rule == "identities/if-else-null-condition"


@settings(max_examples=50, deadline=None)
@given(table=tables(),
       cases=st.lists(st.tuples(st.sampled_from(CONDITIONS), st.sampled_from(VALUES)),
                      min_size=1, max_size=5),
       otherwise=st.one_of(st.none(), st.sampled_from(VALUES)))
def test_constant_case_when_keeps_what_acero_computes(table, cases, otherwise):
    built = tk.case_when([(expr(c), expr(v)) for c, v in cases],
                         else_=expr(otherwise) if otherwise else None)
    result = check_rule(constant_case_when, built, table)
    if all(c not in LITERAL_CONDITIONS for c, _ in cases):
        assert result is None
    else:
        assert result.firings[0].rule == "identities/case-when-constant"


@settings(max_examples=50, deadline=None)
@given(table=tables(), args=st.lists(st.sampled_from(["a", "b", "n", "7", "null_int"]),
                                     min_size=2, max_size=5))
def test_coalesce_truncation_keeps_what_acero_computes(table, args):
    result = check_rule(coalesce_truncation, tk.coalesce(*(expr(a) for a in args)), table)
    never_null = [i for i, a in enumerate(args) if a in ("n", "7")]
    cuts = bool(never_null) and never_null[0] < len(args) - 1
    if not cuts and "null_int" not in args:
        assert result is None
    if cuts:
        assert result is not None


@pytest.mark.parametrize(("text", "after", "rule"), [
    ("if_else(true, a, b)", "a", "identities/if-else-constant"),
    ("if_else(false, a, b)", "b", "identities/if-else-constant"),
    ("case when false then a when true then b else n end", "b",
     "identities/case-when-constant"),
        ("coalesce(a, n, b)", "coalesce(a, n)", "identities/coalesce-truncate"),
    ("coalesce(cast(null as int64), a)", "a", "identities/coalesce-drop-null"),
    ("coalesce(7, a)", "7", "identities/coalesce-truncate"),
])
def test_each_rule_names_what_it_did(text, after, rule):
    call = tk.parse(text).bind(SCHEMA)
    result = (constant_if_else(call) or constant_case_when(call) or coalesce_truncation(call))
    assert result.node.equals(tk.parse(after).bind(SCHEMA))
    assert [f.rule for f in result.firings] == [rule]


def test_a_case_when_keeps_its_cases_that_a_column_decides():
    call = tk.parse("case when c then a when false then b when a > 0 then n end").bind(SCHEMA)
    result = constant_case_when(call)
    assert result.node.equals(tk.parse("case when c then a when a > 0 then n end").bind(SCHEMA))
    assert "1 case with a literal condition" in result.firings[0].reason

