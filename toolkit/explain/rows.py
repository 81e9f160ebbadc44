"""Which rows to explain: a row number, or the rows a predicate picks, found by pyarrow.

Rows are numbered as the selection view numbers them: from 0, in the table's
order; a pyarrow Dataset's rows in scan order (its fragments in order, each
fragment's rows in order), which is what `Dataset.take` and `to_table` use.
A predicate is matched by pyarrow's own filter (never a loop over rows), the
first `limit` matches are explained and all of them counted.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FieldRefError, InputError, RowNotFoundError
from ..functions.bind import bind
from ..functions.facts import conjuncts
from ..model.expression import Expression, from_pyarrow
from ..sql.parse import parse
from ..support import late
from ..support.visible_text import visible

__all__ = ["MAX_EXPLAINED", "PickedRows", "RowNotFoundError", "check_data", "pick_rows", "source_kind"]

pyarrow_dataset = late.module("pyarrow.dataset")  # loaded when a Dataset is looked at
MAX_EXPLAINED = 10  # a predicate matching more rows explains the first ones and counts all
_ROW_COLUMN = "__exprscope_row"


@dataclass(frozen=True)
class PickedRows:
    """The rows to explain: their numbers, each as a one-row batch, and how many matched."""

    rows: tuple[int, ...]
    batches: tuple[pa.RecordBatch, ...]
    matched: int
    num_rows: int
    source: str
    predicate: str | None = None  # the predicate as text, when rows were picked by one


def source_kind(data) -> str:
    if isinstance(data, pa.Table):
        return "table"
    if isinstance(data, pa.RecordBatch):
        return "record batch"
    return "dataset (row numbers in scan order)"


def _is_dataset(data) -> bool:
    return type(data).__module__.startswith("pyarrow._dataset") and \
        isinstance(data, pyarrow_dataset.Dataset)


def check_data(data, who: str) -> None:
    if isinstance(data, (pa.Table, pa.RecordBatch)) or _is_dataset(data):
        return
    raise InputError(f"{who}: data must be a pyarrow Table, RecordBatch or Dataset, "
                     f"not {type(data).__name__}")


def _num_rows(data) -> int:
    return data.num_rows if isinstance(data, (pa.Table, pa.RecordBatch)) else data.count_rows()


def _one_row(data, row: int) -> pa.RecordBatch:
    if isinstance(data, pa.RecordBatch):
        return data.slice(row, 1)
    table = data.slice(row, 1) if isinstance(data, pa.Table) else data.take(pa.array([row]))
    return table.combine_chunks().to_batches()[0]


def predicate_expression(predicate, schema: pa.Schema) -> tuple[Expression, str]:
    """The predicate bound to `schema` and as text; an unknown column is shown with a caret."""
    if isinstance(predicate, str):
        text = predicate
        expr = parse(text)
        try:
            return bind(expr, schema), text
        except FieldRefError as exc:
            raise FieldRefError(f"the row predicate: {exc.located(text)}") from None
    if isinstance(predicate, pc.Expression):
        predicate = from_pyarrow(predicate)
    if not isinstance(predicate, Expression):
        raise InputError("the row must be a row number or a predicate (text, a tk.Expression "
                         f"or a pyarrow.compute.Expression), not {type(predicate).__name__}")
    bound = bind(predicate, schema)
    if not pa.types.is_boolean(bound.type):
        raise InputError(f"the row predicate {visible(str(predicate))} is of type "
                         f"{bound.type}, not boolean")
    return bound, str(predicate)


def pick_rows(data, row, who: str = "explain_row", limit: int = MAX_EXPLAINED) -> PickedRows:
    """The rows `row` names in `data` (a row number, or a predicate's first `limit` matches)."""
    check_data(data, who)
    source = source_kind(data)
    total = _num_rows(data)
    if isinstance(row, bool):
        raise InputError(f"{who}: the row is a row number or a predicate, not {row!r}")
    try:
        number = operator.index(row)
    except TypeError:
        number = None
    if number is not None:
        if not 0 <= number < total:
            raise RowNotFoundError(
                f"{who}: row {number:,} is out of range: the {source} has {total:,} rows "
                f"(rows 0 to {total - 1:,})" if total else
                f"{who}: row {number:,} is out of range: the {source} has no rows")
        return PickedRows((number,), (_one_row(data, number),), 1, total, source)
    expr, text = predicate_expression(row, data.schema)
    rows, matched = _matches(data, expr)
    if matched == 0:
        raise RowNotFoundError(f"{who}: {_none_match(data, expr, text, total, source)}")
    shown = rows[:limit]
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        batches = tuple(_one_row(data, r) for r in shown)
    else:
        table = data.take(pa.array(shown, pa.int64())).combine_chunks()
        batches = tuple(table.slice(i, 1).to_batches()[0] for i in range(len(shown)))
    return PickedRows(tuple(shown), batches, matched, total, source, text)


def _matches(data, expr: Expression, limit: int = MAX_EXPLAINED) -> tuple[list[int], int]:
    """The first `limit` row numbers where `expr` is true, and how many rows it is true on."""
    pyarrow_expr = expr.to_pyarrow()
    names = data.schema.names
    columns = sorted({names[p.path.indices[0]] for p in _fields(expr) if p.path is not None})
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
        narrow = table.select(columns) if columns else table.select([])
        narrow = narrow.append_column(_ROW_COLUMN, pa.arange(0, table.num_rows))
        found = narrow.filter(pyarrow_expr).column(_ROW_COLUMN)
        return found.slice(0, limit).to_pylist(), len(found)
    rows, matched, offset = [], 0, 0
    scanner = data.scanner(columns={"m": pyarrow_expr})
    for batch in scanner.to_batches():
        mask = pc.fill_null(batch.column(0), False)
        hits = pc.indices_nonzero(mask)
        if len(rows) < limit and len(hits):
            rows.extend(pc.add(hits.slice(0, limit - len(rows)), offset).to_pylist())
        matched += len(hits)
        offset += batch.num_rows
    return rows, matched


def _fields(expr: Expression):
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.kind == "field":
            yield node
        elif node.kind == "call":
            stack.extend(node.args)


def _count(data, expr: Expression) -> int:
    return _matches(data, expr, limit=0)[1]


def _none_match(data, expr: Expression, text: str, total: int, source: str) -> str:
    """No row matches: say which conjunct left no candidates (a why-not for the lookup)."""
    head = f"no row of the {source}'s {total:,} rows matches {visible(text)}"
    terms = conjuncts(expr)
    if total == 0 or len(terms) < 2:
        return head
    so_far = None
    for i, term in enumerate(terms):
        alone = _count(data, term)
        if alone == 0:
            return f"{head}: no row has {visible(str(term))}"
        joined = term if so_far is None else so_far & term
        left = _count(data, joined)
        if left == 0:
            before = ", ".join(visible(str(t)) for t in terms[:i])
            return (f"{head}: {before} leave{'s' if i == 1 else ''} "
                    f"{_count(data, so_far):,} rows and {visible(str(term))} "
                    f"({alone:,} rows alone) holds on none of them")
        so_far = joined
    return head


