"""case_when({c1, c2, ...}, v1, v2, ..., [else]): condition i runs only on rows no earlier
case took; a null condition is not taken.

How a case_when runs is chosen once per bound tree (`case_when_method`, as DataFusion's
CaseExpr picks its EvalMethod in `try_new`), and refined per batch only by what the batch
decides (its size, whether its casts' values are in range):

- ONE_KERNEL: every condition and value is cheap (and cannot fail, or fails only by
  range-checked casts): all are computed on every row and merged once, by a chain of
  `if_else` (up to CHAIN_MAX_CASES) or Arrow's own kernel. On a large domain only for a
  few cases of a type without one fixed-width buffer (strings, nested): their merge copies
  every value anyway; a fixed-width result funnels, since its merge writes each value once.
- FUNNEL, as DuckDB's CASE runs: each condition decides only the rows no earlier case
  took (cheap conditions densely, combined with bitmap kernels), stopping once none
  remain; each value runs on its own rows only, and one merge (`merge_parts`) puts them
  together. A long tail of cases narrows: the later conditions run on the remaining rows.
- STRUCT_FUNNEL: the conditions are one computed struct, not a `make_struct` of
  conditions: it is evaluated, then its fields are read as the funnel goes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ...functions.select_values import if_else_values
from ...observe import MaskOnRead
from .. import dense_path
from ..case_chain import between_constants, case_when_chain
from ..gather_scatter import merge_parts, null_of
from ..kernel_errors import kernel_error
from ..place_values import placeable
from ..selection import SelectionVector
from ..value_type import as_type
from .branch import (
    NARROWED,
    Branch,
    BranchPolicy,
    all_dense,
    form_child_request,
    no_nulls,
    picked,
    record,
    run_branch,
    skipped,
    sub_selection,
)
from .requests import ChildRequest

__all__ = ["CHAIN_MAX_CASES", "DENSE_MAX_CASES", "NARROWED", "CaseStrategy", "CaseWhenMethod",
           "case_when", "case_when_method"]

CHAIN_MAX_CASES = 2  # cheap cases merged by a chain of if_else (cheaper than Arrow's kernel)
DENSE_MAX_CASES = 8  # up to here Arrow's case_when kernel over dense cases; beyond, the funnel
NARROW_SHARE = 0.5  # the conditions move to the remaining rows once they are this share
NARROW_MIN_CASES = 16  # ... and this many cases are left to pay for gathering their columns


class CaseStrategy(enum.Enum):
    ONE_KERNEL = "every case cheap: all computed, one merge"
    FUNNEL = "each condition on the rows no earlier case took"
    STRUCT_FUNNEL = "a computed struct of conditions, its fields read by the funnel"


@dataclass(frozen=True, slots=True)
class CaseWhenMethod:
    """How one case_when of a bound tree runs (see the module's docstring)."""

    strategy: CaseStrategy
    n_cases: int
    has_else: bool
    kernel_on_large_domains: bool  # ONE_KERNEL on large domains too (few, not placeable)
    chained: bool  # ONE_KERNEL merges by a chain of if_else, not Arrow's kernel

    @property
    def else_index(self) -> int | None:
        return 1 + self.n_cases if self.has_else else None


def case_when_method(node, density) -> CaseWhenMethod:
    """The method of `node`, from its shape and its children's density facts."""
    conds_node = node.args[0]
    if conds_node.is_call and conds_node.name == "make_struct":
        n_cases = len(conds_node.args)
        cheap = id(node) in density.cheap_forms
        strategy = CaseStrategy.ONE_KERNEL if cheap else CaseStrategy.FUNNEL
    else:
        struct_type = conds_node.type
        n_cases = struct_type.num_fields if struct_type is not None \
            and pa.types.is_struct(struct_type) else 0
        strategy = CaseStrategy.STRUCT_FUNNEL
    return CaseWhenMethod(
        strategy=strategy, n_cases=n_cases, has_else=len(node.args) > 1 + n_cases,
        kernel_on_large_domains=n_cases <= DENSE_MAX_CASES and not placeable(node.type),
        chained=n_cases <= CHAIN_MAX_CASES)


def case_when(ctx, node, path, sel):
    method = ctx.case_methods[id(node)]
    domain = ctx.size(sel)
    # on a small domain a kernel's cost is its call, not its rows: Arrow's kernel for any
    # count of cheap cases; on a large one only as the method allows
    few = domain < dense_path.MIN_DENSE_ROWS or method.kernel_on_large_domains
    if method.strategy is CaseStrategy.ONE_KERNEL and few and all_dense(ctx, node):
        return (yield from _one_kernel(ctx, node, path, sel, method, domain))
    return (yield from _funnel(ctx, node, path, sel, method, domain, few))


def _one_kernel(ctx, node, path, sel, method: CaseWhenMethod, domain: int):
    """Every condition and value on every row, merged once. Traced, the loop that asks for
    the conditions records each case's rows (the rows no earlier case took), as the funnel
    would, and marks each value used on exactly the rows its case took."""
    args = node.args
    conds_node = args[0]
    if path is None:
        struct = yield ChildRequest(conds_node, (0,), sel)
        values = []
        for i in range(1, len(args)):
            values.append((yield ChildRequest(args[i], (i,), sel)))
        return as_type(_merged(node, struct, values, method), node.type)
    remaining = SelectionVector.all(domain)  # the rows no case took so far
    used: dict[int, SelectionVector] = {}  # value argument -> the rows its case took
    conditions = []
    recording = True
    for i, cond in enumerate(conds_node.args):
        if recording and remaining.count == 0:
            _skip_cases(ctx, sel, path, i, method.n_cases)
            recording = False  # the later conditions run for the kernel: no row uses them
        if recording:
            record(ctx, sel, path, f"when {i}", 0, remaining)
        value = yield form_child_request(ctx, sel, path, cond, (0, i), remaining)
        conditions.append(value)
        taken = picked(remaining, value, True)
        if recording and taken.count:
            record(ctx, sel, path, f"then {i}", 1 + i, taken)
            used[1 + i] = taken
        elif recording:
            skipped(ctx, sel, path, f"then {i}", 1 + i)
        remaining = remaining.minus(taken)
    if method.has_else and remaining.count:
        record(ctx, sel, path, "else", method.else_index, remaining)
        used[method.else_index] = remaining
    elif method.has_else:
        skipped(ctx, sel, path, "else", method.else_index)
    struct = conds_node.function(conditions, conds_node.options, conds_node.kernel)
    values = []
    for i in range(1, len(args)):
        rows = used[i] if i in used else SelectionVector.none(domain)
        values.append((yield form_child_request(ctx, sel, path, args[i], (i,), rows)))
    return as_type(_merged(node, struct, values, method), node.type)


def _merged(node, struct, values, method: CaseWhenMethod):
    """A chain of if_else where it applies and is faster, else Arrow's case_when kernel."""
    chained = case_when_chain(struct, values, node.type) if method.chained else None
    if chained is not None:
        return chained
    return node.function([struct, *values], node.options, node.kernel)


def _funnel(ctx, node, path, sel, method: CaseWhenMethod, domain: int, few: bool):
    args = node.args
    conds_node = args[0]
    if method.strategy is CaseStrategy.STRUCT_FUNNEL:
        # a struct computed some other way: evaluate it, then read its fields lazily
        struct_value = yield ChildRequest(conds_node, (0,), sel)
        _check_struct(struct_value, node, ctx, sel)
        conds = None
        n_cases = struct_value.type.num_fields
    else:
        struct_value = None
        conds = conds_node.args
        n_cases = method.n_cases
    else_node = args[1 + n_cases] if len(args) > 1 + n_cases else None
    values_policy = BranchPolicy(keep_whole=True, cheap_dense=few)
    # the conditions run on the rows of `base` (None: the domain), `remaining` is over them
    base, base_sel = None, sel
    remaining = SelectionVector.all(domain)
    parts = []
    # traced: `remaining` as the trace keeps it, a link to the `when` before (None: every
    # row); False once a step is not `remaining` less a `then` mask (narrowed, a struct)
    link = None if path is not None and conds is not None else False
    for i in range(n_cases):
        if remaining.count == 0:
            _skip_cases(ctx, sel, path, i, n_cases)
            break
        if conds is not None and _narrow_now(ctx, remaining, n_cases - i):
            base = remaining if base is None else base.compose(remaining)
            if base_sel is not sel:
                ctx.forget(base_sel)  # the columns gathered for the wider rows are spent
            base_sel = sub_selection(sel, base)
            remaining = SelectionVector.all(base.count)
            link = False
        if conds is not None:
            when = Branch(conds[i], (0, i), f"when {i}", 0)
            policy = _NARROWED_CONDITION if base is not None else _CONDITION
            recorded = None if link is None or link is False else \
                SelectionVector.made_on_read(domain, remaining.count, link)
            c, c_full = yield from run_branch(ctx, base_sel, path, when, remaining, policy,
                                              recorded)
        else:
            c, c_full = _struct_child(struct_value, i), True
            if path is not None:
                record(ctx, sel, path, f"when {i}", 0, remaining)
        taken = picked(remaining, c, c_full)
        if taken.count:
            rows = taken if base is None else base.compose(taken)
            then = Branch(args[1 + i], (1 + i,), f"then {i}", 1 + i)
            value, full = yield from run_branch(ctx, sel, path, then, rows, values_policy)
            parts.append((rows, value, full))
            if link is not False:
                link = False if taken._mask is None else \
                    MaskOnRead(_less_taken, (link, taken._mask), domain)
            if c_full or isinstance(c, pa.Scalar) or remaining.is_all:
                remaining = remaining.minus(taken)
            else:  # compact: the rest of `remaining` straight from the condition, no mask
                remaining = remaining.scatter_local(pc.invert(no_nulls(c, False)))
        else:
            skipped(ctx, sel, path, f"then {i}", 1 + i)
    if base_sel is not sel:
        ctx.forget(base_sel)
    if else_node is not None and remaining.count:
        rest = remaining if base is None else base.compose(remaining)
        other = Branch(else_node, (1 + n_cases,), "else", 1 + n_cases)
        value, full = yield from run_branch(ctx, sel, path, other, rest, values_policy)
        parts.append((rest, value, full))
    elif else_node is not None:
        skipped(ctx, sel, path, "else", 1 + n_cases)
    if len(parts) == 1 and parts[0][0].is_all:
        return as_type(parts[0][1], node.type)
    if _all_full(parts, node.type):
        try:
            return as_type(_chained_parts(parts, domain, node.type), node.type)
        except pa.ArrowNotImplementedError:  # a type if_else has no kernel for
            pass
    return merge_parts(domain, parts, node.type)


def _less_taken(before: pa.Array | None, taken: pa.Array) -> pa.Array:
    """A funnel's `when i` rows: its `when i-1` rows (None: every row) less the rows
    `then i-1` took (masks over the domain, without nulls)."""
    return pc.invert(taken) if before is None else pc.and_not(before, taken)


_CONDITION = BranchPolicy(keep_whole=True)
_NARROWED_CONDITION = BranchPolicy(keep_whole=True, narrowed=True)


def _narrow_now(ctx, remaining: SelectionVector, cases_left: int) -> bool:
    """Whether the later conditions should run on the remaining rows only, as DuckDB's
    funnel narrows its selection: a cheap condition otherwise runs on every row of the
    domain, taken or not. Only a long tail of cases narrows: gathering their columns costs
    more than a few conditions save (docs/benchmarks.md).

    Not inside a branch that runs densely while traced: the rows a form's value is used
    for (`ctx.run.used`) are over its whole domain.
    """
    return cases_left >= NARROW_MIN_CASES \
        and remaining.count <= NARROW_SHARE * remaining.length \
        and remaining.count >= dense_path.MIN_DENSE_ROWS \
        and (ctx.run is None or ctx.run.uses_all)


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
    result = as_type(parts[-1][1], out_type) if covered else null_of(out_type)
    for rows, value, _ in reversed(parts[:-1] if covered else parts):
        value = as_type(value, out_type)
        mask = rows.mask
        chosen = between_constants(mask, value, result, out_type)
        result = if_else_values(mask, value, result) if chosen is None else chosen
    return result


def _skip_cases(ctx, sel, path, first: int, n_cases: int) -> None:
    """Record cases `first`.. as run on no rows: earlier cases took every row."""
    for j in range(first, n_cases):
        skipped(ctx, sel, path, f"when {j}", 0)
        skipped(ctx, sel, path, f"then {j}", 1 + j)


def _struct_child(struct_value, i):
    if isinstance(struct_value, pa.Scalar):
        return struct_value[i]
    return pc.struct_field(struct_value, [i])


def _check_struct(struct_value, node, ctx, sel):
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
