"""The lazy special forms: if_else, case_when, coalesce, and_kleene, or_kleene.

Each is a generator run by the trampoline (`trampoline.py`): it yields a request
`(child, relative path, selection, mask)` and receives that child's compact
value, so a form reads like its definition: evaluate the condition, compute
which rows each branch needs, evaluate the branches on just those rows, merge.
Nothing recurses, so nested forms compose their selections at any depth.

Which rows of the form's domain (the rows of the selection it runs under) a
branch gets is a `SelectionVector` (mask and/or indices). A branch on a subset
runs under the composed selection (compact), or densely over the whole domain when
`dense_path.use_dense` says that is both safe and cheaper; `merge_parts` then
uses the dense result as the base it lays the other branches over.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..functions.cast_range_check import RANGE_CHECK_MIN_ROWS
from . import dense_path
from .case_chain import case_when_chain
from .dense_path import (
    Density,
    all_cheap_here,
    break_even,
    could_be_dense,
    density_here,
    density_kinds,
    is_cheap_here,
    use_dense,
)
from .gather_scatter import empty_of, merge_parts, null_of, placed, spread, take
from .kernel_errors import kernel_error
from .logical_nulls import logical_null_count, null_rows
from .place_values import placeable
from .selection import SelectionVector

__all__ = ["FORMS", "runs_eagerly"]


def _no_nulls(mask: pa.Array, fill: bool) -> pa.Array:
    return pc.fill_null(mask, fill) if mask.null_count else mask


def _sub_selection(sel: SelectionVector | None, rows: SelectionVector) -> SelectionVector:
    """The batch rows behind `rows` of the domain `sel` (None: the domain is the batch)."""
    return rows if sel is None else sel.compose(rows)


def _branch(ctx, sel, child, rel, rows: SelectionVector, path, label, arg_index, allow_full=False,
            threshold=None, cheap_dense=True, narrowed=False):
    """The child's value on `rows` of the domain: `(value, is_full)`.

    `is_full` is true when the value covers the whole domain: the branch had
    every row, or it ran densely and the caller can merge without compacting
    (`allow_full`). `cheap_dense=False`: a cheap child on a small share of the
    domain runs on its rows only (one of many case values: computing each on
    every row would cost one full pass per branch). `narrowed`: the domain is the
    rows a case_when's funnel narrowed to, which the trace says.
    """
    if path is not None:
        _record(ctx, sel, path, label, arg_index, rows)
    if rows.is_all:
        use = (rows, "selected", NARROWED, True) if narrowed and path is not None else None
        return (yield (child, rel, sel, None, use)), True
    if rows.count == 0:
        return empty_of(child.type), False
    if child.is_literal:
        if path is not None:  # traced: the literal stands for its value on the branch's rows
            yield (child, rel, _sub_selection(sel, rows), None,
                   (rows, "selected", "", True))
        return child.value, False
    if allow_full and child.kind == "field" and sel is None \
            and rows.length >= dense_path.MIN_DENSE_ROWS:
        # a column of the batch: reading every row costs nothing, gathering some costs a copy
        use = (rows, "dense", _COLUMN, False) if path is not None else None
        return (yield (child, rel, sel, None, use)), True
    domain = rows.length
    large = domain >= dense_path.MIN_DENSE_ROWS
    cheap = cheap_dense and large and is_cheap_here(child, ctx)
    costed = False
    if cheap:
        threshold = 0.0  # cheap fixed-width work: every row costs less than gather + scatter
    elif cheap_dense and allow_full and large and density_here(child, ctx) is not Density.NEVER:
        # no failure to avoid (none possible, or the unselected rows made null): dense once
        # computing the unselected rows costs less than selecting and putting back
        even = break_even(child, ctx.density_memo)
        costed = threshold is None or even < threshold
        threshold = even if costed else threshold
    kind = density_here(child, ctx) if could_be_dense(rows.count, domain, threshold) else None
    if kind is not None and use_dense(kind, rows.count, domain, threshold):
        mask = rows.mask if kind is Density.MASKED else None
        use = None
        if path is not None:
            why = _dense_reason(cheap, rows.count, domain, threshold, mask is not None, costed)
            if mask is None and density_kinds(child, ctx.density_memo) is not Density.SAFE:
                why += f"; {dense_path.IN_RANGE}"
            if narrowed:
                why += f"; {NARROWED}"
            use = (rows, "masked" if mask is not None else "dense", why, False)
        full = yield (child, rel, sel, mask, use)
        if mask is not None:
            ctx.forget(sel, mask)
        if allow_full and not isinstance(full, pa.Scalar):
            return full, True
        return take(full, rows.indices), False
    use = (rows, "selected", "", True) if path is not None else None
    sub = _sub_selection(sel, rows)
    value = yield (child, rel, sub, None, use)
    ctx.forget(sub)  # made for this branch: what was gathered under it is spent
    return value, False


def _dense_reason(cheap: bool, selected: int, domain: int, threshold, masked: bool,
                  costed: bool = False) -> str:
    """Why a branch ran on every row of its domain, in NodeStats' words."""
    if cheap:
        why = "cheaper than selecting"
    else:  # the same words for every morsel, so a node's reasons add up to one
        limit = dense_path.DENSE_THRESHOLD if threshold is None else threshold
        why = f"over {limit:.0%} of the rows selected"
        if costed:
            why += " (its break-even: computing the others costs less than selecting)"
    if masked:
        why += ", the others made null so no failing kernel sees them"
    elif not cheap:
        why += ", cannot fail"
    return why


