"""A saved trace is a stranger's input: it loads and renders everywhere, or fails at load.

Real traces (passes, lazy and failing evaluations, a plan with its invariant
checks) are written to JSON, mutated by hypothesis (keys deleted, values swapped
for other kinds, huge numbers, markup, deep nesting), and read back. Each
mutant must either raise one `TraceFormatError` from `Trace.from_json`, or load
and then render in the terminal, as DOT, in the HTML report and in the
widgets, with no markup from the file reaching the HTML unescaped.
"""

from __future__ import annotations

import base64
import json
import zlib

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.errors import TraceFormatError
from toolkit.trace.json_checks import MAX_DEPTH, MAX_EXPANDED_NODES
from widgets import Explorer, SelectionView

PAYLOAD = "<img src=x onerror=alert(1)>"


def _real_trace() -> str:
    table = pa.table({"a": pa.array([0, 1, 2, 0, 5, None], pa.int64()),
                      "b": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
                      "s": ["x", "y", "x", None, "z", "y"]})
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), tk.literal(1) + 2)
    with tk.trace() as t:
        tk.optimize(3 < tk.field("b") + (tk.literal(1) + 1), table.schema)
        tk.evaluate(expr, table)
        tk.evaluate(tk.coalesce(tk.field("a"), tk.field("b")), table)
        with pytest.raises(tk.KernelError):
            tk.evaluate(expr, table, mode="eager")
        p = plan.scan("t", table).filter(tk.field("a") > 0).project([tk.field("b")], names=["b"])
        plan.create_physical_plan(plan.optimize(p)).collect()
    return t.to_json()


REAL = _real_trace()


def _render_everywhere(trace: tk.Trace, tmp_path) -> None:
    tk.to_text(trace, color=False)
    tk.to_dot(trace)
    page = tk.write_report(trace, tmp_path / "report.html").read_text(encoding="utf-8")
    explorer = Explorer(trace)
    views = [explorer.header.value, explorer.tree.value, explorer.rules.value]
    for index, step in enumerate(trace.steps):
        explorer.go(index)
        views += [explorer.header.value, explorer.rules.value, explorer.before_after.value]
        if isinstance(step, tk.observe.EvalEvent):
            view = SelectionView(step)
            views += [w.value for w in _html_children(view)]
    for html in [page, *views]:
        assert "<img src=x" not in html


def _html_children(widget):
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        if hasattr(w, "value") and isinstance(w.value, str):
            out.append(w)
        stack.extend(getattr(w, "children", ()))
    return out


