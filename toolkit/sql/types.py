"""SQL type names <-> pyarrow types: the one table `CAST(x AS T)` goes through.

`parse` reads a type name with it and `to_sql` prints one, so both directions
live side by side and a type prints as a name that reads back to itself.
sqlglot knows the common SQL names; the unsigned and unit-qualified ones
(UBIGINT, TIMESTAMP_NS, ...) reach us as "user defined" names, read here too.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import SqlTypeError  # defined with every other exprscope error

__all__ = ["SqlTypeError", "arrow_type_for", "sql_type_name"]


# the name a type prints as comes first; the others are accepted spellings
_PLAIN: list[tuple[pa.DataType, tuple[str, ...]]] = [
    (pa.bool_(), ("BOOLEAN", "BOOL")),
    (pa.int8(), ("TINYINT", "INT8")),
    (pa.int16(), ("SMALLINT", "INT16")),
    (pa.int32(), ("INT", "INTEGER", "INT32")),
    (pa.int64(), ("BIGINT", "INT64")),
    (pa.uint8(), ("UTINYINT", "UINT8")),
    (pa.uint16(), ("USMALLINT", "UINT16")),
    (pa.uint32(), ("UINTEGER", "UINT", "UINT32")),
    (pa.uint64(), ("UBIGINT", "UINT64")),
    (pa.float32(), ("FLOAT", "REAL", "FLOAT32")),
    (pa.float64(), ("DOUBLE", "FLOAT64")),
    (pa.string(), ("VARCHAR", "TEXT", "STRING", "UTF8")),
    (pa.large_string(), ("LARGE_STRING", "LARGE_UTF8")),
    (pa.binary(), ("VARBINARY", "BLOB", "BINARY", "BYTEA")),
    (pa.large_binary(), ("LARGE_BINARY",)),
    (pa.date32(), ("DATE", "DATE32")),
    (pa.date64(), ("DATE64",)),
    (pa.timestamp("us"), ("TIMESTAMP", "TIMESTAMP_US", "DATETIME")),
    (pa.timestamp("s"), ("TIMESTAMP_S",)),
    (pa.timestamp("ms"), ("TIMESTAMP_MS",)),
    (pa.timestamp("ns"), ("TIMESTAMP_NS",)),
    (pa.timestamp("us", tz="UTC"), ("TIMESTAMPTZ",)),
    (pa.duration("s"), ("DURATION_S",)),
    (pa.duration("ms"), ("DURATION_MS",)),
    (pa.duration("us"), ("DURATION_US",)),
    (pa.duration("ns"), ("DURATION_NS",)),
]

_BY_NAME: dict[str, pa.DataType] = {n: t for t, names in _PLAIN for n in names}
_NAME_OF: dict[pa.DataType, str] = {t: names[0] for t, names in _PLAIN}


def arrow_type_for(name: str, params: list[int] | None = None) -> pa.DataType:
    """The pyarrow type for a SQL type name (upper case) and its parameters."""
    params = list(params or [])
    if name in ("DECIMAL", "NUMERIC"):
        if len(params) not in (1, 2):
            raise SqlTypeError(f"{name} needs a precision and a scale, e.g. DECIMAL(10, 2)")
        precision, scale = params[0], params[1] if len(params) > 1 else 0
        if not 1 <= precision <= 76:
            raise SqlTypeError(f"{name} precision must be 1..76, got {precision}")
        if precision <= 38:
            return pa.decimal128(precision, scale)
        return pa.decimal256(precision, scale)
    if name not in _BY_NAME:
        raise SqlTypeError(f"unknown type {name}; known: {', '.join(sorted(_BY_NAME))}, DECIMAL(p, s)")
    if params:
        raise SqlTypeError(f"type {name} takes no parameters, got {params}")
    return _BY_NAME[name]


def sql_type_name(arrow_type: pa.DataType) -> str:
    """The SQL spelling `arrow_type_for` reads back to `arrow_type`."""
    if pa.types.is_decimal(arrow_type):
        big = isinstance(arrow_type, pa.Decimal256Type)
        if big != (arrow_type.precision > 38):
            raise SqlTypeError(f"type {arrow_type} has no SQL spelling (its width follows the precision)")
        return f"DECIMAL({arrow_type.precision}, {arrow_type.scale})"
    name = _NAME_OF.get(arrow_type)
    if name is None:
        raise SqlTypeError(f"type {arrow_type} has no SQL spelling")
    return name
