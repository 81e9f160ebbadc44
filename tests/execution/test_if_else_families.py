"""if_else cases ported from Arrow's scalar_if_else_test.cc, checked against pyarrow's kernel.

Each row is (condition, left, right) as pyarrow values; `check_like_arrow` runs it
plain, sliced, chunked and with scalar arguments, lazy and eager, and compares
value and type with `pc.if_else`.
"""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from tests.arrow_oracle import check_like_arrow

COND = pa.array([True, False, None, True, False, True])
COND_ALL_TRUE = pa.array([True] * 6)
COND_ALL_FALSE = pa.array([False] * 6)
COND_ALL_NULL = pa.array([None] * 6, pa.bool_())


def _pair(values_left, values_right, type_):
    return pa.array(values_left, type_), pa.array(values_right, type_)


def _d(s):
    return decimal.Decimal(s)


# TestIfElseKernel/IfElseFixedSize and IfElseFixedSizeRand: numeric and temporal types.
FIXED_SIZE = {
    "int8": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.int8()),
    "uint64": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.uint64()),
    "float32": _pair([1.5, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12.25], pa.float32()),
    "float64": _pair([1.5, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12.25], pa.float64()),
    "bool": _pair([True, False, None, True, False, True], [False, None, True, False, True, False],
                  pa.bool_()),
    "date32": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.date32()),
    "date64": _pair([86400000, None, 0, 1, 2, 3], [4, 5, None, 7, 8, 9], pa.date64()),
    "time32s": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.time32("s")),
    "time64us": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.time64("us")),
    "timestamp_tz": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12],
                          pa.timestamp("ms", "UTC")),
    "duration": _pair([1, 2, None, 4, 5, 6], [7, None, 9, 10, 11, 12], pa.duration("ns")),
    
    "month_day_nano": _pair([(1, 2, 3), None, (4, 5, 6), (1, 1, 1), (0, 0, 0), (9, 9, 9)],
                            [(7, 8, 9), (1, 2, 3), None, (2, 2, 2), (3, 3, 3), (4, 4, 4)],
                            pa.month_day_nano_interval()),
    # TestIfElseKernel/IfElseDecimal
    "decimal128": _pair([_d("1.23"), _d("2.34"), None, _d("4.56"), _d("5.67"), _d("6.78")],
                        [_d("-1.00"), None, _d("3.00"), _d("0.01"), _d("9.99"), _d("1.11")],
                        pa.decimal128(4, 2)),
    "decimal256": _pair([_d("1.23"), _d("2.34"), None, _d("4.56"), _d("5.67"), _d("6.78")],
                        [_d("-1.00"), None, _d("3.00"), _d("0.01"), _d("9.99"), _d("1.11")],
                        pa.decimal256(40, 2)),
    # TestIfElseKernel/IfElseFSB: fixed_size_binary
    "fixed_size_binary": _pair([b"abc", b"abd", None, b"xyz", b"aaa", b"bbb"],
                               [b"lmn", None, b"opq", b"rst", b"uvw", b"ccc"], pa.binary(3)),
}

# TestIfElseBaseBinary: string, large_string, binary, large_binary.
BASE_BINARY = {
    str(t): _pair(["a", "bc", None, "def", "", "ghij"], ["x", None, "y", "", "zz", "w"], t)
    for t in (pa.string(), pa.large_string())
}
BASE_BINARY.update({
    str(t): _pair([b"a", b"bc", None, b"def", b"", b"ghij"], [b"x", None, b"y", b"", b"zz", b"w"], t)
    for t in (pa.binary(), pa.large_binary())
})

# TestIfElseList / IfElseFixedSizeList / IfElseMap: nested list-like types.
_LISTS_L = [[1, 2], [], None, [3, None], [4], [5, 6, 7]]
_LISTS_R = [[9], None, [8, 8], [], [None], [1]]
NESTED = {
    "list": _pair(_LISTS_L, _LISTS_R, pa.list_(pa.int32())),
    "large_list": _pair(_LISTS_L, _LISTS_R, pa.large_list(pa.int32())),
    "list_view": _pair(_LISTS_L, _LISTS_R, pa.list_view(pa.int32())),
    "fixed_size_list": _pair([[1, 2], [3, 4], None, [None, 5], [6, 7], [8, 9]],
                             [[0, 0], None, [1, 1], [2, None], [3, 3], [4, 4]],
                             pa.list_(pa.int32(), 2)),
    "map": _pair([[("a", 1)], [], None, [("b", 2), ("c", None)], [("d", 4)], [("e", 5)]],
                 [[("x", 9)], None, [("y", 8)], [], [("z", None)], [("w", 7)]],
                 pa.map_(pa.string(), pa.int64())),
    # TestIfElseStruct
    "struct": _pair([{"a": 1, "b": "x"}, {"a": None, "b": "y"}, None, {"a": 3, "b": None},
                     {"a": 4, "b": "z"}, {"a": 5, "b": "w"}],
                    [{"a": 9, "b": "p"}, None, {"a": 8, "b": "q"}, {"a": None, "b": None},
                     {"a": 7, "b": "r"}, {"a": 6, "b": "s"}],
                    pa.struct([("a", pa.int64()), ("b", pa.string())])),
}

CASES = {**FIXED_SIZE, **BASE_BINARY, **NESTED}
CONDITIONS = {"mixed": COND, "all_true": COND_ALL_TRUE, "all_false": COND_ALL_FALSE,
              "all_null": COND_ALL_NULL}


