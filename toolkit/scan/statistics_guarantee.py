"""What a Parquet row group's column statistics guarantee, as Arrow's dataset scanner reads them.

Arrow turns each column chunk's statistics into a predicate that holds for
every row of the row group (`ParquetFileFragment::EvaluateStatisticsAsExpression`
in Arrow's `cpp/src/arrow/dataset/file_parquet.cc`), and a row group's
guarantee is the `and` of those predicates, in the order the filter names the
columns. The rules, followed here exactly so the verdicts are Arrow's:

- only leaf (primitive) columns the filter references and the file holds count;
- no values and some nulls: `is_null(x)`; no values and no nulls: nothing known;
- min and max are cast to the field's type; if either cast fails, nothing known;
- min == max: `x == min`, or `(x == min) or is_null(x)` when nulls may be present;
- otherwise `x >= min and x <= max` (a NaN bound is dropped; both NaN: nothing
  known), `or is_null(x)` when nulls may be present. "May be present" means the
  null count is unknown or positive.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from ..expression import Call, Expression, Literal, Parameter
from ..field_ref import FieldRef

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = ["column_guarantee", "row_group_guarantee"]


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
    low, high = _as_field_type(stats.min, field.type), _as_field_type(stats.max, field.type)
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


def _as_field_type(value, target: pa.DataType) -> pa.Scalar | None:
    """A statistics bound as a scalar of the column's Arrow type, or None if it will not cast."""
    try:
        if pa.types.is_dictionary(target):
            return pa.scalar(value, type=target.value_type).cast(target)
        return pa.scalar(value, type=target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError,
            ValueError, OverflowError):
        return None


def _is_nan(value: pa.Scalar) -> bool:
    return (pa.types.is_floating(value.type) and value.is_valid
            and math.isnan(value.as_py()))


def _null_options() -> pc.NullOptions:
    return pc.NullOptions(nan_is_null=False)
