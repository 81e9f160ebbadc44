"""Spark's OFFSET, alone, under a LIMIT and over one, imported and run in both modes to
Spark's rows, in Spark's order."""

from __future__ import annotations

import pyarrow as pa
import pytest

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("mode", ["engine", "native"])
def test_offsets_and_limits_keep_sparks_rows(spark, mode):
    from toolkit import spark as tks

    df = tks.dataframe(pa.table({"id": pa.array(range(40), pa.int64()),
                                 "g": pa.array([i % 3 for i in range(40)], pa.int64())}), spark)
    ordered = df.orderBy("g", "id")
    for query in (ordered.offset(5), ordered.offset(5).limit(7), ordered.limit(9).offset(4),
                  ordered.limit(3).offset(10), ordered.offset(0).limit(2)):
        want = [r.id for r in query.collect()]
        got = tks.run(tks.from_spark(query), mode=mode, trace=False).to_arrow()
        assert got.column("id").to_pylist() == want
