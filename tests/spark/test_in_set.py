"""IN over many constants, which Spark's optimizer turns into InSet, imports at both
stages and gives Spark's value on every row: every type, a null in the list or in the
value, NaN and -0.0 among doubles."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

LISTS = {
    "i": ", ".join(str(v) for v in range(-3, 12)),
    "i_null": ", ".join(str(v) for v in range(12)) + ", NULL",
    "s": ", ".join(f"'{v}'" for v in range(12)) + ", 'é', ''",
    "d": "0.0D, double('NaN'), " + ", ".join(f"{v}.5D" for v in range(12)),
    "d_neg_zero": "-0.0D, " + ", ".join(f"{v}.25D" for v in range(12)),
    "m": ", ".join(f"{v}.10BD" for v in range(12)),
    "dt": ", ".join(f"date'2024-03-{v:02d}'" for v in range(1, 13)),
}
EXPRESSIONS = {
    "i": "i IN ({i})", "i_null": "i IN ({i_null})", "s": "s IN ({s})", "d": "d IN ({d})",
    "d_neg_zero": "d IN ({d_neg_zero})", "m": "m IN ({m})", "dt": "dt IN ({dt})",
    "not_i_null": "NOT (i IN ({i_null}))",
}


@pytest.fixture(scope="module")
def values(spark):
    return spark.sql(
        "SELECT id AS k, CASE WHEN id % 7 = 0 THEN NULL ELSE cast(id - 5 AS int) END AS i, "
        "CASE WHEN id % 5 = 0 THEN NULL WHEN id = 3 THEN 'é' ELSE cast(id AS string) END AS s, "
        "CASE WHEN id % 6 = 0 THEN double('NaN') WHEN id = 4 THEN -0.0D WHEN id = 8 THEN 0.0D "
        "WHEN id % 11 = 0 THEN NULL ELSE id / 2.0D END AS d, "
        "cast(id / 10.0 AS decimal(10, 2)) AS m, date_add(date'2024-02-25', cast(id AS int)) AS dt "
        "FROM range(40)")


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_in_over_many_constants_equals_sparks(spark, values, stage):
    from toolkit import spark as tks

    df = values.selectExpr("k", *[f"{e.format(**LISTS)} AS {name}"
                                  for name, e in EXPRESSIONS.items()])
    if stage == "optimized":
        optimized = df._jdf.queryExecution().optimizedPlan().toString()
        assert "INSET" in optimized.upper()
    want = {r["k"]: r for r in df.toArrow().to_pylist()}
    got = {r["k"]: r for r in tks.run(tks.from_spark(df, stage=stage), mode="engine")
           .to_arrow().to_pylist()}
    for k, row in want.items():
        assert got[k] == row, k
    assert any(r["d"] for r in want.values() if r["k"] % 6 == 0)  # NaN found
    assert any(r["not_i_null"] is None for r in want.values())
