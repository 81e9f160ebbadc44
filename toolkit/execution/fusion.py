"""Fused cheap subtrees: a group of element-wise calls run as one compiled loop.

Evaluated node by node, `(b * 2 + x) * 3 - b / 7` runs five Arrow kernels, each
reading and writing a whole column: the intermediates travel through memory (or
cache) four times. Fused, the group runs as one loop compiled by numba
(`fused_kernels.py`), which reads each column once, keeps every intermediate in a
register and writes the result once.

A call joins a group only when the fused value is provably the kernel's:

- its kind is one the loop computes with Arrow's semantics for the types involved:
  unchecked `add`, `subtract`, `multiply`, `negate` on int32/int64/float32/float64
  (integers wrap, two's complement: every int32 step is truncated back to int32, as
  numba widens it to int64); `divide` on floats (integer division is below, with
  the calls that can fail); the six comparisons of two numbers of one type, or of two
  dates (date32: days since the epoch, compared as the int32 they are);
  `and`, `or`, `invert`, `and_kleene`, `or_kleene` on bools; `if_else`, `coalesce`
  and `case_when` with an `else` (its conditions the fields of a `make_struct`) of
  values of one type; casts to float64 from int32 and float32 (exact) and from
  int64 (a range cast: exact on a batch whose column is proven within +-2**53, the
  proof `dense_path.casts_in_range` makes; unproven, the group runs unfused and the
  cast checks as it always does);
- costly calls, the logarithms, `exp`, `power` and integer division
  (`fused_guarded`), computed only on the rows whose branches take them: a costly
  value in a branch of a form in the group (an `if_else`'s side, a `case_when`'s later
  condition or value, a `coalesce`'s later argument, the right side of Kleene and/or)
  is deferred (`fused_kernels.Deferred`), its path the conjunction of the branch
  conditions between it and the group's top;
- nothing in it can fail on a row, or what can (integer `divide`, `divide_checked`,
  the checked logarithms and `sqrt_checked`: `fused_guarded`) says where it fails: the
  loop flags a row that takes its path (the branch conditions above it in the group,
  as lazy evaluation gives a branch only its rows: a call under an if's false branch
  fails no row that takes the true branch) and fails it; the group then runs unfused
  (`run_fused` gives None) and raises the error unfused evaluation raises, naming the
  same row. So running every row of the group is safe wherever it sits (under a lazy
  form, each branch still sees only its rows);
- its leaves are fields and non-null literals of those types, the literals passed to
  the loop as typed values (a Python number would compute in Python's types, not
  Arrow's), and every step's result is converted to its node's type.

Nulls follow Arrow: where every call intersects nulls (arithmetic, comparisons,
`and`, `or`), the result's validity is the AND of its columns' validity bitmaps,
taken with Arrow's bitmap kernels (no bitmap at all when no column has a null);
where Kleene logic, `if_else`, `coalesce` or `case_when` decide validity row by row,
the loop computes it too, from an expression written from the kernels' definitions. The
values under null slots are never read for a result: they may be anything, as in Arrow.

A group's row is written as statements: `case_when` and `coalesce` as one select per
case into a scalar temporary (`s..`: not the deferred values' scratch arrays `t..`),
from the last case to the first (a text that grows by a line per case, however many),
Kleene logic from each side's two texts, valid and true, valid and false (a text that
grows by one side per call along a chain), every other call as an expression. A
branch's path is written from the form's own conditions, whatever the form's text: a
case_when's value k is deferred (or flags its failures) on the rows where conditions
0 .. k-1 are not valid and true and condition k is; each loop computes the statements
its texts read (`fused_kernels`).

Groups are found once per prepared tree (`fused_groups`): every maximal subtree
of at least MIN_FUSED_CALLS such calls (or one lone form of PAYS_ALONE), at most
MAX_FUSED_CALLS calls, MAX_INPUTS distinct leaves and MAX_TEXT characters. Their loops
are compiled when first run (`fused_kernels`).
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..functions.function import call_can_fail
from ..model.expression import postorder
from ..support.bitmaps import bitmap_bools, bitmap_from_bit_zero
from ..support.bounded_cache import ObjectCache
from .batch_context import now
from .dense_path import casts_in_range
from .fuse_when import FuseWhen
from .fused_branches import FormCode
from .fused_codes import LazyCodes, sliced
from .fused_guarded import guarded_call
from .fused_kernels import (
    Deferred,
    FirstTrue,
    KernelSource,
    asked,
    compile_later,
    kernel_source,
    nesting,
    ready,
    run_kernel,
)
from .fused_trace import record_group

__all__ = ["MAX_FUSED_CALLS", "MIN_FUSED_CALLS", "PAYS_ALONE", "FusedGroup", "FusedInput",
           "Fusion", "GroupRun", "fused_groups", "fusion_of", "run_fused", "run_group",
           "runs_whole"]

MIN_FUSED_CALLS = 2  # one call alone is one Arrow kernel already, but for:
# the lazy forms whose values are leaves: run unfused, they split the rows by selection
# vectors, run each branch on its rows and scatter the values back, several passes where
# the loop makes one (and/or stay out: their kernels work on bitmaps, 64 rows a word)
PAYS_ALONE = frozenset({"if_else", "coalesce"})
# a loop's size, which numba's compile time follows (docs/benchmarks.md: a case_when of 100
# cases fits): its calls, its distinct leaves (literals included: the loop's arguments, whose
# types each call of the loop checks) and the characters of its statements for a row
MAX_FUSED_CALLS = 256
MAX_INPUTS = 256
MAX_TEXT = 20_000
MAX_NESTING = 100  # parentheses in one statement: Python parses at most 200
MAX_BRANCHES = 255  # of one form: a traced loop writes the branch each row took as a byte

_DTYPES = {pa.int32(): np.dtype(np.int32), pa.int64(): np.dtype(np.int64),
           pa.float32(): np.dtype(np.float32), pa.float64(): np.dtype(np.float64),
           pa.bool_(): np.dtype(np.bool_), pa.date32(): np.dtype(np.int32)}
_NUMBERS = (pa.int32(), pa.int64(), pa.float32(), pa.float64())
_FLOATS = (pa.float32(), pa.float64())
_ARITHMETIC = {"add": "+", "subtract": "-", "multiply": "*"}
_COMPARISONS = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=",
                "greater": ">", "greater_equal": ">="}
_BOOLEAN = {"and": "&", "or": "|"}
_NUMPY_NAMES = {pa.int32(): "np.int32", pa.int64(): "np.int64", pa.float32(): "np.float32",
                pa.float64(): "np.float64", pa.date32(): "np.int32"}
# casts that are exact: any value converts; int64 -> float64 only within +-2**53 (proven)
_EXACT_CASTS = {(pa.int32(), pa.float64()), (pa.float32(), pa.float64())}
_RANGE_CASTS = {(pa.int64(), pa.float64())}


@dataclass(frozen=True, slots=True)
class FusedInput:
    """One leaf of a group, as the loop names it: a field (read under the group's
    selection) or a literal (one typed value for every row)."""

    name: str
    node: object  # the Parameter or Literal
    dtype: np.dtype


@dataclass(frozen=True)
class FusedGroup:
    """One fused subtree: the row expressions its loop computes and how its validity
    is made."""

    root: object  # the group's top call (held: ids of its nodes stay valid)
    calls: int
    inputs: tuple[FusedInput, ...]
    value: str  # the value of row `i`, reading `f_..[i]`, `k..` and (coalesce) `v_f_..[i]`
    # None when every call intersects nulls: then the bitmaps of the inputs `and_of` names
    # are ANDed; else the validity of row `i`, an expression like `value`
    validity: str | None
    and_of: tuple[str, ...]
    needs_proof: bool  # it holds an int64 -> float64 cast: the batch must prove its range
    # the fields whose validity the expressions read (unpacked to a bool per row)
    validity_inputs: tuple[str, ...]
    plain: KernelSource  # its loop where none of those holds a null (no validity made)
    with_nulls: KernelSource  # its loop elsewhere (a column without nulls: all ones)
    # traced: id(form) -> its code among the loop's branch codes (`fused_branches`; its
    # slot is `plain.layout[index]`); empty untraced (the loop writes no codes)
    forms: Mapping[int, FormCode] = field(default_factory=dict)
    can_fail: bool = False  # it holds calls that can fail: its loop flags a failed row
    costly: bool = False  # it holds costly calls (`fused_guarded`)
    lets: tuple[str, ...] = ()  # statements run on each row before the texts that read them
    # traced: position -> what a morsel of the group records there (`fused_trace`)
    trace_plans: dict = field(default_factory=dict, compare=False, repr=False)

    def why(self) -> str:
        """The group's mark in a trace: what ran together and why that is safe."""
        proof = "; int64s proven exact as doubles" if self.needs_proof else ""
        if self.can_fail:
            return (f"{self.calls} calls in one compiled loop: a row failing one runs "
                    f"unfused{proof}")
        if self.costly:
            return (f"{self.calls} calls in one compiled loop: cannot fail, costly ones "
                    f"only on their branches' rows{proof}")
        return f"{self.calls} calls in one compiled loop: cheap, cannot fail{proof}"


