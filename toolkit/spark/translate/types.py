"""pyarrow types <-> Spark SQL types, so plans and batches cross the border intact.

Spark knows fewer types than Arrow: unsigned integers widen to the next signed
type, every timestamp becomes microseconds (time-zoned ones are Spark's
TimestampType, naive ones TimestampNTZType), every duration a day-time
interval, and the string/binary flavours (large, view) plain strings/binaries.
`arrow_type_for_spark` is what the Arrow batches of `mapInArrow` carry.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from ..errors import SparkTranslationError

__all__ = [
    "arrow_type_for_spark",
    "from_spark_type",
    "spark_compatible_schema",
    "to_spark_type",
    "to_struct_type",
]


def to_spark_type(t: pa.DataType):
    """The Spark DataType that holds values of the Arrow type `t`."""
    from pyspark.sql import types as T

    if pat.is_null(t):
        return T.NullType()
    if pat.is_boolean(t):
        return T.BooleanType()
    if pat.is_int8(t):
        return T.ByteType()
    if pat.is_int16(t) or pat.is_uint8(t):
        return T.ShortType()
    if pat.is_int32(t) or pat.is_uint16(t):
        return T.IntegerType()
    if pat.is_int64(t) or pat.is_uint32(t):
        return T.LongType()
    if pat.is_uint64(t):
        return T.DecimalType(20, 0)
    if pat.is_float16(t) or pat.is_float32(t):
        return T.FloatType()
    if pat.is_float64(t):
        return T.DoubleType()
    if pat.is_decimal(t):
        if t.precision > 38:
            raise SparkTranslationError(f"cannot translate type {t} to Spark (precision > 38)")
        return T.DecimalType(t.precision, t.scale)
    if pat.is_string(t) or pat.is_large_string(t) or pat.is_string_view(t):
        return T.StringType()
    if (pat.is_binary(t) or pat.is_large_binary(t) or pat.is_binary_view(t)
            or pat.is_fixed_size_binary(t)):
        return T.BinaryType()
    if pat.is_date(t):
        return T.DateType()
    if pat.is_timestamp(t):
        return T.TimestampType() if t.tz else T.TimestampNTZType()
    if pat.is_duration(t):
        return T.DayTimeIntervalType()
    if pat.is_dictionary(t):
        return to_spark_type(t.value_type)
    if pat.is_struct(t):
        return T.StructType([T.StructField(f.name, to_spark_type(f.type), f.nullable) for f in t])
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t):
        return T.ArrayType(to_spark_type(t.value_type), True)
    if pat.is_map(t):
        return T.MapType(to_spark_type(t.key_type), to_spark_type(t.item_type), True)
    raise SparkTranslationError(f"cannot translate type {t} to Spark")


def to_struct_type(schema: pa.Schema):
    """A Spark StructType with the schema's names, types and nullability."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField(f.name, to_spark_type(f.type), f.nullable) for f in schema])


def from_spark_type(st) -> pa.DataType:
    """The Arrow type for a Spark DataType (a pyspark type object)."""
    from pyspark.sql import types as T

    simple = {
        T.NullType: pa.null(), T.BooleanType: pa.bool_(), T.ByteType: pa.int8(),
        T.ShortType: pa.int16(), T.IntegerType: pa.int32(), T.LongType: pa.int64(),
        T.FloatType: pa.float32(), T.DoubleType: pa.float64(), T.StringType: pa.string(),
        T.BinaryType: pa.binary(), T.DateType: pa.date32(),
        T.TimestampType: pa.timestamp("us", "UTC"), T.TimestampNTZType: pa.timestamp("us"),
        T.DayTimeIntervalType: pa.duration("us"),
    }
    for cls, arrow in simple.items():
        if type(st) is cls:
            return arrow
    if isinstance(st, T.DecimalType):
        return pa.decimal128(st.precision, st.scale)
    if isinstance(st, T.StructType):
        return pa.struct([pa.field(f.name, from_spark_type(f.dataType), f.nullable) for f in st])
    if isinstance(st, T.ArrayType):
        return pa.list_(from_spark_type(st.elementType))
    if isinstance(st, T.MapType):
        return pa.map_(from_spark_type(st.keyType), from_spark_type(st.valueType))
    if isinstance(st, (T.CharType, T.VarcharType)):
        return pa.string()
    raise SparkTranslationError(f"cannot translate Spark type {st.simpleString()} to Arrow")


def arrow_type_for_spark(t: pa.DataType) -> pa.DataType:
    """The Arrow type a value of `t` has after a round trip through Spark's Arrow batches."""
    return from_spark_type(to_spark_type(t))


def spark_compatible_schema(schema: pa.Schema) -> pa.Schema:
    """`schema` with each type replaced by what Spark's Arrow batches carry."""
    return pa.schema([pa.field(f.name, arrow_type_for_spark(f.type), f.nullable) for f in schema])
