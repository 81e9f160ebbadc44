"""Boolean logic: Kleene and_kleene/or_kleene/and_not_kleene, plain and/or/and_not/xor, invert.

Kleene forms decide nulls themselves (`false and null` is false, `true or null`
is true), so they are COMPUTED; `and_kleene` and `or_kleene` are special forms
that the evaluator runs lazily (the right side only where the left does not
decide). The plain forms propagate any null (INTERSECTION). Arrow gives them no
implicit casts: only booleans bind.
"""

from __future__ import annotations

import pyarrow as pa

from .function import FunctionKind, Kernel, NullHandling
from .registry import definer
from .types import exact, fixed

define = definer("logic")

__all__: list[str] = []

_BOOL = exact(pa.bool_())


def _binary(name: str) -> list[Kernel]:
    return [Kernel(name, (_BOOL, _BOOL), fixed(pa.bool_()))]


define("and_kleene", _binary("and_kleene"),
       "Logical 'and' with Kleene logic: false wins over null.",
       null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM)
define("or_kleene", _binary("or_kleene"),
       "Logical 'or' with Kleene logic: true wins over null.",
       null_handling=NullHandling.COMPUTED, kind=FunctionKind.SPECIAL_FORM)
define("and_not_kleene", _binary("and_not_kleene"),
       "Logical 'x and not y' with Kleene logic.", null_handling=NullHandling.COMPUTED)
define("and", _binary("and"), "Logical 'and'; any null input gives null.")
define("or", _binary("or"), "Logical 'or'; any null input gives null.")
define("and_not", _binary("and_not"), "Logical 'x and not y'; any null input gives null.")
define("xor", _binary("xor"), "Logical 'xor'; any null input gives null.")
define("invert", [Kernel("invert", (_BOOL,), fixed(pa.bool_()))], "Invert boolean values.")