_COLUMN = "a column: read, not computed"
_CHEAP_FORM = "cheap branches that cannot fail: one kernel, all rows"


def _dense_use(ctx, path, rows: SelectionVector):
    """The request tail of a child an all-dense form runs on every row, used on `rows`."""
    return (rows, "dense", _CHEAP_FORM, False) if path is not None else None


def _dense_children(node) -> tuple:
    """The children whose cheapness lets a form run densely: the branches (the condition
    of if_else and the left side of and/or run on every row anyway), or () for a form
    that never runs densely this way. One list for `_all_dense` and `runs_eagerly`, which
    share the answer (remembered per form)."""
    name, args = node.name, node.args
    if name in ("if_else", "and_kleene", "or_kleene"):
        return args[1:]
    if name == "coalesce":
        return args
    if name == "case_when" and args and args[0].is_call and args[0].name == "make_struct":
        return (*args[0].args, *args[1:])
    return ()


def _all_dense(ctx, form) -> bool:
    """Every child cheap and unable to fail: skip the selections, whatever the domain's
    size (on a small batch the selections' fixed cost, about 20 kernel calls, is what
    laziness would add: 1,000 rows of `coalesce(x, y * 2, 0.0)` took 92 us selected
    against 23 us for Arrow's own kernel).

    Traced too: the children then run on every row of the domain (their NodeStats
    say so), and the rows each branch's value was *used* for are recorded from
    the condition values with a few bitmap kernels (`_record_*` below), the same
    sets of rows the selection path records.
    """
    children = _dense_children(form)
    return bool(children) and all_cheap_here(form, children, ctx)


def runs_eagerly(ctx, node, sel) -> bool:
    """Untraced, a form whose branches are all cheap on this batch runs as eager evaluation
    does (every argument, then Arrow's kernel): what the form would do anyway, without its
    generator, about 4 us a call (a tenth of a 1,000-row evaluation). A case_when only on a
    small domain: on a large one a fixed-width case_when funnels.

    On a small domain whose casts would need proving (`ctx.trusting`), the branches are
    taken on trust and the casts check their own values, as in eager evaluation: should
    one fail, the batch is evaluated again without trust (`evaluate`), and the form then
    runs lazily. Proving (a min and a max per column) costs 4 to 9 us on 1,000 rows.
    """
    children = _dense_children(node)
    domain = ctx.size(sel)
    if not children or (node.name == "case_when" and domain >= dense_path.MIN_DENSE_ROWS):
        return False
    trust = ctx.trusting and domain < RANGE_CHECK_MIN_ROWS
    return all_cheap_here(node, children, ctx, on_trust=trust)


