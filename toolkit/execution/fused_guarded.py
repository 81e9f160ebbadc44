"""The calls a fused loop computes that are costly, or that can fail on a row.

Costly: the logarithms (`ln`, `log10`, `log2`, `log1p`), `exp` and `power` on floats,
and integer division. A branch whose value holds one is computed only on the rows
that take it (`fused_kernels.Deferred`), as lazy evaluation would.

Can fail: integer `divide` (a zero divisor), `divide_checked` (also the minimum
divided by -1 for integers; a zero divisor for floats), and `ln_checked`,
`log10_checked`, `log2_checked` (at or below 0), `log1p_checked` (at or below -1),
`sqrt_checked` (below 0). Each says, as a row expression, where it fails given valid
arguments; the group's loop flags a row that takes its path and fails it, and the group
then runs unfused, which raises Arrow's error naming the row (`fusion.py`). Where it
does not fail, its value is the unchecked function's.

Every value here is Arrow's bit for bit, for every input (NaN payloads, -0.0,
infinities, subnormals; tests/execution/test_fused_guarded.py): the logarithms, `exp`
and `power` call the C library function Arrow's kernel calls, after Arrow's own tests
for 0 and negatives (`fused_math`). That holds while numba compiles a call to the C
library as a call to it: with Intel's SVML numba may vectorize such a loop with SVML's
own functions, which round differently, so then only `sqrt` and division fuse
(`exact_math`). Not fused: `expm1`, the trigonometric functions (not checked bit for
bit here), checked add/subtract/multiply (overflow), integer `power`.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import pyarrow as pa

from ..support import late

numba = late.module("numba")

__all__ = ["Guarded", "exact_math", "guarded_call"]

_INTS = (pa.int32(), pa.int64())
_FLOATS = (pa.float32(), pa.float64())
_NUMPY = {pa.int32(): "np.int32", pa.int64(): "np.int64", pa.float32(): "np.float32",
          pa.float64(): "np.float64"}
_SUFFIX = {pa.float32(): "f4", pa.float64(): "f8"}
_LOWEST = {pa.int32(): -2**31, pa.int64(): -2**63}
_LOGS = ("ln", "log10", "log2", "log1p")
# checked name -> (the unchecked helper, where it fails: `x` is its argument)
_CHECKED = {"ln_checked": ("ln", "({x} <= 0)"), "log10_checked": ("log10", "({x} <= 0)"),
            "log2_checked": ("log2", "({x} <= 0)"), "log1p_checked": ("log1p", "({x} <= -1)"),
            "sqrt_checked": ("sqrt", "({x} < 0)")}


class Guarded(NamedTuple):
    """One call's row expression, where it fails (None: never) and whether it is costly."""

    text: str
    fails: str | None
    costly: bool


@functools.cache
def exact_math() -> bool:
    """numba compiles the C library's logarithms and `exp` as calls to them (no SVML)."""
    return not numba.config.USING_SVML


def guarded_call(name: str, types: list, out, texts: list[str]) -> Guarded | None:
    """The call `name` over arguments of `types` (row expressions `texts`) giving `out`,
    when it is one of this module's; else None."""
    if not types or any(t != out for t in types):
        return None
    typed = [f"{_NUMPY[out]}({t})" for t in texts] if out in _NUMPY else texts
    if name in ("divide", "divide_checked") and len(texts) == 2:
        a, b = typed
        if out in _INTS:
            fails = f"({b} == 0)"
            if name == "divide_checked":
                fails = f"({fails} | (({b} == -1) & ({a} == {_LOWEST[out]})))"
            return Guarded(f"tdiv({a}, {b})", fails, True)
        if out in _FLOATS and name == "divide_checked":
            return Guarded(f"{_NUMPY[out]}({a} / {b})", f"({b} == 0)", False)
        return None
    if out not in _FLOATS:
        return None
    if len(texts) == 1:
        x = typed[0]
        if name == "sqrt":
            return Guarded(f"sqrt_{_SUFFIX[out]}({x})", None, False)
        if name in _CHECKED:
            helper, fails = _CHECKED[name]
            costly = helper != "sqrt"
            if costly and not exact_math():
                return None
            return Guarded(f"{helper}_{_SUFFIX[out]}({x})", fails.format(x=x), costly)
        if not exact_math():
            return None
        if name in _LOGS:
            return Guarded(f"{name}_{_SUFFIX[out]}({x})", None, True)
        if name == "exp":
            return Guarded(f"{_NUMPY[out]}(np.exp({x}))", None, True)
        return None
    if name == "power" and len(texts) == 2 and exact_math():
        return Guarded(f"{_NUMPY[out]}(np.power({typed[0]}, {typed[1]}))", None, True)
    return None
