"""Random evaluations, traced, survive JSON: the loaded trace draws exactly as the live one."""

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk

_INTS = st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=1, max_size=80)


def _int_expressions():
    leaves = st.one_of(st.sampled_from([tk.field("a"), tk.field("b")]),
                       st.integers(-3, 3).map(tk.literal))

    def grow(children):
        conds = st.tuples(st.sampled_from(["greater", "equal", "not_equal"]), children,
                          children).map(lambda t: tk.call(t[0], [t[1], t[2]]))
        return st.one_of(
            st.tuples(st.sampled_from(["add", "subtract", "multiply"]), children, children)
            .map(lambda t: tk.call(t[0], [t[1], t[2]])),
            st.tuples(conds, children, children).map(lambda t: tk.if_else(*t)),
            st.lists(children, min_size=1, max_size=3).map(tk.coalesce),
            st.tuples(st.lists(st.tuples(conds, children), min_size=1, max_size=2),
                      children).map(lambda t: tk.case_when(t[0], else_=t[1])),
        )

    return st.recursive(leaves, grow, max_leaves=8)


@settings(max_examples=40)
@given(_int_expressions(), _INTS, _INTS, st.sampled_from(["lazy", "eager"]))
def test_traced_evaluations_round_trip(expr, a, b, mode):
    n = min(len(a), len(b))
    table = pa.table({"a": pa.array(a[:n], pa.int64()), "b": pa.array(b[:n], pa.int64())})
    with tk.trace() as t:
        try:
            tk.evaluate(expr, table, mode=mode)
        except tk.KernelError:
            pass  # overflow is possible; the failure is part of the trace
    back = tk.Trace.from_json(t.to_json())
    assert tk.to_text(back, color=False) == tk.to_text(t, color=False)
    assert tk.to_dot(back).source == tk.to_dot(t).source
    original, loaded = t.evaluations[0], back.evaluations[0]
    assert [(b.path, b.branch, b.rows.to_pylist()) for b in loaded.branches] == \
        [(b.path, b.branch, b.rows.to_pylist()) for b in original.branches]
    if original.result is not None:
        assert loaded.result.equals(original.result)