@dataclass(slots=True)
class _Part:
    """What a fusable node contributes: its row expression, validity, leaves and size."""

    text: str
    validity: object  # None (always valid) | frozenset of input names (AND) | str (per row)
    names: frozenset
    calls: int
    proof: bool
    codes: tuple = ()  # (form node, the text of its branch code per row), for its forms
    fails: str | None = None  # true where evaluating it on the row fails (None: never)
    costly: bool = False  # it computes a costly call on every row it is evaluated on
    deferred: tuple = ()  # its costly branch values (`Deferred`), paths from its top
    truth: _Truth | None = None  # an and_kleene/or_kleene with nulls: its two Kleene texts
    # statements `name = expression` run on each row before the texts that read `name`,
    # in order (its arguments' first), and their characters
    lets: tuple[str, ...] = ()
    let_chars: int = 0
    chain: _ChainStep | None = None  # an and/or: its place in a chain of them


class Fusion:
    """The fused groups of one tree: id(group root) -> FusedGroup, found and compiled on
    the first evaluation that asks for fusion (once per prepared tree; never when no
    evaluation does).

    A traced evaluation shows every special form at work, the rows each branch took:
    its groups' loops also write, per row, which branch each form in them took (a small
    integer), from which the trace makes the branches' rows when it is read
    (`fused_branches`).
    """

    __slots__ = ("_groups", "_lock", "learning", "rows_seen", "tree")

    def __init__(self, tree):
        self.tree = tree  # held: the groups are keyed by its nodes' ids
        self.learning = False  # by default, its groups run fused once compiled
        self.rows_seen = 0  # rows evaluated by default before that
        self._groups: dict[bool, Mapping[int, FusedGroup]] = {}
        self._lock = threading.Lock()  # morsels on several threads ask at once

    def groups(self, traced: bool) -> Mapping[int, FusedGroup]:
        found = self._groups.get(traced)
        if found is None:
            with self._lock:
                found = self._groups.get(traced)
                if found is None:
                    found = self._groups[traced] = fused_groups(self.tree, codes=traced)
        return found

    @property
    def untraced(self) -> Mapping[int, FusedGroup]:
        return self.groups(False)

    @property
    def traced(self) -> Mapping[int, FusedGroup]:
        return self.groups(True)