def _record(ctx, sel, path, label, arg_index, rows: SelectionVector) -> None:
    """Record the rows of the domain a branch got and whose value is used (all: None).

    A form that itself runs densely (inside a dense branch) hands its branches
    rows whose values are then dropped; the trace keeps the rows that count, so
    the selections tell the lazy story and match the branches' `used_rows`.
    """
    used = ctx.run.used if ctx.run is not None else None
    if used is not None:
        rows = rows.and_mask(used)
    ctx.record_branch(path, label, arg_index, sel, None if rows.is_all else rows)


def _skipped(ctx, sel, path, label, arg_index):
    """Record that a branch ran on no rows (the tracer shows it as an empty selection)."""
    if path is not None:
        ctx.record_branch(path, label, arg_index, sel, SelectionVector.none(ctx.size(sel)))


def _picked(rows: SelectionVector, c, is_full) -> SelectionVector:
    """The rows of `rows` where the condition value `c` (compact or full) is true."""
    if isinstance(c, pa.Scalar):
        return rows if (c.is_valid and c.as_py()) else SelectionVector.none(rows.length)
    if is_full:
        return rows.and_mask(_no_nulls(c, False))
    return rows.scatter_local(c)


def if_else(ctx, node, path, sel):
    """A null condition gives null; `then` only where true, `else` only where false."""
    cond, then, other = node.args
    domain = ctx.size(sel)
    c = yield (cond, (0,), sel, None)
    if isinstance(c, pa.Scalar):
        if not c.is_valid:
            _skipped(ctx, sel, path, "then", 1)
            _skipped(ctx, sel, path, "else", 2)
            return null_of(node.type)
        if c.as_py():
            value, _ = yield from _branch(ctx, sel, then, (1,), SelectionVector.all(domain),
                                          path, "then", 1)
            _skipped(ctx, sel, path, "else", 2)
        else:
            _skipped(ctx, sel, path, "then", 1)
            value, _ = yield from _branch(ctx, sel, other, (2,), SelectionVector.all(domain),
                                          path, "else", 2)
        return value
    if _all_dense(ctx, node):  # cheap branches: Arrow's own if_else, no masks
        true_rows = false_rows = None
        if path is not None:
            true_rows = SelectionVector.from_mask(_no_nulls(c, False))
            false_rows = SelectionVector.from_mask(_no_nulls(pc.invert(c), False))
            _record(ctx, sel, path, "then", 1, true_rows)
            _record(ctx, sel, path, "else", 2, false_rows)
        tv = yield (then, (1,), sel, None, _dense_use(ctx, path, true_rows))
        fv = yield (other, (2,), sel, None, _dense_use(ctx, path, false_rows))
        return _cast(pc.if_else(c, tv, fv), node.type)
    true_rows = SelectionVector.from_mask(_no_nulls(c, False))
    false_rows = SelectionVector.from_mask(_no_nulls(pc.invert(c), False))
    tv, t_full = yield from _branch(ctx, sel, then, (1,), true_rows, path, "then", 1, True)
    fv, f_full = yield from _branch(ctx, sel, other, (2,), false_rows, path, "else", 2, True)
    if t_full and f_full and true_rows.count and false_rows.count:
        return _cast(pc.if_else(c, tv, fv), node.type)
    sides = ((true_rows, tv, t_full), (false_rows, fv, f_full))
    if _if_else_mergeable(node.type, sides):
        # one side covers the domain (or is one value): Arrow's if_else, after the other
        # side's rows are scattered back to place, instead of a merge through a permutation
        # (1M rows, a 1% branch over a literal: 1.4 ms against 4)
        t_side, f_side = (_in_place(value, rows, full, domain, node.type)
                          for rows, value, full in sides)
        return _cast(pc.if_else(c, t_side, f_side), node.type)
    return merge_parts(domain, list(sides), node.type)


def _if_else_mergeable(out_type, sides) -> bool:
    """At most one side is compact, and the type is one `scatter` and `if_else` handle."""
    compact = sum(1 for rows, value, full in sides
                  if rows.count and not full and not isinstance(value, pa.Scalar))
    return compact <= 1 and not (pa.types.is_nested(out_type)
                                 or pa.types.is_dictionary(out_type)
                                 or pa.types.is_null(out_type))


