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
import re
import zlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limited_child import TraceLoader

import toolkit as tk
from toolkit import plan
from toolkit.errors import TraceFormatError
from toolkit.tracing.json_checks import MAX_DEPTH, MAX_EXPANDED_NODES, MAX_EXPANDED_ROWS
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


# -- Arrow IPC payloads, sizes and row selections: loaded in a limited child process --------
# (a crafted payload could crash the interpreter, a size claim exhaust memory: either would
# end the test process, so each such trace is loaded and rendered in `TraceLoader`'s child)

def _strings_trace() -> str:
    """A trace whose payloads hold strings: data, a string literal, is_in's value set."""
    table = pa.table({"a": pa.array([0, 1, 2, 0, 5, None], pa.int64()),
                      "s": ["x", "y", "x", None, "zz", "y"]})
    in_set = tk.call("is_in", [tk.field("s")], pc.SetLookupOptions(pa.array(["x", "yy"])))
    with tk.trace() as t:
        tk.evaluate(tk.if_else(in_set, tk.field("s"), tk.literal("hello")), table)
        tk.evaluate(tk.coalesce(tk.field("a"), tk.literal(7)), table)
    return t.to_json()


STRINGS = _strings_trace()


@pytest.fixture(scope="module")
def loader():
    child = TraceLoader()
    yield child
    child.close()


def _payloads(doc: dict) -> list[tuple[dict, str, str]]:
    """(container, key, JSON path) of every base64 payload: IPC bytes and row selections."""
    out, stack = [], [(doc, "")]
    while stack:
        node, where = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            at = (f"{where}[{key}]" if isinstance(key, int)
                  else f"{where}.{key}" if where else key)
            if key in ("ipc", "bitmap", "list") and isinstance(value, str):
                out.append((node, key, at))
            elif isinstance(value, (dict, list)):
                stack.append((value, at))
    return sorted(out, key=lambda item: item[2])


def _with_payload(text: str, where: str, change) -> str:
    """The trace with the payload at JSON path `where` replaced by `change(its bytes)`."""
    doc = json.loads(text)
    container, key, _ = next(p for p in _payloads(doc) if p[2] == where)
    container[key] = base64.b64encode(change(base64.b64decode(container[key]))).decode()
    return json.dumps(doc)


def _string_value_path(doc: dict) -> str:
    k = next(i for i, v in enumerate(doc["expressions"]["values"]) if v["type"] == "string")
    return f"expressions.values[{k}].ipc"


def _offset_past_the_buffer(raw: bytes) -> bytes:
    """A one-string array whose end offset says 0x7fff0000 (its data is 5 bytes)."""
    raw = bytearray(raw)
    at = raw.find(b"\x00\x00\x00\x00\x05\x00\x00\x00hello")
    raw[at + 4:at + 8] = (0x7FFF0000).to_bytes(4, "little")
    return bytes(raw)


def test_a_string_offset_past_its_buffer_is_refused_not_a_crash(loader):
    where = _string_value_path(json.loads(STRINGS))
    answer = loader.load(_with_payload(STRINGS, where, _offset_past_the_buffer))
    assert answer["outcome"] == "refused", answer
    assert where in answer["message"] and "offsets" in answer["message"]


def _ipc_of(array: pa.Array, **options) -> bytes:
    sink = pa.BufferOutputStream()
    batch = pa.RecordBatch.from_arrays([array], ["v"])
    with pa.ipc.new_stream(sink, batch.schema, options=pa.ipc.IpcWriteOptions(**options)) as w:
        w.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _claiming_nulls(length: int) -> bytes:
    """An array of nulls claiming `length` rows: nulls need no bytes, so nothing disagrees."""
    small = 0x5EED5EED
    raw = _ipc_of(pa.nulls(small))
    return raw.replace(small.to_bytes(8, "little"), length.to_bytes(8, "little"))


