"""Well-typed random expressions (and guarantees) for the pass properties.

tests/strategies/untyped.py makes untyped trees, most of which do not bind; the pass
properties need trees that bind and evaluate, so these are grown by kind (int,
float, bool, str) over a schema with nullable and non-nullable columns, with the
values that make rules go wrong: nulls, NaN, -0.0, infinities, 0 and 1. Kernels
that can fail per row (checked arithmetic, integer division, narrowing casts)
are left out: Acero, the eager reference, would fail where lazy evaluation does not.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import strategies as st

import toolkit as tk
from toolkit.model.expression import Call

SCHEMA = pa.schema([
    pa.field("i", pa.int32()), pa.field("j", pa.int32(), nullable=False),
    pa.field("k", pa.int64()),
    pa.field("f", pa.float64()), pa.field("g", pa.float64(), nullable=False),
    pa.field("b", pa.bool_()), pa.field("c", pa.bool_(), nullable=False),
    pa.field("s", pa.utf8()),
])
FIELDS = {"int": ["i", "j", "k"], "float": ["f", "g"], "bool": ["b", "c"], "str": ["s"]}
COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]

_INTS = st.one_of(st.sampled_from([0, 1, -1, 2, 3, 5, 7]), st.integers(-50, 50))
_FLOATS = st.one_of(st.sampled_from([0.0, -0.0, 1.0, float("nan"), float("inf"), -1.5]),
                    st.floats(-100, 100, allow_nan=False))
_STRS = st.sampled_from(["", "a", "b", "xyz"])


def literal_of(kind: str) -> st.SearchStrategy:
    value = {"int": _INTS.map(lambda v: pa.scalar(v, pa.int32())),
             "float": _FLOATS.map(lambda v: pa.scalar(v, pa.float64())),
             "bool": st.booleans().map(pa.scalar),
             "str": _STRS.map(pa.scalar)}[kind]
    null = {"int": pa.int32(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.utf8()}[kind]
    return st.one_of(value.map(tk.literal), st.just(tk.literal(None, null)))


def _leaf(kind: str) -> st.SearchStrategy:
    return st.one_of(st.sampled_from(FIELDS[kind]).map(tk.field), literal_of(kind))


def expression_of(kind: str, depth: int = 4) -> st.SearchStrategy:
    if depth <= 0:
        return _leaf(kind)
    sub = lambda k: expression_of(k, depth - 1)
    same = sub(kind)
    options = [_leaf(kind),
               st.tuples(sub("bool"), same, same).map(lambda t: tk.if_else(*t)),
               st.lists(same, min_size=1, max_size=3).map(tk.coalesce),
               st.tuples(st.lists(st.tuples(sub("bool"), same), min_size=1, max_size=3),
                         st.one_of(st.none(), same)).map(lambda t: tk.case_when(t[0], else_=t[1]))]
    if kind == "int":
        options.append(st.tuples(st.sampled_from(["add", "subtract", "multiply"]), same, same)
                       .map(lambda t: Call(t[0], t[1:])))
    if kind == "float":
        options += [st.tuples(st.sampled_from(["add", "subtract", "multiply", "divide"]), same, same)
                    .map(lambda t: Call(t[0], t[1:])),
                    sub("int").map(lambda e: tk.cast(e, pa.float64()))]
    if kind == "bool":
        options += [
            st.tuples(st.sampled_from(COMPARISONS), st.sampled_from(["int", "float", "str"]))
            .flatmap(lambda t: st.tuples(sub(t[1]), sub(t[1])).map(lambda p: Call(t[0], p))),
            st.tuples(same, same).map(lambda p: tk.and_(*p)),
            st.tuples(same, same).map(lambda p: tk.or_(*p)),
            st.tuples(st.sampled_from(["and", "or"]), same, same).map(lambda t: Call(t[0], t[1:])),
            same.map(tk.not_),
            st.sampled_from(["int", "float", "str", "bool"]).flatmap(
                lambda k: st.tuples(sub(k), st.sampled_from(["is_null", "is_valid",
                                                             "true_unless_null"]))
                .map(lambda t: Call(t[1], [t[0]]))),
            st.tuples(sub("int"), st.lists(st.one_of(st.none(), _INTS), min_size=1, max_size=6),
                      st.booleans())
            .map(lambda t: Call("is_in", [t[0]], pc.SetLookupOptions(
                pa.array(t[1], pa.int32()), skip_nulls=t[2]))),
        ]
    return st.one_of(*options)


def expressions(depth: int = 4) -> st.SearchStrategy:
    return st.sampled_from(list(FIELDS)).flatmap(lambda k: expression_of(k, depth))


def tables(min_rows: int = 0, max_rows: int = 12) -> st.SearchStrategy:
    """Tables over SCHEMA; nullable columns get nulls, float columns NaN and -0.0."""
    def column(field: pa.Field):
        kind = next(k for k, names in FIELDS.items() if field.name in names)
        base = {"int": _INTS, "float": _FLOATS, "bool": st.booleans(), "str": _STRS}[kind]
        return st.one_of(base, st.none()) if field.nullable else base

    return st.integers(min_rows, max_rows).flatmap(lambda n: st.tuples(
        *[st.lists(column(f), min_size=n, max_size=n) for f in SCHEMA])).map(
        lambda cols: pa.table([pa.array(c, f.type) for c, f in zip(cols, SCHEMA)], schema=SCHEMA))


def _guarantee_member() -> st.SearchStrategy:
    ints = st.tuples(st.sampled_from(["i", "j", "k"]), st.sampled_from(COMPARISONS[:1] + COMPARISONS[2:]),
                     _INTS).map(lambda t: Call(t[1], [tk.field(t[0]), tk.literal(
                         pa.scalar(t[2], pa.int64() if t[0] == "k" else pa.int32()))]))
    floats = st.tuples(st.sampled_from(["f", "g"]), st.sampled_from(COMPARISONS[2:]),
                       st.floats(-10, 10, allow_nan=False)).map(
        lambda t: Call(t[1], [tk.field(t[0]), tk.literal(t[2])]))
    nullable = st.tuples(ints, st.booleans()).map(
        lambda t: tk.or_(t[0], tk.is_null(t[0].args[0])) if t[1] else t[0])
    validity = st.tuples(st.sampled_from(["i", "k", "f", "b", "s"]), st.booleans()).map(
        lambda t: tk.is_null(tk.field(t[0])) if t[1] else tk.is_valid(tk.field(t[0])))
    return st.one_of(nullable, floats, validity)


def guarantees() -> st.SearchStrategy:
    """Guarantees of the shapes the simplifier reads, alone or in an and_kleene chain."""
    return st.lists(_guarantee_member(), min_size=1, max_size=3).map(tk.and_)
