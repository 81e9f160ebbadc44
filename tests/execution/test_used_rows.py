"""Rows computed and rows used: every node's two figures tell the lazy story truthfully."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.paired import expressions, tables
from toolkit.errors import KernelError
from toolkit.execution.dense_path import MIN_DENSE_ROWS


def _branch_root(expr_at_form, branch: str, arg_index: int, path: tuple):
    """The node whose value a branch is (None: a case_when reading fields of one struct)."""
    if branch.startswith("when "):
        first = expr_at_form.args[0]
        if not (first.is_call and first.name == "make_struct"):
            return None
        return path + (0, int(branch.split()[1]))  # `when k` is condition k
    return path + (arg_index,)


def _node_at(expr, path):
    for i in path:
        expr = expr.args[i]
    return expr


def _traced(expr, table):
    with tk.trace() as t:
        try:
            tk.evaluate(expr.bind(table.schema), table)
        except KernelError:
            pass
    return t.evaluations[-1]


def _check_story(event):
    stats = {s.path: s for s in event.nodes}
    for s in event.nodes:
        assert 0 <= s.used <= s.rows, s
        parent = stats.get(s.path[:-1]) if s.path else None
        if parent is not None:
            assert s.used <= parent.used, (s, parent)
        if not s.path:  # the root's value is the result: every row it computed is used
            assert s.used == s.rows
    counts: dict[tuple, int] = {}
    for b in event.branches:
        root = _branch_root(_node_at(event.expr, b.path), b.branch, b.arg_index, tuple(b.path))
        if root is not None:
            counts[root] = counts.get(root, 0) + b.count
    for root, count in counts.items():
        if root in stats:  # a branch given no rows never ran
            assert stats[root].used == count, (root, stats[root], count)


@given(expr=st.one_of(expressions("int"), expressions("float"), expressions("bool")),
       table=tables(max_rows=24), big=st.booleans())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_used_rows_match_the_selections_on_both_sides_of_the_dense_threshold(expr, table, big):
    expr, _ = expr
    if big and table.num_rows:  # tiled past the size where cheap branches run densely
        table = pa.concat_tables([table] * (MIN_DENSE_ROWS * 2 // table.num_rows + 1))
    event = _traced(expr, table)
    if event.error is not None:
        return
    _check_story(event)
    if not big:  # a node that computed rows it did not use says it ran densely (a literal,
        # one value however many rows it stands for, says it is a literal)
        assert all(s.used == s.rows or s.how in ("dense", "literal") for s in event.nodes)


@pytest.fixture(scope="module")
def issue_table():
    rng = np.random.default_rng(0)
    n = 100_000
    c = rng.integers(0, 100, n).astype(float)
    c[rng.random(n) < 0.1] = np.nan
    return pa.table({"a": rng.integers(-1, 2, n), "c": pa.array(c, from_pandas=True)})


def test_a_dense_else_branch_says_it_computed_every_row_and_used_its_own(issue_table):
    # an integer division can fail (by zero), so it never sees the else rows
    event = _traced(tk.parse("if(a != 0, 100 / a, coalesce(c * 2, 0))"), issue_table)
    stats = {s.path: s for s in event.nodes}
    counts = {b.branch: b.count for b in event.branches}
    a = issue_table["a"].to_numpy()
    c_null = issue_table["c"].is_null().to_numpy(zero_copy_only=False)
    else_rows = int((a == 0).sum())
    assert counts["else"] == else_rows
    coalesce = stats[(2,)]
    assert coalesce.rows == 100_000 and coalesce.used_rows == else_rows
    assert coalesce.how == "dense" and "cheaper than selecting" in coalesce.why
    zero = stats[(2, 1)]  # the literal 0 fills the else rows where c * 2 is null
    assert zero.used_rows == counts["arg 1"] == int(((a == 0) & c_null).sum())
    divide = stats[(1,)]  # past its break-even: every row, the else rows made null first
    assert divide.how == "masked" and divide.rows == 100_000
    assert divide.used_rows == 100_000 - else_rows
    text = tk.to_text(event, color=False)
    else_line = next(i for i, line in enumerate(text.splitlines()) if "[else" in line)
    else_text = " ".join(text.splitlines()[else_line:else_line + 3])
    assert "computed on 100,000" in else_text
    assert f"used on {else_rows:,}" in else_text and "(dense: cheaper than selecting)" in else_text


def test_the_two_figures_survive_json_and_an_older_trace_without_them_loads(issue_table):
    import json

    with tk.trace() as t:
        tk.evaluate(tk.parse("if(a != 0, c / a, coalesce(c * 2, 0))").bind(issue_table.schema),
                    issue_table)
    back = tk.Trace.from_json(t.to_json())
    before = {s.path: (s.rows, s.used_rows, s.how, s.why) for s in t.evaluations[-1].nodes}
    after = {s.path: (s.rows, s.used_rows, s.how, s.why) for s in back.evaluations[-1].nodes}
    assert after == before
    doc = json.loads(t.to_json())
    for step in doc["steps"]:
        for node in step.get("nodes", []):
            for key in ("used_rows", "how", "why"):
                node.pop(key)
    old = tk.Trace.from_json(json.dumps(doc))
    assert all(s.used == s.rows and s.how == "" for s in old.evaluations[-1].nodes)
    doc["steps"][-1]["nodes"][0]["used_rows"] = 10 ** 9  # more used than computed: refused
    with pytest.raises(tk.errors.TraceFormatError, match=r"nodes\[0\]\.used_rows"):
        tk.Trace.from_json(json.dumps(doc))
