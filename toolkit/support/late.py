"""Loading late: the one way anything in toolkit or widgets is imported on first use.

Two reasons to load something late. It is heavy: sqlglot, graphviz, pyarrow.dataset,
Substrait's protobuf classes or pyspark would multiply the cost of `import toolkit`
(benchmarks/bench_import.py measures it), and each serves a few features only. Or it
sits above the code that reaches it: `Expression.bind` is done by `toolkit.functions.bind`,
which imports the expression model, so the model cannot import it back.

The rules (tests/test_import_graph.py reads them from the source, so it sees every late
import as an edge of the import graph and holds it to the same direction as the others):

1. Every module path loaded late is a string literal at module level, in one of
   - `NAME = late.module("dotted.module")`: a stand-in that imports the module on the
     first attribute read (`NAME.attr`) and forwards to it from then on; or
   - `late.declare(NAMESPACE, {name: "dotted.module", ...})`: where the names of a
     namespace are found. A namespace is a package (its names are then read with PEP 562,
     `__getattr__, __dir__ = late.names(__name__)` in the package's `__init__`) or
     `late.OPERATIONS` (methods of lower objects whose work lives above them).
   The declaring module owns the edge: the graph test counts it from there.
2. A module declares only what it may import: the same folder, or a folder below it
   in docs/architecture.md's order. A name a lower object or package offers but a
   higher module provides (`Expression.bind`, `plan.from_substrait`, display) is
   declared by the package above both, `toolkit/__init__.py`, which every toolkit
   import runs first: the lower code names an operation, never the module.
3. A module that does an operation's work calls `late.provide(name, fn)` when imported;
   `late.operation(name)` finds it, importing the declared module the first time.
4. Nothing else in toolkit or widgets calls importlib or imports inside a function.

After the first use a stand-in costs one attribute lookup, a package name nothing (it is
stored in the package), an operation one dictionary lookup.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from types import ModuleType

from ..errors import UsageError

__all__ = ["OPERATIONS", "declare", "mimebundle", "module", "names", "operation", "provide"]

# the namespace of operations: methods of the engine's objects whose work lives in a
# module above the object's own (bind, to_sql, to_substrait, the renderer's display)
OPERATIONS = "operations"

# held while a late import runs: evaluation's worker threads may each reach the first use
# of a late module at once, and numba's package, imported by two threads together, was
# handed half made to one of them (ImportError: a partially initialized module)
_IMPORTING = threading.RLock()

# namespace -> {name: the module that provides it}, filled by `declare`
_DECLARED: dict[str, dict[str, str]] = {}
# operation -> the function that does it, filled by `provide`
_provided: dict[str, Callable] = {}


class LateModule:
    """A module imported on the first read of one of its attributes."""

    __slots__ = ("_loaded", "_name")

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_loaded", None)

    def __getattr__(self, attr: str):
        loaded = self._loaded
        if loaded is None:
            with _IMPORTING:
                loaded = importlib.import_module(self._name)
            object.__setattr__(self, "_loaded", loaded)
        return getattr(loaded, attr)

    def __setattr__(self, attr: str, value) -> None:
        raise AttributeError(f"{self._name} is loaded late; set {attr} on the module itself")

    def __reduce__(self):
        """Pickled by name: a function shipped by value to another process (a Spark
        executor) carries the stand-ins of its globals, each a new one there."""
        return module, (self._name,)

    def __repr__(self) -> str:
        state = "loaded" if self._loaded is not None else "not loaded yet"
        return f"<late module {self._name!r}, {state}>"


def module(name: str) -> LateModule:
    """A stand-in for module `name` that imports it on first use (rule 1)."""
    return LateModule(name)


def declare(namespace: str, table: dict[str, str]) -> None:
    """Names of `namespace` (a package, or OPERATIONS) and the module providing each."""
    _DECLARED.setdefault(namespace, {}).update(table)


def declared(namespace: str) -> dict[str, str]:
    """A copy of what has been declared for `namespace`."""
    return dict(_DECLARED.get(namespace, {}))


def names(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for `package`, serving the names declared for it. A name
    that is the module itself (`toolkit.plan` for `plan`) is that module."""

    def __getattr__(name: str):
        source = _DECLARED.get(package, {}).get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        with _IMPORTING:
            loaded = importlib.import_module(source)
        value = loaded if source == f"{package}.{name}" else getattr(loaded, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *_DECLARED.get(package, {})})

    return __getattr__, __dir__


def provide(name: str, fn: Callable) -> None:
    """Called once by the module that does the work of operation `name`."""
    _provided[name] = fn


def operation(name: str) -> Callable:
    """The function behind operation `name`, loading the module that provides it if needed."""
    fn = _provided.get(name)
    if fn is None:
        source = _DECLARED.get(OPERATIONS, {}).get(name)
        if source is None:
            known = ", ".join(sorted(_DECLARED.get(OPERATIONS, {})))
            raise UsageError(f"no operation is called {name!r}; known: {known}")
        with _IMPORTING:
            importlib.import_module(source)
        fn = _provided.get(name)
        if fn is None:
            raise UsageError(f"{source} was imported but did not provide {name}")
    return fn


def mimebundle(obj) -> dict:
    """Jupyter's rich display of an engine object: the renderer's, else plain text."""
    try:
        render = operation("render")
    except ImportError:  # a broken optional install must not break printing
        return {"text/plain": str(obj)}
    return render(obj)


def loaded(stand_in: LateModule) -> ModuleType | None:
    """The module behind a stand-in if it has been imported, else None (for tests)."""
    return stand_in._loaded
