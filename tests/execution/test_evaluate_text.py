"""`tk.evaluate` of expression text reads it as `tk.parse` does; it never returns the text
itself as a string literal, and bad text fails with a caret under it."""

import pyarrow as pa
import pytest

import toolkit as tk


def test_text_is_read_as_an_expression_not_a_string_value():
    table = pa.table({"a": [1, 0, None], "b": [4.0, 2.0, 1.0]})
    for text in ("a + 1", "a != 0 and b / a > 2", "if(a != 0, b / a, 0.0)"):
        assert tk.evaluate(text, table).equals(tk.evaluate(tk.parse(text), table))
    assert tk.evaluate(tk.literal("a + 1"), table).as_py() == "a + 1"


def test_bad_text_fails_with_a_caret():
    with pytest.raises(tk.ExprscopeError) as caught:
        tk.evaluate("a +", pa.table({"a": [1]}))
    assert "^" in str(caught.value)
