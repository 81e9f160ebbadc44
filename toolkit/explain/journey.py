"""`p.explain_row("t", row)` and `p.why_not(predicate)`: where a source row goes in a plan.

Re-evaluated on demand, nothing recorded on normal runs (as NedExplain and
Breadcrumb do): for each operator on the path from the row's scan to the root,
its output is computed with the source as it is and with that one row left out;
the rows of the first that the second lacks are the row as it is there (at an
aggregate: its group's row), and the row is kept there exactly when the two
outputs differ. At the first operator that no longer keeps it, the operator
says why: a filter with the predicate's RowStory for the row as it reached it,
a join with the row's partners (every key, the residual condition) or why it has
none (a null key, no row with its keys, or partners that were themselves dropped:
one step into the first partner's journey), a limit with the row's position. The
plan is the one the user wrote, not the optimized one.

Up to the first operator that mixes rows (an aggregate, a sort, a limit, the far
side of an outer join), the row's part of an output is the output over that row
alone, so those operators run on one row, and at each join the other input reads
only the rows that can pair with it: the row's keys carried down to its sources
(`carry_down`, exact); at a join without keys (a comma join), the keys of the filter
above (`filter_keys`), which key the comma joins inside the other input too; at a
correlated scalar subquery, the rows its aggregate runs over with the row's values. A
filter that drops several rows of the row is told for the one that passes the most of
its terms. An other input still reading a source whole (an uncorrelated subquery) runs
once, optimized. From there on, each operator runs over its input's output with and
without the row, so the plan below runs once each way; reading only the rows read
(`mixing_reads_all=False`), an aggregate whose value an operator above judges (a
HAVING) reads its group's rows first.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ExprscopeError, PlanError
from ..execution import evaluate
from ..functions.facts import conjuncts
from ..model.builders import and_, call, literal, or_
from ..model.expression import Parameter, as_expression
from ..model.field_ref import FieldRef
from ..plan import Projection, TableScan, create_physical_plan
from ..plan import optimize as optimize_plan
from ..plan.columns import columns_of, qualify
from ..plan.errors import ColumnNotFoundError
from ..plan.float_keys import IEEE
from ..plan.logical_plan import correlated_aggregate
from ..plan.sources import TableSource
from ..sql.parse import parse
from ..support.late import provide
from ..support.visible_text import visible
from .carry_down import carry_down, matching_rows, source_predicate
from .expression_text import TERM_CHARS, cut_between_tokens
from .filter_keys import FilterKeys, filter_keys, implied_keys
from .join_partners import (
    JOIN_KINDS,
    JoinSides,
    join_sides,
    key_text,
    other_input,
    partner_rows,
    reduction_predicate,
    row_condition,
)
from .journey_records import JoinPartners, RowJourney, SourceRead, Stop, WhyNot
from .rows import MAX_EXPLAINED, RowNotFoundError, pick_rows
from .story import explain_row
from .value_text import value_text

__all__ = ["explain_plan_row", "why_not"]

_SHOWN = MAX_EXPLAINED


def _scan_of(p, relation: str):
    scans = [n for n in p.walk() if isinstance(n, TableScan) and n.relation == relation]
    if not scans:
        names = sorted({n.relation for n in p.walk() if isinstance(n, TableScan)})
        raise PlanError(f"explain_row: the plan reads no source named {visible(relation)!r} "
                        f"(it reads {', '.join(visible(n) for n in names)})")
    return scans[0]


def _source_table(scan) -> pa.Table:
    source = scan.source
    table = getattr(source, "table", None)
    if isinstance(table, pa.Table):
        return table
    return pa.Table.from_batches(list(source.batches()), schema=source.schema)


def _with_source(p, scan, table: pa.Table):
    """`p` with `scan` reading `table` instead (every other node as it is)."""
    return _with_sources(p, {id(scan): TableScan(scan.relation, TableSource(table),
                                                 scan.projection)})


def _collect(p) -> pa.Table:
    table = create_physical_plan(p).collect()
    return table.rename_columns(p.schema.qualified_names)


def _collect_optimized(p) -> pa.Table:
    """`p`'s output, run as the optimizer plans it (the same rows; filters pushed down)."""
    table = create_physical_plan(optimize_plan(p)).collect()
    return table.rename_columns(p.schema.qualified_names)


