"""Every scalar function pyarrow registers, bound and evaluated by exprscope, against pyarrow.

The argument types come from pyarrow's own kernel signatures (one representative
of each input pattern, time zone aware timestamps too) plus types from other
families, so implicit casts are exercised; the rows hold nulls, NaN, infinities,
empty strings, leap days and times around a daylight saving change. For each
call: exprscope binds exactly where pyarrow's dispatch accepts the types, the
bound type is pyarrow's result type, lazy and eager evaluation give pyarrow's
values, and a call fails where pyarrow fails, at the row pyarrow fails on. A kernel that failed must say it
can fail, and a function that says nulls in give nulls out must do so.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.errors import BindError, ExprscopeError
from toolkit.functions import get_function, has_function
from toolkit.functions.derive import empty_arguments, kernel_signatures, pyarrow_scalar_names
from toolkit.functions.facts import can_fail
from toolkit.functions.function import NullHandling, call_can_fail

from .options_for import options_for
from .test_catalog_vs_pyarrow import _arrow_quirk

NAMES = pyarrow_scalar_names()
# their result types (day_time_interval, month_interval) have no pyarrow array class
PYARROW_CANNOT_RETURN = {"day_time_interval_between", "month_interval_between"}
NEW_YORK = "America/New_York"

# -- the data --------------------------------------------------------------------------

_TEXT = ["a1", "Bc", None, "", "2024-02-29", "ÄÖ b x"]
_TEXT_B = ["b", "c1", None, "x y", "", "12"]


def _values(t: pa.DataType, second: bool) -> list:
    if pa.types.is_boolean(t):
        return [True, False, None, True, False, True]
    if pa.types.is_integer(t):
        if second:
            return [2, 3, None, 1, 5, 1]
        return [1, 2, None, 3, 0, 7] if pa.types.is_unsigned_integer(t) else [1, -2, None, 3, 0, 7]
    if pa.types.is_floating(t):
        if second:
            return [0.5, 3.0, None, -1.0, math.nan, 2.0]
        return [1.5, -2.0, None, math.nan, 0.0, math.inf] if not pa.types.is_float16(t) else [
            1.5, -2.0, None, 4.0, 0.0, 1.0]
    if pa.types.is_decimal(t):
        q = Decimal(1).scaleb(-t.scale)
        raw = ["0.5", "3", None, "-1", "2", "1"] if second else ["1.25", "-2", None, "3", "0",
                                                                 "0.5"]
        return [Decimal(v).quantize(q) if v is not None else None for v in raw]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _TEXT_B if second else _TEXT
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return [None if v is None else v.encode() for v in (_TEXT_B if second else _TEXT)]
    if pa.types.is_fixed_size_binary(t):
        return [b"x" * t.byte_width, b"y" * t.byte_width, None, b"a" * t.byte_width,
                b"b" * t.byte_width, b"c" * t.byte_width]
    if pa.types.is_date(t):
        days = [dt.date(2024, 2, 29), dt.date(1999, 12, 31), None, dt.date(2000, 1, 1),
                dt.date(1970, 1, 1), dt.date(2021, 1, 3)]
        return days[::-1] if second else days
    if pa.types.is_timestamp(t):
        stamps = [dt.datetime(2024, 2, 29, 13, 5, 7), dt.datetime(1999, 12, 31, 23, 59, 59),
                  None, dt.datetime(2000, 1, 1), dt.datetime(2021, 3, 14, 2, 30),
                  dt.datetime(2021, 11, 7, 1, 30)]
        return stamps[::-1] if second else stamps
    if pa.types.is_time(t):
        return [dt.time(13, 5, 7), dt.time(0, 0, 1), None, dt.time(23, 59, 59), dt.time(0),
                dt.time(12)]
    if pa.types.is_duration(t):
        return [dt.timedelta(seconds=s) if s is not None else None
                for s in ([5, -3, None, 0, 61, 3600] if not second else [1, 2, None, 3, 4, 5])]
    if pa.types.is_null(t):
        return [None] * 6
    if pa.types.is_struct(t) and t.num_fields == 1:
        # case_when refuses a null condition struct: its nulls are inside
        return [{"c0": True}, {"c0": False}, {"c0": None}, {"c0": None}, {"c0": True},
                {"c0": False}]
    if pa.types.is_struct(t):
        return [{"x": 1, "y": "a"}, {"x": None, "y": ""}, None, {"x": 3, "y": None},
                {"x": 0, "y": "b"}, {"x": -1, "y": "c"}]
    if pa.types.is_map(t):
        return [[("a", 1), ("b", 2)], [], None, [("a", 3), ("a", 4)], [("c", None)], [("b", 5)]]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) or (
            pa.types.is_list_view(t) or pa.types.is_large_list_view(t)):
        if pa.types.is_fixed_size_list(t):
            return [[1, None], [2, 3], None, [4, 5], [0, 0], [7, 8]]
        if pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type):
            return [["a", "b"], ["c", ""], None, ["x", None], ["", ""], ["q", "r", "s"]]
        if pa.types.is_binary(t.value_type) or pa.types.is_large_binary(t.value_type):
            return [[b"a", b"b"], [b"c", b""], None, [b"x", None], [b"", b""], [b"q", b"r", b"s"]]
        # every list has two items or more, so list_element(l, 1) runs on all of them
        return [[1, None], [4, 5], None, [2, 3], [5, 6], [0, 1, 2]]
    raise ValueError(t)


def sample(t: pa.DataType, second: bool = False) -> pa.Array:
    if pa.types.is_dictionary(t):
        return sample(t.value_type, second).dictionary_encode().cast(t)
    return pa.array(_values(t, second), t)


# representatives of the kernels' input patterns, from which the sweep picks
REPRESENTATIVES = [
    pa.null(), pa.bool_(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(), pa.int8(),
    pa.int16(), pa.int32(), pa.int64(), pa.float16(), pa.float32(), pa.float64(),
    pa.decimal128(5, 2), pa.decimal256(20, 3), pa.utf8(), pa.large_utf8(), pa.binary(),
    pa.large_binary(), pa.binary(3), pa.date32(), pa.date64(), pa.time32("s"),
    pa.time32("ms"), pa.time64("us"), pa.time64("ns"), pa.timestamp("s"),
    pa.timestamp("ms", NEW_YORK), pa.timestamp("us", "UTC"), pa.timestamp("ns"),
    pa.duration("s"), pa.duration("ms"), pa.duration("us"), pa.duration("ns"),
    pa.list_(pa.int64()), pa.large_list(pa.int64()), pa.list_(pa.int64(), 2),
    pa.list_(pa.utf8()), pa.large_list(pa.utf8()), pa.list_(pa.binary()),
    pa.map_(pa.utf8(), pa.int64()), pa.struct([("c0", pa.bool_())]),
    pa.struct([("x", pa.int32()), ("y", pa.utf8())]),
]
# arguments pyarrow's kernels take only as scalars: (function, position) -> row of the sample
SCALAR_ARGUMENTS = {("list_element", 1): 3}
# types from other families: the implicit casts (or their absence) meet these
MIXED = [pa.int8(), pa.int32(), pa.uint8(), pa.float64(), pa.decimal128(5, 2), pa.null(),
         pa.utf8(), pa.dictionary(pa.int32(), pa.utf8()), pa.date32(), pa.timestamp("ms", "UTC")]


def _accepted(pattern) -> list[pa.DataType]:
    found = [t for t in REPRESENTATIVES if pattern.accepts(t)]
    timestamps = [t for t in found if pa.types.is_timestamp(t)]
    return ([t for t in found if not pa.types.is_timestamp(t)][:1] + timestamps)[:3] or found[:1]


def type_combos(name: str) -> list[tuple[pa.DataType, ...]]:
    """The argument types to try: each kernel's own, then cross-family mixes."""
    combos: dict[tuple, None] = {}
    arity = pc.get_function(name).arity
    for signature in kernel_signatures(name):
        patterns = list(signature.inputs)
        if signature.varargs:
            patterns = patterns + patterns[-1:]
        for types in itertools.product(*[_accepted(p) for p in patterns]):
            combos[types] = None
    n = 2 if arity is Ellipsis else arity
    if n == 1:
        for t in MIXED:
            combos[(t,)] = None
    elif n == 2:
        for a, b in itertools.product(MIXED[:6], repeat=2):
            combos[(a, b)] = None
        for a, b in itertools.product(MIXED[6:], repeat=2):
            combos[(a, b)] = None
    return list(combos)


