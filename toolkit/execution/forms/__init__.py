"""The lazy special forms, one module per form; `branch.py` holds what they share.

Each form is a generator run by the trampoline (`trampoline.py`): it yields a
`ChildRequest` (a child, its place below the form, the selection to run it under)
and receives that child's compact value, so a form reads like its definition:
evaluate the condition, compute which rows each branch needs, evaluate the branches
on just those rows, merge. Nothing recurses, so nested forms compose their
selections at any depth.
"""

from __future__ import annotations

from . import and_or, case_when, choose, coalesce, if_else
from .branch import runs_eagerly
from .requests import BranchRun, ChildRequest

__all__ = ["FORMS", "BranchRun", "ChildRequest", "runs_eagerly"]

# name -> the form's generator (the modules keep their names: no function shadows one)
FORMS = {
    "if_else": if_else.if_else,
    "case_when": case_when.case_when,
    "coalesce": coalesce.coalesce,
    "choose": choose.choose,
    "and_kleene": and_or.and_kleene,
    "or_kleene": and_or.or_kleene,
}
