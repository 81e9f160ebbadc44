"""explain_dispatch: the steps binding takes for one call, as text a user can follow.

The steps `functions.resolution.resolve` took for `toolkit.functions.bind.bind_call`,
narrated: the exact match, the narrowed literals, what best dispatch changed,
the casts it implies and the kernel with its output type.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import NoKernelError
from .bind import bind
from .dispatch import smallest_type_for
from .registry import get_function
from .resolution import output_type, resolve
from .types import types_text

__all__ = ["explain_dispatch"]


def explain_dispatch(call, schema) -> str:
    """How `call` (an Expression call) binds against `schema`, step by step."""
    args = [bind(a, schema) for a in call.args]
    function = get_function(call.name)
    lines = [f"{call.name}{types_text([a.type for a in args])}"]
    try:
        resolution = resolve(function, args)
        failure = None
    except NoKernelError as exc:
        resolution, failure = None, exc
    if resolution is not None and resolution.exact:
        lines.append(f"1. exact match: {call.name}{resolution.kernel.signature()}; no casts")
    else:
        lines.append("1. exact match: none")
        given = [a.type for a in args]
        narrowed = [smallest_type_for(a.value) if a.is_literal and a.is_scalar else a.type
                    for a in args] if resolution is None else list(resolution.narrowed)
        lines.append(f"2. literals narrowed to their smallest type: {types_text(narrowed)}"
                     if narrowed != given else "2. no literal to narrow")
        rule = (function.dispatch_best.__doc__ or "").strip().split("\n\n")[0]
        lines.append("3. best dispatch: " + (" ".join(rule.split()) or "none (exact only)"))
        if failure is not None:
            arrow = failure.arrow_message.splitlines()[0]
            lines.append(f"   fails: {str(failure).splitlines()[0]} (Arrow: {arrow})")
            return "\n".join(lines)
        lines.append(f"   types become {types_text(list(resolution.types))}")
        casts = [f"arg {i}: {a.type} -> {t} ({'literal re-typed' if a.is_literal else 'safe cast'})"
                 for i, (a, t) in enumerate(zip(args, resolution.types)) if a.type != t]
        lines.append("4. implicit casts: " + ("; ".join(casts) if casts else "none"))
    options = call.options if call.options is not None else function.default_options
    out: pa.DataType = output_type(call.name, resolution.given, resolution, options)
    lines.append(f"=> kernel {call.name}{resolution.kernel.signature()}, output {out}")
    return "\n".join(lines)
