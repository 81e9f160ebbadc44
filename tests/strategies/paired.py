"""Hypothesis strategies: random well-typed expressions, built twice (exprscope and pyarrow).

Each strategy draws a pair `(toolkit expression, pc.Expression)` of the same
tree, so one run can be compared with Acero. Each kind of value has columns of
its own type in the random tables and literals of that type: integers (int64 and
int32), floats, booleans, strings (string and large_string), binaries (binary and
fixed_size_binary), decimals, timestamps (without a zone, in UTC and in
America/New_York), dates, times, durations, lists of integers and of strings, a
map and a struct. Besides the forms and operators drawn by their own rules, any
registered function taking these kinds and giving one of them may appear; a
function whose result is of no kind (a struct, an interval, another list) may
appear at the root, the kind "root". Random tables come with nulls, zeros, NaNs,
empty strings and lists, leap days and the hours a daylight-saving change skips
or repeats.
"""

import datetime as dt
import functools
import itertools
import math
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import strategies as st

import toolkit as tk
from tests.functions.options_for import options_for
from toolkit.errors import BindError
from toolkit.functions import FunctionKind, function_names, get_function
from toolkit.functions.dispatch import exact_kernel

NY = "America/New_York"
_DAYS = [dt.datetime(2024, 2, 29, 13, 5, 7), dt.datetime(2024, 3, 10, 2, 30),
         dt.datetime(2024, 11, 3, 1, 30), dt.datetime(1999, 12, 31, 23, 59, 59, 999999),
         dt.datetime(1969, 12, 31, 23, 59, 59, 500000), dt.datetime(1970, 1, 1)]
_STRINGS = ["", "a", "Bc", "xyz", "ÄÖ", "2024-02-29", "a b-c"]


class Kind:
    """A kind of value: its type, its columns, and the values its columns and literals take."""

    def __init__(self, type_, columns, values, literals=None):
        self.type, self.columns, self.values = type_, columns, values
        self.literals = values if literals is None else literals


KINDS = {
    "int": Kind(pa.int64(), {"i": pa.int64(), "j": pa.int32()}, list(range(-4, 5)),
                list(range(-5, 6))),
    "float": Kind(pa.float64(), {"f": pa.float64()}, [0.0, 1.0, -2.5, 3.25, math.nan],
                  [0.0, -1.5, 2.0, 0.5]),
    "bool": Kind(pa.bool_(), {"p": pa.bool_()}, [True, False]),
    "str": Kind(pa.string(), {"s": pa.string()}, _STRINGS, ["", "a", "Bc", "xyz"]),
    "large_str": Kind(pa.large_string(), {"ls": pa.large_string()}, _STRINGS, ["", "a b"]),
    "binary": Kind(pa.binary(), {"b": pa.binary()}, [b"", b"a", b"\x00\xff", b"Bc"]),
    "fixed_binary": Kind(pa.binary(3), {"fb": pa.binary(3)}, [b"abc", b"\x00\x00\x00", b"a\xffz"]),
    "decimal": Kind(pa.decimal128(7, 2), {"dc": pa.decimal128(7, 2)},
                    [Decimal("0.00"), Decimal("-1.25"), Decimal("99999.99"), Decimal("3.10")]),
    "timestamp": Kind(pa.timestamp("us"), {"t": pa.timestamp("us")}, _DAYS),
    "timestamp_utc": Kind(pa.timestamp("us", "UTC"), {"tu": pa.timestamp("us", "UTC")}, _DAYS),
    "timestamp_ny": Kind(pa.timestamp("us", NY), {"tz": pa.timestamp("us", NY)}, _DAYS),
    "date": Kind(pa.date32(), {"d": pa.date32()},
                 [dt.date(2024, 2, 29), dt.date(2023, 2, 28), dt.date(1970, 1, 1),
                  dt.date(1969, 12, 31), dt.date(2000, 12, 31)]),
    "time": Kind(pa.time64("us"), {"tm": pa.time64("us")},
                 [dt.time(0), dt.time(23, 59, 59, 999999), dt.time(12, 30, 15, 500000)]),
    "duration": Kind(pa.duration("us"), {"du": pa.duration("us")},
                     [dt.timedelta(0), dt.timedelta(microseconds=-1), dt.timedelta(seconds=1),
                      dt.timedelta(days=1)]),
    "int_list": Kind(pa.list_(pa.int64()), {"l": pa.list_(pa.int64())},
                     [[], [1, None], [-3, 4, 0]]),
    "str_list": Kind(pa.list_(pa.string()), {"sl": pa.list_(pa.string())},
                     [[], ["a", None], ["", "Bc", "x"]], [[], ["-", "a"]]),
    "map": Kind(pa.map_(pa.string(), pa.int64()), {"m": pa.map_(pa.string(), pa.int64())},
                [[], [("a", 1)], [("a", None), ("b", 2)]]),
    "struct": Kind(pa.struct([("x", pa.int64()), ("y", pa.string())]),
                   {"st": pa.struct([("x", pa.int64()), ("y", pa.string())])},
                   [{"x": 1, "y": "a"}, {"x": None, "y": ""}]),
}
ROOT = "root"  # results of no kind: drawn only as the whole expression
COLUMNS = {kind: list(k.columns) for kind, k in KINDS.items()}
# the index of `choose`: 0, 1, 2 or null, so that three choices always hold it
CHOICE = "k"
SCHEMA = pa.schema([(name, t) for k in KINDS.values() for name, t in k.columns.items()]
                   + [(CHOICE, pa.int8())])