def runs_whole(fusion: Fusion, traced: bool, when: FuseWhen) -> bool:
    """Whether this evaluation runs the whole tree as one loop: its root is a group
    whose loop runs (asked for, or compiled already). Every intermediate then lives in
    registers, so cutting a chunk into cache-sized morsels saves nothing, and joining
    their values into the chunk costs a copy of it."""
    if when is FuseWhen.NEVER:
        return False
    group = fusion.groups(traced).get(id(fusion.tree))
    return group is not None and (when is FuseWhen.ALWAYS or ready(group.plain) is not None
                                  or ready(group.with_nulls) is not None)


def fusion_of(tree) -> Fusion:
    """The groups of `tree`, for an untraced and for a traced evaluation (found when
    first asked for)."""
    return Fusion(tree)


def fused_groups(tree, codes: bool = False) -> Mapping[int, FusedGroup]:
    """id(group root) -> its FusedGroup, for every maximal fusable subtree of `tree`
    (`codes`: its loop also writes each form's branch per row, for a trace)."""
    parts: dict[int, _Part] = {}
    inputs: dict[str, FusedInput] = {}
    literal_names: dict[tuple, str] = {}
    temporaries: list[int] = [0]  # the number of deferred values named so far (`t..`)
    temps = itertools.count()  # names of the statements' temporaries (`s..`), in order
    members: set[int] = set()
    for node in postorder(tree):
        part = _part(node, parts, inputs, literal_names, temporaries, temps)
        if part is None:
            continue
        parts[id(node)] = part
        if node.is_call:
            members.update(id(a) for a in node.args)
            members.update(id(a) for a in _case_conditions(node) or ())
    groups = {}
    for node in postorder(tree):
        part = parts.get(id(node))
        if part is None or not node.is_call or id(node) in members \
                or part.calls < MIN_FUSED_CALLS and node.name not in PAYS_ALONE:
            continue
        group = _compiled(node, part, inputs, codes)
        if group is not None:
            groups[id(node)] = group
    return MappingProxyType(groups)


def _part(node, parts, inputs, literal_names, temporaries, temps) -> _Part | None:
    kind = node.kind
    dtype = _DTYPES.get(node.type)
    if dtype is None:
        return None
    if kind == "field":
        if node.path is None:
            return None
        name = "f_" + "_".join(str(i) for i in node.path.indices)
        inputs.setdefault(name, FusedInput(name, node, dtype))
        return _Part(f"{name}[i]", frozenset({name}), frozenset({name}), 0, False)
    if kind == "literal":
        value = node.value
        if not isinstance(value, pa.Scalar) or not value.is_valid:
            return None
        key = (str(node.type), repr(_loop_value(value)))
        name = literal_names.get(key)
        if name is None:
            name = literal_names[key] = f"k{len(literal_names)}"
            inputs[name] = FusedInput(name, node, dtype)
        return _Part(name, None, frozenset({name}), 0, False)
    if node.function is None:
        return None
    conditions = _case_conditions(node)
    if conditions is not None:  # case_when: its conditions are the struct's fields
        args = [parts.get(id(a)) for a in (*conditions, *node.args[1:])]
    else:
        args = [parts.get(id(a)) for a in node.args]
    if not args or any(a is None for a in args):
        return None
    args, fails, deferred = _guard_branches(node.name, args, len(conditions or ()),
                                            node.type, temporaries)
    guarded = None if conditions is not None else guarded_call(
        node.name, [a.type for a in node.args], node.type, [a.text for a in args])
    lets = ()  # its own statements
    if guarded is not None:
        text, validity, proof = guarded.text, _and(args), False
        if guarded.fails is not None:
            fails = _either(fails, _both(_valid_text(validity), guarded.fails))
    elif conditions is not None:
        text, validity, lets = _case_when(node, args[:len(conditions)], args[len(conditions):],
                                          f"s{next(temps)}")
        proof = False
    elif node.name == "coalesce":
        text, validity, lets = _coalesce(node, args, f"s{next(temps)}")
        proof = False
    else:
        text, validity, proof = _call(node, args)
    if text is None:
        return None
    codes = tuple(c for a in args for c in a.codes)
    chain = _chain_step(node, args) if node.name in ("and_kleene", "or_kleene") else None
    code = chain or _branch_code(node.name, args, len(conditions or ()))
    if code is not None:
        codes += ((node, code),)
    if call_can_fail(node) and not proof and (guarded is None or guarded.fails is None):
        return None
    names = frozenset().union(*(a.names for a in args))
    calls = 1 + (conditions is not None) + sum(a.calls for a in args)  # make_struct too
    own = (text, validity if isinstance(validity, str) else "", *lets)
    let_chars = sum(a.let_chars for a in args) + sum(len(let) for let in lets)
    deferred_texts = [t for d in deferred for t in (d.value, d.path, d.fails or "")]
    if calls > MAX_FUSED_CALLS or len(names) > MAX_INPUTS \
            or len(own[0]) + len(own[1]) + let_chars + len(fails or "") \
            + sum(len(t) for t in deferred_texts) > MAX_TEXT \
            or any(len(t) > 2 * MAX_NESTING and nesting(t) > MAX_NESTING
                   for t in (*own, fails or "", *deferred_texts)):
        return None
    costly = (guarded is not None and guarded.costly) or any(a.costly for a in args)
    truth = _kleene_truth(node.name, args) if node.name in ("and_kleene", "or_kleene") \
        and isinstance(validity, str) else None
    return _Part(text, validity, names, calls, proof or any(a.proof for a in args), codes,
                 fails, costly, deferred, truth,
                 (*(let for a in args for let in a.lets), *lets), let_chars, chain)


