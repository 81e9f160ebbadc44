"""The lazy special forms: if_else, case_when, coalesce, and_kleene, or_kleene.

Each is a generator run by the trampoline (`trampoline.py`): it yields a request
`(child, relative path, selection, mask)` and receives that child's compact
value, so a form reads like its definition: evaluate the condition, compute
which rows each branch needs, evaluate the branches on just those rows, merge.
Nothing recurses, so nested forms compose their selections at any depth.

Positions inside a form are int64 indices into the form's own domain (the rows
of the selection it runs under); `None` means all of them. A branch on a
subset runs under the composed selection (compact), or densely over the whole
domain when `dense_path.use_dense` says that is both safe and cheaper.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .dense_path import Density, could_be_dense, density_kinds, use_dense
from .gather_scatter import broadcast, empty_of, merge_branches, overlay, take
from .kernel_errors import kernel_error
from .selection import SelectionVector

__all__ = ["FORMS"]

_NO_ROWS = pa.array([], pa.int64())


def _nonzero(mask: pa.Array) -> pa.Array:
    """Positions of the true rows of a boolean array without nulls."""
    return pc.indices_nonzero(mask).view(pa.int64())  # uint64 < 2**63: same bits


def _no_nulls(mask: pa.Array, fill: bool) -> pa.Array:
    return pc.fill_null(mask, fill) if mask.null_count else mask


def _positions_mask(positions: pa.Array, length: int) -> pa.Array:
    return pc.is_valid(pc.inverse_permutation(positions, max_index=length - 1))


def _sub_selection(sel: SelectionVector | None, positions: pa.Array, length: int):
    if sel is None:
        return SelectionVector(positions, length, check=False)
    return sel.compose(positions)


def _branch(ctx, sel, domain, child, rel, positions, path, label, arg_index, allow_full=False):
    """The child's value on `positions` of the domain: `(value, is_full)`.

    `is_full` is true when the child ran densely over the whole domain and the
    caller asked for that (`allow_full`), so it can merge without compacting.
    """
    if path is not None:
        ctx.record_branch(path, label, arg_index, sel, positions)
    if positions is None:
        return (yield (child, rel, sel, None)), True
    selected = len(positions)
    if selected == 0:
        return empty_of(child.type), False
    if child.is_literal:
        return child.value, False
    if selected == domain:
        return (yield (child, rel, sel, None)), True
    kind = density_kinds(child, ctx.density_memo) if could_be_dense(selected, domain) else None
    if kind is not None and use_dense(kind, selected, domain):
        mask = _positions_mask(positions, domain) if kind is Density.MASKED else None
        full = yield (child, rel, sel, mask)
        if allow_full and not isinstance(full, pa.Scalar):
            return full, True
        return take(full, positions), False
    value = yield (child, rel, _sub_selection(sel, positions, ctx.size(sel)), None)
    return value, False


def _skipped(ctx, sel, path, label, arg_index):
    """Record that a branch ran on no rows (the tracer shows it as an empty selection)."""
    if path is not None:
        ctx.record_branch(path, label, arg_index, sel, _NO_ROWS)


def _compact(value, is_full, positions):
    return take(value, positions) if is_full else value


def if_else(ctx, node, path, sel):
    """A null condition gives null; `then` only where true, `else` only where false."""
    cond, then, other = node.args
    domain = ctx.size(sel)
    c = yield (cond, (0,), sel, None)
    if isinstance(c, pa.Scalar):
        if not c.is_valid:
            _skipped(ctx, sel, path, "then", 1)
            _skipped(ctx, sel, path, "else", 2)
            return pa.scalar(None, node.type)
        if c.as_py():
            value, _ = yield from _branch(ctx, sel, domain, then, (1,), None, path, "then", 1)
            _skipped(ctx, sel, path, "else", 2)
        else:
            _skipped(ctx, sel, path, "then", 1)
            value, _ = yield from _branch(ctx, sel, domain, other, (2,), None, path, "else", 2)
        return value
    true_pos = _nonzero(_no_nulls(c, False))
    false_pos = _nonzero(_no_nulls(pc.invert(c), False))
    if len(true_pos) == domain:
        value, _ = yield from _branch(ctx, sel, domain, then, (1,), None, path, "then", 1)
        _skipped(ctx, sel, path, "else", 2)
        return value
    if len(false_pos) == domain:
        _skipped(ctx, sel, path, "then", 1)
        value, _ = yield from _branch(ctx, sel, domain, other, (2,), None, path, "else", 2)
        return value
    tv, t_full = yield from _branch(ctx, sel, domain, then, (1,), true_pos, path, "then", 1, True)
    fv, f_full = yield from _branch(ctx, sel, domain, other, (2,), false_pos, path, "else", 2, True)
    if t_full and f_full:
        return _cast(pc.if_else(c, tv, fv), node.type)
    return merge_branches(domain, [(true_pos, _compact(tv, t_full, true_pos)),
                                   (false_pos, _compact(fv, f_full, false_pos))], node.type)


def case_when(ctx, node, path, sel):
    """Condition i runs only on rows no earlier case took; a null condition is not taken."""
    domain = ctx.size(sel)
    args = node.args
    conds_node = args[0]
    struct_value = None
    if conds_node.is_call and conds_node.name == "make_struct":
        conds = list(conds_node.args)
        n_cases = len(conds)
    else:  # a struct computed some other way: evaluate it, then read its fields lazily
        struct_value = yield (conds_node, (0,), sel, None)
        _check_struct(struct_value, conds_node, node, path, ctx, sel)
        n_cases = struct_value.type.num_fields
        conds = None
    else_node = args[1 + n_cases] if len(args) > 1 + n_cases else None
    remaining = None  # positions still undecided; None = the whole domain
    parts = []
    for i in range(n_cases):
        if remaining is not None and len(remaining) == 0:
            for j in range(i, n_cases):
                _skipped(ctx, sel, path, f"when {j + 1}", 0)
                _skipped(ctx, sel, path, f"then {j + 1}", 1 + j)
            break
        if conds is not None:
            c, _ = yield from _branch(ctx, sel, domain, conds[i], (0, i), remaining, path,
                                      f"when {i + 1}", 0)
        else:
            column = _struct_child(struct_value, i)
            c = take(column, remaining)
            if path is not None:
                ctx.record_branch(path, f"when {i + 1}", 0, sel, remaining)
        if isinstance(c, pa.Scalar):
            taken, rest = (remaining, _NO_ROWS) if (c.is_valid and c.as_py()) else (_NO_ROWS, remaining)
        else:
            hit = _no_nulls(c, False)
            taken_local = _nonzero(hit)
            n_in = len(c)
            if len(taken_local) == 0:
                taken, rest = _NO_ROWS, remaining
            elif len(taken_local) == n_in:
                taken, rest = remaining, _NO_ROWS
            else:
                rest_local = _nonzero(pc.invert(hit))
                taken = taken_local if remaining is None else pc.take(remaining, taken_local)
                rest = rest_local if remaining is None else pc.take(remaining, rest_local)
        if taken is None or len(taken):
            value, _ = yield from _branch(ctx, sel, domain, args[1 + i], (1 + i,), taken, path,
                                          f"then {i + 1}", 1 + i)
            parts.append((taken, value))
        else:
            _skipped(ctx, sel, path, f"then {i + 1}", 1 + i)
        remaining = rest
    if else_node is not None and (remaining is None or len(remaining)):
        value, _ = yield from _branch(ctx, sel, domain, else_node, (1 + n_cases,), remaining, path,
                                      "else", 1 + n_cases)
        parts.append((remaining, value))
    elif else_node is not None:
        _skipped(ctx, sel, path, "else", 1 + n_cases)
    if not parts:  # no case taken anywhere and no else: null on every row
        return pa.scalar(None, node.type)
    if len(parts) == 1 and parts[0][0] is None:
        return _cast(parts[0][1], node.type)
    parts = [(pa.arange(0, domain) if p is None else p, v) for p, v in parts]
    return merge_branches(domain, parts, node.type)


def coalesce(ctx, node, path, sel):
    """Argument i runs only on the rows where every earlier argument was null."""
    domain = ctx.size(sel)
    args = node.args
    current, _ = yield from _branch(ctx, sel, domain, args[0], (0,), None, path, "arg 1", 0)
    for i in range(1, len(args)):
        if _decided(current):
            for j in range(i, len(args)):
                _skipped(ctx, sel, path, f"arg {j + 1}", j)
            break
        if isinstance(current, pa.Scalar):
            current, _ = yield from _branch(ctx, sel, domain, args[i], (i,), None, path,
                                            f"arg {i + 1}", i)
            continue
        nulls = pc.is_null(current)
        if current.null_count == len(current):
            value, _ = yield from _branch(ctx, sel, domain, args[i], (i,), None, path,
                                          f"arg {i + 1}", i)
            current = broadcast(value, domain, node.type) if not isinstance(value, pa.Scalar) \
                else pc.coalesce(current, value)
            continue
        positions = _nonzero(nulls)
        value, full = yield from _branch(ctx, sel, domain, args[i], (i,), positions, path,
                                         f"arg {i + 1}", i, True)
        if full:
            current = pc.coalesce(current, _cast(value, current.type))
        else:
            current = overlay(current, nulls, value)
    return _cast(current, node.type)


def _decided(value) -> bool:
    """No nulls left for later coalesce arguments to fill."""
    if isinstance(value, pa.Scalar):
        return value.is_valid
    return value.null_count == 0


def _kleene(kleene_kernel, stop_value: bool):
    """and_kleene (the left side decides where it is false) or or_kleene (where true)."""

    def form(ctx, node, path, sel):
        domain = ctx.size(sel)
        left_node, right_node = node.args
        left = yield (left_node, (0,), sel, None)
        if isinstance(left, pa.Scalar):
            if left.is_valid and left.as_py() is stop_value:
                _skipped(ctx, sel, path, "right", 1)
                return left
            right, _ = yield from _branch(ctx, sel, domain, right_node, (1,), None, path, "right", 1)
            return kleene_kernel(left, right)
        undecided = _no_nulls(pc.invert(left) if stop_value else left, True)
        positions = _nonzero(undecided)
        if len(positions) == 0:
            _skipped(ctx, sel, path, "right", 1)
            return left
        if len(positions) == domain:
            right, _ = yield from _branch(ctx, sel, domain, right_node, (1,), None, path, "right", 1)
            return kleene_kernel(left, right)
        right, full = yield from _branch(ctx, sel, domain, right_node, (1,), positions, path,
                                         "right", 1, True)
        if full:
            return kleene_kernel(left, right)
        combined = kleene_kernel(pc.take(left, positions), right)
        return overlay(left, undecided, combined)

    return form


def _cast(value, out_type):
    if out_type is None or value.type == out_type:
        return value
    return value.cast(out_type)


def _struct_child(struct_value, i):
    if isinstance(struct_value, pa.Scalar):
        return struct_value[i]
    return pc.struct_field(struct_value, [i])


def _check_struct(struct_value, conds_node, node, path, ctx, sel):
    """Arrow refuses a condition struct with top-level nulls; so do we, naming the row."""
    if isinstance(struct_value, pa.Scalar):
        if not struct_value.is_valid:
            raise kernel_error(pa.ArrowInvalid("cond struct must not be a null scalar"),
                               node, path or (), None)
        return
    if struct_value.null_count:
        position = pc.index(pc.is_null(struct_value), True).as_py()
        raise kernel_error(
            pa.ArrowInvalid("cond struct must not have top-level nulls"),
            node, path or (), ctx.original_row(sel, position))


FORMS = {
    "if_else": if_else,
    "case_when": case_when,
    "coalesce": coalesce,
    "and_kleene": _kleene(pc.and_kleene, False),
    "or_kleene": _kleene(pc.or_kleene, True),
}
