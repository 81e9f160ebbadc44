"""Window functions of a Window node: what each computes over its partition and frame.

A `WindowExpr` is one ``func(arg) OVER (PARTITION BY ... ORDER BY ... frame)``.
Functions: row_number, rank, dense_rank, lag, lead (ranking and offset functions,
which read the order but no frame), sum, avg, min, max, count, var_samp, var_pop,
stddev_samp, stddev_pop (aggregates over the frame) and first_value, last_value (the
value of the frame's first or last row; with `ignore_nulls`, of its first or last row
whose value is not null). The frame is SQL's default unless
given: with an order, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the current
row's peers included), without one, the whole partition; or ROWS BETWEEN n PRECEDING
AND m FOLLOWING (row counts), or RANGE BETWEEN n PRECEDING AND m FOLLOWING (distances
in the single numeric order key's values, as SQL and Spark define them).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.types as pat

from ..model.expression import Expression
from .aggregates import aggregate_type
from .errors import PlanError
from .plan_text import expression_text

__all__ = [
    "FRAME_FUNCTIONS",
    "OFFSET_FUNCTIONS",
    "RANKING_FUNCTIONS",
    "VALUE_FUNCTIONS",
    "VARIANCE_WINDOWS",
    "WINDOW_AGGREGATES",
    "WINDOW_FUNCTIONS",
    "WindowExpr",
    "WindowFrame",
    "check_window",
    "window_nullable",
    "window_type",
]

RANKING_FUNCTIONS = ("row_number", "rank", "dense_rank")
OFFSET_FUNCTIONS = ("lag", "lead")
VARIANCE_WINDOWS = ("var_samp", "var_pop", "stddev_samp", "stddev_pop")
WINDOW_AGGREGATES = ("sum", "avg", "min", "max", "count") + VARIANCE_WINDOWS
VALUE_FUNCTIONS = ("first_value", "last_value")
FRAME_FUNCTIONS = WINDOW_AGGREGATES + VALUE_FUNCTIONS  # the functions that read a frame
WINDOW_FUNCTIONS = RANKING_FUNCTIONS + OFFSET_FUNCTIONS + FRAME_FUNCTIONS


FRAME_UNITS = ("rows", "range")


@dataclass(frozen=True)
class WindowFrame:
    """`unit` BETWEEN start AND end. For ROWS the bounds count rows from the current one;
    for RANGE they are distances in the order key's value (-n: n PRECEDING, 0: CURRENT
    ROW, which for RANGE means the current row's peers, m: m FOLLOWING; None: UNBOUNDED
    on that side)."""

    start: int | float | None
    end: int | float | None
    unit: str = "rows"

    def __post_init__(self):
        if self.unit not in FRAME_UNITS:
            raise PlanError(f"a window frame's unit is 'rows' or 'range', got {self.unit!r}")
        allowed = numbers.Real if self.unit == "range" else int
        for side, value in (("start", self.start), ("end", self.end)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)
                                      or math.isnan(value)):
                kind = "a number" if self.unit == "range" else "an integer offset"
                raise PlanError(f"a {self.unit.upper()} window frame's {side} must be {kind} "
                                f"or None (unbounded), got {value!r}")
        if self.start is not None and self.end is not None and self.start > self.end:
            raise PlanError(f"impossible window frame {self.to_string()}: it starts after it "
                            "ends, so every frame would be empty")

    @property
    def has_offsets(self) -> bool:
        """A RANGE bound other than UNBOUNDED or CURRENT ROW: it needs a numeric order key."""
        return self.unit == "range" and any(v not in (None, 0) for v in (self.start, self.end))

    @staticmethod
    def _bound(value, unbounded: str) -> str:
        if value is None:
            return unbounded
        if value == 0:
            return "CURRENT ROW"
        return f"{abs(value)} {'PRECEDING' if value < 0 else 'FOLLOWING'}"

    def to_string(self) -> str:
        return (f"{self.unit.upper()} BETWEEN {self._bound(self.start, 'UNBOUNDED PRECEDING')} "
                f"AND {self._bound(self.end, 'UNBOUNDED FOLLOWING')}")


@dataclass(frozen=True, eq=False)
class WindowExpr:
    """One window function: func, bound argument (None for ranking and count(*)), the
    partition keys, the sort keys (plan SortKeys), the frame (None: SQL's default),
    lag/lead's offset and lag/lead's default (the value, computed on the current row,
    where the offset row lies outside the partition; None: null) and first_value and
    last_value's ignore_nulls (skip the rows whose value is null)."""

    func: str
    arg: Expression | None
    partition_by: tuple[Expression, ...]
    order_by: tuple  # SortKey
    frame: WindowFrame | None = None
    offset: int = 1
    default: Expression | None = None
    ignore_nulls: bool = False

    def to_string(self) -> str:
        args = "" if self.arg is None else expression_text(self.arg)
        if self.func == "count" and self.arg is None:
            args = "*"
        if self.func in OFFSET_FUNCTIONS and (self.offset != 1 or self.default is not None):
            args += f", {self.offset}"
        if self.default is not None:
            args += f", {expression_text(self.default)}"
        if self.ignore_nulls:
            args += " IGNORE NULLS"
        parts = []
        if self.partition_by:
            parts.append("PARTITION BY [" + ", ".join(expression_text(e)
                                                       for e in self.partition_by) + "]")
        if self.order_by:
            parts.append("ORDER BY [" + ", ".join(k.to_string() for k in self.order_by) + "]")
        if self.func in FRAME_FUNCTIONS:
            if self.frame is not None:
                parts.append(self.frame.to_string())
            elif self.order_by:
                parts.append("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
            else:
                parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
        return f"{self.func}({args}) OVER ({' '.join(parts)})"

    def expressions(self) -> list[Expression]:
        return ([] if self.arg is None else [self.arg]) + list(self.partition_by) + [
            k.expr for k in self.order_by] + ([] if self.default is None else [self.default])

    def map_expressions(self, change: Callable[[Expression], Expression]) -> WindowExpr:
        """This function with `change` applied to each of its expressions (binding them
        to another schema, renaming their columns), its other settings kept."""
        return replace(
            self, arg=None if self.arg is None else change(self.arg),
            partition_by=tuple(change(e) for e in self.partition_by),
            order_by=tuple(replace(k, expr=change(k.expr)) for k in self.order_by),
            default=None if self.default is None else change(self.default))

    def equals(self, other: WindowExpr) -> bool:
        mine, theirs = self.expressions(), other.expressions()
        return (self.func == other.func and self.frame == other.frame
                and self.offset == other.offset and self.ignore_nulls == other.ignore_nulls and (self.arg is None) == (other.arg is None)
                and (self.default is None) == (other.default is None)
                and len(self.partition_by) == len(other.partition_by)
                and [(k.ascending, k.nulls_first) for k in self.order_by]
                == [(k.ascending, k.nulls_first) for k in other.order_by]
                and len(mine) == len(theirs) and all(a.equals(b) for a, b in zip(mine, theirs)))


def check_window(func: str, arg: Expression | None, order_by: Sequence, frame, offset,
                 default: Expression | None = None, ignore_nulls: bool = False) -> None:
    """A clear PlanError naming what is wrong with one window function."""
    if func not in WINDOW_FUNCTIONS:
        raise PlanError(f"unknown window function {func!r}; windows offer "
                        f"{', '.join(WINDOW_FUNCTIONS)}")
    if func in RANKING_FUNCTIONS and arg is not None:
        raise PlanError(f"{func}() takes no argument")
    if func in OFFSET_FUNCTIONS:
        if arg is None:
            raise PlanError(f"{func} needs an argument (the value to read from another row)")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise PlanError(f"{func}'s offset must be an integer >= 0, got {offset!r}")
    if func in VALUE_FUNCTIONS and arg is None:
        raise PlanError(f"{func} needs an argument (the value to read from the frame's "
                        f"{'first' if func == 'first_value' else 'last'} row)")
    if not isinstance(ignore_nulls, bool):
        raise PlanError(f"ignore_nulls is True or False, got {ignore_nulls!r}")
    if ignore_nulls and func not in VALUE_FUNCTIONS:
        raise PlanError(f"only first_value and last_value take ignore_nulls, not {func}")
    if default is not None and func not in OFFSET_FUNCTIONS:
        raise PlanError(f"only lag and lead take a default value, not {func}")
    if default is not None and not default.type.equals(arg.type):
        raise PlanError(f"{func}'s default {expression_text(default)} is {default.type}, but "
                        f"its argument {expression_text(arg)} is {arg.type}; cast the "
                        "default to the argument's type")
    if func not in FRAME_FUNCTIONS and frame is not None:
        raise PlanError(f"{func} reads no frame (it is a ranking or offset function), "
                        f"but the frame {frame.to_string()} was given")
    if frame is not None and frame.has_offsets:
        if len(order_by) != 1:
            raise PlanError(f"the frame {frame.to_string()} measures distances in the order "
                            f"key's values, so it needs exactly one order key, not "
                            f"{len(order_by)}")
        key_type = order_by[0].expr.type
        if not (pat.is_integer(key_type) or pat.is_floating(key_type)):
            raise PlanError(f"the frame {frame.to_string()} adds its offsets to the order key "
                            f"{expression_text(order_by[0].expr)}, which is {key_type}; "
                            "RANGE offsets take an integer or float order key")
        if pat.is_integer(key_type):
            offsets = [v for v in (frame.start, frame.end) if v is not None]
            if any(isinstance(v, float) for v in offsets):
                raise PlanError(f"the frame {frame.to_string()} has a fractional offset over "
                                f"the integer order key {expression_text(order_by[0].expr)}")
            largest = np.iinfo(key_type.to_pandas_dtype()).max
            if any(abs(v) > largest for v in offsets):
                raise PlanError(f"the frame {frame.to_string()} has an offset larger than the "
                                f"order key's type {key_type} can hold ({largest:,})")
    if func in ("sum", "avg", "min", "max") + VARIANCE_WINDOWS and arg is None:
        raise PlanError(f"{func} needs an argument; only count takes none (count(*))")
    numeric = arg is not None and (pat.is_integer(arg.type) or pat.is_floating(arg.type)
                                   or pat.is_decimal128(arg.type))
    if func in ("sum", "avg") + VARIANCE_WINDOWS and not numeric:
        raise PlanError(f"window {func} takes integers, floats or decimals, not {arg.type} "
                        f"(in {func}({expression_text(arg)}))")
    if func in ("min", "max"):
        aggregate_type(func, arg.type)


def window_type(w: WindowExpr) -> pa.DataType:
    if w.func in RANKING_FUNCTIONS or w.func == "count":
        return pa.int64()
    if w.func in OFFSET_FUNCTIONS + VALUE_FUNCTIONS:
        return w.arg.type
    return aggregate_type("mean" if w.func == "avg" else w.func, w.arg.type)


def window_nullable(w: WindowExpr) -> bool:
    """Only ranks and counts are never null: an empty frame has no sum, and a frame of
    one value has no sample variance."""
    return not (w.func in RANKING_FUNCTIONS or w.func == "count")
