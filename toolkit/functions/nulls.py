"""Nulls: is_null, is_valid, is_nan, true_unless_null, coalesce.

is_null and is_valid never return null (OUTPUT_NOT_NULL); is_nan and
true_unless_null keep nulls (INTERSECTION); coalesce is a special form: argument
i is evaluated only on the rows where every argument before it is null.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from .conditional import all_same, value_patterns
from .dispatch import best_coalesce
from .function import Arity, FunctionKind, Kernel, NullHandling
from .registry import definer
from .types import ANY, computed, exact, fixed, of_kind

define = definer("nulls")

__all__: list[str] = []

_BOOL = fixed(pa.bool_())

define("is_null", [Kernel("is_null", (ANY,), _BOOL)],
       "True where the value is null (and, with nan_is_null, where it is NaN).",
       null_handling=NullHandling.OUTPUT_NOT_NULL,
       options_class=pc.NullOptions, default_options=pc.NullOptions())
define("is_valid", [Kernel("is_valid", (ANY,), _BOOL)], "True where the value is not null.",
       null_handling=NullHandling.OUTPUT_NOT_NULL)
define("true_unless_null", [Kernel("true_unless_null", (ANY,), _BOOL)],
       "True where the value is not null, null where it is null.")
define(
    "is_nan",
    [Kernel("is_nan", (exact(t),), _BOOL) for t in (pa.float32(), pa.float64(), pa.float16())]
    + [Kernel("is_nan", (of_kind(str(t), lambda x, t=t: x == t),), _BOOL)
       for t in (pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
                 pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.null())]
    + [Kernel("is_nan", (of_kind("decimal128", pat.is_decimal128),), _BOOL),
       Kernel("is_nan", (of_kind("decimal256", pat.is_decimal256),), _BOOL),
       Kernel("is_nan", (of_kind("duration", pat.is_duration),), _BOOL)],
    "True where a floating point value is NaN (never for other numbers); nulls stay null.",
)


def _first_value_type():
    return computed("the arguments' type", lambda types, options: types[0])


define(
    "coalesce",
    [Kernel("coalesce", (p,), _first_value_type(), varargs=True,
            check=all_same if same else None,
            check_name="all arguments have the same type" if same else "")
     for p, same in value_patterns()],
    "The first non-null argument, row by row.",
    arity=Arity(1, None), null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM,
    dispatch_best=best_coalesce,
)
