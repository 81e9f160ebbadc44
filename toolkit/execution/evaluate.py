"""`evaluate(expr, data)`: the value of an expression over a RecordBatch or a Table.

The driver: checks its inputs, binds when needed, cuts the data into morsels
(`parallel.py`), evaluates them (in parallel when large), reassembles the
caller's chunks, and, only when an observer listens, reports
one EvalEvent with per-node statistics and the branch selections of every
special form.

`mode="lazy"` (the default) runs special forms call-by-name under selection
vectors; `mode="eager"` evaluates every argument first and runs the forms'
own pyarrow kernels, as Arrow does today.
"""

from __future__ import annotations

import dataclasses
import weakref

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import (
    EvaluationError,  # defined with every other exprscope error
    KernelError,
)
from ..functions.bind import bind
from ..model.expression import Expression, Parameter, as_expression, postorder
from ..model.visit import modify_expression
from ..observe import BranchSelection, ErrorFacts, EvalEvent, NodeStats, active_observers, notify
from ..passes.canonicalize import canonicalize
from ..passes.fold_constants import fold_constants
from ..passes.framework import run_as_pass
from ..rewrite.positions import TreePositions
from ..support.visible_text import visible
from .batch_context import BatchContext, accumulate, now
from .chunk_buffer import buffer_for
from .gather_scatter import empty_of
from .morsel_size import call_width, rows_for_width
from .parallel import Morsel, Outcome, run_morsels, split
from .trampoline import run_tree

__all__ = ["KEEP_DATA_ROWS", "MODES", "EvaluationError", "evaluate"]

MODES = ("lazy", "eager")
KEEP_DATA_ROWS = 10_000  # events keep data and result up to this size (for the selection view)
SAMPLE_FIRST = 200  # above it, a sample: the first rows,
SAMPLE_PER_BRANCH = 50  # the first rows each branch got,
SAMPLE_AROUND_ERROR = 5  # and the rows around the failing one


def evaluate(expr, data, mode: str = "lazy", observer=None, simplify: bool = True):
    """The expression's value: pa.Array for a RecordBatch, pa.ChunkedArray for a Table.

    An expression without field references gives a pa.Scalar. Unbound
    expressions are bound to the data's schema first. As Acero's project and
    filter nodes do, the expression is first simplified (canonicalized, constants
    folded) before any kernel runs, so `add(divide(a, z), null)` is null without
    dividing; the trace shows that step as the pass `simplify_before_evaluation`.
    `simplify=False` runs the bound expression exactly as given.
    """
    if mode not in MODES:
        raise EvaluationError(f"evaluate: mode must be one of {MODES}, got {mode!r}")
    if not isinstance(data, (pa.RecordBatch, pa.Table)):
        raise EvaluationError(
            f"evaluate: data must be a pyarrow RecordBatch or Table, got {type(data).__name__}")
    expr = as_expression(expr)
    expr, has_fields, rows_per_morsel = _bound(expr, data.schema)
    if simplify and data.num_rows:  # zero rows: nothing runs, nothing is simplified (Acero)
        simplified = _simplified_as_acero_does(expr, observer)
        if simplified is not expr:  # a tree that folded to a constant still gives one per row
            expr = simplified
            rows_per_morsel = _walk_facts(expr).rows
    observers = active_observers(observer)
    observing = bool(observers)
    started = now() if observing else 0.0
    memo = _walk_facts(expr).density_memo
    positions = TreePositions()
    lazy = mode == "lazy"
    out_type = expr.type

    def work(morsel: Morsel, trusting: bool = True) -> Outcome:
        batch = morsel.batch
        ctx = BatchContext(batch, morsel.offset, lazy, observing, memo, positions, trusting)
        try:
            return Outcome(_as_array(run_tree(ctx, expr), batch.num_rows, out_type), ctx)
        except KernelError as exc:
            if ctx.took_trust:  # a cast taken on trust may have failed: prove, then decide
                return work(morsel, trusting=False)
            return Outcome(None, ctx, exc)
        finally:
            ctx.release()  # the trace needs the statistics, not the gathered columns

    if data.num_rows == 0:
        # no row, nothing to compute and nothing that can fail (as in Acero): even an
        # all-literal expression such as 1 / 0 is empty here, not an error
        outcomes, value = [], _empty(out_type, data)
    elif not has_fields:
        # one row that no field reads: row counts stay meaningful (0 rows would skip branches)
        outcome = work(Morsel(0, 0, pa.record_batch({"_": pa.nulls(1)})))
        outcomes = [outcome]
        value = None if outcome.error else outcome.value[0]  # an all-literal tree: one value
    else:
        outcomes, chunks = run_morsels(work, split(data, rows_per_morsel), data.num_rows,
                                       join=pa.concat_arrays, buffer=buffer_for(out_type))
        value = None if any(c is None for c in chunks) else _assembled(out_type, data, chunks)
    error = next((o.error for o in outcomes if o is not None and o.error is not None), None)
    if observing:
        contexts = [o.context for o in outcomes if o is not None]
        event = _event(expr, data, mode, positions, contexts, error, value)
        event.elapsed = now() - started
        notify("on_eval", event, observer)
    if error is not None:
        raise error
    return value


