"""What a Parquet row group's column statistics guarantee, as Arrow's dataset scanner reads them.

Arrow turns each column chunk's statistics into a predicate that holds for
every row of the row group (`ParquetFileFragment::EvaluateStatisticsAsExpression`
in Arrow's `cpp/src/arrow/dataset/file_parquet.cc`), and a row group's
guarantee is the `and` of those predicates, in the order the filter names the
columns. The rules, followed here exactly so the verdicts are Arrow's:

- only leaf (primitive) columns the filter references and the file holds count;
- no values and some nulls: `is_null(x)`; no values and no nulls: nothing known;
- min and max are read as the physical values Parquet stores (integers for
  dates, times, timestamps and integer-backed decimals, big-endian bytes for
  other decimals), typed by the column's logical type, then cast to the field's
  type; if either cast fails, nothing known. Reading them through Python's
  datetime would drop nanoseconds and fail past the year 9999;
- decimal32 and decimal64 columns: nothing known (Arrow's statistics do not
  cast to those types, so it reads every such row group);
- min == max: `x == min`, or `(x == min) or is_null(x)` when nulls may be present;
- otherwise `x >= min and x <= max` (a NaN bound is dropped; both NaN: nothing
  known), `or is_null(x)` when nulls may be present. "May be present" means the
  null count is unknown or positive.
"""

from __future__ import annotations

import decimal
import json
import math
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from ..model.expression import Call, Expression, Literal, Parameter
from ..model.field_ref import FieldRef

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = ["bound_scalar", "column_guarantee", "row_group_guarantee"]


def column_guarantee(ref: FieldRef, field: pa.Field, stats) -> Expression | None:
    """The predicate one column chunk's statistics guarantee, or None when they say nothing."""
    if stats is None:
        return None
    column = Parameter(ref)
    may_have_null = not stats.has_null_count or stats.null_count > 0
    has_null = stats.has_null_count and stats.null_count > 0
    if stats.num_values == 0:
        return Call("is_null", [column], _null_options()) if has_null else None
    if not stats.has_min_max:
        return None
    low, high = bound_scalar(stats, "min", field.type), bound_scalar(stats, "max", field.type)
    if low is None or high is None:
        return None
    if low.equals(high):
        single = Call("equal", [column, Literal(low)])
        if not may_have_null:
            return single
        return Call("or_kleene", [single, Call("is_null", [column], _null_options())])
    lower = Call("greater_equal", [column, Literal(low)])
    upper = Call("less_equal", [column, Literal(high)])
    if _is_nan(low) and _is_nan(high):
        return None
    if _is_nan(low):
        in_range = upper
    elif _is_nan(high):
        in_range = lower
    else:
        in_range = Call("and_kleene", [lower, upper])
    if may_have_null:
        return Call("or_kleene", [in_range, Call("is_null", [column], _null_options())])
    return in_range


def row_group_guarantee(refs, physical_schema: pa.Schema,
                        row_group: pq.RowGroupMetaData) -> Expression:
    """The `and` of the column guarantees for `refs` (in order), `true` when none says anything."""
    leaves = {row_group.column(j).path_in_schema: j for j in range(row_group.num_columns)}
    out: Expression | None = None
    seen: set[str] = set()
    for ref in refs:
        found = _leaf(ref, physical_schema)
        if found is None:
            continue
        path, field = found
        if path in seen or path not in leaves:
            continue
        seen.add(path)
        member = column_guarantee(ref, field, row_group.column(leaves[path]).statistics)
        if member is not None:
            out = member if out is None else Call("and_kleene", [out, member])
    return out if out is not None else Literal(pa.scalar(True))


def _leaf(ref: FieldRef, schema: pa.Schema) -> tuple[str, pa.Field] | None:
    """(Parquet's dotted column path, field) for a ref to a primitive column, else None."""
    names = [leaf.name for leaf in ref.leaves()]
    if any(name is None for name in names):
        return None
    current: pa.Schema | pa.DataType = schema
    field = None
    for name in names:
        if field is not None and not pa.types.is_struct(field.type):
            return None
        candidates = [f for f in (current if field is None else field.type) if f.name == name]
        if len(candidates) != 1:
            return None
        field = candidates[0]
    if field is None or pa.types.is_nested(field.type):
        return None
    return ".".join(names), field


_UNITS = {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}


def bound_scalar(stats, which: str, target: pa.DataType) -> pa.Scalar | None:
    """Statistics bound `which` ("min" or "max") as a scalar of the column's Arrow type,
    read from the physical value; None when it will not cast (Arrow then knows nothing)."""
    value_type = target.value_type if pa.types.is_dictionary(target) else target
    if _is_narrow_decimal(value_type):
        return None
    try:
        stored = _stored_scalar(stats, which, value_type)
        if stored is None:
            return None
        return stored.cast(target) if stored.type != target else stored
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError,
            ValueError, OverflowError):
        return None


def _stored_scalar(stats, which: str, value_type: pa.DataType) -> pa.Scalar | None:
    """The bound as Parquet stores it, typed by the logical type, without Python datetimes."""
    if not (pa.types.is_decimal(value_type) or pa.types.is_temporal(value_type)):
        return pa.scalar(getattr(stats, which), type=value_type)
    raw = getattr(stats, f"{which}_raw")
    logical = json.loads(stats.logical_type.to_json()) if stats.logical_type else {}
    kind = logical.get("Type")
    if pa.types.is_decimal(value_type):
        return _decimal_scalar(raw, logical, value_type)
    if isinstance(raw, int) and kind in ("Timestamp", "Time", "Date"):
        width = pa.int64() if stats.physical_type == "INT64" else pa.int32()
        return pa.scalar(raw, width).cast(_stored_temporal_type(logical, width))
    if isinstance(raw, int) and pa.types.is_temporal(value_type):
        return pa.scalar(raw, value_type)
    return pa.scalar(getattr(stats, which), type=value_type)


def _stored_temporal_type(logical: dict, width: pa.DataType) -> pa.DataType:
    kind = logical["Type"]
    if kind == "Date":
        return pa.date32()
    unit = _UNITS[logical["timeUnit"]]
    if kind == "Time":
        return pa.time32(unit) if width == pa.int32() else pa.time64(unit)
    return pa.timestamp(unit, "UTC" if logical.get("isAdjustedToUTC") else None)


def _decimal_scalar(raw, logical: dict, value_type: pa.DataType) -> pa.Scalar | None:
    """A decimal bound from its unscaled integer (int, or big-endian two's complement bytes)."""
    if isinstance(raw, (bytes, bytearray)):
        if not raw:
            return None
        raw = int.from_bytes(raw, "big", signed=True)
    if not isinstance(raw, int):
        return None
    scale = logical.get("scale", value_type.scale)
    digits = tuple(int(c) for c in str(abs(raw)))
    exact = decimal.Decimal((int(raw < 0), digits, -scale))
    return pa.scalar(exact, type=value_type)


def _is_narrow_decimal(t: pa.DataType) -> bool:
    return isinstance(t, (pa.Decimal32Type, pa.Decimal64Type))


def _is_nan(value: pa.Scalar) -> bool:
    return (pa.types.is_floating(value.type) and value.is_valid
            and math.isnan(value.as_py()))


def _null_options() -> pc.NullOptions:
    return pc.NullOptions(nan_is_null=False)