def _guard_branches(name: str, args: list[_Part], cases: int, out, temporaries):
    """`args` with each costly branch deferred; where the call's arguments fail (each
    branch's failures on the rows that take it) and its deferred values, their paths
    from the call (the branch's condition and then theirs)."""
    paths = _branch_paths(name, args, cases)
    fails = None
    deferred: tuple = ()
    guarded = list(args)
    for k, (arg, path) in enumerate(zip(args, paths)):
        if path is None:  # every row of the call's domain evaluates it
            fails = _either(fails, arg.fails)
            deferred += arg.deferred
            continue
        deferred += tuple(d._replace(path=f"({path} & {d.path})",
                                     fails=d.fails and f"({path} & {d.fails})")
                          for d in arg.deferred)
        if not arg.costly:
            fails = _either(fails, arg.fails and f"({path} & {arg.fails})")
            continue
        temporary = f"t{temporaries[0]}"
        temporaries[0] += 1
        kind = _arg_type(name, k, cases, out)
        deferred += (Deferred(temporary, _NUMPY_NAMES.get(kind, "np.bool_"), arg.text, path,
                              arg.fails),)
        # its statements stay: its deferred value and its validity read them
        guarded[k] = _Part(f"{temporary}[i]", arg.validity, arg.names, arg.calls, arg.proof,
                           arg.codes, lets=arg.lets, let_chars=arg.let_chars)
    return guarded, fails, deferred


def _arg_type(name: str, k: int, cases: int, out):
    """The type of a form's `k`-th argument (a case_when's conditions first): bool for a
    condition, else the form's own type."""
    if name == "case_when":
        return pa.bool_() if k < cases else out
    if name == "if_else":
        return pa.bool_() if k == 0 else out
    return out


def _branch_paths(name: str, args: list[_Part], cases: int) -> list[str | None]:
    """For each argument of a form, the rows of the form's domain lazy evaluation runs it
    on, as a row expression (None: every row); every None for a call that is no form.
    A case_when's conditions come first (`cases` of them)."""
    if name == "if_else":
        cond = args[0]
        valid = _valid_text(cond.validity)
        return [None, _both(valid, cond.text), _both(valid, f"(not {cond.text})")]
    if name == "case_when":
        # the case's own conditions, one conjunction each (not nested: a case's path
        # nests no deeper than its conditions, however many cases come before it)
        taken = [_both(_valid_text(c.validity), c.text) for c in args[:cases]]
        untaken = [f"(not {test})" for test in taken]
        paths: list[str | None] = [_all_of(untaken[:k]) for k in range(cases)]
        paths += [_all_of([*untaken[:k], test]) for k, test in enumerate(taken)]
        return paths + [_all_of(untaken)]
    if name == "coalesce":
        paths, before = [], None
        for a in args:
            paths.append(before)
            valid = _valid_text(a.validity)
            before = _both(before, "False" if valid is None else f"(not {valid})")
        return paths
    if name in ("and_kleene", "or_kleene"):
        left = args[0]
        valid = _valid_text(left.validity)
        undecided = left.text if name == "and_kleene" else f"(not {left.text})"
        return [None, undecided if valid is None else f"((not {valid}) | {undecided})"]
    return [None] * len(args)


def _all_of(tests: list[str]) -> str | None:
    """The conjunction of `tests` (None: no test, every row)."""
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else "(" + " & ".join(tests) + ")"


def _either(left: str | None, right: str | None) -> str | None:
    if left is None:
        return right
    return left if right is None else f"({left} | {right})"


