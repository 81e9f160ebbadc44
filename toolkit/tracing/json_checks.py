"""A saved trace is a stranger's input: its JSON is checked whole before anything reads it.

`check_trace_text(text)` refuses what would hurt before parsing (size, nesting
depth), and `check_trace_doc(doc)` walks the parsed document against the
format `json_steps` writes: every field of the right kind, every index in
range and pointing backwards (so the expression table is a DAG), every count
within bounds, and every expression small enough once shared nodes are
expanded (a 3 KB file of nodes shared 60 levels deep would otherwise unfold
into 2^60 nodes in a renderer). Any problem is one `TraceFormatError` naming the
JSON path, such as `steps[3].nodes[0].rows`. What passes these checks decodes
and renders: the mutation tests hold the renderers to it.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import TraceFormatError
from .json_steps import FORMAT, VERSION

__all__ = ["MAX_DEPTH", "MAX_EXPANDED_NODES", "MAX_EXPANDED_ROWS", "MAX_ROWS",
           "MAX_TEXT_BYTES", "LongNumber", "check_trace_doc", "check_trace_text",
           "whole_number"]

MAX_TEXT_BYTES = 512 * 1024 * 1024  # the JSON text
MAX_DEPTH = 64  # nesting of JSON arrays and objects (the format needs about 8)
MAX_ROWS = 2 ** 29  # rows an evaluation in a trace may claim (a 64 MB bitmap)
MAX_THREADS = 1 << 16  # threads an evaluation in a trace may claim to have run on
MAX_EXPANDED_NODES = 2_000_000  # nodes of one expression with shared subtrees unfolded
# What the row selections of a whole trace may expand to once drawn, in rows: per
# evaluation its rows once, and once more per special form that recorded branches (a
# per-row table of the branch each took), plus per branch its selected rows (as int64
# indices when read) and its bitmap's bytes. Each unit is at most 8 bytes when all is
# drawn, so 2^28 bounds that at 2 GiB; a 5,000,000-row evaluation through 40 nested
# forms uses about 210 million. A trace claiming more is refused before anything expands.
MAX_EXPANDED_ROWS = 2 ** 28
MAX_NUMBER_DIGITS = 40  # longer whole numbers in a trace are kept as their digit count

_NUMBER = (int, float)


MAX_SAMPLE_ROWS = 100_000  # a sampled evaluation keeps far fewer; more is not a sample


class LongNumber:
    """A whole number too long for a trace, read as its digit count: converting 5,000
    digits to an int raises a bare ValueError, and no field of a trace needs more than 40."""

    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits

    def __str__(self) -> str:
        return f"a {self.digits:,}-digit number"

    __repr__ = __str__


def whole_number(digits: str):
    """`json.loads`'s `parse_int`: an int, or a `LongNumber` the checks refuse by path."""
    if len(digits) > MAX_NUMBER_DIGITS:
        return LongNumber(len(digits.lstrip("-")))
    return int(digits)


