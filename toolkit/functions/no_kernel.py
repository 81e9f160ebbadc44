"""What to tell a person when no kernel of a function takes the arguments they wrote.

Arrow's message names the types dispatch looked at, which are not always the
types the user typed (`species + 1` looks for `add(large_string, int8)`: the
literal was narrowed), and listing all 33 signatures of `add` buries the point.
This says, in a few lines: the call as written with each argument's type, which
literal was narrowed to what, and the families of types the function does take.
Arrow's own text stays on the error as `arrow_message`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from .function import Function

if TYPE_CHECKING:  # the expression model imports this package
    from ..model.expression import Expression

__all__ = ["families_taken", "no_kernel_message"]

_FAMILIES: list[tuple[str, tuple[pa.DataType, ...]]] = [
    ("integers", (pa.int8(), pa.int32(), pa.int64(), pa.uint8(), pa.uint64())),
    ("floats", (pa.float32(), pa.float64())),
    ("decimals", (pa.decimal128(5, 2), pa.decimal256(40, 2))),
    ("booleans", (pa.bool_(),)),
    ("strings", (pa.utf8(), pa.large_utf8())),
    ("binary", (pa.binary(), pa.large_binary(), pa.binary(4))),
    ("dates", (pa.date32(), pa.date64())),
    ("timestamps", (pa.timestamp("s"), pa.timestamp("us", "UTC"))),
    ("times", (pa.time32("s"), pa.time64("us"))),
    ("durations", (pa.duration("s"), pa.duration("ns"))),
    ("lists", (pa.list_(pa.int64()), pa.large_list(pa.utf8()))),
    ("structs", (pa.struct([("x", pa.int64())]),)),
    ("dictionaries", (pa.dictionary(pa.int32(), pa.utf8()),)),
    ("nulls", (pa.null(),)),
]
_ARG_TEXT = 40


def families_taken(function: Function, position: int | None = None) -> list[str]:
    """The type families some kernel takes at argument `position` (None: at any position)."""
    taken = []
    for family, examples in _FAMILIES:
        if any(pattern.accepts(t) for kernel in function.kernels
               for pattern in _patterns(kernel, position) for t in examples):
            taken.append(family)
    return taken


def _patterns(kernel, position: int | None):
    if position is None:
        return kernel.inputs
    if position < len(kernel.inputs):
        return (kernel.inputs[position],)
    return kernel.inputs[-1:] if kernel.varargs else ()


def no_kernel_message(function: Function, args: Sequence[Expression],
                      narrowed: Sequence[pa.DataType]) -> str:
    """At most four lines: the call as written, narrowed literals, what the function takes."""
    shown = ", ".join(_describe(arg) for arg in args)
    lines = [f"{function.name}({shown}) has no kernel"]
    for arg, looked_up in zip(args, narrowed):
        if arg.is_literal and looked_up != arg.type:
            lines.append(f"  the literal {_short(str(arg))} ({arg.type}) was narrowed to "
                         f"{looked_up} to look for one, as Arrow does")
    per_position = [families_taken(function, i) for i in range(len(args))]
    if len({tuple(f) for f in per_position}) > 1:
        parts = []
        for families in dict.fromkeys(tuple(f) for f in per_position):
            where = [i + 1 for i, f in enumerate(per_position) if tuple(f) == families]
            label = "argument" if len(where) == 1 else "arguments"
            parts.append(f"{label} {', '.join(map(str, where))}: {_join(list(families))}")
        lines.append(f"  {function.name} takes " + "; ".join(parts))
    elif per_position and per_position[0]:
        lines.append(f"  {function.name} takes {_join(per_position[0])}")
    if all(any(p.accepts(t) for kernel in function.kernels for p in _patterns(kernel, i))
           for i, t in enumerate(narrowed)):
        lines.append("  each type is taken on its own, not together: cast the arguments to "
                     "one type")
    lines.append(f"  tk.describe({function.name!r}) lists its {len(function.kernels)} signatures")
    return "\n".join(lines)


def _describe(arg: Expression) -> str:
    if arg.is_literal:
        return _short(str(arg))
    if arg.is_field:
        return f"{_short(str(arg))}: {arg.type}"
    return f"{_short(str(arg))}: {arg.type}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _ARG_TEXT else text[: _ARG_TEXT - 1] + "…"


def _join(words: list[str]) -> str:
    if not words:
        return "only the special types its signatures name"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
