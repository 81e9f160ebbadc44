"""Functions derived from pyarrow's own registry: signatures read, the rest per family.

pyarrow publishes, for every scalar function, its name, arity, documentation,
options class and each kernel's signature (`ScalarKernel<(string, int64) ->
bool>`). Those are read here rather than typed again. What the registry does
not say, each family module says once for all of its functions (a `Family`):
the implicit casts (DispatchBest), how nulls flow, which kernels can fail on a
row, and the output type of kernels pyarrow prints as `computed`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from ..errors import BindError, RegistryError
from ..support.bounded_cache import ObjectCache
from .endless_calls import ENDLESS_NAMES, guarded_execute, refuse_endless
from .function import Arity, Function, InputType, Kernel, NullHandling, OutputType
from .init_checks import requires_options
from .registry import define, has_function, register_later
from .types import ANY, TIME_UNITS, computed, exact, fixed, of_kind, same_as, timestamp_unit

__all__ = ["DERIVED", "Family", "define_family", "kernel_signatures", "probed_output", "pyarrow_scalar_names"]

_UNION_MODES = {"DENSE_UNION": "dense", "SPARSE_UNION": "sparse"}
# Arrow's Type::ID names as its kernels print them, as predicates over pyarrow types
_TYPE_IDS: dict[str, Callable[[pa.DataType], bool]] = {
    "NA": pat.is_null, "BOOL": pat.is_boolean,
    "UINT8": pat.is_uint8, "UINT16": pat.is_uint16, "UINT32": pat.is_uint32,
    "UINT64": pat.is_uint64, "INT8": pat.is_int8, "INT16": pat.is_int16, "INT32": pat.is_int32,
    "INT64": pat.is_int64, "HALF_FLOAT": pat.is_float16, "FLOAT": pat.is_float32,
    "DOUBLE": pat.is_float64, "STRING": pat.is_string, "LARGE_STRING": pat.is_large_string,
    "BINARY": pat.is_binary, "LARGE_BINARY": pat.is_large_binary,
    "FIXED_SIZE_BINARY": pat.is_fixed_size_binary, "DATE32": pat.is_date32,
    "DATE64": pat.is_date64, "TIMESTAMP": pat.is_timestamp, "TIME32": pat.is_time32,
    "TIME64": pat.is_time64, "DURATION": pat.is_duration, "DECIMAL128": pat.is_decimal128,
    "DECIMAL256": pat.is_decimal256, "LIST": pat.is_list, "LARGE_LIST": pat.is_large_list,
    "LIST_VIEW": pat.is_list_view, "LARGE_LIST_VIEW": pat.is_large_list_view,
    "FIXED_SIZE_LIST": pat.is_fixed_size_list, "MAP": pat.is_map, "STRUCT": pat.is_struct,
    "DICTIONARY": pat.is_dictionary,
    "INTERVAL_DAY_TIME": lambda t: t.id == pa.lib.Type_INTERVAL_DAY_TIME,
    "INTERVAL_MONTHS": lambda t: t.id == pa.lib.Type_INTERVAL_MONTHS,
    "INTERVAL_MONTH_DAY_NANO": lambda t: t.id == pa.lib.Type_INTERVAL_MONTH_DAY_NANO,
    **{name: (lambda t, m=mode: pat.is_union(t) and t.mode == m)
       for name, mode in _UNION_MODES.items()},
}


def _named_types() -> dict[str, pa.DataType]:
    """The concrete types a kernel signature can name, by the text Arrow prints for them."""
    flat = [pa.null(), pa.bool_(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(), pa.int8(),
            pa.int16(), pa.int32(), pa.int64(), pa.float16(), pa.float32(), pa.float64(),
            pa.utf8(), pa.large_utf8(), pa.binary(), pa.large_binary(), pa.string_view(),
            pa.binary_view(), pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms"),
            pa.time64("us"), pa.time64("ns"),
            pa.month_day_nano_interval()]
    flat += [pa.duration(u) for u in TIME_UNITS] + [pa.timestamp(u) for u in TIME_UNITS]
    named = {str(t): t for t in flat}
    for t in (pa.utf8(), pa.large_utf8(), pa.binary(), pa.large_binary()):
        for nested in (pa.list_(t), pa.large_list(t)):
            named[str(nested)] = nested
    return named


_NAMED = _named_types()
# interval types pyarrow cannot construct, printed by name
_INTERVALS = {"day_time_interval": "INTERVAL_DAY_TIME", "month_interval": "INTERVAL_MONTHS"}
_SIGNATURE = re.compile(r"ScalarKernel<(?:\((?P<args>.*)\)|varargs\[(?P<var>.*)\*\]) -> (?P<out>.*)>$",
                        re.DOTALL)
_SPLIT = re.compile(r", (?![^<]*>)")  # commas outside <...>


@dataclass(frozen=True)
class Signature:
    """One pyarrow kernel: the input patterns, whether the last repeats, the output as printed."""

    inputs: tuple[InputType, ...]
    varargs: bool
    output: str


def _input_type(text: str) -> InputType:
    if text.startswith("Type::"):
        predicate = _TYPE_IDS.get(text[len("Type::"):])
        if predicate is None:
            raise RegistryError(f"a kernel input this reader cannot name: {text}")
        return of_kind(text[len("Type::"):].lower(), predicate)
    if text == "any":
        return ANY
    if text in _INTERVALS:
        return of_kind(text, _TYPE_IDS[_INTERVALS[text]])
    unit = re.fullmatch(r"(timestamp|duration|time32|time64)\((s|ms|us|ns)\)", text)
    if unit is None:
        if text not in _NAMED:
            raise RegistryError(f"a kernel input this reader cannot name: {text}")
        return exact(_NAMED[text])
    kind, u = unit.groups()
    if kind == "timestamp":
        return timestamp_unit(u)
    return exact(getattr(pa, kind)(u))


def kernel_signatures(name: str) -> list[Signature]:
    """pyarrow's kernels of `name` as patterns; RegistryError on a type this reader lacks."""
    out = []
    for kernel in pc.get_function(name).kernels:
        found = _SIGNATURE.match(str(kernel))
        if found is None:
            raise RegistryError(f"a kernel signature this reader cannot read: {kernel}")
        varargs = found.group("var") is not None
        text = found.group("var") if varargs else found.group("args")
        inputs = tuple(_input_type(t) for t in _SPLIT.split(text)) if text else ()
        out.append(Signature(inputs, varargs, found.group("out")))
    return out


