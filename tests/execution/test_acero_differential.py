"""Acero is the reference: tk.evaluate equals pyarrow's Acero where Acero succeeds."""

import pyarrow as pa
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pyarrow import acero

import toolkit as tk
from toolkit.errors import KernelError
from toolkit.execution.dense_path import MIN_DENSE_ROWS

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


def _tiled(table: pa.Table, rows: int) -> pa.Table:
    """`table` repeated to at least `rows` rows, in chunks of the original's size."""
    copies = -(-rows // max(len(table), 1))
    return pa.concat_tables([table] * copies)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["int", "float", "bool"]).flatmap(expressions), tables(),
       st.sampled_from(["lazy", "eager"]))
def test_evaluate_equals_acero_where_branches_may_run_dense(pair, table, mode):
    """Above MIN_DENSE_ROWS a branch that cannot fail runs on every row, many cases funnel
    and casts are proven in range by the data: the same values as Acero, in either mode."""
    assume(len(table) > 0)
    expr, reference = pair
    big = _tiled(table, MIN_DENSE_ROWS + 1)
    try:
        expected = run_acero(reference, big)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        assume(False)
    got = tk.evaluate(expr, big, mode=mode)  # Acero ran every branch: so may either mode
    if isinstance(got, pa.Scalar):
        got = pa.chunked_array([pa.repeat(got, len(big))], got.type)
    assert got.type == expected.type, (str(expr), got.type, expected.type)
    assert same_values(got, expected), str(expr)
