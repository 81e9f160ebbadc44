"""Methods of the engine's objects whose work lives in modules that import those objects.

`Expression.bind(schema)` is `toolkit.bind.bind`, `Expression.to_sql()` is
`toolkit.to_sql.to_sql`, `LogicalPlan.explain(verbose=True)` runs the plan
optimizer and planner, `LogicalPlan.to_substrait()` is
`toolkit.interop.substrait_plans.to_substrait`, and Jupyter display draws with `toolkit.render`. Each of
those modules imports the object's own module, so the object importing them
back would make an import cycle. Instead, the module that does the work
provides it here when it is imported, and the method looks it up: the import
graph stays a tree with the expression model at the bottom.

An operation whose module is not loaded yet loads it on first use: the
renderer (graphviz, the HTML report) is a third of toolkit's own import time, and a
script that never displays anything never pays for it. If the renderer cannot
be loaded, objects show as text.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .errors import UsageError

__all__ = ["mimebundle", "operation", "provide"]

# what each operation is for, and the module that provides it
OPERATIONS = {
    "bind": "toolkit.bind",
    "to_sql": "toolkit.to_sql",
    "explain_plan": "toolkit.plan.explain",
    "render": "toolkit.render",
    "to_substrait": "toolkit.interop.substrait_expressions",
    "plan_to_substrait": "toolkit.interop.substrait_plans",
    "row_story_to_json": "toolkit.explain.story_json",
    "row_story_from_json": "toolkit.explain.story_json",
    "explain_plan_row": "toolkit.explain.journey",
    "why_not": "toolkit.explain.journey",
}

_provided: dict[str, Callable] = {}


def provide(name: str, fn: Callable) -> None:
    """Called once by the module that does the work of operation `name`."""
    if name not in OPERATIONS:
        raise UsageError(f"no late-bound operation is called {name!r}; "
                         f"known: {', '.join(sorted(OPERATIONS))}")
    _provided[name] = fn


def operation(name: str) -> Callable:
    """The function behind operation `name`, loading the module that provides it if needed."""
    fn = _provided.get(name)
    if fn is None:
        # a registry lookup, not an import of a module above this one: the provider
        # imports the object's module, never the other way round
        importlib.import_module(OPERATIONS[name])
        fn = _provided.get(name)
    if fn is None:
        raise UsageError(f"{OPERATIONS[name]} was imported but did not provide {name}")
    return fn


def mimebundle(obj) -> dict:
    """Jupyter's rich display of an engine object: the renderer's, else plain text."""
    try:
        render = operation("render")
    except ImportError:  # a broken optional install must not break printing
        return {"text/plain": str(obj)}
    return render(obj)
