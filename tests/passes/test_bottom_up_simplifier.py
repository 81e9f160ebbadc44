"""The bottom-up simplifier gives, node for node, the tree `fold_constants(canonicalize(t))`
gives (the same calls, kernels, types and grouping), and knows whether a fold fired, on
generated trees over the whole registry and on the shapes where the order of the two
passes matters: chains out of order, chains in order then broken at the top, comparisons
with a literal on the left, a subtree shared between a chain and elsewhere, and trees
5,000 deep."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies import paired, typed, untyped
from toolkit.model.expression import Call, postorder, preorder
from toolkit.passes.bottom_up_simplifier import BottomUpSimplifier

PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def bottom_up(bound):
    """The simplifier driven as evaluation's preparation drives it: one post-order walk."""
    told = []
    simplifier = BottomUpSimplifier(told.append)
    for node in postorder(bound):
        if node.is_call:
            simplifier.visit(node)
    out = simplifier.simplified(bound)
    bound_ids = {id(n) for n in postorder(bound)}
    new = [n for n in postorder(out) if id(n) not in bound_ids]
    told_ids = {id(n) for n in told}
    assert all(id(n) in told_ids for n in new), "a node of the result was never told"
    positions: dict[int, int] = {}
    for i, n in enumerate(told):  # a node already made may be told again (`true and x`)
        positions.setdefault(id(n), i)
    for node in new:  # told after its arguments
        assert all(positions.get(id(a), -1) < positions[id(node)] for a in node.args
                   if id(a) in positions)
    return out, simplifier.folded(bound)


def by_the_passes(bound):
    canonical = tk.canonicalize(bound)
    folded = tk.fold_constants(canonical)
    return folded, folded is not canonical


def assert_same_tree(got, want):
    assert got.equals(want), f"\n got: {got}\nwant: {want}"
    for a, b in zip(preorder(got), preorder(want), strict=True):
        assert a.kind == b.kind and a.type == b.type, (str(a), str(b))
        if a.is_call:
            assert a.kernel is b.kernel and a.function is b.function, str(a)


def check(bound):
    got, got_folded = bottom_up(bound)
    want, want_folded = by_the_passes(bound)
    assert_same_tree(got, want)
    assert got_folded == want_folded, str(bound)
    if not want_folded and want is tk.canonicalize(bound) and want is bound:
        assert got is bound  # nothing to change: the very tree


@PROPERTY
@given(typed.expressions(depth=3))
def test_typed_trees(expr):
    check(tk.bind(expr, typed.SCHEMA))


@PROPERTY
@given(untyped.expressions(max_leaves=16))
def test_untyped_trees(expr):
    try:
        bound = tk.bind(expr, untyped.DEFAULT_SCHEMA)
    except tk.BindError:
        return
    check(bound)


@PROPERTY
@given(st.sampled_from([*paired.KINDS, paired.ROOT]).flatmap(paired.expressions))
def test_trees_over_the_whole_registry(pair):
    expr, _ = pair
    check(tk.bind(expr, paired.SCHEMA))


SCHEMA = pa.schema([("a", pa.int32()), ("b", pa.bool_()), ("x", pa.float64()),
                    ("y", pa.float64()), ("t", pa.timestamp("s")), ("d", pa.duration("s"))])


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


@pytest.mark.parametrize("text", [
    "a + 1 + 2",  # in order below, broken at the top, then folded
    "1 + 2 + a",  # in order: folded where it stands
    "(x + y) + 1.5",  # regrouped, nothing folds
    "x + (y + (1.5 + 2.5))",  # right-nested
    "(1 + a) + (2 + a)",  # two in-order chains joined out of order
    "1 < a and (2 > a or cast(null as boolean))",  # flips inside a chain, a null first
    "a * 0 + 1 < 5",  # a chain under a comparison with the literal right
    "t + d",  # a reordering that needs a new kernel
    "d + t + d",
    "(true and b) and (b and false)",
    "cast(a + 1 as double) + x + 2.0",  # binding puts a cast between two chains
])
def test_shapes_where_the_order_of_the_passes_matters(text):
    check(tk.bind(tk.parse(text), SCHEMA))


def test_a_subtree_both_inside_a_chain_and_a_chain_top_of_its_own():
    inner = tk.bind(tk.parse("a + 1"), SCHEMA)  # out of order: regrouped where it tops
    shared = Call("add", [inner, i32(3)])
    expr = tk.bind(Call("multiply", [shared, inner]), SCHEMA)
    check(expr)
    check(tk.bind(Call("add", [tk.bind(tk.parse("1 + a"), SCHEMA), i32(2)]), SCHEMA))


DEPTH = 5_000


@pytest.mark.parametrize("shape", ["sum", "literal sum", "right and", "mixed",
                                   "alternating chains"])
def test_trees_5000_deep(shape):
    if shape == "sum":  # a + 1 + 1 + ...: regrouped once at the top, folded to one add
        expr = tk.field("a")
        for _ in range(DEPTH):
            expr = expr + i32(1)
    elif shape == "literal sum":  # 1 + 1 + ... + a: in order, folded level by level
        expr = i32(1)
        for _ in range(DEPTH):
            expr = expr + i32(1)
        expr = expr + tk.field("a")
    elif shape == "right and":  # (k < a) and (... and b): flipped, regrouped to the left
        expr = tk.field("b")
        for k in range(DEPTH):
            expr = tk.and_(tk.less(i32(k % 7), tk.field("a")), expr)
    elif shape == "alternating chains":  # (((a * 1) + 2) * 3) + ...: each chain one call
        expr = tk.field("a")  # out of canonical order, waiting on the chain below it
        for k in range(DEPTH):
            expr = Call("add" if k % 2 else "multiply", [expr, i32(k % 3 + 1)])
    else:  # no chain: negate(abs(negate(...))) over a + 1
        expr = tk.parse("a + 1")
        for k in range(DEPTH):
            expr = Call("negate" if k % 2 else "abs", [expr])
    bound = tk.bind(expr, SCHEMA)
    got, got_folded = bottom_up(bound)
    want, want_folded = by_the_passes(bound)
    assert got.equals(want) and got_folded == want_folded
    if shape == "sum":
        assert str(got) == "add_checked(5000, a)"