def _without_rows(table: pa.Table, rows: pa.Table) -> pa.Table:
    """`table` less one occurrence of each of `rows` (equal in every column, a null equal
    to a null). Only the rows whose every value occurs in `rows` are compared whole."""
    if rows.num_rows == 0:
        return table
    mask = None
    for name in table.column_names:
        try:
            values = pc.unique(rows.column(name).combine_chunks())
            found = pc.is_in(table.column(name), value_set=values, skip_nulls=False)
        except (pa.ArrowNotImplementedError, pa.ArrowTypeError):
            continue  # a nested column: compared whole below
        mask = found if mask is None else pc.and_(mask, found)
    candidates = pa.array(range(table.num_rows), pa.int64()) if mask is None else \
        pc.indices_nonzero(mask).cast(pa.int64())
    found = pa.table({"k": _row_keys(table.take(candidates)), "i": candidates}) \
        .sort_by([("k", "ascending"), ("i", "ascending")])
    keys = found.column("k").combine_chunks()
    n = len(keys)
    if n == 0:
        return table
    # each candidate's occurrence number among the candidates with its key
    starts = pc.not_equal(keys.slice(1), keys.slice(0, n - 1))
    first = pa.concat_arrays([pa.array([True]), starts.cast(pa.bool_())])
    group = pc.subtract(pc.cumulative_sum(first.cast(pa.int64())), 1)
    begin = pc.indices_nonzero(first).cast(pa.int64()).take(group)
    occurrence = pc.subtract(pa.array(range(n), pa.int64()), begin)
    counts = pc.value_counts(_row_keys(rows)).flatten()
    wanted = pa.table({"k": counts[0], "want": counts[1]})
    numbered = pa.table({"k": keys, "i": found.column("i").combine_chunks(),
                         "o": occurrence}).join(wanted, "k", join_type="left outer")
    drop = numbered.filter(pc.less(numbered.column("o"),
                                   pc.fill_null(numbered.column("want"), 0))).column("i")
    keep = pc.invert(pc.is_in(pa.array(range(table.num_rows), pa.int64()),
                              value_set=drop.combine_chunks()))
    return table.filter(keep)


def _row_keys(table: pa.Table) -> pa.Array:
    """One string per row that equal rows share (a null differs from every value)."""
    parts = []
    for column in table.columns:
        try:
            text = pc.cast(column, pa.string())
        except (pa.ArrowException, NotImplementedError):
            text = pa.chunked_array([pa.array([repr(v) for v in column.to_pylist()],
                                              pa.string())])
        tagged = pc.binary_join_element_wise(pa.scalar("v"), text, "")
        parts.append(pc.fill_null(tagged, "n"))
    if not parts:
        return pa.array([""] * table.num_rows, pa.string())
    joined = pc.binary_join_element_wise(*parts, "\x1f") if len(parts) > 1 else parts[0]
    return joined.combine_chunks() if isinstance(joined, pa.ChunkedArray) else joined


def _minus(a: pa.Table, b: pa.Table) -> tuple[pa.Table, int]:
    """The rows of `a` that `b` lacks (as a multiset): every row of theirs (the occurrences
    `a` has beyond `b`'s not told apart), and how many."""
    ka, kb = _row_keys(a), _row_keys(b)
    ca = pc.value_counts(ka).flatten()
    cb = pc.value_counts(kb).flatten()
    left = pa.table({"k": ca[0], "na": ca[1]})
    right = pa.table({"k": cb[0], "nb": cb[1]})
    joined = left.join(right, "k", join_type="left outer")
    more = pc.subtract(joined["na"], pc.fill_null(joined["nb"], 0))
    extra = joined.filter(pc.greater(more, 0))
    count = int(pc.sum(pc.subtract(extra["na"], pc.fill_null(extra["nb"], 0))).as_py() or 0)
    rows = a.filter(pc.is_in(ka, value_set=extra["k"].combine_chunks()))
    return rows, count


def _path_to(p, scan) -> list:
    """The nodes from `scan` up to the root `p`."""
    parent: dict[int, object] = {}
    for node in p.walk():
        for c in node.children:
            parent.setdefault(id(c), node)
    path, node = [scan], scan
    while node is not p:
        node = parent[id(node)]
        path.append(node)
    return path


def _places(path: list) -> list[tuple[int, ...]]:
    """Each node's child indices from the root, for `path` (scan first, root last)."""
    places = [()]
    for child, parent in zip(reversed(path[:-1]), reversed(path[1:])):
        index = next(i for i, c in enumerate(parent.children) if c is child)
        places.append(places[-1] + (index,))
    return list(reversed(places))


def _kind(node) -> str:
    return type(node).__name__


def _first_index(table: pa.Table, row: pa.Table) -> int | None:
    """Where the first row of `row` stands in `table` (equal in every column), or None."""
    if row.num_rows == 0 or table.num_rows == 0:
        return None
    keys = _row_keys(table)
    target = _row_keys(row.slice(0, 1))[0]
    found = pc.index(keys, target).as_py()
    return None if found is None or found < 0 else found


