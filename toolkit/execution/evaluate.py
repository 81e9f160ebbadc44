"""`evaluate(expr, data)`: the value of an expression over a RecordBatch or a Table.

The driver: checks its inputs, binds when needed, cuts the data into pieces of
morsels (`parallel.py`), evaluates the pieces (in parallel when large),
reassembles the caller's chunks, and, only when an observer listens, reports
one EvalEvent with per-node statistics and the branch selections of every
special form.

`mode="lazy"` (the default) runs special forms call-by-name under selection
vectors; `mode="eager"` evaluates every argument first and runs the forms'
own pyarrow kernels, as Arrow does today.
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ExprscopeError, KernelError
from ..expression import Expression, as_expression, postorder
from ..observe import BranchSelection, EvalEvent, NodeStats, active_observers, notify
from .batch_context import BatchContext, Positions, now
from .morsel_size import morsel_rows
from .parallel import Piece, morsels, run_pieces, split
from .trampoline import run_tree

__all__ = ["KEEP_DATA_ROWS", "MODES", "EvaluationError", "evaluate"]

MODES = ("lazy", "eager")
KEEP_DATA_ROWS = 10_000  # events keep data and result up to this size (for the selection view)


class EvaluationError(ExprscopeError, ValueError):
    """Evaluation asked for something it cannot do: a bad mode, data or binding."""


def evaluate(expr, data, mode: str = "lazy", observer=None):
    """The expression's value: pa.Array for a RecordBatch, pa.ChunkedArray for a Table.

    An expression without field references gives a pa.Scalar. Unbound
    expressions are bound to the data's schema first.
    """
    if mode not in MODES:
        raise EvaluationError(f"evaluate: mode must be one of {MODES}, got {mode!r}")
    if not isinstance(data, (pa.RecordBatch, pa.Table)):
        raise EvaluationError(
            f"evaluate: data must be a pyarrow RecordBatch or Table, got {type(data).__name__}")
    expr = as_expression(expr)
    expr, has_fields, rows_per_morsel = _bound(expr, data.schema)
    observers = active_observers(observer)
    observing = bool(observers)
    started = now() if observing else 0.0
    memo: dict = {}
    positions = Positions()
    lazy = mode == "lazy"
    out_type = expr.type

    def work(piece: Piece):
        """(the piece's values, its morsels' contexts, the first KernelError or None)."""
        values, contexts = [], []
        for offset, batch in morsels(piece, rows_per_morsel):
            ctx = BatchContext(batch, offset, lazy, observing, memo, positions)
            contexts.append(ctx)
            try:
                values.append(_as_array(run_tree(ctx, expr), batch.num_rows, out_type))
            except KernelError as exc:
                return None, contexts, exc
        # concatenated here, in the worker, while the morsels' results are in its cache
        return (values[0] if len(values) == 1 else pa.concat_arrays(values)), contexts, None

    if data.num_rows == 0:
        # no row, nothing to compute and nothing that can fail (as in Acero): even an
        # all-literal expression such as 1 / 0 is empty here, not an error
        pieces, results = [], []
    elif not has_fields:
        # one row that no field reads: row counts stay meaningful (0 rows would skip branches)
        one_row = pa.record_batch({"_": pa.nulls(1)})
        results = [work(Piece(0, 0, one_row))]
        pieces = None
    else:
        pieces = split(data)
        results = run_pieces(work, pieces, data.num_rows, failed=lambda r: r[2] is not None)
    error = next((r[2] for r in results if r[2] is not None), None)

    value = None
    if not results:
        value = _empty(expr.type, data)
    elif error is None:
        if pieces is None:
            value = results[0][0][0]  # an all-literal expression is one value
        else:
            value = _assemble(out_type, data, pieces, results)
    if observing:
        event = _event(expr, data, mode, positions, results, error, value)
        event.elapsed = now() - started
        notify("on_eval", event, observer)
    if error is not None:
        raise error
    return value


def _walk_facts(expr: Expression) -> tuple[list, bool, int | None]:
    """The field references of `expr`, whether every node is bound, and its morsel size.

    Expressions are immutable, so the walk (about 2 us per node) is done once
    per tree for the last few trees evaluated: a prepared expression evaluated
    batch after batch (Spark's engine mode, a notebook loop) skips it.
    """
    key = id(expr)
    hit = _FACTS.get(key)
    if hit is not None and hit[0] is expr:
        return hit[1:]
    params = [node for node in postorder(expr) if node.kind == "field"]
    bound = expr.is_bound  # O(1): remembered by each call at construction
    rows = morsel_rows(expr) if bound else None
    if len(_FACTS) >= _FACTS_SIZE:
        _FACTS.pop(next(iter(_FACTS)), None)  # the oldest entry
    _FACTS[key] = (expr, params, bound, rows)  # holding expr keeps its id from being reused
    return params, bound, rows


_FACTS: dict[int, tuple] = {}
_FACTS_SIZE = 64


def _bound(expr: Expression, schema: pa.Schema):
    """(bound expression, reads any field?, morsel rows); checks that a pre-bound one fits."""
    params, bound, rows = _walk_facts(expr)
    if not bound:
        from ..bind import bind

        expr = bind(expr, schema)
        return expr, bool(params), morsel_rows(expr)
    for param in params:
        if param.path is None:
            continue
        found = param.path.get(schema)
        if found is None or found.type != param.field_type:
            have = "nothing" if found is None else f"{found.name}: {found.type}"
            raise EvaluationError(
                f"evaluate: field {param.to_string()} was bound as {param.field_type} at "
                f"{param.path.to_string()}, but the data has {have} there; "
                "bind the expression to this data's schema")
    return expr, bool(params), rows


def _empty(out_type, data):
    array = pa.array([], out_type)
    return array if isinstance(data, pa.RecordBatch) else pa.chunked_array([array], out_type)


def _as_array(value, rows: int, out_type) -> pa.Array:
    """A morsel's value as an array of its rows and of the expression's type.

    A subtree that reads no field gives a scalar: it stands for every row.
    """
    if isinstance(value, pa.Scalar):
        return pa.repeat(value if value.type == out_type else value.cast(out_type), rows)
    return value if value.type == out_type else value.cast(out_type)


def _assemble(out_type, data, pieces, results):
    """One array per output chunk; the pieces of a chunk bigger than a piece concatenated."""
    chunks: list[list[pa.Array]] = []
    for piece, (value, _, _) in zip(pieces, results):
        if piece.chunk == len(chunks):
            chunks.append([value])
        else:
            chunks[piece.chunk].append(value)
    arrays = [c[0] if len(c) == 1 else pa.concat_arrays(c) for c in chunks]
    if isinstance(data, pa.RecordBatch):
        return arrays[0] if arrays else pa.array([], out_type)
    return pa.chunked_array(arrays, type=out_type)


def _batch_rows(parts: list) -> pa.Array:
    """The row indices of one branch over the whole input: each slice's, shifted, joined."""
    rows = [b.rows if offset == 0 else pc.add(b.rows, offset) for b, offset in parts]
    return rows[0] if len(rows) == 1 else pa.concat_arrays(rows)


def _event(expr, data, mode, positions, results, error, value) -> EvalEvent:
    paths = positions.all_paths()
    nodes: dict[int, NodeStats] = {}
    branches: dict[tuple, list] = {}
    for ctx in (ctx for (_, contexts, _) in results for ctx in contexts):
        for pos, stat in ctx.stats.items():
            merged = nodes.get(pos)
            if merged is None:
                nodes[pos] = NodeStats(path=paths[pos], label=stat.label, rows=stat.rows,
                                        out_type=stat.out_type, elapsed=stat.elapsed,
                                        calls=stat.calls)
            else:
                merged.rows += stat.rows
                merged.elapsed += stat.elapsed
                merged.calls += stat.calls
        for b in ctx.branches:
            branches.setdefault((b.path, b.branch, b.arg_index), []).append((b, ctx.offset))
    selections = [
        BranchSelection(path=paths[path], branch=name, arg_index=arg,
                        rows=functools.partial(_batch_rows, parts),
                        total_rows=data.num_rows, count=sum(b.count for b, _ in parts))
        for (path, name, arg), parts in branches.items()
    ]
    small = data.num_rows <= KEEP_DATA_ROWS
    return EvalEvent(expr=expr, num_rows=data.num_rows, mode=mode,
                     nodes=list(nodes.values()),  # evaluation order (sorting deep paths is quadratic)
                     branches=selections, error=error,
                     result=value if small else None, data=data if small else None)
