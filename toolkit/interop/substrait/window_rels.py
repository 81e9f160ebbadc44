"""A Window node as Substrait's ConsistentPartitionWindowRel, and back.

A Substrait window rel holds functions over one partition and one order, so a Window
node is written as a chain of rels, one per run of consecutive functions over the same
keys (its columns keep their order), each rel appending its functions' columns to its
input's. Reading merges such a chain back into one Window node where no function reads
a column an earlier rel of the chain added. Frames map one to one: ROWS and RANGE
bounds as Substrait's preceding/following offsets, current row and unbounded; a
RANGE offset that is not a whole number has no Substrait form and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from substrait import algebra_pb2

from ...errors import SubstraitError
from ...model.expression import Expression
from ...plan.logical_plan import SortKey, Window
from ...plan.window import (
    FRAME_FUNCTIONS,
    OFFSET_FUNCTIONS,
    RANKING_FUNCTIONS,
    VARIANCE_WINDOWS,
    WindowExpr,
    WindowFrame,
)
from ...support.visible_text import visible
from .distributions import read_distribution, write_distribution
from .functions import AGGREGATE_DISTRIBUTIONS, AGGREGATE_MAPPINGS
from .sort_fields import ORDER_OF_DIRECTION, SORT_DIRECTION

__all__ = ["WINDOW_MAPPINGS", "WindowRead", "read_window_rel", "write_window_rels"]

# window function -> (extension, Substrait name); aggregates as in aggregate rels
WINDOW_MAPPINGS: dict[str, tuple[str, str]] = {
    **{f: ("functions_arithmetic", f) for f in RANKING_FUNCTIONS + OFFSET_FUNCTIONS},
    "sum": ("functions_arithmetic", "sum"),
    "avg": ("functions_arithmetic", "avg"),
    "min": ("functions_arithmetic", "min"),
    "max": ("functions_arithmetic", "max"),
    "count": ("functions_aggregate_generic", "count"),
    **{f: AGGREGATE_MAPPINGS[f] for f in VARIANCE_WINDOWS},
    # Substrait's have no IGNORE NULLS: a plan's first_value IGNORE NULLS is refused
    "first_value": ("functions_arithmetic", "first_value"),
    "last_value": ("functions_arithmetic", "last_value"),
}
# (Substrait name, its `distribution` option or None) -> window function
_FUNCTION_OF = {(name, AGGREGATE_DISTRIBUTIONS.get(func)): func
                for func, (_, name) in WINDOW_MAPPINGS.items()}
_ROWS = algebra_pb2.Expression.WindowFunction.BOUNDS_TYPE_ROWS
_RANGE = algebra_pb2.Expression.WindowFunction.BOUNDS_TYPE_RANGE


def _same_keys(a: WindowExpr, b: WindowExpr) -> bool:
    return (len(a.partition_by) == len(b.partition_by) and len(a.order_by) == len(b.order_by)
            and all(x.equals(y) for x, y in zip(a.partition_by, b.partition_by))
            and all(x.expr.equals(y.expr) and (x.ascending, x.nulls_first)
                    == (y.ascending, y.nulls_first) for x, y in zip(a.order_by, b.order_by)))


def _runs(functions: Sequence[WindowExpr]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i, w in enumerate(functions):
        if runs and _same_keys(functions[runs[-1][0]], w):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _effective_frame(w: WindowExpr) -> WindowFrame:
    """The frame a function reads, SQL's default spelled out."""
    if w.frame is not None:
        return w.frame
    if w.order_by:
        return WindowFrame(None, 0, "range")
    return WindowFrame(None, None, "rows")


def _write_bound(bound, value, frame: WindowFrame, label: str) -> None:
    if value is None:
        bound.unbounded.SetInParent()
    elif value == 0:
        bound.current_row.SetInParent()
    elif value != int(value):
        raise SubstraitError(f"cannot write {visible(label)} as Substrait: the frame "
                             f"{frame.to_string()} has an offset that is not a whole number, "
                             "and Substrait's window bounds count in integers")
    elif value < 0:
        bound.preceding.offset = -int(value)
    else:
        bound.following.offset = int(value)


def write_window_rels(node: Window, input_rel: algebra_pb2.Rel,
                      expression: Callable[[Expression], algebra_pb2.Expression],
                      anchor: Callable[[str, str], int],
                      output_type: Callable[[int], object]) -> algebra_pb2.Rel:
    """The chain of window rels for `node` over `input_rel` (its input, written).

    `expression` writes an expression bound to the node's input, `anchor` declares a
    function, `output_type(i)` is the Substrait type of the node's i-th new column."""
    current = input_rel
    names = list(node.input.schema.names)
    for run in _runs(node.functions):
        rel = algebra_pb2.Rel()
        window = rel.window
        window.input.CopyFrom(current)
        first = node.functions[run[0]]
        for e in first.partition_by:
            window.partition_expressions.add().CopyFrom(expression(e))
        for key in first.order_by:
            field = window.sorts.add()
            field.expr.CopyFrom(expression(key.expr))
            field.direction = SORT_DIRECTION[(key.ascending, key.nulls_first)]
        for i in run:
            w = node.functions[i]
            if w.ignore_nulls:
                raise SubstraitError(f"cannot write {w.to_string()} as Substrait: its "
                                     f"{w.func} has no IGNORE NULLS")
            f = window.window_functions.add()
            f.function_reference = anchor(*WINDOW_MAPPINGS[w.func])
            if w.arg is not None:
                f.arguments.add().value.CopyFrom(expression(w.arg))
            write_distribution(f, w.func)
            if w.func in OFFSET_FUNCTIONS:
                f.arguments.add().value.literal.i32 = w.offset
                if w.default is not None:
                    f.arguments.add().value.CopyFrom(expression(w.default))
            f.output_type.CopyFrom(output_type(i))
            f.phase = algebra_pb2.AGGREGATION_PHASE_INITIAL_TO_RESULT
            f.invocation = algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_ALL
            frame = _effective_frame(w)
            f.bounds_type = _RANGE if frame.unit == "range" else _ROWS
            label = f"{w.to_string()} AS {node.names[i]}"
            _write_bound(f.lower_bound, frame.start, frame, label)
            _write_bound(f.upper_bound, frame.end, frame, label)
            names.append(node.names[i])
        window.common.direct.SetInParent()
        window.common.hint.output_names.extend(names)
        current = rel
    return current


