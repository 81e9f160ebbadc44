"""Acero is the reference: tk.evaluate equals pyarrow's Acero where Acero succeeds."""

import pyarrow as pa
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pyarrow import acero

import toolkit as tk
from toolkit.errors import KernelError

from .expression_strategies import expressions, same_values, signatures, tables


def run_acero(expression, table):
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expression], ["out"])),
    ])
    return plan.to_table().column("out")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["int", "float", "bool", "str"]).flatmap(expressions), tables())
def test_evaluate_equals_acero(pair, table):
    expr, reference = pair
    try:
        expected = run_acero(reference, table)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        assume(False)  # Acero refuses (e.g. divide by zero in an untaken branch): no reference
    # evaluate simplifies first, as Acero does (null + x is null without evaluating x), so
    # wherever Acero succeeds exprscope must too
    got = tk.evaluate(expr, table)
    if isinstance(got, pa.Scalar):  # an all-literal expression: Acero broadcasts it
        got = pa.chunked_array([pa.repeat(got, len(table))], got.type) if len(table) else \
            pa.chunked_array([], got.type)
    assert got.type == expected.type, (str(expr), got.type, expected.type)
    assert same_values(got, expected), (str(expr), got, expected)


@settings(max_examples=60, deadline=None)
@given(expressions("int"), tables())
def test_lazy_fails_only_where_eager_fails(pair, table):
    """Lazy evaluation does a subset of eager's work: any error it raises, eager raises too."""
    expr, _ = pair
    try:
        tk.evaluate(expr, table)
    except KernelError:
        try:
            tk.evaluate(expr, table, mode="eager")
        except KernelError:
            return
        raise AssertionError(f"lazy failed where eager succeeded: {expr}")


def test_random_trees_draw_from_the_whole_registry():
    """Not only the first catalog: trigonometry, padding, extremes, bits and the rest."""
    drawn = {name for found in signatures().values() for name, *_ in found}
    assert {"sin", "atan2", "utf8_lpad", "max_element_wise", "bit_wise_and", "modulo",
            "match_substring_regex", "utf8_is_alpha", "is_finite"} <= drawn
    assert len(drawn) > 150