class _Facts:
    """What evaluating a tree needs to know before any kernel runs, from one walk."""

    __slots__ = ("array_literal", "bound", "density_memo", "expr", "params", "rows", "schema")

    def __init__(self, expr: Expression):
        self.expr = expr  # held, so its id is not reused while the entry lives
        self.bound = expr.is_bound  # O(1): remembered by each call at construction
        self.schema = None  # the last schema every field was found at its bound path in
        # what `dense_path` learns of each subtree (can fail, cheap, work per row): facts of
        # the tree alone, kept with it (keyed by node ids, which live as long as `expr`)
        self.density_memo: dict = {}
        params: dict = {}  # one per distinct field: a tree may read a column many times
        width = 0.0
        self.array_literal = None
        for node in postorder(expr):
            kind = node.kind
            if kind == "field":
                params.setdefault((node.ref, node.path), node)
            elif kind == "literal":
                if self.array_literal is None and isinstance(node.value, pa.Array):
                    self.array_literal = node
            elif node is not expr:
                width = max(width, call_width(node))
        self.params = list(params.values())
        self.rows = rows_for_width(width) if self.bound else None


def _walk_facts(expr: Expression) -> _Facts:
    """The facts of `expr` (fields read, bound or not, morsel size, array literals).

    Expressions are immutable, so the one walk (about 2 us per node) is done once
    per tree for the last few trees evaluated: a prepared expression evaluated
    batch after batch (Spark's engine mode, a notebook loop) skips it.
    """
    key = id(expr)
    hit = _FACTS.get(key)
    if hit is not None and hit.expr is expr:
        return hit
    facts = _Facts(expr)
    if len(_FACTS) >= _FACTS_SIZE:
        _FACTS.pop(next(iter(_FACTS)), None)  # the oldest entry
    _FACTS[key] = facts
    return facts


_FACTS: dict[int, _Facts] = {}
_FACTS_SIZE = 64


def _bound(expr: Expression, schema: pa.Schema):
    """(bound expression, reads any field?, morsel rows); checks that a pre-bound one fits."""
    facts = _walk_facts(expr)
    if facts.array_literal is not None:
        _refuse_array_literal(facts.array_literal)
    if not facts.bound:
        expr = bind(expr, schema)
        return expr, bool(facts.params), _walk_facts(expr).rows
    if facts.schema is schema or (facts.schema is not None and facts.schema.equals(schema)):
        return expr, bool(facts.params), facts.rows  # checked on this schema already
    moved = {}
    for param in facts.params:
        if param.path is None:
            continue
        where = _where_now(param, schema)
        if where != param.path:
            moved[param.ref] = where
    if moved:
        expr = _follow_names(expr, moved, schema)
        return expr, bool(facts.params), _walk_facts(expr).rows
    facts.schema = schema
    return expr, bool(facts.params), facts.rows


_SIMPLIFIED: dict[int, tuple] = {}
_SIMPLIFIED_SIZE = 64


def _simplified_as_acero_does(expr: Expression, observer) -> Expression:
    """SimplifyWithGuarantee(expr, true), as Acero runs it on each batch: a recorded pass
    when someone listens, otherwise remembered for the last few trees evaluated."""
    if active_observers(observer):
        return run_as_pass("simplify_before_evaluation", _folded, expr, observer=observer,
                           report_unchanged=False)
    hit = _SIMPLIFIED.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    out = _folded(expr)
    if len(_SIMPLIFIED) >= _SIMPLIFIED_SIZE:
        _SIMPLIFIED.pop(next(iter(_SIMPLIFIED)), None)
    _SIMPLIFIED[id(expr)] = (expr, out)  # holding expr keeps its id from being reused
    return out


def _folded(expr: Expression) -> Expression:
    """Canonicalized and folded (what SimplifyWithGuarantee does under `true`), or `expr`
    itself when nothing folds: a reordering alone changes no value, only the picture."""
    canonical = canonicalize(expr)
    folded = fold_constants(canonical)
    return expr if folded is canonical else folded


def _refuse_array_literal(node) -> None:
    """An array literal has its own length, not the batch's: evaluating one would pair
    its values with rows by chance (Arrow's expressions do not run them either)."""
    raise EvaluationError(
        f"evaluate: {node} is an array literal ({len(node.value):,} values); an "
        "expression is evaluated row by row, so put the values in a column")