def explain_plan_row(p, relation: str, row, limit: int = _SHOWN, read_rows=None,
                     mixing_reads_all: bool = True) -> RowJourney:
    """The journey of row `row` (a number or a predicate) of source `relation` through `p`.

    `read_rows(scan, predicate)` reads the rows of another source where `predicate`
    (over its own columns) holds: the partners a join needs (by default, filtered
    from the source in memory). With `mixing_reads_all=False`, operators that mix
    rows (an aggregate, a sort, a limit, an outer join's far side) run over the rows
    read for the row too, instead of over every source in full.
    """
    scan = _scan_of(p, relation)
    table = _source_table(scan)
    picked = pick_rows(table, row, who=f"explain_row({relation!r})", limit=1)
    number = picked.rows[0]
    journey = _journey(p, scan, table, number, read_rows, mixing_reads_all)
    if picked.predicate is not None and picked.matched > 1:
        journey = replace(journey, why=journey.why + f" (the first of {picked.matched:,} rows "
                          f"matching {picked.predicate})")
    return journey


def _read_in_memory(scan, predicate) -> pa.Table:
    table = _source_table(scan)
    return table.take(matching_rows(table, predicate))


def _row_local(node, scan) -> bool:
    """Each output row of `node` comes from one row of the scan's side, and no output row
    exists without one, so the row's part of the output is the output over the row alone
    (an inner or cross join; an outer, semi or anti join seen from its preserved side)."""
    kind = _kind(node)
    if kind in ("TableScan", "Filter", "Projection"):
        return True
    if kind in JOIN_KINDS:
        sides = join_sides(node, scan)
        if sides.how in ("inner", "cross"):
            return True
        if sides.ours_left:
            return sides.how in ("left", "semi", "anti")
        return sides.how == "right"
    return False


def _with_sources(node, swaps: dict[int, object]):
    """`node` with every scan named in `swaps` (by id) replaced."""
    done: dict[int, object] = {}
    stack = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if id(current) in swaps:
            done[id(current)] = swaps[id(current)]
            continue
        if not expanded:
            stack.append((current, True))
            stack.extend((c, False) for c in current.children)
            continue
        kids = [done[id(c)] for c in current.children]
        same = all(k is c for k, c in zip(kids, current.children))
        done[id(current)] = current if same else current.with_new_children(kids)
    return done[id(node)]


def _restrict(other, predicate, swaps: dict[int, object], read, reads: dict,
              implied: dict | None = None) -> None:
    """Replace each scan of `other` by the rows of its source that can meet `predicate`
    (over `other`'s output), carried down exactly; then, inside `other`, a join whose one
    input reads only such rows restricts the other input to the rows with its keys
    (unless that input keeps its unmatched rows), until nothing changes. A join without
    keys under a filter takes the filter's equalities as keys (`filter_keys.implied_keys`),
    and `implied` gives more (from the filter above `other`). A scan nothing reaches stays
    whole."""
    if predicate is None:
        return
    _restrict_scans(other, predicate, swaps, read, reads)
    implied = dict(implied or {})
    for node in other.walk():
        if _kind(node) == "Filter":
            implied.update(implied_keys(node.input, node.predicate)[0])
    changed = True
    while changed:
        changed = False
        for join in other.walk():
            for bounded, free, pairs in _keyed_inputs(join, implied.get(id(join), ())):
                if not _all_swapped(bounded, swaps) or _all_swapped(free, swaps):
                    continue
                rows = _collect(_with_sources(bounded, swaps))
                keys = JoinSides("inner", True, pairs, None, 1, join.float_keys)
                changed |= _restrict_scans(free, reduction_predicate(keys, rows), swaps,
                                           read, reads)


def _keyed_inputs(join, implied=()) -> list[tuple]:
    """(an input, another, key pairs from the first's columns to the second's) for each way
    the first's rows restrict the second's at `join`: both ways by its keys (`implied` for a
    join without), but not into an input that keeps its unmatched rows; at a correlated
    scalar subquery, from its input to the rows its aggregate runs over."""
    if _kind(join) == "ScalarSubquery" and join.correlation:
        return [(join.children[0], correlated_aggregate(join.subquery).input,
                 tuple(join.correlation))]
    if _kind(join) not in JOIN_KINDS:
        return []
    on = tuple(join.on) or tuple(implied)
    return [(join.children[have], join.children[want],
             tuple((lk, rk) if have == 0 else (rk, lk) for lk, rk in on))
            for have, want in ((0, 1), (1, 0)) if on and not _keeps_unmatched(join, want)]


def _all_swapped(node, swaps) -> bool:
    return all(id(n) in swaps for n in node.walk() if isinstance(n, TableScan))


def _keeps_unmatched(join, index: int) -> bool:
    """Whether the join's input `index` reaches its output even without a partner."""
    how = getattr(join, "as_join", join).how
    return how in (("left", "full", "anti") if index == 0 else ("right", "full"))


def _restrict_scans(node, predicate, swaps: dict[int, object], read, reads: dict) -> bool:
    """Swap in the rows of each scan of `node` the predicate reaches (exactly); whether any."""
    any_swapped = False
    for carried in carry_down(node, predicate, exact=True):
        scan = carried.scan
        on_source = source_predicate(carried)
        if on_source is None or id(scan) in swaps:
            continue
        rows = read(scan, on_source)
        reads[scan.relation] = reads.get(scan.relation, 0) + rows.num_rows
        swaps[id(scan)] = TableScan(scan.relation, TableSource(rows), scan.projection)
        any_swapped = True
    return any_swapped


