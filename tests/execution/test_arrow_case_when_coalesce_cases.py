"""Arrow's case_when and coalesce test cases (scalar_if_else_test.cc), on exprscope.

The tables below are Arrow's: `TestCaseWhen.Decimal` / `FixedSizeBinary` (the same
table for each type: conditions as scalars and arrays, values as scalars and
arrays, with and without else) and `TestCoalesceNumeric.FixedSize`,
`TestCoalesceBinary.Basics`, `TestCoalesce.Boolean` / `Null`. Each expected array is
Arrow's; exprscope must give it in lazy and eager mode, and `check_like_arrow`
holds the same call to pyarrow in sliced, chunked and scalar layouts.
"""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

import toolkit as tk
from tests.arrow_oracle import check_like_arrow

T, F, N = True, False, None
COND1, COND2 = [T, T, N, N], [T, F, T, N]

# TestCaseWhen: (conditions, values, expected); names are the test's own
# s1/s2: scalar1/scalar2, v1/v2/vn: values1/values2/values_null, sn: scalar_null
CASE_WHEN = [
    ([], ["v1"], "v1"), ([], ["vn"], "vn"),
    ([T], ["v1"], "v1"), ([F], ["v1"], "vn"), ([N], ["v1"], "vn"),
    ([T], ["v1", "v2"], "v1"), ([F], ["v1", "v2"], "v2"), ([N], ["v1", "v2"], "v2"),
    ([T, T], ["v1", "v2"], "v1"), ([F, F], ["v1", "v2"], "vn"), ([T, F], ["v1", "v2"], "v1"),
    ([F, T], ["v1", "v2"], "v2"), ([N, T], ["v1", "v2"], "v2"),
    ([F, F], ["v1", "v2", "v2"], "v2"),
    ("c1c2", ["s1", "s2"], ["s1", "s1", "s2", None]),
    ("c1", ["sn"], "vn"),
    ("c1", ["sn", "s1"], [None, None, "s1", "s1"]),
    ("c1c2", ["s1", "s2", "s1"], ["s1", "s1", "s2", "s1"]),
    ("c1c2", ["v1", "v2"], [0, None, None, None]),
    ("c1c2", ["v1", "v2", "v1"], [0, None, None, 3]),
    ("c1c2", ["vn", "v2", "v1"], [None, None, None, 3]),
]

TYPES = {  # type: (scalar1, scalar2, values1, values2)
    "decimal128(3, 2)": (pa.decimal128(3, 2), "1.23", "2.34", ["3.45", None, "5.67", "6.78"],
                         ["7.89", "8.90", None, "1.01"]),
    "decimal256(3, 2)": (pa.decimal256(3, 2), "1.23", "2.34", ["3.45", None, "5.67", "6.78"],
                         ["7.89", "8.90", None, "1.01"]),
    "fixed_size_binary(3)": (pa.binary(3), "abc", "bcd", ["cde", None, "def", "efg"],
                             ["fgh", "ghi", None, "hij"]),
}


def _value(t, v):
    if v is None:
        return None
    return Decimal(v) if pa.types.is_decimal(t) else v.encode()


def _inputs(type_name):
    t, s1, s2, v1, v2 = TYPES[type_name]
    scalars = {"s1": pa.scalar(_value(t, s1), t), "s2": pa.scalar(_value(t, s2), t),
               "sn": pa.scalar(None, t)}
    arrays = {"v1": pa.array([_value(t, v) for v in v1], t),
              "v2": pa.array([_value(t, v) for v in v2], t), "vn": pa.nulls(4, t)}
    return t, scalars, arrays


def _conditions(spec):
    if spec == "c1c2":
        return [pa.array(COND1), pa.array(COND2)]
    if spec == "c1":
        return [pa.array(COND1)]
    return [pa.scalar(c, pa.bool_()) for c in spec]


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("case", CASE_WHEN, ids=lambda c: f"{c[0]}-{'/'.join(c[1])}")
def test_case_when(type_name, case):
    spec, names, expected = case
    t, scalars, arrays = _inputs(type_name)
    conds = _conditions(spec)
    values = [scalars.get(n) or arrays[n] for n in names]
    if isinstance(expected, str):
        want = arrays[expected]
    else:  # positions of values1 (ints), scalar names, or nulls
        v1 = arrays["v1"].to_pylist()
        want = pa.array([v1[e] if isinstance(e, int) else
                         (scalars[e].as_py() if e else None) for e in expected], t)
    table = pa.table({f"k{i}": (c if isinstance(c, pa.Array) else pa.repeat(c, 4))
                      for i, c in enumerate(conds)} | {"_": pa.nulls(4)})
    conditions = [tk.field(f"k{i}") for i in range(len(conds))]
    operands = [tk.literal(v) if isinstance(v, pa.Scalar) else None for v in values]
    for i, v in enumerate(values):
        if operands[i] is None:
            table = table.append_column(f"v{i}", v)
            operands[i] = tk.field(f"v{i}")
    cases = list(zip(conditions, operands[:len(conditions)]))
    else_ = operands[len(conditions)] if len(operands) > len(conditions) else None
    # Arrow's MakeStruct({}) is a struct scalar with no fields: no case, only the else
    expr = (tk.case_when(cases, else_=else_) if cases else
            tk.call("case_when", [tk.literal(pa.scalar({}, pa.struct([]))), *operands]))
    for mode in ("lazy", "eager"):
        got = tk.evaluate(expr, table, mode=mode)
        got = got if not isinstance(got, pa.Scalar) else pa.chunked_array([pa.repeat(got, 4)])
        assert got.to_pylist() == want.to_pylist(), mode
    if cases:
        struct = pa.StructArray.from_arrays(
            [c if isinstance(c, pa.Array) else pa.repeat(c, 4) for c in conds],
            [f"k{i}" for i in range(len(conds))])
        check_like_arrow("case_when", [struct, *values])


