"""The steps a trace holds: one union, one way to tell them apart, one title each.

Every renderer, widget and the JSON codec dispatch on these classes (steps read
back from JSON are the same classes), so a step's kind and name are decided
here and nowhere else.
"""

from __future__ import annotations

from typing import Union

from ..model.expression import Expression
from ..model.visit import node_at
from ..observe import EvalEvent, InvariantCheck, PassEvent, PlanRuleEvent
from ..rewrite.positions import TreePath, TreePositions
from .catalyst_steps import CatalystStep
from .recorded_error import error_facts

__all__ = ["CATALYST_RULE", "EVAL", "INVARIANT", "KIND_OF", "PASS", "PLAN_RULE", "STEP_TYPES", "Step",
           "branch_target",
           "depth_of", "is_change", "step_kind", "step_title", "tree_of"]

Step = Union[PassEvent, EvalEvent, InvariantCheck, PlanRuleEvent]
STEP_TYPES = (PassEvent, EvalEvent, InvariantCheck, PlanRuleEvent)

PASS = "pass"
EVAL = "eval"
INVARIANT = "invariant"
PLAN_RULE = "plan rule"
CATALYST_RULE = "catalyst rule"  # a step of Spark's own planning (toolkit.spark.catalyst_steps)
KIND_OF = {PassEvent: PASS, EvalEvent: EVAL, InvariantCheck: INVARIANT, PlanRuleEvent: PLAN_RULE,
           CatalystStep: CATALYST_RULE}

_SUBJECT_CHARS = 80


def step_kind(step) -> str | None:
    """"pass", "eval", "invariant" or "plan rule"; None for anything else."""
    return KIND_OF.get(type(step))


def is_change(step) -> bool:
    """A step that changed a tree or a plan: where "next change" stops."""
    if isinstance(step, CatalystStep):  # recorded because it changed the plan, or threw
        return step.error is None
    return isinstance(step, (PassEvent, PlanRuleEvent)) and bool(step.changed)


def step_title(step) -> str:
    """One line naming the step: the explorer's header, captions, the report's stepper."""
    if isinstance(step, PassEvent):
        n = len(step.rewrites)
        what = f"{n:,} rewrite{'s' if n != 1 else ''}" if step.changed else "no change"
        return f"pass {step.name}: {what}"
    if isinstance(step, EvalEvent):
        facts = error_facts(step.error)
        outcome = (f"failed at row {facts.row:,}" if facts and facts.row is not None
                   else "failed" if facts else "ok")
        return f"evaluate ({step.mode}) on {step.num_rows:,} rows: {outcome}"
    if isinstance(step, InvariantCheck):
        subject = str(step.subject)
        if len(subject) > _SUBJECT_CHARS:
            subject = subject[:_SUBJECT_CHARS - 1] + "…"
        verdict = "pass" if step.passed else "FAIL"
        return f"invariant {step.name} [{step.level}] on {subject}: {verdict}"
    if isinstance(step, PlanRuleEvent):
        return f"plan rule {step.rule}: {'changed the plan' if step.changed else 'no change'}"
    if isinstance(step, CatalystStep):
        return f"Catalyst {step.title}" + (": FAILED" if step.failed else "")
    return type(step).__name__


def branch_target(root, branch, form=None) -> TreePath:
    """The path of the node whose value a recorded branch selection is.

    The form's argument (`then` is argument 1 of if_else), except a case_when's
    `when k`, which is condition k inside the make_struct of argument 0 (numbered
    from 0, as Arrow's ToString numbers the conditions). `form`, the node at the
    branch's path, spares walking down from `root` to find it.

    A `when k` of a case_when whose conditions are one computed struct (no
    make_struct) reads field k of that struct: the struct argument is the target.
    """
    path = branch.path if isinstance(branch.path, TreePath) else TreePositions().of(branch.path)
    target = path.child(branch.arg_index)
    if not branch.branch.startswith("when ") or branch.arg_index != 0:
        return target
    try:
        form = node_at(root, path) if form is None else form
        first = form.args[0]
        if form.name == "case_when" and first.is_call and first.name == "make_struct":
            return target.child(int(branch.branch.split()[1]))
    except (IndexError, ValueError, AttributeError):
        pass
    return target


def tree_of(step):
    """The expression tree a step draws (a pass's result, an evaluation's expression), or None."""
    if isinstance(step, PassEvent):
        for root in (step.after, step.before):
            if isinstance(root, Expression):
                return root
        return None
    if isinstance(step, EvalEvent):
        return step.expr if isinstance(step.expr, Expression) else None
    return step if isinstance(step, Expression) else None


def depth_of(root) -> int:
    """The number of levels below `root` (0 for a leaf), without recursion."""
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((arg, level + 1) for arg in node.args)
    return deepest