def pyarrow_scalar_names() -> list[str]:
    """Every deterministic scalar function of pyarrow's registry, sorted."""
    return sorted(n for n in pc.list_functions()
                  if n != "random" and pc.get_function(n).kind == "scalar")


# -- output types pyarrow prints as "computed" -------------------------------------------

def empty_arguments(name: str, types) -> list:
    """Arguments of these types holding one null; a `list_element` index as the scalar it takes.

    One null row rather than none: some kernels check their types only when there
    is a row (`is_dst` refuses a timestamp without a time zone), and a null is a
    row no kernel computes anything for.
    """
    if name == "list_element" and len(types) == 2:  # a null index is an error: no rows, index 0
        return [pa.nulls(0, types[0]), pa.scalar(0, types[1])]
    return [pa.nulls(1, t) for t in types]


_PROBED = ObjectCache(8192)  # (options, function, types) -> output type


def probed_output(name: str) -> OutputType:
    """The type pyarrow's kernel gives for these types and options, asked on one null row.

    For the kernels whose output depends on their options in ways Arrow spells out
    only in code (regex group names, a strptime format with %z, a list slice's
    step): the answer is the kernel's own, and no row is computed.
    """

    def resolve(types, options, name=name):
        tag = (name, *types)
        hit = _PROBED.get(options, tag)
        if hit is not None:
            return hit
        try:
            result = pc.call_function(name, empty_arguments(name, types), options)
        except KeyError as exc:  # an array class pyarrow lacks (day_time_interval)
            raise BindError(f"Function '{name}' returns a type pyarrow has no array class "
                            f"for (type id {exc}); it cannot run from Python") from exc
        except (pa.ArrowException, TypeError, ValueError) as exc:
            raise BindError(f"Function '{name}' rejects input types "
                            f"({', '.join(map(str, types))}) with its options: {exc}") from exc
        return _PROBED.put(options, result.type, tag)

    return computed("as the kernel computes it for the options", resolve)


DERIVED: list[str] = []  # the names registered from pyarrow's registry, in order