def _call(node, args: list[_Part]):
    """(row expression, validity, needs a range proof) of one call, or (None, ..) when it
    cannot be fused exactly."""
    name, out = node.name, node.type
    types = [a.type for a in node.args]
    same = all(t == types[0] for t in types)
    texts = [a.text for a in args]
    if name in _ARITHMETIC and len(args) == 2 and same and out == types[0] in _NUMBERS:
        return _typed(out, f"{texts[0]} {_ARITHMETIC[name]} {texts[1]}"), _and(args), False
    if name == "divide" and len(args) == 2 and same and out == types[0] in _FLOATS:
        return _typed(out, f"{texts[0]} / {texts[1]}"), _and(args), False
    if name == "negate" and len(args) == 1 and out == types[0] in _NUMBERS:
        return _typed(out, f"-{texts[0]}"), args[0].validity, False
    if name in _COMPARISONS and len(args) == 2 and same \
            and (types[0] in _NUMBERS or types[0] == pa.date32()) and out == pa.bool_():
        return f"({texts[0]} {_COMPARISONS[name]} {texts[1]})", _and(args), False
    if out != pa.bool_() and name in (*_BOOLEAN, "invert", "and_kleene", "or_kleene"):
        return None, None, False
    if name in _BOOLEAN and len(args) == 2 and same:
        return f"({texts[0]} {_BOOLEAN[name]} {texts[1]})", _and(args), False
    if name == "invert" and len(args) == 1 and types[0] == pa.bool_():
        return f"(not {texts[0]})", args[0].validity, False
    if name in ("and_kleene", "or_kleene") and len(args) == 2 and same:
        return _kleene(name, args)
    if name == "if_else" and len(args) == 3 and types[0] == pa.bool_() \
            and types[1] == types[2] == out and node.options is None:
        return _if_else(args)
    if name == "cast" and len(args) == 1:
        pair = (types[0], out)
        if pair in _EXACT_CASTS or pair in _RANGE_CASTS:
            return _typed(out, texts[0]), args[0].validity, pair in _RANGE_CASTS
    return None, None, False


def _case_conditions(node) -> tuple | None:
    """A case_when's conditions (the fields of its `make_struct`), else None."""
    if node.name != "case_when" or not node.args:
        return None
    first = node.args[0]
    if not first.is_call or first.name != "make_struct" or first.function is None:
        return None
    return tuple(first.args)


def _case_when(node, conditions: list[_Part], values: list[_Part], temp: str):
    """Arrow's case_when with an `else` value (one more value than conditions): the
    value of the first condition that is valid and true, else the `else` value; the
    chosen value's validity. (Without an `else`, a row no condition takes is null
    whatever its columns hold: not fused, as every group's validity is all valid where
    its columns have no nulls.) Returns (text, validity, statements)."""
    out = node.type
    if len(values) != len(conditions) + 1 or len(conditions) > MAX_BRANCHES \
            or node.options is not None \
            or any(c.type != pa.bool_() for c in node.args[0].args) \
            or any(v.type != out for v in node.args[1:]):
        return None, None, ()
    taken = [_both(_valid_text(c.validity), c.text) for c in conditions]
    lets = _first_of(temp, list(zip(taken, (v.text for v in values))), values[-1].text)
    if all(part.validity is None for part in (*conditions, *values)):
        return temp, None, lets
    valid = [_valid_text(v.validity) or "True" for v in values]
    return temp, temp + "v", lets + _first_of(temp + "v", list(zip(taken, valid)),
                                               valid[-1], bits=True)


def _first_of(name: str, cases: list[tuple[str, str]], otherwise: str,
              bits: bool = False) -> tuple[str, ...]:
    """Statements giving `name` the value of the first (test, value) case whose test
    holds, else `otherwise`: a select per case, from the last case to the first, one
    statement each (nested in one expression, the selects made a text Python cannot
    parse past 200 parentheses, and LLVM vectorized twenty nested selects a fifth as
    well as twenty statements). `bits`: the values are booleans, selected with `&` and
    `|`: with a second chain of `if` selects beside a value's, LLVM vectorized neither."""
    if bits:
        chosen = "(({test} & {value}) | ((not {test}) & {name}))"
    else:
        chosen = "({value} if {test} else {name})"
    return (f"{name} = {otherwise}",
            *(f"{name} = " + chosen.format(test=test, value=value, name=name)
              for test, value in reversed(cases)))


def _typed(out, text: str) -> str:
    """`text` converted to `out`'s type: numba widens int32 arithmetic to int64 (the
    conversion truncates back, as int32 arithmetic wraps) and a cast is this alone."""
    return f"{_NUMPY_NAMES[out]}({text})"


def _valid_text(validity) -> str | None:
    if validity is None:
        return None
    if isinstance(validity, str):
        return validity
    return "(" + " & ".join(f"v_{n}[i]" for n in sorted(validity)) + ")"


def _both(left: str | None, right: str | None) -> str | None:
    if left is None:
        return right
    return left if right is None else f"({left} & {right})"


def _and(args: list[_Part]):
    """Validity of a null-intersecting call: a set of inputs while it is one, else text."""
    if all(a.validity is None or isinstance(a.validity, frozenset) for a in args):
        names = frozenset().union(*(a.validity for a in args if a.validity is not None))
        return names or None
    text = None
    for a in args:
        text = _both(text, _valid_text(a.validity))
    return text


def _kleene(name: str, args: list[_Part]):
    """Arrow's Kleene and/or: a side that is valid and false (true for or) decides alone."""
    a, b = args
    op = "&" if name == "and_kleene" else "|"
    value = f"({a.text} {op} {b.text})"  # the deciding side wins whatever the other holds
    if a.validity is None and b.validity is None:
        return value, None, False
    truth = _kleene_truth(name, args)
    return value, f"({truth.true} | {truth.false})", False


