"""Catalyst's steps as terminal text: the trace as a numbered list of the rules that changed
the plan with what each changed, one step as its plan tree marked node by node."""

from __future__ import annotations

import textwrap

from ..tracing.catalyst_steps import CatalystStep, CatalystSteps
from ..tracing.spark_plan_diff import plan_diff
from ..tracing.spark_plan_text import plan_tree
from .labels import counted, shorten, visible

__all__ = ["catalyst_lines", "catalyst_step_lines"]

MARK = {"same": " ", "moved": "↕", "changed": "~", "added": "+", "removed": "-"}
PAINT = {"moved": "moved", "changed": "changed", "added": "added", "removed": "removed"}
TOUCHED_SHOWN = 6  # a step in the trace's list shows this many changed nodes
TIMES_SHOWN = 8
UNPRINTED = "the plan text is the same: the rule changed what Spark's treeString does not print"


def _fit(text: str, room: int) -> str:
    return shorten(visible(" ".join(text.split())), max(8, room))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def _checks_text(step: CatalystStep) -> str:
    if step.error is not None:
        return "✗ threw"
    if not step.checks:
        return ""
    bad = [c for c in step.checks if not c.ok]
    return f"✗ {counted(len(bad), 'check')} failed" if bad else f"✓ {len(step.checks)} checks"


def catalyst_lines(trace: CatalystSteps, paint) -> list[str]:
    width = paint.width
    lines = [paint(f"Catalyst · Spark {trace.spark_version or '?'} · {trace.summary}", "title")]
    if trace.note:
        lines.append(trace.note)
        for name, text in trace.explain_plans.items():
            lines.append(paint(f"{name}:", "title"))
            lines += _tree_lines(text, None, paint)
        return lines
    lines.append(trace.comparison.statement)
    if trace.spark_seconds:
        lines.append(f"stepped in {trace.optimizer_seconds:.2f} s; Spark's own optimizer took "
                     f"{trace.spark_seconds:.2f} s on the same plan")
    if trace.excluded_rules:
        lines.append("excluded: " + ", ".join(r.rsplit(".", 1)[-1] for r in trace.excluded_rules))
    for note in (trace.known_calls_note, trace.checks_note):
        lines += [paint(line, "dim") for line in textwrap.wrap(visible(note), max(20, width))]
    phase = None
    for i, step in enumerate(trace.steps, 1):
        if step.phase != phase:
            phase = step.phase
            lines.append(paint(f"── {phase} ──", "title"))
        lines += _step_summary(i, step, paint, width)
    if trace.rule_times:
        lines.append(paint("Spark's own run, slowest rules:", "title"))
        for t in trace.rule_times[:TIMES_SHOWN]:
            lines.append(f"  {_fit(t.rule, width - 40)}  {t.calls:,} calls · "
                         f"{t.effective:,} effective · {_ms(t.seconds)}")
    lines.append(paint("final plan:", "title"))
    lines += _tree_lines(trace.final_plan, None, paint)
    return lines


def _step_summary(number: int, step: CatalystStep, paint, width: int) -> list[str]:
    head = f"{number:>2}. {step.rule}" + (f" ({step.scope})" if step.scope else "")
    tail = f"  {_checks_text(step)}  {_ms(step.elapsed)}".rstrip()
    room = width - len(head) - len(tail) - 3
    where = " · " + _fit(f"{step.batch} · it. {step.iteration}", room) if room >= 12 else ""
    status = paint(tail, "fail" if step.failed else "dim")
    lines = [f"{paint(head, 'rule')}{paint(where, 'dim')}{status}"]
    if step.error is not None:
        lines.append("    " + paint(_fit(step.error, width - 4), "fail"))
        return lines
    for c in step.checks:
        if not c.ok:
            lines.append("    " + paint(_fit(f"✗ {c.name}: {c.message}", width - 4), "fail"))
    diff = plan_diff(step.before, step.after)
    touched = diff.touched
    if not touched:
        lines.append(paint("    " + _fit(UNPRINTED, width - 4), "dim"))
    for status, text in touched[:TOUCHED_SHOWN]:
        lines.append(f"    {paint(MARK[status], PAINT[status])} "
                     f"{_fit(text, width - 6)}")
    if len(touched) > TOUCHED_SHOWN:
        lines.append(paint(f"    … {len(touched) - TOUCHED_SHOWN:,} more changed nodes", "dim"))
    if step.substeps:
        inner = ", ".join(f"{s.rule}" + (f" ({s.scope})" if s.scope else "")
                          for s in step.substeps)
        lines.append(paint("    " + _fit(f"inside: {inner}", width - 4), "dim"))
    return lines


def catalyst_step_lines(step: CatalystStep, paint) -> list[str]:
    width = paint.width
    lines = [paint(_fit(step.title, width), "title")]
    for c in step.checks:
        mark = paint("✓", "pass") if c.ok else paint("✗", "fail")
        text = c.name + (f": {c.message}" if not c.ok else "")
        lines.append(f"{mark} {_fit(text, width - 2)}")
    if step.error is not None:
        lines.append(paint(_fit(f"threw: {step.error}", width), "fail"))
        lines += _tree_lines(step.before, None, paint)
        return lines
    diff = plan_diff(step.before, step.after)
    if step.before == step.after:
        lines.append(paint(_fit(UNPRINTED, width), "dim"))
    lines += _tree_lines(step.after, diff, paint)
    for text in diff.removed:
        lines.append(f"{paint(MARK['removed'], 'removed')} {_fit(text, width - 2)}")
    for s in step.substeps:
        lines.append(paint(_fit(f"  inside: {s.title}", width), "dim"))
    return lines


def _tree_lines(text: str, diff, paint) -> list[str]:
    """The plan as an indented tree, two columns a level up to a third of the width, each
    node's text cut to the line; with a diff, a mark before each node."""
    root = plan_tree(text) if diff is None else diff.after
    cap = max(2, paint.width // 3)
    out = []
    for path, node in root.walk():
        indent = min(2 * len(path), cap)
        lead = "" if diff is None else paint(MARK[diff.status[path]],
                                             PAINT.get(diff.status[path], "dim")) + " "
        used = indent + (2 if diff is not None else 0)
        deep = "…" if 2 * len(path) > cap else ""
        text = ("(subquery) " if node.subquery else "") + node.text
        out.append(f"{lead}{' ' * indent}{deep}{_fit(text, paint.width - used - len(deep))}")
    return out
