"""Gather/scatter helpers against plain Python references."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.execution.gather_scatter import (
    merge_branches,
    null_out_unselected,
    overlay,
    placed,
    spread,
)
from toolkit.execution.selection import SelectionVector

values = st.one_of(st.none(), st.integers(-50, 50))


@st.composite
def partitions(draw):
    """A length, and disjoint sorted position sets with a value (array or scalar) for each."""
    n = draw(st.integers(1, 80))
    owner = draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n))  # -1: no branch
    parts = []
    for b in range(3):
        pos = [i for i, o in enumerate(owner) if o == b]
        if draw(st.booleans()):
            vals = draw(st.lists(values, min_size=len(pos), max_size=len(pos)))
            parts.append((pos, pa.array(vals, pa.int64())))
        else:
            parts.append((pos, pa.scalar(draw(values), pa.int64())))
    return n, parts


@given(partitions())
def test_merge_branches_puts_every_value_at_its_row(case):
    n, parts = case
    expected = [None] * n
    for pos, v in parts:
        for j, i in enumerate(pos):
            expected[i] = v.as_py() if isinstance(v, pa.Scalar) else v[j].as_py()
    arrow_parts = [(pa.array(p, pa.int64()), v) for p, v in parts]
    out = merge_branches(n, arrow_parts, pa.int64())
    assert out.type == pa.int64()
    assert out.to_pylist() == expected


@given(st.lists(values, min_size=1, max_size=60), st.data())
def test_overlay_replaces_masked_rows_in_order(base, data):
    mask = data.draw(st.lists(st.booleans(), min_size=len(base), max_size=len(base)))
    repl = data.draw(st.lists(values, min_size=sum(mask), max_size=sum(mask)))
    out = overlay(pa.array(base, pa.int64()), pa.array(mask), pa.array(repl, pa.int64()))
    it = iter(repl)
    assert out.to_pylist() == [next(it) if m else b for b, m in zip(base, mask)]


def test_overlay_works_for_structs_too():
    base = pa.array([{"x": 1}, {"x": 2}, {"x": 3}])
    out = overlay(base, pa.array([False, True, True]), pa.array([{"x": 20}, {"x": 30}]))
    assert out.to_pylist() == [{"x": 1}, {"x": 20}, {"x": 30}]


@given(st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=1, max_size=50), st.data())
def test_null_out_unselected_only_touches_unselected_rows(strings, data):
    mask = data.draw(st.lists(st.booleans(), min_size=len(strings), max_size=len(strings)))
    start = data.draw(st.sampled_from([0, 0, 8]))
    arr = pa.array(["pad"] * start + strings).slice(start)
    out = null_out_unselected(arr, pa.array(mask))
    assert out.to_pylist() == [s if m else None for s, m in zip(strings, mask)]


def test_masked_divisor_never_raises_on_unselected_rows():
    a = pa.array([1, 0, 2, 0], pa.int64())
    masked = null_out_unselected(a, pa.array([True, False, True, False]))
    assert pc.divide(pa.array([10, 10, 10, 10]), masked).to_pylist() == [10, None, 5, None]


@given(partitions(), st.data())
def test_merge_parts_with_a_full_base_equals_merge_branches(case, data):
    from toolkit.execution.gather_scatter import merge_parts
    from toolkit.execution.selection import SelectionVector

    n, parts = case
    expected = merge_branches(n, [(pa.array(p, pa.int64()), v) for p, v in parts], pa.int64())
    full_index = data.draw(st.integers(0, len(parts) - 1))
    merged = []
    for i, (pos, value) in enumerate(parts):
        rows = SelectionVector(pa.array(pos, pa.int64()), n)
        if i == full_index and isinstance(value, pa.Array):
            spread = [None] * n  # the same values laid over the whole domain, garbage elsewhere
            for j, p in enumerate(pos):
                spread[p] = value[j].as_py()
            merged.append((rows, pa.array([x if x is not None else -999 if k not in pos else None
                                           for k, x in enumerate(spread)], pa.int64()), True))
        else:
            merged.append((rows, value, False))
    out = merge_parts(n, merged, pa.int64())
    if isinstance(out, pa.Scalar):
        out = pa.repeat(out, n)
    assert out.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("density", [0.0, 0.1, 0.6, 1.0])
def test_placed_values_read_under_their_mask_are_the_scattered_ones(density):
    rng = np.random.default_rng(11)
    n = 5_000
    mask = pa.array(rng.random(n) < density)
    rows = SelectionVector.from_mask(mask)
    values = pa.array(rng.random(rows.count), mask=rng.random(rows.count) < 0.2)
    at_rows = pc.if_else(mask, placed(values, rows, n), -1.0)
    assert at_rows.equals(pc.if_else(mask, spread(values, rows.indices, n), -1.0))
