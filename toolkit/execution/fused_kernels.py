"""Fused groups as machine code: one numba kernel per group, one loop over a morsel.

A group (`fusion.py`) arrives as two row expressions written from exprscope's own
bound tree, never from user text: its value and, where Kleene logic, `if_else` or
`coalesce` decide nulls row by row, its validity, after statements (`lets`: a
`case_when`'s or `coalesce`'s selects, one per case, into scalar temporaries `s..`).
They read `f_..[i]` (a column's value), `v_f_..[i]` (its validity, one bool per row)
and `k..` (a literal, passed as a typed argument, so the kernel's arithmetic is the
literal's type's, never Python's).
This module wraps them in a loop and compiles it with numba, once per source text in
the process: at once when fusion is asked for (the first morsel to ask compiles, the
others wait for it), or on a thread of its own when fusion is the default's choice
(`compile_later`: the evaluation that asked runs unfused, later ones use the loop).

The loop is written so that LLVM vectorizes it: selects, not branches (`x if c else y`
of two values already computed), no call that raises (`error_model="numpy"`: a float
divided by zero is inf or NaN, as in Arrow; an integer division divides by 1 where it
would trap, `fused_math.tdiv`). The main loop reads each column's row into a local
before the row's statements (`_reads_first`: a load only some rows make, under a
select, did not vectorize).

Costly values under a branch (`Deferred`: a logarithm, `exp`, `power` or an integer
division that only some rows' branch takes) are not computed for every row and then
selected: before the main loop, one pass lists the rows that take the value's path
(`idx[m] = i; m += path`, no branch), a second computes the value for those rows only
into a temporary (`t0[i]`, a scratch array the thread keeps: arrays made per call cost
page faults), which the main loop reads where the branch is taken. Against
a real `if` around the costly value inside the main loop (LLVM's own form of
`x if c else y` when `x` calls the C library) and a select of both values computed, it
measured a little slower than the `if` at 1% of rows (its extra pass), faster than both
at 10% and 50% (a branch taken at random half the time is mispredicted), even at 90%,
slower than both where every row takes the path (docs/benchmarks.md). So where every
row takes every deferred value's path (counted first, when no path reads another
deferred value), the main loop computes them in place, as a branch always taken, with
no list or temporary.

A loop whose group holds calls that can fail (`fusion.py`) also returns a flag: true
when some row that takes a failing call's path fails it. The loop never raises (its
values there are anything); the caller runs the group unfused, which raises the
error naming the row.

A boolean result is written 64 rows a word, a validity a byte per row packed into an
Arrow bitmap by numpy after, into arrays from Arrow's memory pool. Each loop computes only the
statements its own texts read (a deferred value's pass those of its path and value).
A group has at most two
loops: one for morsels where no column it reads the validity of holds a null (no
validity computed), one for the others (a column without nulls reads as all ones).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..support import late
from ..support.pool_arrays import pool_array
from . import fused_math

numba = late.module("numba")  # loaded by the first loop compiled: its import is slow

__all__ = ["CodeSlot", "Deferred", "FirstTrue", "KernelOutput", "KernelSource", "asked",
           "available", "code_layout", "codes_loop", "compile_later", "compiled",
           "kernel_source", "nesting", "ready", "run_kernel", "settle"]

_ARGUMENT = re.compile(r"\bv_f_[0-9_]+\b|\bf_[0-9_]+\b|\bk[0-9]+\b")


@dataclass(frozen=True, slots=True)
class KernelSource:
    """One loop's text: what it reads (the names after `n, out, valid`, in order) and
    writes."""

    text: str
    arguments: tuple[str, ...]
    packs_value: bool  # the value is a bitmap (a boolean result)
    has_validity: bool  # it writes a validity bitmap
    codes: int = 0  # traced: the rows of the `codes` matrix it writes (a byte per row each)
    layout: tuple = ()  # traced: where each form's branch code lies in them (`CodeSlot`s)
    fails: bool = False  # it returns whether a row failed (see `Deferred.fails`)
    # its deferred values' temporaries, numpy's name for each one's type: scratch arrays
    # the caller passes after `idx` (the listed rows), before the arguments
    temporaries: tuple[str, ...] = ()
    # traced: the loop writing its codes alone (`codes_loop`); None untraced, or when a
    # code nests too deep to be written alone
    codes_only: KernelSource | None = None
    writes_codes_only: bool = False  # it is such a loop: it reads `n, codes` and its arguments


class Deferred(NamedTuple):
    """A costly value computed before the main loop, only on the rows of its path, into
    the temporary `name` (read `name[i]`); a value it reads from another comes after it."""

    name: str
    dtype: str  # numpy's name for its type, as the loop spells it: "np.float64"
    value: str  # its row expression
    path: str  # true on the rows whose branch needs it
    fails: str | None  # true where computing it on the row fails (None: it cannot)


class FirstTrue(NamedTuple):
    """A branch code: the index of the first of `conditions` true on the row (their
    count when none is)."""

    conditions: tuple[str, ...]


class CodeSlot(NamedTuple):
    """Where one form's branch code lies in the `codes` matrix: bits `shift` ..
    `shift + bits - 1` of row `row` (a byte per grid row)."""

    row: int
    shift: int
    bits: int


def code_layout(codes: tuple) -> tuple[CodeSlot, ...]:
    """Each code's slot: as many codes to a byte as their bits allow (an and/or's code is
    one bit, a case index of n cases n.bit_length() bits), so a chain of and/or writes
    one byte per row, not one per form: the codes are kept with the trace, and their
    bytes went through memory. A code has at most 8 bits: a case_when of more than 255
    cases has no code here (the groups' size limits keep it far below that)."""
    slots, row, taken = [], -1, 8
    for code in codes:
        bits = max(1, len(code.conditions).bit_length()) if isinstance(code, FirstTrue) else 1
        if taken + bits > 8:
            row, taken = row + 1, 0
        slots.append(CodeSlot(row, taken, bits))
        taken += bits
    return tuple(slots)


def _code_texts(codes) -> str:
    return " ".join(" ".join(c.conditions) if isinstance(c, FirstTrue) else c for c in codes)


# source text -> numba's dispatcher for it, compiled (or being compiled by the first caller)
_KERNELS: dict[str, object] = {}
_COMPILED: set[str] = set()  # the texts whose dispatcher has compiled a signature
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
                  codes: tuple = (), deferred: tuple[Deferred, ...] = (),
                  fails: str | None = None, lets: tuple[str, ...] = ()) -> KernelSource:
    """The loop computing `value` (and `validity`, when given; and each of `codes`, a
    form's branch per row, into a row of its own of a uint8 matrix), after its
    `deferred` values; `fails` is true where the main loop's own calls fail on a row.
    Every text may read the temporaries the statements `lets` (`name = expression`, in
    order) assign."""
    layout = code_layout(codes)
    text = _source(value, validity, codes, layout, deferred, fails, lets, boolean)
    arguments = tuple(sorted(set(_ARGUMENT.findall(text.partition("\n")[2]))))
    text = text.replace("ARGUMENTS", ", ".join(arguments), 1)
    flags = fails is not None or any(d.fails is not None for d in deferred)
    return KernelSource(text, arguments, boolean, validity is not None,
                        layout[-1].row + 1 if layout else 0, layout, flags,
                        tuple(d.dtype for d in deferred),
                        codes_loop(codes, layout, deferred, lets) if codes else None)


