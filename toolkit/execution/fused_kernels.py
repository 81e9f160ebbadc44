"""Fused groups as machine code: one numba kernel per group, one loop over a morsel.

A group (`fusion.py`) arrives as two row expressions written from exprscope's own
bound tree, never from user text: its value and, where Kleene logic, `if_else` or
`coalesce` decide nulls row by row, its validity, after statements (`lets`: a
`case_when`'s or `coalesce`'s selects, one per case, into temporaries). They read `f_..[i]` (a column's
value), `v_f_..[i]` (its validity, one bool per row) and `k..` (a literal, passed as
a typed argument, so the kernel's arithmetic is the literal's type's, never Python's).
This module wraps them in a loop and compiles it with numba, once per source text in
the process: at once when fusion is asked for (the first morsel to ask compiles, the
others wait for it), or on a thread of its own when fusion is the default's choice
(`compile_later`: the evaluation that asked runs unfused, later ones use the loop).

The loop is written so that LLVM vectorizes it: selects, not branches (`x if c else y`
of two values already computed), no call that raises (`error_model="numpy"`: a float
divided by zero is inf or NaN, as in Arrow). A boolean result and a validity are
written a byte per row and packed into Arrow bitmaps by numpy. A group has at most two
loops: one for morsels where no column it reads the validity of holds a null (no
validity computed), one for the others (a column without nulls reads as all ones).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ..support import late

numba = late.module("numba")  # loaded by the first loop compiled: its import is slow

__all__ = ["FirstTrue", "KernelOutput", "KernelSource", "asked", "available", "compile_later", "compiled", "kernel_source",
           "ready", "run_kernel", "settle"]

_ARGUMENT = re.compile(r"\bv_f_[0-9_]+\b|\bf_[0-9_]+\b|\bk[0-9]+\b")


@dataclass(frozen=True, slots=True)
class KernelSource:
    """One loop's text: what it reads (the names after `n, out, valid`, in order) and
    writes."""

    text: str
    arguments: tuple[str, ...]
    packs_value: bool  # the value is a bitmap (a boolean result)
    has_validity: bool  # it writes a validity bitmap
    codes: int = 0  # traced: the forms whose branch per row it writes (`codes`, one row each)


class FirstTrue(NamedTuple):
    """A branch code: the index of the first of `conditions` true on the row (their
    count when none is). Written as a running count of the leading false conditions,
    which LLVM vectorizes; a chain of selects writing the index measured twice as slow."""

    conditions: tuple[str, ...]





def _code_texts(codes) -> str:
    return " ".join(" ".join(c.conditions) if isinstance(c, FirstTrue) else c for c in codes)


# source text -> numba's dispatcher for it, compiled (or being compiled by the first caller)
_KERNELS: dict[str, object] = {}
_LOCK = threading.Lock()
_LATER: ThreadPoolExecutor | None = None  # one thread compiling what evaluations asked for
_ASKED: set[str] = set()  # texts handed to that thread
_PENDING: list = []  # its futures not yet seen done


def available() -> bool:
    """numba can be imported (checked once)."""
    return _numba_spec() is not None


@functools.cache
def _numba_spec():
    return importlib.util.find_spec("numba")


def kernel_source(value: str, validity: str | None, boolean: bool,
                  codes: tuple = (), lets: tuple[str, ...] = ()) -> KernelSource:
    """The loop computing `value` (and `validity`, when given; and each of `codes`, a
    form's branch per row, into a row of its own of a uint8 matrix), after the
    statements `lets` (temporaries those read)."""
    read = " ".join((value, validity or "", _code_texts(codes), *lets))
    arguments = tuple(sorted(set(_ARGUMENT.findall(read))))
    return KernelSource(_source(value, validity, arguments, codes, lets), arguments, boolean,
                        validity is not None, len(codes))


def compiled(kernel: KernelSource):
    """The loop's dispatcher, made once per process (numba compiles it on its first call,
    under its own lock: one thread compiles, the others wait and use it)."""
    found = _KERNELS.get(kernel.text)
    if found is None:
        with _LOCK:
            found = _KERNELS.get(kernel.text)
            if found is None:
                found = _KERNELS[kernel.text] = _dispatcher(kernel.text)
    return found


def ready(kernel: KernelSource):
    """The loop's dispatcher if it is compiled already, else None (importing nothing)."""
    found = _KERNELS.get(kernel.text)
    return found if found is not None and found.signatures else None


def asked(kernel: KernelSource) -> bool:
    """The loop was handed to the compiling thread already."""
    return kernel.text in _ASKED


