"""A traced evaluation runs special forms inside fused loops too: the branch rows its
trace records equal those of the unfused traced run, and the rows pyarrow's own values
of the form's arguments say each branch takes."""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.execution.test_fusion import COLUMNS, _exact, cheap_trees, data
from toolkit.execution import evaluation, parallel
from toolkit.execution.prepare import prepare
from toolkit.model.expression import postorder

_FORMS = {"case_when", "if_else", "coalesce", "and_kleene", "or_kleene"}


def _branches(expr, table, fuse: bool):
    """(value, {(path, branch): (count, rows)}) of a traced evaluation; None if it fails."""
    try:
        with tk.trace() as t:
            value = tk.evaluate(expr, table, fuse=fuse, simplify=False)
    except tk.ExprscopeError:
        return None
    event = t.evaluations[-1]
    return value, {(tuple(b.path), b.branch): (b.count, b.rows.to_pylist())
                   for b in event.branches}


def _arrow(expr, table) -> np.ndarray | None:
    """`expr` over the table by Acero (pyarrow's own kernels), as Python values."""
    frame = pa.Table.from_batches([table]) if isinstance(table, pa.RecordBatch) else table
    try:
        got = ds.dataset(frame).to_table(columns={"v": expr.to_pyarrow()})["v"]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return got.to_pylist()


def _expected(expr, table) -> dict[str, list[int]] | None:
    """branch -> rows, for the root form, from pyarrow's values of its arguments."""
    name, args = expr.name, expr.args
    if name == "case_when":
        conds = [_arrow(c, table) for c in args[0].args]
        if any(c is None for c in conds):
            return None
        taken = [next((i for i, c in enumerate(row) if c), len(conds))
                 for row in zip(*conds)] if conds else []
        out = {}
        for i in range(len(conds)):
            out[f"when {i}"] = [r for r, t in enumerate(taken) if t >= i]
            out[f"then {i}"] = [r for r, t in enumerate(taken) if t == i]
        out["else"] = [r for r, t in enumerate(taken) if t == len(conds)]
        return out
    if name == "if_else":
        cond = _arrow(args[0], table)
        if cond is None:
            return None
        return {"then": [r for r, c in enumerate(cond) if c is True],
                "else": [r for r, c in enumerate(cond) if c is False]}
    if name == "coalesce":
        values = [_arrow(a, table) for a in args]
        if any(v is None for v in values):
            return None
        first = [next((i for i, v in enumerate(row) if v is not None), len(values))
                 for row in zip(*values)]
        return {f"arg {i}": [r for r, f in enumerate(first) if f >= i]
                for i in range(len(values))}
    left = _arrow(args[0], table)
    if left is None:
        return None
    stop = name == "or_kleene"
    return {"right": [r for r, v in enumerate(left) if v is not stop]}


def _reads_a_column(expr) -> bool:
    return any(node.kind == "field" for node in postorder(expr))


def _has_fused_form(expr, schema) -> bool:
    prepared = prepare(expr, schema)
    groups = prepared.fused.traced
    return any(group.forms for group in groups.values())


_ROOTS = pa.table({  # 200 rows with nulls: a fused loop is made for more than a few
    name: pa.array([None if i % 7 == 3 else v for i, v in enumerate(
        [(i % 5 - 1) if t == pa.int64() or t == pa.int32() else
         (i % 3 == 0) if t == pa.bool_() else (i % 11 - 4.5) for i in range(200)])], t)
    for name, t in COLUMNS.items()})


