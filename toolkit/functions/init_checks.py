"""Kernel init at bind time: options are checked when a call binds, not when it runs.

Arrow runs a kernel's `init` with the options while binding (docs/semantics.md
§4 step 6), so a bad value set or a missing pattern is reported by `bind`. Here
the same check runs the real pyarrow kernel once on empty arrays of the bound
types: the options are validated by the code that will later use them, and no
row is computed.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import BindError
from ..support.bounded_cache import ObjectCache

__all__ = ["probe_empty", "requires_options"]


def requires_options(function, kernel, types, options) -> None:
    if options is None:
        cls = function.options_class.__name__ if function.options_class else "options"
        raise BindError(f"Function '{function.name}' needs {cls}; none were given")


# (options object, function name, input types) that passed, kept with the options alive
_ACCEPTED = ObjectCache(4096)


def probe_empty(function, kernel, types, options) -> None:
    """Options present, and pyarrow's kernel accepts them for these input types."""
    requires_options(function, kernel, types, options)
    tag = (function.name, *types)
    if _ACCEPTED.get(options, tag):
        return
    try:
        args = [pa.nulls(0, t) for t in types]
        function(args, options, kernel)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise BindError(f"Function '{function.name}' rejects its options for input types "
                        f"({', '.join(map(str, types))}): {exc}") from exc
    _ACCEPTED.put(options, True, tag)
