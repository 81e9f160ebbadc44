"""pyarrow's own tests of case_when and fill_null (python/pyarrow/tests/test_compute.py).

`fill_null(x, v)` is Arrow's `coalesce(x, v)`; each case runs in exprscope (lazy and
eager, columns and literals, one chunk and several) and is compared with what
pyarrow's `fill_null` / `case_when` give for the same inputs.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk

NUMERICAL = [pa.int8(), pa.int16(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint64(),
             pa.float32(), pa.float64()]


def _both_modes(expr, data):
    results = [tk.evaluate(expr, data, mode=mode) for mode in ("lazy", "eager")]
    assert results[0].equals(results[1])
    return results[0]


def test_case_when():
    # test_case_when: make_struct of two condition columns, two values, an else
    conds = pc.make_struct(pa.array([True, False, None]), pa.array([False, True, None]),
                           field_names=["a", "b"])
    table = pa.table({"c": conds, "x": [1, 2, 3], "y": [11, 12, 13]})
    expected = pc.case_when(conds, table["x"], table["y"])
    assert expected.to_pylist() == [1, 12, None]
    got = _both_modes(tk.call("case_when", [tk.field("c"), tk.field("x"), tk.field("y")]), table)
    assert got.to_pylist() == [1, 12, None]
    built = tk.case_when([(tk.field("c", "a"), tk.field("x")), (tk.field("c", "b"),
                                                                tk.field("y"))])
    assert _both_modes(built, table).to_pylist() == [1, 12, None]


def test_fill_null():
    # test_fill_null: strings, large binary, a null fill, the null type
    cases = [
        (pa.array(["a", "bb", None]), pa.scalar("ccc"), ["a", "bb", "ccc"]),
        (pa.array([b"a", b"bb", None], pa.large_binary()), pa.scalar(b"ccc", pa.large_binary()),
         [b"a", b"bb", b"ccc"]),
        (pa.array(["a", "bb", None]), pa.scalar(None, pa.utf8()), ["a", "bb", None]),
        (pa.nulls(4), pa.scalar(None), [None] * 4),
    ]
    for array, fill, expected in cases:
        assert pc.fill_null(array, fill).to_pylist() == expected
        got = _both_modes(tk.coalesce(tk.field("x"), tk.literal(fill)), pa.table({"x": array}))
        assert got.to_pylist() == expected and got.type == array.type


def test_fill_null_with_an_array_of_another_length_is_an_error():
    table = pa.table({"x": pa.array([1, 2, None, 4], pa.int8())})
    with pytest.raises(pa.ArrowInvalid, match="same length"):
        table["x"].fill_null(pa.array([5], pa.int8()))
    with pytest.raises(tk.ExprscopeError):
        tk.evaluate(tk.coalesce(tk.field("x"), tk.literal(pa.array([5], pa.int8()))), table)


@pytest.mark.parametrize("t", NUMERICAL, ids=str)
def test_fill_null_array(t):
    table = pa.table({"x": pa.array([1, 2, None, 4], t), "f": pa.array([5, 6, 7, 8], t)})
    expected = pa.array([1, 2, 7, 4], t)
    assert table["x"].fill_null(table["f"]).equals(pa.chunked_array([expected]))
    got = _both_modes(tk.coalesce(tk.field("x"), tk.field("f")), table)
    assert got.equals(pa.chunked_array([expected]))


@pytest.mark.parametrize("t", NUMERICAL, ids=str)
def test_fill_null_chunked_array(t):
    fill = pa.scalar(5, t)
    for chunks, expected in [
        ([[None, 2, 3, 4]], [[5, 2, 3, 4]]),
        ([[1, 2], [], [None, 4]], [[1, 2], [], [5, 4]]),
    ]:
        column = pa.chunked_array([pa.array(c, t) for c in chunks], t)
        want = pa.chunked_array([pa.array(c, t) for c in expected], t)
        assert column.fill_null(fill).equals(want)
        got = _both_modes(tk.coalesce(tk.field("x"), tk.literal(fill)), pa.table({"x": column}))
        assert got.equals(want) and [len(c) for c in got.chunks] == [len(c) for c in want.chunks]