def codes_loop(codes: tuple, layout: tuple, deferred: tuple[Deferred, ...] = (),
               lets: tuple[str, ...] = ()) -> KernelSource | None:
    """The loop writing each form's branch per row and nothing else: what a trace runs
    when it is read (`fused_codes`), over the columns its group read. A code reading a
    deferred value computes it in place (its conditions are what it needs, not the
    values); None when that nests deeper than Python parses."""
    inline = _inlined(deferred)
    codes = tuple(inline(c) for c in codes)
    lets = tuple(inline(let) for let in lets)
    pad = "        "
    body = f"{_lines([_code_texts(codes)], lets, len(pad))}{_code_lines(codes, pad)}"
    rows: dict[int, list[str]] = {}
    for k, slot in enumerate(layout):
        rows.setdefault(slot.row, []).append(f"(np.uint8(c{k}) << np.uint8({slot.shift}))"
                                             if slot.shift else f"np.uint8(c{k})")
    body += "".join(f"{pad}codes[{r}, i] = {' | '.join(terms)}\n" for r, terms in rows.items())
    loop = "    for i in range(n):\n" + _reads_first(body, pad)
    if len(loop) > 2 * _PARSED_NESTING and nesting(loop) > _PARSED_NESTING:
        return None
    arguments = tuple(sorted(set(_ARGUMENT.findall(loop))))
    text = f"def kernel(n, codes, {', '.join(arguments)}):\n{loop}    return False\n"
    return KernelSource(text, arguments, False, False, layout[-1].row + 1, layout,
                        writes_codes_only=True)


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
    if found is None:
        return None
    if kernel.text in _COMPILED:
        return found
    if found.signatures:  # numba builds this list afresh on every read
        _COMPILED.add(kernel.text)
        return found
    return None


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


