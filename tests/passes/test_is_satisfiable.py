"""is_satisfiable: what a dataset may skip, never folding anything."""

import pyarrow as pa
import pytest

import toolkit as tk
from tests.passes.arrow_cases import bound, call, null_literal, true_unless_null

F = tk.field


@pytest.mark.parametrize("expr, expected", [
    (tk.literal(True), True),
    (tk.literal(False), False),
    (null_literal(pa.bool_()), False),
    (tk.literal(3), True),  # not boolean: might be anything
    (F("bool"), True),
    (tk.not_(true_unless_null(F("i32"))), False),
    (tk.and_(F("bool"), tk.literal(False)), False),
    (tk.and_(F("bool"), tk.literal(True)), True),
    (tk.or_(tk.literal(False), null_literal(pa.bool_())), False),
    (tk.or_(tk.literal(False), F("bool")), True),
    (call("and", F("bool"), tk.not_(true_unless_null(F("i32")))), False),
    (call("or", tk.literal(False), tk.literal(True)), True),
    (tk.equal(tk.literal(1), tk.literal(2)), True),  # never folds
    (tk.not_(tk.literal(True)), True),  # only invert(true_unless_null(..)) is read
])
def test_is_satisfiable(expr, expected):
    assert tk.is_satisfiable(bound(expr)) is expected


def test_unbound_expressions_might_be_satisfiable():
    assert tk.is_satisfiable(tk.and_(F("x"), tk.literal(False))) is True


def test_a_ten_thousand_deep_and_chain():
    expr = F("bool")
    for _ in range(10_000):
        expr = tk.and_(expr, F("bool"))
    unsat = tk.and_(expr, tk.literal(False))
    assert tk.is_satisfiable(bound(unsat)) is False
    assert tk.is_satisfiable(bound(expr)) is True
