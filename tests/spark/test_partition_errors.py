"""A kernel failing inside a Spark partition (engine mode) is exprscope's KernelError.

Local evaluation names the node and the row; inside Spark the same error comes
back through pyspark's exception, and the driver raises the KernelError again,
saying which partition and which row of it.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit import spark as tks
from toolkit.spark.partition_errors import kernel_error_from, marked

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def df(spark):
    table = pa.table({"a": list(range(40)), "z": [1] * 30 + [0] * 10, "s": ["12"] * 35 + ["x"] * 5})
    return spark.createDataFrame(table.to_pandas()).repartition(4)


def test_divide_by_zero_in_a_partition_is_a_kernel_error(df):
    expr = tk.call("divide", [tk.field("a"), tk.field("z")])
    with pytest.raises(tk.KernelError) as info:
        tks.run(expr, df, mode="engine").to_arrow()
    err = info.value
    assert "divide by zero in divide(input.a, input.z) at row" in str(err)
    assert f"at row {err.row} of Spark partition {err.partition}" in str(err)
    assert "PythonException" not in str(err) and "Traceback" not in str(err)


def test_a_failing_cast_in_a_plan_is_a_kernel_error(df):
    p = plan.scan("t", df).project([tk.field("s").cast(pa.int64())], names=["n"])
    with pytest.raises(tk.KernelError, match="x"):
        tks.run(p, df, mode="engine").to_arrow()


def test_the_marked_line_round_trips_and_strangers_text_is_ignored():
    original = tk.KernelError("divide failed: divide by zero", node="divide(a, z)", path=(1,),
                              row=7)
    text = f"PythonException: Traceback...\nRuntimeError: {marked(original, 3)}\n  at ..."
    back = kernel_error_from(RuntimeError(text))
    assert back.row == 7 and back.path == (1,) and back.partition == 3
    assert str(back) == "divide failed: divide by zero in divide(a, z) at row 7 of Spark partition 3"
    assert kernel_error_from(RuntimeError("something else")) is None
    assert kernel_error_from(RuntimeError("EXPRSCOPE-KERNEL-ERROR:{not json")) is None
