"""Generated filters with thousands of terms parse, bind and optimize, carets still exact.

Finding each call's place in the text once walked every subtree for every call,
so a 10,000-term chain never finished; these are the shapes that did that.
"""

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk

N = 10_000
SCHEMA = pa.schema([("a", pa.int64()), ("s", pa.string())])


def _leaves_and_calls(expr):
    """(field leaves, calls) of a tree, counted with an explicit stack."""
    leaves = calls = 0
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_call:
            calls += 1
            stack.extend(node.args)
        elif node.is_field:
            leaves += 1
    return leaves, calls


def test_a_10000_term_chain_parses_binds_optimizes_and_evaluates():
    expr = tk.parse(" + ".join(["a"] * N))
    assert _leaves_and_calls(expr) == (N, N - 1)
    bound = expr.bind(SCHEMA)
    assert bound.type == pa.int64()
    optimized = tk.optimize(bound)
    table = pa.table({"a": [1, 2, None], "s": ["x", "y", "z"]})
    assert tk.evaluate(optimized, table).to_pylist() == [N, 2 * N, None]


def test_an_error_at_the_end_of_a_10000_term_chain_has_its_caret_under_the_culprit():
    text = " + ".join(["a"] * N) + " + (s % 2)"
    with pytest.raises(tk.ParseError) as info:
        tk.parse(text)
    assert "modulo" in info.value.reason
    assert info.value.position == text.index("s % 2")
    assert info.value.width == len("s % 2")


def test_a_bind_error_at_the_end_of_a_10000_term_chain_is_located_in_the_text():
    text = " + ".join(["a"] * N) + " + (s + 1)"
    with pytest.raises(tk.NoKernelError) as info:
        tk.parse(text).bind(SCHEMA)
    lines = info.value.located(text).splitlines()
    shown, caret = lines[1], lines[2]  # a long text is shown as a window around the caret
    column = caret.index("^")
    assert caret.count("^") == len("s + 1")
    assert shown[column:column + len("s + 1")] == "s + 1"


def test_a_10000_term_or_of_equalities_and_a_10000_value_in_list_read_right():
    ors = tk.parse(" OR ".join(f"a = {i}" for i in range(N)))
    assert _leaves_and_calls(ors) == (N, 2 * N - 1)
    listed = tk.parse("a IN (" + ", ".join(str(i) for i in range(N)) + ")")
    table = pa.table({"a": [0, N - 1, N, None], "s": ["", "", "", ""]})
    oracle = pc.is_in(table["a"], value_set=pa.array(range(N)))
    assert tk.evaluate(listed, table).to_pylist() == oracle.to_pylist()


def _calls(step) -> int:
    """Python function calls `step()` makes: the same on every run, whatever the load."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    try:
        step()
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls


@pytest.mark.parametrize("make", [
    lambda n: " + ".join(["a"] * n),
    lambda n: " OR ".join(f"a = {i}" for i in range(n)),
    lambda n: "CASE " + " ".join(f"WHEN a = {i} THEN a * {i}" for i in range(n // 2)) + " END",
], ids=["chain", "or", "case"])
def test_reading_ten_times_the_terms_makes_at_most_eleven_times_the_calls(make):
    """Growth counted in calls, not timed: linear work gives 10x, a walk per call ~100x."""
    small, large = make(500), make(5_000)
    grown = [_step_calls(text) for text in (small, large)]
    for step, before, after in zip(("parse", "bind", "optimize"), *grown):
        assert after <= 11 * before, (step, before, after)


def _step_calls(text: str) -> list[int]:
    """Calls made by parse, bind and optimize of `text`."""
    parsed = tk.parse(text)
    bound = parsed.bind(SCHEMA)
    return [_calls(lambda: tk.parse(text)), _calls(lambda: parsed.bind(SCHEMA)),
            _calls(lambda: tk.optimize(bound))]
