"""Substrait's own function test cases, read by `tk.from_substrait` and evaluated.

Each case of `substrait_function_cases` becomes an ExtendedExpression holding one
scalar-function call on literals (the function declared under its extension URN,
e.g. extension:io.substrait:functions_arithmetic, with the case's options), over
a one-column base schema; exprscope reads it and evaluates it on a one-row table.

What exprscope covers is written down here, so a change of coverage shows up as
a failing case rather than passing unnoticed:

- UNMAPPED: Substrait functions Arrow's consumer has no mapping for (less
  BEYOND_ARROW, which exprscope reads); reading them must raise
  `tk.SubstraitError` naming the function;
- HONOURED options: `overflow` ERROR (evaluation raises) and SILENT (wraps, an
  answer the spec leaves undefined); REFUSED: `overflow` SATURATE, which Arrow
  has no kernel for, must be refused naming the option;
- any other option (on_domain_error, on_log_zero, on_division_by_zero,
  rounding) Arrow's consumer ignores; exprscope must either honour it (give the
  case's answer) or refuse it naming the option, never give another answer.

`test_arrow_agrees_with_the_transcription` runs the same messages through
pyarrow's consumer, which checks both the transcription and the lists above.
"""

from __future__ import annotations

import collections
import math

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.substrait as pa_substrait
import pytest

import toolkit as tk
from tests.interop import substrait_messages as sm
from tests.interop.substrait_function_cases import (
    CASES,
    ERROR,
    LOGB_ORDER,
    NAN_OPTION_GIVES_NULL,
    SQRT_BIG_INT,
    UNDEFINED,
)
from toolkit.errors import ExprscopeError

ARROW_UNMAPPED = {
    "and_not", "between", "factorial", "is_false", "is_infinite", "is_not_distinct_from",
    "is_not_false", "is_not_true", "is_true", "modulus", "nullif", "shift_left",
    "shift_right", "shift_right_unsigned",
}
# functions exprscope reads although Arrow's consumer has no mapping for them
BEYOND_ARROW = {"is_infinite", "modulus"}
UNMAPPED = ARROW_UNMAPPED - BEYOND_ARROW
HONOURED = {("overflow", "ERROR"), ("overflow", "SILENT")}
REFUSED = {("overflow", "SATURATE")}
BOOLEAN_RESULT = {"functions_comparison", "functions_boolean"}

TABLE = pa.table({"_": pa.array([0], pa.int64())})
SCHEMA = sm.named_struct(TABLE.schema)


def _ids(cases):
    seen = collections.Counter()
    out = []
    for case in cases:
        seen[case.id] += 1
        out.append(case.id if seen[case.id] == 1 else f"{case.id}#{seen[case.id]}")
    return out


def _output_type(case) -> str:
    if isinstance(case.expected, tuple):
        return case.expected[1]
    return "bool?" if case.extension in BOOLEAN_RESULT else case.args[0][1]


def message_for(case):
    call = sm.call(0, [sm.literal(v, t) for v, t in case.args],
                   sm.substrait_type(_output_type(case)), case.options)
    return sm.extended_expression(call, functions=[(case.extension, case.function)],
                                  base_schema=SCHEMA)


def _one_value(result):
    if isinstance(result, pa.Scalar):
        return result.as_py(), result.type
    assert len(result) == 1, f"one row in, {len(result)} out"
    return result[0].as_py(), result.type


def _same(got, expected_text: str, type_name: str) -> bool:
    expected = sm.python_value(expected_text, type_name)
    if expected is None or got is None:
        return expected is None and got is None
    if isinstance(expected, float):
        return isinstance(got, float) and sm.same_float(got, expected, type_name)
    return got == expected and type(got) is type(expected)


def _options_text(case) -> list[str]:
    return [w for kv in case.options.items() for w in kv]


def _other_options(case) -> bool:
    return any(kv not in HONOURED and kv not in REFUSED for kv in case.options.items())


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_case(case):
    where = f"{case.source}.test [{case.group}] {case.id}"
    data = message_for(case).SerializeToString()

    if case.function in UNMAPPED:
        with pytest.raises(tk.SubstraitError) as refused:
            tk.from_substrait(data)
        assert case.function in str(refused.value), f"{where}: {refused.value}"
        return
    if set(case.options.items()) & REFUSED:
        with pytest.raises(tk.SubstraitError) as refused:
            tk.from_substrait(data)
        assert any(w in str(refused.value) for w in _options_text(case)), \
            f"{where}: the refusal does not name the option: {refused.value}"
        return

    try:
        expr = tk.from_substrait(data)
    except tk.SubstraitError as err:
        if case.differs is SQRT_BIG_INT:
            return
        if _other_options(case) and any(w in str(err) for w in _options_text(case)):
            return  # an option exprscope cannot honour, refused by name
        raise AssertionError(f"{where}: refused: {err}") from err

    try:
        value, type_ = _one_value(tk.evaluate(expr, TABLE))
    except ExprscopeError as err:
        assert not isinstance(err, tk.SubstraitError), f"{where}: {err!r} at evaluation"
        if case.expected == ERROR or case.expected == UNDEFINED or case.differs is SQRT_BIG_INT:
            return
        raise AssertionError(f"{where}: raised {err!r}, expected {case.expected}") from err

    if case.expected == ERROR:
        raise AssertionError(f"{where}: gave {value!r}, the case expects an error")
    if case.expected == UNDEFINED:
        assert type_ == sm.arrow_type(case.args[0][1]), f"{where}: type {type_}"
        return
    expected = case.arrow if case.differs is LOGB_ORDER else case.expected
    if case.differs is NAN_OPTION_GIVES_NULL and isinstance(value, float):
        assert math.isnan(value), f"{where}: gave {value!r}, expected null or NaN"
    else:
        assert _same(value, *expected), f"{where}: gave {value!r}, expected {expected[0]}"
    assert type_ == sm.arrow_type(expected[1]), f"{where}: type {type_}, expected {expected[1]}"
    assert expr.type == type_, f"{where}: expr.type {expr.type} but the value is {type_}"


def _arrow_outcome(case):
    """("unmapped" | "refused" | "error" | "value", value) from pyarrow's consumer."""
    try:
        bound = pa_substrait.deserialize_expressions(sm.for_arrow(message_for(case)))
    except pa.ArrowNotImplementedError as err:
        return ("unmapped" if "No conversion function" in str(err) else "refused"), None
    except pa.ArrowInvalid:
        return "refused", None
    try:
        column = ds.dataset(TABLE).to_table(columns={"o": bound.expressions["e0"]})["o"]
    except pa.ArrowInvalid:
        return "error", None
    return "value", column[0].as_py()


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_arrow_agrees_with_the_transcription(case):
    """pyarrow's consumer on the same message: the lists above and the expected
    answers of every case whose options Arrow acts on are Arrow's too."""
    outcome, value = _arrow_outcome(case)
    where = f"{case.id}: Arrow {outcome} {value!r}"
    if case.function in ARROW_UNMAPPED:
        assert outcome == "unmapped", where
        return
    assert outcome != "unmapped", where
    if set(case.options.items()) & REFUSED:
        assert outcome == "refused", where
        return
    if case.differs is SQRT_BIG_INT:
        assert outcome == "refused", where
        return
    if _other_options(case) or case.expected == UNDEFINED:
        return  # Arrow ignores these options; its answer is not the case's to check
    if case.expected == ERROR:
        assert outcome == "error", where
        return
    assert outcome == "value", where
    expected = case.arrow if case.differs is LOGB_ORDER else case.expected
    assert _same(value, *expected), where
