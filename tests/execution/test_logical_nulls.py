"""Nulls no validity bitmap shows (unions, dictionaries with null entries, run-end encoding).

`coalesce` used to trust `Array.null_count`, which is 0 for every union: lazy
evaluation stopped after the first argument and returned nulls where Arrow
returns values. pyarrow's kernel is the oracle, in every layout and both modes;
for dictionaries it fills only null indices (a null entry counts as a value).
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.arrow_oracle import check_like_arrow
from toolkit.execution.logical_nulls import logical_null_count


def _sparse(types, children):
    return pa.UnionArray.from_sparse(pa.array(types, pa.int8()), children)


def _dense(types, offsets, children):
    return pa.UnionArray.from_dense(pa.array(types, pa.int8()), pa.array(offsets, pa.int32()),
                                    children)


SPARSE_WITH_NULLS = _sparse([0, 1, 0, 1], [pa.array([None, 5, None, 4]),
                                          pa.array([None, None, "c", "d"])])
SPARSE_FULL = _sparse([0, 0, 0, 0], [pa.array([7, 8, 9, 10]), pa.array(["a", "b", "c", "d"])])
DENSE_WITH_NULLS = _dense([0, 1, 0, 1], [0, 0, 1, 1], [pa.array([None, 3]), pa.array([None, "y"])])
DENSE_FULL = _dense([1, 1, 0, 0], [0, 1, 0, 1], [pa.array([1, 2]), pa.array(["p", "q"])])
DICT_NULL_ENTRY = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0]), pa.array(["x", None]))
DICT_OTHER = pa.DictionaryArray.from_arrays(pa.array([1, 0, 0, 1]), pa.array(["q", "r"]))


@pytest.mark.parametrize("args", [
    [SPARSE_WITH_NULLS, SPARSE_FULL],
    [SPARSE_WITH_NULLS, SPARSE_WITH_NULLS, SPARSE_FULL],
    [DENSE_WITH_NULLS, DENSE_FULL],
    [DICT_NULL_ENTRY, DICT_OTHER],
], ids=["sparse", "sparse-three", "dense", "dictionary-null-entry"])
def test_coalesce_fills_the_nulls_arrow_fills(args):
    assert check_like_arrow("coalesce", args) > 0


@pytest.mark.parametrize("value, expected", [
    (SPARSE_WITH_NULLS, 3), (SPARSE_FULL, 0), (DENSE_WITH_NULLS, 2),
    (DICT_NULL_ENTRY, 1),  # Arrow's coalesce looks at the indices of a dictionary
    (pa.RunEndEncodedArray.from_arrays([2, 4], pa.array([None, 3])), 2),
    (pa.array([1, None, 3]), 1),
])
def test_logical_null_count(value, expected):
    assert logical_null_count(value) == expected
