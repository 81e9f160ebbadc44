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


def test_every_exception_class_is_defined_in_the_errors_module():
    defined = []
    for path in list((ROOT / "toolkit").rglob("*.py")) + list((ROOT / "widgets").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(
                    getattr(b, "id", "").endswith(("Error", "Exception", "Violation", "Mismatch",
                                                   "NotFound")) for b in node.bases):
                defined.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert all(d.startswith("toolkit/errors.py") for d in defined), [
        d for d in defined if not d.startswith("toolkit/errors.py")]
    from toolkit import errors
    classes = [getattr(errors, n) for n in errors.__all__ if isinstance(getattr(errors, n), type)]
    names = {c.__name__ for c in classes}
    assert {"BindError", "PlanError", "InvariantViolation", "SelectionError", "EvaluationError",
            "DataSourceError", "MagicInputError", "DotNotFound", "TraceFormatError"} <= names
    assert all(issubclass(c, errors.ExprscopeError) for c in classes)
