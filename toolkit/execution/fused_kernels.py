"""Fused groups as machine code: one numba kernel per group, one loop over a morsel.

A group (`fusion.py`) arrives as two row expressions written from exprscope's own
bound tree, never from user text: its value and, where Kleene logic, `if_else` or
`coalesce` decide nulls row by row, its validity. They read `f_..[i]` (a column's
value), `v_f_..[i]` (its validity, one bool per row) and `k..` (a literal, passed as
a typed argument, so the kernel's arithmetic is the literal's type's, never Python's).
This module wraps them in a loop and compiles it with numba, once per source text in
the process (the first morsel to ask compiles; the others wait for it).

The loop is written so that LLVM vectorizes it: selects, not branches (`x if c else y`
of two values already computed), no call that raises (`error_model="numpy"`: a float
divided by zero is inf or NaN, as in Arrow). A boolean result or a validity is
packed into an Arrow bitmap eight rows at a time inside the loop. Where a column has
no null in a morsel its validity is the constant True in the source, so LLVM drops it;
each such pattern of columns with and without nulls is its own kernel.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np

from ..support import late

numba = late.module("numba")  # loaded by the first fused group: its import takes ~0.2 s

__all__ = ["Kernel", "kernel_for", "run_kernel"]

_VALIDITY_READ = re.compile(r"\bv_(f_[0-9_]+)\[i\]")
_ARGUMENT = re.compile(r"\bv_f_[0-9_]+\b|\bf_[0-9_]+\b|\bk[0-9]+\b")


@dataclass(frozen=True, slots=True)
class Kernel:
    """One compiled loop: the names of its arguments after `n` and its outputs, in order."""

    source: str
    arguments: tuple[str, ...]
    compiled: object  # numba's dispatcher
    packs_value: bool  # the value is a bitmap (a boolean result)
    has_validity: bool  # it writes a validity bitmap


_KERNELS: dict[str, Kernel] = {}
_LOCK = threading.Lock()


def _without_nulls(text: str, with_nulls: frozenset) -> str:
    """`text` with the validity of every column outside `with_nulls` the constant True."""
    return _VALIDITY_READ.sub(lambda m: m.group(0) if m.group(1) in with_nulls else "True",
                              text)


def kernel_for(value: str, validity: str | None, boolean: bool,
               with_nulls: frozenset) -> Kernel:
    """The kernel computing `value` (and `validity`, when given) for a morsel whose
    columns holding nulls are `with_nulls`, compiled once per process."""
    value = _without_nulls(value, with_nulls)
    validity = _without_nulls(validity, with_nulls) if validity is not None else None
    arguments = tuple(sorted(set(_ARGUMENT.findall(value + " " + (validity or "")))))
    source = _source(value, validity, boolean, arguments)
    found = _KERNELS.get(source)
    if found is None:
        with _LOCK:
            found = _KERNELS.get(source)
            if found is None:
                found = _KERNELS[source] = _compiled(source, arguments, boolean,
                                                     validity is not None)
    return found


def _source(value: str, validity: str | None, boolean: bool, arguments) -> str:
    """The loop's Python source. `out` holds a value per row, or a bitmap (`boolean`);
    `valid` the validity bitmap (when `validity` is given)."""
    head = f"def kernel(n, out, valid, {', '.join(arguments)}):\n"
    if not boolean and validity is None:
        return head + f"    for i in range(n):\n        out[i] = {value}\n"
    body = [f"            bits |= np.uint8({value}) << np.uint8(i & 7)" if boolean
            else f"            out[i] = {value}"]
    if validity is not None:
        body.append(f"            vbits |= np.uint8({validity}) << np.uint8(i & 7)")
    text = head + "    whole = n >> 3\n"
    # whole bytes of eight rows, then the last few rows into one byte more
    for opening, rows, byte in (("for j in range(whole):", "range(j << 3, (j << 3) + 8)", "j"),
                                ("if n & 7:", "range(whole << 3, n)", "whole")):
        text += (f"    {opening}\n        bits = np.uint8(0)\n        vbits = np.uint8(0)\n"
                 f"        for i in {rows}:\n" + "\n".join(body) + "\n")
        if boolean:
            text += f"        out[{byte}] = bits\n"
        if validity is not None:
            text += f"        valid[{byte}] = vbits\n"
    return text


def _compiled(source: str, arguments, boolean: bool, has_validity: bool) -> Kernel:
    """`source` run as a module of its own (the only names it sees are numpy's), its
    function compiled by numba when first called."""
    namespace: dict = {"np": np}
    exec(compile(source, "<fused kernel>", "exec"), namespace)  # noqa: S102 - generated
    dispatcher = numba.njit(nogil=True, error_model="numpy")(namespace["kernel"])
    return Kernel(source, arguments, dispatcher, boolean, has_validity)


def run_kernel(kernel: Kernel, rows: int, dtype: np.dtype, arguments: dict):
    """(value buffer, validity bitmap or None) of the kernel over `rows` rows."""
    if kernel.packs_value:
        out = np.empty((rows + 7) >> 3, np.uint8)
    else:
        out = np.empty(rows, dtype)
    valid = np.empty((rows + 7) >> 3, np.uint8) if kernel.has_validity else _NO_BITMAP
    kernel.compiled(rows, out, valid, *[arguments[name] for name in kernel.arguments])
    return out, (valid if kernel.has_validity else None)


_NO_BITMAP = np.empty(0, np.uint8)