_KIND_OF = {t: kind for kind, k in KINDS.items() for t in k.columns.values()}

# the functions drawn by the rules in `expressions` rather than from `signatures`
OWN_RULES = {"if_else", "coalesce", "case_when", "make_struct", "choose", "struct_field",
             "is_in", "index_in", "cast", "and_kleene", "or_kleene", "invert", "is_null",
             "equal", "not_equal", "less", "greater_equal", "add", "subtract", "multiply",
             "divide", "negate", "abs", "utf8_length", "sqrt", "utf8_upper", "utf8_lower"}
# forms and functions whose arguments are not plain values: only their own rules draw them
_NOT_GENERIC = {"cast", "make_struct", "struct_field", "is_in", "index_in"}


def call(name, args, options=None):
    return (tk.call(name, [a for a, _ in args], options),
            pc.Expression._call(name, [p for _, p in args], options))


def field(name):
    return tk.field(name), pc.field(name)


def literal(value, type_):
    scalar = pa.scalar(value, type_)
    return tk.literal(scalar), pc.scalar(scalar)


def literals(kind):
    k = KINDS[kind]
    return st.one_of(st.none(), st.sampled_from(k.literals)).map(lambda v: literal(v, k.type))


def leaves(kind):
    return st.one_of(st.sampled_from(COLUMNS[kind]).map(field), literals(kind))


def case_when(conds, values, else_):
    struct = call("make_struct", conds, pc.MakeStructOptions([str(i) for i in range(len(conds))]))
    return call("case_when", [struct, *values] + ([else_] if else_ is not None else []))


def _to_kind(out):
    """The kind a result of type `out` joins, and the safe cast that takes it there (None
    when it is of the kind's type already); None for a result of no kind."""
    if out in _KIND_OF:
        return _KIND_OF[out], None
    if pa.types.is_integer(out):
        return "int", pa.int64()
    if pa.types.is_floating(out) or pa.types.is_decimal(out):
        return "float", pa.float64()
    if pa.types.is_timestamp(out):
        target = pa.timestamp("us", out.tz)
        return _KIND_OF[target], target
    for test, target in [(pa.types.is_duration, pa.duration("us")),
                         (pa.types.is_time, pa.time64("us")), (pa.types.is_date, pa.date32())]:
        if test(out):
            return _KIND_OF[target], target
    return None


# pyarrow 26's min/max_element_wise over a fixed_size_binary array that starts at an
# offset (a slice, a later batch of a chunk) read the values from the buffer's start:
# max_element_wise(a.slice(2), a.slice(2)) with a = [null, null, b"abc", null] gives
# [b"\x00\x00\x00", null]. exprscope re-bases such arrays first; Acero does not, so it is
# no reference there and the calls are left out.
# Acero itself crashes (segmentation fault) on min/max_element_wise of a large_string
# and a string: min_element_wise(null[large_string], s) in a project node. pyarrow's
# own call refuses the types; exprscope casts as Arrow's DispatchBest does.
_WRONG_IN_ARROW = {(name, kinds) for name in ("max_element_wise", "min_element_wise")
                   for kinds in [("fixed_binary",), ("fixed_binary", "fixed_binary"),
                                 ("large_str", "str"), ("str", "large_str")]}


def _may_bind(fn, types) -> bool:
    """A quick filter before binding: a kernel takes `types`, as they are or as the
    function's best dispatch casts them (binding then has the last word)."""
    if exact_kernel(fn, types) is not None:
        return True
    if fn.dispatch_best is None:
        return False
    try:
        return exact_kernel(fn, fn.dispatch_best(fn, list(types))) is not None
    except BindError:
        return False


