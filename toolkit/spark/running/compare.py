"""`compare(p_or_expr, df)`: run native Spark and exprscope-in-Spark, report the rows that differ.

Both results are put in one canonical row order (sorted by every column, the
non-float ones first) and compared cell by cell: a null equals a null, NaN
equals NaN, floats (and decimals) are equal within a relative tolerance
(`rel_tol`, default 1e-9) or an absolute one (`abs_tol`, default 1e-12) since
the two sides add the same numbers in different orders. The tolerances are
stated in the result so a report says what "equal" meant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from ..errors import SparkArgumentError
from .run import run

__all__ = ["Comparison", "Difference", "compare", "tables_differences"]


@dataclass
class Difference:
    """One cell that differs (row in canonical order), or a row only one side has."""

    row: int
    column: str | None
    native: object
    engine: object


@dataclass
class Comparison:
    equal: bool
    native_rows: int
    engine_rows: int
    differences: list[Difference] = field(default_factory=list)
    rel_tol: float = 1e-9
    abs_tol: float = 1e-12
    native: pa.Table | None = None
    engine: pa.Table | None = None

    @property
    def rules(self) -> str:
        return (f"nulls equal nulls; NaN equals NaN; floats and decimals equal within "
                f"rel_tol={self.rel_tol:g} or abs_tol={self.abs_tol:g}; rows compared in a "
                "canonical order (sorted by all columns)")

    def differing_rows(self) -> list[int]:
        return sorted({d.row for d in self.differences})

    def __str__(self) -> str:
        head = (f"{'equal' if self.equal else 'DIFFERENT'}: native {self.native_rows} rows, "
                f"engine {self.engine_rows} rows, {len(self.differences)} differing cells\n"
                f"({self.rules})")
        lines = [head]
        for d in self.differences[:20]:
            where = f"row {d.row}" + (f", column {d.column}" if d.column else "")
            lines.append(f"  {where}: native={d.native!r} engine={d.engine!r}")
        if len(self.differences) > 20:
            lines.append(f"  ... {len(self.differences) - 20} more")
        return "\n".join(lines)

    def __bool__(self) -> bool:
        return self.equal


def compare(p_or_expr, df=None, rel_tol: float = 1e-9, abs_tol: float = 1e-12,
            name: str = "result", spark=None) -> Comparison:
    """Run `p_or_expr` in native and engine mode and compare the results."""
    native = run(p_or_expr, df, mode="native", name=name, spark=spark).to_arrow()
    engine = run(p_or_expr, df, mode="engine", name=name, spark=spark, trace=False).to_arrow()
    return tables_differences(native, engine, rel_tol, abs_tol)


def _sortable(t: pa.DataType) -> bool:
    return not (pat.is_nested(t) or pat.is_null(t))


def _canonical(table: pa.Table) -> pa.Table:
    # columns by position: a join's output may repeat a name
    fields = [(i, f) for i, f in enumerate(table.schema) if _sortable(f.type)]
    ordered = ([i for i, f in fields if not _is_float(f.type)]
               + [i for i, f in fields if _is_float(f.type)])
    if not ordered or table.num_rows == 0:
        return table
    renamed = table.rename_columns([f"k{i}" for i in range(table.num_columns)])
    keys = [(f"k{i}", "ascending") for i in ordered]
    return table.take(pc.sort_indices(renamed, sort_keys=keys))


def _is_float(t: pa.DataType) -> bool:
    return pat.is_floating(t) or pat.is_decimal(t)


def _cells_equal(a: pa.Array, b: pa.Array, rel_tol: float, abs_tol: float) -> pa.Array:
    both_null = pc.and_(a.is_null(), b.is_null())
    if pat.is_null(a.type) or pat.is_null(b.type):  # no values: a cell equals only a null
        return pc.fill_null(both_null, False)
    if _is_float(a.type) or _is_float(b.type):
        x, y = a.cast(pa.float64()), b.cast(pa.float64())
        both_nan = pc.and_(pc.is_nan(x), pc.is_nan(y))
        scale = pc.max_element_wise(pc.abs(x), pc.abs(y))
        close = pc.less_equal(pc.abs(pc.subtract(x, y)),
                              pc.max_element_wise(pc.multiply(scale, rel_tol), abs_tol))
        close = pc.or_(close, pc.equal(x, y))  # infinities
        same = pc.or_kleene(close, both_nan)
    elif pat.is_nested(a.type):
        same = pa.array([u == v for u, v in zip(a.to_pylist(), b.to_pylist())])
    else:
        same = pc.equal(a, b.cast(a.type) if b.type != a.type else b)
    return pc.fill_null(pc.or_kleene(same, both_null), False)


def tables_differences(native: pa.Table, engine: pa.Table, rel_tol: float = 1e-9,
                       abs_tol: float = 1e-12) -> Comparison:
    """The comparison of two result tables with the same columns."""
    if native.schema.names != engine.schema.names:
        raise SparkArgumentError(f"the results have different columns: {native.schema.names} vs "
                         f"{engine.schema.names}")
    a, b = _canonical(native), _canonical(engine)
    n = min(a.num_rows, b.num_rows)
    differences = []
    for position, column in enumerate(a.schema.names):
        x = a.column(position).slice(0, n).combine_chunks()
        y = b.column(position).slice(0, n).combine_chunks()
        same = _cells_equal(x, y, rel_tol, abs_tol)
        for i in pc.indices_nonzero(pc.invert(same)).to_pylist():
            differences.append(Difference(i, column, x[i].as_py(), y[i].as_py()))
    for i in range(n, a.num_rows):
        differences.append(Difference(i, None, a.slice(i, 1).to_pylist()[0], None))
    for i in range(n, b.num_rows):
        differences.append(Difference(i, None, None, b.slice(i, 1).to_pylist()[0]))
    differences.sort(key=lambda d: (d.row, d.column or ""))
    return Comparison(not differences, native.num_rows, engine.num_rows, differences,
                      rel_tol, abs_tol, native, engine)
