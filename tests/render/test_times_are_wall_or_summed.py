"""No node's time passes for more wall time than its whole evaluation took.

Morsels of a large table run on several threads at once; a node's time summed over
them is busy time, which can pass the evaluation's wall time. Every printer shows a
node's time as wall time only when it is (one thread), and names the sum otherwise.
"""

import re
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from render_helpers import needs_dot

import toolkit as tk
from toolkit.execution import parallel
from toolkit.render.html_report import report_html
from toolkit.render.svg import to_svg

X, Y = tk.field("x"), tk.field("y")
ROWS = 40_000


@contextmanager
def _on_the_pool():
    """Small tables on the pool's path, cut into many morsels: the threads and their
    overlapping times of a large table, at the cost of a small one."""
    saved = parallel.PARALLEL_MIN_ROWS, parallel.MORSEL_ROWS
    parallel.PARALLEL_MIN_ROWS, parallel.MORSEL_ROWS = 1_000, 2_048
    try:
        yield
    finally:
        parallel.PARALLEL_MIN_ROWS, parallel.MORSEL_ROWS = saved

_MS = re.compile(r"([\d,]+\.\d+) ms(?! wall)( summed over (\d+) threads)?")


def _table(seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({"x": pa.array(rng.integers(0, 1000, ROWS), mask=rng.random(ROWS) < 0.1),
                     "y": rng.random(ROWS)})


def _wide_case(branches: int) -> tk.Expression:
    return tk.case_when([(X < 1000 * (k + 1) // branches, Y * k) for k in range(branches)],
                        else_=Y)


_leaf = st.sampled_from([X, Y, X * 2, Y + 1])
_expr = st.one_of(
    st.integers(2, 60).map(_wide_case),
    st.tuples(_leaf, _leaf).map(lambda ab: tk.if_else(X > 500, ab[0], ab[1])),
    st.lists(_leaf, min_size=2, max_size=4).map(lambda args: tk.coalesce(*args)),
)


def _times_shown(text: str) -> list[tuple[float, bool]]:
    """(milliseconds, labelled as summed) of every node time a printed picture shows."""
    return [(float(ms.replace(",", "")), bool(summed)) for ms, summed, _ in _MS.findall(text)]


def _check(event, text: str, where: str) -> None:
    wall_ms = event.elapsed * 1000
    for ms, summed in _times_shown(text):
        assert summed or ms <= wall_ms + 0.01, (
            f"{where} shows {ms} ms as a node's time in an evaluation of {wall_ms:.2f} ms wall")


@needs_dot
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(expr=_expr, seed=st.integers(0, 3))
def test_every_node_time_is_wall_time_or_named_as_summed(expr, seed):
    with _on_the_pool(), tk.trace() as t:
        tk.evaluate(expr, _table(seed))
    (event,) = t.evaluations
    for stat in event.nodes:  # the API: wall time, unless summed over several threads
        assert stat.threads >= 1
        assert stat.threads > 1 or stat.elapsed <= event.elapsed, (stat.label, stat.elapsed)
    _check(event, tk.to_text(event, width=80), "the text")
    svg = to_svg(event)
    _check(event, svg, "the SVG")
    _check(event, report_html(t), "the report")
    again = tk.Trace.from_json(t.to_json()).evaluations[0]  # a saved trace says the same
    assert [s.threads for s in again.nodes] == [s.threads for s in event.nodes]


@needs_dot
def test_a_wide_case_when_on_two_threads_names_its_summed_time():
    with _on_the_pool(), tk.trace() as t:
        tk.evaluate(_wide_case(120), _table(0))
    (event,) = t.evaluations
    if event.threads < 2:  # a machine with one core: every time is wall time
        return
    root = next(s for s in event.nodes if tuple(s.path) == ())
    assert root.threads == event.threads
    svg = to_svg(event)
    assert f"summed over {event.threads} threads" in svg
    assert f"wall on {event.threads} threads" in svg
