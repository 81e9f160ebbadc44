"""Real events for the renderer tests: the real passes and evaluator, never hand-made fakes."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.passes import canonicalize, fold_constants


@pytest.fixture
def schema():
    return pa.schema([("a", pa.int64()), ("b", pa.int64())])


@pytest.fixture
def changed_pass(schema):
    """canonicalize flipping `3 < a` and reordering `b * 2`: two rules, two changed nodes."""
    expr = tk.and_(tk.less(3, tk.field("a")), tk.field("b") * 2 > 1).bind(schema)
    with tk.trace() as t:
        canonicalize(expr)
    (event,) = t.passes
    assert event.changed and len(event.rewrites) == 2
    return event


@pytest.fixture
def folding_pass(schema):
    """fold_constants turning `add(1, 2)` into 3: one changed node, two removed literals."""
    expr = (tk.field("a") + (tk.literal(1) + tk.literal(2))).bind(schema)
    with tk.trace() as t:
        fold_constants(expr)
    (event,) = t.passes
    return event
