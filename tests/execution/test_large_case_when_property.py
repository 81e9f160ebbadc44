"""On batches large enough for the funnel and the in-place merge, a case_when of any
number of cases gives Arrow's own case_when kernel's answer: values that are columns,
literals (null ones too) or computed (on their branch's rows only), conditions with nulls, every fixed-width type
the merge writes in place and strings beside them."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution.dense_path import MIN_DENSE_ROWS

ROWS = 2 * MIN_DENSE_ROWS + 123
TYPES = [pa.int8(), pa.int32(), pa.int64(), pa.float32(), pa.float64(),
         pa.timestamp("us"), pa.date32(), pa.string()]


def _table(seed: int, value_type: pa.DataType) -> pa.Table:
    rng = np.random.default_rng(seed)
    k = pa.array(rng.integers(0, 100, ROWS), mask=rng.random(ROWS) < 0.1)
    columns = {"k": k}
    for name in ("v", "w"):
        raw = pa.array(rng.integers(0, 100, ROWS), mask=rng.random(ROWS) < 0.2)
        columns[name] = _as_type(raw, value_type)
    return pa.table(columns)


def _as_type(ints: pa.Array, value_type: pa.DataType) -> pa.Array:
    """Small integers as values of `value_type` (a date32 counts days, from int32)."""
    if value_type == pa.date32():
        ints = ints.cast(pa.int32())
    return ints.cast(value_type)


def _seven(value_type: pa.DataType) -> pa.Scalar:
    return _as_type(pa.array([7], pa.int64()), value_type)[0]


@st.composite
def case_whens(draw):
    value_type = draw(st.sampled_from(TYPES))
    n = draw(st.integers(1, 12))
    thresholds = sorted(draw(st.lists(st.integers(0, 100), min_size=n, max_size=n)))
    values = []
    for _ in range(n + 1):
        kind = draw(st.sampled_from(["v", "w", "literal", "null", "computed", "coalesce"]))
        if kind in ("v", "w"):
            values.append(tk.field(kind))
        elif kind == "computed":  # compact: computed on its branch's rows only
            values.append(tk.if_else(tk.call("greater", [tk.field("k"), tk.literal(50)]),
                                     tk.field("v"), tk.field("w")))
        elif kind == "coalesce":
            values.append(tk.coalesce([tk.field("w"), tk.field("v")]))
        elif kind == "null":
            values.append(tk.literal(None, value_type))
        else:
            values.append(tk.literal(_seven(value_type)))
    with_else = draw(st.booleans())
    return value_type, thresholds, values, with_else, draw(st.integers(0, 2**16))


@settings(max_examples=60, deadline=None)
@given(case_whens())
def test_a_large_case_when_equals_arrows_kernel(case):
    value_type, thresholds, values, with_else, seed = case
    table = _table(seed, value_type)
    whens = [(tk.call("less", [tk.field("k"), tk.literal(t)]), v)
             for t, v in zip(thresholds, values)]
    expr = tk.case_when(whens, else_=values[-1] if with_else else None)
    got = tk.evaluate(expr, table)
    k = table["k"]
    conds = [pc.less(k, t) for t in thresholds]
    struct = pc.make_struct(*conds, field_names=[str(i) for i in range(len(conds))])

    def arrow_value(node):
        if node.kind == "field":
            return table[node.ref.name]
        if node.kind == "literal":
            return node.value.cast(value_type)
        if node.name == "coalesce":
            return pc.coalesce(table["w"], table["v"])
        return pc.if_else(pc.greater(k, 50), table["v"], table["w"])

    args = [arrow_value(v) for v in values[:len(thresholds)]]
    if with_else:
        args.append(arrow_value(values[-1]))
    expected = pc.case_when(struct, *args)
    assert got.type == expected.type
    assert got.equals(expected.cast(got.type)), str(expr)[:300]
