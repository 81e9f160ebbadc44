"""A RowStory as JSON and back, as traces are: a saved story is a stranger's input.

Values are written as one-row Arrow IPC streams (base64), so every type survives
the round trip. Reading checks the whole document before building anything: its
size, its nesting, every field's type, every value's bytes; anything else is a
`TraceFormatError` naming the JSON path.
"""

from __future__ import annotations

import base64
import binascii
import json

import pyarrow as pa

from ..errors import TraceFormatError
from ..rewrite.positions import TreePositions
from ..support.late import provide
from ..support.visible_text import visible
from .records import NodeStory, RowStory, TreeChange

__all__ = ["story_from_json", "story_to_json"]

FORMAT = "exprscope.row_story"
VERSION = 1
MAX_TEXT = 64 * 1024 * 1024
MAX_NODES = 2_000_000
MAX_VALUE_BYTES = 1024 * 1024


def _value_out(value):
    if value is None:
        return None
    batch = pa.record_batch([pa.array([value], value.type)], names=["v"])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return {"ipc": base64.b64encode(sink.getvalue().to_pybytes()).decode("ascii")}


def _placed(nodes) -> list[tuple[int, int]]:
    """Each node as (its parent's place in the list, its index under the parent): paths are
    written as a table, so a 10,000-deep story is not 50 million path numbers."""
    where = {}
    out = []
    for i, n in enumerate(nodes):
        path = n.path
        where[path] = i
        if not path:
            out.append((-1, 0))
            continue
        parent = path.parent if hasattr(path, "parent") else path[:-1]
        last = path.last if hasattr(path, "last") else path[-1]
        out.append((where[parent], last))
    return out


def story_to_json(story: RowStory) -> str:
    doc = {
        "format": FORMAT, "version": VERSION, "row": story.row, "mode": story.mode,
        "expression": story.expression, "evaluated_expression": story.evaluated_expression,
        "value": _value_out(story.value),
        "inputs": {k: _value_out(v) for k, v in story.inputs.items()},
        "nodes": [{"parent": parent, "index": index, "expression": n.expression,
                   "label": n.label, "value": _value_out(n.value), "evaluated": n.evaluated,
                   "branch": n.branch, "note": n.note, "error": n.error, "decided": n.decided}
                  for n, (parent, index) in zip(story.nodes, _placed(story.nodes))],
        "why": story.why, "error": story.error, "spared": list(story.spared),
        "changes": [{"pass": c.pass_name, "rule": c.rule, "reason": c.reason,
                     "path": list(c.path), "written": c.written, "evaluated": c.evaluated}
                    for c in story.changes],
        "num_rows": story.num_rows, "source": story.source,
    }
    return json.dumps(doc)


class _Reader:
    def __init__(self):
        self.where = "$"

    def fail(self, where: str, what: str):
        raise TraceFormatError(f"row story JSON: {where}: {what}")

    def get(self, obj: dict, key: str, kinds, where: str, optional=False):
        if key not in obj:
            if optional:
                return None
            self.fail(f"{where}.{key}", "missing")
        value = obj[key]
        if optional and value is None:
            return None
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            self.fail(f"{where}.{key}", f"expected {kinds}, got a boolean")
        if not isinstance(value, kinds):
            self.fail(f"{where}.{key}", f"expected {_names(kinds)}, got {type(value).__name__}")
        return value

    def text(self, obj, key, where, optional=False):
        value = self.get(obj, key, str, where, optional)
        return None if value is None else visible(value) if len(value) < 1_000_000 else \
            self.fail(f"{where}.{key}", "a string over 1,000,000 characters")

    def int_(self, obj, key, where):
        value = self.get(obj, key, int, where)
        if not 0 <= value < 2**63:
            self.fail(f"{where}.{key}", f"{value} is out of range")
        return value

    def path(self, obj, key, where):
        value = self.get(obj, key, list, where)
        if len(value) > 100_000 or not all(isinstance(i, int) and not isinstance(i, bool)
                                           and 0 <= i < 2**31 for i in value):
            self.fail(f"{where}.{key}", "a path is a list of child indices")
        return tuple(value)

    def value(self, raw, where):
        if raw is None:
            return None
        if not isinstance(raw, dict) or set(raw) != {"ipc"} or not isinstance(raw["ipc"], str):
            self.fail(where, 'a value is null or {"ipc": base64 text}')
        if len(raw["ipc"]) > MAX_VALUE_BYTES * 4 // 3 + 4:
            self.fail(where, "a value over 1 MiB")
        try:
            data = base64.b64decode(raw["ipc"], validate=True)
            table = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
        except (binascii.Error, ValueError, OSError, pa.ArrowException) as exc:
            self.fail(where, f"not an Arrow IPC stream ({visible(str(exc))[:100]})")
        if table.num_columns != 1 or table.num_rows != 1:
            self.fail(where, "a value is one column of one row")
        try:
            table.validate(full=True)
        except pa.ArrowException as exc:
            self.fail(where, f"invalid Arrow data ({visible(str(exc))[:100]})")
        return table.column(0)[0]