def _journey(p, scan, table: pa.Table, number: int, read=None,
             mixing_reads_all: bool = True) -> RowJourney:
    read = read or _read_in_memory
    path = _path_to(p, scan)
    stops: list[Stop] = []
    here_before = None  # the row as it is at the previous operator (the first few rows)
    every_before = None  # all of its rows there: a filter's story is told for the closest
    part = None  # all of the row's rows there, while every operator keeps rows apart
    dropped, why = None, ""
    places = _places(path)
    alone, told = table.slice(number, 1), number  # `number` moves if its group is read
    swaps: dict[int, object] = {id(scan): TableScan(scan.relation, TableSource(alone),
                                                    scan.projection)}
    reads = {scan.relation: 1}
    outputs = None  # the last operator's output with and without the row, once computed
    input_full = None  # the input of the operator at hand, in full, when computed
    local = True  # every operator so far keeps rows apart: the row alone tells its story
    # (FilterKeys, JoinPartners, the join's step): a comma join paired it with no row of its keys
    missing = near = None  # and what the pairs told instead were read by (None: every row)
    for step, (node, place) in enumerate(zip(path, places)):
        depth = len(place)
        local = local and _row_local(node, scan)
        sides = join_sides(node, scan) if _kind(node) in JOIN_KINDS else None
        other_side = other_input(node, sides) if sides is not None else None
        above = None  # the keys a filter above pairs a keyless join's rows by
        if sides is not None and part is not None and (local or not mixing_reads_all):
            above = filter_keys(path, step, sides)
            before_keys = dict(swaps)
            implied = implied_keys(other_side, path[above.filter_index].predicate) \
                if above is not None else ({}, ())
            _restrict(other_side, _reduction(above.sides if above else sides, part),
                      swaps, read, reads, implied[0])
            if above is not None and here_before is not None and here_before.num_rows:
                partners = _collect(_with_sources(other_side, swaps))
                if partners.num_rows == 0:  # none with its keys: the filter drops every pair,
                    # told over the pairs with the rows sharing one of its keys (or every row)
                    missing = (above, _no_partners(node, above.sides, here_before, partners,
                                                   read, mixing_reads_all), step)
                    swaps.clear()
                    swaps.update(before_keys)
                    near = _one_key(above.sides, part)
                    _restrict(other_side, near, swaps, read, reads, implied[0])
                    above = None
        group_read = False
        try:
            if sides is not None and (local or not mixing_reads_all):
                _run_whole_once(other_side, swaps)
            if not local and not mixing_reads_all and _kind(node) == "Aggregate" and \
                    node.group_exprs and every_before is not None and \
                    any(_kind(n) in ("Filter", *JOIN_KINDS) for n in path[step + 1:]):
                read_before = table
                table, number = _read_group(node, scan, table, number, every_before, swaps,
                                            read, reads)
                group_read = table is not read_before
            if local:  # output(all) less output(all but the row) is output(the row alone)
                full = _collect(_with_sources(node, swaps))
                less = full.slice(0, 0)
                part = full
            elif mixing_reads_all:  # the operator over its input with and without the row
                child = path[path.index(node) - 1]
                if outputs is None:  # the first such operator: its input, in full
                    whole = _collect_optimized(child)
                    if part is not None:  # the input kept rows apart: less the row's rows
                        outputs = (whole, _without_rows(whole, part))
                    else:
                        without = pa.concat_tables([table.slice(0, number),
                                                    table.slice(number + 1)])
                        outputs = (whole,
                                   _collect_optimized(_with_source(child, scan, without)))
                input_full = outputs[0]
                full = _collect(_over(node, child, outputs[0]))
                less = _collect(_over(node, child, outputs[1]))
                outputs = (full, less)
            else:  # over the rows read: the row's, its partners', none other
                rest = {k: v for k, v in swaps.items() if k != id(scan)}
                every = {**rest, id(scan): TableScan(scan.relation, TableSource(table),
                                                     scan.projection)}
                without = pa.concat_tables([table.slice(0, number), table.slice(number + 1)])
                full = _collect(_with_sources(node, every))
                less = _collect(_with_sources(node, {**rest, id(scan): TableScan(
                    scan.relation, TableSource(without), scan.projection)}))
                part = full
        except ExprscopeError as exc:
            note = f"fails here: {visible(str(exc).splitlines()[0])}"
            stops.append(Stop(depth, visible(node.label()), _kind(node), False, None, 0, note,
                              at=place))
            dropped, why = visible(node.label()), note
            break
        every, count = _minus(full, less)
        every_gone, lost = _minus(less, full)
        rows, gone = every.slice(0, _SHOWN), every_gone.slice(0, _SHOWN)
        kept = count > 0 or lost > 0
        stop = Stop(depth, visible(node.label()), _kind(node), kept, rows if kept else None,
                    count)
        other = None
        if sides is not None and here_before is not None and here_before.num_rows:
            other = _collect(_with_sources(other_side, swaps) if local or not mixing_reads_all
                             else other_side)
        if not kept:
            stop = replace(_why_dropped(node, stop, every_before, scan, sides, other, read,
                                        mixing_reads_all, input_full), at=place)
            if missing is not None and step == missing[0].filter_index:
                stop = replace(stop, note=f"`{visible(missing[0].terms_text)}` is not true for "
                               f"any of its pairs: {missing[1].why}", partners=missing[1])
            stops.append(stop)
            dropped, why = stop.operator, stop.note
            break
        stop = _kept_note(node, stop, full, here_before, sides, other)
        if group_read:
            stop = replace(stop, note=f"{stop.note}, over every row of the group (read by its "
                           "keys: an operator above judges its value)")
        if above is not None:
            stop = replace(stop, note=_followed_note(above, every_before, stop.count,
                                                     implied[1]))
        elif missing is not None and step == missing[2]:
            stop = replace(stop, note="pairs it with every row of the other input, no pair "
                           "with its keys: none passes the filter above" + (
                               "" if near is None else f"; followed with the {stop.count:,} "
                               f"sharing one of them"))
        if count == 0:  # its only mark here: rows that exist without it (a changed group's)
            stop = replace(stop, note=(stop.note + "; " if stop.note else "") +
                           f"no row here comes from it, but {lost:,} row"
                           f"{'s' if lost != 1 else ''} would be here without it")
        stops.append(replace(stop, at=place))
        here_before = rows if count else gone
        every_before = every if count else every_gone
    kept = dropped is None
    if kept:
        last = stops[-1]
        why = f"kept: it reaches the result as {last.count:,} row{'s' if last.count != 1 else ''}"
    else:  # the operator named as a story quotes a term: its reason follows, not a page
        why = f"dropped at {cut_between_tokens(dropped, TERM_CHARS)}: {why}"
    return RowJourney(scan.relation, told, tuple(stops), kept, dropped, why, p,
                      tuple(SourceRead(r, n) for r, n in reads.items()))


