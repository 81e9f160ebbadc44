"""Element-wise extremes over fixed-size binaries that start at an offset.

Arrow's kernel reads such an array from its buffer's start, not from its offset, so a
slice or a later batch of a chunked column came back as zero bytes; exprscope gives it
the values, as it gives them for the same array without an offset.
"""

import pyarrow as pa
import pytest

import toolkit as tk

VALUES = pa.array([None, b"zzz", b"abc", None, b"mmm"], pa.binary(3))


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@pytest.mark.parametrize("name", ["max_element_wise", "min_element_wise"])
def test_a_slice_and_a_later_batch_give_their_own_values(name, mode):
    whole = pa.table({"fb": VALUES})
    expected = tk.evaluate(tk.call(name, [tk.field("fb"), tk.literal(pa.scalar(b"b00",
                                                                              pa.binary(3)))]),
                           whole, mode=mode).to_pylist()
    for table, rows in ((whole.slice(2), slice(2, None)),
                        (pa.Table.from_batches(whole.to_batches(max_chunksize=2)), slice(None))):
        got = tk.evaluate(tk.call(name, [tk.field("fb"), tk.literal(pa.scalar(
            b"b00", pa.binary(3)))]), table, mode=mode).to_pylist()
        assert got == expected[rows], (name, got)
    sliced = whole.slice(2)
    same = tk.evaluate(tk.call(name, [tk.field("fb"), tk.field("fb")]), sliced, mode=mode)
    assert same.to_pylist() == [b"abc", None, b"mmm"]