def _names(kinds) -> str:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join({dict: "an object", list: "a list", str: "a string",
                        int: "an integer", bool: "a boolean"}.get(k, k.__name__) for k in kinds)


def story_from_json(text) -> RowStory:
    """The story `story_to_json` wrote, checked whole first (a TraceFormatError otherwise)."""
    r = _Reader()
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_TEXT:
            r.fail("$", f"{len(text):,} bytes is over the {MAX_TEXT:,} a story may take")
        text = bytes(text).decode("utf-8", errors="strict")
    if not isinstance(text, str):
        r.fail("$", f"expected JSON text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        r.fail("$", f"{len(text):,} characters is over the {MAX_TEXT:,} a story may take")
    try:
        doc = json.loads(text)
    except RecursionError:
        r.fail("$", "nested too deeply")
    except ValueError as exc:
        r.fail("$", f"not JSON ({visible(str(exc))[:100]})")
    if not isinstance(doc, dict):
        r.fail("$", "expected an object")
    if doc.get("format") != FORMAT:
        r.fail("$.format", f"expected {FORMAT!r}")
    version = doc.get("version")
    if version != VERSION:
        r.fail("$.version", f"version {visible(repr(version))[:20]} is not {VERSION} "
                            "(a newer exprscope wrote it?)")
    mode = r.text(doc, "mode", "$")
    if mode not in ("lazy", "eager"):
        r.fail("$.mode", "expected 'lazy' or 'eager'")
    raw_nodes = r.get(doc, "nodes", list, "$")
    if len(raw_nodes) > MAX_NODES:
        r.fail("$.nodes", f"{len(raw_nodes):,} nodes is over {MAX_NODES:,}")
    nodes, paths = [], []
    for i, raw in enumerate(raw_nodes):
        w = f"$.nodes[{i}]"
        if not isinstance(raw, dict):
            r.fail(w, "expected an object")
        parent = r.get(raw, "parent", int, w)
        index = r.get(raw, "index", int, w)
        if (i == 0) != (parent == -1) or not -1 <= parent < i or not 0 <= index < 2**31:
            r.fail(w, "the first node is the root (parent -1); every other names an earlier "
                      "node as its parent and its index under it")
        path = TreePositions().root if parent == -1 else paths[parent].child(index)
        paths.append(path)
        nodes.append(NodeStory(
            path=path, expression=r.text(raw, "expression", w), label=r.text(raw, "label", w),
            value=r.value(raw.get("value"), f"{w}.value"),
            evaluated=r.get(raw, "evaluated", bool, w), branch=r.text(raw, "branch", w, True),
            note=r.text(raw, "note", w), error=r.text(raw, "error", w, True),
            decided=r.get(raw, "decided", bool, w), depth=len(path)))
    if len(set(paths)) != len(paths):
        r.fail("$.nodes", "two nodes at one place")
    raw_inputs = r.get(doc, "inputs", dict, "$")
    if len(raw_inputs) > MAX_NODES:
        r.fail("$.inputs", "too many inputs")
    inputs = {visible(str(k)): r.value(v, f"$.inputs[{json.dumps(k)[:40]}]")
              for k, v in raw_inputs.items()}
    changes = []
    for i, raw in enumerate(r.get(doc, "changes", list, "$")):
        w = f"$.changes[{i}]"
        if not isinstance(raw, dict):
            r.fail(w, "expected an object")
        changes.append(TreeChange(r.text(raw, "pass", w), r.text(raw, "rule", w),
                                  r.text(raw, "reason", w), r.path(raw, "path", w),
                                  r.text(raw, "written", w), r.text(raw, "evaluated", w)))
    spared = r.get(doc, "spared", list, "$")
    if not all(isinstance(s, str) for s in spared):
        r.fail("$.spared", "expected a list of strings")
    return RowStory(
        row=r.int_(doc, "row", "$"), mode=mode, expression=r.text(doc, "expression", "$"),
        evaluated_expression=r.text(doc, "evaluated_expression", "$"),
        value=r.value(doc.get("value"), "$.value"), inputs=inputs, nodes=tuple(nodes),
        why=r.text(doc, "why", "$"), error=r.text(doc, "error", "$", True),
        spared=tuple(visible(s) for s in spared), changes=tuple(changes),
        num_rows=r.int_(doc, "num_rows", "$"), source=r.text(doc, "source", "$"))


provide("row_story_to_json", story_to_json)
provide("row_story_from_json", story_from_json)
