"""SelectionVector: conversions, set algebra and validation a user relies on."""

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.errors import ExprscopeError
from toolkit.execution import SelectionError, SelectionVector

masks = st.lists(st.one_of(st.booleans(), st.none()), min_size=0, max_size=200)


@given(masks)
def test_mask_and_indices_round_trip(values):
    sel = SelectionVector.from_mask(pa.array(values, pa.bool_()))
    expected = [i for i, v in enumerate(values) if v]  # a null counts as not selected
    assert sel.to_pylist() == expected
    assert sel.count == len(expected)
    assert sel.length == len(values)
    again = SelectionVector(sel.indices, len(values))
    assert again.mask.to_pylist() == [bool(v) for v in values]
    if values:
        assert sel.density == pytest.approx(len(expected) / len(values))


@given(st.integers(0, 120).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.integers(0, max(n - 1, 0)), max_size=n),
                        st.sets(st.integers(0, max(n - 1, 0)), max_size=n))))
def test_set_algebra_matches_python_sets(case):
    n, xs, ys = case
    xs = {x for x in xs if x < n}
    ys = {y for y in ys if y < n}
    a = SelectionVector(sorted(xs), n)
    b = SelectionVector(sorted(ys), n)
    assert a.intersect(b).to_pylist() == sorted(xs & ys)
    assert a.union(b).to_pylist() == sorted(xs | ys)
    assert a.complement().to_pylist() == sorted(set(range(n)) - xs)


@given(st.integers(0, 120).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.booleans(), min_size=n, max_size=n),
                        st.booleans())))
def test_a_selection_held_as_a_mask_or_as_indices_answers_alike(case):
    """What a special form asks of the rows its branches get, on both representations."""
    n, xs, ys, as_mask = case
    x_rows = {i for i, v in enumerate(xs) if v}
    y_rows = {i for i, v in enumerate(ys) if v}
    a = (SelectionVector.from_mask(pa.array(xs, pa.bool_())) if as_mask
         else SelectionVector(sorted(x_rows), n))
    b = SelectionVector(sorted(y_rows), n)
    recorded = a.as_recorded()  # what the tracer keeps: as held, nothing converted
    assert recorded.type == (pa.bool_() if as_mask else pa.int64())
    assert (a.count, a.is_all, len(a)) == (len(x_rows), len(x_rows) == n, len(x_rows))
    assert a.and_mask(b.mask).to_pylist() == sorted(x_rows & y_rows)
    assert a.minus(b).to_pylist() == sorted(x_rows - y_rows)
    assert a.equals(SelectionVector(sorted(x_rows), n))
    local = [i % 2 == 0 for i in range(len(x_rows))]  # every other row of the selection
    picked = a.scatter_local(pa.array(local, pa.bool_()))
    assert picked.to_pylist() == sorted(x_rows)[::2] and picked.length == n
    assert a.compose(SelectionVector(
        list(range(0, len(x_rows), 2)), len(x_rows))).to_pylist() == sorted(x_rows)[::2]


def test_compose_selects_within_a_selection():
    outer = SelectionVector([1, 3, 5, 7], 10)
    inner = outer.compose(pa.array([0, 2], pa.int64()))
    assert inner.to_pylist() == [1, 5]
    assert inner.length == 10


def test_gather_takes_the_selected_rows():
    sel = SelectionVector([0, 2], 3)
    assert sel.gather(pa.array(["x", "y", "z"])).to_pylist() == ["x", "z"]
    with pytest.raises(SelectionError, match="4-row array"):
        sel.gather(pa.array([1, 2, 3, 4]))


def test_all_and_none():
    assert SelectionVector.all(4).is_all
    assert SelectionVector.none(4).count == 0
    assert SelectionVector.none(4).mask.to_pylist() == [False] * 4


@pytest.mark.parametrize("indices, length, message", [
    ([2, 1], 5, "sorted and distinct"),
    ([1, 1], 5, "sorted and distinct"),
    ([0, 5], 5, r"within \[0, 5\)"),
    ([-1], 5, r"within \[0, 5\)"),
    (pa.array([0, None], pa.int64()), 5, "nulls"),
    (pa.array([0.5]), 5, "integers"),
])
def test_bad_indices_are_refused_with_the_reason(indices, length, message):
    with pytest.raises(SelectionError, match=message) as info:
        SelectionVector(indices, length)
    assert isinstance(info.value, ExprscopeError)


def test_bad_masks_are_refused():
    with pytest.raises(SelectionError, match="boolean"):
        SelectionVector.from_mask(pa.array([1, 0]))
    with pytest.raises(SelectionError, match="3 rows but the batch has 4"):
        SelectionVector.from_mask(pa.array([True, False, True]), length=4)
    with pytest.raises(SelectionError, match="different batches"):
        SelectionVector([0], 3).union(SelectionVector([0], 4))


@given(masks, st.integers(0, 20), st.booleans())
def test_filled_replaces_nulls_as_arrows_fill_null_does(values, start, fill):
    from toolkit.execution.selection import filled

    whole = pa.array(values, pa.bool_())
    mask = whole.slice(min(start, len(values)))  # a slice: the bitmaps start at an offset
    got = filled(mask, fill)
    assert got.null_count == 0
    assert got.to_pylist() == pa.compute.fill_null(mask, fill).to_pylist()
