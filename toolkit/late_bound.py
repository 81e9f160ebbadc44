"""Methods of the engine's objects whose work lives in modules that import those objects.

`Expression.bind(schema)` is `toolkit.bind.bind`, `Expression.to_sql()` is
`toolkit.to_sql.to_sql`, `LogicalPlan.explain(verbose=True)` runs the plan
optimizer and planner, and Jupyter display draws with `toolkit.render`. Each of
those modules imports the object's own module, so the object importing them
back would make an import cycle. Instead, the module that does the work
provides it here when it is imported, and the method looks it up: the import
graph stays a tree with the expression model at the bottom.

`import toolkit` imports every provider, so the methods work whenever the
package is loaded. Display is the one optional operation: without a renderer,
objects show as text.
"""

from __future__ import annotations

from typing import Callable

from .errors import UsageError

__all__ = ["mimebundle", "operation", "provide"]

# what each operation is for, and the module that provides it
OPERATIONS = {
    "bind": "toolkit.bind",
    "to_sql": "toolkit.to_sql",
    "explain_plan": "toolkit.plan.explain",
    "render": "toolkit.render",
}

_provided: dict[str, Callable] = {}


def provide(name: str, fn: Callable) -> None:
    """Called once by the module that does the work of operation `name`."""
    if name not in OPERATIONS:
        raise UsageError(f"no late-bound operation is called {name!r}; "
                         f"known: {', '.join(sorted(OPERATIONS))}")
    _provided[name] = fn


def operation(name: str) -> Callable:
    """The function behind operation `name`, or a clear error naming the module to import."""
    fn = _provided.get(name)
    if fn is None:
        raise UsageError(f"{name} is provided by {OPERATIONS[name]}, which is not loaded; "
                         "import toolkit first")
    return fn


def mimebundle(obj) -> dict:
    """Jupyter's rich display of an engine object: the renderer's, else plain text."""
    render = _provided.get("render")
    return render(obj) if render is not None else {"text/plain": str(obj)}
