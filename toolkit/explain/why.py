"""Why a row got its value: the terms that decided it, and where a null came from.

For a false or null boolean the deciding terms are named: the first false term
of an `and` (or its null terms), every term of an `or`, both operands of a
comparison (the columns any other false term reads), down to the column a null came
from. A failed evaluation names the
node, its arguments' values and the error; in lazy mode the errors a special form
spared the row are added.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa

from ..model.expression import Expression
from ..model.options import options_short_text
from ..support.visible_text import visible
from .expression_text import term_text
from .value_text import value_text

__all__ = ["Deciders", "explain_why", "null_note", "path_text"]

_COMPARISONS = {"equal": "=", "not_equal": "!=", "less": "<", "less_equal": "<=",
                "greater": ">", "greater_equal": ">="}
_MAX_TERMS = 12  # a sentence names at most this many terms; the rest are counted


@dataclass(frozen=True)
class Deciders:
    """What `explain_why` reads: the evaluated tree, its nodes and their computed values."""

    tree: Expression
    nodes: list
    computed: dict
    evaluated: set


def _value(d: Deciders, path):
    got = d.computed.get(path)
    return None if got is None else got.value


def _is(value, truth) -> bool:
    return value is not None and value.is_valid and value.as_py() is truth


def _null(value) -> bool:
    return value is not None and not value.is_valid


def path_text(path) -> str:
    """A path for a sentence: `0/1/2`, `root`; a deep one by its ends and its depth."""
    if not path:
        return "root"
    steps = tuple(path) if len(path) <= 12 else None
    if steps is not None:
        return "/".join(str(i) for i in steps)
    last = path.last if hasattr(path, "last") else path[-1]  # O(1) on a TreePath
    return f"…/{last} (depth {len(path)})"


def _chain(node: Expression, path: tuple, name: str) -> list[tuple[tuple, Expression]]:
    """The members of a left/right chain of `name` calls, left to right, with their paths."""
    out, stack = [], [(path, node)]
    while stack:
        p, n = stack.pop()
        if n.is_call and n.name == name and len(n.args) == 2:
            stack.append((p.child(1), n.args[1]))
            stack.append((p.child(0), n.args[0]))
        else:
            out.append((p, n))
    return out


def null_source(node: Expression, path: tuple, computed: dict,
                reached=None) -> tuple[tuple, Expression]:
    """Follow a null down its first null argument to where it arose (a column or a call).

    Through a special form it follows the branch the row took (`reached`: the paths the
    row reached; without it, the walk stops at the form)."""
    while node.is_call:
        nulls = [i for i, a in enumerate(node.args)
                 if path.child(i) in computed and _null(computed[path.child(i)].value)]
        if node.name in ("if_else", "case_when", "coalesce", "choose"):
            if node.name == "if_else" and nulls[:1] == [0]:
                nulls = [0]
            elif reached is not None:
                first = 1 if node.name in ("if_else", "case_when", "choose") else 0
                nulls = [i for i in nulls if i >= first and path.child(i) in reached]
                nulls = nulls[-1:] if node.name == "coalesce" else nulls[:1]
            else:
                nulls = []
        if not nulls:
            break
        i = nulls[0]
        node, path = node.args[i], path.child(i)
    return path, node


def null_note(node: Expression, path: tuple, computed: dict) -> str:
    """Where this node's null came from, in words."""
    if node.kind == "field":
        return f"null: column {visible(str(node))} is null in this row"
    if node.kind == "literal":
        return "null: a null literal"
    if node.name == "if_else":
        cond = computed.get(path.child(0))
        if cond is not None and _null(cond.value):
            return "null: the condition is null, so if_else gives null"
        return "null: the branch it took is null"
    if node.name in ("coalesce",):
        return "null: every argument is null"
    if node.name == "case_when":
        return "null: the branch it took is null (or no condition held and there is no else)"
    src_path, src = null_source(node, path, computed)
    if src_path != path:
        if src.kind == "field":
            return f"null: from column {visible(str(src))} (null in this row)"
        return f"null: from {term_text(src)} at {path_text(src_path)}"
    options = getattr(node, "options", None)
    changed = visible(options_short_text(options)) if options is not None else ""
    extra = f" with its options {changed}" if changed else ""
    return f"null: {node.name}{extra} gives null for these non-null arguments"


def _operands(d: Deciders, node: Expression, path: tuple) -> str:
    parts = []
    for i, arg in enumerate(node.args):
        shown = term_text(arg)
        if arg.kind != "literal":
            shown += f" = {value_text(_value(d, path.child(i)))}"
        parts.append(shown)
    return ", ".join(parts)


def _describe_bool(d: Deciders, node: Expression, path: tuple, decided: set, depth=0) -> str:
    """Why `node` (a boolean) is false or null here, marking the deciding nodes."""
    value = _value(d, path)
    decided.add(path)
    state = "null" if _null(value) else ("false" if _is(value, False) else "true")
    said = _says(d, node, path, decided, depth, state)
    return said


