"""Set lookup: is_in and index_in against the value set in SetLookupOptions.

The value set is an option, not an argument, so it takes no part in dispatch;
binding checks (as Arrow's kernel init does) that it fits the input type.
A dictionary input is looked up through its values.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from .dispatch import best_decode
from .function import Kernel, NullHandling
from .init_checks import probe_empty
from .integer_set_lookup import integer_is_in
from .registry import definer
from .string_compare import selective_is_in
from .types import exact, fixed, of_kind

define = definer("sets")

__all__: list[str] = []

_LOOKUP_KINDS = [
    ("binary", pat.is_binary), ("string", pat.is_string), ("large_binary", pat.is_large_binary),
    ("large_string", pat.is_large_string),
    *[(str(t), (lambda x, t=t: x == t)) for t in (pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
                                                   pa.int8(), pa.int16(), pa.int32(), pa.int64(),
                                                   pa.float32(), pa.float64())],
    ("date32", pat.is_date32), ("date64", pat.is_date64), ("time32", pat.is_time32),
    ("time64", pat.is_time64), ("timestamp", pat.is_timestamp), ("duration", pat.is_duration),
    ("month_day_nano_interval", lambda t: t == pa.month_day_nano_interval()),
    ("bool", pat.is_boolean), ("decimal128", pat.is_decimal128), ("decimal256", pat.is_decimal256),
    ("fixed_size_binary", pat.is_fixed_size_binary),
]


def _kernels(name: str, out: pa.DataType) -> list[Kernel]:
    kernels = [Kernel(name, (of_kind(k, pred),), fixed(out)) for k, pred in _LOOKUP_KINDS]
    kernels.append(Kernel(name, (exact(pa.null()),), fixed(out)))
    return kernels


def _is_in(function, args, options, kernel):
    """A few integers by compares, strings by their bytes, anything else Arrow's hash."""
    found = integer_is_in(args[0], options) if len(args) == 1 else None
    return found if found is not None else selective_is_in(function, args, options, kernel)


define("is_in", _kernels("is_in", pa.bool_()),
       "True where the value is in the value set; a null matches a null in the set "
       "(or never, with skip_nulls).",
       null_handling=NullHandling.OUTPUT_NOT_NULL, options_class=pc.SetLookupOptions,
       dispatch_best=best_decode, init=probe_empty, options_required=True,
       execute=_is_in)
define("index_in", _kernels("index_in", pa.int32()),
       "The index of the value in the value set, null where it is absent.",
       null_handling=NullHandling.COMPUTED, options_class=pc.SetLookupOptions,
       dispatch_best=best_decode, init=probe_empty, options_required=True)