@pytest.mark.parametrize("damage, says", [
    (lambda raw: b"not arrow at all", "not Arrow IPC"),
    (lambda raw: raw[:len(raw) // 2], "not Arrow IPC"),
    (lambda raw: raw[:12], "not Arrow IPC"),
    (lambda raw: _ipc_of(pa.array(["x"] * 4_000_000), compression="zstd"), "compressed"),
    (lambda raw: _claiming_nulls(1 << 40), "elements"),
    (lambda raw: _ipc_of(pa.array(["x", "y"])), "holds 2 rows, not 1"),
])
def test_damaged_ipc_is_refused_with_its_json_path(loader, damage, says):
    where = _string_value_path(json.loads(STRINGS))
    answer = loader.load(_with_payload(STRINGS, where, damage))
    assert answer["outcome"] == "refused", answer
    assert where in answer["message"] and says in answer["message"]


def test_damaged_options_are_refused_with_their_json_path(loader):
    doc = json.loads(STRINGS)
    k = next(i for i, n in enumerate(doc["expressions"]["nodes"]) if n.get("options"))
    where = f"expressions.nodes[{k}].options.ipc"
    for damage in (lambda raw: raw[:40] + raw[-40:], lambda raw: raw.replace(b"yy", b"\xff\xfe")):
        answer = loader.load(_with_payload(STRINGS, where, damage))
        assert answer["outcome"] == "refused", answer
        assert where in answer["message"]


def test_a_five_thousand_digit_number_is_refused_by_its_path():
    doc = json.loads(REAL)
    doc["steps"][0]["before"] = "a long number"
    text = json.dumps(doc).replace('"a long number"', "9" * 5_000)
    with pytest.raises(TraceFormatError, match=r"steps\[0\]\.before is a 5,000-digit number"):
        tk.Trace.from_json(text)


def _all_ones_selection_trace(num_rows: int) -> str:
    """The evaluation of the strings trace claiming `num_rows` rows, every branch all ones."""
    doc = json.loads(STRINGS)
    step = next(s for s in doc["steps"] if s["kind"] == "eval" and s["branches"])
    ones = base64.b64encode(zlib.compress(b"\xff" * (num_rows // 8), 9)).decode()
    step["num_rows"] = num_rows
    for branch in step["branches"]:
        branch.update(total_rows=num_rows, rows={"bitmap": ones, "count": num_rows})
    for node in step["nodes"]:
        node.update(rows=min(node["rows"], num_rows), used_rows=None)
    for key in ("data", "result", "sample", "error"):
        step[key] = None
    return json.dumps(doc)


def test_a_small_trace_claiming_half_a_billion_selected_rows_is_refused(loader):
    text = _all_ones_selection_trace(2 ** 29)
    assert len(text) < 250_000  # each bitmap is 64 MB: 4 GiB as row indices
    answer = loader.load(text)
    assert answer["outcome"] == "refused", answer
    assert f"more than the {MAX_EXPANDED_ROWS:,}" in answer["message"]
    assert re.search(r"steps\[\d+\] claims 536,870,912 rows", answer["message"])


def test_selections_load_as_bitmaps_and_render_within_the_memory_cap(loader):
    rows = 2 ** 23  # more than a 5,000,000-row evaluation
    text = _all_ones_selection_trace(rows)
    trace = tk.Trace.from_json(text)
    branches = trace.evaluations[0].branches
    assert all(b.pieces is not None and b.count == rows for b in branches)  # not expanded
    assert branches[0].first(3).to_pylist() == [0, 1, 2]
    assert loader.load(text)["outcome"] == "ok"  # drawing them expands them, boundedly


def test_a_branch_below_a_leaf_is_refused_at_load():
    doc = json.loads(STRINGS)
    k, step = next((k, s) for k, s in enumerate(doc["steps"]) if s["kind"] == "eval")
    leaf = next(n["at"] for n in step["nodes"] if n["label"] == "s")
    step["positions"].append([leaf, 0])
    step["branches"][0]["at"] = len(step["positions"])
    with pytest.raises(TraceFormatError, match=rf"steps\[{k}\]\.branches\[0\]\.at places the "
                                               "branch below a leaf"):
        tk.Trace.from_json(json.dumps(doc))


def _deep_optimize_json(depth: int) -> tuple[tk.Trace, str]:
    """A traced optimize with a rewrite at every other level, down to `depth`: a fold of
    `1 + 1` under each `if_else`."""
    a = tk.field("a")
    expr = a
    for k in range(depth):
        expr = expr + (tk.literal(1) + 1) if k % 2 else tk.if_else(a > k, expr, tk.literal(k))
    with tk.trace() as t:
        tk.optimize(expr, pa.schema([("a", pa.int64())]))
    return t, t.to_json()


def test_a_deep_traced_optimize_reads_back_and_grows_linearly():
    # 3,000 rather than 10,000 deep: placing every rewrite (the optimizer's own work, not the
    # trace's) takes 30 s at 10,000; benchmarks/bench_trace_json.py measures that depth
    _, small = _deep_optimize_json(300)
    live, big = _deep_optimize_json(3_000)
    assert len(big) / len(small) < 12  # each rewrite's path written in full: 100x
    back = tk.Trace.from_json(big)
    paths = [[tuple(r.path) for r in p.rewrites] for p in back.passes]
    assert paths == [[tuple(r.path) for r in p.rewrites] for p in live.passes]
    assert max(len(path) for rewrites in paths for path in rewrites) >= 2_999


_SIZE_KEYS = ("num_rows", "total_rows", "count", "rows", "length", "used_rows", "calls")
_HUGE = [0, 1, 7, 2 ** 28, 2 ** 29, 2 ** 31, 2 ** 40, -1, "9" * 5_000]


def _mutate_bytes(data, raw: bytes) -> bytes:
    if not raw:
        return b"\x00"
    how = data.draw(st.sampled_from(["flip", "cut", "int32", "int64", "append"]))
    at = data.draw(st.integers(0, len(raw) - 1))
    out = bytearray(raw)
    if how == "flip":
        out[at] ^= data.draw(st.integers(1, 255))
    elif how == "cut":
        out = out[:at]
    elif how in ("int32", "int64"):
        size = 4 if how == "int32" else 8
        value = data.draw(st.sampled_from([0x7FFF0000, 0xFFFFFFFF, 0x80000000, 2 ** 31 - 1,
                                           1, 0, 2 ** (8 * size - 1) - 1]))
        out[at:at + size] = value.to_bytes(size, "little")
    else:
        out += data.draw(st.binary(min_size=1, max_size=64))
    return bytes(out)


@given(data=st.data())
def test_mutated_payloads_and_sizes_load_and_render_or_are_refused_by_path(loader, data):
    text = data.draw(st.sampled_from([STRINGS, REAL]))
    doc = json.loads(text)
    for _ in range(data.draw(st.integers(1, 2))):
        if data.draw(st.booleans()):
            container, key, where = data.draw(st.sampled_from(_payloads(doc)))
            raw = base64.b64decode(container[key])
            container[key] = base64.b64encode(_mutate_bytes(data, raw)).decode()
        else:
            sizes = [(c, k) for c, k in _paths(doc) if k in _SIZE_KEYS
                     and isinstance(c[k], int) and not isinstance(c[k], bool)]
            container, key = data.draw(st.sampled_from(sizes))
            container[key] = data.draw(st.sampled_from(_HUGE))
    text = json.dumps(doc).replace('"' + "9" * 5_000 + '"', "9" * 5_000)
    answer = loader.load(text)
    assert answer["outcome"] in ("ok", "refused"), answer
    if answer["outcome"] == "refused":
        assert re.search(r"(steps\[\d+\]|expressions\.\w+)", answer["message"]), answer
