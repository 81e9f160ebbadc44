"""A literal holding bytes that are not UTF-8 inside a list or struct (Arrow prints them
raw, and pyarrow then fails to decode its own text): it prints, hashes and compares, and
a constant folded to one (split_pattern of a binary literal) explains as any other."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk


def _nested() -> tk.Expression:
    return tk.literal(pa.scalar([b"\x00\xff"], pa.list_(pa.binary())))


def test_it_prints_hashes_and_equals_its_twin():
    a, b = _nested(), _nested()
    assert "\\xff" in str(a) and "list<item: binary>" in str(a)
    assert hash(a) == hash(b) and a.equals(b)
    other = tk.literal(pa.scalar([b"\x00\xfe"], pa.list_(pa.binary())))
    assert not a.equals(other)


def test_a_constant_folded_to_it_evaluates_and_explains():
    split = tk.call("split_pattern", [tk.literal(b"\x00\xff")],
                    pc.SplitPatternOptions(" ", max_splits=1))
    with tk.trace() as t:
        folded = tk.optimize(split, pa.schema([]))
    assert folded.is_literal
    assert folded.value.as_py() == [b"\x00\xff"]
    assert "\\xff" in tk.to_text(t, color=False)
