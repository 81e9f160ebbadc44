"""A trace's steps as JSON and back: passes, evaluations, invariant checks, plan rules.

The steps come back as the engine's own event records (`toolkit.observe`), so
everything that draws a live trace draws a loaded one. Expressions go through
one shared node table (`json_expressions`), plans as flat `PlanSnapshot`
tables, Arrow data as IPC, selections as bitmaps.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import TraceFormatError, UsageError
from ..expression import Expression
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
from ..tree_positions import TreePositions
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

__all__ = ["FORMAT", "VERSION", "steps_to_doc", "steps_from_doc"]

FORMAT = "exprscope-trace"
VERSION = 1


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
    return [_step_from_json(d, exprs) for d in doc["steps"]]


def _expr(value, exprs: ExpressionWriter):
    return exprs.add(value) if isinstance(value, Expression) else None


def _path(path) -> list[int]:
    return [int(i) for i in (path or ())]


# -- writing ----------------------------------------------------------------------
def _step_to_json(step, exprs: ExpressionWriter) -> dict:
    if isinstance(step, PassEvent):
        return {"kind": "pass", "name": step.name, "before": _expr(step.before, exprs),
                "after": _expr(step.after, exprs), "changed": bool(step.changed),
                "elapsed": float(step.elapsed),
                "rewrites": [{"rule": r.rule, "reason": r.reason, "path": _path(r.path),
                              "before": _expr(r.before, exprs), "after": _expr(r.after, exprs)}
                             for r in step.rewrites]}
    if isinstance(step, EvalEvent):
        return _eval_to_json(step, exprs)
    if isinstance(step, InvariantCheck):
        subject = step.subject
        return {"kind": "invariant", "name": step.name, "level": step.level,
                "subject": subject if isinstance(subject, str) else str(subject),
                "passed": bool(step.passed), "details": step.details,
                "expected": plain_value(step.expected), "actual": plain_value(step.actual)}
    if isinstance(step, PlanRuleEvent):
        return {"kind": "plan_rule", "rule": step.rule, "changed": bool(step.changed),
                "applied": [{"rule": a.rule, "reason": a.reason, "path": _path(a.path)}
                            for a in step.applied],
                "before": _plan_to_json(step.before), "after": _plan_to_json(step.after)}
    raise UsageError(f"a trace step must be an event from toolkit.observe, not "
                    f"{type(step).__name__}")


def _eval_to_json(step: EvalEvent, exprs: ExpressionWriter) -> dict:
    doc = {"kind": "eval", "expr": _expr(step.expr, exprs), "num_rows": int(step.num_rows),
           "mode": step.mode, "elapsed": float(step.elapsed),
           "nodes": [{"path": _path(n.path), "label": n.label, "rows": int(n.rows),
                      "type": None if n.out_type is None else type_to_json(n.out_type),
                      "elapsed": float(n.elapsed), "calls": int(n.calls),
                      "used_rows": int(n.used), "how": n.how, "why": n.why}
                     for n in step.nodes],
           "branches": [{"path": _path(b.path), "branch": b.branch, "arg_index": b.arg_index,
                         "total_rows": int(b.total_rows),
                         "rows": rows_to_json(b.rows, int(b.total_rows))}
                        for b in step.branches],
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


def _step_from_json(doc: dict, exprs: ExpressionReader):
    kind = doc.get("kind")
    if kind == "pass":
        return PassEvent(name=doc["name"], before=exprs.get(doc["before"]),
                         after=exprs.get(doc["after"]), changed=doc["changed"],
                         rewrites=tuple(RuleApplied(r["rule"], r["reason"], tuple(r["path"]),
                                                    exprs.get(r["before"]), exprs.get(r["after"]))
                                        for r in doc["rewrites"]),
                         elapsed=_elapsed(doc))
    if kind == "eval":
        return _eval_from_json(doc, exprs)
    if kind == "invariant":
        return InvariantCheck(name=doc["name"], level=doc["level"], subject=doc["subject"],
                              passed=doc["passed"], details=doc.get("details", ""),
                              expected=doc.get("expected"), actual=doc.get("actual"))
    if kind == "plan_rule":
        after = _plan_from_json(doc["after"])
        return PlanRuleEvent(rule=doc["rule"], before=_plan_from_json(doc["before"]),
                             after=after, changed=doc["changed"],
                             applied=tuple(_applied_from_json(doc, after)))
    raise TraceFormatError(f"unknown trace step kind {kind!r}")


def _applied_from_json(doc: dict, after) -> list[RuleApplied]:
    """The firings of a plan rule; the node each produced is read back from the plan after.

    A trace from before firings were recorded has one reason: it becomes one
    firing at the root.
    """
    if "applied" not in doc:
        reason = doc.get("reason") or ""
        return [RuleApplied(doc["rule"], reason, (), None, after)] if reason else []
    out = []
    for a in doc["applied"]:
        path = tuple(a["path"])
        out.append(RuleApplied(a["rule"], a["reason"], path, None, _plan_node_at(after, path)))
    return out


def _plan_node_at(plan, path):
    node = plan
    for i in path:
        children = node.children if node is not None else ()
        if i >= len(children):
            return None
        node = children[i]
    return node


def _eval_from_json(doc: dict, exprs: ExpressionReader) -> EvalEvent:
    positions = TreePositions()  # the paths share one table, as the engine's do
    nodes = [NodeStats(path=positions.of(n["path"]), label=n["label"], rows=n["rows"],
                       out_type=None if n["type"] is None else type_from_json(n["type"]),
                       elapsed=_elapsed(n), calls=n["calls"], used_rows=n.get("used_rows"),
                       how=n.get("how") or "", why=n.get("why") or "") for n in doc["nodes"]]
    branches = [BranchSelection(path=positions.of(b["path"]), branch=b["branch"],
                                arg_index=b["arg_index"],
                                rows=rows_from_json(b["rows"], b["total_rows"]),
                                total_rows=b["total_rows"]) for b in doc["branches"]]
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
            result = scalar_from_json(r["scalar"])
        else:
            result = array_from_json(r["array"])
            if r.get("chunked"):
                result = pa.chunked_array([result])
    data = None
    if doc.get("data"):
        table = table_from_json(doc["data"])
        data = table if doc["data"].get("table") else (
            table.to_batches()[0] if table.num_rows else
            pa.RecordBatch.from_pylist([], schema=table.schema))
    sample = doc.get("sample")
    return EvalEvent(expr=exprs.get(doc["expr"]), num_rows=doc["num_rows"], mode=doc["mode"],
                     nodes=nodes, branches=branches, error=error, result=result, data=data,
                     sample=None if sample is None else pa.array(sample, pa.int64()),
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