def _in_place(value, rows: SelectionVector, full: bool, domain: int, out_type):
    """A branch's value over the whole domain (right at `rows`), or one value for all."""
    if rows.count == 0:
        return null_of(out_type)  # no row takes it: only its type matters
    if isinstance(value, pa.Scalar):
        return value if value.type == out_type else value.cast(out_type)
    if not full:
        value = placed(value, rows, domain)  # if_else reads it only where `rows` are
    return _cast(value, out_type)


CHAIN_MAX_CASES = 2  # cheap cases merged by a chain of if_else (cheaper than Arrow's kernel)
DENSE_MAX_CASES = 8  # up to here Arrow's case_when kernel over dense cases; beyond, the funnel


def case_when(ctx, node, path, sel):
    """Condition i runs only on rows no earlier case took; a null condition is not taken.

    The funnel, as DuckDB's CASE runs: each condition decides only the rows no
    earlier case took (cheap conditions densely, combined with bitmap kernels),
    stopping once none remain; each value runs on its own rows only, and one merge
    (`merge_parts`) puts them together, instead of one full pass per case.

    Cheap cases of a type without one fixed-width buffer (strings, nested) run
    densely up to DENSE_MAX_CASES, merged by a chain of `if_else` (up to
    CHAIN_MAX_CASES) or Arrow's own kernel: their merge copies every value. A
    fixed-width result funnels from two cases on, since its merge writes each value
    once (`place_values`). Measured in CPU time on 2M rows, one thread: 2 cases on
    random conditions funnel 16.1 ms, chain 21.3, kernel 19.5 (eager 19.7); 5 cases
    25.3 against the kernel's 32.4 (eager 31.9).
    """
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
    # on a small domain a kernel's cost is its call, not its rows: Arrow's kernel for any
    # count; on a large one, fixed-width values funnel from two cases on (`_funnels`)
    small = domain < dense_path.MIN_DENSE_ROWS
    few = small or (n_cases <= DENSE_MAX_CASES and not placeable(node.type))
    if few and conds is not None and _all_dense(ctx, node):
        # cheap everywhere: Arrow's own case_when kernel over fully evaluated arguments
        used: dict[int, SelectionVector] = {}
        if path is None:
            struct = yield (conds_node, (0,), sel, None)
        else:  # traced: condition k's value is used on the rows no earlier when took
            struct = yield from _dense_conditions(ctx, sel, path, conds_node, domain)
            used = _record_case_when(ctx, sel, path, struct, n_cases, else_node is not None,
                                     domain)
        values = []
        for i in range(1, len(args)):
            rows = used.get(i, SelectionVector.none(domain)) if path is not None else None
            values.append((yield (args[i], (i,), sel, None, _dense_use(ctx, path, rows))))
        return _cast(_dense_case_when(node, struct, values, n_cases), node.type)
    # the conditions run on the rows of `base` (None: the domain), `remaining` is over them
    base, base_sel = None, sel
    remaining = SelectionVector.all(domain)
    parts = []
    for i in range(n_cases):
        if remaining.count == 0:
            _skip_cases(ctx, sel, path, i, n_cases)
            break
        if conds is not None and _narrow_now(ctx, remaining, n_cases - i):
            base = remaining if base is None else base.compose(remaining)
            if base_sel is not sel:
                ctx.forget(base_sel)  # the columns gathered for the wider rows are spent
            base_sel = _sub_selection(sel, base)
            remaining = SelectionVector.all(base.count)
        if conds is not None:
            c, c_full = yield from _branch(ctx, base_sel, conds[i], (0, i), remaining, path,
                                           f"when {i}", 0, True, narrowed=base is not None)
        else:
            c, c_full = _struct_child(struct_value, i), True
            if path is not None:
                _record(ctx, sel, path, f"when {i}", 0, remaining)
        taken = _picked(remaining, c, c_full)
        if taken.count:
            rows = taken if base is None else base.compose(taken)
            value, full = yield from _branch(ctx, sel, args[1 + i], (1 + i,), rows, path,
                                             f"then {i}", 1 + i, True, cheap_dense=few)
            parts.append((rows, value, full))
            if c_full or isinstance(c, pa.Scalar) or remaining.is_all:
                remaining = remaining.minus(taken)
            else:  # compact: the rest of `remaining` straight from the condition, no mask
                remaining = remaining.scatter_local(pc.invert(_no_nulls(c, False)))
        else:
            _skipped(ctx, sel, path, f"then {i}", 1 + i)
    if base_sel is not sel:
        ctx.forget(base_sel)
    if else_node is not None and remaining.count:
        rest = remaining if base is None else base.compose(remaining)
        value, full = yield from _branch(ctx, sel, else_node, (1 + n_cases,), rest, path,
                                         "else", 1 + n_cases, True, cheap_dense=few)
        parts.append((rest, value, full))
    elif else_node is not None:
        _skipped(ctx, sel, path, "else", 1 + n_cases)
    if len(parts) == 1 and parts[0][0].is_all:
        return _cast(parts[0][1], node.type)
    if _all_full(parts, node.type):
        try:
            return _cast(_chained_parts(parts, domain, node.type), node.type)
        except pa.ArrowNotImplementedError:  # a type if_else has no kernel for
            pass
    return merge_parts(domain, parts, node.type)