def _source(value: str, validity: str | None, codes: tuple = (), layout: tuple = (),
            deferred: tuple[Deferred, ...] = (), fails: str | None = None,
            lets: tuple[str, ...] = (), boolean: bool = False) -> str:
    """The loop's Python source (its arguments' list left as `ARGUMENTS`): `out` gets a
    value per row (a bool per row for a boolean result), `valid` a bool per row (when
    `validity` is given), `codes` each form's branch per row, in its slot of `layout`
    (when traced); it returns whether a row failed."""
    head = "n, out, valid, codes" if codes else "n, out, valid"
    if deferred:
        head += ", idx, " + ", ".join(d.name for d in deferred)
    text = f"def kernel({head}, ARGUMENTS):\n    fail = False\n"
    if deferred and not any(_TEMPORARY.search(" ".join((d.path, *_needed(lets, [d.path]))))
                            for d in deferred):
        # every row takes every deferred value's path: the costly values in the main loop
        # (a branch always taken), without their passes and temporaries
        inline = _inlined(deferred)
        variant = "    if every:\n" + _main_loop(
            *(inline(t) for t in (value, validity, fails)),
            tuple(inline(c) for c in codes), layout, tuple(inline(let) for let in lets),
            extra_fails=tuple(inline(d.fails) for d in deferred if d.fails is not None),
            indent="    ", packs=boolean) + "        return fail\n"
        if nesting(variant) <= _PARSED_NESTING:  # inlined, the texts nest deeper
            text += "".join(f"    m = 0\n    for i in range(n):\n{_lines(d.path, lets, 8)}"
                            f"        m += {d.path}\n    every = m == n\n" if k == 0 else
                            f"    if every:\n        m = 0\n        for i in range(n):\n"
                            f"{_lines(d.path, lets, 12)}"
                            f"            m += {d.path}\n        every = m == n\n"
                            for k, d in enumerate(deferred)) + variant
    for d in deferred:
        text += _deferred_source(d, lets)
    return text + _main_loop(value, validity, fails, codes, layout, lets,
                             packs=boolean) + "    return fail\n"


_PARSED_NESTING = 190  # parentheses in one statement: Python parses at most 200


def nesting(text: str) -> int:
    """How deep the parentheses of `text` nest (a text shorter than twice a limit cannot
    nest deeper than it: callers skip counting those)."""
    steps = np.frombuffer(text.encode(), np.uint8)
    steps = (steps == ord("(")).astype(np.int32) - (steps == ord(")"))
    return int(np.cumsum(steps).max(initial=0))


_NAME = re.compile(r"\b[a-z_][a-z_0-9]*\b")


def _needed(lets: tuple[str, ...], reads: list[str]) -> tuple[str, ...]:
    """The statements of `lets` whose temporary `reads` (or a statement kept) reads, in
    order: a loop computes only those its own texts need."""
    if not lets:
        return ()
    wanted = set(_NAME.findall(" ".join(reads)))
    kept = []
    for let in reversed(lets):
        name, _, expression = let.partition(" = ")
        if name in wanted:
            kept.append(let)
            wanted.update(_NAME.findall(expression))
    return tuple(reversed(kept))


def _lines(reads, lets: tuple[str, ...], width: int) -> str:
    """The statements of `lets` that the text(s) `reads` need, each a line indented
    `width`."""
    reads = [reads] if isinstance(reads, str) else list(reads)
    return "".join(f"{' ' * width}{let}\n" for let in _needed(lets, reads))


