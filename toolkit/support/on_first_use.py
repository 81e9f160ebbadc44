"""Names of a package that load their module on first use (PEP 562).

A package whose heavy parts (the planner, the renderer, Substrait's protobuf
classes) would dominate `import toolkit` lists them here instead of importing
them: the name is looked up, its module imported and the value kept in the
package, on first access. One mechanism for every package that defers a name.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

__all__ = ["on_first_use"]


def on_first_use(package: str, names: dict[str, str]) -> tuple[Callable, Callable]:
    """`(__getattr__, __dir__)` for `package`, where `names` maps each deferred name to the
    module that defines it (a name that is the module itself, `toolkit.plan` for `plan`,
    is that module)."""

    def __getattr__(name: str):
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(source)
        value = loaded if source == f"{package}.{name}" else getattr(loaded, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names})

    return __getattr__, __dir__
