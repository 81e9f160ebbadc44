"""The aggregate rules declare the types pyarrow's hash kernels really return (checked per batch)."""

import datetime
import decimal

import pyarrow as pa
import pytest

from toolkit import plan

_VALUES = {
    pa.int8(): [1, None, 3], pa.int16(): [1, None, 3], pa.int32(): [1, None, 3],
    pa.int64(): [1, None, 3], pa.uint8(): [1, None, 3], pa.uint16(): [1, None, 3],
    pa.uint32(): [1, None, 3], pa.uint64(): [1, None, 3], pa.float32(): [1.5, None, 3.0],
    pa.float64(): [1.5, None, 3.0],
    pa.decimal128(10, 2): [decimal.Decimal("1.25"), None, decimal.Decimal("3.00")],
    pa.string(): ["a", None, "c"], pa.large_string(): ["a", None, "c"],
    pa.bool_(): [True, None, False], pa.date32(): [datetime.date(2024, 1, 1), None,
                                                   datetime.date(2024, 1, 3)],
    pa.timestamp("us"): [datetime.datetime(2024, 1, 1), None, datetime.datetime(2024, 1, 2)],
}


def _functions(t: pa.DataType) -> list[str]:
    numeric = pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
    return ["count", "min", "max"] + (
        ["sum", "mean", "var_samp", "var_pop", "stddev_samp", "stddev_pop"] if numeric else [])


@pytest.mark.parametrize("value_type", list(_VALUES), ids=str)
@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "global"])
def test_declared_aggregate_types_match_what_runs(value_type, grouped):
    table = pa.table({"g": ["x", "x", "y"], "v": pa.array(_VALUES[value_type], value_type)})
    aggs = [(f, "v", f) for f in _functions(value_type)]
    p = plan.scan("t", table).aggregate(["g"] if grouped else [], aggs)
    with plan.validation("always"):  # a wrong declaration raises InvariantViolation here
        out = plan.create_physical_plan(p).collect()
    assert out.schema == p.schema.to_arrow()
    assert out.num_rows == (2 if grouped else 1)
    by_name = dict(zip(out.column_names, out.to_pylist()[0].values()))
    assert by_name["count"] == (2 if not grouped else 1)