def _reduction(sides: JoinSides, rows: pa.Table):
    """What a row of the other input needs to be a partner of any of `rows`: their keys;
    at a join by a condition alone (a NOT IN), the condition with each row's values put
    in, for a few rows (None: every row can be one)."""
    found = reduction_predicate(sides, rows)
    if found is not None or sides.condition is None or not 0 < rows.num_rows <= _SHOWN:
        return found
    each = [row_condition(sides, rows.slice(i, 1)) for i in range(rows.num_rows)]
    return each[0] if len(each) == 1 else or_(*each)


def _run_whole_once(other, swaps: dict) -> None:
    """Run a join's other input once, as the optimizer plans it, when it still reads a
    source whole (an uncorrelated subquery, a side no key reached): its rows stand for it
    at every operator above, so the source is read once, and its comma joins run as the
    joins they mean, not as the cross products they are written with."""
    if id(other) in swaps or _all_swapped(other, swaps):
        return
    swaps[id(other)] = _standing_for(other, _collect_optimized(_with_sources(other, swaps)))


def _one_key(sides: JoinSides, rows: pa.Table):
    """What a row of the other side needs to share one of the keys of any of `rows`: the
    pairs closest to passing, for a row without a partner having every key (None for one
    key: no row has it, and every pair is as far)."""
    if len(sides.pairs) < 2:
        return None
    return or_(*[reduction_predicate(replace(sides, pairs=(pair,)), rows)
                 for pair in sides.pairs])


def _read_group(agg, scan, table: pa.Table, number: int, before: pa.Table, swaps: dict, read,
                reads: dict) -> tuple[pa.Table, int]:
    """Every row of the row's group at `agg` read, for an operator above that judges the
    group's value (a HAVING): the rows of the aggregate's input with the group keys of the
    row's rows, carried down to the sources with their partners, put in `swaps`. The row's
    own source then reads its group's rows: (those rows, the row's number among them), or
    (`table`, `number`) as they were when the keys do not reach it."""
    terms = []
    for expr in agg.group_exprs:
        values = evaluate(expr, before)
        if isinstance(values, pa.Scalar):
            continue  # one value for every row: no key to read by
        values = pc.unique(values.combine_chunks() if isinstance(values, pa.ChunkedArray)
                           else values).drop_null()
        terms.append(call("is_in", [expr], options=pc.SetLookupOptions(value_set=values)))
    group: dict[int, object] = {}
    if terms:
        _restrict(agg.input, and_(*terms) if len(terms) > 1 else terms[0], group, read, reads)
    if id(scan) not in group:
        return table, number
    rows = _source_table(group[id(scan)])
    at = _first_index(rows, table.slice(number, 1))
    if at is None:
        return table, number
    swaps.update(group)
    return rows, at


