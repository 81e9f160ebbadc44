"""Every pass on a 10,000-deep expression: no RecursionError, and the expected result."""

import pyarrow as pa
import pytest

import toolkit as tk

SCHEMA = pa.schema([pa.field("a", pa.int32()), pa.field("b", pa.bool_()),
                    pa.field("r", pa.int32(), nullable=False)])
DEPTH = 10_000


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


@pytest.fixture(scope="module")
def deep_sum():
    """a + 1 + 1 + ... (10,000 additions), left-folded, bound."""
    expr = tk.field("a")
    for _ in range(DEPTH):
        expr = expr + i32(1)
    return tk.bind(expr, SCHEMA)


@pytest.fixture(scope="module")
def deep_right_filter():
    """(a > 0) and ((1 < r) and (... and b)): right-nested, 10,000 deep."""
    expr = tk.field("b")
    for k in range(DEPTH):
        expr = tk.and_(tk.less(i32(k % 7), tk.field("a")), expr)
    return tk.bind(expr, SCHEMA)


def depth_of(expr):
    depth, node = 0, expr
    while node.args:
        node = max(node.args, key=lambda a: len(a.args))
        depth += 1
    return depth


def test_canonicalize_refolds_a_deep_sum_with_the_literals_first(deep_sum):
    out = tk.canonicalize(deep_sum)
    assert out.args[1].is_field  # ((1 + 1) + ... ) + a
    assert tk.canonicalize(out) is out


def test_fold_after_canonicalize_collapses_the_sum(deep_sum):
    out = tk.fold_constants(tk.canonicalize(deep_sum))
    assert str(out) == "add_checked(10000, a)"


def test_fold_alone_keeps_a_left_folded_sum(deep_sum):
    assert tk.fold_constants(deep_sum) is deep_sum


def test_identities_and_remove_named_refs_walk_deep_trees(deep_sum):
    assert tk.simplify_identities(deep_sum) is deep_sum
    out = tk.remove_named_refs(deep_sum)
    assert depth_of(out) == DEPTH
    leaf = out
    while leaf.args:
        leaf = leaf.args[0]
    assert str(leaf) == "FieldPath(0)"


def test_canonicalize_a_right_nested_chain(deep_right_filter):
    out = tk.canonicalize(deep_right_filter)
    # refolded left, ((... and (a > 0)) and (a > 1)) and b, every comparison flipped
    assert str(out.args[1]) == "b"
    assert str(out.args[0].args[1]) == "(a > 0)"  # the innermost comparison, k = 0
    assert tk.canonicalize(out) is out


def test_simplify_with_guarantee_decides_every_comparison(deep_right_filter):
    out = tk.simplify_with_guarantee(deep_right_filter, tk.greater(tk.field("a"), i32(10)))
    assert str(out) == "b"


def test_replace_fields_and_optimize_on_a_deep_chain(deep_right_filter):
    out = tk.optimize(deep_right_filter, guarantee=tk.equal(tk.field("a"), i32(3)))
    assert str(out) == "false"  # 3 < 3 is one of the members
    assert not tk.is_satisfiable(tk.optimize(deep_right_filter,
                                             guarantee=tk.less(tk.field("a"), i32(0))))