class _Truth(NamedTuple):
    """A boolean row as Kleene logic reads it: valid and true, valid and false."""

    true: str
    false: str


def _truth(part: _Part) -> _Truth:
    if part.truth is not None:
        return part.truth
    valid = _valid_text(part.validity)
    return _Truth(_both(valid, part.text), _both(valid, f"(not {part.text})"))


def _kleene_truth(name: str, args: list[_Part]) -> _Truth:
    """and: true where both sides are valid and true, false where either is valid and
    false (or: the other way round). Written from the sides' own two texts, never from
    their validity and value together, each text grows by one side per call: a chain's
    texts stay linear in its length (its validity as `both valid, or one side decides`
    repeated each side's validity, doubling with every call)."""
    a, b = (_truth(p) for p in args)
    if name == "and_kleene":
        return _Truth(f"({a.true} & {b.true})", f"({a.false} | {b.false})")
    return _Truth(f"({a.true} | {b.true})", f"({a.false} & {b.false})")


def _where(cond: str, left: str | None, right: str | None) -> str | None:
    """The validity of `left if cond else right` (None: always valid)."""
    if left == right:
        return left
    if left is None:
        return f"({cond} | {right})"
    if right is None:
        return f"((not {cond}) | {left})"
    return f"({left} if {cond} else {right})"


def _if_else(args: list[_Part]):
    """Arrow's if_else: null where the condition is null, else the chosen side's validity."""
    cond, left, right = args
    value = f"({left.text} if {cond.text} else {right.text})"
    sides_alike = left.validity == right.validity and not isinstance(left.validity, str)
    if sides_alike and not isinstance(cond.validity, str):
        sets = [v for v in (cond.validity, left.validity) if v is not None]
        return value, frozenset().union(*sets) or None, False
    chosen = _where(cond.text, _valid_text(left.validity), _valid_text(right.validity))
    return value, _both(_valid_text(cond.validity), chosen), False


def _coalesce(node, args: list[_Part], temp: str):
    """Arrow's coalesce: the first valid argument's value; null where none is valid.
    Returns (text, validity, statements)."""
    types = [a.type for a in node.args]
    if len(args) > MAX_BRANCHES or any(t != node.type for t in types):
        return None, None, ()
    upto = []
    for a in args:
        upto.append(a)
        if a.validity is None:
            break
    if len(upto) == 1:
        return upto[0].text, upto[0].validity, ()
    lets = _first_of(temp, [(_valid_text(a.validity), a.text) for a in upto[:-1]],
                     upto[-1].text)
    if upto[-1].validity is None:
        return temp, None, lets
    return temp, "(" + " | ".join(_valid_text(a.validity) for a in upto) + ")", lets


class _ChainStep(NamedTuple):
    """An and (or an or) in a left-deep chain of them, `((t0 and t1) and t2) and ...`: its
    right side runs where no term of its left side decided (valid and false for and,
    valid and true for or). A chain's steps share one branch code, the first term that
    decided (`_merged_chains`): one byte per row for the whole chain, not a bit per step
    (a traced chain of twelve ran its loop 20% slower so)."""

    name: str
    key: int  # id of the chain's first step (its bottom node)
    decides: tuple[str, ...]  # each term's 'it decided' text, left to right, its own last
    left_terms: int  # how many of them its left side holds


def _chain_step(node, args: list[_Part]) -> _ChainStep:
    """The step `node` (an and/or of `args`) is in its chain (a chain of one when its left
    side is no step of the same name)."""
    left, right = args
    below = left.chain if left.chain is not None and left.chain.name == node.name else None

    def decided(part: _Part) -> str:
        truth = _truth(part)
        return truth.false if node.name == "and_kleene" else truth.true

    terms = below.decides if below is not None else (decided(left),)
    return _ChainStep(node.name, below.key if below is not None else id(node),
                      (*terms, decided(right)), len(terms))


def _merged_chains(codes: tuple) -> tuple[tuple, dict[int, FormCode]]:
    """The loop's codes with each chain's steps as one code, the first of its top step's
    left terms that decided (their count where none did), and where each form finds its
    code: a step whose left side holds `c` terms ran its right side where the code is at
    least `c`."""
    tops: dict[int, _ChainStep] = {}
    for _, code in codes:
        if isinstance(code, _ChainStep):
            top = tops.get(code.key)
            if top is None or len(code.decides) > len(top.decides):
                tops[code.key] = code
    merged: list = []
    forms: dict[int, FormCode] = {}
    placed: dict[int, int] = {}
    for node, code in codes:
        if not isinstance(code, _ChainStep):
            forms[id(node)] = FormCode(len(merged), 0)
            merged.append((node, code))
            continue
        index = placed.get(code.key)
        if index is None:
            index = placed[code.key] = len(merged)
            merged.append((node, FirstTrue(tops[code.key].decides[:-1])))
        forms[id(node)] = FormCode(index, code.left_terms)
    return tuple(merged), forms


def _branch_code(name: str, args: list[_Part], cases: int) -> FirstTrue | None:
    """The branch a form's row took, as a small integer (`fused_branches` reads it): a
    case_when's case taken (`cases` for its else); if_else's 0 true, 1 false, 2 null;
    coalesce's first valid argument (its count: none). None for a call that is no
    special form (an and/or's code is its chain's: `_chain_step`)."""
    if name == "case_when":
        return FirstTrue(tuple(_both(_valid_text(c.validity), c.text) or "True"
                               for c in args[:cases]))
    if name == "if_else":
        cond = args[0]
        valid = _valid_text(cond.validity)
        return FirstTrue((_both(valid, cond.text), valid or "True"))
    if name == "coalesce":
        return FirstTrue(tuple(_valid_text(a.validity) or "True" for a in args))
    return None