# -- the comparison ------------------------------------------------------------------------

def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _run_pyarrow(name, arrays, options):
    try:
        return pc.call_function(name, arrays, options), None
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError, KeyError) as exc:
        return None, ("types", exc)  # KeyError: a result type pyarrow has no array class for
    except (pa.ArrowException, ValueError, OverflowError) as exc:
        return None, ("data", exc)


def _first_failing_row(name, values, options) -> int | None:
    """The first row pyarrow fails on alone (None when every row passes alone)."""
    n = max((len(v) for v in values if isinstance(v, pa.Array)), default=0)
    for r in range(n):
        row = [v.slice(r, 1) if isinstance(v, pa.Array) else v for v in values]
        if _run_pyarrow(name, row, options)[1] is not None:
            return r
    return None


def check_call(name: str, types, problems: list, flip: bool = False) -> bool:
    """Compare one call; True when pyarrow ran it. `flip` swaps the two samples."""
    columns = [f"a{i}" for i in range(len(types))]
    batch = pa.record_batch([sample(t, second=(i > 0) != flip) for i, t in enumerate(types)],
                            columns)
    options = options_for(name, types)
    values = list(batch.columns)
    args = [tk.field(c) for c in columns]
    for i in range(len(types)):
        if (name, i) in SCALAR_ARGUMENTS:
            values[i] = values[i][SCALAR_ARGUMENTS[name, i]]
            args[i] = tk.literal(values[i])
    expected, failure = _run_pyarrow(name, values, options)
    where = f"{name}{tuple(str(t) for t in types)}"
    try:
        bound = tk.call(name, args, options).bind(batch.schema)
    except BindError as exc:
        if failure is None:
            problems.append(f"{where}: exprscope does not bind ({exc}), pyarrow gives "
                            f"{expected.type}")
        elif failure[0] == "data" and _run_pyarrow(name, empty_arguments(name, types),
                                                   options)[1] is None:
            problems.append(f"{where}: exprscope does not bind ({exc}), pyarrow takes these "
                            f"types and fails on the values only ({failure[1]})")
        return failure is None
    if failure is not None and failure[0] == "types":
        problems.append(f"{where}: exprscope binds to {bound.type}, pyarrow: {failure[1]}")
        return False
    if failure is None and bound.type != expected.type:
        problems.append(f"{where}: bound {bound.type}, pyarrow {expected.type}")
        return True
    if failure is not None and not can_fail(bound):  # the call or a cast binding inserted
        problems.append(f"{where}: pyarrow fails ({failure[1]}) but the call says it cannot")
    for mode in ("lazy", "eager"):
        try:
            got = tk.evaluate(bound, batch, mode=mode)
        except ExprscopeError as exc:
            if failure is None:
                problems.append(f"{where} {mode}: fails ({exc}), pyarrow does not")
            else:
                first = _first_failing_row(name, values, options)
                row = getattr(exc, "row", None)
                if first is not None and row != first:
                    problems.append(f"{where} {mode}: fails at row {row}, pyarrow's first "
                                    f"failing row is {first}")
            continue
        if failure is not None:
            problems.append(f"{where} {mode}: gives {got}, pyarrow fails: {failure[1]}")
        elif not (got.equals(expected) or _same(got.to_pylist(), expected.to_pylist())):
            problems.append(f"{where} {mode}: {got.to_pylist()} != pyarrow's "
                            f"{expected.to_pylist()}")
    if failure is None and bound.function.null_handling is NullHandling.INTERSECTION:
        any_null = [any(not (v[r] if isinstance(v, pa.Array) else v).is_valid for v in values)
                    for r in range(batch.num_rows)]
        if any(n and expected[r].is_valid for r, n in enumerate(any_null)):
            problems.append(f"{where}: a null input gave a value, but null handling is "
                            "'intersection'")
    return failure is None


