"""A property over random traced evaluations: what every printer writes adds up and reads well.

Random nests of if_else, case_when (with and without else, wide) and coalesce over
data with nulls, 1 to 200,000 rows. Read back from the text, the DOT source, the HTML
report and the selection view's summary: a form's branches and its null rows make the
rows that reached it; a node uses no more rows than it computed nor than its parent
used; no line is wider than asked; no label holds a `\\n` escape, an Arrow value set or
a cast's option list. Each rule of the optimizer names the node it changed: replayed
from the tree its pass was given, the rules' paths and `before`s rebuild the pass's
result.
"""

import re
from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.model.visit import node_at
from toolkit.render import html_report
from toolkit.render.branch_table import NULL_BRANCH, null_selections
from toolkit.render.labels import parse_path_text
from toolkit.render.text import display_width
from widgets.selection_view import SelectionView

ROWS = [1, 3, 40, 64, 65, 700, 5_000, 200_000]
BLOBS = ("value_set=", "allow_int_overflow", "\\n")


def _table(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({"a": pa.array(rng.integers(-5, 6, rows), mask=rng.random(rows) < 0.2),
                     "b": rng.integers(0, 100, rows),
                     "c": pa.array(rng.random(rows) < 0.5, mask=rng.random(rows) < 0.25)})


def _conditions():
    a = tk.field("a")
    return st.sampled_from([
        tk.field("c"), a > 0, tk.is_null(a), tk.field("b") < 30,
        tk.call("is_in", [a], pc.SetLookupOptions(pa.array([1, 2, 3]))),
        a.cast("float64") > 1.5])


def _expressions():
    leaves = st.sampled_from([tk.field("a"), tk.field("b"), tk.literal(7), tk.literal(-1)])

    def extend(inner):
        return st.one_of(
            st.builds(tk.if_else, _conditions(), inner, inner),
            st.builds(lambda cases, e: tk.case_when(cases, else_=e),
                      st.lists(st.tuples(_conditions(), inner), min_size=1, max_size=6),
                      st.one_of(st.none(), inner)),
            st.builds(tk.coalesce, inner, inner),
            # wide: more branches than a picture draws, the middle folded into one box
            st.builds(lambda conds, e: tk.case_when([(c, tk.literal(k))
                                                     for k, c in enumerate(conds)], else_=e),
                      st.lists(_conditions(), min_size=9, max_size=14),
                      st.one_of(st.none(), inner)))
    return st.recursive(leaves, extend, max_leaves=8).filter(lambda e: e.is_call)


@given(_expressions(), st.sampled_from(ROWS), st.integers(0, 3), st.integers(40, 160))
def test_every_printer_adds_up_and_reads_well(expr, rows, seed, width):
    table = _table(rows, seed)
    with tk.trace() as t:
        optimized = tk.optimize(expr, table.schema)
        tk.evaluate(optimized, table)
    event = t.evaluations[-1]
    stats = {tuple(s.path): s for s in event.nodes}

    # the counts: branches plus null rows are the rows that reached each form
    nulls = {tuple(b.path): b.count for b in null_selections(event)}
    by_form: dict[tuple, int] = {}
    for b in event.branches:
        if not b.branch.startswith("when "):
            by_form[tuple(b.path)] = by_form.get(tuple(b.path), 0) + b.count
    for path, given_rows in by_form.items():
        form = node_at(event.expr, path)
        if form.name in ("if_else", "case_when"):
            assert given_rows + nulls.get(path, 0) == stats[path].used, (form, path)
    for path, stat in stats.items():
        assert stat.used <= stat.rows
        if path and path[:-1] in stats:
            assert stat.used <= stats[path[:-1]].used or _branch_parent(event, path)

    # every printer says the null rows, in words a person reads, within the width
    text = tk.to_text(t, color=False, width=width)
    assert max(display_width(line) for line in text.splitlines()) <= width
    wide = tk.to_text(t, color=False, width=1000)
    dot = tk.to_dot(event).source
    with mock.patch.object(html_report, "dot_available", lambda: False):
        report = html_report.report_html(t)
    for count in nulls.values():
        assert re.search(rf"\[{NULL_BRANCH} ▕[^▏]*▏ {count:,} of {rows:,} rows", wide)
        assert f"{NULL_BRANCH} (" in dot and f": {count:,} of {rows:,} rows" in dot
    for printed in (wide, dot, report):
        assert not any(blob in printed for blob in BLOBS)

    # the selection view counts each if_else and case_when it lists as the pictures do
    summary = SelectionView(event).summary.value
    assert not any(blob in summary for blob in BLOBS)
    for name, where, counts in re.findall(r"\((if_else|case_when) at ([^)]+)\): ([^<]*)</div>",
                                          summary):
        path = parse_path_text(where)
        said = {k: int(v.replace(",", "")) for k, v in re.findall(r"(\w[\w ]*): ([\d,]+)", counts)}
        reached = said.pop("not reached", 0)
        assert said.pop(NULL_BRANCH, 0) == nulls.get(path, 0), (name, where, counts)
        assert sum(said.values()) + nulls.get(path, 0) == stats[path].used == rows - reached

    # each rule names the node it changed, in the tree its pass was given: replayed in
    # order from that tree, every path finds a node equal to its rule's `before` (a rule
    # above another sees the node with its children already rewritten) and the replay
    # ends on the pass's result
    for step in t.passes:
        if step.before is None:
            continue
        tree = step.before
        for rewrite in step.rewrites:
            path = tuple(rewrite.path)
            assert node_at(tree, path).equals(rewrite.before), (step.name, rewrite)
            tree = _replaced(tree, path, rewrite.after)
        assert tree.equals(step.after), step.name


def _replaced(root, path: tuple, node):
    """`root` with the node at `path` replaced by `node`."""
    if not path:
        return node
    args = list(root.args)
    args[path[0]] = _replaced(args[path[0]], path[1:], node)
    return root.with_args(args)


def _branch_parent(event, path) -> bool:
    """Whether the parent is a form choosing rows for this child (it uses them its own way)."""
    parent = node_at(event.expr, path[:-1])
    return parent.is_call and parent.name in ("if_else", "case_when", "coalesce", "make_struct")