NARROWED = "on the rows no case had taken when the funnel narrowed"
NARROW_SHARE = 0.5  # the conditions move to the remaining rows once they are this share
NARROW_MIN_CASES = 16  # ... and this many cases are left to pay for gathering their columns


def _narrow_now(ctx, remaining: SelectionVector, cases_left: int) -> bool:
    """Whether the later conditions should run on the remaining rows only, as DuckDB's
    funnel narrows its selection: a cheap condition otherwise runs on every row of the
    domain, taken or not. Measured in CPU time on 2M rows, one thread: 100 cases 183-241
    -> 158-166 ms; 20 cases narrowed with 4 or more left took 5% longer (52 -> 54.4 ms),
    so only a long tail of cases narrows.

    Not inside a branch that runs densely while traced: the rows a form's value is used
    for (`ctx.run.used`) are over its whole domain.
    """
    return cases_left >= NARROW_MIN_CASES \
        and remaining.count <= NARROW_SHARE * remaining.length \
        and remaining.count >= dense_path.MIN_DENSE_ROWS \
        and (ctx.run is None or ctx.run.used is None)


def _all_full(parts, out_type) -> bool:
    """Every branch ran on the whole domain (or is one value), and `if_else` takes the type."""
    return len(parts) > 1 and all(full or isinstance(value, pa.Scalar)
                                  for _, value, full in parts) \
        and not (pa.types.is_nested(out_type) or pa.types.is_dictionary(out_type)
                 or pa.types.is_null(out_type))


def _chained_parts(parts, domain: int, out_type):
    """Branches computed on every row, merged as Arrow's kernels would: one `if_else` per
    branch on its rows (disjoint), instead of compacting each and taking through a
    permutation (for strings, that copies every value twice)."""
    covered = sum(rows.count for rows, _, _ in parts) == domain
    result = _as_type(parts[-1][1], out_type) if covered else null_of(out_type)
    for rows, value, _ in reversed(parts[:-1] if covered else parts):
        result = pc.if_else(rows.mask, _as_type(value, out_type), result)
    return result


def _as_type(value, out_type):
    return value if value.type == out_type else value.cast(out_type)


def _dense_conditions(ctx, sel, path, conds_node, domain: int):
    """case_when's conditions, each on every row and used on the rows that reached its
    `when` (the rows no earlier condition took), built into the struct Arrow's kernel reads."""
    remaining = SelectionVector.all(domain)
    values = []
    for i, cond in enumerate(conds_node.args):
        value = yield (cond, (0, i), sel, None, _dense_use(ctx, path, remaining))
        values.append(value)
        remaining = remaining.minus(_picked(remaining, value, True))
    return conds_node.function(values, conds_node.options, conds_node.kernel)


def _skip_cases(ctx, sel, path, first: int, n_cases: int) -> None:
    """Record cases `first`.. as run on no rows: earlier cases took every row."""
    for j in range(first, n_cases):
        _skipped(ctx, sel, path, f"when {j}", 0)
        _skipped(ctx, sel, path, f"then {j}", 1 + j)