def _followed_note(above: FilterKeys, before: pa.Table, count: int, inside=()) -> str:
    also = "" if not inside else \
        f"; inside the other input, `{visible(' and '.join(str(t) for t in inside))}`"
    keys = []
    for mine, theirs in above.sides.pairs:  # the values of every one of its rows here
        values = pc.unique(before.column(mine).combine_chunks())
        shown = ", ".join(value_text(v) for v in values[:_SHOWN]) + \
            (f", … {len(values) - _SHOWN:,} more" if len(values) > _SHOWN else "")
        keys.append(f"{visible(theirs)} = {shown}" if len(values) == 1 else
                    f"{visible(theirs)} in ({shown})")
    return (f"pairs it with every row of the other input; followed only with the {count:,} "
            f"row{'s' if count != 1 else ''} with {' and '.join(keys)}, as the "
            f"filter above asks (`{visible(above.terms_text)}`{also})")


def _over(node, child, rows: pa.Table):
    """`node` with its input `child` replaced by `rows` (that input's output, its columns
    named by qualified name): the operator alone runs, not the plan below it."""
    same = _standing_for(child, rows)
    return node.with_new_children([same if c is child else c for c in node.children])


def _standing_for(node, rows: pa.Table):
    """A plan reading `rows` (`node`'s output, its columns named by qualified name) with
    `node`'s schema: names and relations as `node` has them."""
    fields = list(node.schema)
    scan = TableScan(_MATERIALIZED, TableSource(rows.rename_columns(
        [f"c{i}" for i in range(len(fields))])))
    exprs = [Parameter(FieldRef(f"{_MATERIALIZED}.c{i}")) for i in range(len(fields))]
    return Projection(scan, exprs, [f.name for f in fields], [f.relation for f in fields])


_MATERIALIZED = "__journey_input"


def _partners(node, sides: JoinSides, before: pa.Table, other: pa.Table) -> pa.Table:
    both = list(node.children[0].schema.qualified_names) + \
        list(node.children[1].schema.qualified_names)
    return partner_rows(sides, before, other, both)


def _kept_note(node, stop: Stop, full: pa.Table, before, sides, other) -> Stop:
    kind = _kind(node)
    note, position, partners = "", None, None
    if kind == "Aggregate":
        groups = [n for n in node.schema.qualified_names][: len(node.group_exprs)]
        keys = ", ".join(f"{g} = {value_text(stop.rows.column(g)[0])}" for g in groups) \
            if stop.rows is not None and stop.rows.num_rows else ""
        note = f"in the group {keys}" if keys else "in the one group of the whole input"
    elif kind in ("Sort", "Limit"):
        position = _first_index(full, stop.rows) if stop.rows is not None else None
        if position is not None:
            note = f"at position {position:,} of {full.num_rows:,}"
    elif sides is not None and other is not None:
        found = _partners(node, sides, before, other)
        keys = {mine: before.column(mine)[0] for mine, _ in sides.pairs}
        n = found.num_rows
        if getattr(node, "correlation", ()) and sides.pairs:  # partners: the rows aggregated
            note = f"the subquery's value is over its {n:,} row{'s' if n != 1 else ''} " \
                   f"with {key_text(sides, before)}"
        elif n:
            note = f"joined with {n:,} partner row{'s' if n != 1 else ''}"
            if sides.how in ("semi", "anti") or kind == "SubqueryFilter":
                note = f"has {n:,} partner row{'s' if n != 1 else ''}, as the " \
                       f"{sides.how} join asks"
        else:
            note = f"no partner ({_no_partner_text(sides, before)}); kept by the " \
                   f"{sides.how} join" + (", null-extended" if sides.how not in
                                          ("semi", "anti") else "")
        partners = JoinPartners(keys, n, found.slice(0, _SHOWN) if n else None, note)
    return Stop(stop.depth, stop.operator, stop.kind, stop.kept, stop.rows, stop.count, note,
                stop.story, partners, position)


def _no_partner_text(sides: JoinSides, before: pa.Table) -> str:
    if not sides.pairs:
        return "the other input has no row the condition accepts"
    nan = _ieee_nan_key(sides, before)
    return nan or f"no row of the other input has {key_text(sides, before)}"


def _ieee_nan_key(sides: JoinSides, before: pa.Table) -> str | None:
    """Why a NaN key has no partner in a join that compares floats as IEEE does; None when
    the row has no NaN key or the join pairs NaN with NaN."""
    if sides.float_keys != IEEE:
        return None
    for mine, _ in sides.pairs:
        value = before.column(mine)[0]
        if pa.types.is_floating(value.type) and value.is_valid and math.isnan(value.as_py()):
            return (f"its key {visible(mine)} is NaN, which equals nothing in this join "
                    "(IEEE; a join imported from Spark pairs NaN with NaN)")
    return None


