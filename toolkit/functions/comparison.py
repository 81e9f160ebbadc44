"""The six comparisons: equal, not_equal, less, less_equal, greater, greater_equal.

One kernel per type `(T, T) -> bool`, as Arrow registers them; mixed types are
unified by `dispatch.best_compare` (decimals brought to one width and scale, dictionaries decoded,
common numeric / temporal / binary type).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from .dispatch import best_compare
from .function import Kernel, call_pyarrow
from .number_compare import compare_numbers
from .registry import definer
from .string_compare import selective_equal, selective_not_equal
from .types import (
    NUMERIC,
    TIME_UNITS,
    exact,
    fixed,
    of_kind,
    timestamp_unit,
)

define = definer("comparison")

__all__ = ["COMPARISONS"]

COMPARISONS = {
    "equal": "Compare values for equality (x == y).",
    "not_equal": "Compare values for inequality (x != y).",
    "less": "Compare values for ordered inequality (x < y).",
    "less_equal": "Compare values for ordered inequality (x <= y).",
    "greater": "Compare values for ordered inequality (x > y).",
    "greater_equal": "Compare values for ordered inequality (x >= y).",
}

_BOOL = fixed(pa.bool_())
# a dictionary of strings against a string is compared once per dictionary entry
# (string_compare) instead of being decoded first
_PER_DICTIONARY_ENTRY = ("equal", "not_equal")


def _same_scale(types) -> bool:
    return types[0].scale == types[1].scale


def _same_tz_presence(types) -> bool:
    return (types[0].tz is None) == (types[1].tz is None)


def _same_width(types) -> bool:
    return types[0].byte_width == types[1].byte_width


def _kernels(name: str) -> list[Kernel]:
    plain = ([pa.bool_()] + NUMERIC + [pa.date32(), pa.date64()])
    kernels = [Kernel(name, (exact(t), exact(t)), _BOOL) for t in plain]
    for u in TIME_UNITS:
        kernels.append(Kernel(name, (timestamp_unit(u), timestamp_unit(u)), _BOOL,
                              check=_same_tz_presence,
                              check_name="both or neither have a time zone"))
    kernels += [Kernel(name, (exact(pa.duration(u)), exact(pa.duration(u))), _BOOL)
                for u in TIME_UNITS]
    kernels += [Kernel(name, (exact(t), exact(t)), _BOOL)
                for t in (pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns"))]
    kernels += [Kernel(name, (exact(t), exact(t)), _BOOL)
                for t in (pa.binary(), pa.utf8(), pa.large_binary(), pa.large_utf8(),
                          pa.string_view(), pa.binary_view())]
    for kind, pred in (("decimal32", pat.is_decimal32), ("decimal64", pat.is_decimal64),
                       ("decimal128", pat.is_decimal128), ("decimal256", pat.is_decimal256)):
        pattern = of_kind(kind, pred)
        kernels.append(Kernel(name, (pattern, pattern), _BOOL, check=_same_scale,
                              check_name="equal scales"))
    if name in _PER_DICTIONARY_ENTRY:
        for t in (pa.binary(), pa.utf8(), pa.large_binary(), pa.large_utf8()):
            entries = of_kind(f"dictionary<values={t}>",
                              lambda x, t=t: pat.is_dictionary(x) and x.value_type == t)
            kernels += [Kernel(name, (entries, exact(t)), _BOOL),
                        Kernel(name, (exact(t), entries), _BOOL)]
    fsb = of_kind("fixed_size_binary", pat.is_fixed_size_binary)
    kernels.append(Kernel(name, (fsb, fsb), _BOOL, check=_same_width, check_name="equal widths"))
    return kernels


# equality against a string literal runs exprscope's selective kernel (string_compare)
_STRINGS = {"equal": selective_equal, "not_equal": selective_not_equal}


def _execute(name: str):
    """The comparison's kernel: numbers by exprscope's loop (number_compare), strings
    against a literal by its selective kernel, anything else by Arrow's."""
    others = _STRINGS.get(name, call_pyarrow)

    def execute(function, args, options, kernel):
        if len(args) == 2:
            found = compare_numbers(name, *args)
            if found is not None:
                return found
        return others(function, args, options, kernel)
    return execute


for _name, _doc in COMPARISONS.items():
    define(_name, _kernels(_name), _doc, dispatch_best=best_compare, execute=_execute(_name))
del _name, _doc