# TestCoalesceNumeric.FixedSize and friends: (arguments, expected)
COALESCE_NUMERIC = [
    (["vn"], "vn"), (["vn", "s1"], [20, 20, 20, 20]), (["vn", "v1"], "v1"), (["vn", "v2"], "v2"),
    (["v1", "vn"], "v1"), (["v2", "vn"], "v2"), (["sn", "v1"], "v1"), (["v1", "sn"], "v1"),
    (["v2", "v1", "vn"], "v2"), (["v1", "s1"], [20, 10, 11, 12]), (["v1", "v2"], [13, 10, 11, 12]),
    (["v1", "v2", "v3"], [13, 10, 11, 12]), (["s1", "v1"], [20, 20, 20, 20]),
]
NUMERIC_VALUES = {"s1": 20, "v1": [N, 10, 11, 12], "v2": [13, 14, 15, 16], "v3": [17, 18, 19, N]}
NUMERIC_TYPES = [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(), pa.int8(), pa.int16(),
                 pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.date32(), pa.date64(),
                 pa.time32("s"), pa.time64("us"), pa.timestamp("s")]
BINARY_VALUES = {"s1": "a", "v1": [N, "bc", "def", "ghij"], "v2": ["klmno", "p", "qr", "stu"],
                 "v3": ["vwxy", "zabc", "d", N]}
BINARY_EXPECTED = {"[20, 20, 20, 20]": ["a", "a", "a", "a"],
                   "[20, 10, 11, 12]": ["a", "bc", "def", "ghij"],
                   "[13, 10, 11, 12]": ["klmno", "bc", "def", "ghij"]}


def _typed(values, t):
    if pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t):
        base = pa.int32() if t.bit_width == 32 else pa.int64()
        return pa.array(values, base).cast(t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array([v.encode() if v is not None else None for v in values], t)
    return pa.array(values, t)


def _coalesce_case(t, values, args, expected):
    arrays = {k: _typed(v, t) for k, v in values.items() if k != "s1"}
    arrays["vn"] = pa.nulls(4, t)
    scalars = {"s1": _typed([values["s1"]], t)[0], "sn": pa.nulls(1, t)[0]}
    operands, table = [], pa.table({"_": pa.nulls(4)})
    for i, name in enumerate(args):
        if name in scalars:
            operands.append(tk.literal(scalars[name]))
        else:
            table = table.append_column(f"a{i}", arrays[name])
            operands.append(tk.field(f"a{i}"))
    want = arrays[expected] if isinstance(expected, str) else _typed(expected, t)
    for mode in ("lazy", "eager"):
        got = tk.evaluate(tk.coalesce(*operands), table, mode=mode)
        assert got.to_pylist() == want.to_pylist(), (mode, args)
    check_like_arrow("coalesce", [scalars[n] if n in scalars else arrays[n] for n in args])


@pytest.mark.parametrize("t", NUMERIC_TYPES, ids=str)
@pytest.mark.parametrize("case", COALESCE_NUMERIC, ids=lambda c: "/".join(c[0]))
def test_coalesce_numeric(case, t):
    _coalesce_case(t, NUMERIC_VALUES, *case)


@pytest.mark.parametrize("t", [pa.binary(), pa.large_binary(), pa.utf8(), pa.large_utf8()],
                         ids=str)
@pytest.mark.parametrize("case", COALESCE_NUMERIC, ids=lambda c: "/".join(c[0]))
def test_coalesce_binary(case, t):
    args, expected = case
    if not isinstance(expected, str):
        expected = BINARY_EXPECTED[str(expected)]
    _coalesce_case(t, BINARY_VALUES, args, expected)


def test_coalesce_boolean_and_null():
    values = {"s1": F, "v1": [N, T, F, T], "v2": [T, F, T, F], "v3": [F, T, F, N]}
    for args, expected in [(["vn", "s1"], [F, F, F, F]), (["v1", "s1"], [F, T, F, T]),
                           (["v1", "v2"], [T, T, F, T]), (["v1", "v2", "v3"], [T, T, F, T]),
                           (["s1", "v1"], [F, F, F, F]), (["v2", "v1", "vn"], "v2")]:
        _coalesce_case(pa.bool_(), values, args, expected)
    nulls = pa.nulls(4)
    table = pa.table({"a": nulls})
    assert tk.evaluate(tk.coalesce(tk.field("a"), tk.literal(None)), table).to_pylist() == [N] * 4
