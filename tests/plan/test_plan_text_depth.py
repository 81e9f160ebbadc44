"""Plan text grows linearly with depth and still shows the nesting.

Indentation stops at a cap and deeper nodes say their depth, so ten times the
depth is about ten times the text (uncapped indentation made it a hundred times:
200 M characters for a 10,000-filter plan). Sizes are deterministic, so the
ratio is asserted; times are in benchmarks/bench_plan_text.py.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.plan.plan_text import INDENT_CAP

TABLE = pa.table({"a": list(range(20)), "b": [i % 7 for i in range(20)]})


def _filters(n: int):
    p = plan.scan("t", TABLE)
    for i in range(n):
        p = p.filter(tk.field("a") > i % 10)
    return p


def _limits(n: int):
    p = plan.scan("t", TABLE)
    for _ in range(n):
        p = p.limit(15)
    return p


PRINTERS = {
    "explain": lambda p: p.explain(),
    "explain with schema": lambda p: p.explain(schema=True),
    "physical explain": lambda p: plan.create_physical_plan(p).explain(),
    "to_text": tk.to_text,
}


@pytest.fixture(scope="module")
def chains():
    return {1_000: _filters(1_000), 10_000: _filters(10_000)}


@pytest.mark.parametrize("printer", sorted(PRINTERS))
def test_ten_times_the_depth_is_at_most_twelve_times_the_text(chains, printer):
    small, large = (len(PRINTERS[printer](chains[n])) for n in (1_000, 10_000))
    assert large <= 12 * small, f"{printer}: {small:,} -> {large:,} characters"


def test_explain_verbose_grows_linearly_with_depth():
    small, large = (len(_limits(n).explain(verbose=True)) for n in (1_000, 10_000))
    assert large <= 12 * small, f"{small:,} -> {large:,} characters"


def test_deep_nodes_keep_the_capped_indentation_and_say_their_depth():
    lines = _filters(INDENT_CAP + 3).explain().splitlines()
    assert lines[INDENT_CAP] == "  " * INDENT_CAP + f"Filter: (t.a > {2 % 10})"
    assert lines[INDENT_CAP + 1] == "  " * INDENT_CAP + f"⋯[depth {INDENT_CAP + 1}] Filter: (t.a > 1)"
    assert lines[-1] == "  " * INDENT_CAP + f"⋯[depth {INDENT_CAP + 3}] TableScan: t"


def test_a_deep_join_shows_which_side_each_input_is_on():
    p = _filters(INDENT_CAP + 2).join(plan.scan("u", TABLE.rename_columns(["x", "y"])),
                                      on=[("t.a", "u.x")])
    lines = p.explain().splitlines()
    assert lines[0] == "Inner Join: t.a = u.x"
    assert lines[-2:] == ["  " * INDENT_CAP + f"⋯[depth {INDENT_CAP + 3}] TableScan: t",
                          "  TableScan: u"]
    drawn = tk.to_text(p, width=200).splitlines()
    assert drawn[-1] == "└── TableScan: u  [u.x: int64, u.y: int64]"
    assert f"⋯[depth {INDENT_CAP + 3}] └── TableScan: t" in drawn[-2]
    # at 100 columns the scan's schema moves to a line of its own, the marker stays whole
    narrow = tk.to_text(p).splitlines()
    assert narrow[-3].endswith(f"⋯[depth {INDENT_CAP + 3}] └── TableScan: t")
    assert narrow[-2].lstrip("│ ") == "[t.a: int64, t.b: int64]"
