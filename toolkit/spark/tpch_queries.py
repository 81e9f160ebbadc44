"""The TPC-H queries by number, for stepping Catalyst: `sql(n)` checks the number and gives
`tpch_sql.SQL[n]` (the one copy of the 22 queries); `chain_join(n)` is a wider join than
any of them. The text reads the eight tables by their TPC-H names, over the temporary
views `register_views` makes of the Parquet files `tpch.tables` writes.
"""

from __future__ import annotations

from .errors import SparkArgumentError
from .tpch_sql import SQL, register_views

__all__ = ["TABLES", "register_views", "sql"]

TABLES = ("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region")

def sql(n: int) -> str:
    """TPC-H query `n` (1 to 22) as Spark SQL text."""
    if n not in SQL:
        raise SparkArgumentError(f"TPC-H has queries 1 to 22, not {n!r}")
    return SQL[n].strip()


def chain_join(relations: int = 22) -> str:
    """A join of `relations` copies of nation, each on the last's key, filtered at the far end:
    a query with as many relations as TPC-H's largest has tables times three."""
    if not isinstance(relations, int) or not 2 <= relations <= 200:
        raise SparkArgumentError(f"a chain join takes 2 to 200 relations, not {relations!r}")
    joins = "\n".join(f"join nation n{i} on n{i}.n_nationkey = n{i - 1}.n_nationkey"
                      for i in range(2, relations + 1))
    return (f"select n1.n_name, n{relations}.n_comment\nfrom nation n1\n{joins}\n"
            f"where n{relations}.n_regionkey = 1 and n1.n_name like 'A%'")