def _paths(doc, prefix=()):
    """Every (container, key) in the document, for a mutation to aim at."""
    stack = [(doc, prefix)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                yield node, k
                stack.append((v, path + (k,)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield node, i
                stack.append((v, path + (i,)))


REPLACEMENTS = [None, -1, 0, 10 ** 12, 3_000_000_000, 2.5, float("inf"), "x", PAYLOAD, True,
                [], {}, [[[[0]]]], {"k": "call"}, "\x1b[31m\u202e"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_trace_fails_at_load_or_renders_everywhere(data, tmp_path):
    doc = json.loads(REAL)
    targets = list(_paths(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        container, key = data.draw(st.sampled_from(targets))
        if isinstance(container, dict) and data.draw(st.booleans()):
            container.pop(key, None)
        else:
            try:
                container[key] = data.draw(st.sampled_from(REPLACEMENTS))
            except (IndexError, KeyError):
                pass
    text = json.dumps(doc)
    try:
        trace = tk.Trace.from_json(text)
    except TraceFormatError:
        return
    _render_everywhere(trace, tmp_path)


@pytest.mark.parametrize("text, says", [
    ("null", "must be an object"),
    ("[]", "must be an object"),
    ('{"format": "exprscope-trace", "version": 1, "expressions": {"nodes": []}}', "steps"),
    ("[" * 100_000 + "]" * 100_000, f"deeper than {MAX_DEPTH}"),
    ("{not json", "must be JSON"),
    (b"\xff\xfe", "JSON"),
])
def test_garbage_is_one_clear_error(text, says):
    with pytest.raises(TraceFormatError, match=says):
        tk.Trace.from_json(text)


def test_huge_indices_are_refused_with_their_json_path():
    doc = json.loads(REAL)
    doc["steps"][0]["before"] = 10 ** 9
    with pytest.raises(TraceFormatError, match=r"steps\[0\]\.before is 1,000,000,000"):
        tk.Trace.from_json(json.dumps(doc))


@pytest.mark.parametrize("kind, key", [("eval", "expr"), ("pass", "before"), ("pass", "after")])
def test_a_step_without_its_expression_is_refused_by_name(kind, key):
    doc = json.loads(REAL)
    index = next(i for i, s in enumerate(doc["steps"]) if s["kind"] == kind)
    doc["steps"][index][key] = None
    with pytest.raises(TraceFormatError, match=rf"steps\[{index}\]\.{key}"):
        tk.Trace.from_json(json.dumps(doc))


def test_shared_nodes_that_would_unfold_into_billions_are_refused():
    nodes = [{"k": "literal", "value": 0}]
    for i in range(60):  # each level uses the one below twice: 2^60 nodes unfolded
        nodes.append({"k": "call", "name": "add", "args": [i, i]})
    doc = {"format": "exprscope-trace", "version": 1,
           "expressions": {"nodes": nodes, "types": [],
                           "values": json.loads(REAL)["expressions"]["values"][:1]},
           "steps": [{"kind": "pass", "name": "p", "before": 60, "after": 60, "changed": False,
                      "elapsed": 0.0, "rewrites": []}]}
    text = json.dumps(doc)
    assert len(text) < 4_000
    with pytest.raises(TraceFormatError, match=f"more than {MAX_EXPANDED_NODES:,} nodes"):
        tk.Trace.from_json(text)


def test_a_claim_of_three_billion_rows_is_refused_without_allocating():
    doc = json.loads(REAL)
    step = next(s for s in doc["steps"] if s["kind"] == "eval" and s["branches"])
    step["num_rows"] = 3_000_000_000
    step["branches"][0]["total_rows"] = 3_000_000_000
    with pytest.raises(TraceFormatError, match="3,000,000,000"):
        tk.Trace.from_json(json.dumps(doc))


def test_a_compressed_bomb_is_refused():
    doc = json.loads(REAL)
    step = next(s for s in doc["steps"] if s["kind"] == "eval" and s["branches"])
    bomb = base64.b64encode(zlib.compress(b"\xff" * 50_000_000)).decode()
    step["branches"][0]["rows"] = {"bitmap": bomb, "count": 1}
    assert len(bomb) < 100_000
    with pytest.raises(TraceFormatError, match="unpacks beyond"):
        tk.Trace.from_json(json.dumps(doc))


def test_every_text_from_the_file_is_escaped_in_every_view(tmp_path):
    doc = json.loads(REAL)
    for container, key in list(_paths(doc)):
        if isinstance(container[key], str) and key not in ("ipc", "bitmap", "list", "format",
                                                            "kind", "k", "mode", "class"):
            container[key] = PAYLOAD
    trace = tk.Trace.from_json(json.dumps(doc))
    _render_everywhere(trace, tmp_path)


@pytest.mark.parametrize("missing", ["null", "absent"])
def test_timings_left_out_or_null_read_as_zero(missing, tmp_path):
    doc = json.loads(REAL)
    for container, key in list(_paths(doc)):
        if key == "elapsed":
            if missing == "null":
                container[key] = None
            else:
                del container[key]
    trace = tk.Trace.from_json(json.dumps(doc))
    assert all(getattr(step, "elapsed", 0.0) == 0.0 for step in trace.steps)
    _render_everywhere(trace, tmp_path)
    assert "0.0 ms" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_a_trace_written_today_still_loads():
    trace = tk.Trace.from_json(REAL)
    assert len(trace.steps) > 5


def _as_version(doc: dict, version: int) -> dict:
    """The same trace as an older version wrote it: version 2 wrote the places of rewrites
    and plan-rule firings in full, version 1 also those of evaluation nodes and branches."""
    old = json.loads(json.dumps(doc))
    old["version"] = version
    for step in old["steps"]:
        if "positions" not in step or (version == 2 and step.get("kind") == "eval"):
            continue
        paths = [[]]
        for parent, index in step.pop("positions"):
            paths.append(paths[parent] + [index])
        items = {"eval": ("nodes", "branches"), "pass": ("rewrites",),
                 "plan_rule": ("applied",)}[step["kind"]]
        for key in items:
            for item in step[key]:
                item["path"] = paths[item.pop("at")]
    return old


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_trace_with_full_paths_reads_as_today(version):
    doc = json.loads(REAL)
    assert doc["version"] == 3 and all("positions" in s for s in doc["steps"]
                                       if s["kind"] in ("eval", "pass", "plan_rule"))
    old = tk.Trace.from_json(json.dumps(_as_version(doc, version)))
    today = tk.Trace.from_json(REAL)
    assert tk.to_text(old) == tk.to_text(today)
    assert [[tuple(r.path) for r in p.rewrites] for p in old.passes] \
        == [[tuple(r.path) for r in p.rewrites] for p in today.passes]
    assert [[(tuple(a.path), a.after.label()) for a in p.applied] for p in old.plan_rules] \
        == [[(tuple(a.path), a.after.label()) for a in p.applied] for p in today.plan_rules]


def test_a_positions_row_whose_parent_comes_later_is_refused():
    doc = json.loads(REAL)
    k, step = next((k, s) for k, s in enumerate(doc["steps"])
                   if s["kind"] == "eval" and s.get("positions"))
    step["positions"][0][0] = 5
    with pytest.raises(TraceFormatError, match=rf"steps\[{k}\]\.positions\[0\]\[0\] is 5"):
        tk.Trace.from_json(json.dumps(doc))
    step["positions"][0][0] = 0
    step["nodes"][0]["at"] = len(step["positions"]) + 1
    with pytest.raises(TraceFormatError, match=rf"steps\[{k}\]\.nodes\[0\]\.at is"):
        tk.Trace.from_json(json.dumps(doc))


def test_a_deep_trace_is_saved_in_space_linear_in_its_size():
    depth = 3_000
    a = tk.field("a")
    expr = tk.literal(-1)
    for k in range(depth):
        expr = tk.if_else(a != k, expr, k)
    table = pa.table({"a": pa.array(range(0, 4_000, 2))})
    with tk.trace() as t:
        tk.evaluate(expr.bind(table.schema), table)
    text = t.to_json()
    # each path written in full: tens of millions of numbers, about 100 MB
    assert len(text) < 12_000_000
    assert tk.to_text(tk.Trace.from_json(text)) == tk.to_text(t)
