"""Window functions of a Window node: what each computes over its partition and frame.

A `WindowExpr` is one ``func(arg) OVER (PARTITION BY ... ORDER BY ... frame)``.
Functions: row_number, rank, dense_rank, lag, lead (ranking and offset functions,
which read the order but no frame) and sum, avg, min, max, count (aggregates over
the frame). The frame is SQL's default unless given: with an order, RANGE BETWEEN
UNBOUNDED PRECEDING AND CURRENT ROW (the current row's peers included), without
one, the whole partition; or ROWS BETWEEN n PRECEDING AND m FOLLOWING.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.types as pat

from ..model.expression import Expression
from .aggregates import aggregate_type
from .errors import PlanError
from .plan_text import expression_text

__all__ = [
    "OFFSET_FUNCTIONS",
    "RANKING_FUNCTIONS",
    "WINDOW_AGGREGATES",
    "WINDOW_FUNCTIONS",
    "WindowExpr",
    "WindowFrame",
    "window_nullable",
    "window_type",
]

RANKING_FUNCTIONS = ("row_number", "rank", "dense_rank")
OFFSET_FUNCTIONS = ("lag", "lead")
WINDOW_AGGREGATES = ("sum", "avg", "min", "max", "count")
WINDOW_FUNCTIONS = RANKING_FUNCTIONS + OFFSET_FUNCTIONS + WINDOW_AGGREGATES


@dataclass(frozen=True)
class WindowFrame:
    """ROWS BETWEEN start AND end, as offsets from the current row (-n: n PRECEDING,
    0: CURRENT ROW, m: m FOLLOWING; None: UNBOUNDED on that side)."""

    start: int | None
    end: int | None

    def __post_init__(self):
        for side, value in (("start", self.start), ("end", self.end)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise PlanError(f"a window frame's {side} must be an integer offset or None "
                                f"(unbounded), got {value!r}")
        if self.start is not None and self.end is not None and self.start > self.end:
            raise PlanError(f"impossible window frame {self.to_string()}: it starts after it "
                            "ends, so every frame would be empty")

    @staticmethod
    def _bound(value: int | None, unbounded: str) -> str:
        if value is None:
            return unbounded
        if value == 0:
            return "CURRENT ROW"
        return f"{abs(value)} {'PRECEDING' if value < 0 else 'FOLLOWING'}"

    def to_string(self) -> str:
        return (f"ROWS BETWEEN {self._bound(self.start, 'UNBOUNDED PRECEDING')} AND "
                f"{self._bound(self.end, 'UNBOUNDED FOLLOWING')}")


@dataclass(frozen=True, eq=False)
class WindowExpr:
    """One window function: func, bound argument (None for ranking and count(*)), the
    partition keys, the sort keys (plan SortKeys), the ROWS frame (None: SQL's default)
    and lag/lead's offset."""

    func: str
    arg: Expression | None
    partition_by: tuple[Expression, ...]
    order_by: tuple  # SortKey
    frame: WindowFrame | None = None
    offset: int = 1

    def to_string(self) -> str:
        args = "" if self.arg is None else expression_text(self.arg)
        if self.func == "count" and self.arg is None:
            args = "*"
        if self.func in OFFSET_FUNCTIONS and self.offset != 1:
            args += f", {self.offset}"
        parts = []
        if self.partition_by:
            parts.append("PARTITION BY [" + ", ".join(expression_text(e)
                                                       for e in self.partition_by) + "]")
        if self.order_by:
            parts.append("ORDER BY [" + ", ".join(k.to_string() for k in self.order_by) + "]")
        if self.func in WINDOW_AGGREGATES:
            if self.frame is not None:
                parts.append(self.frame.to_string())
            elif self.order_by:
                parts.append("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
            else:
                parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
        return f"{self.func}({args}) OVER ({' '.join(parts)})"

    def expressions(self) -> list[Expression]:
        return ([] if self.arg is None else [self.arg]) + list(self.partition_by) + [
            k.expr for k in self.order_by]

    def equals(self, other: WindowExpr) -> bool:
        mine, theirs = self.expressions(), other.expressions()
        return (self.func == other.func and self.frame == other.frame
                and self.offset == other.offset and (self.arg is None) == (other.arg is None)
                and len(self.partition_by) == len(other.partition_by)
                and [(k.ascending, k.nulls_first) for k in self.order_by]
                == [(k.ascending, k.nulls_first) for k in other.order_by]
                and len(mine) == len(theirs) and all(a.equals(b) for a, b in zip(mine, theirs)))


def check_window(func: str, arg: Expression | None, order_by: Sequence, frame, offset) -> None:
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
    if func not in WINDOW_AGGREGATES and frame is not None:
        raise PlanError(f"{func} reads no frame (it is a ranking or offset function), "
                        f"but the frame {frame.to_string()} was given")
    if func in ("sum", "avg", "min", "max") and arg is None:
        raise PlanError(f"{func} needs an argument; only count takes none (count(*))")
    if func in ("sum", "avg") and not (pat.is_integer(arg.type) or pat.is_floating(arg.type)):
        raise PlanError(f"window {func} takes integers or floats, not {arg.type} "
                        f"(in {func}({expression_text(arg)}))")
    if func in ("min", "max"):
        aggregate_type(func, arg.type)


def window_type(w: WindowExpr) -> pa.DataType:
    if w.func in RANKING_FUNCTIONS or w.func == "count":
        return pa.int64()
    if w.func in OFFSET_FUNCTIONS:
        return w.arg.type
    return aggregate_type("mean" if w.func == "avg" else w.func, w.arg.type)


def window_nullable(w: WindowExpr) -> bool:
    return not (w.func in RANKING_FUNCTIONS or w.func == "count")
