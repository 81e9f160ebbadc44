"""Hypothesis strategies: random well-typed expressions, built twice (exprscope and pyarrow).

Each strategy draws a pair `(toolkit expression, pc.Expression)` of the same
tree, so one run can be compared with Acero. Types: int (int64 and int32
columns), float, bool, str. Besides the forms and operators drawn by their own
rules, any registered function taking and giving these types may appear.
Random tables come with nulls, zeros and NaNs.
"""

import functools
import itertools
import math

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import BindError
from toolkit.functions import FunctionKind, function_names, get_function

COLUMNS = {"int": ["i", "j"], "float": ["f"], "bool": ["p"], "str": ["s"]}
SCHEMA = pa.schema([("i", pa.int64()), ("j", pa.int32()), ("f", pa.float64()),
                    ("p", pa.bool_()), ("s", pa.string())])


def call(name, args, options=None):
    return (tk.call(name, [a for a, _ in args], options),
            pc.Expression._call(name, [p for _, p in args], options))


def field(name):
    return tk.field(name), pc.field(name)


def literal(value, type_):
    scalar = pa.scalar(value, type_)
    return tk.literal(scalar), pc.scalar(scalar)


def literals(kind):
    values = {
        "int": st.one_of(st.none(), st.integers(-5, 5)),
        "float": st.one_of(st.none(), st.sampled_from([0.0, -1.5, 2.0, 0.5])),
        "bool": st.one_of(st.none(), st.booleans()),
        "str": st.one_of(st.none(), st.sampled_from(["", "a", "Bc", "xyz"])),
    }[kind]
    type_ = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string()}[kind]
    return values.map(lambda v: literal(v, type_))


def leaves(kind):
    return st.one_of(st.sampled_from(COLUMNS[kind]).map(field), literals(kind))


def case_when(conds, values, else_):
    struct = call("make_struct", conds, pc.MakeStructOptions([str(i) for i in range(len(conds))]))
    return call("case_when", [struct, *values] + ([else_] if else_ is not None else []))


# options for the functions that need them, by options class (the rest run on defaults)
_OPTIONS = {
    pc.PadOptions: pc.PadOptions(4, "*"), pc.TrimOptions: pc.TrimOptions("a"),
    pc.MatchSubstringOptions: pc.MatchSubstringOptions("a"),
    pc.ReplaceSubstringOptions: pc.ReplaceSubstringOptions("a", "zz"),
    pc.Utf8NormalizeOptions: pc.Utf8NormalizeOptions("NFD"),
    pc.ReplaceSliceOptions: pc.ReplaceSliceOptions(0, 1, "x"),
    pc.SliceOptions: pc.SliceOptions(0, 2), pc.ZeroFillOptions: pc.ZeroFillOptions(3),
}
# forms with rules of their own above, and functions whose arguments are not plain columns
_OWN_RULES = {"cast", "make_struct", "struct_field", "is_in", "index_in"}
_KIND_OF = {pa.int64(): "int", pa.int32(): "int", pa.float64(): "float", pa.bool_(): "bool",
            pa.string(): "str"}
# results of another width: cast back to the kind (a safe cast, in both engines)
_WIDENED = {"int": pa.int64(), "float": pa.float64()}


@functools.cache
def signatures() -> dict[str, list]:
    """Per result kind: (function, argument kinds, options, cast to) for every registered
    scalar function that binds over these columns: the random trees draw from all of them."""
    found: dict[str, list] = {k: [] for k in COLUMNS}
    for name in function_names():
        fn = get_function(name)
        if fn.kind is FunctionKind.SPECIAL_FORM or name in _OWN_RULES:
            continue
        options = _OPTIONS.get(fn.options_class) if fn.options_required else None
        if fn.options_required and options is None:
            continue
        for n in [n for n in (1, 2) if fn.arity.accepts(n)]:
            for kinds in itertools.product(COLUMNS, repeat=n):
                args = [tk.field(COLUMNS[k][0]) for k in kinds]
                try:
                    out = tk.call(name, args, options).bind(SCHEMA).type
                except BindError:
                    continue
                if out in _KIND_OF:
                    found[_KIND_OF[out]].append((name, kinds, options, None))
                elif pa.types.is_integer(out) or pa.types.is_float32(out):
                    kind = "int" if pa.types.is_integer(out) else "float"
                    found[kind].append((name, kinds, options, _WIDENED[kind]))
    return found


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
def expressions(kind, depth=3):
    """A random well-typed expression pair of the given kind."""
    if depth == 0:
        return leaves(kind)
    sub = lambda k: expressions(k, depth - 1)
    options = [leaves(kind)]
    options.append(st.tuples(sub("bool"), sub(kind), sub(kind)).map(
        lambda t: call("if_else", list(t))))
    options.append(st.lists(sub(kind), min_size=2, max_size=3).map(lambda xs: call("coalesce", xs)))
    options.append(st.integers(1, 3).flatmap(lambda n: st.tuples(
        st.lists(sub("bool"), min_size=n, max_size=n), st.lists(sub(kind), min_size=n, max_size=n),
        st.one_of(st.none(), sub(kind)))).map(lambda t: case_when(*t)))
    options.append(_any_function(kind, sub))
    if kind == "int":
        options.append(st.tuples(st.sampled_from(["add", "subtract", "multiply", "divide"]),
                                 sub("int"), sub("int")).map(lambda t: call(t[0], [t[1], t[2]])))
        options.append(st.tuples(st.sampled_from(["negate", "abs"]), sub("int")).map(
            lambda t: call(t[0], [t[1]])))
        options.append(sub("str").map(lambda x: call("utf8_length", [x])))
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
    elif kind == "str":
        options.append(st.tuples(st.sampled_from(["utf8_upper", "utf8_lower"]), sub("str")).map(
            lambda t: call(t[0], [t[1]])))
    return st.one_of(*options)


@st.composite
def tables(draw, max_rows=24):
    """A random table of SCHEMA with nulls, zeros and NaNs, in one or two chunks."""
    n = draw(st.integers(0, max_rows))
    ints = st.lists(st.one_of(st.none(), st.integers(-4, 4)), min_size=n, max_size=n)
    cols = {
        "i": pa.array(draw(ints), pa.int64()),
        "j": pa.array(draw(ints), pa.int32()),
        "f": pa.array(draw(st.lists(st.one_of(st.none(), st.sampled_from(
            [0.0, 1.0, -2.5, 3.25, math.nan])), min_size=n, max_size=n)), pa.float64()),
        "p": pa.array(draw(st.lists(st.one_of(st.none(), st.booleans()), min_size=n, max_size=n)),
                      pa.bool_()),
        "s": pa.array(draw(st.lists(st.one_of(st.none(), st.sampled_from(
            ["", "a", "Bc", "xyz", "ÄÖ"])), min_size=n, max_size=n)), pa.string()),
    }
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