def _record_case_when(ctx, sel, path, struct, n_cases: int, has_else: bool,
                      domain: int) -> dict[int, SelectionVector]:
    """The branch rows of a case_when that ran densely, recorded as the lazy loop would;
    returns the rows each value argument (by index) was used for."""
    remaining = SelectionVector.all(domain)
    used: dict[int, SelectionVector] = {}
    for i in range(n_cases):
        if remaining.count == 0:
            _skip_cases(ctx, sel, path, i, n_cases)
            break
        _record(ctx, sel, path, f"when {i}", 0, remaining)
        taken = _picked(remaining, _struct_child(struct, i), True)
        if taken.count:
            _record(ctx, sel, path, f"then {i}", 1 + i, taken)
            used[1 + i] = taken
            remaining = remaining.minus(taken)
        else:
            _skipped(ctx, sel, path, f"then {i}", 1 + i)
    if has_else and remaining.count:
        _record(ctx, sel, path, "else", 1 + n_cases, remaining)
        used[1 + n_cases] = remaining
    elif has_else:
        _skipped(ctx, sel, path, "else", 1 + n_cases)
    return used


def _dense_case_when(node, struct, values, n_cases: int):
    """A chain of if_else where it applies and is faster, else Arrow's case_when kernel."""
    chained = case_when_chain(struct, values, node.type) if n_cases <= CHAIN_MAX_CASES else None
    if chained is not None:
        return chained
    return node.function([struct, *values], node.options, node.kernel)


def coalesce(ctx, node, path, sel):
    """Argument i runs only on the rows where every earlier argument was null."""
    domain = ctx.size(sel)
    args = node.args
    if _all_dense(ctx, node):  # cheap everywhere: Arrow's own coalesce
        values = []
        pending = SelectionVector.all(domain)  # the rows where every argument so far was null
        for i in range(len(args)):
            use = _dense_use(ctx, path, pending) if i else None
            values.append((yield (args[i], (i,), sel, None, use)))
            if path is not None:
                pending = _still_null(pending, values[-1], domain)
        if path is not None:
            _record_coalesce(ctx, sel, path, values, domain)
        return _cast(node.function(values, node.options, node.kernel), node.type)
    everything = SelectionVector.all(domain)
    current, _ = yield from _branch(ctx, sel, args[0], (0,), everything, path, "arg 0", 0)
    # the rows still waiting for a value, decided from the arguments themselves: a
    # merged dictionary would re-encode a null entry (a value to Arrow) as a null index
    pending = None
    for i in range(1, len(args)):
        if (_decided(current) if pending is None else pending.count == 0):
            for j in range(i, len(args)):
                _skipped(ctx, sel, path, f"arg {j}", j)
            break
        if pending is None and (isinstance(current, pa.Scalar)
                                or logical_null_count(current) == len(current)):
            value, _ = yield from _branch(ctx, sel, args[i], (i,), everything, path,
                                          f"arg {i}", i)
            current = value if isinstance(current, pa.Scalar) else _coalesce_all_null(value, domain)
            continue
        rows = pending if pending is not None else SelectionVector.from_mask(null_rows(current))
        value, full = yield from _branch(ctx, sel, args[i], (i,), rows, path,
                                         f"arg {i}", i, True)
        if not full:  # back at its rows, null elsewhere: coalesce only looks at the null rows
            value = spread(value, rows.indices, domain)
        if isinstance(value, pa.Scalar) and pa.types.is_dictionary(current.type):
            # only the pending rows: `current` may hold null indices that were values
            value = spread(pa.repeat(value, rows.count), rows.indices, domain)
        current = pc.coalesce(current, _cast(value, current.type))
        if isinstance(value, pa.Scalar):
            pending = rows if not value.is_valid else SelectionVector.none(domain)
        else:
            pending = rows.and_mask(null_rows(value))
    return _cast(current, node.type)


