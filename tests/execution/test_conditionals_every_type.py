"""if_else, case_when and coalesce on every type family Arrow's conditional kernels take.

The families are those of Arrow's `scalar_if_else_test.cc` (numeric, decimal,
string/large_string/binary, fixed_size_binary, temporal, intervals pyarrow can
build, list/large_list/list_view/fixed_size_list/map, struct, dense and sparse
unions, dictionaries including two different ones with null entries, null type,
empty and all-null). Each case runs through `check_like_arrow`: plain, sliced,
chunked and scalar layouts, lazy and eager, compared with pyarrow's kernel on
value and type.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest

from tests.arrow_oracle import check_like_arrow

N = 6


def _union(mode: str, shift: int) -> pa.Array:
    types = pa.array([(i + shift) % 2 for i in range(N)], pa.int8())
    ints = pa.array([None if i == 2 else i * 10 + shift for i in range(N)])
    strs = pa.array([None if i == 3 else f"s{i + shift}" for i in range(N)])
    if mode == "sparse":
        return pa.UnionArray.from_sparse(types, [ints, strs])
    offsets = pa.array(list(range(N)), pa.int32())
    return pa.UnionArray.from_dense(types, offsets, [ints, strs])


def _dictionary(entries, indices) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(entries))


FAMILIES = {
    "int8": lambda k: pa.array([1, None, 3, -4, 5 + k, None], pa.int8()),
    "uint64": lambda k: pa.array([1, 2 ** 63 + k, None, 4, 5, 6], pa.uint64()),
    "float32": lambda k: pa.array([1.5, None, float("nan"), -0.0, 2.5 + k, 3], pa.float32()),
    "float64": lambda k: pa.array([None, 1e300, -1e-300, float("inf"), k, 0.5]),
    "decimal128": lambda k: pa.array([Decimal("1.25"), None, Decimal(k), Decimal("-3.50"),
                                      Decimal("0.01"), None], pa.decimal128(6, 2)),
    "decimal256": lambda k: pa.array([Decimal("1.25"), None, Decimal(k), Decimal("-3.50"),
                                      Decimal("0.01"), None], pa.decimal256(40, 2)),
    "string": lambda k: pa.array(["a", None, "", "ünï", f"k{k}", "x" * 40]),
    "large_string": lambda k: pa.array(["a", None, "", "b", f"k{k}", "c"], pa.large_utf8()),
    "binary": lambda k: pa.array([b"\x00", None, b"", b"ab", bytes([k]), b"z"], pa.binary()),
    "large_binary": lambda k: pa.array([b"\x00", None, b"", b"ab", bytes([k]), b"z"],
                                       pa.large_binary()),
    "fixed_size_binary": lambda k: pa.array([b"ab", None, b"cd", bytes([k, k]), b"ef", b"gh"],
                                            pa.binary(2)),
    "bool": lambda k: pa.array([True, None, False, bool(k), True, False]),
    "date32": lambda k: pa.array([dt.date(2020, 1, 1 + k), None, dt.date(1970, 1, 1),
                                  dt.date(2000, 2, 29), None, dt.date(2024, 12, 31)]),
    "timestamp_us_tz": lambda k: pa.array([dt.datetime(2020, 1, 1, k), None, dt.datetime(1999, 1, 1),
                                           dt.datetime(2000, 1, 1), None, dt.datetime(2001, 1, 1)],
                                          pa.timestamp("us", "UTC")),
    "time64": lambda k: pa.array([dt.time(1, k), None, dt.time(0), dt.time(23, 59), None,
                                  dt.time(12)], pa.time64("us")),
    "duration": lambda k: pa.array([dt.timedelta(seconds=k), None, dt.timedelta(0),
                                    dt.timedelta(days=1), None, dt.timedelta(1)],
                                   pa.duration("ms")),
    "month_day_nano": lambda k: pa.array([pa.MonthDayNano([1, k, 3]), None, pa.MonthDayNano([0, 0, 0]),
                                          pa.MonthDayNano([-1, 2, 3]), None, pa.MonthDayNano([5, 5, 5])],
                                         pa.month_day_nano_interval()),
    "list": lambda k: pa.array([[1, 2], None, [], [None], [k], [3, 4, 5]], pa.list_(pa.int32())),
    "large_list": lambda k: pa.array([[1, 2], None, [], [None], [k], [3]], pa.large_list(pa.int32())),
    "list_view": lambda k: pa.array([[1, 2], None, [], [None], [k], [3]], pa.list_view(pa.int32())),
    "fixed_size_list": lambda k: pa.array([[1, 2], None, [None, 0], [k, k], [5, 6], [7, 8]],
                                          pa.list_(pa.int32(), 2)),
    "map": lambda k: pa.array([[("a", 1)], None, [], [("b", k), ("c", None)], [("d", 4)], []],
                              pa.map_(pa.utf8(), pa.int64())),
    "struct": lambda k: pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": None},
                                  {"x": k, "y": "b"}, {"x": 5, "y": None}, {"x": 6, "y": "c"}],
                                 pa.struct([("x", pa.int64()), ("y", pa.utf8())])),
    "sparse_union": lambda k: _union("sparse", k),
    "dense_union": lambda k: _union("dense", k),
    "dictionary": lambda k: _dictionary(["x", None, "y"] if k else [None, "q", "x"],
                                        [0, 1, None, 2, 0, 1] if k else [1, 0, 2, None, 1, 1]),
    "dictionary_decimal256": lambda k: pa.array(
        [Decimal("1.5"), None, Decimal(k), Decimal("1.5"), None, Decimal(2)],
        pa.decimal256(40, 2)).dictionary_encode(),
    "null": lambda k: pa.nulls(N),
}

CONDITION = pa.array([True, False, None, True, False, None])
CASES = pa.StructArray.from_arrays([pa.array([True, False, None, False, False, True]),
                                    pa.array([False, True, True, None, False, True])], ["a", "b"])


@pytest.mark.parametrize("family", FAMILIES)
def test_if_else(family):
    left, right = FAMILIES[family](1), FAMILIES[family](2)
    check_like_arrow("if_else", [CONDITION, left, right])
    check_like_arrow("if_else", [CONDITION, left, pa.nulls(1, left.type)[0]])
    check_like_arrow("if_else", [pa.array([True] * N), left, right])  # a branch with no rows
    check_like_arrow("if_else", [pa.nulls(N, pa.bool_()), left, right])  # all-null condition
    check_like_arrow("if_else", [CONDITION.slice(0, 0), left.slice(0, 0), right.slice(0, 0)],
                     layouts=("plain", "chunked"))


@pytest.mark.parametrize("family", FAMILIES)
def test_case_when(family):
    first, second, other = FAMILIES[family](1), FAMILIES[family](2), FAMILIES[family](3)
    check_like_arrow("case_when", [CASES, first, second, other])
    check_like_arrow("case_when", [CASES, first, second])  # no else: null
    check_like_arrow("case_when", [CASES, pa.nulls(1, first.type)[0], second])


@pytest.mark.parametrize("family", FAMILIES)
def test_coalesce(family):
    first, second = FAMILIES[family](1), FAMILIES[family](2)
    check_like_arrow("coalesce", [first, second])
    check_like_arrow("coalesce", [first, pa.nulls(N, first.type), second])
    check_like_arrow("coalesce", [pa.nulls(N, first.type), second])
    check_like_arrow("coalesce", [first, pa.nulls(1, first.type)[0]])