def _where_now(param, schema: pa.Schema):
    """The path `param` names in `schema`: by name for a named ref (never by position alone).

    A bound expression evaluated on data whose columns are in another order must
    read the column it names, not the one now at its old position. The type must
    still be the one it was bound with; otherwise binding again is the user's call.
    """
    by_name = any(leaf.name is not None for leaf in param.ref.leaves())
    found_paths = param.ref.find_all(schema) if by_name else [param.path]
    found = found_paths[0].get(schema) if len(found_paths) == 1 else None
    if found is None or found.type != param.field_type:
        bound = f"{param.field_type} at {param.path.to_string()}"
        if len(found_paths) > 1:
            have = f"{len(found_paths)} fields of that name"
        elif found is None:
            have = "no such field"
        else:
            have = f"it as {found.type} at {found_paths[0].to_string()}"
        fields = ", ".join(f"{visible(f.name)} ({f.type})" for f in list(schema)[:12])
        raise EvaluationError(
            f"evaluate: field {param.to_string(shown=True)} was bound as {bound}, but the data has "
            f"{have} (the data's fields: {fields}); bind the expression to this data's schema")
    return found_paths[0]


def _follow_names(expr: Expression, moved: dict, schema: pa.Schema) -> Expression:
    """`expr` with each moved field reading its column's new position (types are unchanged)."""
    def pre(node):
        if node.kind == "field" and node.ref in moved:
            path = moved[node.ref]
            return Parameter(node.ref, node.field_type, path, path.get(schema).nullable)
        return node

    return modify_expression(expr, pre, lambda new, old: new)


def _empty(out_type, data):
    array = empty_of(out_type)
    return array if isinstance(data, pa.RecordBatch) else pa.chunked_array([array], out_type)


def _as_array(value, rows: int, out_type) -> pa.Array:
    """A morsel's value as an array of its rows and of the expression's type.

    A subtree that reads no field gives a scalar: it stands for every row.
    """
    if isinstance(value, pa.Scalar):
        return pa.repeat(value if value.type == out_type else value.cast(out_type), rows)
    return value if value.type == out_type else value.cast(out_type)


def _assembled(out_type, data, chunks: list[pa.Array]):
    """The caller's shape: one Array for a RecordBatch, its chunks for a Table."""
    if isinstance(data, pa.RecordBatch):
        return chunks[0]
    return pa.chunked_array(chunks, type=out_type)


_ARRAYS = (pa.Array, pa.ChunkedArray)


def sample_rows(num_rows: int, branches, failed_row: int | None) -> pa.Array:
    """The rows a large evaluation keeps (sorted, distinct int64): an honest sample.

    The first rows, the first rows of every branch of every special form (so each
    branch is seen at work), and the rows around the failing one.
    """
    parts = [pa.arange(0, min(num_rows, SAMPLE_FIRST))]
    for b in branches:
        if b.count:
            parts.append(b.first(SAMPLE_PER_BRANCH))
    if failed_row is not None and 0 <= failed_row < num_rows:
        low = max(0, failed_row - SAMPLE_AROUND_ERROR)
        parts.append(pa.arange(low, min(num_rows, failed_row + SAMPLE_AROUND_ERROR + 1)))
    rows = pa.concat_arrays([p.cast(pa.int64()) for p in parts])
    return pc.unique(pc.take(rows, pc.sort_indices(rows)))


def _event(expr, data, mode, positions, contexts, error, value) -> EvalEvent:
    nodes: dict[int, NodeStats] = {}
    threads: dict[int, set] = {}  # position -> the threads whose times its elapsed sums
    branches: dict[tuple, list] = {}
    for ctx in contexts:
        for pos, stat in ctx.stats.items():
            merged = nodes.get(pos)
            if merged is None:
                nodes[pos] = dataclasses.replace(stat, path=positions.at(pos))
                threads[pos] = {ctx.thread}
            else:
                accumulate(merged, stat)
                threads[pos].add(ctx.thread)
        for b in ctx.branches:
            branches.setdefault((b.path, b.branch, b.arg_index), []).append((b, ctx.offset))
    for pos, seen in threads.items():
        nodes[pos].threads = len(seen)
    selections = [
        BranchSelection(path=positions.at(path), branch=name, arg_index=arg,
                        rows=tuple(dataclasses.replace(piece, offset=offset)
                                   for b, offset in parts for piece in b.as_pieces()),
                        total_rows=data.num_rows, count=sum(b.count for b, _ in parts))
        for (path, name, arg), parts in branches.items()
    ]
    facts = ErrorFacts.of(error)
    ran_on = len({ctx.thread for ctx in contexts}) or 1
    if data.num_rows <= KEEP_DATA_ROWS:
        return EvalEvent(expr=expr, num_rows=data.num_rows, mode=mode,
                         nodes=list(nodes.values()),  # evaluation order (sorting deep paths is quadratic)
                         branches=selections, error=facts, result=value, data=data,
                         threads=ran_on)
    rows = sample_rows(data.num_rows, selections, facts.row if facts is not None else None)
    kept = value.take(rows) if isinstance(value, _ARRAYS) else value
    return EvalEvent(expr=expr, num_rows=data.num_rows, mode=mode, nodes=list(nodes.values()),
                     branches=selections, error=facts, result=kept, data=data.take(rows),
                     sample=rows, threads=ran_on, live_data=weakref.ref(data),
                     live_result=weakref.ref(value) if isinstance(value, _ARRAYS) else None)
