"""A trace's steps as JSON and back: passes, evaluations, invariant checks, plan rules.

The steps come back as the engine's own event records (`toolkit.observe`), so
everything that draws a live trace draws a loaded one. Expressions go through
one shared node table (`json_expressions`), plans as flat `PlanSnapshot`
tables, Arrow data as IPC, selections as bitmaps.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import TraceFormatError, UsageError
from ..model.expression import Expression
from ..observe import (
    BranchSelection,
    ErrorFacts,
    EvalEvent,
    InvariantCheck,
    NodeStats,
    PassEvent,
    PlanRuleEvent,
    RuleApplied,
)
from ..rewrite.positions import TreePath, TreePositions
from .json_expressions import ExpressionReader, ExpressionWriter
from .json_values import (
    array_from_json,
    array_to_json,
    plain_value,
    rows_from_json,
    rows_to_json,
    scalar_from_json,
    scalar_to_json,
    table_from_json,
    table_to_json,
    type_from_json,
    type_to_json,
)
from .plan_shape import PlanSnapshot, is_plan, plan_nodes, snapshot

__all__ = ["FORMAT", "VERSION", "steps_from_doc", "steps_to_doc"]

FORMAT = "exprscope-trace"
# 2: an evaluation's node and branch positions are rows of a "positions" table
# ([parent, index]; row k is position k + 1, position 0 the root), so a deep tree's
# paths take space linear in its size; version 1 wrote each path in full
# 3: so are the places of a pass's rewrites and of a plan rule's firings ("at"): a
# rewrite at every level of a 20,000-deep tree wrote 200 million path numbers
VERSION = 3


def steps_to_doc(steps: list) -> dict:
    exprs = ExpressionWriter()
    docs = [_step_to_json(step, exprs) for step in steps]
    return {"format": FORMAT, "version": VERSION, "expressions": exprs.doc(), "steps": docs}


def steps_from_doc(doc: dict) -> list:
    if doc.get("format") != FORMAT:
        raise TraceFormatError("not an exprscope trace (the JSON has no \"format\": "
                         f"\"{FORMAT}\" field)")
    if doc.get("version", 0) > VERSION:
        raise TraceFormatError(f"this trace was written by a newer exprscope (format version "
                         f"{doc['version']}, this one reads up to {VERSION})")
    exprs = ExpressionReader(doc["expressions"])
    return [_step_from_json(d, exprs, f"steps[{k}]") for k, d in enumerate(doc["steps"])]


def _expr(value, exprs: ExpressionWriter):
    return exprs.add(value) if isinstance(value, Expression) else None


def _path(path) -> list[int]:
    return [int(i) for i in (path or ())]


def _position_table(paths) -> tuple[list[list[int]], list[int]]:
    """The [parent, index] rows `paths` need (ancestors first) and the position of each path.

    `TreePath`s (an evaluation's) share their table's rows; tuples (a rewrite's
    place) share the prefix of the tuple before them, found by comparing slices,
    so a firing at every level of a deep tree costs no Python step per level.
    """
    rows: list[list[int]] = []
    written: dict[tuple[int, int], int] = {}  # (table, position there) -> position written
    tuples = _TupleRows(rows)
    out = []
    for path in paths:
        if not isinstance(path, TreePath):
            out.append(tuples.add(tuple(path)))
            continue
        at, chain = path, []
        while at and (id(at.table), at.pos) not in written:
            chain.append(at)
            at = at.parent
        pos = written[(id(at.table), at.pos)] if at else 0
        for step in reversed(chain):
            rows.append([pos, int(step.last)])
            pos = len(rows)
            written[(id(step.table), step.pos)] = pos
        out.append(pos)
    return rows, out


class _TupleRows:
    """Writes tuple paths into a positions table, each sharing what it has in common with
    the one before (firings come in walk order, so that is nearly all of it)."""

    def __init__(self, rows: list[list[int]]):
        self.rows = rows
        self.written: dict[tuple[int, int], int] = {}  # (parent position, index) -> position
        self.last: tuple = ()
        self.last_chain = [0]  # positions of last[:0], last[:1], ... last

    def add(self, path: tuple) -> int:
        common = _common_prefix(self.last, path)
        chain = self.last_chain
        del chain[common + 1:]  # in place: a firing one level up costs no copy of the rest
        pos = chain[-1]
        for index in path[common:]:
            found = self.written.get((pos, index))
            if found is None:
                self.rows.append([pos, int(index)])
                found = self.written[(pos, index)] = len(self.rows)
            chain.append(found)
            pos = found
        self.last = path
        return pos


def _common_prefix(a: tuple, b: tuple) -> int:
    """How long a prefix two tuples share: whole-slice comparisons, a binary search if needed."""
    if len(a) > len(b):
        a, b = b, a
    n = len(a)
    if a == b[:n]:  # one slice: the shorter one is whole
        return n
    if a[:n - 1] == b[:n - 1]:  # walk order: siblings, or a parent after its child
        return n - 1
    low, high = 0, n - 2  # a[:low] == b[:low]; a[:high + 1] != b[:high + 1]
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _paths_from_table(rows: list, positions: TreePositions) -> list[TreePath]:
    """Every written position as a path of `positions` (parents come before children)."""
    paths = [positions.root]
    for parent, index in rows:
        paths.append(paths[parent].child(index))
    return paths


# -- writing ----------------------------------------------------------------------
def _step_to_json(step, exprs: ExpressionWriter) -> dict:
    if isinstance(step, PassEvent):
        table, at = _position_table([r.path or () for r in step.rewrites])
        return {"kind": "pass", "name": step.name, "before": _expr(step.before, exprs),
                "after": _expr(step.after, exprs), "changed": bool(step.changed),
                "elapsed": float(step.elapsed), "positions": table,
                "rewrites": [{"rule": r.rule, "reason": r.reason, "at": k,
                              "before": _expr(r.before, exprs), "after": _expr(r.after, exprs)}
                             for r, k in zip(step.rewrites, at)]}
    if isinstance(step, EvalEvent):
        return _eval_to_json(step, exprs)
    if isinstance(step, InvariantCheck):
        subject = step.subject
        return {"kind": "invariant", "name": step.name, "level": step.level,
                "subject": subject if isinstance(subject, str) else str(subject),
                "passed": bool(step.passed), "details": step.details,
                "expected": plain_value(step.expected), "actual": plain_value(step.actual)}
    if isinstance(step, PlanRuleEvent):
        table, at = _position_table([a.path or () for a in step.applied])
        return {"kind": "plan_rule", "rule": step.rule, "changed": bool(step.changed),
                "positions": table,
                "applied": [{"rule": a.rule, "reason": a.reason, "at": k}
                            for a, k in zip(step.applied, at)],
                "before": _plan_to_json(step.before), "after": _plan_to_json(step.after)}
    raise UsageError(f"a trace step must be an event from toolkit.observe, not "
                    f"{type(step).__name__}")


def _eval_to_json(step: EvalEvent, exprs: ExpressionWriter) -> dict:
    table, at = _position_table([n.path for n in step.nodes] + [b.path for b in step.branches])
    node_at, branch_at = at[:len(step.nodes)], at[len(step.nodes):]
    doc = {"kind": "eval", "expr": _expr(step.expr, exprs), "num_rows": int(step.num_rows),
           "mode": step.mode, "elapsed": float(step.elapsed), "threads": int(step.threads),
           "positions": table,
           "nodes": [{"at": at, "label": n.label, "rows": int(n.rows),
                      "type": None if n.out_type is None else type_to_json(n.out_type),
                      "elapsed": float(n.elapsed), "calls": int(n.calls),
                      "used_rows": int(n.used), "how": n.how, "why": n.why,
                      "threads": int(n.threads), **({"fused": n.fused} if n.fused else {})}
                     for n, at in zip(step.nodes, node_at)],
           "branches": [{"at": at, "branch": b.branch, "arg_index": b.arg_index,
                         "total_rows": int(b.total_rows),
                         "rows": rows_to_json(b.rows, int(b.total_rows))}
                        for b, at in zip(step.branches, branch_at)],
           "error": None, "result": None, "data": None}
    if step.error is not None:
        err = ErrorFacts.of(step.error)
        doc["error"] = {"kind": err.kind, "message": err.message, "path": _path(err.path),
                        "row": err.row, "node": _expr(err.node, exprs)}
    result = step.result
    if isinstance(result, pa.Scalar):
        doc["result"] = {"scalar": scalar_to_json(result)}
    elif isinstance(result, (pa.Array, pa.ChunkedArray)):
        doc["result"] = {"array": array_to_json(result), "chunked":
                         isinstance(result, pa.ChunkedArray)}
    if step.sample is not None:
        doc["sample"] = [int(r) for r in step.sample.to_pylist()]
    if isinstance(step.data, (pa.Table, pa.RecordBatch)):
        doc["data"] = {**table_to_json(step.data), "table": isinstance(step.data, pa.Table)}
    return doc


def _plan_to_json(plan):
    if plan is None:
        return None
    if not is_plan(plan):
        return {"text": str(plan)}
    rows = []
    for depth, node, parent in plan_nodes(snapshot(plan)):
        rows.append({"label": node.label_text, "schema": node.schema_text, "parent": parent})
    return {"nodes": rows}


# -- reading ----------------------------------------------------------------------
def _elapsed(doc: dict) -> float:
    """Seconds a step or node took; a trace may leave it out or null (then 0)."""
    return float(doc.get("elapsed") or 0.0)


def _step_from_json(doc: dict, exprs: ExpressionReader, where: str):
    kind = doc.get("kind")
    if kind == "pass":
        place = _places(doc)
        return PassEvent(name=doc["name"], before=exprs.get(doc["before"]),
                         after=exprs.get(doc["after"]), changed=doc["changed"],
                         rewrites=tuple(RuleApplied(r["rule"], r["reason"], place(r),
                                                    exprs.get(r["before"]), exprs.get(r["after"]))
                                        for r in doc["rewrites"]),
                         elapsed=_elapsed(doc))
    if kind == "eval":
        return _eval_from_json(doc, exprs, where)
    if kind == "invariant":
        return InvariantCheck(name=doc["name"], level=doc["level"], subject=doc["subject"],
                              passed=doc["passed"], details=doc.get("details", ""),
                              expected=doc.get("expected"), actual=doc.get("actual"))
    if kind == "plan_rule":
        after = _plan_from_json(doc["after"])
        return PlanRuleEvent(rule=doc["rule"], before=_plan_from_json(doc["before"]),
                             after=after, changed=doc["changed"],
                             applied=tuple(_applied_from_json(doc, after)))
    raise TraceFormatError(f"not a valid exprscope trace: {where}.kind is {kind!r}")


def _places(doc: dict):
    """A function from an item of the step (a node, a branch, a firing) to its path.

    With a "positions" table (version 2 evaluations, version 3 everything) every
    path is a `TreePath` of one table, so a deep tree's paths take linear memory
    after loading too; before, each item held its path in full.
    """
    positions = TreePositions()
    if "positions" in doc:
        written = _paths_from_table(doc["positions"], positions)
        return lambda item: written[item["at"]]
    return lambda item: positions.of(item["path"])


def _applied_from_json(doc: dict, after) -> list[RuleApplied]:
    """The firings of a plan rule; the node each produced is read back from the plan after.

    A trace from before firings were recorded has one reason: it becomes one
    firing at the root.
    """
    if "applied" not in doc:
        reason = doc.get("reason") or ""
        return [RuleApplied(doc["rule"], reason, (), None, after)] if reason else []
    place = _places(doc)
    paths = [place(a) for a in doc["applied"]]
    nodes = _plan_nodes_at(after, paths)
    return [RuleApplied(a["rule"], a["reason"], path, None, node)
            for a, path, node in zip(doc["applied"], paths, nodes)]


def _plan_nodes_at(plan, paths: list[TreePath]) -> list:
    """The plan node at each path (None where the plan has none), each position found once
    from its parent's: a firing at every level of a deep plan costs linear time."""
    found: dict[int, object] = {0: plan}  # position -> node (the root is position 0)

    def node_at(path: TreePath):
        chain = []
        while path.pos not in found:
            chain.append(path)
            path = path.parent
        node = found[path.pos]
        for step in reversed(chain):
            children = getattr(node, "children", ())
            node = children[step.last] if step.last < len(children) else None
            found[step.pos] = node
        return node

    return [node_at(path) for path in paths]


def _eval_from_json(doc: dict, exprs: ExpressionReader, where: str) -> EvalEvent:
    path_of = _places(doc)  # the paths share one table, as the engine's do
    nodes = [NodeStats(path=path_of(n), label=n["label"], rows=n["rows"],
                       out_type=None if n["type"] is None
                       else type_from_json(n["type"], f"{where}.nodes[{i}].type"),
                       elapsed=_elapsed(n), calls=n["calls"], used_rows=n.get("used_rows"),
                       how=n.get("how") or "", why=n.get("why") or "",
                       threads=n.get("threads") or 1, fused=n.get("fused") or "")
             for i, n in enumerate(doc["nodes"])]
    branches = []
    for i, b in enumerate(doc["branches"]):
        rows, count = rows_from_json(b["rows"], b["total_rows"], f"{where}.branches[{i}].rows")
        branches.append(BranchSelection(path=path_of(b), branch=b["branch"],
                                        arg_index=b["arg_index"], rows=rows,
                                        total_rows=b["total_rows"], count=count))
    error = None
    if doc.get("error"):
        e = doc["error"]
        node = exprs.get(e.get("node"))
        error = ErrorFacts(e["kind"], e["message"],
                           tuple(e["path"]) if (e["path"] or node is not None) else None,
                           e["row"], node)
    result = None
    if doc.get("result"):
        r = doc["result"]
        if "scalar" in r:
            result = scalar_from_json(r["scalar"], f"{where}.result.scalar")
        else:
            result = array_from_json(r["array"], f"{where}.result.array")
            if r.get("chunked"):
                result = pa.chunked_array([result])
    data = None
    if doc.get("data"):
        table = table_from_json(doc["data"], f"{where}.data")
        data = table if doc["data"].get("table") else (
            table.combine_chunks().to_batches()[0] if table.num_rows else
            pa.RecordBatch.from_pylist([], schema=table.schema))
    sample = doc.get("sample")
    return EvalEvent(expr=exprs.get(doc["expr"]), num_rows=doc["num_rows"], mode=doc["mode"],
                     nodes=nodes, branches=branches, error=error, result=result, data=data,
                     sample=None if sample is None else pa.array(sample, pa.int64()),
                     threads=doc.get("threads") or 1,
                     elapsed=_elapsed(doc))


def _plan_from_json(doc):
    if doc is None:
        return None
    if "text" in doc:
        return doc["text"]
    made: list[PlanSnapshot] = []
    for row in doc["nodes"]:
        snap = PlanSnapshot(row["label"], row["schema"])
        made.append(snap)
        if row["parent"] is not None:
            made[row["parent"]].children.append(snap)
    return made[0] if made else None