def test_fused_traced_branch_rows_equal_unfused_and_pyarrow():
    """On random trees of cheap calls and forms: the same value and the same branch
    rows (counts, rows) fused and unfused, the root form's rows as pyarrow's values say;
    and a good share of the trees ran a form inside a fused loop (else the property
    says nothing about fusion)."""
    seen = {"fused forms": 0, "checked by pyarrow": 0, "trees": 0}

    # a form at the root reading columns, which pyarrow checks, whatever the draws hold
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cheap_trees, data(max_rows=60))
    @example(tk.parse("case when a > 1 then x * 2.0 when p then y else 0.0 end"), _ROOTS)
    @example(tk.parse("if_else(q, x + y, x * y)"), _ROOTS)
    @example(tk.parse("coalesce(x, y * 2.0, 0.0)"), _ROOTS)
    def agree(expr, table):
        seen["trees"] += 1
        fused = _branches(expr, table, fuse=True)
        unfused = _branches(expr, table, fuse=False)
        assert (fused is None) == (unfused is None), str(expr)
        if fused is None:
            return
        assert _exact(fused[0]) == _exact(unfused[0]), str(expr)
        # every branch the unfused run recorded, alike; beyond those, only empty ones: a
        # form nested under a branch no row takes (a literal condition, a funnel that
        # stopped) never runs unfused, while its loop records its branches as empty
        assert {key: got for key, got in fused[1].items() if key in unfused[1]} \
            == unfused[1], str(expr)
        assert all(count == 0 for key, (count, _) in fused[1].items()
                   if key not in unfused[1]), str(expr)
        seen["fused forms"] += _has_fused_form(expr, table.schema)
        # (a tree of literals alone is one value, traced on one row: no column to check)
        if expr.is_call and expr.name in _FORMS and _reads_a_column(expr):
            expected = _expected(expr, table)
            if expected is None:
                return
            seen["checked by pyarrow"] += 1
            root = {branch: rows for (path, branch), (_, rows) in fused[1].items() if path == ()}
            assert root == expected, str(expr)

    agree()
    assert seen["fused forms"] >= seen["trees"] // 12, seen
    assert seen["checked by pyarrow"] >= 3, seen


def test_a_large_traced_case_when_runs_fused_with_the_unfused_branch_rows():
    """On a million-row table with nulls, a case_when of cheap parts runs as one loop when
    traced, and its trace holds the rows each case took, as the unfused run's."""
    rng = np.random.default_rng(11)
    n = 1_000_000
    table = pa.table({"a": pa.array(rng.integers(-5, 5, n), mask=rng.random(n) < 0.1),
                      "x": rng.random(n)})
    expr = tk.parse("case when a > 2 then x * 2 when a < -2 then x - 1 "
                    "when a = 0 then x else x / 3 end")
    assert _has_fused_form(expr, table.schema)
    with tk.trace() as t:
        tk.evaluate(expr, table, fuse=True)
    fused = t.evaluations[-1]
    assert next(s for s in fused.nodes if tuple(s.path) == ()).fused.startswith("8 calls")
    with tk.trace() as t:
        tk.evaluate(expr, table, fuse=False)
    unfused = t.evaluations[-1]
    got = {(tuple(b.path), b.branch): (b.count, b.rows.to_pylist()) for b in fused.branches}
    want = {(tuple(b.path), b.branch): (b.count, b.rows.to_pylist()) for b in unfused.branches}
    assert got == want
    a = table["a"].to_numpy(zero_copy_only=False)
    assert got[((), "then 0")][1] == np.flatnonzero(np.nan_to_num(a, nan=0) > 2).tolist()


@contextlib.contextmanager
def _sampled_in_morsels(morsel_rows: int | None):
    """Every evaluation kept as a sample (first rows, and each branch's first rows), its
    rows cut into morsels of `morsel_rows` (None: the tree's own size)."""
    saved = evaluation.KEEP_DATA_ROWS, evaluation.SAMPLE_FIRST, evaluation.SAMPLE_PER_BRANCH
    saved_morsel = parallel.MORSEL_ROWS
    evaluation.KEEP_DATA_ROWS, evaluation.SAMPLE_FIRST, evaluation.SAMPLE_PER_BRANCH = 0, 4, 3
    parallel.MORSEL_ROWS = morsel_rows
    try:
        yield
    finally:
        evaluation.KEEP_DATA_ROWS, evaluation.SAMPLE_FIRST, evaluation.SAMPLE_PER_BRANCH = saved
        parallel.MORSEL_ROWS = saved_morsel


def _traced(expr, table, fuse: bool, morsel_rows):
    with _sampled_in_morsels(morsel_rows), tk.trace() as t:
        try:
            tk.evaluate(expr, table, fuse=fuse, simplify=False)
        except tk.ExprscopeError:
            return None
    return t.evaluations[-1]


