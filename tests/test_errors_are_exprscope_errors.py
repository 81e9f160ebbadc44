"""Every exception exprscope raises is an ExprscopeError: no bare ValueError or TypeError."""

import ast
from pathlib import Path

import toolkit as tk

ROOT = Path(__file__).parent.parent
BARE = {"ValueError", "TypeError", "KeyError", "RuntimeError", "Exception", "AssertionError"}


def test_no_bare_builtin_exception_is_raised_in_the_package():
    found = []
    for path in list((ROOT / "toolkit").rglob("*.py")) + list((ROOT / "widgets").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", None)
                if name in BARE:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: raise {name}(...)")
    assert not found, "\n".join(found)


def test_the_same_misuse_raises_the_same_error():
    from toolkit import plan

    for call in (lambda: plan.optimize("a table"), lambda: plan.create_physical_plan("a table")):
        try:
            call()
        except plan.PlanError as exc:
            assert "LogicalPlan" in str(exc)
        else:
            raise AssertionError("no error")
    try:
        tk.to_text(object())
    except tk.errors.UsageError as exc:  # still a TypeError for code that caught that
        assert isinstance(exc, TypeError) and "cannot draw" in str(exc)
