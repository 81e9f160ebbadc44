"""describe(name): a function's doc, arity, null handling, options and signatures as text."""

from __future__ import annotations

from ..model.options import options_to_string
from .registry import get_function

__all__ = ["describe"]


def describe(name: str) -> str:
    fn = get_function(name)
    if fn.options_class is None:
        options = "none"
    elif fn.default_options is not None:
        options = f"{fn.options_class.__name__} (default: {options_to_string(fn.default_options)})"
    else:
        options = f"{fn.options_class.__name__} ({'required' if fn.options_required else 'optional'})"
    traits = [fn.kind.value.replace("_", " ")]
    traits.append("pure" if fn.pure else "impure")
    if fn.can_fail:
        traits.append("can fail per row")
    lines = [
        f"{fn.name}: {fn.doc}",
        f"  kind:          {', '.join(traits)}",
        f"  family:        {fn.family}",
        f"  arity:         {fn.arity}",
        f"  null handling: {fn.null_handling.value}",
        f"  options:       {options}",
    ]
    if fn.dispatch_best is not None:
        first = (fn.dispatch_best.__doc__ or "").strip().split("\n\n")[0]
        lines.append(f"  implicit casts: {' '.join(first.split())}")
    else:
        lines.append("  implicit casts: none (exact signatures only)")
    lines.append(f"  signatures ({len(fn.kernels)}):")
    lines += [f"    {s}" for s in fn.signatures()]
    return "\n".join(lines)
