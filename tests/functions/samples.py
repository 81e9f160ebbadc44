"""Sample columns of many types, an Acero bridge and a tiny eager evaluator for the tests.

The evaluator here is deliberately minimal (the real one lives in
toolkit.execution): it runs each bound call through `fn(args, options, kernel)`,
so the tests check the registry's own execution path against the types it declares.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from toolkit.model.expression import postorder

N = 4


def _values(t: pa.DataType) -> list:
    if pa.types.is_boolean(t):
        return [True, False, None, True]
    if pa.types.is_integer(t):
        return [1, 2, None, 3] if pa.types.is_unsigned_integer(t) else [1, -2, None, 3]
    if pa.types.is_floating(t):
        return [1.5, -2.0, None, 4.0]
    if pa.types.is_decimal(t):
        q = Decimal(1).scaleb(-t.scale)
        return [Decimal("1.25").quantize(q), Decimal(-2).quantize(q), None, Decimal(3).quantize(q)]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return ["a1", "Bc", None, "12"]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return [b"a1", b"Bc", None, b"12"]
    if pa.types.is_fixed_size_binary(t):
        return [b"x" * t.byte_width, b"y" * t.byte_width, None, b"z" * t.byte_width]
    if pa.types.is_date(t):
        return [dt.date(2024, 2, 29), dt.date(1999, 12, 31), None, dt.date(2000, 1, 1)]
    if pa.types.is_timestamp(t):
        return [dt.datetime(2024, 2, 29, 13, 5, 7), dt.datetime(1999, 12, 31, 23, 59, 59), None,
                dt.datetime(2000, 1, 1)]
    if pa.types.is_time(t):
        return [dt.time(13, 5, 7), dt.time(0, 0, 1), None, dt.time(23, 59, 59)]
    if pa.types.is_duration(t):
        return [dt.timedelta(seconds=5), dt.timedelta(seconds=-3), None, dt.timedelta(0)]
    if pa.types.is_null(t):
        return [None] * N
    raise ValueError(t)


def sample_array(t: pa.DataType) -> pa.Array:
    if pa.types.is_dictionary(t):
        return sample_array(t.value_type).dictionary_encode().cast(t)
    if pa.types.is_struct(t):
        return pa.StructArray.from_arrays([sample_array(f.type) for f in t],
                                          fields=list(t))
    if pa.types.is_list(t):
        return pa.array([[1], [], None, [2, 3]], t)
    return pa.array(_values(t), t)


SAMPLE_TYPES = [
    pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
    pa.uint32(), pa.uint64(), pa.float32(), pa.float64(), pa.decimal128(5, 2),
    pa.decimal128(12, 4), pa.decimal256(20, 3), pa.utf8(), pa.large_utf8(), pa.binary(),
    pa.large_binary(), pa.date32(), pa.date64(), pa.timestamp("s"), pa.timestamp("ms"),
    pa.timestamp("us", "UTC"), pa.timestamp("ns"), pa.time32("s"), pa.time64("us"),
    pa.duration("s"), pa.duration("ms"), pa.duration("ns"), pa.null(),
    pa.dictionary(pa.int32(), pa.utf8()), pa.dictionary(pa.int8(), pa.int64()),
    pa.struct([("x", pa.int32()), ("y", pa.utf8())]), pa.list_(pa.int64()),
    pa.binary(3),
]


def column_name(t: pa.DataType) -> str:
    return "c_" + "".join(ch if ch.isalnum() else "_" for ch in str(t))


def sample_table(types=SAMPLE_TYPES) -> pa.Table:
    return pa.table({column_name(t): sample_array(t) for t in types})


def to_acero(expr) -> pc.Expression:
    """The same expression as pyarrow's own `pc.Expression`, iteratively."""
    out: dict[int, pc.Expression] = {}
    for node in postorder(expr):
        if node.is_literal:
            out[id(node)] = pc.scalar(node.value)
        elif node.is_field:
            ref = node.ref
            out[id(node)] = pc.field(*[p.name if p.is_name else p.field_path.indices[0]
                                       for p in ref.leaves()])
        else:
            out[id(node)] = pc.Expression._call(node.name, [out[id(a)] for a in node.args],
                                                node.options)
    return out[id(expr)]


def acero_type_and_values(expr, table: pa.Table):
    result = ds.dataset(table).to_table(columns={"r": to_acero(expr)})
    return result.schema.field("r").type, result.column("r")


def eager(bound, table: pa.Table):
    """Evaluate a bound expression by calling each node's function on pyarrow values."""
    out: dict[int, object] = {}
    for node in postorder(bound):
        if node.is_literal:
            out[id(node)] = node.value
        elif node.is_field:
            value = table
            for i in node.path.indices:
                value = value.column(i) if isinstance(value, pa.Table) else pc.struct_field(value, [i])
            out[id(node)] = value
        else:
            out[id(node)] = node.function([out[id(a)] for a in node.args], node.options, node.kernel)
    return out[id(bound)]
