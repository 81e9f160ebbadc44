"""The if_else chain gives exactly what Arrow's case_when kernel gives."""

import math

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution.case_chain import between_constants, case_when_chain, true_only

TYPES = {
    "int64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "float64": (pa.float64(), st.floats(allow_nan=True, allow_infinity=True)),
    "string": (pa.string(), st.text(max_size=5)),
    "bool": (pa.bool_(), st.booleans()),
    "date32": (pa.date32(), st.integers(-10_000, 10_000)),
}


@st.composite
def case_inputs(draw):
    type_, values = TYPES[draw(st.sampled_from(sorted(TYPES)))]
    n = draw(st.integers(1, 40))
    n_cases = draw(st.integers(1, 4))
    conds = [pa.array(draw(st.lists(st.none() | st.booleans(), min_size=n, max_size=n)),
                      pa.bool_()) for _ in range(n_cases)]
    cols = []
    for _ in range(n_cases + draw(st.integers(0, 1))):  # with or without an else
        if draw(st.booleans()):
            cols.append(pa.scalar(draw(st.none() | values), type_))
        else:
            cols.append(pa.array(draw(st.lists(st.none() | values, min_size=n, max_size=n)),
                                 type_))
    return pa.StructArray.from_arrays(conds, [f"c{i}" for i in range(n_cases)]), cols, type_


@settings(max_examples=200, deadline=None)
@given(case_inputs())
def test_chain_equals_arrow_case_when(inputs):
    struct, values, type_ = inputs
    expected = pc.case_when(struct, *values)
    got = case_when_chain(struct, values, type_)
    assert got.type == expected.type
    assert _same(got, expected), (got.to_pylist(), expected.to_pylist())


def _same(x: pa.Array, y: pa.Array) -> bool:
    """Equal values and validity; NaN equals NaN and -0.0 differs from 0.0 (small test data)."""
    def key(v):
        if isinstance(v, float):
            return "nan" if math.isnan(v) else (v, math.copysign(1.0, v))
        return v
    return [key(v) for v in x.to_pylist()] == [key(v) for v in y.to_pylist()]


def test_true_only_reads_null_as_false():
    mask = pa.array([True, None, False, True, None])
    assert true_only(mask).to_pylist() == [True, False, False, True, False]
    clean = pa.array([True, False])
    assert true_only(clean) is clean


def test_nested_values_fall_back_to_the_kernel():
    struct = pa.StructArray.from_arrays([pa.array([True, False])], ["c0"])
    lists = pa.array([[1], [2]])
    assert case_when_chain(struct, [lists], lists.type) is None


def test_large_nested_case_when_equals_acero_on_the_dense_path():
    """On 50k rows every branch is cheap, so the chain runs; Acero gives the same column."""
    import numpy as np
    from pyarrow import acero

    rng = np.random.default_rng(5)
    n = 50_000
    table = pa.table({"a": pa.array(rng.integers(0, 1000, n), mask=rng.random(n) < 0.1),
                      "b": pa.array(rng.integers(0, 1000, n)),
                      "c": pa.array(rng.integers(0, 10, n))})
    a, b, c = tk.field("a"), tk.field("b"), tk.field("c")
    expr = tk.case_when([(a < 100, tk.case_when([(b < 300, a * 2)], else_=b)),
                         (a < 600, c + 1)], else_=tk.literal(0))
    ours = tk.evaluate(expr, table)
    inner = pc.Expression._call("case_when", [
        pc.Expression._call("make_struct", [pc.field("b") < 300]), pc.field("a") * 2,
        pc.field("b")])
    reference = pc.Expression._call("case_when", [
        pc.Expression._call("make_struct", [pc.field("a") < 100, pc.field("a") < 600]),
        inner, pc.field("c") + 1, pc.scalar(0)])
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([reference], ["out"]))])
    theirs = plan.to_table().column("out")
    assert ours.combine_chunks().equals(theirs.combine_chunks())


CONSTANTS = [  # (type, then, else): 1 and 0 of number types cast the condition itself
    (pa.int8(), 1, 0), (pa.int64(), 1, 0), (pa.uint32(), 1, 0), (pa.float64(), 1.0, 0.0),
    (pa.float32(), 1.0, 0.0), (pa.float64(), 1.0, -0.0), (pa.int64(), 0, 1),
    (pa.int64(), 1, None), (pa.float64(), 2.5, float("nan")), (pa.string(), "é", ""),
    (pa.large_binary(), b"\xff", None), (pa.date32(), 3, -4), (pa.bool_(), True, False),
    (pa.decimal128(5, 2), None, None), (pa.null(), None, None),
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CONSTANTS), st.lists(st.none() | st.booleans(), min_size=1, max_size=40),
       st.integers(0, 7))
def test_a_case_between_two_constants_equals_arrow_case_when(constants, mask, start):
    """`case when c then K1 else K2 end`, the usual last step of a chain, taken or cast
    without if_else: Arrow's case_when values, -0.0 and NaN kept, nulls read as false."""
    type_, then, else_ = constants
    struct = pa.StructArray.from_arrays([pa.array(mask, pa.bool_()).slice(min(start, len(mask)))],
                                        ["c0"])
    values = [pa.scalar(then, type_), pa.scalar(else_, type_)]
    expected = pc.case_when(struct, *values)
    got = case_when_chain(struct, values, type_)
    assert got.type == expected.type
    assert got.null_count == expected.null_count
    assert _same(got, expected), (got.to_pylist(), expected.to_pylist())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), max_size=300), st.integers(0, 70), st.integers(0, 300),
       st.sampled_from([pa.int8(), pa.uint8(), pa.int16(), pa.int32(), pa.int64(),
                        pa.uint64(), pa.float32(), pa.float64()]))
def test_one_and_zero_between_constants_is_arrows_cast_of_the_mask(bits, start, length, type_):
    """`then 1 else 0` reads the condition's bits itself: the same values as Arrow's
    cast from bool, at any offset into the bitmap."""
    mask = pa.array(bits, pa.bool_()).slice(start, length)
    got = between_constants(mask, pa.scalar(1, type_), pa.scalar(0, type_), type_)
    assert got.equals(pc.cast(mask, type_))
    took = between_constants(mask, pa.scalar(7, type_), pa.scalar(3, type_), type_)
    assert took.equals(pc.if_else(mask, pa.scalar(7, type_), pa.scalar(3, type_)))