_VALIDITY_READS = re.compile(r"\bv_(f_[0-9_]+)\[i\]")


def _compiled(root, part: _Part, inputs: dict[str, FusedInput],
              codes: bool = False) -> FusedGroup | None:
    """The group at `root`, or None when it reads no column (a tree of literals has one
    value, not a column)."""
    used = tuple(inputs[n] for n in sorted(part.names))
    if not any(i.node.kind == "field" for i in used):
        return None
    validity = part.validity if isinstance(part.validity, str) else None
    and_of = tuple(sorted(part.validity)) if isinstance(part.validity, frozenset) else ()
    merged, forms = _merged_chains(part.codes) if codes else ((), {})
    code_texts = tuple(text for _, text in merged)
    deferred_texts = (t for d in part.deferred for t in (d.value, d.path, d.fails or ""))
    read = set(_VALIDITY_READS.findall(" ".join(
        (part.text, validity or "", part.fails or "", *deferred_texts, *part.lets,
         *(t for c in code_texts for t in _texts(c))))))
    boolean = root.type == pa.bool_()
    # no null in any column whose validity it reads: every validity it reads is True
    plain = kernel_source(_no_validity(part.text), None, boolean,
                          tuple(_no_validity(c) for c in code_texts),
                          tuple(_no_validity_deferred(d) for d in part.deferred),
                          part.fails and _no_validity(part.fails),
                          tuple(_no_validity(let) for let in part.lets))
    with_nulls = kernel_source(part.text, validity, boolean, code_texts, part.deferred,
                               part.fails, part.lets) if read else plain
    forms = MappingProxyType(forms)
    can_fail = part.fails is not None or any(d.fails is not None for d in part.deferred)
    return FusedGroup(root, part.calls, used, part.text, validity, and_of, part.proof,
                      tuple(sorted(read)), plain, with_nulls, forms, can_fail,
                      part.costly or bool(part.deferred), part.lets)


class GroupRun(NamedTuple):
    """A group's value over its rows and, traced, its forms' branch per row."""

    value: pa.Array
    # code rows x rows (uint8), written or made on read (`fused_codes`): see `fused_branches`
    codes: np.ndarray | LazyCodes | None


def _texts(code) -> tuple[str, ...]:
    return code.conditions if isinstance(code, FirstTrue) else (code,)


def _no_validity(code):
    """A branch code (or any row expression) where every column is valid (its validity
    reads True)."""
    if isinstance(code, FirstTrue):
        return FirstTrue(tuple(_VALIDITY_READS.sub("True", t) for t in code.conditions))
    return _VALIDITY_READS.sub("True", code)


def _no_validity_deferred(d: Deferred) -> Deferred:
    return d._replace(value=_no_validity(d.value), path=_no_validity(d.path),
                      fails=d.fails and _no_validity(d.fails))


def run_group(group: FusedGroup, leaf_values: Mapping[str, object], rows: int,
              when: FuseWhen = FuseWhen.ALWAYS) -> GroupRun | None:
    """The group's value over `rows` rows, given each input's value (an array of the
    rows for a field, a scalar for a literal); None when its loop is not compiled and
    `when` says not to wait for it, or when a row fails one of its calls (unfused, the
    group raises the error)."""
    with_nulls = _reads_nulls(group, leaf_values)
    kernel = group.with_nulls if with_nulls else group.plain
    dtype = _DTYPES[group.root.type]
    waiting = when is not FuseWhen.ALWAYS and ready(kernel) is None
    if waiting and asked(kernel):
        return None
    arguments = _loop_arguments(group, leaf_values, rows, with_nulls)
    if waiting:
        compile_later(kernel, rows, dtype, arguments)
        return None
    out, valid, codes, failed = run_kernel(kernel, rows, dtype, arguments)
    if failed:
        return None
    if valid is not None:
        bits = pa.py_buffer(valid)
    elif group.validity is None:
        bits = _and_bitmaps([leaf_values[n] for n in group.and_of])
    else:
        bits = None  # a row-wise validity over columns without nulls: every row valid
    return GroupRun(pa.Array.from_buffers(group.root.type, rows, [bits, pa.py_buffer(out)]),
                    codes)


def _reads_nulls(group: FusedGroup, leaf_values: Mapping[str, object]) -> bool:
    """Whether a column whose validity the group's loop reads holds a null (its loop
    with nulls runs then)."""
    return any(leaf_values[n].null_count for n in group.validity_inputs)


def _loop_arguments(group: FusedGroup, leaf_values: Mapping[str, object], rows: int,
                    with_nulls: bool) -> dict:
    """The group's loop's arguments over `rows` rows: each input as numpy sees it, and
    for the loop with nulls, each validity it reads as a bool per row."""
    arguments = {}
    for leaf in group.inputs:
        got = leaf_values[leaf.name]
        if isinstance(got, pa.Scalar):
            number = _LITERALS.get(got, leaf.dtype)
            if number is None:  # the same literal object comes with every morsel
                number = _LITERALS.put(got, leaf.dtype.type(_loop_value(got)), leaf.dtype)
            arguments[leaf.name] = number
        else:
            arguments[leaf.name] = _numbers(got, leaf.dtype)
    if with_nulls:
        for name in group.validity_inputs:
            got = leaf_values[name]
            arguments[f"v_{name}"] = bitmap_bools(got.buffers()[0], got.offset, len(got)) \
                if got.null_count else _all_valid(rows)
    return arguments


