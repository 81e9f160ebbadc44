"""choose(index, v0, v1, ...): a lazy special form; only the value each row picks runs.

Cases after Arrow's `TestChooseKernel` (scalar_if_else_test.cc): every flat type
family, null and out-of-range indices, scalar indices and values; pyarrow's
kernel (or Acero, for literals) is the oracle in every layout and both modes.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from tests.arrow_oracle import check_like_arrow
from tests.execution.test_conditionals_every_type import FAMILIES

FLAT = [name for name in FAMILIES if name not in {
    "list", "large_list", "list_view", "fixed_size_list", "map", "struct", "sparse_union",
    "dense_union"}]
INDICES = pa.array([0, 1, None, 2, 1, 0], pa.int64())


# Acero gets a literal of these types wrong in choose (pyarrow 26): a large_string or
# large_binary literal turns the result into `string` with the column's values lost,
# and a timestamp literal with a time zone comes back as 1970. The kernel itself is
# right, so with literals exprscope is compared with the kernel for these.
ACERO_LITERAL_DEFECTS = {"large_string", "large_binary", "timestamp_us_tz"}


@pytest.mark.parametrize("family", FLAT)
def test_choose_on_every_flat_type(family):
    values = [FAMILIES[family](k) for k in (1, 2, 3)]
    layouts = ("plain", "sliced", "chunked") if family in ACERO_LITERAL_DEFECTS else None
    kw = {"layouts": layouts} if layouts else {}
    check_like_arrow("choose", [INDICES, *values], **kw)
    check_like_arrow("choose", [INDICES.cast(pa.int8()), *values], **kw)
    check_like_arrow("choose", [pa.nulls(6, pa.int64()), *values], **kw)
    if family in ACERO_LITERAL_DEFECTS:
        table = pa.table({"i": pa.array([0, 1, None, 1, 1, 0]), "a": values[0]})
        literal = values[1][0]
        got = tk.evaluate(tk.call("choose", [tk.field("i"), tk.field("a"), tk.literal(literal)]),
                          table)
        assert got.equals(pc.choose(table["i"], table["a"], literal))


@pytest.mark.parametrize("family", ["list", "struct", "sparse_union"])
def test_nested_types_have_no_choose_kernel_as_in_arrow(family):
    values = [FAMILIES[family](k) for k in (1, 2)]
    with pytest.raises(tk.NoKernelError, match="choose"):
        tk.call("choose", [tk.field("i"), tk.field("a"), tk.field("b")]).bind(
            pa.schema([("i", pa.int64()), ("a", values[0].type), ("b", values[1].type)]))


def test_only_the_chosen_value_runs():
    table = pa.table({"i": [0, 1, None, 1, 0], "a": [1, 0, 3, 0, 5], "b": [10, 20, 30, 40, 50]})
    expr = tk.parse("choose(i, b / a, b)")
    assert tk.evaluate(expr, table).to_pylist() == [10, 20, None, 40, 10]
    with pytest.raises(tk.KernelError, match="divide by zero") as info:
        tk.evaluate(expr, table, mode="eager")
    assert info.value.row == 1
    with tk.trace() as t:
        tk.evaluate(expr, table)
    step = t.steps[-1]
    divide = next(n for n in step.nodes if n.label == "divide")
    assert divide.rows == 2  # rows 0 and 4 pick `b / a`
    assert "[value 0 ▕█···█▏ 2 of 5 rows" in tk.to_text(step)


@pytest.mark.parametrize("index, row", [([0, 3, 1], 1), ([-1, 0, 0], 0), ([0, 1, 7], 2)])
def test_an_index_out_of_range_is_arrows_error_at_its_row(index, row):
    table = pa.table({"i": index, "a": [1, 2, 3], "b": [4, 5, 6]})
    for mode in ("lazy", "eager"):
        with pytest.raises(tk.KernelError, match="out of range") as info:
            tk.evaluate(tk.parse("choose(i, a, b)"), table, mode=mode)
        if mode == "lazy":
            assert info.value.row == row
    with pytest.raises(pa.ArrowIndexError):
        pc.choose(table["i"], table["a"], table["b"])


def test_a_scalar_index_runs_one_value():
    table = pa.table({"a": [1, 0], "b": [7, 8]})
    assert tk.evaluate(tk.parse("choose(1, b / a, b)"), table).to_pylist() == [7, 8]
    assert tk.evaluate(tk.call("choose", [tk.literal(None, pa.int64()), tk.field("a"),
                                          tk.field("b")]), table).to_pylist() == [None, None]
    assert str(tk.parse("choose(i, a, 2)")) == "choose(i, a, 2)"


@given(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=1, max_size=40),
       st.integers(0, 3))
def test_lazy_choose_equals_pyarrows(indices, offset):
    n = len(indices)
    table = pa.table({"i": pa.array(indices, pa.int64()),
                      "a": pa.array(range(n)), "b": pa.array([x * 1.5 for x in range(n)]),
                      "c": pa.array([None if x % 3 == 0 else -x for x in range(n)], pa.int64())})
    sliced = table.slice(min(offset, n - 1))
    expected = pc.choose(sliced["i"], sliced["a"].cast(pa.float64()), sliced["b"],
                         sliced["c"].cast(pa.float64()))
    assert tk.evaluate(tk.parse("choose(i, a, b, c)"), sliced).equals(expected)
