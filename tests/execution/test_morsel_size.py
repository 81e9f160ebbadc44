"""The morsel size follows the widest intermediate of the tree, and only where it pays."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.execution import morsel_size
from toolkit.execution.morsel_size import (
    MIN_MORSEL_ROWS,
    MORSEL_BYTES,
    VARIABLE_WIDTH_BYTES,
    intermediate_width,
    morsel_rows,
    type_width,
)

SCHEMA = pa.schema([("i64", pa.int64()), ("i32", pa.int32()), ("f32", pa.float32()),
                    ("d", pa.float64()), ("s", pa.string()), ("b", pa.bool_())])
i64, i32, f32, d, s, b = (tk.field(n) for n in SCHEMA.names)


def rows(expr):
    return morsel_rows(tk.bind(expr, SCHEMA))


def test_eight_byte_intermediates_give_two_mebibyte_morsels():
    assert rows((i64 * 2 + 1) * 3) == MORSEL_BYTES // 8 == 262_144
    assert rows(tk.field("d") * 0.5 + d) == 262_144


def test_four_byte_intermediates_give_twice_the_rows():
    assert rows((f32 + f32) * f32) == MORSEL_BYTES // 4


def test_the_widest_intermediate_decides():
    # cast(f32 + f32 -> double) is the 8-byte intermediate under the root
    assert rows(((f32 + f32).cast(pa.float64()) + d) > 1.0) == MORSEL_BYTES // 8


def test_leaves_and_the_root_do_not_count():
    assert intermediate_width(tk.bind(i64 + i64, SCHEMA)) == 0.0
    assert rows(tk.call("utf8_upper", [s])) is None  # one kernel: nothing to keep in cache
    assert rows(tk.field("i64")) is None and rows(tk.literal(3)) is None


def test_boolean_intermediates_are_too_small_to_cut_for():
    tree = ((i64 > 10) & (i32 < 500)) | ((f32 == 3) & (d >= 0.5))
    assert intermediate_width(tk.bind(tree, SCHEMA)) == pytest.approx(1 / 8)
    assert rows(tree) == MORSEL_BYTES * 8 > 1 << 20  # bigger than a piece: not cut


def test_variable_width_intermediates():
    assert rows(tk.call("utf8_length", [tk.call("utf8_upper", [s])])) == \
        MORSEL_BYTES // VARIABLE_WIDTH_BYTES


def test_type_widths():
    assert type_width(pa.int64()) == 8 and type_width(pa.float32()) == 4
    assert type_width(pa.bool_()) == 1 / 8
    assert type_width(pa.dictionary(pa.int16(), pa.string())) == 2
    assert type_width(pa.decimal128(20, 2)) == 16
    assert type_width(pa.large_string()) == VARIABLE_WIDTH_BYTES
    assert type_width(pa.list_(pa.int64())) == VARIABLE_WIDTH_BYTES


def test_never_below_the_floor(monkeypatch):
    monkeypatch.setattr(morsel_size, "MORSEL_BYTES", 1024)  # 128 int64 rows
    assert rows((i64 * 2 + 1) * 3) == MIN_MORSEL_ROWS


def test_a_struct_is_as_wide_as_its_fields():
    assert type_width(pa.struct([("x", pa.int32()), ("y", pa.bool_())])) == 4 + 1 / 8
    conditions = pa.struct([(f"c{i}", pa.bool_()) for i in range(20)])
    assert type_width(conditions) == pytest.approx(20 / 8)
    assert type_width(pa.struct([("s", pa.string())])) == VARIABLE_WIDTH_BYTES


def test_a_case_when_is_cut_for_its_values_not_for_its_conditions():
    """The conditions' struct only points at its fields (20 or 100 bits a row): the 8-byte
    values decide
    (at half the rows, the 20-case funnel took 30% longer on 5M rows)."""
    for cases in (20, 100):
        text = "case " + " ".join(f"when i64 < {i} then d * {i}" for i in range(cases)) \
            + " else 0.0 end"
        assert rows(tk.parse(text)) == MORSEL_BYTES // 8
