"""Property: lazy if_else and case_when equal pyarrow's kernel for any value family and
any condition (with nulls), in the plain, sliced and chunked layouts."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.arrow_oracle import check_like_arrow
from tests.execution.test_if_else_families import CASES, DICTIONARIES, UNIONS

FAMILIES = {**CASES, **UNIONS, **DICTIONARIES}
LAYOUTS = ("plain", "sliced", "chunked")
conditions = st.lists(st.sampled_from([True, False, None]), min_size=6, max_size=6)


@settings(max_examples=60, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), cond=conditions)
def test_lazy_if_else_equals_arrow(family, cond):
    left, right = FAMILIES[family]
    check_like_arrow("if_else", [pa.array(cond, pa.bool_()), left, right],
                     layouts=LAYOUTS, modes=("lazy",))


@settings(max_examples=60, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), first=conditions, second=conditions,
       with_else=st.booleans())
def test_lazy_case_when_equals_arrow(family, first, second, with_else):
    left, right = FAMILIES[family]
    cond = pa.StructArray.from_arrays([pa.array(first, pa.bool_()), pa.array(second, pa.bool_())],
                                      ["a", "b"])
    values = [left, right] + ([left] if with_else else [])
    check_like_arrow("case_when", [cond, *values], layouts=LAYOUTS, modes=("lazy",))