# -- families ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Family:
    """What Arrow decides for a family of functions, beyond what pyarrow's registry prints.

    `can_fail(name, inputs)` says whether the kernel for those input patterns can
    raise on some row; `computed(name, inputs)` gives the output of a kernel printed
    as `computed` (None: ask the kernel, `probed_output`).
    """

    name: str
    dispatch_best: Callable | None = None
    null_handling: Callable[[str], NullHandling] = lambda name: NullHandling.INTERSECTION
    can_fail: Callable[[str, Sequence[InputType]], bool] = lambda name, inputs: False
    computed: Callable[[str, Sequence[InputType]], OutputType | None] = (
        lambda name, inputs: None)
    # how the family's kernels run: None for pyarrow's kernel as it is (`Function.execute`)
    execute: Callable | None = None


# options classes left without a default object: theirs holds a pa.Scalar, and building
# one from a Python float imports pandas, which `import toolkit` must not; given no
# options, pyarrow's kernel uses the same defaults
_DEFAULTS_COSTLY = (pc.RoundToMultipleOptions,)


def _output(family: Family, name: str, signature: Signature) -> OutputType:
    if signature.output == "computed":
        return family.computed(name, signature.inputs) or probed_output(name)
    if signature.output in _NAMED:
        return fixed(_NAMED[signature.output])
    return probed_output(name)  # a struct or other type this reader does not name


_CHECKED = ObjectCache(8192)  # (options, function, types) that pyarrow's kernel accepted


def probe_types(function, kernel, types, options) -> None:
    """Arrow's kernel init and the checks its kernels make on types alone, at bind time.

    Some kernels refuse a type only when they run (`is_dst` on a timestamp without
    a time zone, `round_to_multiple` of a decimal whose precision cannot hold the
    multiple): running the kernel once on a null row reports that when binding.
    """
    if function.options_required:
        requires_options(function, kernel, types, options)
    tag = (function.name, *types)
    if _CHECKED.get(options, tag):
        return
    try:
        function(empty_arguments(function.name, types), options, kernel)
    except KeyError as exc:  # an array class pyarrow lacks (day_time_interval)
        raise BindError(f"Function '{function.name}' returns a type pyarrow has no array "
                        f"class for (type id {exc}); it cannot run from Python") from exc
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise BindError(f"Function '{function.name}' rejects input types "
                        f"({', '.join(map(str, types))}){' with its options' if options else ''}"
                        f": {exc}") from exc
    _CHECKED.put(options, True, tag)


def _refusing_endless(function, kernel, types, options) -> None:
    """`probe_types`, after refusing options with which the kernel would never finish."""
    refuse_endless(function.name, options)
    probe_types(function, kernel, types, options)


def define_family(family: Family, names: Sequence[str]) -> list[str]:
    """Register each of `names` pyarrow has and exprscope lacks; the names registered.

    Each is built (its kernels read from pyarrow) when its name is first looked up.
    """
    registered = []
    available = set(pc.list_functions())
    for name in names:
        if name not in available or has_function(name):
            continue
        if pc.get_function(name).kind != "scalar":  # count_all, replace_with_mask, ...
            continue
        register_later(name, lambda name=name: _define_from_pyarrow(family, name))
        registered.append(name)
    DERIVED.extend(registered)
    return registered


def _define_from_pyarrow(family: Family, name: str) -> Function:
    pyfn = pc.get_function(name)
    kernels = [Kernel(name, s.inputs, _output(family, name, s), varargs=s.varargs,
                      can_fail=family.can_fail(name, s.inputs)) for s in kernel_signatures(name)]
    doc = pyfn._doc
    options_class = getattr(pc, doc.options_class) if doc.options_class else None
    default = None
    if options_class is not None and not doc.options_required and (
            options_class not in _DEFAULTS_COSTLY):
        default = options_class()
    arity = Arity(pyfn.arity, pyfn.arity) if pyfn.arity is not Ellipsis else Arity(1, None)
    summary = doc.summary.rstrip(".") + "."
    extra = {"execute": family.execute} if family.execute is not None else {}
    init = probe_types
    if name in ENDLESS_NAMES:  # options that make Arrow's kernel loop: refused, bound or run
        extra["execute"] = guarded_execute
        init = _refusing_endless
    return define(name, kernels, summary, arity=arity, null_handling=family.null_handling(name),
                  options_class=options_class, default_options=default, **extra,
                  options_required=doc.options_required, dispatch_best=family.dispatch_best,
                  can_fail=any(k.can_fail for k in kernels), init=init,
                  family=family.name, description=doc.description)


def first_type(name: str, inputs) -> OutputType:
    """A family's `computed` rule for kernels that keep the first argument's type."""
    return same_as(0)
