"""Text that reads well: every line fits the width, options written as labels write them."""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.render.text import display_width


def _trace() -> tk.Trace:
    rng = np.random.default_rng(5)
    n = 100_000
    table = pa.table({"month": rng.integers(1, 13, n),
                      "x": pa.array(rng.integers(0, 9, n), pa.int32()),
                      "c": pa.array(rng.random(n) < 0.4, mask=rng.random(n) < 0.2)})
    expr = tk.from_pyarrow(pc.if_else(pc.field("c") & pc.field("month").isin([1, 12]),
                                      pc.field("x").cast(pa.float64()) / 2, pc.scalar(0.0)))
    with tk.trace() as t:
        tk.evaluate(tk.optimize(expr, table.schema), table)
    return t


TRACE = _trace()


@settings(max_examples=15, deadline=None)
@given(st.integers(40, 220))
def test_every_line_fits_the_width(width):
    text = tk.to_text(TRACE, color=False, width=width)
    assert max(display_width(line) for line in text.splitlines()) <= width
    colored = tk.to_text(TRACE, color=True, width=width)
    assert max(display_width(line) for line in colored.splitlines()) <= width


def test_value_sets_and_casts_read_as_labels_write_them():
    text = tk.to_text(TRACE, color=False, width=200)
    assert "value_set=" not in text and "allow_int_overflow" not in text and "\\n" not in text
    assert "{1, 12}" in text


def test_a_pass_that_changed_nothing_is_one_line_in_a_trace():
    lines = tk.to_text(TRACE, color=False).splitlines()
    unchanged = [line for line in lines if line.endswith(": no change")]
    assert unchanged and all(line.startswith("── step ") for line in unchanged)


def test_the_cli_fits_its_terminal():
    out = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "explain",
         "month in (1, 12) and x > 2 and x + 1 > 3 + 4", "--schema", "month:int64,x:int64"],
        capture_output=True, text=True, timeout=120, env={"COLUMNS": "60", "PATH": ""},
        cwd=".")
    assert out.returncode == 0, out.stderr
    assert max(display_width(line) for line in out.stdout.splitlines()) <= 60
    assert sum(line.endswith(": no change") for line in out.stdout.splitlines()) >= 3


def test_a_deep_line_wraps_under_its_own_tree_lines_at_80_columns():
    """Down to the indent cap (width // 8 levels), a wrapped line's continuation keeps the
    tree's lines, and a phrase wider than the room left wraps between words, not cut."""
    x = tk.field("x")
    with tk.trace() as t:
        tk.evaluate(tk.or_([x == i for i in range(12)]), pa.table({"x": list(range(2_000))}))
    lines = tk.to_text(t, color=False, width=80).splitlines()
    root = next(k for k, line in enumerate(lines) if line.startswith("  or_kleene"))
    assert max(display_width(line) for line in lines) <= 80
    # below the root every line starts in the tree's columns: no count or reason is
    # pushed back to the left edge, cut off from the node it belongs to
    assert all(line[2] in " │├└" for line in lines[root + 1:]), "\n".join(lines)
    assert not any(line.endswith("…") for line in lines)
