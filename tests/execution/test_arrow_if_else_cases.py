"""Arrow's own if_else test cases (cpp/src/arrow/compute/kernels/scalar_if_else_test.cc).

Each case is Arrow's (condition, left, right, expected) as written in its tests
(`CheckWithDifferentShapes`): exprscope must give the expected array in lazy and
eager mode, and, through `check_like_arrow`, agree with pyarrow's kernel when the
inputs are sliced, chunked or scalars, as Arrow's helper also checks.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import toolkit as tk
from tests.arrow_oracle import check_like_arrow

T, F, N = True, False, None

# TestIfElsePrimitive.IfElseFixedSize: (cond, left, right, expected)
FIXED_SIZE = [
    ([T, T, T, F], [1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 8]),
    ([T, T, T, F], [1, 2, 3, 4], [5, 6, 7, N], [1, 2, 3, N]),
    ([T, T, T, F], [1, 2, N, 4], [5, 6, 7, N], [1, 2, N, N]),
    ([T, T, T, F], [1, 2, N, 4], [5, 6, 7, 8], [1, 2, N, 8]),
    ([N, T, T, F], [1, 2, N, 4], [5, 6, 7, 8], [N, 2, N, 8]),
    ([N, T, T, F], [1, 2, N, 4], [5, 6, 7, N], [N, 2, N, N]),
    ([N, T, T, F], [1, 2, 3, 4], [5, 6, 7, N], [N, 2, 3, N]),
    ([N, T, T, F], [1, 2, 3, 4], [5, 6, 7, 8], [N, 2, 3, 8]),
]
# NumericBasedTypes of the same test suite (MonthIntervalType has no pyarrow array type)
NUMERIC_BASED = [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(), pa.int8(), pa.int16(),
                 pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.date32(), pa.date64(),
                 pa.time32("s"), pa.time64("us"), pa.timestamp("s")]

# TestIfElseKernel.IfElseBoolean
BOOLEAN = [
    ([T, T, T, F], [F, F, F, F], [T, T, T, T], [F, F, F, T]),
    ([T, T, T, F], [F, F, F, F], [T, T, T, N], [F, F, F, N]),
    ([T, T, T, F], [F, F, N, F], [T, T, T, N], [F, F, N, N]),
    ([T, T, T, F], [F, F, N, F], [T, T, T, T], [F, F, N, T]),
    ([N, T, T, F], [F, F, N, F], [T, T, T, T], [N, F, N, T]),
    ([N, T, T, F], [F, F, N, F], [T, T, T, N], [N, F, N, N]),
    ([N, T, T, F], [F, F, F, F], [T, T, T, N], [N, F, F, N]),
    ([N, T, T, F], [F, F, F, F], [T, T, T, T], [N, F, F, T]),
]

# TestIfElseBaseBinary.IfElseBaseBinary, over Arrow's BinaryTypes
BASE_BINARY = [
    ([T, T, T, F], ["a", "ab", "abc", "abcd"], ["lmno", "lmn", "lm", "l"], ["a", "ab", "abc", "l"]),
    ([T, T, T, F], ["a", "ab", "abc", "abcd"], ["lmno", "lmn", "lm", N], ["a", "ab", "abc", N]),
    ([T, T, T, F], ["a", "ab", N, "abcd"], ["lmno", "lmn", "lm", N], ["a", "ab", N, N]),
    ([N, T, T, F], ["a", "ab", N, "abcd"], ["lmno", "lmn", "lm", N], [N, "ab", N, N]),
]
BINARY_TYPES = [pa.binary(), pa.large_binary(), pa.utf8(), pa.large_utf8()]


def _typed(values, t: pa.DataType) -> pa.Array:
    if pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t):
        return pa.array(values, pa.int32() if t.bit_width == 32 else pa.int64()).cast(t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array([v.encode() if v is not None else None for v in values], t)
    return pa.array(values, t)


def _check(cond, left, right, expected, t):
    cond = pa.array(cond, pa.bool_())
    left, right, expected = _typed(left, t), _typed(right, t), _typed(expected, t)
    table = pa.table({"c": cond, "l": left, "r": right})
    for mode in ("lazy", "eager"):
        got = tk.evaluate(tk.if_else(tk.field("c"), tk.field("l"), tk.field("r")), table,
                          mode=mode)
        assert got.type == t and got.to_pylist() == expected.to_pylist(), mode
    check_like_arrow("if_else", [cond, left, right])


@pytest.mark.parametrize("t", NUMERIC_BASED, ids=str)
@pytest.mark.parametrize("case", FIXED_SIZE)
def test_if_else_fixed_size(case, t):
    _check(*case, t)


@pytest.mark.parametrize("case", BOOLEAN)
def test_if_else_boolean(case):
    _check(*case, pa.bool_())


@pytest.mark.parametrize("t", BINARY_TYPES, ids=str)
@pytest.mark.parametrize("case", BASE_BINARY)
def test_if_else_base_binary(case, t):
    _check(*case, t)


def test_if_else_null():
    _check([N, N, N, N], [N, N, N, N], [N, N, N, N], [N, N, N, N], pa.null())


def test_if_else_multi_type():
    # IfElseMultiType: int32 and float32 branches meet as float32
    table = pa.table({"c": [T, T, T, F], "l": pa.array([1, 2, 3, 4], pa.int32()),
                      "r": pa.array([5, 6, 7, 8], pa.float32())})
    got = tk.evaluate(tk.if_else(tk.field("c"), tk.field("l"), tk.field("r")), table)
    assert got.type == pa.float32() and got.to_pylist() == [1, 2, 3, 8]


@pytest.mark.parametrize("given, best", [  # IfElseDispatchBest
    ((pa.bool_(), pa.int32(), pa.int32()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.null()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.null(), pa.int32()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.int8()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.int16()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.int64()), (pa.int64(), pa.int64())),
    ((pa.bool_(), pa.int32(), pa.uint8()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.uint16()), (pa.int32(), pa.int32())),
    ((pa.bool_(), pa.int32(), pa.uint32()), (pa.int64(), pa.int64())),
    ((pa.bool_(), pa.int32(), pa.uint64()), (pa.int64(), pa.int64())),
    ((pa.bool_(), pa.uint8(), pa.uint8()), (pa.uint8(), pa.uint8())),
    ((pa.bool_(), pa.uint8(), pa.uint16()), (pa.uint16(), pa.uint16())),
    ((pa.bool_(), pa.int32(), pa.float32()), (pa.float32(), pa.float32())),
    ((pa.bool_(), pa.float32(), pa.int64()), (pa.float32(), pa.float32())),
    ((pa.bool_(), pa.float64(), pa.int32()), (pa.float64(), pa.float64())),
    ((pa.null(), pa.uint8(), pa.int8()), (pa.int16(), pa.int16())),
])
def test_if_else_dispatch_best(given, best):
    schema = pa.schema([(f"x{i}", t) for i, t in enumerate(given)])
    bound = tk.if_else(tk.field("x0"), tk.field("x1"), tk.field("x2")).bind(schema)
    assert (bound.args[1].type, bound.args[2].type) == best
    assert bound.type == best[0]


def test_if_else_fixed_size_random_like_arrow():
    # IfElseFixedSizeRand: 64 true, 64 false (the all-true / all-false word paths), then
    # random conditions with 1% nulls, over 1,000 rows; the rule is Arrow's builder loop

    rng = np.random.default_rng(0)
    n = 1000
    cond = pa.array([T] * 64 + [F] * 64 + [None if rng.random() < 0.01 else bool(rng.integers(2))
                                           for _ in range(n - 128)])
    left = pa.array([None if rng.random() < 0.01 else int(x) for x in rng.integers(0, 1e6, n)])
    right = pa.array([None if rng.random() < 0.01 else int(x) for x in rng.integers(0, 1e6, n)])
    expected = [None if c is None else (lv if c else rv) for c, lv, rv in
                zip(cond.to_pylist(), left.to_pylist(), right.to_pylist())]
    table = pa.table({"c": cond, "l": left, "r": right})
    for mode in ("lazy", "eager"):
        assert tk.evaluate(tk.if_else(tk.field("c"), tk.field("l"), tk.field("r")), table,
                           mode=mode).to_pylist() == expected
    check_like_arrow("if_else", [cond, left, right])