def _quirk(name: str, types) -> bool:
    """Where exprscope deliberately differs from pyarrow (see test_catalog_vs_pyarrow)."""
    zones = {t.tz for t in types if pa.types.is_timestamp(t)}
    # coalesce matches timestamps by type id in pyarrow, whatever their time zones
    if name == "coalesce" and len(zones) > 1:
        return True
    # choose over null values never looks at the index in pyarrow; exprscope checks it
    if name == "choose" and all(pa.types.is_null(t) for t in types[1:]):
        return True
    return _arrow_quirk(name, types)


def test_the_registry_covers_every_scalar_function_pyarrow_registers():
    missing = [n for n in NAMES if not has_function(n)]
    assert not missing, f"{len(missing)} pyarrow functions are missing: {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_function_agrees_with_pyarrow(name):
    if not has_function(name):
        pytest.fail(f"{name} is not in the registry")
    if name == "cast":
        pytest.skip("cast takes its target in options; tests/functions/test_cast_* cover it")
    problems: list[str] = []
    flips = (False, True) if pc.get_function(name).arity == 1 else (False,)
    ran = sum(check_call(name, types, problems, flip) for types in type_combos(name)
              for flip in flips if not _quirk(name, types))
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:12])
    assert ran or name in PYARROW_CANNOT_RETURN, f"pyarrow ran no sampled call of {name}"


