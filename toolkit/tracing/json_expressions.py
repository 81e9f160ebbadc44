"""Expressions as JSON: a flat table of nodes, each naming its arguments by index.

Flat because a 10,000-deep tree must neither recurse here nor in the `json`
module. One table serves a whole trace: a node already written (the same
object) is written once, so a pass's unchanged subtrees stay shared after
loading, and the renderers, which compare by identity, draw a loaded trace
exactly as they drew the live one. Bound nodes keep their types; calls get
their kernel back by exact dispatch on the stored argument types.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import TraceFormatError
from ..functions.bind import bind_call
from ..model.expression import Call, Expression, Literal, Parameter
from ..model.field_ref import FieldPath, FieldRef
from ..model.scalar_values import python_value
from .json_values import (
    array_from_json,
    array_to_json,
    options_from_json,
    options_to_json,
    scalar_from_json,
    scalar_to_json,
    type_from_json,
    type_to_json,
)

__all__ = [
    "ExpressionReader",
    "ExpressionWriter",
    "expression_from_doc",
    "expression_to_doc",
    "ref_from_json",
    "ref_to_json",
]


def ref_to_json(ref: FieldRef) -> dict:
    impl = ref.impl
    if isinstance(impl, str):
        return {"name": impl}
    if isinstance(impl, FieldPath):
        return {"path": list(impl.indices)}
    return {"nested": [ref_to_json(r) for r in impl]}  # flattened: one level only


def ref_from_json(doc: dict) -> FieldRef:
    if "name" in doc:
        return FieldRef(doc["name"])
    if "path" in doc:
        indices = doc["path"]
        return FieldRef(FieldPath(indices)) if indices else FieldRef._from_impl(FieldPath())
    parts = [ref_from_json(d) for d in doc["nested"]]
    return FieldRef(*parts) if parts else FieldRef._from_impl(())


class ExpressionWriter:
    """Collects the nodes of any number of expressions; `add` returns a root's index."""

    def __init__(self):
        self.nodes: list[dict] = []
        self.types: list[dict] = []
        self._type_index: dict[str, int] = {}
        self._node_index: dict[int, int] = {}
        self.values: list[dict] = []  # literal values, each distinct one written once
        self._value_index: dict[tuple, int] = {}
        self._alive: list[Expression] = []  # ids stay unique while the writer lives

    def add(self, expr: Expression) -> int:
        known = self._node_index
        stack: list[tuple[Expression, bool]] = [(expr, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in known:
                continue
            if not expanded:
                stack.append((node, True))
                for arg in reversed(node.args):
                    if id(arg) not in known:
                        stack.append((arg, False))
                continue
            known[id(node)] = len(self.nodes)
            self._alive.append(node)
            self.nodes.append(self._node_doc(node))
        return known[id(expr)]

    def _type(self, t: pa.DataType | None) -> int | None:
        if t is None:
            return None
        doc = type_to_json(t)
        index = self._type_index.get(doc["ipc"])
        if index is None:
            index = self._type_index[doc["ipc"]] = len(self.types)
            self.types.append(doc)
        return index

    def _value(self, value: pa.Scalar) -> int:
        key = _value_key(value)
        index = None if key is None else self._value_index.get(key)
        if index is None:
            index = len(self.values)
            self.values.append(scalar_to_json(value))
            if key is not None:
                self._value_index[key] = index
        return index

    def _node_doc(self, node: Expression) -> dict:
        if node.is_literal:
            if node.is_scalar:
                return {"k": "literal", "value": self._value(node.value)}
            return {"k": "literal", "array": array_to_json(node.value)}
        if node.is_field:
            return {"k": "field", "ref": ref_to_json(node.ref), "type": self._type(node.field_type),
                    "path": None if node.path is None else list(node.path.indices),
                    "nullable": bool(node.nullable)}
        return {"k": "call", "name": node.name,
                "args": [self._node_index[id(a)] for a in node.args],
                "options": None if node.options is None else options_to_json(node.options),
                "type": self._type(node.call_type), "bound": node.kernel is not None}

    def doc(self) -> dict:
        return {"nodes": self.nodes, "types": self.types, "values": self.values}


def _value_key(value: pa.Scalar) -> tuple | None:
    """A key that tells apart every distinct simple value (-0.0 from 0.0); None: don't share."""
    if not value.is_valid:
        return (str(value.type), "null")
    if pa.types.is_nested(value.type) or pa.types.is_dictionary(value.type) \
            or isinstance(value.type, pa.ExtensionType):
        return None
    py = python_value(value)
    if isinstance(py, float):
        return (str(value.type), "float", py.hex())
    if isinstance(py, (bool, int, str, bytes)):
        return (str(value.type), type(py).__name__, py)
    return None


class ExpressionReader:
    """Rebuilds the nodes of an `ExpressionWriter.doc()`; `get(i)` is node i."""

    def __init__(self, doc: dict, where: str = "expressions"):
        types = [type_from_json(t, f"{where}.types[{i}]")
                 for i, t in enumerate(doc.get("types", []))]
        values = [scalar_from_json(v, f"{where}.values[{i}]")
                  for i, v in enumerate(doc.get("values", []))]
        self.nodes: list[Expression] = []
        for i, n in enumerate(doc["nodes"]):
            at = f"{where}.nodes[{i}]"
            kind = n["k"]
            if kind == "literal":
                value = (values[n["value"]] if "value" in n
                         else array_from_json(n["array"], f"{at}.array"))
                self.nodes.append(Literal(value))
            elif kind == "field":
                t = None if n.get("type") is None else types[n["type"]]
                path = None if n.get("path") is None else FieldPath(n["path"])
                self.nodes.append(Parameter(ref_from_json(n["ref"]), t, path,
                                            n.get("nullable", True)))
            elif kind == "call":
                args = [self.nodes[a] for a in n["args"]]
                options = (None if n.get("options") is None
                           else options_from_json(n["options"], f"{at}.options"))
                t = None if n.get("type") is None else types[n["type"]]
                self.nodes.append(_call(n["name"], args, options, t, n.get("bound", False)))
            else:
                raise TraceFormatError(f"not a valid exprscope trace: {at}.k is {kind!r}")

    def get(self, index: int | None) -> Expression | None:
        return None if index is None else self.nodes[index]


def _call(name, args, options, call_type, bound) -> Call:
    """The call, with its kernel again when exact dispatch finds the recorded type."""
    if bound and call_type is not None and all(a.type is not None for a in args):
        try:
            rebound = bind_call(Call(name, args, options), insert_implicit_casts=False)
            if rebound.call_type == call_type and all(
                    x is y for x, y in zip(rebound.args, args)):
                return rebound
        except Exception:  # a function unknown here or a changed signature: keep the type
            pass
    return Call(name, args, options, call_type=call_type)


def expression_to_doc(expr: Expression) -> dict:
    """One expression as a standalone JSON-able document."""
    writer = ExpressionWriter()
    root = writer.add(expr)
    return {"root": root, **writer.doc()}


def expression_from_doc(doc: dict) -> Expression:
    return ExpressionReader(doc).get(doc["root"])
