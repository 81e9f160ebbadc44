"""A row's story agrees with evaluating the whole table: every node's value, and which
nodes the row reached, against a traced full evaluation (its selection vectors)."""

import math

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.paired import KINDS, ROOT, expressions, tables
from toolkit.errors import KernelError
from toolkit.model.visit import node_at
from toolkit.support.visible_text import visible

KIND_NAMES = sorted(KINDS) + [ROOT]


def _same(x: pa.Scalar, y: pa.Scalar) -> bool:
    if x.type != y.type:
        return False
    u, v = x.as_py(), y.as_py()
    if isinstance(u, float) and isinstance(v, float) and math.isnan(u) and math.isnan(v):
        return True
    return u == v


def _at(value, row: int) -> pa.Scalar:
    return value if isinstance(value, pa.Scalar) else value[row]


def _branch_root(expr, selection) -> tuple | None:
    """The subtree a branch selection stands for: a case_when condition (`when k` is
    condition k, numbered from 0 as Arrow's text numbers them) or an argument; None for
    a `when k` that reads field k of one computed struct (the struct runs on every row)."""
    form = tuple(selection.path)
    if selection.branch.startswith("when "):
        conditions = node_at(expr, form).args[0]
        if not (conditions.is_call and conditions.name == "make_struct"):
            return None
        return form + (0, int(selection.branch.split()[1]))
    return form + (selection.arg_index,)


def _reached(path: tuple, row: int, branches) -> bool:
    """The row reaches `path` when every branch above it (or at it) selected the row."""
    for b, root, rows in branches:
        if path[: len(root)] == root and row not in rows:
            return False
    return True


def _data(table, offset, length):
    return table.slice(offset, length) if length is not None else table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KIND_NAMES).flatmap(expressions), tables(),
       st.sampled_from(["lazy", "eager"]), st.data())
def test_each_node_of_a_story_equals_the_full_evaluation_at_its_row(pair, table, mode, data):
    expr, _ = pair
    offset = data.draw(st.integers(0, max(0, table.num_rows - 1)))
    length = data.draw(st.one_of(st.none(), st.integers(1, 24)))
    table = _data(table, offset, length)
    if table.num_rows == 0:
        return
    row = data.draw(st.integers(0, table.num_rows - 1))
    try:
        tk.bind(expr, table.schema)
    except (tk.ExprscopeError, pa.ArrowException) as exc:  # a literal that cannot be cast
        with pytest.raises(type(exc)):
            tk.explain_row(expr, table, row, mode=mode)
        return
    story = tk.explain_row(expr, table, row, mode=mode)
    with tk.trace() as trace:
        try:
            full = tk.evaluate(expr, table, mode=mode)
        except KernelError:
            full = None
    event = trace.steps[-1]
    assert story.evaluated_expression == visible(event.expr.to_string(shown=True, short=True))
    if full is None:  # some row fails: this row's value is the value of this row alone
        try:
            alone = tk.evaluate(expr, table.slice(row, 1), mode=mode)
        except KernelError:
            assert story.value is None and story.error
            return
        assert story.value is not None and _same(story.value, _at(alone, 0))
        return
    assert story.error is None
    assert _same(story.value, _at(full, row)), (story.value, _at(full, row))
    branches = [(b, root, set(b.rows.to_pylist())) for b in event.branches
                if (root := _branch_root(event.expr, b)) is not None]
    for node in story.nodes:
        expected_reached = mode == "eager" or _reached(node.path, row, branches)
        assert node.evaluated == expected_reached, (node.path_text, node.note, str(event.expr))
        if not node.evaluated:
            assert node.value is None
            continue
        sub = node_at(event.expr, node.path)
        try:
            whole = tk.evaluate(sub, table, mode=mode, simplify=False)
        except KernelError:
            continue  # the node alone fails on another row: nothing to compare with
        assert node.value is not None, (node.path_text, node.note)
        assert _same(node.value, _at(whole, row)), (node.path_text, node.value, _at(whole, row))