def test_a_call_knows_whether_its_kernel_can_fail():
    schema = pa.schema([("x", pa.float64()), ("i", pa.int32()), ("s", pa.utf8())])
    cases = {
        ("sin", "x"): False, ("sin_checked", "x"): True, ("modulo", "i"): True,
        ("modulo", "x"): False, ("strptime", "s"): True, ("match_substring_regex", "s"): True,
        ("bit_wise_not", "i"): False, ("is_finite", "x"): False,
    }
    options = {"strptime": pc.StrptimeOptions("%Y", "s"),
               "match_substring_regex": pc.MatchSubstringOptions("a+")}
    for (name, column), fails in cases.items():
        args = [tk.field(column)] * get_function(name).arity.min
        bound = tk.call(name, args, options.get(name)).bind(schema)
        assert call_can_fail(bound) is fails, name


# argument types beyond any kernel's own: what pyarrow's DispatchBest casts implicitly
_BEYOND_KERNELS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(),
                   pa.uint64(), pa.float32(), pa.float64(), pa.string(), pa.large_string(),
                   pa.binary(), pa.date32(), pa.timestamp("us"), pa.timestamp("s", "UTC"),
                   pa.bool_(), pa.dictionary(pa.int32(), pa.string()), pa.decimal128(5, 2),
                   pa.null()]


def test_every_argument_type_pyarrow_accepts_binds_to_pyarrows_type():
    """Every one- and two-argument function without required options, over a grid of types
    that includes ones no kernel names: where pyarrow runs the call, exprscope binds it
    (inserting the casts Arrow's DispatchBest would) to the type pyarrow returns."""
    gaps = []
    for name in pyarrow_scalar_names():
        function = get_function(name)
        arity = pc.get_function(name).arity
        if function.options_required or arity not in (1, 2):
            continue
        for types in itertools.product(_BEYOND_KERNELS, repeat=arity):
            try:
                expected = pc.call_function(name, [pa.nulls(1, t) for t in types]).type
            except (pa.ArrowException, TypeError, ValueError, KeyError):
                continue
            schema = pa.schema([(f"c{i}", t) for i, t in enumerate(types)])
            try:
                bound = tk.call(name, [tk.field(f"c{i}") for i in range(arity)]).bind(schema)
            except ExprscopeError as err:
                gaps.append(f"{name}{tuple(map(str, types))}: refused ({type(err).__name__})")
                continue
            if bound.type != expected:
                gaps.append(f"{name}{tuple(map(str, types))}: {bound.type}, pyarrow {expected}")
    assert not gaps, f"{len(gaps)} calls pyarrow binds and exprscope does not:\n" + \
        "\n".join(gaps[:40])


def test_choose_casts_an_index_of_any_type_to_int64_as_pyarrow_does():
    """ChooseFunction's DispatchBest: the index becomes int64 whatever its type, so a float,
    string or decimal index binds (and fails on a row that is not a whole number); a type
    with no cast to int64 (a date) is refused, as pyarrow refuses it."""
    whole = {pa.float64(): [1.0, 0.0, None], pa.float32(): [1.0, 0.0, None],
             pa.string(): ["1", "0", None], pa.decimal128(5, 2): [Decimal("1.00"), 0, None],
             pa.bool_(): [True, False, None], pa.uint8(): [1, 0, None]}
    gaps = []
    for t in [*_BEYOND_KERNELS, pa.float16(), pa.time32("s"), pa.duration("s")]:
        try:
            expected = pc.choose(pa.nulls(1, t), pa.nulls(1, pa.int8()), pa.nulls(1, pa.int8()))
        except pa.ArrowException:
            expected = None
        schema = pa.schema([("i", t), ("a", pa.int8()), ("b", pa.int8())])
        try:
            bound = tk.call("choose", [tk.field("i"), tk.field("a"), tk.field("b")]).bind(schema)
        except ExprscopeError:
            bound = None
        if (expected is None) != (bound is None):
            gaps.append(f"{t}: pyarrow {'refuses' if expected is None else 'binds'}, "
                        f"exprscope {'refuses' if bound is None else 'binds'}")
        elif bound is not None and t in whole:
            batch = pa.record_batch([pa.array(whole[t], t), pa.array([1, 2, 3], pa.int8()),
                                     pa.array([4, 5, 6], pa.int8())], ["i", "a", "b"])
            got = tk.evaluate(bound, batch)
            want = pc.choose(batch["i"], batch["a"], batch["b"])
            if got != want:
                gaps.append(f"{t}: {got.to_pylist()} != pyarrow's {want.to_pylist()}")
    assert not gaps, "\n".join(gaps)
