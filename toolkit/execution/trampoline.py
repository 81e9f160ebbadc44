"""Evaluating one bound tree over one batch slice with an explicit stack.

No Python recursion: a 10,000-deep `a + 1 + 1 + ...` is a stack of 10,000
frames in a list. Two kinds of frame: an ordinary call collects its argument
values left to right and then runs its kernel on them (compact in, compact
out: no scatter); a lazy special form is a generator (`forms/`) that asks for
children under selections of its choosing (`forms.requests.ChildRequest`). Leaves never get a frame.

Positions are only tracked when observing (as rows of a parent table, see
`tree_positions.py`); an error rebuilds its path from the frames on the stack.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ExprscopeError, KernelError, UnboundError
from ..functions.function import FunctionKind
from .batch_context import TOP, BatchContext, RunAs, now
from .forms import FORMS, BranchRun, runs_eagerly
from .fusion import run_fused
from .kernel_errors import ROW_ERRORS, first_failing_position, kernel_error

__all__ = ["run_tree"]


class _CallFrame:
    __slots__ = ("mask", "node", "path", "rel", "run", "sel", "values")
    is_form = False

    def __init__(self, node, rel, path, sel, mask, run):
        self.node = node
        self.rel = rel
        self.path = path
        self.sel = sel
        self.mask = mask
        self.run = run
        self.values = []


class _FormFrame:
    __slots__ = ("elapsed", "gen", "node", "path", "rel", "run", "sel")
    is_form = True

    def __init__(self, node, rel, path, sel, gen, run):
        self.node = node
        self.rel = rel
        self.path = path
        self.sel = sel
        self.gen = gen
        self.run = run
        self.elapsed = 0.0


def run_tree(ctx: BatchContext, root, sel=None):
    """The value of `root` over `ctx.batch` under `sel` (an array aligned with it, or a scalar)."""
    stack: list = []
    value = _start(ctx, stack, root, (), sel, None, None, TOP if ctx.observing else None)
    if value is not None:
        return value
    observing = ctx.observing
    while True:
        frame = stack[-1]
        if not frame.is_form:
            values = frame.values
            if value is not None:
                values.append(value)
                value = None
            args = frame.node.args
            n = len(values)
            pushed = False
            while n < len(args):
                v = _start(ctx, stack, args[n], (n,), frame.sel, frame.mask, frame.path,
                           frame.run)
                if v is None:
                    pushed = True
                    break
                values.append(v)
                n += 1
            if pushed:
                continue
            value = _apply(ctx, frame, stack)
            stack.pop()
            if not stack:
                return value
            continue
        # a special form: hand it the value it asked for, take its next request
        t0 = now() if observing else 0.0
        if observing:
            ctx.run = frame.run  # the rows of its domain the form's own value is used for
        try:
            request = frame.gen.send(value)
        except StopIteration as stop:
            value = stop.value
            stack.pop()
            if observing:
                frame.elapsed += now() - t0
                ctx.record(frame.path, frame.node, ctx.size(frame.sel), frame.elapsed, 1,
                           frame.run)
            if not stack:
                return value
            continue
        except KernelError as exc:
            if exc.node is frame.node and not exc.path:
                exc.path = _path_of(stack)  # a form's own error: it knows no path
            raise
        except ExprscopeError:
            raise
        except pa.ArrowException as exc:
            raise kernel_error(exc, frame.node, _path_of(stack), None) from exc
        if observing:
            frame.elapsed += now() - t0
        run = child_run(frame.run, request.run) if observing else None
        value = _start(ctx, stack, request.child, request.rel, request.sel, request.mask,
                       frame.path, run)


def _start(ctx, stack, node, rel, sel, mask, parent_pos, run):
    """A leaf's value, or None after pushing a frame for a call.

    When observing, frames carry position ids (`BatchContext.position`), not paths.
    """
    kind = node.kind
    if kind == "literal":
        if ctx.observing:
            ctx.record_literal(ctx.positions.below(parent_pos, rel), node, ctx.size(sel), run)
        return node.value
    if kind == "field":
        if not ctx.observing:
            return ctx.field(node, sel, mask)
        t0 = now()
        value = ctx.field(node, sel, mask)
        ctx.record(ctx.positions.below(parent_pos, rel), node, ctx.size(sel), now() - t0,
                   0 if sel is None and mask is None else 1, run)
        return value
    fn = node.function
    if fn is None:
        raise UnboundError(f"cannot evaluate the unbound call {node.name}(...): bind it first")
    path = ctx.positions.below(parent_pos, rel) if ctx.observing else None
    if ctx.fused:
        group = ctx.fused.get(id(node))
        if group is not None:
            value = run_fused(ctx, group, sel, mask, path, run)
            if value is not None:
                return value
    if ctx.lazy and mask is None and fn.kind is FunctionKind.SPECIAL_FORM:
        form = FORMS.get(node.name)
        if form is not None and (ctx.observing or not runs_eagerly(ctx, node, sel)):
            stack.append(_FormFrame(node, rel, path, sel, form(ctx, node, path, sel), run))
            return None
    stack.append(_CallFrame(node, rel, path, sel, mask, run))
    return None


def _apply(ctx, frame: _CallFrame, stack):
    """Run the frame's kernel on its (compact) argument values."""
    node = frame.node
    fn = node.function
    args = frame.values
    options = node.options
    kernel = node.kernel
    if ctx.observing:
        t0 = now()
        value = _run_kernel(ctx, frame, stack, fn, args, options, kernel)
        ctx.record(frame.path, node, ctx.size(frame.sel), now() - t0, 1, frame.run)
        return value
    return _run_kernel(ctx, frame, stack, fn, args, options, kernel)


def _run_kernel(ctx, frame, stack, fn, args, options, kernel):
    if ctx.proven_casts:
        options = ctx.proven_casts.get(id(frame.node), options)
    try:
        return fn.execute(fn, args, fn.default_options if options is None else options, kernel)
    except ROW_ERRORS as exc:
        position = first_failing_position(lambda a: fn(a, options, kernel), args)
        if position is None and all(isinstance(a, pa.Scalar) for a in args) \
                and ctx.size(frame.sel):
            # every row fails alike: the first row the call ran on
            position = 0 if frame.mask is None else pc.index(frame.mask, True).as_py()
        row = None if position is None else ctx.original_row(frame.sel, position)
        raise kernel_error(exc, frame.node, _path_of(stack), row) from exc
    except (ExprscopeError, KernelError):
        raise
    except (pa.ArrowException, ValueError, TypeError, ArithmeticError) as exc:
        raise kernel_error(exc, frame.node, _path_of(stack), None) from exc


def _path_of(stack) -> tuple:
    """The path of the top frame, from the relative paths of every frame."""
    path: tuple = ()
    for frame in stack:
        path += frame.rel
    return path


def child_run(parent: RunAs, branch: BranchRun | None) -> RunAs:
    """How a form's child runs: as the form itself (`branch` None), or as `branch` says
    (the rows of the form's domain its value is used for, how and why)."""
    if branch is None:
        return parent
    rows, how, why, compact = branch.rows, branch.how, branch.why, branch.compact
    if rows is None or rows.is_all:
        return parent.reworded(how or parent.how, why if how else parent.why)
    if compact:  # the child's domain is `rows`: which of them the form's parent uses
        used = None if parent.uses_all else pc.take(parent.used, rows.indices)
    elif parent.uses_all:  # the child runs on the whole domain: only `rows` of it are used
        return RunAs.over(rows, how, why)
    else:
        used = pc.and_(parent.used, rows.mask)
    return RunAs(used, how, why)
