"""Hypothesis strategies for random expression trees, shared by the test suites.

Independent of binding: the trees are unbound and need not type-check, so any
suite can use them (parse/print round trips, hashing, rendering). Suites that
bind or evaluate should filter with their own type rules or use `field_refs`
and `literals` with a schema of their choosing.

    from tests.strategies.untyped import expressions, DEFAULT_SCHEMA
    @given(expressions())
    def test_something(e): ...
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import strategies as st

import toolkit as tk
from toolkit.model.expression import Call

__all__ = [
    "ARITHMETIC",
    "COMPARISONS",
    "DEFAULT_SCHEMA",
    "calls_with_options",
    "expressions",
    "expressions_with_options",
    "field_name_paths",
    "field_refs",
    "literals",
]

# names chosen to need quoting (a keyword, a space, a quote, a dot) next to plain ones
DEFAULT_SCHEMA = pa.schema([
    ("a", pa.int64()),
    ("b", pa.float64()),
    ("i", pa.int32()),
    ("s", pa.string()),
    ("flag", pa.bool_()),
    ("t", pa.timestamp("us")),
    ("d", pa.date32()),
    ("select", pa.int64()),
    ("x y", pa.float64()),
    ('q"uote', pa.string()),
    ("dotted.name", pa.int64()),
    ("st", pa.struct([("c", pa.int64()), ("inner", pa.struct([("e", pa.string())]))])),
])

COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
ARITHMETIC = ("add", "subtract", "multiply", "divide")


def field_name_paths(schema: pa.Schema) -> list[tuple[str, ...]]:
    """Every field as a path of names, nested struct children included."""
    out: list[tuple[str, ...]] = []
    stack = [((f.name,), f.type) for f in reversed(list(schema))]
    while stack:
        path, typ = stack.pop()
        out.append(path)
        if pa.types.is_struct(typ):
            for i in reversed(range(typ.num_fields)):
                child = typ.field(i)
                stack.append((path + (child.name,), child.type))
    return out


def field_refs(schema: pa.Schema = DEFAULT_SCHEMA) -> st.SearchStrategy:
    """Field references by name (nested ones as `field("st", "c")`) over `schema`."""
    return st.sampled_from(field_name_paths(schema)).map(lambda p: tk.field(*p))


_NULL_TYPES = [pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_(), pa.date32(),
               pa.timestamp("us")]


def literals() -> st.SearchStrategy:
    """Constants of several types, with nulls (untyped and typed), NaN and infinities."""
    return st.one_of(
        st.integers(-(2**63), 2**63 - 1).map(tk.literal),
        st.integers(-(2**31), 2**31 - 1).map(lambda v: tk.literal(v, pa.int32())),
        st.integers(0, 255).map(lambda v: tk.literal(v, pa.uint8())),
        st.floats(allow_nan=True, allow_infinity=True).map(tk.literal),
        st.floats(width=32, allow_nan=True).map(lambda v: tk.literal(v, pa.float32())),
        st.text(max_size=8).map(tk.literal),
        st.booleans().map(tk.literal),
        st.just(tk.literal(None)),
        st.sampled_from(_NULL_TYPES).map(lambda t: tk.literal(None, t)),
        st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)).map(lambda d: tk.literal(d, pa.date32())),
        st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31)).map(
            lambda d: tk.literal(d, pa.timestamp("us"))),
        st.integers(-(10**12), 10**12).map(lambda v: tk.literal(pa.scalar(v, pa.duration("s")))),
    )


def _calls(children: st.SearchStrategy) -> st.SearchStrategy:
    pairs = st.tuples(children, children)
    return st.one_of(
        st.tuples(st.sampled_from(COMPARISONS), pairs).map(lambda t: Call(t[0], t[1])),
        st.tuples(st.sampled_from(ARITHMETIC), pairs).map(lambda t: Call(t[0], t[1])),
        pairs.map(lambda p: tk.and_(*p)),
        pairs.map(lambda p: tk.or_(*p)),
        children.map(tk.not_),
        children.map(lambda c: Call("negate", [c])),
        st.tuples(children, st.booleans()).map(lambda t: tk.is_null(t[0], nan_is_null=t[1])),
        children.map(tk.is_valid),
        st.tuples(children, children, children).map(lambda t: tk.if_else(*t)),
        st.tuples(st.lists(pairs, min_size=1, max_size=3),
                  st.one_of(st.none(), children)).map(lambda t: tk.case_when(t[0], else_=t[1])),
        st.lists(children, min_size=1, max_size=3).map(tk.coalesce),
    )


def expressions(schema: pa.Schema = DEFAULT_SCHEMA, max_leaves: int = 12) -> st.SearchStrategy:
    """Random unbound trees of fields, constants and calls (comparisons, arithmetic,
    Kleene logic, is_null/is_valid, if_else, case_when, coalesce)."""
    leaves = st.one_of(field_refs(schema), literals())
    return st.recursive(leaves, _calls, max_leaves=max_leaves)


def _value_sets() -> st.SearchStrategy:
    # no NaN: Arrow's SetLookupOptions equality compares NaN as unequal to itself
    return st.one_of(
        st.lists(st.integers(-5, 5), min_size=1, max_size=4).map(lambda v: pa.array(v, pa.int32())),
        st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), min_size=1, max_size=3).map(
            lambda v: pa.array(v, pa.int64())),
        st.lists(st.floats(allow_nan=False), min_size=1, max_size=3).map(pa.array),
        st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=1, max_size=3).map(
            lambda v: pa.array(v, pa.string())),
    )


_CAST_TARGETS = [pa.int8(), pa.int32(), pa.uint64(), pa.float32(), pa.float64(), pa.string(),
                 pa.binary(), pa.date32(), pa.timestamp("ns"), pa.decimal128(10, 2), pa.bool_()]
_NAMES = st.one_of(st.text("xyz =,{}\"'", min_size=1, max_size=4), st.sampled_from(["select", "0", "a b"]))


def calls_with_options(children: st.SearchStrategy) -> st.SearchStrategy:
    """Calls that carry pyarrow options or need their SQL spelling: is_in, cast, round,
    match_like/starts_with, utf8_slice_codeunits, make_struct, string joins, renamed functions."""
    return st.one_of(
        st.tuples(children, _value_sets()).map(
            lambda t: Call("is_in", [t[0]], pc.SetLookupOptions(t[1]))),
        st.tuples(children, st.sampled_from(_CAST_TARGETS)).map(lambda t: tk.cast(t[0], t[1])),
        st.tuples(children, st.integers(-3, 3), st.sampled_from(["half_to_even", "half_up", "down"])).map(
            lambda t: Call("round", [t[0]], pc.RoundOptions(t[1], t[2]))),
        st.tuples(children, st.text(max_size=4), st.booleans()).map(
            lambda t: Call("match_like", [t[0]], pc.MatchSubstringOptions(t[1], ignore_case=t[2]))),
        st.tuples(st.sampled_from(["starts_with", "ends_with"]), children, st.text(max_size=4)).map(
            lambda t: Call(t[0], [t[1]], pc.MatchSubstringOptions(t[2]))),
        st.tuples(children, st.integers(-4, 4), st.one_of(st.none(), st.integers(-4, 6)),
                  st.sampled_from([1, 2, -1])).map(
            lambda t: Call("utf8_slice_codeunits", [t[0]],
                           pc.SliceOptions(t[1], t[2], t[3]) if t[2] is not None
                           else pc.SliceOptions(t[1], step=t[3]))),
        # sqlglot's tokenizer fails on a doubled quote inside struct(...): `struct("q""x" AS y)`
        st.lists(st.tuples(_NAMES, children), min_size=1, max_size=3,
                 unique_by=lambda kv: kv[0]).map(
            lambda kv: tk.project([v for _, v in kv], [k for k, _ in kv])).filter(
            lambda e: '""' not in e.to_sql()),
        st.tuples(st.lists(children, min_size=1, max_size=3), st.text(max_size=2)).map(
            lambda t: Call("binary_join_element_wise", [*t[0], tk.literal(t[1])])),
        st.tuples(st.sampled_from(["utf8_upper", "utf8_length", "abs", "power", "year", "upper",
                                   "if", "my_udf", "and_not_kleene", "round", "coalesce"]),
                  st.lists(children, max_size=3)).map(lambda t: Call(t[0], t[1])),
        st.tuples(children, st.booleans()).map(lambda t: tk.is_null(t[0], nan_is_null=t[1])),
    )


def expressions_with_options(schema: pa.Schema = DEFAULT_SCHEMA, max_leaves: int = 10):
    """Random trees mixing `expressions()`'s calls with `calls_with_options`."""
    leaves = st.one_of(field_refs(schema), literals())
    return st.recursive(leaves, lambda c: st.one_of(_calls(c), calls_with_options(c)),
                        max_leaves=max_leaves)
