"""`evaluate(expr, data)`: the value of an expression over a RecordBatch or a Table.

The driver: checks its inputs, prepares the tree once (`prepare.py`: one walk
binds, simplifies and computes every fact), cuts the data into morsels
(`parallel.py`), evaluates them (in parallel when large), reassembles the
caller's chunks, and, only when an observer listens, reports
one EvalEvent with per-node statistics and the branch selections of every
special form.

`mode="lazy"` (the default) runs special forms call-by-name under selection
vectors; `mode="eager"` evaluates every argument first and runs the forms'
own pyarrow kernels, as Arrow does today.
"""

from __future__ import annotations

import weakref
from functools import partial

import pyarrow as pa

from ..errors import (
    EvaluationError,  # defined with every other exprscope error
    KernelError,
    UsageError,
)
from ..model.expression import as_expression
from ..observe import (
    Deferred,
    ErrorFacts,
    EvalEvent,
    active_observers,
    notify,
    silenced,
)
from ..sql.parse import parse
from ..support.when_let_go import when_let_go
from .batch_context import BatchContext, now
from .chunk_buffer import buffer_for
from .evaluation_sample import EvaluationSample, SampleSizes
from .fuse_when import FuseWhen, fuse_when
from .fused_branches import FusedBranches
from .fused_codes import LazyCodes
from .fused_kernels import available as fusion_available
from .fusion import runs_whole
from .gather_scatter import empty_of
from .parallel import PIECE_ROWS, Morsel, Outcome, may_pool, run_morsels, split
from .prepare import prepare
from .recorded_branches import branch_selections
from .tallies import node_stats
from .trampoline import run_tree
from .value_type import as_type

__all__ = ["KEEP_DATA_ROWS", "MODES", "EvaluationError", "evaluate"]

MODES = ("lazy", "eager")
KEEP_DATA_ROWS = 10_000  # events keep data and result up to this size (for the selection view)
SAMPLE_FIRST = 200  # above it, a sample: the first rows,
SAMPLE_PER_BRANCH = 50  # the first rows each branch got,
SAMPLE_AROUND_ERROR = 5  # and the rows around the failing one


def evaluate(expr, data, mode: str = "lazy", observer=None, simplify: bool = True,
             fuse: bool | None = None):
    """The expression's value: pa.Array for a RecordBatch, pa.ChunkedArray for a Table.

    An expression without field references gives a pa.Scalar. Unbound
    expressions are bound to the data's schema first. As Acero's project and
    filter nodes do, the expression is first simplified (canonicalized, constants
    folded) before any kernel runs, so `add(divide(a, z), null)` is null without
    dividing; the trace shows that step as the pass `simplify_before_evaluation`.
    `expr` may be expression text (`"a != 0 and b / a > 2"`), read by `tk.parse`; a
    string literal is `tk.literal("...")`. `simplify=False` runs the bound expression
    exactly as given. Lazy evaluation runs each cheap subtree of calls that cannot fail
    as one loop compiled by numba (`fusion.py`), with the same values, types, nulls and
    errors as its kernels: `fuse=True` always (compiling each loop when first met),
    `fuse=False` never; by default (None), once the prepared tree has seen a million
    rows in all, evaluations of 4,096 rows or more run the loops compiled by then, the
    missing ones compiled in the background (`fuse_when.py`: the default never waits
    for a compilation). Without numba nothing fuses.
    """
    if mode not in MODES:
        raise EvaluationError(f"evaluate: mode must be one of {MODES}, got {mode!r}")
    if fuse and not fusion_available():
        raise UsageError("evaluate(fuse=True) runs cheap subtrees as loops numba compiles, "
                         "and numba is not installed: pip install numba")
    if not isinstance(data, (pa.RecordBatch, pa.Table)):
        raise EvaluationError(
            f"evaluate: data must be a pyarrow RecordBatch or Table, got {type(data).__name__}")
    expr = parse(expr) if isinstance(expr, str) else as_expression(expr)
    prepared = prepare(expr, data.schema, simplify=simplify and data.num_rows > 0,
                       observer=observer)
    expr = prepared.expr
    observers = active_observers(observer)
    observing = bool(observers)
    started = now() if observing else 0.0
    positions = prepared.positions  # numbered once per prepared tree
    lazy = mode == "lazy"
    out_type = expr.type

    when = fuse_when(fuse, prepared.fused, data.num_rows) if lazy else FuseWhen.NEVER
    density = prepared.density
    trusted = not density.trust.failed  # taking this tree on trust never failed
    # below this many rows every form of the tree runs eagerly: no form is asked per morsel
    eager_below = density.eager_below if lazy and not observing else 0

    def work(morsel: Morsel, trusting: bool = trusted) -> Outcome:
        batch = morsel.batch
        as_eager = batch.num_rows < eager_below and (trusting or not density.eager_on_trust)
        ctx = BatchContext(batch, morsel.offset, lazy and not as_eager, observing, prepared,
                           positions, trusting, when)
        if as_eager and density.eager_on_trust:
            ctx.took_trust = True  # a failing cast may be one lazy evaluation never runs
        try:
            return Outcome(_as_array(run_tree(ctx, expr), batch.num_rows, out_type), ctx)
        except KernelError as exc:
            if ctx.took_trust:  # a cast taken on trust may have failed: prove, then decide
                density.trust.failed = True
                return work(morsel, trusting=False)
            return Outcome(None, ctx, exc)
        finally:
            ctx.release()  # the trace needs the statistics, not the gathered columns

    if data.num_rows == 0:
        # no row, nothing to compute and nothing that can fail (as in Acero): even an
        # all-literal expression such as 1 / 0 is empty here, not an error
        outcomes, value = [], _empty(out_type, data)
    elif not prepared.reads_fields:
        # one row that no field reads: row counts stay meaningful (0 rows would skip branches)
        outcome = work(Morsel(0, 0, pa.record_batch({"_": pa.nulls(1)})))
        outcomes = [outcome]
        value = None if outcome.error else outcome.value[0]  # an all-literal tree: one value
    else:
        rows = PIECE_ROWS if runs_whole(prepared.fused, observing, when) \
            else prepared.rows_per_morsel
        morsels = split(data, rows)
        choice = prepared.threads if may_pool(morsels, data.num_rows) else None
        way = (mode, when, observing)
        pooled = choice is not None and choice.pooled(way)
        began = now()
        outcomes, chunks = run_morsels(work, morsels, data.num_rows, join=pa.concat_arrays,
                                       buffer=buffer_for(out_type), pooled=pooled)
        if choice is not None:
            choice.record(way, pooled, data.num_rows, now() - began)
        value = None if any(c is None for c in chunks) else _assembled(out_type, data, chunks)
    error = next((o.error for o in outcomes if o is not None and o.error is not None), None)
    if observing:
        contexts = [o.context for o in outcomes if o is not None]
        event = _event(expr, data, mode, prepared, contexts, error, value)
        event.elapsed = now() - started
        notify("on_eval", event, observer)
    if error is not None:
        raise error
    return value