def check_trace_text(text) -> None:
    """Size and nesting depth, checked without parsing (json.loads recurses)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise TraceFormatError(f"a trace is JSON text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_BYTES:
        raise TraceFormatError(f"the trace is {len(text):,} bytes; at most {MAX_TEXT_BYTES:,} "
                               "are read")
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    outside_strings = _JSON_STRING.sub(b'""', data)  # brackets inside strings do not nest
    codes = np.frombuffer(outside_strings, dtype=np.uint8)
    depth = 0
    for start in range(0, codes.size, _CHUNK):  # a running sum per chunk: bounded memory
        chunk = codes[start:start + _CHUNK]
        levels = np.cumsum(_NESTING[chunk]) + depth
        if int(levels.max()) > MAX_DEPTH:
            raise TraceFormatError(f"the trace's JSON nests deeper than {MAX_DEPTH} levels")
        depth = int(levels[-1])


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_CHUNK = 1 << 24
_NESTING = np.zeros(256, dtype=np.int32)  # per byte: +1 opens a level, -1 closes one
_NESTING[[ord("["), ord("{")]] = 1
_NESTING[[ord("]"), ord("}")]] = -1


def check_trace_doc(doc) -> None:
    """Every field of a parsed trace, as the format defines it."""
    _Checker().trace(doc)


class _Checker:
    def fail(self, where: str, what: str):
        raise TraceFormatError(f"not a valid exprscope trace: {where} {what}")

    # -- kinds of value -------------------------------------------------------------
    def obj(self, value, where: str) -> dict:
        if not isinstance(value, dict):
            self.fail(where, f"must be an object, not {_kind(value)}")
        return value

    def items(self, value, where: str) -> list:
        if not isinstance(value, list):
            self.fail(where, f"must be a list, not {_kind(value)}")
        return value

    def text(self, value, where: str, optional: bool = False) -> None:
        if optional and value is None:
            return
        if not isinstance(value, str):
            self.fail(where, f"must be text, not {_kind(value)}")

    def flag(self, value, where: str) -> None:
        if not isinstance(value, bool):
            self.fail(where, f"must be true or false, not {_kind(value)}")

    def number(self, value, where: str, optional: bool = True) -> None:
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, _NUMBER) or value != value:
            self.fail(where, f"must be a number, not {_kind(value)}")

    def count(self, value, where: str, low: int = 0, high: int = MAX_ROWS,
              optional: bool = False) -> None:
        if value is None and optional:
            return
        if isinstance(value, LongNumber):
            self.fail(where, f"is {value}; it must lie in [{low:,}, {high:,}]")
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(where, f"must be a whole number, not {_kind(value)}")
        if not low <= value <= high:
            self.fail(where, f"is {value:,}; it must lie in [{low:,}, {high:,}]")

    def firings(self, value, where: str, positions: list | None):
        """Each RuleApplied record (rule, reason, place checked) with its JSON path."""
        for i, item in enumerate(self.items(value, where)):
            at = f"{where}[{i}]"
            item = self.obj(item, at)
            self.text(item.get("rule"), f"{at}.rule")
            self.text(item.get("reason"), f"{at}.reason")
            self.position(item, positions, at)
            yield item, at

    def positions(self, doc: dict, where: str) -> list | None:
        """A step's [parent, index] table (None for a step from before there was one)."""
        if "positions" not in doc:
            return None
        positions = self.items(doc["positions"], f"{where}.positions")
        for k, row in enumerate(positions):
            at = f"{where}.positions[{k}]"
            row = self.items(row, at)
            if len(row) != 2:
                self.fail(at, "must be [parent, index]")
            self.count(row[0], f"{at}[0]", 0, k)  # a parent is written before its children
            self.count(row[1], f"{at}[1]", 0, 10 ** 6)
        return positions

    def path(self, value, where: str) -> None:
        for i, step in enumerate(self.items(value, where)):
            self.count(step, f"{where}[{i}]", 0, 10 ** 6)

    def position(self, item: dict, positions: list | None, where: str) -> None:
        """A node's or branch's place: "at", a row of the positions table, or a full "path"."""
        if positions is None:
            self.path(item.get("path"), f"{where}.path")
        else:
            self.count(item.get("at"), f"{where}.at", 0, len(positions))

    def ref(self, value, where: str) -> None:
        value = self.obj(value, where)
        if "name" in value:
            self.text(value["name"], f"{where}.name")
        elif "path" in value:
            self.path(value["path"], f"{where}.path")
        elif "nested" in value:
            for i, part in enumerate(self.items(value["nested"], f"{where}.nested")):
                part = self.obj(part, f"{where}.nested[{i}]")
                if "nested" in part:
                    self.fail(f"{where}.nested[{i}]", "nests a reference in a nested reference")
                self.ref(part, f"{where}.nested[{i}]")
        else:
            self.fail(where, "has no name, path or nested parts")

    def blob(self, value, where: str, *keys: str) -> None:
        """Arrow payloads (IPC, base64): their own decoders check the bytes."""
        value = self.obj(value, where)
        for key in keys:
            self.text(value.get(key), f"{where}.{key}")

    # -- the format -----------------------------------------------------------------
    def trace(self, doc) -> None:
        doc = self.obj(doc, "the trace")
        if doc.get("format") != FORMAT:
            raise TraceFormatError(f'not an exprscope trace: the JSON has no "format": '
                                   f'"{FORMAT}" field')
        self.count(doc.get("version"), "version", 0, 10 ** 6)
        if doc["version"] > VERSION:
            raise TraceFormatError(f"this trace was written by a newer exprscope (format version "
                                   f"{doc['version']}; this one reads up to {VERSION})")
        expressions = self.obj(doc.get("expressions"), "expressions")
        self.nodes: list[dict] = []
        self.expanded = 0  # rows the selections of the steps so far expand to
        self.node_count = self.expressions(expressions)
        for i, step in enumerate(self.items(doc.get("steps"), "steps")):
            self.step(step, f"steps[{i}]")

    def expressions(self, doc: dict) -> int:
        types = self.items(doc.get("types", []), "expressions.types")
        values = self.items(doc.get("values", []), "expressions.values")
        for i, t in enumerate(types):
            self.blob(t, f"expressions.types[{i}]", "ipc")
        for i, v in enumerate(values):
            self.obj(v, f"expressions.values[{i}]")
        nodes = self.items(doc.get("nodes"), "expressions.nodes")
        self.nodes = nodes
        expanded: list[int] = []
        for i, node in enumerate(nodes):
            where = f"expressions.nodes[{i}]"
            node = self.obj(node, where)
            kind = node.get("k")
            size = 1
            if kind == "literal":
                if "value" in node:
                    self.count(node["value"], f"{where}.value", 0, len(values) - 1)
                else:
                    self.blob(node.get("array"), f"{where}.array", "ipc")
            elif kind == "field":
                self.ref(node.get("ref"), f"{where}.ref")
                self.count(node.get("type"), f"{where}.type", 0, len(types) - 1, optional=True)
                if node.get("path") is not None:
                    self.path(node["path"], f"{where}.path")
                if "nullable" in node:
                    self.flag(node["nullable"], f"{where}.nullable")
            elif kind == "call":
                self.text(node.get("name"), f"{where}.name")
                for j, arg in enumerate(self.items(node.get("args"), f"{where}.args")):
                    self.count(arg, f"{where}.args[{j}]", 0, i - 1)  # earlier nodes only
                    size += expanded[arg]
                if node.get("options") is not None:
                    self.blob(node["options"], f"{where}.options", "class", "ipc")
                self.count(node.get("type"), f"{where}.type", 0, len(types) - 1, optional=True)
                if "bound" in node:
                    self.flag(node["bound"], f"{where}.bound")
            else:
                self.fail(f"{where}.k", f"is {kind!r}; it must be literal, field or call")
            if size > MAX_EXPANDED_NODES:
                self.fail(where, f"unfolds into more than {MAX_EXPANDED_NODES:,} nodes "
                                 "(its subtrees are shared over and over)")
            expanded.append(size)
        return len(nodes)

    def places(self, root: int, positions: list) -> list[int | None]:
        """The expression node (table index) at each position of a step; None where the
        position lies below a leaf or past a call's arguments. Parents come first."""
        out: list[int | None] = [root]
        for parent, index in positions:
            node = out[parent]
            args = None if node is None else self.nodes[node].get("args")
            out.append(args[index] if isinstance(args, list) and index < len(args) else None)
        return out

    def node_at(self, root: int, path: tuple) -> int | None:
        """The expression node at a path written in full (version 1), or None."""
        node = root
        for index in path:
            args = self.nodes[node].get("args")
            if not isinstance(args, list) or index >= len(args):
                return None
            node = args[index]
        return node

    def expr(self, value, where: str, optional: bool = False) -> None:
        """An index into the expression table; `optional`: null stands for no expression."""
        self.count(value, where, 0, self.node_count - 1, optional=optional)

    def step(self, doc, where: str) -> None:
        doc = self.obj(doc, where)
        kind = doc.get("kind")
        if kind == "pass":
            self.text(doc.get("name"), f"{where}.name")
            self.expr(doc.get("before"), f"{where}.before")
            self.expr(doc.get("after"), f"{where}.after")
            self.flag(doc.get("changed"), f"{where}.changed")
            self.number(doc.get("elapsed"), f"{where}.elapsed")
            positions = self.positions(doc, where)
            for r, at in self.firings(doc.get("rewrites"), f"{where}.rewrites", positions):
                self.expr(r.get("before"), f"{at}.before", optional=True)
                self.expr(r.get("after"), f"{at}.after", optional=True)
        elif kind == "eval":
            self.evaluation(doc, where)
        elif kind == "invariant":
            for key in ("name", "level", "subject"):
                self.text(doc.get(key), f"{where}.{key}")
            self.flag(doc.get("passed"), f"{where}.passed")
            self.text(doc.get("details"), f"{where}.details", optional=True)
        elif kind == "plan_rule":
            self.text(doc.get("rule"), f"{where}.rule")
            self.flag(doc.get("changed"), f"{where}.changed")
            self.text(doc.get("reason"), f"{where}.reason", optional=True)
            if "applied" in doc:
                positions = self.positions(doc, where)
                for _ in self.firings(doc.get("applied"), f"{where}.applied", positions):
                    pass
            for key in ("before", "after"):
                self.plan(doc.get(key), f"{where}.{key}")
        else:
            self.fail(f"{where}.kind", f"is {kind!r}; it must be pass, eval, invariant or "
                                       "plan_rule")

    def evaluation(self, doc: dict, where: str) -> None:
        self.expr(doc.get("expr"), f"{where}.expr")
        self.count(doc.get("num_rows"), f"{where}.num_rows")
        rows = doc["num_rows"]
        if doc.get("mode") not in ("lazy", "eager"):
            self.fail(f"{where}.mode", "must be lazy or eager")
        self.number(doc.get("elapsed"), f"{where}.elapsed")
        if doc.get("threads") is not None:
            self.count(doc.get("threads"), f"{where}.threads", 1, MAX_THREADS)
        positions = self.positions(doc, where)
        for i, node in enumerate(self.items(doc.get("nodes"), f"{where}.nodes")):
            at = f"{where}.nodes[{i}]"
            node = self.obj(node, at)
            self.position(node, positions, at)
            self.text(node.get("label"), f"{at}.label")
            self.count(node.get("rows"), f"{at}.rows", 0, rows)
            if node.get("used_rows") is not None:
                self.count(node.get("used_rows"), f"{at}.used_rows", 0, node["rows"])
            for key in ("how", "why", "fused"):
                self.text(node.get(key), f"{at}.{key}", optional=True)
            if node.get("type") is not None:
                self.blob(node["type"], f"{at}.type", "ipc")
            self.number(node.get("elapsed"), f"{at}.elapsed")
            self.count(node.get("calls"), f"{at}.calls", 0, MAX_ROWS)
            if node.get("threads") is not None:
                self.count(node.get("threads"), f"{at}.threads", 1, MAX_THREADS)
        branches = self.items(doc.get("branches"), f"{where}.branches")
        places = self.places(doc["expr"], positions) if branches and positions else None
        forms, expanded = set(), 0
        for i, branch in enumerate(branches):
            at = f"{where}.branches[{i}]"
            branch = self.obj(branch, at)
            self.position(branch, positions, at)
            form = branch["at"] if positions is not None else tuple(branch["path"])
            node = places[form] if places is not None else self.node_at(doc["expr"], form)
            if node is None or self.nodes[node].get("k") != "call":
                self.fail(f"{at}.{'at' if positions is not None else 'path'}",
                          "places the branch below a leaf or outside the expression: a "
                          "branch belongs to a special form, a call in the tree")
            forms.add(form)
            self.text(branch.get("branch"), f"{at}.branch")
            self.count(branch.get("arg_index"), f"{at}.arg_index", 0, 10 ** 6, optional=True)
            self.count(branch.get("total_rows"), f"{at}.total_rows", 0, rows)
            selection = self.obj(branch.get("rows"), f"{at}.rows")
            self.count(selection.get("count"), f"{at}.rows.count", 0, branch["total_rows"])
            if "bitmap" in selection:
                self.text(selection["bitmap"], f"{at}.rows.bitmap")
            else:
                self.text(selection.get("list"), f"{at}.rows.list")
            expanded += selection["count"] + branch["total_rows"] // 8
        self.expanded += expanded + rows * (1 + len(forms))
        if self.expanded > MAX_EXPANDED_ROWS:
            self.fail(where, f"claims {rows:,} rows and {len(branches):,} branch selections "
                             f"in {len(forms):,} special forms: with the steps before, the "
                             f"trace would expand to {self.expanded:,} rows when drawn, more "
                             f"than the {MAX_EXPANDED_ROWS:,} a loaded trace may")
        if doc.get("error") is not None:
            at = f"{where}.error"
            error = self.obj(doc["error"], at)
            self.text(error.get("kind"), f"{at}.kind")
            self.text(error.get("message"), f"{at}.message")
            self.path(error.get("path", []), f"{at}.path")
            self.count(error.get("row"), f"{at}.row", 0, max(rows - 1, 0), optional=True)
            self.expr(error.get("node"), f"{at}.node", optional=True)
        if doc.get("result") is not None:
            result = self.obj(doc["result"], f"{where}.result")
            if "scalar" in result:
                self.obj(result["scalar"], f"{where}.result.scalar")
            else:
                self.blob(result.get("array"), f"{where}.result.array", "ipc")
        sample = doc.get("sample")
        if sample is not None:
            items = self.items(sample, f"{where}.sample")
            if len(items) > MAX_SAMPLE_ROWS:
                self.fail(f"{where}.sample", f"has {len(items):,} rows; a sample keeps at most "
                                             f"{MAX_SAMPLE_ROWS:,}")
            for i, row in enumerate(items):
                self.count(row, f"{where}.sample[{i}]", 0, max(rows - 1, 0))
            if any(a >= b for a, b in zip(items, items[1:])):
                self.fail(f"{where}.sample", "must list rows in increasing order, each once")
        if doc.get("data") is not None:
            self.blob(doc["data"], f"{where}.data", "ipc")
            kept = rows if sample is None else len(sample)
            self.count(doc["data"].get("rows"), f"{where}.data.rows", kept, kept)

    def plan(self, doc, where: str) -> None:
        if doc is None:
            return
        doc = self.obj(doc, where)
        if "text" in doc:
            self.text(doc["text"], f"{where}.text")
            return
        for i, row in enumerate(self.items(doc.get("nodes"), f"{where}.nodes")):
            at = f"{where}.nodes[{i}]"
            row = self.obj(row, at)
            self.text(row.get("label"), f"{at}.label")
            self.text(row.get("schema"), f"{at}.schema")
            if i == 0 and row.get("parent") is not None:
                self.fail(f"{at}.parent", "must be null: the first node is the root")
            if i:
                self.count(row.get("parent"), f"{at}.parent", 0, i - 1)


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, LongNumber):
        return str(value)
    return {bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)