def test_fused_branch_counts_and_samples_made_on_read():
    """A fused form's branches are counted when the trace is read, from the codes its
    loop wrote (several forms' codes share a byte): each count, read before the rows,
    is the number of rows the branch reports and the unfused trace's count; and the
    sample, taken from the codes' first rows, holds the same rows as the unfused one;
    over morsels of 1 to 16 rows or the tree's own."""
    seen = {"fused forms": 0, "trees": 0}

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cheap_trees, data(max_rows=60), st.sampled_from([None, 1, 5, 16]))
    def agree(expr, table, morsel_rows):
        fused = _traced(expr, table, True, morsel_rows)
        unfused = _traced(expr, table, False, morsel_rows)
        assert (fused is None) == (unfused is None), str(expr)
        if fused is None:
            return
        seen["trees"] += 1
        seen["fused forms"] += _has_fused_form(expr, table.schema)
        counts = {(tuple(b.path), b.branch): b.count for b in fused.branches}  # rows unread
        rows = {(tuple(b.path), b.branch): b.rows.to_pylist() for b in fused.branches}
        assert all(counts[key] == len(rows[key]) for key in counts), str(expr)
        want = {(tuple(b.path), b.branch): b.count for b in unfused.branches}
        assert {key: counts[key] for key in want} == want, str(expr)
        assert fused.sample.to_pylist() == unfused.sample.to_pylist(), str(expr)

    agree()
    assert seen["fused forms"] >= seen["trees"] // 12, seen


def test_a_chain_of_and_or_writes_one_code_byte_per_row():
    """Traced, the steps of a chain of and/or share one code (the first term that
    decided), the codes share a byte per row, and a case_when's case index takes the
    bits its cases need."""
    expr = tk.parse("(a > 1 or k < 3) or (a < -1 and k > 4)")
    schema = pa.schema({"a": pa.int64(), "k": pa.int64()})
    (group,) = prepare(expr, schema).fused.traced.values()
    assert len(group.forms) == 3 and group.plain.codes == 1
    assert [slot.bits for slot in group.plain.layout] == [2, 1]  # the two ors; the and
    assert sorted(group.forms.values()) == [(0, 1), (0, 2), (1, 1)]
    chain = tk.parse(" and ".join(f"a != {i}" for i in range(40)))
    (group,) = prepare(chain, schema).fused.traced.values()
    assert len(group.forms) == 39 and [tuple(s) for s in group.plain.layout] == [(0, 0, 6)]
    case = tk.parse("case " + " ".join(f"when a < {i} then k * {i}" for i in range(20))
                    + " else k end")
    (group,) = prepare(case, schema).fused.traced.values()
    assert [tuple(slot) for slot in group.plain.layout] == [(0, 0, 5)]


_TERMS = ["p", "q", "a > 1", "k < 3", "x > 0.5", "not p", "c != 0", "y <= x", "g > 0"]


@st.composite
def _chains(draw, depth: int = 1):
    """A left-deep chain of and/or steps (mixed names: a name change starts a new chain),
    its terms comparisons, boolean columns or chains of their own."""
    text = draw(st.sampled_from(_TERMS))
    for _ in range(draw(st.integers(1, 10))):
        term = draw(st.sampled_from(_TERMS)) if depth == 0 or draw(st.booleans()) else \
            f"({draw(_chains(depth - 1))})"
        text = f"({text} {draw(st.sampled_from(['and', 'or']))} {term})"
    return text


def test_a_chain_of_and_or_shares_one_code_and_records_each_steps_rows():
    """Each step of a chain of and/or records the rows its right side ran on (where no
    term of its left side decided, nulls deciding nothing), fused as unfused, whatever
    the chain's length, its mix of and and or, and the chains among its terms."""
    seen = {"fused forms": 0, "trees": 0}

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_chains(), data(max_rows=60))
    @example("((((p and q) and a > 1) or k < 3) and (x > 0.5 or (c != 0 and not p)))", _ROOTS)
    def agree(text, table):
        expr = tk.parse(text)
        seen["trees"] += 1
        seen["fused forms"] += _has_fused_form(expr, table.schema)
        fused = _branches(expr, table, fuse=True)
        unfused = _branches(expr, table, fuse=False)
        assert _exact(fused[0]) == _exact(unfused[0]), text
        # every branch the unfused run recorded, alike; beyond those, only empty ones (a
        # fused loop records a step whose left side decided every row)
        assert {key: fused[1][key] for key in unfused[1]} == unfused[1], text
        assert all(fused[1][key][0] == 0 for key in fused[1].keys() - unfused[1].keys()), text

    agree()
    assert seen["fused forms"] >= seen["trees"] // 2, seen