def _says(d: Deciders, node: Expression, path: tuple, decided: set, depth: int, state: str) -> str:
    if depth > 6:
        return f"{term_text(node)} is {state}"
    if node.is_call and node.name in ("and_kleene", "and"):
        terms = [(p, t) for p, t in _chain(node, path, node.name) if p in d.evaluated]
        if state == "false":
            first = next(((p, t) for p, t in terms if _is(_value(d, p), False)), None)
            if first is not None:
                return (f"{term_text(node)} is false because its term "
                        + _describe_bool(d, first[1], first[0], decided, depth + 1))
        if state == "null":
            nulls = [(p, t) for p, t in terms if _null(_value(d, p))]
            said = [_describe_bool(d, t, p, decided, depth + 1) for p, t in nulls[:_MAX_TERMS]]
            more = f" (and {len(nulls) - _MAX_TERMS} more)" if len(nulls) > _MAX_TERMS else ""
            return f"{term_text(node)} is null: no term is false and " + "; ".join(said) + more
    if node.is_call and node.name in ("or_kleene", "or") and state in ("false", "null"):
        terms = [(p, t) for p, t in _chain(node, path, node.name) if p in d.evaluated]
        said = []
        for p, t in terms[:_MAX_TERMS]:  # each with its own reason (a comparison's operands)
            said.append(_describe_bool(d, t, p, decided, depth + 1))
        more = f" (and {len(terms) - _MAX_TERMS} more)" if len(terms) > _MAX_TERMS else ""
        nulls = [(p, t) for p, t in terms if _null(_value(d, p))]
        tail = ""
        if state == "null" and nulls:
            src_path, src = null_source(nulls[0][1], nulls[0][0], d.computed, d.evaluated)
            decided.add(src_path)
            if src.kind == "field":
                tail = f"; the null comes from column {visible(str(src))}"
        return (f"{term_text(node)} is {state}: no term is true (" + "; ".join(said) + more + ")"
                + tail)
    if node.is_call and node.name in ("invert", "not"):
        return f"{term_text(node)} is {state} because " + _describe_bool(
            d, node.args[0], path.child(0), decided, depth + 1)
    if node.is_call and node.name in _COMPARISONS:
        for i in range(len(node.args)):
            decided.add(path.child(i))
        text = f"{term_text(node)} is {state} (with {_operands(d, node, path)})"
        if state == "null":
            text += _null_origin(d, node, path, decided)
        return text
    text = f"{term_text(node)} is {state}"
    if state == "null":
        text += _null_origin(d, node, path, decided)
    elif node.is_call:
        text += _columns_read(d, node, path)
    return text


def _columns_read(d: Deciders, node: Expression, path: tuple) -> str:
    """` (with `c` = value)`: the columns a false term reads, with the row's values, where
    it is not a comparison (`like`, a set test): its operands would name no value. Up to
    three; a term reading more is named alone."""
    shown: dict[str, str] = {}
    stack = [(path, node)]
    while stack:
        p, n = stack.pop()
        if n.kind == "field" and p in d.evaluated and str(n) not in shown:
            shown[str(n)] = f"{term_text(n)} = {value_text(_value(d, p))}"
        elif n.is_call:
            stack.extend((p.child(i), a) for i, a in reversed(list(enumerate(n.args))))
    if not shown or len(shown) > 3:
        return ""
    return f" (with {', '.join(shown.values())})"


def _null_origin(d: Deciders, node: Expression, path: tuple, decided: set) -> str:
    src_path, src = null_source(node, path, d.computed, d.evaluated)
    if src_path == path:
        return ""
    decided.add(src_path)
    if src.kind == "field":
        return f"; the null comes from column {visible(str(src))}"
    return f"; the null comes from {term_text(src)}"


def explain_why(d: Deciders, value, error, event, spared, row: int = 0) -> tuple[str, set]:
    """The sentence for the row, and the paths of the nodes that decided it."""
    decided: set = set()
    if error is not None:
        fpath = event.failed_path() or d.nodes[0][0]
        node = next((n for p, n, _ in d.nodes if p == fpath), d.tree)
        decided.add(fpath)
        inputs = _operands(d, node, fpath) if node.is_call else ""
        message = visible(re.sub(r"\bat row 0\b", f"at row {row:,}", str(error).splitlines()[0]))
        where = path_text(fpath)
        text = (f"evaluation fails at {where}, {term_text(node)}"
                + (f" (its arguments: {inputs})" if inputs else "") + f": {message}")
    elif value is not None and pa.types.is_boolean(value.type) and not _is(value, True):
        said = _describe_bool(d, d.tree, d.nodes[0][0], decided)
        whole = f"{term_text(d.tree)} is "
        state = "null" if _null(value) else "false"
        if said.startswith(whole) and d.tree.is_call and d.tree.name in (
                "and_kleene", "and", "or_kleene", "or", "invert"):
            said = said[len(whole):]
            said = said[len(state):].lstrip(":").strip() if said.startswith(state) else said
            said = said.removeprefix("because ").removeprefix("its term ")
        text = f"the result is {state}" + (f": {said}" if said else "")
    else:
        text = f"the result is {value_text(value)}"
        if _null(value):
            text += _null_origin(d, d.tree, d.nodes[0][0], decided)
            decided.add(d.nodes[0][0])
    if spared:
        text += "; spared for this row: " + "; ".join(spared[:3])
        if len(spared) > 3:
            text += f" (and {len(spared) - 3} more)"
    return text, decided