def _main_loop(value, validity, fails, codes, layout, lets=(), extra_fails=(),
               indent="", packs=False) -> str:
    """The loop over every row writing `out`, `valid` and `codes`: each column's row read
    first (`_reads_first`), then the statements the row's texts read, the codes, and the
    stores. A boolean value (`packs`) is written 64 rows a word of `out`: an outer loop
    over the words, an inner one over a word's rows (the last word's fewer), each row's
    bit or-ed into the word, stored once (no byte per row written and packed after: a
    fifth less time on a two-comparison `and`, and one body, not a second for the last
    rows, for numba to compile)."""
    pad = indent + ("            " if packs else "        ")
    failing = tuple(f for f in (fails, *extra_fails) if f is not None)
    texts = [value, validity or "", *failing, _code_texts(codes)]
    store = f"word |= np.uint64({value}) << np.uint64(b)" if packs else f"out[i] = {value}"
    body = f"{_lines(texts, lets, len(pad))}{_code_lines(codes, pad)}{pad}{store}\n"
    for failed in failing:
        body += f"{pad}fail |= {failed}\n"
    if validity is not None:
        body += f"{pad}valid[i] = {validity}\n"
    rows: dict[int, list[str]] = {}
    for k, slot in enumerate(layout):  # packed as bytes (see _code_lines)
        rows.setdefault(slot.row, []).append(f"(np.uint8(c{k}) << np.uint8({slot.shift}))"
                                             if slot.shift else f"np.uint8(c{k})")
    body += "".join(f"{pad}codes[{r}, i] = {' | '.join(terms)}\n" for r, terms in rows.items())
    if not packs:
        return f"{indent}    for i in range(n):\n" + _reads_first(body, pad)
    return (f"{indent}    for w in range((n + 63) >> 6):\n"
            f"{indent}        word = np.uint64(0)\n"
            f"{indent}        first = w << 6\n"
            f"{indent}        for b in range(min(64, n - first)):\n"
            f"{pad}i = first + b\n"
            + _reads_first(body, pad)
            + f"{indent}        out[w] = word\n")


_READ = re.compile(r"\b((?:v_)?f_[0-9_]+)\[i\]")


def _reads_first(body: str, pad: str) -> str:
    """A loop's body with each column's row read once, into a local, before anything else.

    Read inside a select (`f_2[i] if v_f_2[i] else f_3[i]`), a column is a load only
    some rows make, which LLVM does not vectorize: a five-argument coalesce measured ten
    times slower so. Every row of every column argument is in bounds, so reading them all
    is safe whatever the row takes. Only a main loop's body: the locals are its own (a
    deferred value's pass reads the columns itself)."""
    reads = sorted(set(_READ.findall(body)))
    loads = "".join(f"{pad}x_{name} = {name}[i]\n" for name in reads)
    return loads + _READ.sub(r"x_\1", body)


def _code_lines(codes: tuple, pad: str) -> str:
    """Each form's branch code into a local `c{k}`, before the row's first store: the
    columns are read once for the codes and the value alike (a store to `out` may alias
    a column, so a read after it is a read again), and the conditions the codes test
    first are the value's, computed once. A case index is written as selects from the
    last condition to the first, a select per condition, of bytes: selects of int64
    constants take a vector register per four rows, and a wide case_when's loop ran at
    two thirds of its untraced speed."""
    text = ""
    for k, code in enumerate(codes):
        if isinstance(code, FirstTrue):
            text += f"{pad}c{k} = np.uint8({len(code.conditions)})\n"
            for j in reversed(range(len(code.conditions))):
                text += f"{pad}c{k} = np.uint8({j}) if {code.conditions[j]} else c{k}\n"
        else:
            text += f"{pad}c{k} = {code}\n"
    return text


_TEMPORARY = re.compile(r"\bt[0-9]+\[i\]")


def _inlined(deferred: tuple[Deferred, ...]):
    """A function writing a row expression, statement (or branch code) with each deferred
    value's expression in place of its temporary."""
    values: dict[str, str] = {}

    def inline(text):
        if text is None:
            return None
        if isinstance(text, FirstTrue):
            return FirstTrue(tuple(inline(c) for c in text.conditions))
        return _TEMPORARY.sub(lambda m: values[m.group(0)], text)

    for d in deferred:  # a deferred value reads only those before it
        values[f"{d.name}[i]"] = f"({inline(d.value)})"
    return inline