def _why_dropped(node, stop: Stop, before, scan, sides, other, read,
                 mixing_reads_all, input_full=None) -> Stop:
    kind = _kind(node)
    if kind == "Filter" and before is not None and before.num_rows:
        closest = _closest_row(node.predicate, before)
        story = explain_row(node.predicate, before, closest)
        why = story.why if before.num_rows == 1 else \
            f"{story.why} (of the {before.num_rows:,} rows it is here, the one that passes the " \
            "most of the filter's terms)"
        return Stop(stop.depth, stop.operator, kind, False, None, 0, why, story)
    if kind == "Limit" and before is not None and before.num_rows:
        full_input = input_full if input_full is not None else _collect(node.input)
        position = _first_index(full_input, before)
        where = f"at position {position:,} of its input" if position is not None else ""
        kept = "every row" if node.fetch is None else \
            f"{node.fetch:,} row{'s' if node.fetch != 1 else ''}"
        note = (f"the limit cut it: it keeps {kept} after skipping {node.skip:,}, and the row "
                f"is {where}")
        return Stop(stop.depth, stop.operator, kind, False, None, 0, note, None, None, position)
    if sides is not None and before is not None and before.num_rows and other is not None:
        partners = _no_partners(node, sides, before, other, read, mixing_reads_all)
        return Stop(stop.depth, stop.operator, kind, False, None, 0, partners.why, None,
                    partners)
    return Stop(stop.depth, stop.operator, kind, False, None, 0,
                f"{kind} has no row from it")


def _closest_row(predicate, rows: pa.Table) -> int:
    """The first of `rows` for which the most of the predicate's terms are true: the one
    whose story says best what stopped the row (a pair of a comma join with its partner,
    not with any row of the other side)."""
    if rows.num_rows == 1:
        return 0
    passed = np.zeros(rows.num_rows, dtype=np.int64)
    for term in conjuncts(predicate, plain_and=True):
        values = evaluate(term, rows)
        if isinstance(values, pa.Scalar):
            continue  # the same for every row
        passed += pc.fill_null(values, False).to_numpy(zero_copy_only=False)
    return int(np.argmax(passed))


def _no_partners(join, sides: JoinSides, before: pa.Table, other: pa.Table, read,
                 mixing_reads_all) -> JoinPartners:
    """Why a join dropped the row: its partners, or why it has none (a null key, no row of
    the other input with its keys, or partners dropped on their own way)."""
    keys = {mine: before.column(mine)[0] for mine, _ in sides.pairs}
    shown = key_text(sides, before)
    found = _partners(join, sides, before, other)
    if found.num_rows:
        n = found.num_rows
        what = "an anti join keeps only rows without one" if sides.how == "anti" else \
            "yet the join dropped it"
        return JoinPartners(keys, n, found.slice(0, _SHOWN),
                            f"it has {n:,} partner row{'s' if n != 1 else ''} "
                            f"({shown}), and {what}" if shown else
                            f"it has {n:,} partner row{'s' if n != 1 else ''}, and {what}")
    null = [mine for mine, v in keys.items() if not v.is_valid]
    if null:
        return JoinPartners(keys, 0, None,
                            f"its key is null ({', '.join(f'{visible(m)} = null' for m in null)})"
                            "; a null key joins with nothing")
    nan = _ieee_nan_key(sides, before)
    if nan is not None:
        return JoinPartners(keys, 0, None, nan)
    other_side = other_input(join, sides)
    terms = [_equal_term(theirs, before.column(mine)[0]) for mine, theirs in sides.pairs]
    condition = row_condition(sides, before)
    if condition is not None and not columns_of(condition):  # its own columns fail it
        story = explain_row(sides.condition, before.slice(0, 1), 0)
        if not (story.value is not None and story.value.is_valid and story.value.as_py()):
            return JoinPartners(keys, 0, None, f"the join's condition fails it whatever the "
                                f"partner: {story.why}")
    if condition is not None:
        terms.append(condition)
    with_condition = "" if condition is None else \
        f" for which {visible(str(sides.condition))} holds"
    if not terms:
        return JoinPartners(keys, 0, None, "the other input has no row")
    carried = [c for c in carry_down(other_side, and_(*terms) if len(terms) > 1 else terms[0])
               if c.conjuncts]
    if not carried:
        return JoinPartners(keys, 0, None, f"no row of the other input has {shown}"
                            f"{with_condition}")
    best = max(carried, key=lambda c: len(c.conjuncts))
    partner_scan = best.scan
    relation = visible(partner_scan.relation)
    on_source = source_predicate(best)
    source = read(partner_scan, on_source) if not mixing_reads_all else \
        _source_table(partner_scan)
    candidates = matching_rows(source, on_source)
    what = (shown + with_condition) if shown else f"a row{with_condition}"
    if len(candidates) == 0:
        return JoinPartners(keys, 0, None, f"no row of {relation} has {what}")
    partner = _journey(other_side, partner_scan, source, int(candidates[0].as_py()), read,
                       mixing_reads_all)
    many = len(candidates) != 1
    read_note = "" if mixing_reads_all else " (counting the rows read)"
    return JoinPartners(keys, 0, None,
                        f"{len(candidates):,} row{'s' if many else ''} of {relation} "
                        f"ha{'ve' if many else 's'} {what}{read_note}, but the first (row "
                        f"{partner.row:,}) was {partner.why}", partner)


