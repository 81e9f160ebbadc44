"""`tks.explain_row(df, predicate)`: where the rows a predicate picks go in a Spark query.

The query is imported as `from_spark` imports it (the plan as the user wrote it);
the predicate (SQL over one source's columns) is run in Spark on that source's
DataFrame and only the first rows it matches are read back, never the whole data
(as NedExplain and Breadcrumb re-evaluate over the rows compatible with the
question). That source's scan then reads those rows from memory and exprscope's
RowJourney tells, operator by operator, where the first of them is kept or dropped
(at a filter: the predicate's RowStory, which conjunct was false or null).

The query's other sources are never read whole either: at each join on the row's
way, the join keys of the row as it reaches the join (`o_custkey in (...)`) are
carried down the other input to its sources and pushed to Spark as a filter, so
only the partner rows come back (`journey.reads` counts them per source).
Operators that mix rows (an aggregate, a sort, a limit) see only the rows read, but
an aggregate whose value a filter above judges (a HAVING) reads its group's rows, the
row's own source included, from Spark.
"""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa

from ...errors import FieldRefError, RowNotFoundError, UsageError
from ...explain.carry_down import matching_rows
from ...explain.journey import explain_plan_row
from ...explain.journey_records import RowJourney, SourceRead
from ...explain.rows import MAX_EXPLAINED, predicate_expression
from ...plan import TableScan
from ...plan.sources import TableSource
from ...plan.tree import transform_up
from ...sql.parse import parse
from ...support.visible_text import visible
from ..reading.from_spark import from_spark
from ..translate.to_column import to_column
from .source import SparkSource

__all__ = ["explain_row", "read_from_spark", "spark_compatible_rows"]


def _field_names(expr) -> set[str]:
    names, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if node.kind == "field":
            names.add(str(node))
        elif node.kind == "call":
            stack.extend(node.args)
    return names


def _spark_scans(p) -> list[TableScan]:
    return [n for n in p.walk() if isinstance(n, TableScan) and isinstance(n.source, SparkSource)]


def _scan_for(scans: list[TableScan], predicate: str) -> TableScan:
    """The first scan whose source has every column the predicate names."""
    names = _field_names(parse(predicate))
    for scan in scans:
        if names <= set(scan.source.schema.names):
            return scan
    # none has them all: bind against the first to name the unknown column with a caret
    predicate_expression(predicate, scans[0].source.schema)
    raise FieldRefError(f"explain_row: no source of the query has every column of "
                        f"{visible(predicate)} (the sources: "
                        + "; ".join(f"{visible(s.relation)}({', '.join(s.source.schema.names)})"
                                    for s in scans) + ")")


def spark_compatible_rows(scan: TableScan, predicate: str, limit: int) -> pa.Table:
    """The first `limit` rows of the scan's DataFrame where `predicate` holds, read by Spark."""
    schema = scan.source.schema
    expr, _ = predicate_expression(predicate, schema)
    picked = scan.source.df.filter(to_column(expr, schema)).limit(limit)
    return picked.toArrow().cast(schema)


def read_from_spark(scan: TableScan, predicate) -> pa.Table:
    """The rows of the scan's source where `predicate` (over its columns) holds: filtered
    by Spark for a Spark source, in memory for rows already read."""
    schema = scan.source.schema
    if not isinstance(scan.source, SparkSource):
        table = pa.Table.from_batches(list(scan.source.batches()), schema=schema)
        return table.take(matching_rows(table, predicate))
    picked = scan.source.df.filter(to_column(predicate, schema))
    return picked.toArrow().cast(schema)


def explain_row(df, predicate: str, limit: int = MAX_EXPLAINED) -> RowJourney:
    """The journey of the first source row matching `predicate` through `df`'s query.

    `predicate` is SQL over the columns of one of the query's sources (the first
    source having all of them). Only the first `limit` matching rows are read from
    Spark; the journey is of the first of them, and says how many were read.
    """
    if not isinstance(predicate, str):
        raise UsageError(f"explain_row: the predicate is SQL text over a source's columns, "
                         f"not {type(predicate).__name__}")
    p = from_spark(df)
    scans = _spark_scans(p)
    if not scans:
        raise UsageError("explain_row: the query reads no Spark data to pick rows from")
    scan = _scan_for(scans, predicate)
    rows = spark_compatible_rows(scan, predicate, limit)
    if rows.num_rows == 0:
        raise RowNotFoundError(f"explain_row: no row of {visible(scan.relation)} matches "
                               f"{visible(predicate)} (Spark found none)")
    swapped = TableScan(scan.relation, TableSource(rows), scan.projection)
    local = transform_up(p, lambda node: swapped if node is scan else node)

    def read_rows(s, where) -> pa.Table:  # the row's own source too (a group's rows) from Spark
        return read_from_spark(scan if s is swapped else s, where)

    journey = explain_plan_row(local, scan.relation, 0, read_rows=read_rows,
                               mixing_reads_all=False)
    read = rows.num_rows
    count = f"the first of at least {read:,}" if read == limit else \
        ("the only" if read == 1 else f"the first of {read:,}")
    note = (f" ({count} row{'s' if read > 1 else ''} of {visible(scan.relation)} matching "
            f"{visible(predicate)}; row numbers count only those rows)")
    # the journey counts the row once, and any more rows it read of its source
    reads = tuple(SourceRead(r.relation, r.rows - 1 + read if r.relation == scan.relation
                             else r.rows) for r in journey.reads)
    return replace(journey, why=journey.why + note, reads=reads)
