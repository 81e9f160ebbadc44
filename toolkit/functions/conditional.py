"""Conditionals: if_else, case_when and choose (special forms, evaluated lazily).

The value arguments of if_else, case_when and coalesce share one type; the
kernels list the types Arrow registers, one kernel per concrete type and one
per parametric kind (with the check that all values have the very same type).
`dispatch.best_if_else` / `best_case_when` find that common type.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from .dispatch import best_case_when, best_choose, best_if_else
from .function import Arity, FunctionKind, InputType, Kernel, NullHandling
from .registry import definer
from .select_values import selective_if_else
from .types import FLOATS, INTS, TIME_UNITS, computed, exact, of_kind

define = definer("conditional")

__all__ = ["value_patterns"]

_CONCRETE = (INTS + FLOATS + [pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms"),
                               pa.time64("us"), pa.time64("ns"), pa.month_day_nano_interval()]
             + [pa.duration(u) for u in TIME_UNITS]
             + [pa.bool_(), pa.float16(), pa.null(), pa.binary(), pa.utf8(), pa.large_binary(),
                pa.large_utf8()])

_KINDS = [
    ("timestamp", pat.is_timestamp),
    ("fixed_size_binary", pat.is_fixed_size_binary),
    ("decimal128", pat.is_decimal128),
    ("decimal256", pat.is_decimal256),
    ("list", pat.is_list),
    ("large_list", pat.is_large_list),
    ("list_view", lambda t: pat.is_list_view(t)),
    ("large_list_view", lambda t: pat.is_large_list_view(t)),
    ("fixed_size_list", pat.is_fixed_size_list),
    ("map", pat.is_map),
    ("struct", pat.is_struct),
    ("dense_union", lambda t: pat.is_union(t) and t.mode == "dense"),
    ("sparse_union", lambda t: pat.is_union(t) and t.mode == "sparse"),
    ("dictionary", pat.is_dictionary),
]


def value_patterns() -> list[tuple[InputType, bool]]:
    """(pattern, needs the same-type check) for every value type a conditional accepts."""
    return ([(exact(t), False) for t in _CONCRETE]
            + [(of_kind(name, pred), True) for name, pred in _KINDS])


def all_same(values) -> bool:
    return all(t == values[0] for t in values[1:])


def _value_type(start: int):
    return computed("the values' type", lambda types, options, start=start: types[start])


define(
    "if_else",
    [Kernel("if_else", (exact(pa.bool_()), p, p), _value_type(1),
            check=(lambda ts: ts[1] == ts[2]) if same else None,
            check_name="both branches have the same type" if same else "")
     for p, same in value_patterns()],
    "Choose, row by row, the second argument where the condition is true and the third "
    "where it is false (null where the condition is null).",
    null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM,
    dispatch_best=best_if_else, execute=selective_if_else,
)

_CONDITIONS = InputType(
    "struct<bool...>",
    lambda t: pat.is_struct(t) and all(pat.is_boolean(t.field(i).type) for i in range(t.num_fields)))


def _case_when_check(same: bool):
    def check(types) -> bool:
        n_fields, n_values = types[0].num_fields, len(types) - 1
        if n_values < 1 or not (n_values - 1 <= n_fields <= n_values):
            return False
        return all_same(types[1:]) if same else True

    return check


define(
    "case_when",
    [Kernel("case_when", (_CONDITIONS, p), _value_type(1), varargs=True,
            check=_case_when_check(same),
            check_name=("one condition per value (else optional)"
                        + (", all values of the same type" if same else "")))
     for p, same in value_patterns()],
    "The value of the first true condition, row by row; the conditions come as one struct "
    "of booleans (from make_struct), an extra last value is the else branch.",
    arity=Arity(2, None), null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM,
    dispatch_best=best_case_when,
)


# Arrow registers choose for flat types only (no lists, maps, structs or unions), and
# decodes dictionaries before dispatch
_NESTED = {"list", "large_list", "list_view", "large_list_view", "fixed_size_list", "map",
           "struct", "dense_union", "sparse_union", "dictionary"}

define(
    "choose",
    [Kernel("choose", (exact(pa.int64()), p), _value_type(1), varargs=True,
            check=(lambda ts: all_same(ts[1:])) if same else None,
            check_name="all values have the same type" if same else "")
     for p, same in value_patterns() if p.name not in _NESTED],
    "The value argument the first argument's index picks, row by row (0 picks the second "
    "argument); a null index gives null, an index out of range is an error.",
    arity=Arity(2, None), null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM,
    dispatch_best=best_choose, can_fail=True,  # an index out of range
)