@functools.cache
def signatures() -> dict[str, list]:
    """Per result kind (and ROOT): (function, argument kinds, options, cast to) for every
    registered function that binds over these kinds: the random trees draw from all of them.
    A function whose options have defaults is drawn with them and, where the catalog's
    options table has some, with those too."""
    found: dict[str, list] = {k: [] for k in [*KINDS, ROOT]}
    for name in function_names():
        fn = get_function(name)
        if fn.kind is FunctionKind.SPECIAL_FORM or name in _NOT_GENERIC:
            continue
        for n in [n for n in (1, 2) if fn.arity.accepts(n)]:
            for kinds in itertools.product(KINDS, repeat=n):
                types = [KINDS[k].type for k in kinds]
                if (name, kinds) in _WRONG_IN_ARROW or not _may_bind(fn, types):
                    continue
                table_options = options_for(name, types)
                choices = [] if fn.options_required else [None]
                for options in choices + ([table_options] if table_options is not None else []):
                    args = [tk.field(COLUMNS[k][0]) for k in kinds]
                    try:
                        out = tk.call(name, args, options).bind(SCHEMA).type
                    except BindError:
                        continue
                    joins = _to_kind(out)
                    if joins is None:
                        found[ROOT].append((name, kinds, options, None))
                    else:
                        found[joins[0]].append((name, kinds, options, joins[1]))
    return found


def drawable() -> set[str]:
    """Every function a random tree can contain."""
    return {name for found in signatures().values() for name, *_ in found} | OWN_RULES


def _any_function(kind, sub):
    """A call of any registered function whose result is of `kind`."""

    def build(signature):
        name, kinds, options, cast_to = signature
        made = st.tuples(*[sub(k) for k in kinds]).map(lambda args: call(name, list(args),
                                                                          options))
        if cast_to is not None:
            made = made.map(lambda c: call("cast", [c], pc.CastOptions.safe(cast_to)))
        return made

    return st.sampled_from(signatures()[kind]).flatmap(build)


@functools.cache
def _value_sets() -> dict[str, object]:
    """Per kind, the catalog's `is_in` options for its type, where it has some and both
    `is_in` and `index_in` take them."""
    found = {}
    for kind, k in KINDS.items():
        try:
            options = options_for("is_in", [k.type])
            for name in ("is_in", "index_in"):
                tk.call(name, [tk.field(COLUMNS[kind][0])], options).bind(SCHEMA)
        except (ValueError, pa.ArrowException, BindError):
            continue
        found[kind] = options
    return found


def _set_lookup(name, sub):
    kinds = sorted(_value_sets())
    return st.sampled_from(kinds).flatmap(
        lambda k: sub(k).map(lambda x: call(name, [x], _value_sets()[k])))


# Acero (pyarrow 26) gets a literal among `choose`'s values wrong (docs/differences-from-
# arrow.md, conditionals): a timestamp literal of any zone makes the result timestamp[s]
# with the microseconds unconverted, and a null large_string literal crashes the process
# (`choose(k, ls, null)`), where pc.choose returns the right values. Acero is no reference
# there, so `choose` is drawn over the other kinds its kernels take.
_CHOOSE_WRONG_IN_ACERO = {"large_str", "timestamp", "timestamp_utc", "timestamp_ny"}


@functools.cache
def _choose_kinds() -> set[str]:
    """The kinds a `choose` kernel takes, less those Acero gets wrong."""
    found = set()
    for kind in set(KINDS) - _CHOOSE_WRONG_IN_ACERO:
        column = tk.field(COLUMNS[kind][0])
        try:
            tk.call("choose", [tk.field(CHOICE), column, column]).bind(SCHEMA)
        except BindError:
            continue
        found.add(kind)
    return found


def _choose(sub, kind):
    index = st.one_of(st.just(CHOICE).map(field), st.sampled_from([0, 1, 2, None]).map(
        lambda v: literal(v, pa.int64())))
    return st.tuples(index, st.lists(sub(kind), min_size=3, max_size=4)).map(
        lambda t: call("choose", [t[0], *t[1]]))


@functools.cache
def expressions(kind, depth=3):
    """A random well-typed expression pair of the given kind (or ROOT). The kinds' types
    are their columns', which a literal need not keep: binding narrows a literal to its
    smallest type (Arrow's SmallestTypeFor), so a null timestamp[us] is a timestamp[s],
    and hours_between(t, max_element_wise(null, d)) finds no kernel in Acero either.
    Such a tree is drawn again."""
    return _tree(kind, depth).filter(_binds)


def _binds(pair) -> bool:
    try:
        tk.bind(pair[0], SCHEMA)
    except BindError:
        return False
    return True