class WindowRead(NamedTuple):
    """What the plan reader hands over: the rel's input plan (its columns exactly), a
    reader of expressions over it, and where the rel stands in the message."""

    input_plan: object
    read_expression: Callable[[algebra_pb2.Expression, str], Expression]
    function_name: Callable[[int, str], str]
    where: str


def _read_bound(bound, where: str):
    kind = bound.WhichOneof("kind")
    if kind in (None, "unbounded"):
        return None
    if kind == "current_row":
        return 0
    offset = getattr(bound, kind).offset
    if offset < 0:
        raise SubstraitError(f"a window bound with a negative {kind} offset {offset} "
                             f"(at {where}.{kind}.offset)")
    return -offset if kind == "preceding" else offset


def _frame(f, func: str, ordered: bool, where: str) -> WindowFrame | None:
    if func not in FRAME_FUNCTIONS:
        return None  # ranking and offset functions read no frame
    if f.bounds_type not in (_ROWS, _RANGE, 0):
        raise SubstraitError(f"a window frame of bounds type {f.bounds_type} has no exprscope "
                             f"form (at {where}.bounds_type)")
    unit = "range" if f.bounds_type == _RANGE else "rows"
    frame = WindowFrame(_read_bound(f.lower_bound, where + ".lower_bound"),
                        _read_bound(f.upper_bound, where + ".upper_bound"), unit)
    default = WindowFrame(None, 0, "range") if ordered else WindowFrame(None, None, "rows")
    return None if frame == default else frame


def read_window_rel(rel, read: WindowRead) -> Window:
    """One window rel as a Window node over `read.input_plan` (merged with a Window it
    directly reads when none of its expressions reads that one's new columns)."""
    where = read.where
    partition = [read.read_expression(e, f"{where}.partition_expressions[{i}]")
                 for i, e in enumerate(rel.partition_expressions)]
    order = []
    for i, field in enumerate(rel.sorts):
        at = f"{where}.sorts[{i}]"
        if field.WhichOneof("sort_kind") != "direction" or field.direction not in ORDER_OF_DIRECTION:
            raise SubstraitError(f"a window sorted other than ascending or descending with "
                                 f"nulls first or last has no exprscope form (at {at})")
        ascending, nulls_first = ORDER_OF_DIRECTION[field.direction]
        order.append(SortKey(read.read_expression(field.expr, at + ".expr"), ascending,
                             nulls_first))
    if not rel.window_functions:
        raise SubstraitError(f"a window rel with no window function (at {where})")
    functions = []
    for i, f in enumerate(rel.window_functions):
        at = f"{where}.window_functions[{i}]"
        name = read.function_name(f.function_reference, at)
        func = _FUNCTION_OF.get((name, read_distribution(f, name, at)))
        if func is None:
            raise SubstraitError(f"the window function {visible(name)} has no exprscope form "
                                 f"(at {at}); exprscope's windows offer "
                                 f"{', '.join(sorted({n for _, n in WINDOW_MAPPINGS.values()}))}")
        if f.invocation not in (algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_ALL,
                                algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_UNSPECIFIED):
            raise SubstraitError(f"{visible(name)}(DISTINCT ...) over a window has no exprscope "
                                 f"form (at {at}.invocation)")
        args = []
        for j, a in enumerate(f.arguments):
            if a.WhichOneof("arg_type") != "value":
                raise SubstraitError(f"a non-value argument of {visible(name)} has no exprscope "
                                     f"form (at {at}.arguments[{j}])")
            args.append(read.read_expression(a.value, f"{at}.arguments[{j}].value"))
        arg, offset, default = (args[0] if args else None), 1, None
        if func in OFFSET_FUNCTIONS:
            if len(args) > 1:
                if not (args[1].is_literal and args[1].value.is_valid):
                    raise SubstraitError(f"{func}'s offset must be a constant in exprscope "
                                         f"(at {at}.arguments[1])")
                offset = int(args[1].value.as_py())
            default = args[2] if len(args) > 2 else None
        if func == "count" and arg is not None and arg.is_literal and arg.value.is_valid:
            arg = None  # count(1): count(*)
        functions.append(WindowExpr(func, arg, tuple(partition), tuple(order),
                                    _frame(f, func, bool(order), at), offset, default))
    names = list(rel.common.hint.output_names)[-len(functions):] if len(
        rel.common.hint.output_names) >= len(functions) else [
        f"{w.func}_{i}" for i, w in enumerate(functions)]
    below = read.input_plan
    if isinstance(below, Window):
        added = set(below.schema.qualified_names[len(below.input.schema):])
        reads = {ref.name for w in functions for e in w.expressions() for ref in e.field_refs()
                 if ref.is_name}
        if not reads & added:
            return Window(below.input, [*below.functions, *functions], [*below.names, *names])
    return Window(below, functions, names)