def compile_later(kernel: KernelSource, rows: int, dtype: np.dtype, arguments: dict) -> None:
    """Compile the loop on a thread of its own, once, for arguments of these types (the
    first rows of `arguments` stand in for them): evaluations meanwhile run unfused."""
    global _LATER
    sample = {name: value[:8] if isinstance(value, np.ndarray) else value
              for name, value in arguments.items()}
    with _LOCK:
        if kernel.text in _ASKED:
            return
        _ASKED.add(kernel.text)
        if _LATER is None:
            _LATER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="exprscope-compile")
        _PENDING.append(_LATER.submit(run_kernel, kernel, min(rows, 8), dtype, sample))


def settle() -> None:
    """Wait until the loops handed to the compiling thread are compiled (a benchmark or
    a test that wants the default's steady state calls this)."""
    while True:
        with _LOCK:
            if not _PENDING:
                return
            waiting = _PENDING.pop()
        waiting.result()


def _source(value: str, validity: str | None, arguments, codes: tuple = (),
            lets: tuple[str, ...] = ()) -> str:
    """The loop's Python source: `out` gets a value per row (a bool per row for a
    boolean result), `valid` a bool per row (when `validity` is given), `codes[k]` the
    k-th form's branch per row (when traced); `lets` run first on each row."""
    head = "n, out, valid, codes" if codes else "n, out, valid"
    text = (f"def kernel({head}, {', '.join(arguments)}):\n    for i in range(n):\n"
            + "".join(f"        {let}\n" for let in lets) + f"        out[i] = {value}\n")
    if validity is not None:
        text += f"        valid[i] = {validity}\n"
    for k, code in enumerate(codes):
        if isinstance(code, FirstTrue):
            text += f"        r{k} = True\n        c{k} = 0\n"
            for condition in code.conditions:
                text += f"        r{k} = r{k} & (not {condition})\n        c{k} += r{k}\n"
            code = f"c{k}"
        text += f"        codes[{k}, i] = {code}\n"
    return _reads_first(text)


_READ = re.compile(r"\b((?:v_)?f_[0-9_]+)\[i\]")


def _reads_first(text: str) -> str:
    """The loop with each column's row read once, into a local, before anything else.

    Read inside a select (`f_2[i] if v_f_2[i] else f_3[i]`), a column is a load only
    some rows make, which LLVM does not vectorize: a five-argument coalesce measured ten
    times slower so. Every row of every column argument is in bounds, so reading them all
    is safe whatever the row takes."""
    head, loop, body = text.partition("    for i in range(n):\n")
    reads = sorted(set(_READ.findall(body)))
    loads = "".join(f"        x_{name} = {name}[i]\n" for name in reads)
    return head + loop + loads + _READ.sub(r"x_\1", body)


def _dispatcher(text: str):
    """`text` run as a module of its own (the only names it sees are numpy's), its
    function handed to numba, which compiles it when first called."""
    namespace: dict = {"np": np}
    exec(compile(text, "<fused kernel>", "exec"), namespace)  # noqa: S102 - generated
    return numba.njit(nogil=True, error_model="numpy")(namespace["kernel"])


class KernelOutput(NamedTuple):
    """What one run of a loop wrote."""

    value: np.ndarray  # the value buffer (a bitmap for a boolean result)
    validity: np.ndarray | None  # a validity bitmap, when the loop makes one
    codes: np.ndarray | None  # traced: each form's branch per row (forms x rows, uint8)


def run_kernel(kernel: KernelSource, rows: int, dtype: np.dtype, arguments: dict) -> KernelOutput:
    """The loop's outputs over `rows` rows: a boolean value and the validity are written
    a byte per row, then packed into bitmaps (a loop packing bits as it goes measured
    slower, and compiles slower)."""
    out = _pooled(rows, np.dtype(np.bool_) if kernel.packs_value else dtype)
    valid = _pooled(rows, np.dtype(np.bool_)) if kernel.has_validity else _NO_BITMAP
    values = [arguments[name] for name in kernel.arguments]
    codes = None
    if kernel.codes:
        codes = np.empty((kernel.codes, rows), np.uint8)
        compiled(kernel)(rows, out, valid, codes, *values)
    else:
        compiled(kernel)(rows, out, valid, *values)
    if kernel.packs_value:
        out = np.packbits(out, bitorder="little")
    return KernelOutput(out, np.packbits(valid, bitorder="little") if kernel.has_validity
                        else None, codes)


_NO_BITMAP = np.empty(0, np.bool_)


def _pooled(rows: int, dtype: np.dtype) -> np.ndarray:
    """An uninitialized array from Arrow's memory pool, which keeps freed memory for the
    next morsel: a fresh numpy array of a morsel's size is new pages from the system,
    each faulted in on first write (four times the loop's own time on a 1M-row morsel)."""
    return np.frombuffer(pa.allocate_buffer(rows * dtype.itemsize), dtype)