def _tree(kind, depth):
    if kind == ROOT:
        return _any_function(ROOT, lambda k: _tree(k, depth - 1))
    if depth == 0:
        return leaves(kind)
    sub = lambda k: _tree(k, depth - 1)
    options = [leaves(kind)]
    options.append(st.tuples(sub("bool"), sub(kind), sub(kind)).map(
        lambda t: call("if_else", list(t))))
    options.append(st.lists(sub(kind), min_size=2, max_size=3).map(lambda xs: call("coalesce", xs)))
    options.append(st.integers(1, 3).flatmap(lambda n: st.tuples(
        st.lists(sub("bool"), min_size=n, max_size=n), st.lists(sub(kind), min_size=n, max_size=n),
        st.one_of(st.none(), sub(kind)))).map(lambda t: case_when(*t)))
    if kind in _choose_kinds():
        options.append(_choose(sub, kind))
    if signatures()[kind]:
        options.append(_any_function(kind, sub))
    if kind == "int":
        options.append(st.tuples(st.sampled_from(["add", "subtract", "multiply", "divide"]),
                                 sub("int"), sub("int")).map(lambda t: call(t[0], [t[1], t[2]])))
        options.append(st.tuples(st.sampled_from(["negate", "abs"]), sub("int")).map(
            lambda t: call(t[0], [t[1]])))
        options.append(sub("str").map(lambda x: call("utf8_length", [x])))
        options.append(_set_lookup("index_in", sub).map(
            lambda x: call("cast", [x], pc.CastOptions.safe(pa.int64()))))
        options.append(sub("struct").map(
            lambda x: call("struct_field", [x], pc.StructFieldOptions([0]))))
    elif kind == "float":
        options.append(st.tuples(st.sampled_from(["add", "multiply", "divide"]),
                                 sub("float"), sub("float")).map(lambda t: call(t[0], [t[1], t[2]])))
        options.append(sub("int").map(
            lambda x: call("cast", [x], pc.CastOptions.safe(pa.float64()))))
        options.append(sub("float").map(lambda x: call("sqrt", [x])))
    elif kind == "bool":
        for k in ("int", "float", "str"):
            options.append(st.tuples(
                st.sampled_from(["equal", "not_equal", "less", "greater_equal"]),
                sub(k), sub(k)).map(lambda t: call(t[0], [t[1], t[2]])))
        options.append(st.tuples(st.sampled_from(["and_kleene", "or_kleene"]),
                                 sub("bool"), sub("bool")).map(lambda t: call(t[0], [t[1], t[2]])))
        options.append(sub("bool").map(lambda x: call("invert", [x])))
        options.append(sub("int").map(lambda x: call("is_null", [x], pc.NullOptions())))
        options.append(_set_lookup("is_in", sub))
    elif kind == "str":
        options.append(st.tuples(st.sampled_from(["utf8_upper", "utf8_lower"]), sub("str")).map(
            lambda t: call(t[0], [t[1]])))
        options.append(sub("struct").map(
            lambda x: call("struct_field", [x], pc.StructFieldOptions([1]))))
    elif kind == "struct":
        # an int may be an int32: cast to the struct column's int64, so the two meet
        options.append(st.tuples(sub("int"), sub("str")).map(lambda t: call(
            "make_struct", [call("cast", [t[0]], pc.CastOptions.safe(pa.int64())), t[1]],
            pc.MakeStructOptions(["x", "y"]))))
    return st.one_of(*options)


@st.composite
def tables(draw, max_rows=24):
    """A random table of SCHEMA with nulls and each kind's edge values, in one or two chunks."""
    n = draw(st.integers(0, max_rows))

    def column(values, type_):
        return pa.array(draw(st.lists(st.one_of(st.none(), st.sampled_from(values)),
                                      min_size=n, max_size=n)), type_)

    cols = {name: column(k.values, t) for k in KINDS.values() for name, t in k.columns.items()}
    cols[CHOICE] = column([0, 1, 2], pa.int8())
    table = pa.table(cols, schema=SCHEMA)
    cut = draw(st.integers(0, n))
    if 0 < cut < n:
        table = pa.Table.from_batches(table.to_batches(max_chunksize=cut))
    return table


def same_values(x, y) -> bool:
    """Equal lists of Python values, NaN equal to NaN."""
    xs, ys = x.to_pylist(), y.to_pylist()
    if len(xs) != len(ys):
        return False
    for u, v in zip(xs, ys):
        if isinstance(u, float) and isinstance(v, float) and math.isnan(u) and math.isnan(v):
            continue
        if u != v:
            return False
    return True
