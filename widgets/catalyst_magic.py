"""`%%catalyst`: Spark's own planning of the cell's query, rule by rule, in the Explorer.

    %%catalyst --exclude PushDownPredicates
    select ... from lineitem join orders on ...      -- SQL over the session's views

    %%catalyst --python
    orders.join(lineitem, "k").where("x > 3")        -- a Python expression giving a DataFrame

The cell's Python, like any cell's, runs in the notebook's own namespace
(IPython's `shell.ev`). Spark is loaded when the magic first runs, not when
`%load_ext widgets` registers it.
"""

from __future__ import annotations

from toolkit.errors import MagicInputError
from toolkit.support import late

__all__ = ["EXCLUDED_RULES", "catalyst_cell", "rule_class_name"]

tks = late.module("toolkit.spark")  # pyspark loads with the magic's first run

EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
_OPTIMIZER_PACKAGE = "org.apache.spark.sql.catalyst.optimizer."


def rule_class_name(name: str) -> str:
    """Spark's name of an optimizer rule: a short name gets Catalyst's optimizer package."""
    name = name.strip()
    return name if "." in name else _OPTIMIZER_PACKAGE + name


def catalyst_cell(shell, cell: str, python: bool, exclude: str, out: str, spark_name: str):
    """`catalyst_steps` of the cell's query, kept as `out` in the notebook's namespace."""
    text = cell.strip()
    if not text:
        raise MagicInputError("the cell holds no query: write SQL (or, with --python, a "
                              "DataFrame expression) below the magic's line")
    if not out.isidentifier():
        raise MagicInputError(f"--out {out}: give a Python variable name, such as steps")
    spark = None
    if spark_name:
        spark = shell.user_ns.get(spark_name)
        if spark is None or not hasattr(spark, "sql"):
            raise MagicInputError(f"--spark {spark_name}: no SparkSession of that name")
    query = text
    if python:
        query = shell.ev(text)
        if not hasattr(query, "sparkSession"):
            raise MagicInputError(f"--python: the cell gives a {type(query).__name__}, not a "
                                  "Spark DataFrame")
        spark = query.sparkSession
    spark = spark if spark is not None else tks.session()
    rules = [rule_class_name(r) for r in exclude.split(",") if r.strip()] if exclude else []
    before = spark.conf.get(EXCLUDED_RULES, None)
    try:
        if rules:
            spark.conf.set(EXCLUDED_RULES, ",".join(rules))
        steps = tks.catalyst_steps(query, spark)
    finally:
        if rules:
            if before is None:
                spark.conf.unset(EXCLUDED_RULES)
            else:
                spark.conf.set(EXCLUDED_RULES, before)
    shell.user_ns[out] = steps
    return steps

