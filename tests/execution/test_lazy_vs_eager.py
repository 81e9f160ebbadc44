"""Lazy equals eager wherever eager does not fail; guarded errors never surface lazily."""

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.paired import expressions, same_values, tables
from toolkit.errors import BindError, KernelError

kinds = st.sampled_from(["int", "float", "bool", "str"])


@settings(max_examples=80, deadline=None)
@given(kinds.flatmap(expressions), tables())
def test_lazy_equals_eager_where_eager_succeeds(pair, table):
    expr, _ = pair
    if _refused_by_binding(expr, table):
        return
    try:
        eager = tk.evaluate(expr, table, mode="eager")
    except KernelError:
        return
    lazy = tk.evaluate(expr, table)
    if isinstance(eager, pa.Scalar) or isinstance(lazy, pa.Scalar):
        assert isinstance(eager, pa.Scalar) and isinstance(lazy, pa.Scalar)
        assert eager.type == lazy.type
        assert same_values(pa.array([eager], eager.type), pa.array([lazy], lazy.type))
        return
    assert lazy.type == eager.type
    assert [len(c) for c in lazy.chunks] == [len(c) for c in eager.chunks]
    assert same_values(lazy, eager), str(expr)


def _guarded(kind, numerator, fallback, g):
    """Four ways to divide by `g` only where it is not zero."""
    safe = g != 0
    quotient = numerator / g
    return {
        "if_else": tk.if_else(safe, quotient, fallback),
        "case_when": tk.case_when([(g == 0, fallback), (tk.literal(True), quotient)]),
        "coalesce": tk.coalesce(tk.if_else(g == 0, fallback, tk.literal(None, pa.int64())),
                                tk.if_else(safe, quotient, tk.literal(None, pa.int64()))),
        "and": tk.if_else(safe & (quotient > 0), quotient, fallback),
    }[kind]


GUARDED_QUOTIENT_PATHS = {
    "if_else": {(1,)},
    "case_when": {(2,)},
    "coalesce": {(1, 1)},
    "and": {(0, 1, 0), (1,)},
}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["if_else", "case_when", "coalesce", "and"]), expressions("int", 2),
       expressions("int", 2), tables())
def test_errors_on_unselected_rows_never_surface(kind, numerator, fallback, table):
    """`g` (column i) has zeros; the quotient is only needed where it is not zero."""
    check_guarded(kind, numerator[0], fallback[0], table)


def test_a_fallback_that_fails_only_where_the_quotient_is_used():
    """Found by hypothesis: `i / (i + j)` divides by zero on the row the quotient takes."""
    i, j = tk.field("i"), tk.field("j")
    table = pa.table({"i": pa.array([None, 3, 0], pa.int64()),
                      "j": pa.array([None, -3, 1], pa.int32()),
                      "f": pa.nulls(3, pa.float64()), "p": pa.nulls(3, pa.bool_()),
                      "s": pa.nulls(3, pa.string())})
    for kind in GUARDED_QUOTIENT_PATHS:
        check_guarded(kind, i, i / (i + j), table)


def _refused_by_binding(expr, table) -> bool:
    """A random call may take a constant its kernel's implicit cast refuses (`round_binary(x,
    -1.5)` wants an int32 of digits): binding refuses it, in both modes alike."""
    try:
        tk.bind(expr, table.schema)
    except BindError as refused:
        for mode in ("lazy", "eager"):
            with pytest.raises(BindError, match=re.escape(str(refused).splitlines()[0])):
                tk.evaluate(expr, table, mode=mode)
        return True
    return False


def check_guarded(kind, numerator, fallback, table):
    g = tk.field("i")
    expr = _guarded(kind, numerator, fallback, g)
    if _refused_by_binding(expr, table):
        return
    try:
        got = tk.evaluate(expr, table)
    except KernelError as error:
        # the numerator or the fallback may fail by themselves; the guarded divide never does
        assert error.path not in GUARDED_QUOTIENT_PATHS[kind], (str(expr), error)
        return
    if isinstance(got, pa.Scalar):
        return
    # the rows where g != 0 agree with the plain quotient computed on just those rows
    nonzero = pc.fill_null(pc.not_equal(table.column("i"), 0), False)
    picked = table.filter(nonzero)
    if picked.num_rows == 0:
        return
    try:
        quotient = tk.evaluate(numerator / g, picked)
    except KernelError:
        return  # the numerator itself fails on a selected row: checked by other tests
    got_rows = got.filter(nonzero)
    if isinstance(quotient, pa.Scalar):
        quotient = pa.chunked_array([pa.repeat(quotient, picked.num_rows)])
    if kind != "and":
        assert same_values(got_rows, quotient), str(expr)
        return
    # `and` takes the quotient where it is positive, null where it is null, and the fallback
    # where it is not positive: only there is the fallback evaluated (elsewhere it may fail)
    uses_fallback = picked.filter(pc.less_equal(quotient, 0))  # a null quotient is dropped
    fallback_rows = tk.evaluate(fallback, uses_fallback)
    if isinstance(fallback_rows, pa.Scalar):
        fallback_rows = pa.repeat(fallback_rows, uses_fallback.num_rows)
    fallbacks = iter(fallback_rows.to_pylist())
    expected = [None if v is None else (v if v > 0 else next(fallbacks))
                for v in quotient.to_pylist()]
    assert got_rows.to_pylist() == expected, str(expr)