def _deferred_source(d: Deferred, lets: tuple[str, ...] = ()) -> str:
    """The two passes computing a deferred value: its rows listed, then computed (over
    every row directly when every row takes its path), each after the statements its
    texts read."""
    failing = () if d.fails is None else (d.fails,)
    body = f"{{pad}}{d.name}[i] = {d.value}\n"
    if d.fails is not None:
        body += f"{{pad}}fail |= {d.fails}\n"
    body = _lines((d.value, *failing), lets, 12).replace("{", "{{").replace("}", "}}") + body
    return (f"    m = 0\n    for i in range(n):\n        idx[m] = i\n"
            f"{_lines(d.path, lets, 8)}        m += {d.path}\n"
            f"    if m == n:\n        for i in range(n):\n"
            f"{body.format(pad=' ' * 12)}"
            f"    else:\n        for j in range(m):\n            i = idx[j]\n"
            f"{body.format(pad=' ' * 12)}")


def _dispatcher(text: str):
    """`text` run as a module of its own (the only names it sees are numpy's and
    `fused_math`'s), its
    function handed to numba, which compiles it when first called."""
    namespace: dict = {"np": np, **fused_math.names()}
    exec(compile(text, "<fused kernel>", "exec"), namespace)  # noqa: S102 - generated
    return numba.njit(nogil=True, error_model="numpy")(namespace["kernel"])


class KernelOutput(NamedTuple):
    """What one run of a loop wrote."""

    value: np.ndarray  # the value buffer (a bitmap for a boolean result)
    validity: np.ndarray | None  # a validity bitmap, when the loop makes one
    codes: np.ndarray | None  # traced: the forms' branches per row (code rows x rows, uint8)
    failed: bool = False  # a row that takes a failing call's path fails it


def run_kernel(kernel: KernelSource, rows: int, dtype: np.dtype, arguments: dict) -> KernelOutput:
    """The loop's outputs over `rows` rows: a boolean value as 64-row words (the bitmap),
    the validity a byte per row, packed into a bitmap after."""
    if kernel.writes_codes_only:
        codes = np.empty((kernel.codes, rows), np.uint8)
        compiled(kernel)(rows, codes, *(arguments[name] for name in kernel.arguments))
        return KernelOutput(None, None, codes)
    out = pool_array((rows + 63) >> 6, np.uint64) if kernel.packs_value \
        else pool_array(rows, dtype)
    valid = pool_array(rows, np.dtype(np.bool_)) if kernel.has_validity else _NO_BITMAP
    values = [arguments[name] for name in kernel.arguments]
    if kernel.temporaries:
        values = [*_scratch(rows, kernel.temporaries), *values]
    codes = None
    if kernel.codes:
        codes = np.empty((kernel.codes, rows), np.uint8)
        failed = compiled(kernel)(rows, out, valid, codes, *values)
    else:
        failed = compiled(kernel)(rows, out, valid, *values)
    if kernel.packs_value:
        # the words' bytes are the bitmap's in order where words are little-endian
        out = (out if _LITTLE_ENDIAN else out.astype("<u8")).view(np.uint8)
    return KernelOutput(out, np.packbits(valid, bitorder="little") if kernel.has_validity
                        else None, codes, bool(failed))


_NO_BITMAP = np.empty(0, np.bool_)
_LITTLE_ENDIAN = sys.byteorder == "little"


_SCRATCH = threading.local()  # a thread's scratch arrays: (slot, dtype) -> array
SCRATCH_KEPT_ROWS = 1 << 20  # larger scratch arrays are made per call, not kept


def _scratch(rows: int, temporaries: tuple[str, ...]) -> list[np.ndarray]:
    """The listed rows' array and one array per temporary, of at least `rows` rows: the
    calling thread's own, kept between calls (arrays made afresh for each call cost the
    page faults of their first touch, measured at several times the loop's own work on
    a morsel where few rows take the branch)."""
    kept = getattr(_SCRATCH, "arrays", None)
    if kept is None:
        kept = _SCRATCH.arrays = {}
    out = []
    for slot, name in enumerate(("np.intp", *temporaries)):
        dtype = np.dtype(_SCRATCH_TYPES[name])
        if rows > SCRATCH_KEPT_ROWS:
            out.append(np.empty(rows, dtype))
            continue
        found = kept.get((slot, name))
        if found is None or len(found) < rows:
            found = kept[(slot, name)] = np.empty(max(rows, 4096), dtype)
        out.append(found)
    return out


_SCRATCH_TYPES = {"np.intp": np.intp, "np.int32": np.int32, "np.int64": np.int64,
                  "np.float32": np.float32, "np.float64": np.float64, "np.bool_": np.bool_}
