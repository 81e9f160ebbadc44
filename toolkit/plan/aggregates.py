"""The aggregate functions plans offer: their logical fields.

sum, count, min, max and mean, and the variance family: `var_samp`, `var_pop`,
`stddev_samp` and `stddev_pop` (SQL's names; `variance` and `stddev` in SQL and
Spark are the sample ones). The sample forms divide by n - 1 and are null for a
group of one value, as in SQL, DuckDB and Spark (not NaN). `bool_and` and `bool_or`
of booleans (nulls skipped; null for a group of nulls, as SQL's and Spark's).
`percentile` with its `fraction` in [0, 1] is the exact percentile with linear
interpolation between the two nearest values (Spark's `percentile` and `median`,
SQL's `percentile_cont`, DuckDB's `quantile_cont`), as a double; nulls skipped, NaN
above every number (Spark's order).

Each rule states the output type the way DataFusion's `return_type` does, e.g.
``sum(int32) -> int64``; the physical aggregate runs pyarrow's hash kernels,
and the invariants check that what they return matches these declarations.
Nullability: `count` is never null; the others are null for a group whose values
are all null, and for a global aggregate (no group keys) over no rows.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.types as pat

from ..model.expression import Expression
from .errors import PlanError

__all__ = ["AGGREGATE_FUNCTIONS", "VARIANCE_FUNCTIONS", "AggregateExpr", "aggregate_nullable",
           "aggregate_type", "check_fraction"]

AGGREGATE_FUNCTIONS = ("sum", "count", "min", "max", "mean",
                       "var_samp", "var_pop", "stddev_samp", "stddev_pop",
                       "bool_and", "bool_or", "percentile")
# the variance family: plan function -> (Arrow's aggregate, its ddof)
VARIANCE_FUNCTIONS = {"var_samp": ("variance", 1), "var_pop": ("variance", 0),
                      "stddev_samp": ("stddev", 1), "stddev_pop": ("stddev", 0)}


@dataclass(frozen=True, eq=False)
class AggregateExpr:
    """One aggregate of an Aggregate node: function, bound argument (None: count rows), name,
    and percentile's fraction (None for the others)."""

    func: str
    arg: Expression | None
    name: str
    fraction: float | None = None

    def __post_init__(self):
        check_fraction(self.func, self.fraction)

    def to_string(self, short: bool = False) -> str:
        inner = "*" if self.arg is None else self.arg.to_string(short=short)
        if self.fraction is not None:
            inner += f", {self.fraction!r}"
        return f"{self.func}({inner})"

    def equals(self, other: AggregateExpr) -> bool:
        if self.func != other.func or self.name != other.name or self.fraction != other.fraction:
            return False
        if self.arg is None or other.arg is None:
            return self.arg is other.arg
        return self.arg.equals(other.arg)


def check_fraction(func: str, fraction) -> None:
    """A clear PlanError unless percentile has a fraction in [0, 1] and the others none."""
    if func != "percentile":
        if fraction is not None:
            raise PlanError(f"only percentile takes a fraction, not {func}")
        return
    if (isinstance(fraction, bool) or not isinstance(fraction, numbers.Real)
            or not 0.0 <= fraction <= 1.0):
        raise PlanError(f"percentile's fraction must be a number in [0, 1], got {fraction!r}")


def _is_orderable(t: pa.DataType) -> bool:
    return (pat.is_integer(t) or pat.is_floating(t) or pat.is_decimal(t) or pat.is_boolean(t)
            or pat.is_string(t) or pat.is_large_string(t) or pat.is_binary(t)
            or pat.is_large_binary(t) or pat.is_temporal(t) or pat.is_fixed_size_binary(t))


def aggregate_type(func: str, arg_type: pa.DataType | None) -> pa.DataType:
    """The output type of `func` over `arg_type` (None: count(*))."""
    if func not in AGGREGATE_FUNCTIONS:
        raise PlanError(f"unknown aggregate function {func!r}; the plans offer "
                        f"{', '.join(AGGREGATE_FUNCTIONS)}")
    if func == "count":
        return pa.int64()
    if arg_type is None:
        raise PlanError(f"{func} needs an argument; only count takes none (count(*))")
    if func == "sum":
        if pat.is_signed_integer(arg_type):
            return pa.int64()
        if pat.is_unsigned_integer(arg_type):
            return pa.uint64()
        if pat.is_floating(arg_type):
            return pa.float64()
        if pat.is_decimal128(arg_type):
            return pa.decimal128(38, arg_type.scale)
        if pat.is_decimal256(arg_type):
            return pa.decimal256(76, arg_type.scale)
    elif func == "mean":
        if pat.is_integer(arg_type) or pat.is_floating(arg_type):
            return pa.float64()
        if pat.is_decimal(arg_type):
            return arg_type
    elif func in VARIANCE_FUNCTIONS or func == "percentile":
        if pat.is_integer(arg_type) or pat.is_floating(arg_type) or pat.is_decimal(arg_type):
            return pa.float64()
    elif func in ("bool_and", "bool_or"):
        if pat.is_boolean(arg_type):
            return pa.bool_()
    elif _is_orderable(arg_type):  # min, max
        return arg_type
    raise PlanError(f"{func} does not accept {arg_type}: sum, mean, percentile and the "
                    "variances take numbers, bool_and and bool_or take booleans, min and max "
                    "take numbers, strings, binaries, booleans and temporal types")


def aggregate_nullable(func: str, arg_nullable: bool, grouped: bool) -> bool:
    if func == "count":
        return False
    if func in ("var_samp", "stddev_samp"):
        return True  # a group of one value has no sample variance
    return arg_nullable or not grouped
