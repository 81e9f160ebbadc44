"""Reading pyarrow FunctionOptions: their values and Arrow's `{prop=value}` text.

pyarrow's option objects hide their fields from Python, but every one of them
serializes to a one-row Arrow IPC file whose single struct column holds the
fields in declaration order, each with its real Arrow type. Reading that back
gives the values without a table of per-class parsers.
"""

from __future__ import annotations

import functools
import inspect

import pyarrow as pa
import pyarrow.compute as pc

from ..support.bounded_cache import ObjectCache

__all__ = [
    "cast_target",
    "field_name_at",
    "field_names",
    "option_scalars",
    "option_values",
    "options_changed_text",
    "options_equal",
    "options_short_text",
    "options_to_string",
    "value_set",
]


def _fingerprint(options: pc.FunctionOptions) -> bytes:
    return options.serialize().to_pybytes()


@functools.lru_cache(maxsize=4096)
def _struct_of(serialized: bytes) -> pa.StructScalar:
    table = pa.ipc.open_file(pa.py_buffer(serialized)).read_all()
    return table.column(0)[0]


def option_scalars(options: pc.FunctionOptions) -> dict[str, pa.Scalar]:
    """The options' fields as typed Arrow scalars, in declaration order."""
    struct = _struct_of(_fingerprint(options))
    return {name: struct[name] for name in struct.type.names if name != "_type_name"}


def option_values(options: pc.FunctionOptions) -> dict[str, object]:
    """The options' fields as Python values (lists stay lists)."""
    return {k: v.as_py() for k, v in option_scalars(options).items()}


def null_rows_stay_null(options: pc.SetLookupOptions) -> bool:
    """Whether a lookup in a set holding no null answers null for a null row (EMIT_NULL,
    INCONCLUSIVE) rather than false (MATCH, SKIP)."""
    return int(option_values(options)["null_matching_behavior"]) not in (0, 1)


def cast_target(options: pc.CastOptions) -> pa.DataType:
    """The `to_type` of CastOptions (stored as the type of a null field)."""
    return option_scalars(options)["to_type"].type


def value_set(options: pc.SetLookupOptions) -> pa.Array:
    return option_scalars(options)["value_set"].values


# Reading the names costs a serialization of every name; a printer asks for one
# argument's name at a time, so a struct of n fields read per argument was n^2.
# The names are remembered per options object (kept alive here, so its id cannot be
# reused).
_FIELD_NAMES = ObjectCache(1024)  # MakeStructOptions object -> its field names


def _names(options: pc.MakeStructOptions) -> tuple[str, ...]:
    hit = _FIELD_NAMES.get(options)
    if hit is None:
        hit = _FIELD_NAMES.put(options, tuple(option_values(options)["field_names"]))
    return hit


def field_names(options: pc.MakeStructOptions) -> list[str]:
    return list(_names(options))


def field_name_at(options: pc.MakeStructOptions, index: int) -> str | None:
    """The name of field `index`, None past the last one, without copying the names."""
    names = _names(options)
    return names[index] if 0 <= index < len(names) else None


def options_equal(a: pc.FunctionOptions | None, b: pc.FunctionOptions | None) -> bool:
    """Arrow's rule: the same object, or both present and equal."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return type(a) is type(b) and a == b


@functools.lru_cache(maxsize=4096)
def _options_text(serialized: bytes, cls: type) -> str:
    options = cls.deserialize(pa.py_buffer(serialized))
    text = str(pc.Expression._call("f", [], options))
    # pyarrow prints "f({...})"; keep the braces
    return text[2:-1]


def options_to_string(options: pc.FunctionOptions) -> str:
    """Arrow's ToString of options: `{prop=value, ...}` (taken from Arrow itself)."""
    return _options_text(_fingerprint(options), type(options))


def _top_level_pieces(text: str) -> list[str]:
    """`a=1, b=[1, 2], c="x, y"` split at the commas outside brackets and quotes."""
    pieces, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "[{(":
            depth += 1
        elif not quoted and ch in "]})":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(", ", i):
            pieces.append(text[start:i])
            start = i + 2
    pieces.append(text[start:])
    return pieces


@functools.lru_cache(maxsize=512)
def _defaults_for(cls: type, required: tuple) -> pc.FunctionOptions | None:
    try:
        return cls(**dict(required))
    except (TypeError, ValueError, pa.ArrowException):
        return None


def _required_fields(cls: type) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in parameters if p.name != "self" and p.default is p.empty
                 and p.kind is p.POSITIONAL_OR_KEYWORD)


def options_changed_text(options: pc.FunctionOptions) -> str:
    """Arrow's `{prop=value}` text keeping only what differs from the class's defaults.

    The fields the class cannot do without (PadOptions' width) always show;
    `{width=5, padding="*"}` rather than every field. The full text when the
    defaults cannot be built or the text cannot be matched to the fields.
    """
    full = options_to_string(options)
    mine = option_scalars(options)
    required = _required_fields(type(options))
    try:
        kept = tuple((k, mine[k].as_py()) for k in required if k in mine)
        defaults = _defaults_for(type(options), kept)
    except (TypeError, ValueError, pa.ArrowException):  # unhashable or unreadable values
        return full
    if defaults is None or not (full.startswith("{") and full.endswith("}")):
        return full
    try:
        theirs = option_scalars(defaults)
    except pa.ArrowException:  # defaults Arrow cannot serialize (CastOptions without a type)
        return full
    pieces = _top_level_pieces(full[1:-1])
    if len(pieces) != len(mine) or list(theirs) != list(mine):
        return full
    shown = [piece for piece, key in zip(pieces, mine)
             if key in required or not mine[key].equals(theirs[key])]
    return "{" + ", ".join(shown) + "}"


_SHOWN_VALUES = 6  # values of a set printed on one line before "… N more"


def options_short_text(options: pc.FunctionOptions) -> str:
    """Options on one line as a person reads them, empty when all are Arrow's defaults.

    Only what differs from the defaults (`{pattern="a%"}`, not `ignore_case=false`);
    a cast's target and the flags it turns on (`{to_type=double}`), never its seven
    fields; a value set as its first values (`{value_set=[1, 12]}`). Arrow's full
    text, `options_to_string`, is what exports and `Expression.to_string` write.
    """
    try:
        if isinstance(options, pc.CastOptions):
            values = option_values(options)
            flags = [f"{key}=true" for key, on in values.items() if key != "to_type" and on]
            return "{" + ", ".join([f"to_type={cast_target(options)}", *flags]) + "}"
        if isinstance(options, pc.SetLookupOptions):
            return _value_set_short(options)
        text = options_changed_text(options)
    except (TypeError, ValueError, KeyError, pa.ArrowException):
        return options_to_string(options)
    return "" if text == "{}" else text


def _value_set_short(options: pc.SetLookupOptions) -> str:
    values = value_set(options)
    shown = [_value_short(values[i]) for i in range(min(_SHOWN_VALUES, len(values)))]
    if len(values) > _SHOWN_VALUES:
        shown.append(f"… {len(values) - _SHOWN_VALUES:,} more")
    matching = option_values(options).get("null_matching_behavior")
    matching_text = "" if matching in (None, 0) else \
        f", null_matching_behavior={options_to_string(options).rsplit('=', 1)[-1][:-1]}"
    return "{value_set=[" + ", ".join(shown) + "]" + matching_text + "}"


def _value_short(scalar: pa.Scalar) -> str:
    if not scalar.is_valid:
        return "null"
    if pa.types.is_string(scalar.type) or pa.types.is_large_string(scalar.type):
        return '"' + scalar.as_py().replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(scalar)
