"""The loops of `select_values`: a row's value from one side or the other, as raw bits.

Each is a select LLVM vectorizes (a blend per vector of rows); numba compiles one per
width of the values (1, 2, 4 or 8 bytes), its machine code cached on disk as the
string loops' is. A side given as one value (a literal) is its own loop: no column of
copies is ever made.
"""

from __future__ import annotations

from .cached_loops import compiled as _compiled


@_compiled
def columns(mask, when_true, when_false, out):
    for i in range(len(out)):
        out[i] = when_true[i] if mask[i] else when_false[i]


@_compiled
def column_and_value(mask, when_true, when_false, out):
    for i in range(len(out)):
        out[i] = when_true[i] if mask[i] else when_false


@_compiled
def value_and_column(mask, when_true, when_false, out):
    for i in range(len(out)):
        out[i] = when_true if mask[i] else when_false[i]


@_compiled
def values(mask, when_true, when_false, out):
    for i in range(len(out)):
        out[i] = when_true if mask[i] else when_false