@pytest.mark.parametrize("cond_name", CONDITIONS)
@pytest.mark.parametrize("family", CASES)
def test_if_else_like_arrow(family, cond_name):
    left, right = CASES[family]
    assert check_like_arrow("if_else", [CONDITIONS[cond_name], left, right]) > 0


# TestIfElseKernel: null values in both branches, all-null branches and empty input.
@pytest.mark.parametrize("family", CASES)
def test_if_else_all_null_branches(family):
    left, _ = CASES[family]
    nulls = pa.nulls(6, left.type)
    assert check_like_arrow("if_else", [COND, nulls, left]) > 0
    assert check_like_arrow("if_else", [COND, left, nulls]) > 0


@pytest.mark.parametrize("family", CASES)
def test_if_else_empty(family):
    left, right = CASES[family]
    assert check_like_arrow("if_else", [COND.slice(0, 0), left.slice(0, 0),
                                        right.slice(0, 0)]) > 0


@pytest.mark.parametrize("family", CASES)
def test_if_else_null_scalar_branch(family):
    left, _ = CASES[family]
    assert check_like_arrow("if_else", [COND, left, pa.nulls(1, left.type)[0]]) > 0
    assert check_like_arrow("if_else", [COND, pa.scalar(None, left.type), left]) > 0


# TestIfElseKernel/IfElseNull: the null type.
def test_if_else_null_type():
    assert check_like_arrow("if_else", [COND, pa.nulls(6), pa.nulls(6)]) > 0


def _dense_union(type_codes, offsets_children):
    types = pa.array(type_codes, pa.int8())
    offsets = pa.array(offsets_children[0], pa.int32())
    return pa.UnionArray.from_dense(types, offsets, offsets_children[1], ["i", "s"], [0, 1])


def _sparse_union(type_codes, children):
    return pa.UnionArray.from_sparse(pa.array(type_codes, pa.int8()), children, ["i", "s"], [0, 1])


# TestIfElseUnion: dense and sparse unions, with null children.
UNIONS = {
    "dense_union": (
        _dense_union([0, 1, 0, 1, 0, 1], ([0, 0, 1, 1, 2, 2],
                     [pa.array([1, None, 3]), pa.array(["a", "b", None])])),
        _dense_union([1, 1, 0, 0, 1, 0], ([0, 1, 0, 1, 2, 2],
                     [pa.array([7, 8, None]), pa.array(["x", None, "z"])])),
    ),
    "sparse_union": (
        _sparse_union([0, 1, 0, 1, 0, 1], [pa.array([1, 2, None, 4, 5, 6]),
                                          pa.array(["a", "b", "c", None, "e", "f"])]),
        _sparse_union([1, 0, 0, 1, 1, 0], [pa.array([7, None, 9, 10, 11, 12]),
                                          pa.array(["p", "q", "r", "s", None, "u"])]),
    ),
}

# TestIfElseDict: same dictionary, different dictionaries, dictionaries with null entries.
_DICT_INDICES_L = pa.array([0, 1, None, 2, 0, 1], pa.int32())
_DICT_INDICES_R = pa.array([2, None, 0, 1, 1, 0], pa.int32())
DICTIONARIES = {
    "same_dictionary": (
        pa.DictionaryArray.from_arrays(_DICT_INDICES_L, pa.array(["a", "b", "c"])),
        pa.DictionaryArray.from_arrays(_DICT_INDICES_R, pa.array(["a", "b", "c"])),
    ),
    "different_dictionaries": (
        pa.DictionaryArray.from_arrays(_DICT_INDICES_L, pa.array(["a", "b", "c"])),
        pa.DictionaryArray.from_arrays(_DICT_INDICES_R, pa.array(["c", "d", "a"])),
    ),
    "dictionaries_with_null_entries": (
        pa.DictionaryArray.from_arrays(_DICT_INDICES_L, pa.array(["a", None, "c"])),
        pa.DictionaryArray.from_arrays(_DICT_INDICES_R, pa.array([None, "d", "a"])),
    ),
    "dictionary_int_values": (
        pa.DictionaryArray.from_arrays(_DICT_INDICES_L, pa.array([1, None, 3], pa.int64())),
        pa.DictionaryArray.from_arrays(_DICT_INDICES_R, pa.array([3, 4, None], pa.int64())),
    ),
    "dictionary_decimal256": (
        pa.DictionaryArray.from_arrays(_DICT_INDICES_L, pa.array(
            [_d("1.5"), None, _d("3.25")], pa.decimal256(40, 2))),
        pa.DictionaryArray.from_arrays(_DICT_INDICES_R, pa.array(
            [_d("3.25"), _d("4.00"), None], pa.decimal256(40, 2))),
    ),
}

OTHER_CASES = {**UNIONS, **DICTIONARIES}

@pytest.mark.parametrize("family,cond_name",
                         [(f, c) for f in OTHER_CASES for c in CONDITIONS])
def test_if_else_unions_and_dictionaries_like_arrow(family, cond_name):
    left, right = OTHER_CASES[family]
    assert check_like_arrow("if_else", [CONDITIONS[cond_name], left, right]) > 0


@pytest.mark.parametrize("family", list(OTHER_CASES))
def test_if_else_unions_and_dictionaries_null_scalar(family):
    left, right = OTHER_CASES[family]
    assert check_like_arrow("if_else", [COND, left, pa.nulls(1, left.type)[0]]) > 0
    assert check_like_arrow("if_else", [COND, pa.nulls(6, right.type), right]) > 0
