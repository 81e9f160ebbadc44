"""Wide forms written as statements whose branch values are costly or can fail: a
`case_when` of up to 30 cases and a `coalesce` of up to 12 arguments whose values are
logarithms, `exp`, checked calls, integer division (`fused_guarded`), or a coalesce
statement of those, under conditions with nulls (some of them costly too).

Each such value is computed, or flags its failure, only on the rows of its case (its
path: the case's own conditions, whatever the form's text), so the values, the error
(its message and row) and, traced, each form's branch rows are those of the same
evaluation unfused (`fuse=False`: the lazy forms give each branch only its rows).
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.execution.test_fused_guarded import _traced
from tests.execution.test_fusion import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    _assert_same_outcome,
    _field,
    _literal,
    data,
)
from tests.execution.test_fusion_wide import _case_when, _value, terms
from toolkit.execution.prepare import prepare

_FLOAT_CALLS = ["ln", "log10", "log2", "log1p", "exp", "ln_checked", "log1p_checked",
                "sqrt_checked"]


def _costly(type_):
    """A value of `type_` that is costly or can fail on a row: a logarithm, `exp` or a
    checked call of a column (floats), an integer division or divide_checked (integers:
    a zero divisor fails; a literal divisor may be 0), or a coalesce of one with a
    column (a statement in the branch)."""
    if type_ in (F64, F32):
        call = st.tuples(st.sampled_from(_FLOAT_CALLS), _value(type_)).map(
            lambda c: tk.call(c[0], [c[1]]))
        call = st.one_of(call, st.tuples(_field(type_), st.one_of(_field(type_),
                                                                  _literal(type_))).map(
            lambda c: tk.call("divide_checked", list(c))))
    else:
        call = st.tuples(st.sampled_from(["divide", "divide_checked"]), _field(type_),
                         st.one_of(_field(type_), _literal(type_))).map(
            lambda c: tk.call(c[0], [c[1], c[2]]))
    return st.one_of(call, call, st.tuples(call, _field(type_)).map(
        lambda c: tk.call("coalesce", list(c))))


def _costly_condition():
    """A condition that is costly itself: ln(x) > 0 (a later case's is deferred)."""
    return st.sampled_from(["x", "y"]).map(lambda n: tk.call(
        "greater", [tk.call("ln", [tk.field(n)]), tk.literal(pa.scalar(0.0, F64))]))


@st.composite
def guarded_case_whens(draw, max_cases=30):
    type_ = draw(st.sampled_from([F64, F32, I64, I32]))
    cases = draw(st.integers(1, max_cases))
    conditions = draw(st.lists(st.one_of(terms, terms, terms, _costly_condition()),
                               min_size=cases, max_size=cases))
    values = draw(st.lists(st.one_of(_value(type_), _costly(type_)),
                           min_size=cases + 1, max_size=cases + 1))
    return _case_when(conditions, values)


@st.composite
def guarded_coalesces(draw, max_arguments=12):
    type_ = draw(st.sampled_from([F64, F32, I64, I32]))
    return tk.call("coalesce", draw(st.lists(st.one_of(_field(type_), _costly(type_)),
                                             min_size=2, max_size=max_arguments)))


def _costly_or_failing(expr, schema) -> bool:
    groups = prepare(expr, schema, simplify=False).fused.untraced
    group = groups.get(id(prepare(expr, schema, simplify=False).expr))
    return group is not None and (group.costly or group.can_fail)


# a case's costly value is listed by its path, the negations of every earlier case's
# condition, so a loop's text grows with the square of its cases and numba's compile
# with it: 16 cases draw every kind of path at a tenth of 30's compile
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(guarded_case_whens(max_cases=16), guarded_coalesces()), data())
def test_wide_forms_of_costly_and_failing_values_equal_unfused(expr, table):
    """Untraced and traced: the values, or the same error naming the same row."""
    _assert_same_outcome(expr, table, simplify=False)
    with tk.trace():
        _assert_same_outcome(expr, table, simplify=False)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(guarded_case_whens(max_cases=16), guarded_coalesces()), data())
def test_traced_wide_forms_of_costly_values_record_the_unfused_branch_rows(expr, table):
    """The same branch rows, or the same error; a form no row reached, which unfused
    never ran, records only empty branches fused."""
    fused, unfused = _traced(expr, table, True), _traced(expr, table, False)
    if not isinstance(unfused[1], dict):
        assert fused == unfused, str(expr)
        return
    assert fused[0] == unfused[0], str(expr)
    assert {k: v for k, v in fused[1].items() if k in unfused[1]} == unfused[1], str(expr)
    assert all(rows == [] for k, rows in fused[1].items() if k not in unfused[1]), str(expr)


def test_the_drawn_forms_fuse_whole_with_deferred_or_failing_values():
    """The property is about the merged loops only if the drawn forms fuse whole, their
    costly values deferred or their failures flagged: most of them do."""
    fused = []

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.one_of(guarded_case_whens(), guarded_coalesces()), data())
    def count(expr, table):
        fused.append(_costly_or_failing(expr, table.schema))

    count()
    assert sum(fused) >= len(fused) // 2, (sum(fused), len(fused))


def test_a_case_value_computed_only_on_its_case_rows():
    """ln_checked(x) in case 1 fails on x <= 0, but every such row takes case 0 (x <=
    0.5) or has a null x: no error; integer division by a zero only case 0's rows
    hold: none; the values, traced and untraced, are unfused's (a null x on case 1's
    rows is a null)."""
    x = pa.array([-1.0, 0.0, 0.25, 2.0, 3.0, None, 7.5] * 700)
    a = pa.array([0, 0, 0, 2, 3, 5, 4] * 700, I64)
    table = pa.table({"x": x, "a": a, "k": pa.array(range(len(x)), I64),
                      "p": pa.array([True, False] * (len(x) // 2) + [True] * (len(x) % 2),
                                    BOOL)})
    expr = tk.parse("case when x <= 0.5 then 0.0 when p then ln_checked(x) "
                    "when k > 100 then cast(k / a as double) else coalesce(log10(x), 1.0) end")
    group = prepare(expr, table.schema).fused.untraced.get(id(prepare(expr, table.schema).expr))
    assert group is not None and group.can_fail and group.costly
    _assert_same_outcome(expr, table)
    assert _traced(expr, table, True) == _traced(expr, table, False)  # every form ran
    assert tk.evaluate(expr, table, fuse=True).null_count == 350  # x null and p true
