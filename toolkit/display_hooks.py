"""Where the renderer plugs into Jupyter display without the engine importing it.

Engine objects (expressions, plans) call `mimebundle(self)` from their
`_repr_mimebundle_`; `toolkit.render` registers the function that draws them
when it is imported. Without a renderer, objects show as text.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["register_renderer", "mimebundle"]

_renderer: Callable[[object], dict] | None = None


def register_renderer(fn: Callable[[object], dict]) -> None:
    global _renderer
    _renderer = fn


def mimebundle(obj) -> dict:
    if _renderer is not None:
        return _renderer(obj)
    return {"text/plain": str(obj)}