def choose(ctx, node, path, sel):
    """Value i runs only on the rows whose index is i; a null index gives null.

    An index out of range is Arrow's error, at the first such row, before any
    value runs (Arrow checks the indices first too).
    """
    index_node, options = node.args[0], node.args[1:]
    domain = ctx.size(sel)
    index = yield (index_node, (0,), sel, None)
    if isinstance(index, pa.Scalar):
        picked = index.as_py() if index.is_valid else None
        if picked is not None and not 0 <= picked < len(options):
            raise kernel_error(pa.ArrowIndexError(f"choose: index {picked} out of range"),
                               node, (), ctx.original_row(sel, 0))
        value = null_of(node.type)
        for k, option in enumerate(options):
            if k == picked:
                value, _ = yield from _branch(ctx, sel, option, (k + 1,),
                                              SelectionVector.all(domain), path,
                                              f"value {k}", k + 1)
            else:
                _skipped(ctx, sel, path, f"value {k}", k + 1)
        return _cast(value, node.type) if not isinstance(value, pa.Scalar) else value
    outside = pc.or_(pc.less(index, 0), pc.greater_equal(index, len(options)))
    if pc.any(outside).as_py():
        row = pc.index(pc.fill_null(outside, False), True).as_py()
        raise kernel_error(
            pa.ArrowIndexError(f"choose: index {index[row].as_py()} out of range"),
            node, (), ctx.original_row(sel, row))
    parts = []
    for k, option in enumerate(options):
        rows = SelectionVector.from_mask(_no_nulls(pc.equal(index, k), False))
        value, full = yield from _branch(ctx, sel, option, (k + 1,), rows, path, f"value {k}",
                                         k + 1, True)
        parts.append((rows, value, full))
    return merge_parts(domain, parts, node.type)


def _record_coalesce(ctx, sel, path, values, domain: int) -> None:
    """Argument i's rows: where every earlier argument was null (as the lazy loop records)."""
    remaining = SelectionVector.all(domain)
    for i, value in enumerate(values):
        if i and remaining.count == 0:
            for j in range(i, len(values)):
                _skipped(ctx, sel, path, f"arg {j}", j)
            return
        _record(ctx, sel, path, f"arg {i}", i, remaining)
        remaining = _still_null(remaining, value, domain)


def _still_null(rows: SelectionVector, value, domain: int) -> SelectionVector:
    """The rows of `rows` where `value` (a coalesce argument, whole domain) is null."""
    if isinstance(value, pa.Scalar):
        return rows if not value.is_valid else SelectionVector.none(domain)
    if logical_null_count(value) < len(value):
        return rows.and_mask(null_rows(value))
    return rows


def _coalesce_all_null(value, domain):
    return value if not isinstance(value, pa.Scalar) else pa.repeat(value, domain)


def _decided(value) -> bool:
    """No nulls left for later coalesce arguments to fill."""
    if isinstance(value, pa.Scalar):
        return value.is_valid
    return logical_null_count(value) == 0


def _undecided(left: pa.Array, stop_value: bool) -> pa.Array:
    """The rows where the left side of and/or does not decide (null does not)."""
    return _no_nulls(pc.invert(left) if stop_value else left, True)


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
            right, _ = yield from _branch(ctx, sel, right_node, (1,),
                                          SelectionVector.all(domain), path, "right", 1)
            return kleene_kernel(left, right)
        if _all_dense(ctx, node):  # cheap right side: every row, no masks
            undecided = None
            if path is not None:
                undecided = SelectionVector.from_mask(_undecided(left, stop_value))
                _record(ctx, sel, path, "right", 1, undecided)
            right = yield (right_node, (1,), sel, None, _dense_use(ctx, path, undecided))
            return kleene_kernel(left, right)
        rows = SelectionVector.from_mask(_undecided(left, stop_value))
        if rows.count == 0:
            _skipped(ctx, sel, path, "right", 1)
            return left
        right, full = yield from _branch(ctx, sel, right_node, (1,), rows, path, "right", 1, True,
                                         threshold=dense_path.KLEENE_DENSE_THRESHOLD)
        if not full:  # null where the left side decided: Kleene logic ignores it there
            right = spread(right, rows.indices, domain)
        return kleene_kernel(left, right)

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
                               node, (), None)
        return
    if struct_value.null_count:
        position = pc.index(pc.is_null(struct_value), True).as_py()
        raise kernel_error(
            pa.ArrowInvalid("cond struct must not have top-level nulls"),
            node, (), ctx.original_row(sel, position))


FORMS = {
    "if_else": if_else,
    "case_when": case_when,
    "coalesce": coalesce,
    "choose": choose,
    "and_kleene": _kleene(pc.and_kleene, False),
    "or_kleene": _kleene(pc.or_kleene, True),
}
