"""The functions a fused loop calls that Python's operators do not spell as Arrow does.

Each is Arrow's kernel written out for numba, for one type (a float32 helper keeps its
constants float32: a float64 NaN or infinity would widen the result):

- `ln`, `log10`, `log2`, `log1p`: Arrow's unchecked logarithms, -inf at 0 (at -1 for
  `log1p`) and its own quiet NaN below, else the C library's function, the one Arrow's
  kernel calls (numba's `np.log` is that call: bit for bit the same result, NaN payloads
  included, checked in tests/execution/test_fused_guarded.py);
- `sqrt`: NaN below zero (Arrow's, not the C library's negative NaN), -0.0 stays -0.0;
- `tdiv`: Arrow's unchecked integer division, truncating toward zero, 0 for the minimum
  divided by -1, computed with a divisor of 1 where the divisor is 0 or that overflow
  would trap: the loop never traps, and flags a zero divisor itself (`fusion.py`).

numba is imported when a loop is compiled (`names`), not with this module.
"""

from __future__ import annotations

import functools

import numpy as np

from ..support import late

numba = late.module("numba")
extending = late.module("numba.extending")
numba_types = late.module("numba.core.types")
ir = late.module("llvmlite.ir")

__all__ = ["names"]


def _floats(dtype):
    inf, nan = dtype.type(np.inf), dtype.type(np.nan)
    low, minus_one = dtype.type(0), dtype.type(-1)
    jit = numba.njit(error_model="numpy")

    @jit
    def ln(x):
        return -inf if x == low else (nan if x < low else np.log(x))

    @jit
    def log10(x):
        return -inf if x == low else (nan if x < low else np.log10(x))

    @jit
    def log2(x):
        return -inf if x == low else (nan if x < low else np.log2(x))

    @jit
    def log1p(x):
        return -inf if x == minus_one else (nan if x < minus_one else np.log1p(x))

    @jit
    def sqrt(x):
        return nan if x < low else np.sqrt(x)

    return {"ln": ln, "log10": log10, "log2": log2, "log1p": log1p, "sqrt": sqrt}


def _tdiv():
    @extending.intrinsic
    def tdiv(typingctx, x, y):
        if not isinstance(x, numba_types.Integer) or x != y or not x.signed:
            return None

        def codegen(context, builder, signature, args):
            left, right = args
            kind = left.type
            zero, one = ir.Constant(kind, 0), ir.Constant(kind, 1)
            lowest = ir.Constant(kind, -(1 << (kind.width - 1)))
            overflow = builder.and_(builder.icmp_signed("==", right, ir.Constant(kind, -1)),
                                    builder.icmp_signed("==", left, lowest))
            undefined = builder.or_(builder.icmp_signed("==", right, zero), overflow)
            quotient = builder.sdiv(left, builder.select(undefined, one, right))
            return builder.select(undefined, zero, quotient)

        return x(x, y), codegen

    return tdiv


@functools.cache
def names() -> dict:
    """name -> function, for a loop's namespace: `ln_f8`, `sqrt_f4`, ..., `tdiv`."""
    out = {"tdiv": _tdiv()}
    for suffix, dtype in (("f8", np.dtype(np.float64)), ("f4", np.dtype(np.float32))):
        out.update({f"{name}_{suffix}": fn for name, fn in _floats(dtype).items()})
    return out
