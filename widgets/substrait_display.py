"""Substrait messages in a notebook, drawn as the expressions and plans they hold.

`%load_ext widgets` registers this display for the substrait package's
ExtendedExpression and Plan classes with IPython's formatters (by name, so
neither the classes nor this module load until a message is displayed); the
classes themselves are left untouched. A message exprscope cannot read shows
why, above protobuf's own text of it.
"""

from __future__ import annotations

import html

import toolkit as tk
from toolkit.errors import ExprscopeError
from toolkit.interop.substrait.files import plan_reads
from toolkit.support import late
from toolkit.support.visible_text import visible, visible_lines

from .rich_display import text_html, tree_html

__all__ = ["substrait_mimebundle"]

_MESSAGE_LINES = 40  # of protobuf's text, under a message that cannot be read


def substrait_mimebundle(message) -> dict:
    """The bundle of an ExtendedExpression (its expressions) or a Plan (its logical plan)."""
    kind = type(message).__name__
    try:
        if kind == "Plan":
            return late.mimebundle(_logical_plan(message))
        found = tk.from_substrait_all(message)
    except ExprscopeError as exc:
        return _unreadable(kind, message, exc)
    if len(found.expressions) == 1:
        return late.mimebundle(next(iter(found.expressions.values())))
    return _several(found.expressions)


def _logical_plan(message):
    tables = {read.name: read.empty_table() for read in plan_reads(message)}
    return tk.plan.from_substrait(message, tables)


def _several(expressions: dict) -> dict:
    """One drawing per expression, each under its output name."""
    texts, parts = [], []
    for name, expr in expressions.items():
        title = f"{visible(name)}: {visible(str(expr.type))}"
        texts.append(f"{title}\n{late.mimebundle(expr).get('text/plain', str(expr))}")
        parts.append(f'<div class="exprscope-substrait-expression" style="margin:0.4em 0">'
                     f"<div><code>{html.escape(title)}</code></div>{tree_html(expr)}</div>")
    return {"text/plain": "\n\n".join(texts), "text/html": "".join(parts)}


def _unreadable(kind: str, message, exc: Exception) -> dict:
    lines = str(message).splitlines()
    shown = "\n".join(lines[:_MESSAGE_LINES])
    if len(lines) > _MESSAGE_LINES:
        shown += f"\n... {len(lines) - _MESSAGE_LINES:,} more lines"
    why = f"exprscope cannot draw this Substrait {kind}: {visible_lines(str(exc))}"
    return {"text/plain": f"{why}\n\n{shown}",
            "text/html": f'<div class="exprscope-substrait-error"><p>{html.escape(why)}</p>'
                         f"{text_html(shown)}</div>"}
