"""explain_dispatch: the steps binding takes for one call, as text a user can follow.

The same steps as `toolkit.bind.bind_call` (ARROW_SEMANTICS.md §3), narrated:
the exact match, the narrowed literals, what best dispatch changed, the casts
it implies and the kernel with its output type.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import BindError
from .dispatch import check_arity, dispatch, exact_kernel, smallest_type_for
from .registry import get_function
from .types import types_text

__all__ = ["explain_dispatch"]


def explain_dispatch(call, schema) -> str:
    """How `call` (an Expression call) binds against `schema`, step by step."""
    from ..bind import bind  # bind imports this package; import lazily

    args = [bind(a, schema) for a in call.args]
    function = get_function(call.name)
    types = [a.type for a in args]
    lines = [f"{call.name}{types_text(types)}"]
    check_arity(function, len(types))
    kernel = exact_kernel(function, types)
    if kernel is not None:
        lines.append(f"1. exact match: {call.name}{kernel.signature()}; no casts")
    else:
        lines.append("1. exact match: none")
        narrowed = [smallest_type_for(a.value) if a.is_literal and a.is_scalar else a.type
                    for a in args]
        if narrowed != types:
            lines.append(f"2. literals narrowed to their smallest type: {types_text(narrowed)}")
        else:
            lines.append("2. no literal to narrow")
        rule = (function.dispatch_best.__doc__ or "").strip().split("\n\n")[0]
        lines.append("3. best dispatch: " + (" ".join(rule.split()) or "none (exact only)"))
        try:
            kernel, best = dispatch(function, narrowed)
        except BindError as exc:
            lines.append(f"   fails: {str(exc).splitlines()[0]}")
            return "\n".join(lines)
        lines.append(f"   types become {types_text(best)}")
        casts = [f"arg {i}: {a.type} -> {t} ({'literal re-typed' if a.is_literal else 'safe cast'})"
                 for i, (a, t) in enumerate(zip(args, best)) if a.type != t]
        lines.append("4. implicit casts: " + ("; ".join(casts) if casts else "none"))
        types = best
    options = call.options if call.options is not None else function.default_options
    out: pa.DataType = kernel.output.resolve(types, options)
    lines.append(f"=> kernel {call.name}{kernel.signature()}, output {out}")
    return "\n".join(lines)