def _codes_on_read(ctx, group: FusedGroup, leaf_values: Mapping[str, object],
                   rows: int) -> GroupRun | None:
    """A traced group over the morsel's own columns run by its untraced loop, its codes
    left to its loop writing codes alone when they are read (`fused_codes`); None when
    that loop is not compiled yet and `fuse=True` did not ask for it (it is compiled on
    the side), or when the untraced one did not run (not compiled, or a failing row)."""
    with_nulls = _reads_nulls(group, leaf_values)
    loop = (group.with_nulls if with_nulls else group.plain).codes_only
    twin = ctx.untraced_fused.get(id(group.root))
    if twin is None or loop is None:
        return None
    compiled = ready(loop) is not None
    if not compiled and ctx.fuse_when is not FuseWhen.ALWAYS:
        if not asked(loop):  # compiled on the side: traces write their codes meanwhile
            compile_later(loop, rows, None, _loop_arguments(group, leaf_values, rows,
                                                            with_nulls))
        return None
    ran = run_group(twin, leaf_values, rows, ctx.fuse_when)
    if ran is None:
        return None
    arguments = functools.partial(_some_arguments, group, leaf_values, with_nulls)
    codes = LazyCodes(loop, arguments, rows)
    if not compiled:  # compiled now, not when the codes are made (perhaps in a finalizer)
        codes.head(1)
    return GroupRun(ran.value, codes)


def _some_arguments(group: FusedGroup, leaf_values: Mapping[str, object], with_nulls: bool,
                      start: int, stop: int) -> tuple[np.dtype, dict]:
    """The loop's value type and its arguments over rows `start` to `stop` (the same loop
    as over all of them: with nulls when any row holds one)."""
    some = {name: sliced(value, start, stop) for name, value in leaf_values.items()}
    return _DTYPES[group.root.type], _loop_arguments(group, some, stop - start, with_nulls)


# a literal scalar's number as a loop takes it, by the scalar object and the loop's type:
# a date's cast to its days took a quarter of a 131,072-row morsel's comparison loop
_LITERALS = ObjectCache(1024)


def _loop_value(literal: pa.Scalar):
    """A literal's value as the loop takes it: a date as its days (Python's dates end at
    year 9999, Arrow's do not)."""
    return literal.cast(pa.int32()).as_py() if literal.type == pa.date32() else literal.as_py()


def _numbers(array: pa.Array, dtype: np.dtype) -> np.ndarray:
    """An array's values as numpy sees them, nulls' slots as they are (never read)."""
    if dtype == np.bool_:
        return bitmap_bools(array.buffers()[1], array.offset, len(array))
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                         offset=array.offset * dtype.itemsize)


def _all_valid(rows: int) -> np.ndarray:
    """`rows` times True, read-only (one shared buffer, grown when a morsel needs more)."""
    global _ONES
    if len(_ONES) < rows:
        ones = np.ones(max(rows, 2 * len(_ONES)), np.bool_)
        ones.flags.writeable = False
        _ONES = ones
    return _ONES[:rows]


_ONES = np.ones(0, np.bool_)


def _and_bitmaps(arrays: list[pa.Array]):
    """The AND of the arrays' validity as a bitmap starting at bit 0 (None: all valid)."""
    with_nulls = [a for a in arrays if a.null_count]
    if not with_nulls:
        return None
    if len(with_nulls) == 1 and with_nulls[0].offset == 0:
        return with_nulls[0].buffers()[0]
    valid = pc.is_valid(with_nulls[0])
    for more in with_nulls[1:]:
        valid = pc.and_(valid, pc.is_valid(more))
    return bitmap_from_bit_zero(valid)


def run_fused(ctx, group: FusedGroup, sel, mask, pos, run) -> pa.Array | None:
    """The group's value over the rows of `sel` (see BatchContext.field for `mask`), or
    None when it must run unfused here: no rows, an int64 cast the batch's values
    do not prove exact, a loop the default does not wait for, or a row that fails one of
    its calls (unfused, it raises the error naming the row). When observing,
    every node of the group is recorded, and the rows each branch of its forms took."""
    rows = ctx.size(sel)
    if rows == 0 or group.needs_proof and not casts_in_range(group.root, ctx):
        return None
    started = now() if ctx.observing else 0.0
    leaf_values = {leaf.name: ctx.field(leaf.node, sel, mask) if leaf.node.kind == "field"
                   else leaf.node.value for leaf in group.inputs}
    ran = None
    if ctx.observing and group.forms and sel is None and mask is None:
        ran = _codes_on_read(ctx, group, leaf_values, rows)
    if ran is None:
        ran = run_group(group, leaf_values, rows, ctx.fuse_when)
    if ran is None:
        return None
    if ctx.observing:
        record_group(ctx, group, pos, rows, now() - started, run, ran.codes, sel)
    return ran.value
