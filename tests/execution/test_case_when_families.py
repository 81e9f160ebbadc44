"""case_when cases ported from Arrow, checked against pyarrow's kernel in every layout.

The value families are the if_else ones (TestCaseWhen* in scalar_if_else_test.cc
covers the same types); the conditions are a struct of booleans with nulls.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.arrow_oracle import check_like_arrow
from tests.execution.test_if_else_families import CASES, DICTIONARIES, UNIONS

# TestCaseWhen*: two conditions, overlapping, with nulls; a third value is the else.
CONDS = {
    "overlapping": pa.StructArray.from_arrays(
        [pa.array([True, False, None, True, False, False]),
         pa.array([True, True, True, None, False, None])], ["c0", "c1"]),
    "all_null": pa.StructArray.from_arrays(
        [pa.nulls(6, pa.bool_()), pa.nulls(6, pa.bool_())], ["c0", "c1"]),
    "null_struct": pa.StructArray.from_arrays(
        [pa.array([True, False, True, True, False, True]),
         pa.array([False, True, True, False, True, True])], ["c0", "c1"],
        mask=pa.array([False, True, False, False, True, False])),
}


@pytest.mark.parametrize("cond_name", CONDS)
@pytest.mark.parametrize("family", CASES)
def test_case_when_like_arrow(family, cond_name):
    left, right = CASES[family]
    cond = CONDS[cond_name]
    assert check_like_arrow("case_when", [cond, left, right]) > 0  # no else: null
    assert check_like_arrow("case_when", [cond, left, right, left]) > 0  # with else


@pytest.mark.parametrize("family", CASES)
def test_case_when_null_scalar_values(family):
    left, _ = CASES[family]
    null = pa.scalar(None, left.type)
    assert check_like_arrow("case_when", [CONDS["overlapping"], null, left, null]) > 0


# test_case_when in python/pyarrow/tests/test_compute.py
def test_pyarrow_test_case_when():
    cond = pa.StructArray.from_arrays(
        [pa.array([False, True, None]), pa.array([True, False, None])], ["cond1", "cond2"])
    assert check_like_arrow("case_when", [cond, pa.array([1, 2, 3]),
                                          pa.array([11, 12, 13])]) > 0


# TestCaseWhenUnion / TestCaseWhenDict


@pytest.mark.parametrize("family", [*UNIONS, *DICTIONARIES])
def test_case_when_unions_and_dictionaries_like_arrow(family):
    left, right = {**UNIONS, **DICTIONARIES}[family]
    assert check_like_arrow("case_when", [CONDS["overlapping"], left, right, left]) > 0
