"""Acero is the reference: tk.evaluate equals pyarrow's Acero where Acero succeeds."""

import datetime as dt

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.acero_reference import AceroCrashed, acero_loses_this_error, run_acero
from tests.strategies.paired import KINDS, ROOT, drawable, expressions, same_values, tables
from toolkit.errors import KernelError
from toolkit.execution.dense_path import MIN_DENSE_ROWS
from toolkit.functions import function_names

# their result types (month_interval, day_time_interval) have no pyarrow array class: pyarrow
# cannot hand their values to Python, so neither engine's result could be compared
PYARROW_CANNOT_RETURN = {"day_time_interval_between", "month_interval_between"}


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([*KINDS, ROOT]).flatmap(expressions), tables())
def test_evaluate_equals_acero(pair, table):
    expr, reference = pair
    try:
        expected = run_acero(reference, table)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, AceroCrashed):
        assume(False)  # Acero refuses (e.g. divide by zero in an untaken branch): no reference
    # evaluate simplifies first, as Acero does (null + x is null without evaluating x), so
    # wherever Acero succeeds exprscope must too, but where Acero lost a rounding's error
    got = _evaluate(expr, table)
    if isinstance(got, pa.Scalar):  # an all-literal expression: Acero broadcasts it
        got = pa.chunked_array([pa.repeat(got, len(table))], got.type) if len(table) else \
            pa.chunked_array([], got.type)
    assert got.type == expected.type, (str(expr), got.type, expected.type)
    assert same_values(got, expected), (str(expr), got, expected)


def _evaluate(expr, table, mode="lazy"):
    try:
        return tk.evaluate(expr, table, mode=mode)
    except KernelError as exc:
        assume(not acero_loses_this_error(exc))  # Acero gave 0: no reference
        raise


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
    """Every registered function can appear in a random tree, over argument types its
    kernels take: a function added to the registry that no rule reaches fails here."""
    missing = set(function_names()) - drawable()
    assert missing == PYARROW_CANNOT_RETURN, sorted(missing - PYARROW_CANNOT_RETURN)


def test_the_functions_left_out_cannot_run_from_python():
    """The exception above holds only while pyarrow cannot return their results."""
    dates = pa.array([dt.date(2024, 1, 31), None])
    for name in PYARROW_CANNOT_RETURN:
        with pytest.raises(KeyError):
            pc.call_function(name, [dates, dates])


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
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, AceroCrashed):
        assume(False)
    got = _evaluate(expr, big, mode=mode)  # Acero ran every branch: so may either mode
    if isinstance(got, pa.Scalar):
        got = pa.chunked_array([pa.repeat(got, len(big))], got.type)
    assert got.type == expected.type, (str(expr), got.type, expected.type)
    assert same_values(got, expected), str(expr)