def _empty(out_type, data):
    array = empty_of(out_type)
    return array if isinstance(data, pa.RecordBatch) else pa.chunked_array([array], out_type)


def _as_array(value, rows: int, out_type) -> pa.Array:
    """A morsel's value as an array of its rows and of the expression's type.

    A subtree that reads no field gives a scalar: it stands for every row.
    """
    if isinstance(value, pa.Scalar):
        return pa.repeat(as_type(value, out_type), rows)
    return as_type(value, out_type)


def _assembled(out_type, data, chunks: list[pa.Array]):
    """The caller's shape: one Array for a RecordBatch, its chunks for a Table."""
    if isinstance(data, pa.RecordBatch):
        return chunks[0]
    return pa.chunked_array(chunks, type=out_type)


_ARRAYS = (pa.Array, pa.ChunkedArray)


def _read_columns(data, columns: tuple[int, ...] | None):
    """The columns of `data` the tree reads (what every view of a sample shows), all of them
    when that is not known or none is read."""
    if not columns or len(columns) == data.num_columns:
        return data
    return data.select(list(columns))


def _value_again(prepared, mode: str, schema: pa.Schema, sampled):
    """The tree's value over `sampled` (some rows of the columns it reads), unobserved:
    the columns it does not read stand as nulls, so the bound tree runs as it ran."""
    if sampled.num_columns != len(schema):
        by_position = dict(zip(prepared.read_columns, sampled.columns))
        sampled = type(sampled).from_arrays(
            [by_position[i] if i in by_position else pa.nulls(sampled.num_rows, field.type)
             for i, field in enumerate(schema)], schema=schema)
    with silenced():
        value = evaluate(prepared.expr, sampled, mode, simplify=False, fuse=False)
    if isinstance(value, pa.Scalar):  # simplified to a literal, as the columns' rows it stood for
        value = _assembled(prepared.expr.type, sampled,
                           [_as_array(value, sampled.num_rows, prepared.expr.type)])
    return value


def _event(expr, data, mode, prepared, contexts, error, value) -> EvalEvent:
    positions = prepared.positions
    # the NodeStats and BranchSelections are made when someone reads them: a trace is
    # recorded far more often than it is read (the tallies are plain lists, the branches
    # the morsels' records; the contexts, which hold the data, stay out)
    nodes = Deferred(partial(node_stats, [(ctx.tallies, ctx.thread) for ctx in contexts],
                             positions.at, prepared.labels))
    recorded = [item for ctx in contexts for item in ctx.branches]
    lazy = [r.codes for r in recorded if isinstance(r, FusedBranches)
            and isinstance(r.codes, LazyCodes)]
    if lazy:  # they read the data's columns: made when the caller lets the data go
        when_let_go((data,), lazy, LazyCodes.whole)
    total = data.num_rows
    branches = Deferred(partial(branch_selections, recorded, positions.at, total))
    facts = ErrorFacts.of(error)
    ran_on = len({ctx.thread for ctx in contexts}) or 1
    if total <= KEEP_DATA_ROWS:
        return EvalEvent(expr=expr, num_rows=total, mode=mode,
                         nodes=nodes,  # evaluation order (sorting deep paths is quadratic)
                         branches=branches, error=facts, result=value, data=data,
                         threads=ran_on)
    # the sample is taken when first read, or when the caller lets the data go; the
    # result's rows, if the caller lets it go first, computed again from the data's
    again = partial(_value_again, prepared, mode, data.schema) \
        if isinstance(value, _ARRAYS) and prepared.pure else None
    sample = EvaluationSample(_read_columns(data, prepared.read_columns), value, recorded,
                              facts.row if facts is not None else None,
                              SampleSizes(SAMPLE_FIRST, SAMPLE_PER_BRANCH, SAMPLE_AROUND_ERROR),
                              value_of=again).watch(data, value)
    return EvalEvent(expr=expr, num_rows=total, mode=mode, nodes=nodes,
                     branches=branches, error=facts, result=Deferred(sample.result),
                     data=Deferred(sample.data), sample=Deferred(sample.rows), threads=ran_on,
                     live_data=weakref.ref(data),
                     live_result=weakref.ref(value) if isinstance(value, _ARRAYS) else None)