def _equal_term(column: str, value) -> object:
    return call("equal", [Parameter(FieldRef(column)), literal(value)])


def why_not(p, predicate, limit: int = _SHOWN) -> WhyNot:
    """The source rows compatible with the missing output rows, each with its journey.

    `predicate` is over the plan's output columns. Each of its conjuncts is carried
    down to the sources (through renaming and computing projections, an aggregate's
    group keys, a join's sides; see `carry_down`); the source most of them reach is
    searched for the rows the carried predicate is true on (every compatible row,
    counted; the first `limit` journeys told). A predicate naming no output column
    (one a projection dropped) is matched on the first source having its columns.
    """
    expr = parse(predicate) if isinstance(predicate, str) else as_expression(predicate)
    text = predicate if isinstance(predicate, str) else str(expr)
    try:
        qualified = qualify(expr, p.schema)
    except ColumnNotFoundError:
        return _why_not_on_a_source(p, expr, text, limit)
    parts = conjuncts(qualified, plain_and=True)
    reached = [c for c in carry_down(p, qualified) if c.conjuncts]
    if not reached:
        raise PlanError(f"why_not: no term of {visible(text)} can be carried down to a source "
                        "(each reads an aggregate's value, or columns of both sides of a "
                        "join); ask about the columns a source row decides")
    best = max(reached, key=lambda c: len(set(c.origins)))  # the first of the best
    on_source = source_predicate(best)
    missing = tuple(visible(str(parts[i])) for i in range(len(parts))
                    if i not in set(best.origins))
    table = _source_table(best.scan)
    rows = matching_rows(table, on_source)
    relation = visible(best.scan.relation)
    carried = visible(str(on_source))
    also = "" if not missing else f"; not carried down: {', '.join(missing)}"
    if len(rows) == 0:
        return WhyNot(text, best.scan.relation, 0, (),
                      f"no row of {relation} is compatible: none has {carried} (the "
                      f"predicate carried down to {relation}){also}", carried, missing)
    shown = rows.slice(0, limit).to_pylist()
    journeys = tuple(_journey(p, best.scan, table, r) for r in shown)
    dropped = [j for j in journeys if not j.kept]
    matched = len(rows)
    why = (f"{matched:,} row{'s' if matched != 1 else ''} of {relation} "
           f"{'are' if matched != 1 else 'is'} compatible (where {carried}); of the first "
           f"{len(journeys)}, {len(dropped)} {'is' if len(dropped) == 1 else 'are'} dropped")
    if dropped:
        why += f" (row {dropped[0].row:,}: {dropped[0].why})"
    return WhyNot(text, best.scan.relation, matched, journeys, why + also, carried, missing)


def _why_not_on_a_source(p, expr, text: str, limit: int) -> WhyNot:
    """A predicate over a source's columns (not the output's): matched on that source."""
    names = {str(f) for f in _fields(expr)}
    scans = [n for n in p.walk() if isinstance(n, TableScan)]
    for scan in scans:
        if names <= set(scan.source.schema.names):
            table = _source_table(scan)
            try:
                picked = pick_rows(table, expr, who="why_not", limit=limit)
            except RowNotFoundError as exc:
                return WhyNot(text, scan.relation, 0, (), visible(str(exc)))
            journeys = tuple(_journey(p, scan, table, r) for r in picked.rows)
            dropped = [j for j in journeys if not j.kept]
            why = (f"{picked.matched:,} row{'s' if picked.matched != 1 else ''} of "
                   f"{visible(scan.relation)} match {visible(text)} (columns of the source, "
                   f"not of the output); of the first {len(journeys)}, {len(dropped)} "
                   f"{'is' if len(dropped) == 1 else 'are'} dropped")
            if dropped:
                why += f" (row {dropped[0].row:,}: {dropped[0].why})"
            return WhyNot(text, scan.relation, picked.matched, journeys, why, visible(text))
    qualify(expr, p.schema)  # names the unknown column, with a caret and the near names
    raise PlanError(f"why_not: no source of the plan has every column {visible(text)} reads "
                    f"({', '.join(sorted(visible(n) for n in names))})")


def _fields(expr):
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.kind == "field":
            yield node
        elif node.kind == "call":
            stack.extend(node.args)


provide("explain_plan_row", explain_plan_row)
provide("why_not", why_not)
